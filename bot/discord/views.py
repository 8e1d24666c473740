"""Persistent buttons: owed rolls (follow-ups), the confirmation of dice typed by hand, and
the faces of a die a command still waits for (physical dice, roll by roll).

A button's ``custom_id`` carries everything needed to run it — the verb, the game (its
channel id) and the options — as ``arbitro:<verb>:<channel>:<options>``, so a button made
before a restart still works after it: :class:`ActionButton` is a
:class:`discord.ui.DynamicItem` registered with ``bot.add_dynamic_items``, rebuilt from
the id on every click. Whoever clicks is the requester; the service decides whether they
may.

A die asked for gets one :class:`DieFaceButton` per face, laid out in even rows (a D6 two
rows of three, a D10 two rows of five, a D12 three rows of four). Its id,
``arbitro-die:<channel>:<prompt>:<n>:<face>:<roller>``, names the waiting command kept
by the store, which of the roller's dice it answers and who may press it: anyone else
gets an ephemeral refusal before the service is asked.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, cast
from urllib.parse import quote, unquote

import discord

from bot.commands import DIE_ANSWER
from bot.discord.errors import report_error
from bot.service.errors import ServiceError
from bot.service.replies import ConfirmReply, PlayReply, Reply, RollReply, StatusReply
from bot.service.rolls import DicePrompt
from rules.core.i18n import translate
from rules.render import outcome_text

TEMPLATE = r"arbitro:(?P<verb>[a-z.]+):(?P<channel>\d+):(?P<args>[^:]*)"
CUSTOM_ID_LIMIT = 100
LABEL_LIMIT = 80
BUTTON_LIMIT = 25
ROW_LIMIT = 5
DIE_TEMPLATE = (
    r"arbitro-die:(?P<channel>\d+):(?P<prompt>\d+):(?P<n>\d+):(?P<face>\d+):(?P<user>\d+)"
)
DICE_VERBS = ("dice.confirm", "dice.dispute")
#: Verbs whose buttons come as a question's answers: once one is pressed, both are done.
QUESTION_VERBS = ("game.concede",)


class ButtonHost(Protocol):
    """The bot a button was clicked on: it runs the button's verb the way it runs a slash
    command (`bot.discord.runner.run_button`, which renders replies with these buttons and
    so cannot be imported from here)."""

    async def run_button(
        self, interaction: discord.Interaction[Any], button: ActionButton | DieFaceButton
    ) -> None:
        """Run ``button``'s verb for whoever clicked it."""


def _host(interaction: discord.Interaction[Any]) -> ButtonHost:
    return cast(ButtonHost, interaction.client)


def encode_options(options: Mapping[str, Any]) -> str:
    """``{"unit": "a b", "kind": "CT"}`` → ``unit=a%20b&kind=CT`` (no ``:`` survives)."""
    return "&".join(
        f"{quote(str(key), safe='')}={quote(str(value), safe='')}" for key, value in options.items()
    )


def decode_options(text: str) -> dict[str, str]:
    """The inverse of :func:`encode_options`."""
    options: dict[str, str] = {}
    for part in text.split("&"):
        if part:
            key, _, value = part.partition("=")
            options[unquote(key)] = unquote(value)
    return options


def custom_id(verb: str, channel_id: int, options: Mapping[str, Any]) -> str:
    """The custom id of a button running ``verb`` with ``options`` in the game of a channel."""
    return f"arbitro:{verb}:{channel_id}:{encode_options(options)}"


def _label(text: str) -> str:
    return text if len(text) <= LABEL_LIMIT else text[: LABEL_LIMIT - 1] + "…"


class ActionButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=TEMPLATE):
    """A button that runs one service verb for whoever clicks it."""

    def __init__(
        self,
        verb: str,
        channel_id: int,
        options: Mapping[str, Any],
        *,
        label: str = "",
        style: discord.ButtonStyle = discord.ButtonStyle.primary,
        disabled: bool = False,
        row: int | None = None,
    ) -> None:
        self.verb = verb
        self.channel_id = channel_id
        self.options: dict[str, Any] = dict(options)
        super().__init__(
            discord.ui.Button(
                label=_label(label) or verb,
                style=style,
                disabled=disabled,
                custom_id=custom_id(verb, channel_id, options),
                row=row,
            )
        )

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: Any,
        /,
    ) -> ActionButton:
        """Rebuild the button from its id (called by discord.py on every click)."""
        button = item if isinstance(item, discord.ui.Button) else None
        return cls(
            match["verb"],
            int(match["channel"]),
            decode_options(match["args"]),
            label=(button.label if button else None) or "",
            style=button.style if button else discord.ButtonStyle.primary,
            disabled=button.disabled if button else False,
        )

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Run the verb through the same path as a slash command."""
        await _host(interaction).run_button(interaction, self)


class DieFaceButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=DIE_TEMPLATE):
    """One face of a die a waiting command asked for; only its roller may press it."""

    verb = DIE_ANSWER

    def __init__(
        self,
        channel_id: int,
        prompt_id: int,
        position: int,
        face: int,
        user_id: int,
        *,
        disabled: bool = False,
        row: int | None = None,
    ) -> None:
        self.channel_id = channel_id
        self.prompt_id = prompt_id
        self.position = position
        self.face = face
        self.user_id = user_id
        self.options: dict[str, Any] = {"prompt": prompt_id, "n": position, "face": face}
        super().__init__(
            discord.ui.Button(
                label=str(face),
                style=discord.ButtonStyle.secondary,
                disabled=disabled,
                custom_id=(f"arbitro-die:{channel_id}:{prompt_id}:{position}:{face}:{user_id}"),
                row=row,
            )
        )

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: Any,
        /,
    ) -> DieFaceButton:
        """Rebuild the button from its id (called by discord.py on every click)."""
        return cls(
            int(match["channel"]),
            int(match["prompt"]),
            int(match["n"]),
            int(match["face"]),
            int(match["user"]),
        )

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        """Only the roller answers: anyone else is refused privately, the service untouched."""
        if interaction.user.id == self.user_id:
            return True
        await report_error(interaction, ServiceError("error.service.not_your_roll"))
        return False

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Give this face: the waiting command runs again, one die further."""
        await _host(interaction).run_button(interaction, self)


def faces_per_row(sides: int) -> int:
    """Buttons per row for a die: even rows of five, four or three when they fit in
    Discord's five rows (a D10: two rows of five; a D12: three of four), else five."""
    for width in (5, 4, 3):
        if sides % width == 0 and sides // width <= ROW_LIMIT:
            return width
    return ROW_LIMIT


def die_buttons(prompt: DicePrompt, channel_id: int) -> list[DieFaceButton]:
    """A button per face of the die asked for; none if it has more faces than Discord allows."""
    if prompt.sides > BUTTON_LIMIT:
        return []
    width = faces_per_row(prompt.sides)
    return [
        DieFaceButton(
            channel_id,
            prompt.prompt_id,
            prompt.position,
            face,
            prompt.user_id,
            row=(face - 1) // width,
        )
        for face in range(1, prompt.sides + 1)
    ]


