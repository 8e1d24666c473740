"""manovra: tests nobody owes, every piece of a heavy weapon firing, and the
panicked unit that "deve ritirarsi" — each rule test quotes the seed (000) line it follows."""

from __future__ import annotations

import math

import pytest

from rules.core.dice import ReplayingDice, ScriptedDice, SystemDice
from rules.core.errors import InvalidInput, RulesError
from rules.core.geometry import distance
from rules.core.seatview import REFEREE, Seat
from rules.manovra import turn as g
from rules.manovra.legal import legal_actions
from rules.manovra.scenario import MAX_HEAVY_ROUNDS, bundled_scenarios, load_bundled, parse_scenario
from rules.manovra.surface import PLAY


@pytest.fixture()
def state() -> g.ManovraState:
    """The example at step 3 (typed distances)."""
    made = g.new_game(load_bundled("esempio_normandia"))
    made.step = g.TurnStep.MANOEUVRE
    made.manoeuvred = list(made.platoons)
    made.declarations = {"alleati": "-", "asse": "-"}
    return made


@pytest.fixture()
def campo() -> g.ManovraState:
    """The battlefield example at step 3."""
    made = g.new_game(load_bundled("esempio_normandia_campo"))
    made.step = g.TurnStep.MANOEUVRE
    made.manoeuvred = list(made.platoons)
    made.declarations = {"alleati": "-", "asse": "-"}
    return made


def play(state, command, side, faces=()):
    dice = ScriptedDice(list(faces))
    applied = g.apply(state, command, dice, actor_side=side)
    dice.ensure_consumed()
    return applied


def refused(state, command, side, key):
    before = state.model_dump(mode="json")
    with pytest.raises(RulesError) as caught:
        # No die may be rolled before the refusal: the dice have no face to give.
        g.apply(state, command, ScriptedDice([]), actor_side=side)
    assert caught.value.key == key, (caught.value.key, caught.value.params)
    assert state.model_dump(mode="json") == before
    return caught.value


# -- 3. Tests nobody owes -----------------------------------------------------------------------


def test_a_test_nobody_owes_is_refused_naming_what_is_owed_and_by_whom(state):
    """The report: `/test unit:sherman_1 kind:CT` while sherman_2 owes it was rolled and logged."""
    state.pending = [g.PendingTest(unit="sherman_2", kind="CT")]
    refused(
        state, g.TakeTest(unit="sherman_1", kind="CT"), "alleati", "error.manovra.test_not_owed"
    )
    refused(state, g.TakeTest(unit="sherman_1", kind="CT"), None, "error.manovra.test_not_owed")
    document = PLAY._document(state)
    with pytest.raises(RulesError) as caught:
        PLAY.act(document, REFEREE, "test", {"unit": "sherman_1", "kind": "CT"}, ScriptedDice([]))
    assert caught.value.localized("en") == (
        "Unit Sherman 1 owes no CT test. Owed now: CT test for Sherman 2 (Allies)."
    )
    assert caught.value.localized("it") == (
        "L'unità Sherman 1 non deve alcun test CT. Da fare ora: Test CT di Sherman 2 (Alleati)."
    )
    # The unit that owes it rolls it.
    applied = play(state, g.TakeTest(unit="sherman_2", kind="CT"), "alleati", [6, 1])
    assert applied.resolutions[0].outcome.code == "manovra.test.passed(test=CT)"
    assert not applied.state.pending


def test_morale_on_a_panicked_unit_that_owes_nothing_is_refused(state):
    """The report: `/morale unit:panzer_iv` on a panicked unit rolled a CT that changed nothing."""
    state.units["panzer_iv"].add("panic")
    document = PLAY._document(state)
    with pytest.raises(RulesError) as caught:
        PLAY.act(document, Seat.of("asse"), "morale", {"unit": "panzer_iv"}, ScriptedDice([]))
    assert caught.value.key == "error.manovra.test_not_owed"
    assert caught.value.localized("en") == "Unit Panzer IV owes no CT test. Nothing is owed now."
    # The owed test is the only one: a free SF of the Panzer is refused the same way.
    refused(state, g.TakeTest(unit="panzer_iv", kind="SF"), "asse", "error.manovra.test_not_owed")


# -- 5. Every piece of a heavy weapon fires -------------------------------------------------------


def test_two_mortars_fire_two_rounds(state):
    """Seed 000 line 9: "Sparare - con tutte le armi dell'unità, il numero di colpi indicato
    nella colonna 'Appostata'" — `weapons: {mortaio_60: 2}` fires two HE rounds, not one."""
    state.queue = ["mortai"]
    fire = g.Fire(unit="mortai", target="gruppe_1", distance_cm=10, weapon="mortaio_60")
    applied = play(state, fire, "alleati", [5, 3, 2, 2])
    assert [r.procedure for r in applied.resolutions] == ["observation", "scatter", "scatter"]
    assert [(b.id, b.shots) for b in applied.state.bursts] == [("he1-1", 2)]
    # One mortar: one round.
    state.units["mortai"].weapons["mortaio_60"] = 1
    applied = play(state, fire, "alleati", [5, 3])
    assert [r.procedure for r in applied.resolutions] == ["observation", "scatter"]


