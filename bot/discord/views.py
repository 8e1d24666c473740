"""Persistent buttons: owed rolls (follow-ups) and the confirmation of dice typed by hand.

A button's ``custom_id`` carries everything needed to run it — the verb, the game (its
channel id) and the options — as ``arbitro:<verb>:<channel>:<options>``, so a button made
before a restart still works after it: :class:`ActionButton` is a
:class:`discord.ui.DynamicItem` registered with ``bot.add_dynamic_items``, rebuilt from
the id on every click. Whoever clicks is the requester; the service decides whether they
may.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import quote, unquote

import discord

from bot.service import Reply
from rules.core.i18n import translate
from rules.render import outcome_text

TEMPLATE = r"arbitro:(?P<verb>[a-z.]+):(?P<channel>\d+):(?P<args>[^:]*)"
CUSTOM_ID_LIMIT = 100
LABEL_LIMIT = 80
BUTTON_LIMIT = 25
DICE_VERBS = ("dice.confirm", "dice.dispute")


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
        # Imported here: the runner renders replies, whose buttons are defined here.
        from bot.discord.runner import run_button

        await run_button(interaction, self)


def reply_buttons(reply: Reply, channel_id: int) -> tuple[list[ActionButton], list[str]]:
    """The buttons a reply offers, and the labels of owed actions that found no button.

    Dice typed by hand get Confirm / Dispute first; then one button per follow-up. A
    follow-up whose id would exceed 100 characters, or beyond Discord's 25 buttons, is
    returned as a label so the reply still lists it.
    """
    buttons: list[ActionButton] = []
    leftovers: list[str] = []
    if reply.by_hand and reply.seq is not None:
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
    for follow_up in reply.follow_ups:
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
    message: discord.Message | None, clicked: ActionButton
) -> discord.ui.View | None:
    """The message's buttons again, with the one just used disabled (both, for a dice check).

    Rebuilt as :class:`ActionButton` items only, so the view stays fully dynamic and the
    remaining buttons keep working after a restart.
    """
    if message is None:
        return None
    pattern = ActionButton.__discord_ui_compiled_template__
    view = discord.ui.View(timeout=None)
    for row_index, row in enumerate(message.components):
        for component in getattr(row, "children", ()):
            identifier = getattr(component, "custom_id", None)
            match = pattern.fullmatch(identifier) if identifier else None
            if not isinstance(component, discord.Button) or match is None:
                continue
            verb = match["verb"]
            used = identifier == clicked.item.custom_id or (
                clicked.verb in DICE_VERBS
                and verb in DICE_VERBS
                and match["args"] == encode_options(clicked.options)
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
    "TEMPLATE",
    "ActionButton",
    "custom_id",
    "decode_options",
    "encode_options",
    "reply_buttons",
    "view_after_click",
]