def reply_buttons(
    reply: Reply, channel_id: int
) -> tuple[list[ActionButton | DieFaceButton], list[str]]:
    """The buttons a reply offers, and the labels of owed actions that found no button.

    Dice typed by hand get Confirm / Dispute first; then one button per follow-up. A
    follow-up whose id would exceed 100 characters, or beyond Discord's 25 buttons, is
    returned as a label so the reply still lists it.
    """
    if isinstance(reply, PlayReply) and reply.dice_prompt is not None:
        return list(die_buttons(reply.dice_prompt, channel_id)), []
    if isinstance(reply, ConfirmReply):
        # The question's two answers: carry it out (the danger), or withdraw.
        return [
            ActionButton(
                reply.verb,
                channel_id,
                reply.confirm,
                label=translate(reply.confirm_label, reply.language),
                style=discord.ButtonStyle.danger,
            ),
            ActionButton(
                reply.verb,
                channel_id,
                reply.cancel,
                label=translate(reply.cancel_label, reply.language),
                style=discord.ButtonStyle.secondary,
            ),
        ], []
    buttons: list[ActionButton | DieFaceButton] = []
    leftovers: list[str] = []
    by_hand = isinstance(reply, PlayReply | RollReply) and reply.by_hand
    if by_hand and reply.seq is not None:
        seq = {"seq": reply.seq}
        buttons.append(
            ActionButton(
                "dice.confirm",
                channel_id,
                seq,
                label=translate("discord.button.confirm", reply.language),
                style=discord.ButtonStyle.success,
            )
        )
        buttons.append(
            ActionButton(
                "dice.dispute",
                channel_id,
                seq,
                label=translate("discord.button.dispute", reply.language),
                style=discord.ButtonStyle.danger,
            )
        )
    follow_ups = reply.follow_ups if isinstance(reply, PlayReply | StatusReply) else []
    for follow_up in follow_ups:
        label = outcome_text(reply.ruleset, follow_up.label, reply.language)
        if (
            len(buttons) >= BUTTON_LIMIT
            or len(custom_id(follow_up.verb, channel_id, follow_up.options)) > CUSTOM_ID_LIMIT
        ):
            leftovers.append(label)
            continue
        buttons.append(ActionButton(follow_up.verb, channel_id, follow_up.options, label=label))
    return buttons, leftovers


def view_after_click(
    message: discord.Message | None, clicked: ActionButton | DieFaceButton
) -> discord.ui.View | None:
    """The message's buttons again, with the one just used disabled (both, for a dice check;
    every face, once a die asked for is answered).

    Rebuilt as dynamic items only, so the view stays fully dynamic and the remaining
    buttons keep working after a restart.
    """
    if message is None:
        return None
    pattern = ActionButton.__discord_ui_compiled_template__
    die_pattern = DieFaceButton.__discord_ui_compiled_template__
    view = discord.ui.View(timeout=None)
    for row_index, row in enumerate(message.components):
        for component in getattr(row, "children", ()):
            identifier = getattr(component, "custom_id", None)
            if not isinstance(component, discord.Button) or not identifier:
                continue
            face = die_pattern.fullmatch(identifier)
            if face is not None:
                answered = isinstance(clicked, DieFaceButton) and int(face["prompt"]) == (
                    clicked.prompt_id
                )
                view.add_item(
                    DieFaceButton(
                        int(face["channel"]),
                        int(face["prompt"]),
                        int(face["n"]),
                        int(face["face"]),
                        int(face["user"]),
                        disabled=component.disabled or answered,
                        row=row_index,
                    )
                )
                continue
            match = pattern.fullmatch(identifier)
            if match is None:
                continue
            verb = match["verb"]
            used = (
                identifier == clicked.item.custom_id
                or (
                    clicked.verb in DICE_VERBS
                    and verb in DICE_VERBS
                    and match["args"] == encode_options(clicked.options)
                )
                or (clicked.verb in QUESTION_VERBS and verb == clicked.verb)
            )
            view.add_item(
                ActionButton(
                    verb,
                    int(match["channel"]),
                    decode_options(match["args"]),
                    label=component.label or "",
                    style=component.style,
                    disabled=component.disabled or used,
                    row=row_index,
                )
            )
    return view if view.children else None


__all__ = [
    "DIE_TEMPLATE",
    "TEMPLATE",
    "ActionButton",
    "ButtonHost",
    "DieFaceButton",
    "custom_id",
    "decode_options",
    "die_buttons",
    "encode_options",
    "faces_per_row",
    "reply_buttons",
    "view_after_click",
]
