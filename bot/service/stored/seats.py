"""Seats as records of the game.

* Sides bound to Discord roles: any member with the role plays that side, beside the
  players seated one by one (``side_role``, keyed by the side, sealed: the game's checksum
  covers it and every command reads it to find the asker's seat).
* Consent to a seat on a side that has players (``seat_consent``, keyed by the user,
  sealed: every command's context carries what is pending): a request waiting for the
  referee or the side's players, or an invitation waiting for the invited member's
  ``/game join``. Each is logged in the game's chain as well; the record
  is what is still pending.
* The side a player last held (``seat_held``, keyed by the user, not sealed: only
  ``/game join`` reads it): a side is kept once joined, through a ``/game leave`` too, so a
  player does not step out and take the enemy's empty seat (and read its hidden units).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from db.models import FeatureRecord, Scope
from db.protocol import GameStore

SIDE_ROLE = "side_role"
SEAT_CONSENT = "seat_consent"
SEAT_HELD = "seat_held"

ConsentKind = Literal["request", "invite"]


@dataclass(frozen=True, slots=True)
class Consent:
    """A seat pending: ``user`` asked for ``side`` (a request) or was invited to it."""

    user: int
    side: str
    kind: ConsentKind


def _consent(record: FeatureRecord) -> Consent:
    kind: ConsentKind = "invite" if record.value.get("kind") == "invite" else "request"
    return Consent(int(record.key), str(record.value["side"]), kind)


async def consent_of(store: GameStore, channel_id: int, user: int) -> Consent | None:
    """The seat pending for ``user`` in the game, if any."""
    record = await store.feature_get(SEAT_CONSENT, Scope.of_game(channel_id), str(user))
    return None if record is None else _consent(record)


def pending_seats_of(records: Iterable[FeatureRecord]) -> tuple[Consent, ...]:
    """Every seat pending among a game's records (sealed: they come with every command's
    context, so ``/game status`` lists them at no extra read), oldest first."""
    return tuple(_consent(record) for record in records if record.feature == SEAT_CONSENT)


async def note_consent(store: GameStore, channel_id: int, consent: Consent) -> None:
    """Keep a request or an invitation (replacing the user's earlier one)."""
    value = {"side": consent.side, "kind": consent.kind}
    await store.feature_put(
        SEAT_CONSENT, Scope.of_game(channel_id), str(consent.user), value, sealed=True
    )


async def drop_consent(store: GameStore, channel_id: int, user: int) -> None:
    """Forget the seat pending for ``user`` (they are seated now)."""
    await store.feature_delete(SEAT_CONSENT, Scope.of_game(channel_id), str(user))


async def held_side_of(store: GameStore, channel_id: int, user: int) -> str | None:
    """The side ``user`` last played in the game as a player, if any (kept after they left)."""
    record = await store.feature_get(SEAT_HELD, Scope.of_game(channel_id), str(user))
    return None if record is None else str(record.value["side"])


async def note_held_side(store: GameStore, channel_id: int, user: int, side: str) -> None:
    """Remember that ``user`` plays ``side`` (replacing the side they held before)."""
    await store.feature_put(SEAT_HELD, Scope.of_game(channel_id), str(user), {"side": side})


def side_roles_of(records: Iterable[FeatureRecord]) -> tuple[tuple[str, int], ...]:
    """The (side, Discord role id) bindings among a game's records, by side."""
    bound = [
        (str(record.value["side"]), int(record.value["role_id"]))
        for record in records
        if record.feature == SIDE_ROLE
    ]
    return tuple(sorted(bound))


async def bind_side(store: GameStore, channel_id: int, side: str, role_id: int | None) -> None:
    """Bind ``side`` to a Discord role: its members play that side (None: unbind)."""
    scope = Scope.of_game(channel_id)
    if role_id is None:
        await store.feature_delete(SIDE_ROLE, scope, side)
        return
    value = {"side": side, "role_id": int(role_id)}
    await store.feature_put(SIDE_ROLE, scope, side, value, sealed=True)


__all__ = [
    "SEAT_CONSENT",
    "SEAT_HELD",
    "SIDE_ROLE",
    "Consent",
    "bind_side",
    "consent_of",
    "drop_consent",
    "held_side_of",
    "note_consent",
    "note_held_side",
    "pending_seats_of",
    "side_roles_of",
]
