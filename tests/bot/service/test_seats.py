"""Seats: the referee seats, reseats and removes players and hands the game over; a channel
manager takes over a game whose referee is gone; every change is logged; undo skips them."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta

import pytest

from bot.console.table import Console, user_id_of
from bot.service import Request, ServiceError
from bot.service.seats import TAKEOVER_AFTER, referee_gone
from db.models import EventRecord, Member

REFEREE, ANNA, BRUNO, CARLA = 1, 2, 3, 4


def request(asker: int, verb: str, manages: bool = False, **options) -> Request:
    return Request(12, asker, verb, options, guild_id=9, manages_channel=manages)


async def test_the_referee_seats_players_and_hands_over(service, store) -> None:
    await service.handle(request(REFEREE, "game.new", scenario="esempio_normandia", language="en"))
    await service.handle(request(ANNA, "game.join", side="alleati"))
    with pytest.raises(ServiceError) as not_referee:
        await service.handle(request(ANNA, "seat.assign", user=BRUNO, side="asse"))
    assert not_referee.value.key == "error.service.referee_only"
    await service.handle(request(REFEREE, "seat.assign", user=BRUNO, side="asse"))
    await service.handle(request(REFEREE, "seat.assign", user=ANNA, side="asse"))  # reseated
    seats = {m.user_id: (m.role, m.side) for m in await store.members(12)}
    assert seats[ANNA] == ("player", "asse") and seats[BRUNO] == ("player", "asse")
    await service.handle(request(REFEREE, "seat.remove", user=BRUNO))
    assert BRUNO not in {m.user_id for m in await store.members(12)}
    with pytest.raises(ServiceError):
        await service.handle(request(REFEREE, "seat.remove", user=BRUNO))

    status = await service.handle(request(CARLA, "game.status"))
    roster = [n for n in status.notices if n.key.startswith("bot.seats.")]
    assert dict(roster[0].params)["players"] == f"<@{REFEREE}>"
    assert any(f"<@{ANNA}>" in dict(n.params)["players"] for n in roster[1:])

    undone_before = (await store.load(12)).version
    with pytest.raises(ServiceError):  # only seat changes since the creation: nothing to undo
        await service.handle(request(REFEREE, "game.undo"))
    assert (await store.load(12)).version == undone_before

    await service.handle(request(REFEREE, "game.referee", user=CARLA))
    roles = {m.user_id: m.role for m in await store.members(12)}
    assert roles[CARLA] == "referee" and roles[REFEREE] == "player"
    log = await service.handle(request(CARLA, "game.log", count=10))
    text = "\n".join(log.lines)
    # Names, not ids.
    assert "joined the side Allies" in text and f"seated <@{BRUNO}> with the side Axis" in text
    assert f"removed <@{BRUNO}>" in text and f"<@{CARLA}> became the referee" in text


async def test_a_channel_manager_takes_over_only_when_the_referee_is_gone(service, store):
    await service.handle(request(REFEREE, "game.new", scenario="esempio_normandia", language="fr"))
    with pytest.raises(ServiceError) as not_manager:
        await service.handle(request(CARLA, "game.takeover"))
    assert not_manager.value.key == "error.service.seats.not_manager"
    with pytest.raises(ServiceError) as still_here:
        await service.handle(request(CARLA, "game.takeover", manages=True))
    assert "72" in still_here.value.localized("fr")

    now = datetime.now(UTC)
    referee = Member(12, REFEREE, "referee", None, now - TAKEOVER_AFTER * 2)
    old = EventRecord(
        12,
        1,
        None,
        REFEREE,
        "game.created",
        {},
        [],
        [],
        1,
        "h",
        None,
        now - TAKEOVER_AFTER - timedelta(minutes=1),
        "p",
        "h",
    )
    assert referee_gone([referee], [old], now)
    fresh = EventRecord(12, 2, None, REFEREE, "turn.next", {}, [], [], 2, "h", None, now, "p", "h")
    assert not referee_gone([referee], [old, fresh], now)
    assert referee_gone([], [], now)  # no referee at all


async def test_the_console_seats_by_name(service, store) -> None:
    out = io.StringIO()
    console = Console(service, out, channel_id=13)
    await console.run(
        [
            "/game new scenario:esempio_normandia language:fr",
            "/seat assign user:anna side:alleati",
            "/game status",
        ],
        interactive=False,
    )
    text = out.getvalue()
    assert "anna joue maintenant Alliés" in text  # the console names seats
    seats = {m.user_id: m.side for m in await store.members(13)}
    assert seats[user_id_of("anna")] == "alleati"


async def test_a_side_bound_to_a_role_seats_its_members(service, store) -> None:
    FANTI = 555  # a Discord role id
    await service.handle(request(REFEREE, "game.new", scenario="esempio_normandia"))
    with pytest.raises(ServiceError):
        await service.handle(request(ANNA, "seat.bind", side="alleati", role=FANTI))
    await service.handle(request(REFEREE, "seat.bind", side="alleati", role=FANTI))
    with_role = Request(12, CARLA, "game.status", {}, guild_id=9, role_ids=(FANTI,))
    status = await service.handle(with_role)
    roster = [n for n in status.notices if n.key == "bot.seats.side"]
    assert any(f"<@&{FANTI}>" in dict(n.params)["players"] for n in roster)
    version = (await store.load(12)).version
    await service.handle(Request(12, CARLA, "turn.next", {}, guild_id=9, role_ids=(FANTI,)))
    assert (await store.load(12)).version == version + 1  # played for alleati by the role
    with pytest.raises(ServiceError) as stranger:
        await service.handle(Request(12, CARLA, "turn.next", {}, guild_id=9))
    assert stranger.value.key == "error.service.join_first"
    await service.handle(request(REFEREE, "seat.bind", side="alleati"))  # unbound
    with pytest.raises(ServiceError):
        await service.handle(Request(12, CARLA, "turn.next", {}, guild_id=9, role_ids=(FANTI,)))


async def test_creating_games_can_be_limited_to_a_role(service) -> None:
    GM = 777
    with pytest.raises(ServiceError) as not_manager:
        await service.handle(Request(40, ANNA, "game.creators", {"role": GM}, guild_id=9))
    assert not_manager.value.key == "error.service.creators.managers_only"
    await service.handle(
        Request(40, ANNA, "game.creators", {"role": GM}, guild_id=9, manages_guild=True)
    )
    new = {"scenario": "esempio_normandia"}
    with pytest.raises(ServiceError) as needs_role:
        await service.handle(Request(41, BRUNO, "game.new", new, guild_id=9))
    assert needs_role.value.key == "error.service.creators.role_needed"
    await service.handle(Request(41, BRUNO, "game.new", new, guild_id=9, role_ids=(GM,)))
    await service.handle(Request(42, CARLA, "game.new", new, guild_id=10))  # another server
    await service.handle(Request(40, ANNA, "game.creators", {}, guild_id=9, manages_guild=True))
    await service.handle(Request(43, BRUNO, "game.new", new, guild_id=9))  # anyone again


async def test_a_side_with_players_takes_a_newcomer_only_by_consent(service, store) -> None:
    """The first player of a side joins freely; the next one asks, and the referee or a
    player of that side approves; a stranger's request seats no one on its own."""
    await service.handle(request(REFEREE, "game.new", scenario="esempio_normandia", language="en"))
    await service.handle(request(ANNA, "game.join", side="alleati"))
    asked = await service.handle(request(BRUNO, "game.join", side="alleati"))
    assert [n.key for n in asked.notices] == ["bot.seats.requested"]
    assert BRUNO not in {m.user_id for m in await store.members(12)}
    status = await service.handle(request(CARLA, "game.status"))
    assert any(
        n.key == "bot.seats.pending_request" and dict(n.params)["user"] == f"<@{BRUNO}>"
        for n in status.notices
    )
    with pytest.raises(ServiceError) as outsider:  # only the seated may approve
        await service.handle(request(CARLA, "seat.approve", user=BRUNO))
    assert outsider.value.key == "error.service.join_first"
    await service.handle(request(ANNA, "seat.approve", user=BRUNO))  # a player of the side
    seats = {m.user_id: (m.role, m.side) for m in await store.members(12)}
    assert seats[BRUNO] == ("player", "alleati")
    log = "\n".join((await service.handle(request(REFEREE, "game.log", count=10))).lines)
    assert "asked to play Allies" in log and f"approved <@{BRUNO}> for Allies" in log


