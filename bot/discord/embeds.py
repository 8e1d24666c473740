"""A :class:`~bot.service.Reply` as Discord messages: embeds, pings, files and buttons.

Everything here is pure (no network): the reply is laid out as *cards* (an embed before
splitting: a title, description lines, named sections of lines, a footer), then each card
is cut into embeds and the embeds into messages so that every Discord limit holds:
25 fields, 256 per title and field name, 1024 per field value, 4096 per description,
2048 per footer, 6000 characters per embed and per message, 10 embeds per message, 2000
per message content. Nothing is dropped: a long section continues in another field, a
long card in another embed, a long reply in another message. Only a single line longer
than its whole box is cut, with "…".

Lengths are counted in UTF-16 code units, which is never less than the number of code
points, so the limits hold whichever of the two Discord counts.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import discord

from bot.console.render_text import chain_head_text, owed_lines
from bot.discord.outgoing import (
    CONTENT_LIMIT,
    NO_MENTIONS,
    clip,
    safe_name,
    safe_outcome,
    safe_resolution,
    safe_status,
    size,
    unlinked,
)
from bot.discord.views import BUTTON_LIMIT, reply_buttons
from bot.render.pictures import MAP_FILE
from bot.service.replies import (
    CampaignReply,
    ConfirmReply,
    FilesReply,
    PlayReply,
    Reply,
    ResultView,
    RollReply,
    ScoreView,
    StatusReply,
    TextReply,
    prompt_of,
    result_view_of,
)
from bot.service.result_text import ResultText, result_text, score_text
from bot.service.rolls import dice_prompt_text
from rules.campaign.text import page_lines, quotes_players
from rules.core.expression import render_roll
from rules.core.i18n import has_key, translate
from rules.core.play import StatusView
from rules.core.resolution import Comparison, Outcome, Resolution, Step
from rules.core.words import in_language, names_in
from rules.render import (
    Described,
    describe,
    describe_reply,
    mixed_dice,
    outcome_text,
    roll_mark,
    table_reading,
)

TITLE_LIMIT = 256
DESCRIPTION_LIMIT = 4096
FIELD_NAME_LIMIT = 256
FIELD_VALUE_LIMIT = 1024
FOOTER_LIMIT = 2048
FIELDS_PER_EMBED = 25
EMBED_TOTAL_LIMIT = 6000
EMBEDS_PER_MESSAGE = 10
MESSAGE_TOTAL_LIMIT = 6000
EMPTY_VALUE = "—"

COLOUR_RESOLUTION = 0x2E7D32
COLOUR_ODDS = 0x6A1B9A
COLOUR_STATUS = 0x1565C0
COLOUR_NOTICE = 0x546E7A
COLOUR_LOG = 0x6D4C41
COLOUR_RESULT = 0xC62828
COLOUR_SCORE = 0xF9A825

_COMPARISON_SIGNS = {
    Comparison.AT_LEAST: "≥",
    Comparison.GREATER: ">",
    Comparison.AT_MOST: "≤",
    Comparison.LESS: "<",
}


def pack_lines(lines: Iterable[str], limit: int, separator: str = "\n") -> list[str]:
    """Join lines with ``separator`` into as few chunks of at most ``limit`` as possible.

    A line never spans two chunks; only a line longer than ``limit`` by itself is clipped.
    """
    chunks: list[str] = []
    current: list[str] = []
    used = 0
    for raw in lines:
        line = clip(raw, limit)
        extra = size(line) + (size(separator) if current else 0)
        if current and used + extra > limit:
            chunks.append(separator.join(current))
            current, used = [], 0
            extra = size(line)
        current.append(line)
        used += extra
    if current:
        chunks.append(separator.join(current))
    return chunks


def embed_size(embed: discord.Embed) -> int:
    """The characters Discord counts toward the 6000 limit of an embed."""
    total = size(embed.title or "") + size(embed.description or "")
    total += size(embed.footer.text or "") + size(embed.author.name or "")
    for item in embed.fields:
        total += size(item.name or "") + size(item.value or "")
    return total


@dataclass
class Section:
    """A field before splitting: a name and its lines."""

    name: str
    lines: list[str]


@dataclass
class Card:
    """An embed before splitting."""

    title: str
    lines: list[str] = field(default_factory=list)
    sections: list[Section] = field(default_factory=list)
    footer: str = ""
    colour: int = COLOUR_NOTICE


@dataclass
class MessagePayload:
    """One Discord message to send."""

    embeds: list[discord.Embed]
    content: str = ""
    allowed_mentions: discord.AllowedMentions = NO_MENTIONS
    view: discord.ui.View | None = None
    #: Attachments: bytes, or a spooled file's path (a large export, sent from disk).
    files: dict[str, bytes | Path] = field(default_factory=dict)

    def discord_files(self) -> list[discord.File]:
        """Fresh :class:`discord.File` objects (a File is a stream: usable once)."""
        return [
            discord.File(io.BytesIO(data) if isinstance(data, bytes) else data, filename=name)
            for name, data in self.files.items()
        ]


# -- cards -> embeds -> messages ----------------------------------------------------------------


def card_embeds(card: Card, language: str) -> list[discord.Embed]:
    """Cut one card into embeds that each respect every embed limit."""
    continued = translate("discord.embed.continued", language)
    title = clip(card.title, TITLE_LIMIT) if card.title else ""
    next_title = clip(
        f"{card.title} ({continued})" if card.title else f"({continued})", TITLE_LIMIT
    )
    footer = clip(card.footer, FOOTER_LIMIT) if card.footer else ""
    # Every embed keeps room for the footer, which goes on the card's last embed.
    budget = EMBED_TOTAL_LIMIT - size(footer)

    embeds: list[discord.Embed] = []

    def start(description: str | None) -> discord.Embed:
        embed = discord.Embed(
            title=(title if not embeds else next_title) or None,
            description=description or None,
            colour=card.colour,
        )
        embeds.append(embed)
        return embed

    longest_title = max(size(title), size(next_title))
    descriptions = pack_lines(card.lines, min(DESCRIPTION_LIMIT, budget - longest_title))
    current = start(descriptions[0] if descriptions else None)
    for chunk in descriptions[1:]:
        current = start(chunk)

    for section in card.sections:
        values = pack_lines(section.lines, FIELD_VALUE_LIMIT) or [EMPTY_VALUE]
        for index, value in enumerate(values):
            label = section.name if index == 0 else f"{section.name} ({continued})"
            label = clip(label or EMPTY_VALUE, FIELD_NAME_LIMIT)
            needed = size(label) + size(value)
            if len(current.fields) >= FIELDS_PER_EMBED or embed_size(current) + needed > budget:
                current = start(None)
            current.add_field(name=label, value=value, inline=False)

    if footer:
        embeds[-1].set_footer(text=footer)
    return embeds


def pack_messages(embeds: Sequence[discord.Embed]) -> list[list[discord.Embed]]:
    """Group embeds, in order, into messages of at most 10 embeds and 6000 characters."""
    messages: list[list[discord.Embed]] = []
    current: list[discord.Embed] = []
    used = 0
    for embed in embeds:
        weight = embed_size(embed)
        if current and (len(current) >= EMBEDS_PER_MESSAGE or used + weight > MESSAGE_TOTAL_LIMIT):
            messages.append(current)
            current, used = [], 0
        current.append(embed)
        used += weight
    if current:
        messages.append(current)
    return messages


def _ping_contents(user_ids: Sequence[int]) -> list[str]:
    tokens = [f"<@{user_id}>" for user_id in dict.fromkeys(user_ids)]
    return pack_lines(tokens, CONTENT_LIMIT, " ") if tokens else []


# -- what a reply shows -------------------------------------------------------------------------


def value_text(ruleset: str, value: str, language: str) -> str:
    """A state value (a status, a place) in words when the catalogue knows it."""
    key = f"{ruleset}.values.{value}"
    return translate(key, language) if has_key(key, "it") else value


def step_title(ruleset: str, step: Step, language: str) -> str:
    """What a step is, in words ("Tiro per colpire")."""
    return outcome_text(ruleset, Outcome(step.key, step.params), language)


def step_lines(ruleset: str, step: Step, language: str, mixed: bool = False) -> list[str]:
    """A step's dice, modifiers, total, threshold, table cell and outcome, one per line.

    ``mixed``: the resolution has typed faces and the bot's rolls; the bot's are marked.
    """
    lines: list[str] = []
    if step.rolls:
        lines.append(
            " · ".join(
                f"`{roll.die.name} → {roll.face}`{roll_mark(roll, mixed, language)}"
                for roll in step.rolls
            )
        )
    for modifier in step.modifiers:
        sign = "+" if modifier.value >= 0 else "−"
        label = translate(modifier.key, language, **dict(modifier.params))
        lines.append(f"{sign}{abs(modifier.value)} {label}")
    if step.total is not None:
        lines.append(f"= **{step.total}**")
    if step.threshold is not None:
        threshold = step.threshold
        label = (
            translate(threshold.key, language, **dict(threshold.params)) if threshold.key else ""
        )
        sign = _COMPARISON_SIGNS.get(threshold.comparison, threshold.comparison.value)
        lines.append(
            f"{translate('render.needs', language)} {sign} {threshold.value}"
            + (f" ({label})" if label else "")
        )
    if step.table is not None:
        lines.append(f"*{table_reading(step.table, language)}*")
    if step.outcome is not None:
        lines.append(f"→ {outcome_text(ruleset, step.outcome, language)}")
    return lines


def resolution_card(
    resolution: Resolution,
    language: str,
    *,
    odds_only: bool = False,
    described: Described | None = None,
) -> Card:
    """One resolution: title, outcome, a field per step, effects, odds, dice-by-hand footer.

    With ``odds_only`` (``/odds``) nothing was rolled: only the odds are shown.
    ``described`` is the resolution as :func:`rules.render.describe_reply` gave it within
    its reply (a volley's odds summed up on its last shot).
    """
    if described is None:
        described = describe(resolution, language)
    odds_name = described.odds_title or translate("render.odds", language)
    if odds_only:
        return Card(
            title=f"{described.title} — {odds_name}",
            lines=[translate("discord.embed.odds_only", language)],
            sections=[
                Section(
                    odds_name,
                    list(described.odds or (translate("discord.embed.no_odds", language),)),
                )
            ],
            colour=COLOUR_ODDS,
        )
    mixed = mixed_dice(resolution)
    sections = [
        Section(
            f"{index}. {step_title(resolution.ruleset, step, language)}",
            step_lines(resolution.ruleset, step, language, mixed),
        )
        for index, step in enumerate(resolution.steps, start=1)
    ]
    if described.effects:
        sections.append(
            Section(
                translate("render.effects", language),
                [f"• {effect}" for effect in described.effects],
            )
        )
    if described.odds:
        sections.append(Section(odds_name, list(described.odds)))
    return Card(
        title=described.title,
        lines=[f"**{described.outcome}**"],
        sections=sections,
        footer=translate("render.by_hand", language) if described.by_hand else "",
        colour=COLOUR_RESOLUTION,
    )


def status_card(status: StatusView, ruleset: str, language: str) -> Card:
    """Turn, phase, whose move, tokens, one line per unit (grouped by side and group), notes."""
    sides = names_in(status.sides, language)
    lines = [
        f"**{translate('discord.embed.turn', language)}** {status.turn}",
        f"**{translate('discord.embed.phase', language)}** "
        f"{outcome_text(ruleset, status.phase, language)}",
    ]
    if status.awaiting is not None:
        lines.append(
            f"**{translate('discord.embed.awaiting', language)}** "
            f"{sides.get(status.awaiting, status.awaiting)}"
        )
    if status.tokens:
        tokens = " · ".join(
            f"{sides.get(side, side)} {count}" for side, count in status.tokens.items()
        )
        lines.append(f"**{translate('discord.embed.tokens', language)}** {tokens}")
    if status.ended:
        lines.append(f"**{translate('discord.embed.ended', language)}**")

    groups: dict[tuple[str, str], list[str]] = {}
    for unit in status.units:
        name = in_language(unit.name, language)
        parts = [f"**{name}** `{unit.id}`", f"{unit.models}/{unit.initial_models}"]
        if unit.statuses:
            parts.append(", ".join(value_text(ruleset, s, language) for s in unit.statuses))
        if unit.place:
            parts.append(value_text(ruleset, unit.place, language))
        line = " · ".join(parts)
        if unit.acted:
            line += f" · ✓ {translate('discord.embed.acted', language)}"
        groups.setdefault((unit.side, in_language(unit.group, language)), []).append(line)
    sections = [
        Section(f"{sides.get(side, side)} — {group}" if group else sides.get(side, side), units)
        for (side, group), units in groups.items()
    ]
    if status.notes:
        sections.append(
            Section(
                translate("discord.embed.notes", language),
                [f"• {outcome_text(ruleset, note, language)}" for note in status.notes],
            )
        )
    return Card(
        title=in_language(status.title, language) or translate("discord.embed.status", language),
        lines=lines,
        sections=sections,
        colour=COLOUR_STATUS,
    )


def _text_card(text: ResultText, colour: int) -> Card:
    return Card(
        title=text.heading,
        lines=[f"**{line}**" for line in text.lines],
        sections=[Section(name, lines) for name, lines in text.sections],
        colour=colour,
    )


def result_card(view: ResultView, ruleset: str, language: str) -> Card:
    """The game's result: the summary as its title, the winner and the level, the
    referee's reason, a field per part of the breakdown (objectives and their holders,
    losses, exits) and the points; names from the scenario or a player escaped."""
    text = result_text(view.result, view.sides, ruleset, language, discord.utils.escape_markdown)
    return _text_card(text, COLOUR_RESULT)


def score_card(view: ScoreView, ruleset: str, language: str) -> Card:
    """The score if the game ended now (``/game status``), as the channel may see it."""
    text = score_text(view.score, view.sides, ruleset, language, discord.utils.escape_markdown)
    return _text_card(text, COLOUR_SCORE)


def dice_prompt_card(reply: Reply, language: str) -> Card:
    """The die a command waits for: who rolls what, and that only the roller may press."""
    prompt = prompt_of(reply)
    assert prompt is not None
    roller = f"<@{prompt.user_id}>"
    how = (
        translate("bot.dice.prompt_buttons", language, roller=roller)
        if prompt.sides <= BUTTON_LIMIT
        else translate("bot.dice.no_buttons", language, die=prompt.die.name)
    )
    return Card(
        title="🎲 " + prompt.die.name,
        lines=[dice_prompt_text(prompt, language, roller), how],
        colour=COLOUR_NOTICE,
    )


def _page_of_lines(reply: Reply) -> tuple[str, list[str]] | None:
    """The page of lines a reply shows (a text reply's, a campaign's rendered), as Discord
    shows them, with the catalogue key of its title; None when it has none."""
    if isinstance(reply, CampaignReply):
        lines = page_lines(reply.page, reply.language)
        quoted = quotes_players(reply.page)
        return "discord.embed.campaign", [
            safe_name(line) if quoted else unlinked(line) for line in lines
        ]
    if not isinstance(reply, TextReply) or not reply.lines:
        return None
    # Names players wrote are shown as typed: markdown escaped, no mention, no link.
    lines = [safe_name(line) if reply.players_words else unlinked(line) for line in reply.lines]
    if reply.preformatted:  # columns stay aligned only in a fixed-width block
        lines = [f"```\n{chunk}\n```" for chunk in pack_lines(lines, DESCRIPTION_LIMIT - 100)]
    return reply.lines_title, lines


def reply_cards(reply: Reply, *, leftovers: Sequence[str] = ()) -> list[Card]:
    """Every card of a reply, in reading order."""
    language = reply.language
    cards: list[Card] = []
    played = reply if isinstance(reply, PlayReply) else None
    odds_only = played is not None and played.odds_only
    # Names someone wrote (a scenario's title, a unit's, a side's) are shown as typed.
    notices = [
        outcome_text(reply.ruleset, safe_outcome(notice), language) for notice in reply.notices
    ]
    if played is not None and played.acted_for:
        notices.append(translate("discord.embed.acted_for", language, side=played.acted_for))
    if reply.duplicate:
        notices.append(translate("discord.embed.duplicate", language))
    if isinstance(reply, FilesReply) and reply.files:
        notices.append(translate("discord.embed.files", language, files=", ".join(reply.files)))
    if isinstance(reply, ConfirmReply):  # the question, then what it would do
        question = outcome_text(reply.ruleset, reply.question, language)
        cards.append(Card(title=f"⚠️ {question}", lines=notices, colour=COLOUR_RESULT))
    elif notices and not odds_only:
        cards.append(Card(title="", lines=notices, colour=COLOUR_NOTICE))
    if isinstance(reply, RollReply):
        head, *rest = render_roll(reply.roll, language).splitlines()
        cards.append(Card(title=f"🎲 {head}", lines=rest, colour=COLOUR_NOTICE))
    # Names in the breakdowns are shown as typed, like those of the notices and the status.
    resolutions = [safe_resolution(r) for r in played.resolutions] if played is not None else []
    # One odds summary per kind of roll: a volley's shots share one (rules.render).
    for resolution, described in zip(
        resolutions, describe_reply(resolutions, language), strict=True
    ):
        if odds_only and described.odds_folded:
            continue
        cards.append(
            resolution_card(resolution, language, odds_only=odds_only, described=described)
        )
    status = reply.status if isinstance(reply, PlayReply | StatusReply) else None
    if status is not None:
        cards.append(status_card(safe_status(status), reply.ruleset, language))
    ended = result_view_of(reply)
    if ended is not None:
        cards.append(result_card(ended, reply.ruleset, language))
    if isinstance(reply, StatusReply) and reply.score is not None:
        cards.append(score_card(reply.score, reply.ruleset, language))
    if prompt_of(reply) is not None:
        cards.append(dice_prompt_card(reply, language))
    owed = owed_lines(reply)
    if owed:
        cards.append(
            Card(
                title=translate("discord.embed.to_do", language),
                lines=[f"• {line}" for line in owed],
                colour=COLOUR_NOTICE,
            )
        )
    page = _page_of_lines(reply)
    if page is not None:
        title, lines = page
        cards.append(Card(title=translate(title, language), lines=lines, colour=COLOUR_LOG))
    if leftovers:
        cards.append(
            Card(
                title=translate("discord.embed.to_do", language),
                lines=[f"• {label}" for label in leftovers],
                colour=COLOUR_NOTICE,
            )
        )
    if not cards:
        cards.append(Card(title="", lines=[translate("discord.embed.done", language)]))
    head = chain_head_text(reply)
    if head:  # under the whole reply: the last card's footer
        last = cards[-1]
        last.footer = f"{last.footer} · {head}" if last.footer else head
    return cards


def reply_to_messages(
    reply: Reply, *, channel_id: int | None = None, picture: bytes | None = None
) -> list[MessagePayload]:
    """The messages that show ``reply``, every Discord limit respected.

    The first message pings the players in ``reply.ping`` (and only them: the allowed
    mentions name those users, never roles or everyone) and carries the files, and the
    map ``picture`` (PNG) shown in its last embed; the last message carries the buttons
    when ``channel_id`` (the game the buttons act on) is given.
    """
    previewed = isinstance(reply, PlayReply) and reply.odds_only
    buttons, leftovers = (
        reply_buttons(reply, channel_id) if channel_id is not None and not previewed else ([], [])
    )
    embeds = [
        embed
        for card in reply_cards(reply, leftovers=leftovers)
        for embed in card_embeds(card, reply.language)
    ]
    groups = pack_messages(embeds)
    contents = _ping_contents(reply.ping)
    # More ping chunks than embed messages (hundreds of players): content-only messages.
    while len(groups) < len(contents):
        groups.append([])
    mentions = discord.AllowedMentions(
        users=[discord.Object(id=user_id) for user_id in dict.fromkeys(reply.ping)],
        roles=False,
        everyone=False,
        replied_user=False,
    )
    payloads = [
        MessagePayload(
            embeds=group,
            content=contents[index] if index < len(contents) else "",
            allowed_mentions=mentions if index < len(contents) else NO_MENTIONS,
        )
        for index, group in enumerate(groups)
    ]
    payloads[0].files = dict(reply.files) if isinstance(reply, FilesReply) else {}
    if picture is not None:
        first = payloads[0]
        if not first.embeds:
            first.embeds.append(discord.Embed(colour=COLOUR_STATUS))
        first.files[MAP_FILE] = picture
        first.embeds[-1].set_image(url=f"attachment://{MAP_FILE}")
    if buttons:
        view = discord.ui.View(timeout=None)
        for button in buttons:
            view.add_item(button)
        payloads[-1].view = view
    return payloads


__all__ = [
    "Card",
    "MessagePayload",
    "Section",
    "card_embeds",
    "clip",
    "dice_prompt_card",
    "embed_size",
    "pack_lines",
    "pack_messages",
    "reply_cards",
    "reply_to_messages",
    "resolution_card",
    "result_card",
    "score_card",
    "size",
    "status_card",
]
