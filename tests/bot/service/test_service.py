"""A whole manovra turn through the application service, on a real SQLite file."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.service import Request
from db.chain.hashing import verify_links
from rules.core.errors import RulesError
from rules.render import outcome_text
from tests.bot.service_table import ServiceTable

CHANNEL = 4242
REFEREE, ANNA, BRUNO, STRANGER = 1, 2, 3, 99


@pytest.fixture()
def table(service, dice) -> ServiceTable:
    return ServiceTable(service, dice, CHANNEL)


async def _setup(table: ServiceTable) -> None:
    await table(REFEREE, "game.new", scenario="esempio_normandia", language="it")
    await table(ANNA, "game.join", side="alleati")
    await table(BRUNO, "game.join", side="Asse")  # by name too


async def _typed_ifr(table: ServiceTable) -> Any:
    """Step 2: the Allies' IFR with dice typed by hand (6, 3: passed)."""
    return await table(
        ANNA,
        "callarty",
        dice="6,3",
        unit="comando_plotone",
        battery="batteria_105",
        target="bosco nord",
        distance=20,
        link="stesso_plotone_radio",
    )


async def test_a_refusal_says_who_is_awaited_in_the_games_language(table):
    """An English game's "not your move" names the side it waits for in English."""
    await table(REFEREE, "game.new", scenario="esempio_normandia", language="en")
    await table(ANNA, "game.join", side="alleati")
    await table(BRUNO, "game.join", side="asse")
    refusal = await table.refused(BRUNO, "turn.next", "error.manovra.not_your_move")
    assert "waiting for Allies" in refusal.localized("en")
    assert "Alleati" in refusal.localized("it") and "Alliés" in refusal.localized("fr")


