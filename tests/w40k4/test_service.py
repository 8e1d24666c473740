"""A whole w40k4 game turn through the application service, on a real SQLite file."""

from __future__ import annotations

import pytest

from bot.console.render_text import owed_lines
from tests.bot.service_table import ServiceTable

CHANNEL = 4040
REFEREE, ANNA, BRUNO, STRANGER = 1, 2, 3, 99


@pytest.fixture()
def table(service, dice) -> ServiceTable:
    return ServiceTable(service, dice, CHANNEL)


def outcomes(reply) -> list[str]:
    return [r.outcome.code for r in reply.resolutions]


async def test_a_whole_turn_through_the_service(table, store):
    reply = await table(REFEREE, "game.new", ruleset="w40k4", scenario="avamposto", language="it")
    assert reply.status.phase.code == "w40k4.phase.current(phase=movement,side=Legione Astrale)"
    await table(ANNA, "game.join", side="legione")
    await table(BRUNO, "game.join", side="Predoni")
    await table.refused(STRANGER, "turn.next", "error.service.join_first")
    await table.refused(BRUNO, "turn.next", "error.w40k4.not_your_turn")
    await table.refused(ANNA, "move", "error.unknown_option", unit="squadra_tattica", speed="6")

    # Movement: console-style string options; a tank shock the band fails.
    reply = await table(
        ANNA,
        "move",
        [3, 5],
        unit="squadra_tattica",
        distance="6",
        terrain="difficult",
        cover="rovine",
    )
    assert outcomes(reply)[-1] == "w40k4.difficult.short(inches=5)"
    reply = await table(
        ANNA, "move", [4, 4, 3, 3], unit="mezzo_corazzato", distance=10, target="banda"
    )
    assert outcomes(reply)[1:] == [
        "w40k4.test.failed(reason=tank_shock)",
        "w40k4.fall_back.moved(inches=6)",
    ]
    reply = await table(ANNA, "turn.next")
    assert reply.notices[-1].code == "w40k4.turn.phase(turn=1,side=Legione Astrale,phase=shooting)"

    # Shooting: the odds preview commits nothing; dice typed by hand are confirmed.
    version = (await store.load(CHANNEL)).version
    odds = await table(
        ANNA, "odds", unit="squadra_tattica", target="motopredoni", distance=10, weapon="pistola"
    )
    assert odds.odds_only and odds.resolutions[-1].odds.exact
    assert (await store.load(CHANNEL)).version == version
    await table.refused(
        BRUNO,
        "odds",
        "error.w40k4.not_your_unit",
        unit="squadra_tattica",
        target="motopredoni",
        distance=10,
    )
    # Anna types her hit and wound dice; the save is the target's roll: the bot makes it.
    reply = await table(
        ANNA,
        "fire",
        [2],
        dice="4,5",
        unit="squadra_tattica",
        target="motopredoni",
        distance=10,
        weapon="pistola",
    )
    assert reply.by_hand and outcomes(reply) == ["w40k4.chain.casualties(n=1)"]
    await table.refused(ANNA, "dice.confirm", "error.service.own_dice", seq=reply.seq)
    await table(BRUNO, "dice.confirm", seq=reply.seq)
    reply = await table(
        ANNA,
        "fire",
        [3, 1, 2, 4],
        unit="devastatori",
        target="carro_predone",
        distance=30,
        facing="side",
        weapon="cannone_laser",
    )
    assert outcomes(reply) == ["w40k4.vehicle.damage(status=wrecked)"]

    # The phase ends: the bikes owe a morale check; Bruno is pinged and gets the button.
    reply = await table(ANNA, "turn.next")
    assert reply.ping == [BRUNO]
    assert [(f.verb, dict(f.options), f.side) for f in reply.follow_ups] == [
        ("morale", {"unit": "motopredoni"}, "predoni")
    ]
    # The status names who owes what: the side and its player.
    status = await table(ANNA, "game.status")
    assert status.owed_by == {"predoni": [BRUNO]}
    assert [(a.verb, a.side) for a in status.owed] == [("morale", "predoni")]
    assert any(f"Predoni (<@{BRUNO}>)" in line for line in owed_lines(status))
    reply = await table(BRUNO, "morale", [3, 3], unit="motopredoni")
    assert outcomes(reply) == ["w40k4.test.passed(reason=losses)"]
    assert reply.notices[-1].code == "w40k4.turn.phase(turn=1,side=Legione Astrale,phase=assault)"

    # Assault: the squad charges the bikes; the combat button resolves it.
    await table(ANNA, "assault", unit="squadra_tattica", target="motopredoni", distance=4)
    status = await table(ANNA, "turn.status")
    assert [(f.verb, dict(f.options)) for f in status.follow_ups] == [
        ("combat", {"unit": "squadra_tattica"})
    ]
    reply = await table(
        ANNA, "combat", [1] * 19 + [6, 6] + [5, 1] + [1] + [1, 1], unit="squadra_tattica"
    )
    assert outcomes(reply)[-1] == "w40k4.combat.won(side=Legione Astrale,lost_by=Predoni)"
    # The referee rolls the loser's morale for the absent Bruno (marked in the log).
    reply = await table(REFEREE, "morale", [6, 6, 1, 1, 3], unit="motopredoni")
    assert outcomes(reply) == [
        "w40k4.test.failed(reason=combat)",
        "w40k4.escape.caught",
        "w40k4.consolidate.moved(inches=3)",
    ]
    assert reply.acted_for == "predoni"
    reply = await table(ANNA, "turn.next")
    assert reply.ping == [BRUNO]
    assert [(f.verb, dict(f.options)) for f in reply.follow_ups] == [("morale", {"unit": "banda"})]

    status = await table(BRUNO, "game.status")
    view = status.status
    assert view.turn == 1 and view.awaiting == "predoni"
    lines = {u.id: u for u in view.units}
    assert lines["motopredoni"].models == 0 and "destroyed" in lines["motopredoni"].statuses
    assert "falling_back" in lines["banda"].statuses
    assert lines["veterani"].place == "reserve"
    assert lines["squadra_tattica"].place == "muri"
    assert [n.key for n in view.notes] == ["w40k4.status.pending_regroup"]

    log = await table(BRUNO, "game.log", count=50)
    assert any("(l'arbitro ha agito per Predoni)" in line for line in log.lines)

    # Undo the last command: back in Legione's assault phase.
    reply = await table(REFEREE, "game.undo")
    assert reply.status.phase.code == "w40k4.phase.current(phase=assault,side=Legione Astrale)"


async def test_autocomplete_and_bad_options(table):
    await table(REFEREE, "game.new", ruleset="w40k4", scenario="avamposto")
    await table(ANNA, "game.join", side="legione")
    units = await table.service.choices(CHANNEL, ANNA, "unit", "")
    assert units == ["squadra_tattica", "devastatori", "mezzo_corazzato", "veterani"]
    targets = await table.service.choices(CHANNEL, ANNA, "target", "")
    assert "banda" in targets and "mortai" not in targets  # mortars are in reserve
    covers = await table.service.choices(CHANNEL, ANNA, "cover", "ro")
    assert covers == ["tronchi", "rovine", "rocce", "rottami"]
    assert await table.service.choices(CHANNEL, ANNA, "scenario", "avam") == [
        "avamposto",
        "avamposto_campo",
    ]
    error = await table.refused(
        ANNA, "move", "error.option.not_a_number", unit="squadra_tattica", distance="sei"
    )
    # The option as the player typed it, in the game's language.
    assert error.params["option"] == "distance"
    await table.refused(
        ANNA, "move", "error.w40k4.unknown_cover", unit="squadra_tattica", distance=3, cover="lava"
    )
    await table.refused(ANNA, "callarty", "error.service.not_in_ruleset", unit="x")
