"""A whole pzgren turn through the application service, on a real SQLite file, with
scripted dice: alternating activations, opportunity fire, an owed step choice and owed
morale checks as follow-ups, odds that commit nothing, the referee, the log and undo."""

from __future__ import annotations

import json

import pytest

from db.chain.hashing import verify_export, verify_links
from tests.bot.service_table import ServiceTable

CHANNEL = 3003
REFEREE, ANNA, BRUNO, STRANGER = 1, 2, 3, 99


@pytest.fixture()
def table(service, dice) -> ServiceTable:
    return ServiceTable(service, dice, CHANNEL)


async def _setup(table: ServiceTable) -> None:
    reply = await table(
        REFEREE, "game.new", ruleset="pzgren", scenario="exemple_ardennes", language="fr"
    )
    assert reply.notices[0].code.startswith("bot.game.created")
    await table(ANNA, "game.join", side="us")
    await table(BRUNO, "game.join", side="Allemands")  # by name too


def follow(reply) -> list[tuple[str, dict, str | None]]:
    return [(f.verb, dict(f.options), f.side) for f in reply.follow_ups]


async def test_a_whole_turn_through_the_service(table, store):
    await table.refused(ANNA, "turn.next", "error.service.no_game")
    await _setup(table)
    await table.refused(STRANGER, "move", "error.service.join_first", unit="us_rifle_1", hex="4,3")
    await table.refused(BRUNO, "turn.next", "error.pzgren.not_your_activation")
    await table.refused(BRUNO, "move", "error.pzgren.not_your_unit", unit="us_rifle_1", hex="4,3")
    await table.refused(ANNA, "move", "error.unknown_option", unit="us_rifle_1", distance=4)

    # Planning: /odds previews a fire and commits nothing.
    version = (await store.load(CHANNEL)).version
    odds = await table(ANNA, "odds", unit="us_m10", target="de_panther")
    assert odds.odds_only and odds.resolutions[-1].odds.exact
    assert (await store.load(CHANNEL)).version == version

    # US: a move; Bruno (whose activation it now is) is pinged.
    reply = await table(ANNA, "move", unit="us_rifle_1", hex="4,3")
    assert reply.ping == [BRUNO]
    moved = "pzgren.action.moved(unit=1° plotone fucilieri,hex=4,3,distance=2)"
    assert reply.notices[0].code == moved

    # DE: opportunity fire at the mover (physical dice typed by hand): X, then M2 is owed.
    reply = await table(
        BRUNO, "fire", dice="1 1", unit="de_pzgren_1", hex="4,3", opportunity="true"
    )
    assert reply.by_hand and reply.resolutions[0].steps[1].table.cell == "X"
    assert follow(reply) == [("morale", {"unit": "us_rifle_1"}, "us")]
    assert reply.ping == [ANNA]
    await table(ANNA, "dice.confirm", seq=reply.seq)
    await table.refused(BRUNO, "fire", "error.pzgren.morale_owed", unit="de_hmg", hex="4,3")
    await table.refused(BRUNO, "morale", "error.pzgren.not_your_unit", unit="us_rifle_1")
    reply = await table(ANNA, "morale", [3, 3], unit="us_rifle_1")
    assert reply.resolutions[0].outcome.code == "pzgren.morale.failed(status=disrupted)"
    assert reply.follow_ups == [] and reply.ping == [BRUNO]

    # DE: anti-tank fire of the Panther at the M10: a step lost and a morale check M2.
    reply = await table(BRUNO, "fire", [1, 1], unit="de_panther", target="us_m10")
    assert reply.resolutions[0].outcome.code == "pzgren.at.step_lost(left=1)"
    assert follow(reply) == [("morale", {"unit": "us_m10"}, "us")]
    await table(ANNA, "morale", [1, 1], unit="us_m10")

    # US: combined fire at the German stack: X — the Germans choose which unit loses the step.
    reply = await table(ANNA, "fire", [1, 1], unit="us_rifle_2,us_mortar", hex="6,3")
    # the stored document keeps its units in id order
    assert follow(reply) == [
        ("step", {"unit": "de_hmg"}, "de"),
        ("step", {"unit": "de_pzgren_1"}, "de"),
    ]
    assert any(n.code == "pzgren.unit.eliminated(unit=Opel Blitz)" for n in reply.notices)
    await table.refused(ANNA, "step", "error.pzgren.not_your_choice", unit="de_hmg")
    await table.refused(BRUNO, "turn.next", "error.pzgren.steps_owed")
    reply = await table(BRUNO, "step", unit="de_hmg")
    assert follow(reply) == [("morale", {"unit": "de_pzgren_1"}, "de")]
    await table(BRUNO, "morale", [4, 2], unit="de_pzgren_1")

    # The referee passes for the absent Germans (marked in the log); then the Americans pass.
    reply = await table(REFEREE, "turn.next")
    assert reply.acted_for == "de"
    reply = await table(ANNA, "turn.next")
    assert reply.notices[-1].code == "pzgren.turn.new(turn=2,side=Americani)"

    status = await table(BRUNO, "game.status")
    units = {u.id: u for u in status.status.units}
    assert (units["us_rifle_1"].models, units["us_rifle_1"].statuses) == (1, ("disrupted",))
    assert units["us_rifle_1"].place == "4,3" and units["us_m10"].models == 1
    assert units["de_hmg"].statuses == ("eliminated",) and units["de_truck"].models == 0
    assert status.status.turn == 2 and status.status.awaiting == "us"

    log = await table(BRUNO, "game.log", count=50)
    assert any("(l'arbitre a joué pour Allemands)" in line for line in log.lines)
    exported = await table(BRUNO, "game.export")
    bundle = json.loads(exported.files["arbitro-log.json"])
    # A seat's export during play: its states, without the salt they are hashed with.
    assert len(bundle["states"]) == 2 and "state_salt" not in bundle["game"]
    assert verify_links(bundle) == bundle["head_hash"]
    referee = json.loads((await table(REFEREE, "game.export")).files["arbitro-log.json"])
    assert verify_export(referee) == bundle["head_hash"]
    assert "TABLE DE TIR DIRECT" in exported.files["arbitro-report.md"].decode()


async def test_undo_restores_an_owed_choice(table, store):
    await _setup(table)
    await table(ANNA, "move", unit="us_rifle_2", kind="hold")
    # 7 → column 7; adjacent +2, dug in -1: column 11; 2D6 = 2: X, the platoon's step and M2
    await table(BRUNO, "fire", [1, 1], unit="de_pzgren_1", hex="5,4")
    record = await store.load(CHANNEL)
    assert record.document["pending_morale"] == [{"unit": "us_rifle_2", "n": 2}]
    assert record.document["units"]["us_rifle_2"]["steps"] == 1
    await table.refused(ANNA, "game.undo", "error.service.referee_only")
    await table(REFEREE, "game.undo")
    record = await store.load(CHANNEL)
    assert record.document["pending_morale"] == [] and record.document["active_side"] == "de"
    assert record.document["units"]["us_rifle_2"]["steps"] == 2


async def test_autocomplete(table):
    await _setup(table)
    units = await table.service.choices(CHANNEL, ANNA, "unit", "rifle")
    assert units == ["us_rifle_1", "us_rifle_2"]
    targets = await table.service.choices(CHANNEL, ANNA, "target", "")
    assert "de_panther" in targets and "us_m10" not in targets
    assert "6,3" in await table.service.choices(CHANNEL, ANNA, "hex", "")
    assert await table.service.choices(CHANNEL, ANNA, "modifiers", "") == [
        "enemy_aa",
        "river_engineers",
    ]