async def test_an_invited_member_joins_at_once_and_a_player_invites_to_their_side_only(
    service, store
) -> None:
    await service.handle(request(REFEREE, "game.new", scenario="esempio_normandia", language="en"))
    await service.handle(request(ANNA, "game.join", side="alleati"))
    await service.handle(request(BRUNO, "game.join", side="asse"))  # an empty side: free
    with pytest.raises(ServiceError) as not_hers:
        await service.handle(request(ANNA, "seat.approve", user=CARLA, side="asse"))
    assert not_hers.value.key == "error.service.seats.not_your_side"
    await service.handle(request(ANNA, "seat.approve", user=CARLA))  # her own side
    joined = await service.handle(request(CARLA, "game.join", side="alleati"))
    assert [n.key for n in joined.notices] == ["bot.game.joined"]
    seats = {m.user_id: (m.role, m.side) for m in await store.members(12)}
    assert seats[CARLA] == ("player", "alleati")
    # The invitation was for one seat: a later stranger on Bruno's side still asks.
    asked = await service.handle(request(5, "game.join", side="asse"))
    assert [n.key for n in asked.notices] == ["bot.seats.requested"]
    log = "\n".join((await service.handle(request(REFEREE, "game.log", count=10))).lines)
    assert f"invited <@{CARLA}> to play Allies" in log