def test_a_two_gun_battery_fires_two_rounds_per_marker(state):
    """Seed 000 line 9 again: a battery of two howitzers fires both at its IF marker."""
    state.units["obici"].weapons["obice_105"] = 2
    state.step = g.TurnStep.INDIRECT
    state.queue = []
    state.markers = [
        g.FireMarker(
            id="if1-1", battery="batteria_105", requested_by="comando_plotone", target="bosco"
        )
    ]
    state.marker_order = ["if1-1"]
    applied = g.apply(
        state, g.ExecuteFire(marker="if1-1"), ReplayingDice([], SystemDice()), actor_side="alleati"
    )
    assert [r.procedure for r in applied.resolutions] == ["scatter", "scatter"]
    assert applied.state.markers[0].shots == 2


def test_one_gun_fires_one_round(state):
    """One piece, one round: the Sherman's single gun fires its rate once."""
    state.queue = ["sherman_1"]
    fire = g.Fire(unit="sherman_1", target="gruppe_1", distance_cm=12, weapon="cannone_75")
    applied = g.apply(state, fire, ReplayingDice([], SystemDice()), actor_side="alleati")
    assert [r.procedure for r in applied.resolutions][:2] == ["observation", "heavy_fire"]
    assert [r.procedure for r in applied.resolutions].count("heavy_fire") == 1


def test_a_scenario_whose_heavy_weapons_fire_too_many_rounds_is_refused_on_its_line():
    text = bundled_scenarios()["esempio_normandia"].read_text("utf-8")
    unit = "models: 4, weapons: {mortaio_60: 2}"
    rate = "rof_stationary: 1, rof_moving: 0, calibre_mm: 60"
    assert unit in text and rate in text
    # 51 mortars firing 2 rounds each: 102 rolls in one command.
    changed = text.replace(unit, "models: 60, weapons: {mortaio_60: 51}").replace(
        rate, rate.replace("rof_stationary: 1", "rof_stationary: 2")
    )
    with pytest.raises(InvalidInput) as caught:
        parse_scenario(changed, "mortai.yaml")
    error = caught.value
    line = next(i for i, text in enumerate(changed.splitlines(), 1) if "id: mortai," in text)
    assert error.key == "error.scenario.invalid_line", error.params
    assert error.params["line"] == line
    assert f"more than {MAX_HEAVY_ROUNDS} rounds" in str(error.params["detail"])


# -- 8. A panicked unit "è in panico e deve ritirarsi" -------------------------------------------


def test_a_panicked_unit_retreats_or_recovers_it_does_not_hold(state):
    """Seed 000 lines 190 and 251: "Se il test coraggio (CT) fallisce l'unità è in panico e
    deve ritirarsi"; line 9 gives it "Recupero panico". Holding is not retreating."""
    state.units["squadra_1"].add("panic")
    state.queue = ["squadra_1"]
    listed = [a for a in legal_actions(state) if a.unit == "squadra_1"]
    assert {a.verb for a in listed} == {"recover", "move"}
    assert all(a.options.get("kind") == "tattico" for a in listed if a.verb == "move")
    refused(state, g.Hold(unit="squadra_1"), "alleati", "error.manovra.must_retreat")
    refused(state, g.Hold(unit="squadra_1"), None, "error.manovra.must_retreat")
    refused(
        state,
        g.Move(unit="squadra_1", terrain="piano_scoperto", distance_cm=3, kind="breve"),
        "alleati",
        "error.manovra.retreat_kind",
    )
    applied = play(
        state, g.Move(unit="squadra_1", terrain="piano_scoperto", distance_cm=12), "alleati"
    )
    assert applied.state.units["squadra_1"].moved and applied.state.queue == []


def test_a_panicked_unit_that_cannot_move_holds(state):
    state.units["sherman_1"].add("panic")
    state.units["sherman_1"].add("immobilised")
    state.queue = ["sherman_1"]
    listed = [(a.verb, dict(a.options)) for a in legal_actions(state) if a.unit == "sherman_1"]
    assert listed == [
        ("recover", {"unit": "sherman_1"}),
        ("move", {"unit": "sherman_1", "kind": "hold"}),
    ]
    play(state, g.Hold(unit="sherman_1"), "alleati")


def test_on_a_battlefield_a_retreat_ends_farther_from_the_nearest_enemy(campo):
    squad = campo.units["squadra_1"]
    squad.add("panic")
    campo.queue = ["squadra_1"]
    enemies = [u.position for u in campo.units.values() if u.side == "asse" and u.position]
    gap = min(distance(squad.position, there) for there in enemies)
    refused(
        campo,
        g.Move(unit="squadra_1", to="toward gruppe_1 5"),
        "alleati",
        "error.manovra.retreat_away",
    )
    listed = [a for a in legal_actions(campo) if a.unit == "squadra_1"]
    moves = [a for a in listed if a.verb == "move"]
    assert moves and not [a for a in moves if a.options["kind"] == "hold"]
    for action in moves:
        applied = g.apply(
            campo,
            g.Move(unit="squadra_1", kind=action.options["kind"], to=action.options["to"]),
            ScriptedDice([]),
            actor_side="alleati",
        )
        moved = applied.state.units["squadra_1"].position
        assert min(distance(moved, there) for there in enemies) > gap + 1e-9, action
    away = moves[0].options["to"]
    assert str(away).endswith(f"° {math.floor(squad.tactical_cm)}")  # straight away, all of it
