"""Who the asker is in a game: one seat type, the rules' own, for the service too."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.service import Request
from bot.service.requests import member_side, seat_among, side_named
from db.models import Member, MemberRole
from rules.core.errors import UnknownName
from rules.core.seatview import REFEREE as REFEREE_SEAT
from rules.core.seatview import SPECTATOR, Seat
from rules.core.words import names_of
from tests.bot.service_table import ServiceTable

CHANNEL = 4343
REFEREE, ANNA, BRUNO, STRANGER = 1, 2, 3, 99
BOUND_ROLE = 555


def _member(user: int, role: MemberRole, side: str | None) -> Member:
    return Member(CHANNEL, user, role, side, datetime(2026, 1, 1, tzinfo=UTC))


MEMBERS = (
    _member(REFEREE, "referee", "alleati"),
    _member(ANNA, "player", "alleati"),
    _member(BRUNO, "player", None),
)


def _seat(user: int, roles: tuple[int, ...] = ()) -> Seat:
    request = Request(CHANNEL, user, "game.status", role_ids=roles)
    return seat_among(request, MEMBERS, [("asse", BOUND_ROLE)])


def test_every_asker_gets_the_rules_seat() -> None:
    assert _seat(REFEREE) == REFEREE_SEAT  # a referee at a side still referees
    assert _seat(ANNA) == Seat("alleati")
    assert _seat(STRANGER, (BOUND_ROLE,)) == Seat("asse")
    assert _seat(STRANGER) == SPECTATOR


def test_a_member_at_no_side_is_seated_but_sees_what_the_channel_sees() -> None:
    joined = _seat(BRUNO)
    assert joined.seated and joined.public
    assert not SPECTATOR.seated
    assert all(seat.seated for seat in (REFEREE_SEAT, Seat("alleati")))
    with pytest.raises(ValueError, match="no side"):
        Seat("alleati", joined=True)


def test_the_side_a_member_joined_the_referees_included() -> None:
    assert member_side(MEMBERS, REFEREE) == "alleati"
    assert member_side(MEMBERS, BRUNO) is None
    assert member_side(MEMBERS, STRANGER) is None


@pytest.fixture()
def table(service, dice) -> ServiceTable:
    return ServiceTable(service, dice, CHANNEL)


async def test_the_referee_playing_the_side_they_joined_plays_for_no_one_else(table) -> None:
    await table(REFEREE, "game.new", scenario="esempio_normandia", language="it")
    await table(REFEREE, "game.join", side="alleati")
    await table(BRUNO, "game.join", side="asse")
    reply = await table(REFEREE, "turn.next")
    assert getattr(reply, "acted_for", "missing") is None


async def test_a_referee_who_handed_the_game_over_is_seated_at_no_side(table, service) -> None:
    await table(REFEREE, "game.new", scenario="esempio_normandia", language="it")
    await service.handle(Request(CHANNEL, REFEREE, "game.referee", options={"user": ANNA}))
    await table.refused(REFEREE, "turn.next", "error.service.join_first")
    await table(REFEREE, "game.leave")  # a member may leave; a stranger may not
    await table.refused(REFEREE, "game.leave", "error.service.join_first")


def test_an_unknown_side_is_answered_with_the_sides_names_in_the_readers_language() -> None:
    """Played at the console: an English pzgren game answered "Unknown side 'alleati': de,
    us." — the ids. It lists the names, in the reader's language; a name in any language is
    taken."""
    sides = names_of(
        {
            "us": {"it": "Americani", "en": "Americans", "fr": "Américains"},
            "de": {"it": "Tedeschi", "en": "Germans", "fr": "Allemands"},
        }
    )
    with pytest.raises(UnknownName) as refused:
        side_named(sides, "alleati")
    assert refused.value.localized("en") == "Unknown side 'alleati': Americans, Germans."
    assert "Américains, Allemands" in refused.value.localized("fr")
    assert side_named(sides, "Allemands") == side_named(sides, "de") == "de"
