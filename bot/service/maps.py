"""The table as the channel may see it: the public status, the picture and its caption.

Pure and synchronous (called on the rules workers): what the seat views give (the
spectator's picture, the status), with hidden units left out, words in the game's
language, and the caption every ruleset's picture carries in one style.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from bot.service.requests import Request
from rules.core.battlefield import MapView, Overlay
from rules.core.budget import WorkBudgetExceeded
from rules.core.i18n import translate
from rules.core.play import StatusView
from rules.core.seatview import SPECTATOR, SeatView
from rules.core.surface import Loaded, Rules
from rules.render import outcome_text, value_text

log = logging.getLogger(__name__)


def public_status(view: StatusView) -> StatusView:
    """The status as the channel may read it: units the ruleset hides are not listed."""
    if not any(unit.hidden for unit in view.units):
        return view
    return replace(view, units=tuple(unit for unit in view.units if not unit.hidden))


def localized_map(view: MapView, ruleset: str, language: str) -> MapView:
    """Status words and hex labels in the game's language (a ruleset may give its value
    words, ``eliminated``; words already localized are left as they are)."""
    counters = tuple(
        c.model_copy(update={"statuses": tuple(_word(ruleset, s, language) for s in c.statuses)})
        if c.statuses
        else c
        for c in view.counters
    )
    grid = view.grid
    if grid is not None:
        labels: dict[str, str] = {}  # thousands of hexes, a few labels: each localized once
        hexes = tuple(
            h.model_copy(update={"label": _label(labels, ruleset, h.label, language)})
            if h.label
            else h
            for h in grid.hexes
        )
        grid = grid.model_copy(update={"hexes": hexes})
    return view.model_copy(update={"counters": counters, "grid": grid})


def _word(ruleset: str, word: str, language: str) -> str:
    # value_text reads "a+b" as two value words: a hex that is woods and entrenched.
    return value_text(ruleset, word, language).replace(" + ", ", ")


def _label(localized: dict[str, str], ruleset: str, label: str, language: str) -> str:
    """A hex's label in ``language``, kept in ``localized`` for the map's other hexes."""
    found = localized.get(label)
    if found is None:
        found = localized[label] = _word(ruleset, label, language)
    return found


def status_caption(view: StatusView, ruleset: str, language: str) -> str:
    """``Turn 2 — activations — to move: …``: the line under a picture of the table."""
    return translate(
        "bot.status.header",
        language,
        turn=view.turn,
        phase=outcome_text(ruleset, view.phase, language),
        side=view.sides.get(view.awaiting or "", "—"),
    )


def with_caption(view: MapView | None, action: str, state: str = "") -> MapView | None:
    """The view with the caption every ruleset's picture carries, in one style: the state of
    the game (``Turn 2 — activations — to move: …``), then the last action — the ruleset's
    own sentence for it when it writes one, else ``action`` (the log's line for the command
    just played) — each on a line of its own."""
    if view is None:
        return view
    lines = [line for line in (state, view.caption or action) if line]
    return view.model_copy(update={"caption": "\n".join(lines)})


def command_marks(view: SeatView, request: Request) -> tuple[Overlay, ...]:
    """The marks a command draws on its reply's picture, read from the view of the state
    it is played on (none if the ruleset fails: the command itself must not)."""
    try:
        return view.marks(request.verb, request.options)
    except Exception:
        log.exception("action_overlays failed (%s)", request.verb)
        return ()


def channel_map(game: Loaded, ruleset: str, language: str) -> MapView | None:
    """The picture for the channel, the spectator's (None without a battlefield, or if the
    ruleset fails to draw it: the reply goes without it). Never a hidden unit, whatever the
    ruleset put in its public view."""
    try:
        view = game.view(SPECTATOR).map(language)
    except WorkBudgetExceeded:
        log.warning("map_view past the work budget (%s): no picture", ruleset)
        return None
    except Exception:  # a picture must never cost the command its reply
        log.exception("map_view failed (%s)", ruleset)
        return None
    if view is None:
        return None
    if any(c.hidden for c in view.counters):
        log.error("%s put hidden units in its public map view: left out", ruleset)
        view = view.model_copy(update={"counters": tuple(c for c in view.counters if not c.hidden)})
    return localized_map(view, ruleset, language)


def status_and_map(
    rules: Rules, document: Mapping[str, Any], ruleset: str, language: str
) -> tuple[StatusView, MapView | None]:
    """The public status (the spectator's, as ``/game status`` reads it: the referee's
    notes name what a side keeps) and the channel's captioned picture of a state, in one
    pass."""
    game = rules.load(document)
    view = game.view(SPECTATOR).status
    caption = status_caption(view, ruleset, language)
    return view, with_caption(channel_map(game, ruleset, language), "", caption)


__all__ = [
    "channel_map",
    "command_marks",
    "localized_map",
    "public_status",
    "status_and_map",
    "status_caption",
    "with_caption",
]