async def test_a_whole_turn_through_the_service(table, store):
    await table.refused(ANNA, "turn.next", "error.service.no_game")
    await _setup(table)
    await table.refused(STRANGER, "turn.next", "error.service.join_first")
    await table.refused(BRUNO, "turn.next", "error.manovra.not_your_move")
    reply = await table(ANNA, "turn.next")
    assert reply.status is None and reply.notices[0].code == "manovra.turn.step(turn=1,step=2)"

    # Step 2: an IFR with dice typed by hand; the opponent confirms them.
    reply = await _typed_ifr(table)
    assert reply.by_hand and reply.resolutions[1].outcome.code == "manovra.test.passed(test=IFR)"
    assert all(roll.by_hand for roll in reply.resolutions[1].rolls)
    await table.refused(ANNA, "dice.confirm", "error.service.own_dice", seq=reply.seq)
    await table(BRUNO, "dice.confirm", seq=reply.seq)
    # Issue 11: at step 2, "to move: Alleati", the Axis may not end the Allies' requests.
    await table.refused(BRUNO, "turn.next", "error.manovra.not_your_move")
    await table.refused(
        ANNA,
        "callarty",
        "error.dice.unused",
        dice="6,3,1",
        unit="squadra_1",
        battery="sezione_mortai",
        target="x",
        distance=5,
    )
    odds = await table(ANNA, "odds", unit="squadra_1", target="gruppe_1", distance=12)
    assert odds.odds_only and odds.resolutions[-1].odds.exact  # planning at step 2
    # The preview shows the uncertain roll only: the target is in sight for certain.
    assert [r.procedure for r in odds.resolutions] == ["small_arms"]
    await table.refused(
        BRUNO,
        "odds",
        "error.manovra.not_your_unit",
        unit="squadra_1",
        target="gruppe_1",
        distance=12,
    )
    await table(ANNA, "turn.next")

    # Step 3: the Allies declare and Bruno is pinged; Bruno hands over his token.
    await table.refused(
        BRUNO, "manoeuvre.declare", "error.manovra.not_your_declaration", platoon="zug_1"
    )
    reply = await table(ANNA, "manoeuvre.declare", platoon="plotone_fucilieri")
    assert reply.ping == [BRUNO]
    reply = await table(BRUNO, "manoeuvre.pass", [6, 1, 1])
    assert reply.ping == [ANNA]
    await table.refused(
        BRUNO,
        "fire",
        "error.manovra.not_your_unit",
        unit="squadra_1",
        target="gruppe_1",
        distance=12,
    )
    await table.refused(
        ANNA, "fire", "error.manovra.unknown_unit", unit="squadra_9", target="gruppe_1", distance=12
    )
    odds = await table(ANNA, "odds", unit="squadra_1", target="gruppe_1", distance=12)
    assert odds.odds_only and odds.resolutions[-1].odds.exact
    version_before = (await store.load(CHANNEL)).version
    assert version_before == (await store.load(CHANNEL)).version  # /odds commits nothing
    reply = await table(ANNA, "fire", [10], unit="squadra_1", target="gruppe_1", distance=12)
    shot = reply.resolutions[-1]
    assert shot.steps[0].table.cell == "1" and shot.odds is not None
    await table(ANNA, "move", unit="comando_plotone", terrain="piano_boscoso", distance=6)
    await table(ANNA, "move", unit="squadra_2", kind="hold")

    # Second phase: the tanks. A hull hit on the Panzer owes it an SF and a CT.
    await table(ANNA, "manoeuvre.declare", platoon="plotone_carri")
    await table(BRUNO, "manoeuvre.declare", [6, 1, 1], platoon="panzer")
    reply = await table(
        ANNA, "fire", [7, 12, 3], unit="sherman_1", target="panzer_iv", distance=40, ammo="AP"
    )
    hit = reply.resolutions[-1]
    assert [s.table.cell for s in hit.steps] == ["scafo", "10", "arma distrutta + 1 morto + CT"]
    assert [(f.verb, dict(f.options)) for f in reply.follow_ups] == [
        ("test", {"unit": "panzer_iv", "kind": "SF"}),
        ("test", {"unit": "panzer_iv", "kind": "CT"}),
    ]
    assert all(f.side == "asse" for f in reply.follow_ups)
    await table.refused(BRUNO, "move", "error.manovra.test_owed", unit="panzer_iv", kind="hold")
    await table(BRUNO, "test", [1, 10], unit="panzer_iv", kind="SF")
    await table(BRUNO, "morale", [6, 1], unit="panzer_iv")
    await table.refused(
        BRUNO, "fire", "error.manovra.skip_fire", unit="panzer_iv", target="sherman_1", distance=40
    )
    await table(BRUNO, "move", unit="panzer_iv", kind="hold")
    await table(ANNA, "move", unit="sherman_2", kind="hold")

    # Third phase; the referee acts for the absent Axis player (marked in the log).
    await table(ANNA, "manoeuvre.declare", platoon="sezione_mortai")
    await table(BRUNO, "manoeuvre.declare", [1, 1, 1, 1], platoon="zug_1")
    reply = await table(REFEREE, "move", unit="gruppe_1", kind="hold")
    assert reply.acted_for == "asse"
    for unit in ("mg_team", "pak"):
        await table(BRUNO, "move", unit=unit, kind="hold")
    reply = await table(ANNA, "move", unit="mortai", kind="hold")  # step 4: one battery, no IT
    assert [(f.verb, dict(f.options)) for f in reply.follow_ups] == [
        ("execute", {"marker": "if1-1"})
    ]

    # Step 4: the follow-up executes the IF marker; ≤ 0 hits the point.
    reply = await table(ANNA, "execute", [1, 1, 1], marker="if1-1")
    assert reply.resolutions[0].outcome.code == "manovra.scatter.on_point"
    await table(ANNA, "turn.next")
    reply = await table(ANNA, "turn.next")
    assert reply.notices[-1].code == "manovra.turn.step(turn=2,step=1)"

    status = await table(BRUNO, "game.status")
    panzer = next(u for u in status.status.units if u.id == "panzer_iv")
    assert panzer.models == 4 and "weapon_destroyed" in panzer.statuses
    assert status.status.turn == 2

    log = await table(BRUNO, "game.log", count=50)
    assert any("(l'arbitro ha agito per Asse)" in line for line in log.lines)
    # The story: who, the command as typed, and its outcome (not the odds line).
    fire_line = next(line for line in log.lines if "/fire" in line)
    assert "→" in fire_line and "Probabilit" not in fire_line


async def test_undo_export_and_retries(table, store):
    await _setup(table)
    first = await table(ANNA, "turn.next", interaction="same")
    again = await table(ANNA, "turn.next", interaction="same")  # a retried interaction
    assert again.duplicate and again.seq == first.seq
    record = await store.load(CHANNEL)
    assert record.document["step"] == 2

    await table.refused(ANNA, "game.undo", "error.service.referee_only")
    reply = await table(REFEREE, "game.undo")
    assert reply.status.phase.key == "manovra.phase.1"
    assert (await store.load(CHANNEL)).document["step"] == 1

    exported = await table(BRUNO, "game.export")
    bundle = json.loads(exported.files["arbitro-log.json"])
    # A player's export of manovra (units can be concealed): its links verify, not states.
    assert verify_links(bundle) == bundle["head_hash"]
    assert b"/turn next" in exported.files["arbitro-report.md"]

    await table(REFEREE, "game.deadline", hours=12, side="asse")
    await table.refused(REFEREE, "game.deadline", "error.service.out_of_bounds", hours=-1)
    await table.refused(ANNA, "game.end", "error.service.referee_only")
    await table(REFEREE, "game.end")
    await table.refused(ANNA, "turn.next", "error.service.game_ended")
    # An ended game says so, and nobody is to move any more.
    ended = await table(BRUNO, "game.status")
    assert ended.status.ended and ended.status.awaiting is None and not ended.owed


