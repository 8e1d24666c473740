"""One redaction path: what a reader gets is computed from that reader's seat view.

A unit the rules mark hidden (linea_gotica's hidden units, manovra's concealed ones) is,
for every seat that may not see it, indistinguishable from a unit that does not exist. The
rules' seat view (:meth:`rules.core.surface.Rules.view`) already leaves such a unit out of
the status, the map, the score and the names; this module holds what the service adds on
top of it, for every front end (Discord, the console, the web pages):

* :func:`unseen_units`: the ids of the units hidden from a seat;
* :class:`Unseen`: a command naming a unit hidden from its giver is played as if that unit
  did not exist — the same refusal (key, params, suggestions) as a name nobody has.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from rules.core.errors import RulesError
from rules.core.seatview import Seat
from rules.core.surface import Rules

#: A refusal keeps its own type through the unmasking.
_Refusal = TypeVar("_Refusal", bound=RulesError)

#: Appended to a name hidden from the command's giver: no unit id holds it (ids are
#: scenario keys), so the rules find no unit by it and refuse it as a name nobody has.
_NOBODY = "\u2063"


def unseen_units(rules: Rules, document: Mapping[str, Any], seat: Seat) -> frozenset[str]:
    """The ids of the units ``seat`` may not know of in ``document``."""
    if seat.referee:
        return frozenset()
    return rules.view(document, seat).hidden_names


@dataclass(frozen=True, slots=True)
class Unseen:
    """A command's options as its giver may have meant them: every value (or part of a
    comma-separated list) naming a unit hidden from the giver names no unit at all.

    The rules then take the path of a unit that does not exist, and :meth:`refusal` gives
    their refusal back with the name as typed: byte-identical to a typed name nobody has.
    """

    options: Mapping[str, Any]
    masked: bool

    @classmethod
    def of(cls, options: Mapping[str, Any], hidden: frozenset[str]) -> Unseen:
        """``options`` with the names in ``hidden`` made no unit's."""
        if not hidden:
            return cls(options, False)
        masked = {name: _masked(value, hidden) for name, value in options.items()}
        changed = any(masked[name] != value for name, value in options.items())
        return cls(masked if changed else options, changed)

    def refusal(self, error: _Refusal) -> _Refusal:
        """``error`` naming what was typed, not the mask (the same error otherwise)."""
        if self.masked:
            error.params = {key: _unmasked(value) for key, value in error.params.items()}
        return error


def _masked(value: Any, hidden: frozenset[str]) -> Any:
    if not isinstance(value, str):
        return value
    parts = value.split(",")
    masked = [
        part.replace(part.strip(), part.strip() + _NOBODY) if part.strip() in hidden else part
        for part in parts
    ]
    return ",".join(masked)


def _unmasked(value: Any) -> Any:
    if isinstance(value, str):
        return value.replace(_NOBODY, "")
    if isinstance(value, tuple):
        return tuple(_unmasked(item) for item in value)
    return value


__all__ = ["Unseen", "unseen_units"]
