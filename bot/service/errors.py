"""The service's refusals: :class:`ServiceError` (permissions, no game, storage conflicts)
and :class:`NotNow` (a rules refusal followed by what the seat may do instead).

Both are :class:`rules.core.errors.RulesError`: a catalogue key and its parameters, shown to
players in their language.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from bot.commands import command_line
from rules.core.budget import work_budget
from rules.core.errors import IllegalAction, RulesError
from rules.core.i18n import DEFAULT_LANGUAGE, sentences, translate
from rules.core.legal import LegalAction, owed
from rules.core.seatview import Seat
from rules.core.surface import Rules
from rules.core.words import joined, names_in

#: What a refused command lists of what the seat may do instead is a courtesy: it may take
#: this long of the command's budget, past which the refusal comes alone. (On the largest
#: battlefields the listing measures every line of sight; it took the whole budget, half a
#: second, to end in a refusal without the list.)
HINT_BUDGET_S = 0.2


class ServiceError(RulesError):
    """A request the service refuses (permissions, no game, storage conflicts)."""

    default_key = "error.service"


class NotNow(IllegalAction):
    """A rules refusal, followed by what the seat may do now (from the legal actions)."""

    def __init__(
        self,
        cause: RulesError,
        may: list[LegalAction],
        waiting_for: str,
        names: Mapping[str, str] | None = None,
    ) -> None:
        self.cause = cause
        self.may = may
        self.waiting_for = waiting_for
        #: The units' names by id (each in its languages), as the seat may know them.
        self.names: Mapping[str, str] = names or {}
        super().__init__(cause.key, **cause.params)

    def localized(self, language: str) -> str:
        """The rules' reason, then the seat's legal commands (or whom the game waits for)."""
        reason = self.cause.localized(language)
        if not self.may and dict(self.cause.params).get("waiting") == self.waiting_for:
            return reason  # "…: waiting for Germans." says it already
        if self.may:
            actions = commands_hint(self.may, language=language, names=self.names)
            hint = translate("error.service.you_may", language, actions=actions)
        else:
            hint = translate("error.service.waiting_for", language, side=self.waiting_for)
        # "Too far: 117% of the allowed move. You may now: …": the reason is a sentence of
        # its own even where the catalogue's text has no closing full stop.
        return sentences(reason, hint)


def command_name(verb: str) -> str:
    """A service verb as the player types it: ``turn.next`` → ``/turn next``,
    ``recover`` → ``/morale action:recover`` (read from the one command declaration)."""
    return command_line(verb, {})


def commands_hint(
    actions: list[LegalAction],
    limit: int = 6,
    *,
    language: str = DEFAULT_LANGUAGE,
    names: Mapping[str, str] | None = None,
) -> str:
    """``/move (1st Squad, Sherman), /fire (1st Squad), /turn next``: verbs with their units,
    short; each unit by its name in ``language`` where ``names`` (by id) has one, as players
    read them (a name two units share is followed by each one's id)."""
    names = names or {}
    by_verb: dict[str, list[str]] = {}
    for action in actions:
        units = by_verb.setdefault(action.verb, [])
        if action.unit is not None and action.unit not in units:
            units.append(action.unit)
    read = names_in(names, language)
    shared = {name for name, count in Counter(read.values()).items() if count > 1}

    def shown_as(unit: str) -> str:
        name = read.get(unit)
        if name is None:
            return unit
        return f"{name} [{unit}]" if name in shared else name

    parts = []
    for verb, units in list(by_verb.items())[:limit]:
        shown = ", ".join(shown_as(u) for u in units[:4]) + (", …" if len(units) > 4 else "")
        parts.append(f"{command_name(verb)} ({shown})" if units else command_name(verb))
    return ", ".join(parts)


def not_now(
    rules: Rules, document: Mapping[str, Any], error: IllegalAction, seat: Seat
) -> IllegalAction:
    """The refusal with what the seat may do instead, read from its view."""
    view = rules.view(document, seat)
    try:
        with work_budget(HINT_BUDGET_S):
            actions = view.every_legal
            mine = [a for a in view.legal if a.verb != "odds"]
            awaiting = view.awaiting
            names = view.labels("unit") if any(a.unit for a in mine) else {}
    except RulesError:
        return error
    sides = rules.sides(document)
    waiting_for = joined(
        dict.fromkeys(sides.get(a.side, a.side) for a in owed(actions) if a.side)
    ) or sides.get(awaiting or "", awaiting or "—")
    return NotNow(error, mine, waiting_for, names)


__all__ = ["HINT_BUDGET_S", "NotNow", "ServiceError", "command_name", "commands_hint", "not_now"]