async def test_new_game_errors(table):
    await table.refused(REFEREE, "game.new", "error.unknown_scenario", scenario="nope")
    await table.refused(REFEREE, "game.new", "error.service.bad_language", language="de")
    await table.refused(REFEREE, "game.new", "error.unknown_ruleset", ruleset="chess")
    with pytest.raises(RulesError) as caught:
        await table.service.handle(
            Request(
                channel_id=CHANNEL, user_id=REFEREE, verb="game.new", attachment="id: x\nsides: [\n"
            )
        )
    assert "line" in caught.value.localized("en")
    await _setup(table)
    await table.refused(REFEREE, "game.new", "error.store.game_exists")


async def test_a_bundled_scenario_names_its_ruleset(table):
    """``/game new scenario:gotica_incontro`` without a ruleset plays the only ruleset that
    bundles it; a scenario no ruleset bundles is refused with the default's list."""
    created = await table(REFEREE, "game.new", scenario="gotica_incontro")
    assert created.ruleset == "linea_gotica"
    status = await table(REFEREE, "game.status")
    assert status.ruleset == "linea_gotica"


async def test_deadline_reminders_ping_the_late_side(table, store):
    from datetime import UTC, datetime, timedelta

    await _setup(table)
    await table(REFEREE, "game.deadline", hours=1, side="asse")
    later = datetime.now(UTC) + timedelta(hours=2)
    reminders = await table.service.due_reminders(later)
    assert [(channel, reply.ping) for channel, reply in reminders] == [(CHANNEL, [BRUNO])]
    assert await table.service.due_reminders(later) == []  # once only


async def test_autocomplete_is_filtered_and_bounded(table):
    await _setup(table)
    units = await table.service.choices(CHANNEL, ANNA, "unit", "squ")
    assert units == ["squadra_1", "squadra_2"]
    targets = await table.service.choices(CHANNEL, ANNA, "target", "")
    assert "squadra_1" not in targets and "gruppe_1" in targets
    assert len(await table.service.choices(CHANNEL, ANNA, "terrain", "")) <= 25
    assert await table.service.choices(CHANNEL, ANNA, "scenario", "esempio_norm") == [
        "esempio_normandia",
        "esempio_normandia_campo",
    ]
    assert await table.service.choices(555, ANNA, "unit", "") == []


async def test_the_service_language_is_the_default_of_a_new_game(store):
    from bot.service import GameService

    service = GameService(store, language="fr")
    reply = await service.handle(Request(channel_id=7, user_id=REFEREE, verb="game.new"))
    assert reply.language == "fr" and (await store.load(7)).language == "fr"
    # The asker's own language answers outside any game; the service's when it is unknown.
    assert (await service.handle(Request(channel_id=8, user_id=1, verb="help"))).language == "fr"
    asked = Request(channel_id=8, user_id=1, verb="help", locale="en")
    assert (await service.handle(asked)).language == "en"
    # A language given with the command wins.
    made = Request(channel_id=9, user_id=REFEREE, verb="game.new", options={"language": "it"})
    assert (await service.handle(made)).language == "it"
    with pytest.raises(ValueError):
        GameService(store, language="de")


@pytest.mark.parametrize(
    ("language", "typed", "shown"),
    [
        ("it", "Tactical Squad", "Squadra tattica"),  # English typed in an Italian game
        ("it", "escouade tactique", "Squadra tattica"),  # French, in any case
        ("en", "Squadra tattica", "Tactical Squad"),  # Italian typed in an English game
        ("fr", "squadra_tattica", "Escouade tactique"),  # the id, always
    ],
)
async def test_a_unit_is_typed_by_its_name_in_any_language(
    table, language: str, typed: str, shown: str
) -> None:
    """``unit:`` takes a unit's id or its name in any of its languages; what the command
    says of the unit reads in the game's language."""
    await table(REFEREE, "game.new", ruleset="w40k4", scenario="avamposto", language=language)
    await table(ANNA, "game.join", side="legione")
    reply = await table(ANNA, "move", unit=typed, distance=4)
    [moved] = [n for n in reply.notices if n.key == "w40k4.move.done"]
    assert shown in outcome_text("w40k4", moved, language)
    refused = await table.refused(
        ANNA, "move", "error.w40k4.unknown_unit", unit="Squadra", distance=1
    )
    assert "Squadra" in refused.localized(language)


async def test_dice_typed_for_a_side_are_checked_by_the_opponent_not_a_teammate(table):
    """A second player of the side that typed the dice neither confirms nor disputes them:
    a team-mate's confirmation would settle the side's own dice for it."""
    await _setup(table)
    invite = {"user": STRANGER, "side": "alleati"}
    await table.service.handle(Request(CHANNEL, ANNA, "seat.approve", invite, guild_id=7))
    await table(STRANGER, "game.join", side="alleati")
    await table(ANNA, "turn.next")
    reply = await _typed_ifr(table)
    for verb in ("dice.confirm", "dice.dispute"):
        refusal = await table.refused(STRANGER, verb, "error.service.own_side_dice", seq=reply.seq)
        assert refusal.localized("en") == (
            "Dice typed for Allies are checked by the opponent, not by a player of Allies."
        )
    await table(BRUNO, "dice.confirm", seq=reply.seq)
