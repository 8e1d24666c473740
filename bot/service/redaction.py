"""One redaction path: what a reader gets is computed from that reader's seat view.

A unit the rules mark hidden (linea_gotica's hidden units, manovra's concealed ones) is,
for every seat that may not see it, indistinguishable from a unit that does not exist. The
rules' seat view (:meth:`rules.core.surface.Rules.view`) already leaves such a unit out of
the status, the map, the score and the names; this module holds what the service adds on
top of it, for every front end (Discord, the console, the web pages):

* :func:`unseen_units`: the ids of the units hidden from a seat;
* :class:`Unseen`: a command naming a unit hidden from its giver is played as if that unit
  did not exist — the same refusal (key, params, suggestions) as a name nobody has;
* :func:`kept_apart`: a reply some of whose resolutions or notices a side keeps for itself
  (``secret_for``: a hidden squad's roll for a new leader in a public ``/turn next``) shows
  its asker what the asker may read, and the channel what every seat may.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from bot.service.replies import PlayReply
from rules.core.errors import RulesError
from rules.core.play import FollowUp, read_by
from rules.core.resolution import Outcome
from rules.core.seatview import SPECTATOR, Seat
from rules.core.surface import Rules
from rules.core.words import Words

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


def kept_apart(reply: PlayReply, seat: Seat, shown: list[FollowUp] | None = None) -> PlayReply:
    """``reply`` as its asker (``seat``) may read it: without the resolutions and notices
    another side keeps for itself. If the channel may read less than the asker (the asker
    is the side that keeps them, or the referee), the whole goes to the asker alone and the
    channel is shown the rest — with the buttons it may see (``shown``: the channel's), the
    pings and the picture — and nothing telling that anything was kept from it. Else the
    reply is the channel's (with ``shown``, when given): the side that keeps them reads
    them in its log, its page and its export."""
    reply.resolutions, reply.notices = read_by(seat, reply.resolutions, reply.notices)
    if shown is not None:
        reply.follow_ups = shown
    resolutions, notices = read_by(SPECTATOR, reply.resolutions, reply.notices)
    if (resolutions, notices) == (reply.resolutions, reply.notices):
        return reply
    return told_apart(
        reply,
        Outcome.of("bot.log.kept_private"),
        by_hand=reply.by_hand,
        status=reply.status,
        result=reply.result,
        resolutions=resolutions,
        notices=notices,
    )


def told_apart(reply: PlayReply, private_notice: Outcome, **public: Any) -> PlayReply:
    """``reply`` for its asker alone, closed by ``private_notice``, and what the channel is
    shown of it (``reply.public``, posted by the front ends): its envelope — the event, the
    side acted for, the buttons, the pings, the picture — with ``public`` (what it may read:
    notices, resolutions, status…)."""
    envelope: dict[str, Any] = {
        "language": reply.language,
        "ruleset": reply.ruleset,
        "seq": reply.seq,
        "head_hash": reply.head_hash,
        "duplicate": reply.duplicate,
        "acted_for": reply.acted_for,
        "follow_ups": reply.follow_ups,
        "map_view": reply.map_view,
        "ping": reply.ping,
        "names": reply.names,
    }
    reply.public = PlayReply(**{**envelope, **public})
    reply.notices = [*reply.notices, private_notice]
    reply.map_view, reply.ping, reply.private = None, [], True
    return reply


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
    if isinstance(value, str) and _NOBODY not in value:
        # Left as it is: a name in every language (a phase's, a unit's: ``Words``) made a
        # plain string would read in Italian, telling a hidden unit's name from none.
        return value
    if isinstance(value, Words):
        texts = {
            language: text.replace(_NOBODY, "") for language, text in value.translations.items()
        }
        return Words(value.replace(_NOBODY, ""), texts)
    if isinstance(value, str):
        return value.replace(_NOBODY, "")
    if isinstance(value, tuple):
        return tuple(_unmasked(item) for item in value)
    return value


__all__ = ["Unseen", "kept_apart", "told_apart", "unseen_units"]