async def test_a_side_is_kept_through_leaving_the_game(service, store) -> None:
    """Leaving does not free a player of their side: they would take the enemy's empty
    seat, read its hidden units (gotica_retroguardia's sniper and MG), and come back. They
    return to their own side only; the referee still reseats them elsewhere."""
    await service.handle(request(REFEREE, "game.new", scenario="gotica_retroguardia"))
    await service.handle(request(ANNA, "game.join", side="alleati"))
    await service.handle(request(ANNA, "game.leave"))
    with pytest.raises(ServiceError) as kept:
        await service.handle(request(ANNA, "game.join", side="tedeschi"))
    assert kept.value.key == "error.service.side_kept"
    assert kept.value.localized("en") == (
        "You already play Allies: a side is kept once joined (the referee can reseat you)."
    )
    assert {m.user_id for m in await store.members(12)} == {REFEREE}
    assert "cecchino" not in await service.choices(12, ANNA, "unit", "")
    await service.handle(request(ANNA, "game.join", side="alleati"))
    await service.handle(request(REFEREE, "seat.assign", user=ANNA, side="tedeschi"))
    await service.handle(request(ANNA, "game.leave"))
    await service.handle(request(ANNA, "game.join", side="tedeschi"))
    seats = {m.user_id: (m.role, m.side) for m in await store.members(12)}
    assert seats[ANNA] == ("player", "tedeschi")


async def test_a_player_at_a_side_does_not_take_the_game_over(service, store) -> None:
    """Taking the game over makes the taker its referee, who reads every hidden unit and
    undoes, rewinds and decides: a channel manager who plays a side may not (another
    manager, or the referee's own /game referee, hands it over)."""
    await service.handle(request(REFEREE, "game.new", scenario="gotica_retroguardia"))
    await service.handle(request(ANNA, "game.join", side="alleati"))
    with pytest.raises(ServiceError) as playing:
        await service.handle(request(ANNA, "game.takeover", manages=True))
    assert playing.value.key == "error.service.seats.takeover_player"
    assert playing.value.localized("en") == (
        "You play Allies: a player does not take the game over (the referee reads every"
        " hidden unit and decides); a manager who plays no side may."
    )
    seats = {m.user_id: (m.role, m.side) for m in await store.members(12)}
    assert seats[ANNA] == ("player", "alleati") and seats[REFEREE] == ("referee", None)


async def test_every_reply_shows_the_chain_head_after_its_command(service, store, dice) -> None:
    """The chain head a reply shows (``# chain 1a2b3c4d`` at the console) is the one its
    command left: a seat change logs an event, and its reply named the head before it."""
    script = [
        (REFEREE, "game.new", {"scenario": "esempio_normandia", "language": "en"}),
        (ANNA, "game.join", {"side": "alleati"}),
        (BRUNO, "game.join", {"side": "asse"}),
        (CARLA, "game.join", {"side": "asse"}),  # a request to the Axis's player
        (BRUNO, "seat.approve", {"user": CARLA}),
        (REFEREE, "seat.remove", {"user": CARLA}),
        (REFEREE, "seat.assign", {"user": CARLA, "side": "asse"}),
        (BRUNO, "seat.approve", {"user": 5, "side": "asse"}),  # an invitation
        (CARLA, "game.leave", {}),
        (REFEREE, "game.deadline", {"hours": 24}),
        (ANNA, "turn.next", {}),
        (ANNA, "roll", {"expression": "d6"}),
        (REFEREE, "game.referee", {"user": 6}),
        (6, "seat.bind", {"side": "asse", "role": 77}),
    ]
    dice.push(4)
    shown = 0
    for asker, verb, options in script:
        reply = await service.handle(request(asker, verb, **options))
        if reply.head_hash is not None:
            assert reply.head_hash == (await store.load(12)).head_hash, verb
            shown += 1
    assert shown == len(script)


async def test_a_seat_change_commits_the_document_it_read_without_encoding_it(
    service, store, monkeypatch
) -> None:
    await service.handle(request(REFEREE, "game.new", scenario="esempio_normandia", language="en"))
    before = await store.load(12)

    def no_encoding(*args: object, **kwargs: object) -> None:
        raise AssertionError("an unchanged document is not encoded again")

    monkeypatch.setattr(store.preparer, "prepare", no_encoding)
    await service.handle(request(REFEREE, "seat.assign", user=ANNA, side="asse"))
    after = await store.load(12)
    assert after.version == before.version + 1
    assert after.document_text == before.document_text
    assert [e.verb for e in await store.events(12)][-1] == "seat.assign"
    assert await store.check() == []
