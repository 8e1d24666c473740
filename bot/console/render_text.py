"""A service :class:`Reply` as plain text, for the console table."""

from __future__ import annotations

import re
from collections.abc import Callable

from bot.commands import command_line
from bot.service.replies import (
    CampaignReply,
    ConfirmReply,
    PlayReply,
    Reply,
    RollReply,
    StatusReply,
    TextReply,
    prompt_of,
    result_view_of,
)
from bot.service.result_text import result_text, score_text
from bot.service.rolls import dice_prompt_text
from rules.campaign.text import page_lines
from rules.core.expression import render_roll
from rules.core.i18n import colon, translate
from rules.core.play import StatusView
from rules.core.resolution import Outcome
from rules.core.words import in_language, names_in
from rules.render import describe_reply, outcome_text, render_described_text, value_text

#: What never reaches the console's terminal as it is: control characters (ESC starts an
#: ANSI sequence; a carriage return rewrites the line) but the newline and the tab, and
#: the bidi overrides and isolates that reorder what follows them.
_TERMINAL_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)


def terminal_safe(text: str) -> str:
    """``text`` as the console prints it: each unsafe character written as its escape
    (``\\x1b``), visible and inert."""
    return _TERMINAL_UNSAFE.sub(lambda match: ascii(match.group())[1:-1], text)


def notice_text(ruleset: str, outcome: Outcome, language: str) -> str:
    """A notice (turn changes, declarations, game messages) as a sentence."""
    return outcome_text(ruleset or "manovra", outcome, language)


def status_text(view: StatusView, ruleset: str, language: str) -> str:
    """The game's status: turn, phase, whose move, tokens, units, notes."""
    sides = names_in(view.sides, language)
    awaiting = sides.get(view.awaiting or "", "—")
    header = translate(
        "bot.status.header",
        language,
        turn=view.turn,
        phase=notice_text(ruleset, view.phase, language),
        side=awaiting,
    )
    if view.tokens:
        tokens = ", ".join(f"{sides[s]} {n}" for s, n in view.tokens.items())
        header += translate("bot.status.tokens", language, tokens=tokens)
    lines = [f"## {in_language(view.title, language)}", header]
    # Columns at least as wide as before, wider when a name would run into the next column
    # (French and English names are often longer than the Italian ones).
    id_width = max([16, *(len(u.id) for u in view.units)])
    name_width = max([22, *(len(in_language(u.name, language)) for u in view.units)])
    for side, name in sides.items():
        lines.append(f"[{name}]")
        for unit in (u for u in view.units if u.side == side):
            statuses = ", ".join(value_text(ruleset, s, language) for s in unit.statuses)
            done = " ✓" if unit.acted else ""
            name = in_language(unit.name, language)
            # Where it stands, as Discord shows it: a terrain's word or an area's name in
            # the reader's language, never its id.
            place = value_text(ruleset, unit.place, language) if unit.place else ""
            lines.append(
                f"  {unit.id:<{id_width}} {name:<{name_width}} {unit.models}/{unit.initial_models}"
                f"  {place}{'  [' + statuses + ']' if statuses else ''}{done}"
            )
    lines += [f"• {notice_text(ruleset, note, language)}" for note in view.notes]
    if view.ended:
        lines.append(translate("bot.status.ended", language))
    return "\n".join(lines)


def owed_lines(reply: Reply) -> list[str]:
    """What is owed now and by whom (status replies), one line each, in the game's language."""
    if not isinstance(reply, StatusReply):
        return []
    sides = dict(reply.status.sides) if reply.status is not None else {}
    lines = []
    for action in reply.owed[:10]:
        if action.label is not None:
            what = notice_text(reply.ruleset, action.label, reply.language)
        else:
            what = "/" + action.verb.replace(".", " ")
            what += "".join(f" {key}:{value}" for key, value in action.options.items())
        side = sides.get(action.side or "", action.side or translate("bot.referee", reply.language))
        # Read in the game's language before anything is added to it (a side's name is
        # kept in every language; text appended to it keeps only the Italian).
        side = in_language(side, reply.language)
        players = reply.owed_by.get(action.side or "", [])
        if players:  # who, by name: mentions (the console shows the seat's name)
            side += " (" + ", ".join(f"<@{user}>" for user in players) + ")"
        lines.append(translate("bot.status.owed", reply.language, side=side, what=what))
    return lines


def chain_head_text(reply: Reply) -> str:
    """``chain 1a2b3c4d``: the first 8 hex digits of the game's chain head after the
    command, or "" outside a game. Players who note it can tell history was not rewritten
    (``arbitro db check --against`` compares a saved export the same way)."""
    if not reply.head_hash or prompt_of(reply) is not None:
        return ""  # outside a game, or a command still waiting for a die (nothing written)
    return translate("bot.chain_head", reply.language, hash=reply.head_hash[:8])


def chain_head_lines(reply: Reply) -> list[str]:
    """The chain head line of a text reply (none outside a game)."""
    text = chain_head_text(reply)
    return [f"# {text}"] if text else []


def reply_text(reply: Reply, name_of: Callable[[int], str] = str) -> str:
    """Everything a reply shows, as text; a person it calls on by the name recorded with
    their seat (``reply.names``), else by ``name_of`` (the console's own seats)."""
    language = reply.language

    def shown(user: int) -> str:
        return reply.names.get(user) or name_of(user)

    parts: list[str] = []
    played = reply if isinstance(reply, PlayReply) else None
    # One odds summary per kind of roll: a volley's shots share one (rules.render).
    described = describe_reply(played.resolutions if played is not None else [], language)
    if played is not None and played.odds_only:
        for one in described:
            if not one.odds_folded:
                parts.append(
                    f"{one.odds_title} — {one.title}{colon(language)} " + " · ".join(one.odds)
                )
        parts += chain_head_lines(reply)
        return "\n".join(parts)
    if reply.duplicate:
        parts.append(translate("bot.duplicate", language))
    if isinstance(reply, RollReply):
        parts.append(render_roll(reply.roll, language))
    parts += [render_described_text(one, language) for one in described]
    if isinstance(reply, ConfirmReply):
        parts.append("? " + notice_text(reply.ruleset, reply.question, language))
    parts += [f"» {notice_text(reply.ruleset, n, language)}" for n in reply.notices]
    if isinstance(reply, ConfirmReply) and reply.typed is not None:
        parts.append("→ " + notice_text(reply.ruleset, reply.typed, language))
    if played is not None and played.acted_for:
        parts.append(translate("bot.acted_for", language, side=played.acted_for))
    status = reply.status if isinstance(reply, PlayReply | StatusReply) else None
    if status is not None:
        parts.append(status_text(status, reply.ruleset, language))
    ended = result_view_of(reply)
    if ended is not None:
        parts += result_text(ended.result, ended.sides, reply.ruleset, language).plain()
    if isinstance(reply, StatusReply) and reply.score is not None:
        score = reply.score
        parts += score_text(score.score, score.sides, reply.ruleset, language).plain()
    parts += [f"! {line}" for line in owed_lines(reply)]
    if isinstance(reply, TextReply):
        parts += reply.lines
    if isinstance(reply, CampaignReply):
        parts += page_lines(reply.page, language)
    follow_ups = reply.follow_ups if isinstance(reply, PlayReply | StatusReply) else []
    for follow in follow_ups:
        # The command to type for it, as declared for both front ends (/turn next, /morale …).
        parts.append(
            f"→ {notice_text(reply.ruleset, follow.label, language)}{colon(language)} "
            + command_line(follow.verb, follow.options)
        )
    # Before the lines that call on someone: the dice prompt must stay last (the console
    # waits on it).
    parts += chain_head_lines(reply)
    by_hand = isinstance(reply, PlayReply | RollReply) and reply.by_hand
    if by_hand and reply.seq is not None:
        parts.append(translate("bot.dice.check", language, seq=reply.seq))
    prompt = prompt_of(reply)
    if prompt is not None:
        parts.append(dice_prompt_text(prompt, language, "@" + shown(prompt.user_id)))
    if reply.ping:
        # At the game's end everyone is told it is over; else whose move it is.
        key = "bot.result.ping" if ended is not None else "bot.ping"
        parts.append(
            translate(key, language, players=", ".join("@" + shown(u) for u in reply.ping))
        )
    return "\n".join(parts)
