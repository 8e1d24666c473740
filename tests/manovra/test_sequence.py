"""The manovra sequence of play as declared in rules/manovra/sequence.yaml, played with
scripted dice and compared with the seed (docs/seeds/000_manovra.txt) line by line."""

from __future__ import annotations

import pytest

from rules.core.legal import verbs_of
from rules.core.ruleset import get_ruleset
from rules.manovra import turn as g
from rules.manovra.legal import legal_actions
from rules.manovra.scenario import load_bundled
from rules.manovra.turn import steps
from tests.manovra.test_defects import acting, apply, refused

MINES = g.Move(unit="squadra_2", terrain="campi_minati", distance_cm=2, kind="cauto")


@pytest.fixture()
def state() -> g.ManovraState:
    return g.new_game(load_bundled("esempio_normandia"))


def _owed(state: g.ManovraState) -> list[str]:
    return [o.kind for o in steps.position(state).owing]


def test_the_turn_is_the_five_steps_of_the_seed(state: g.ManovraState) -> None:
    """Line 5: tokens, requests and planning, the manoeuvre phases, indirect fire, the end;
    each phase is left by /turn next into the next, the end into the next turn's tokens."""
    declared = steps.declaration()
    assert [p.id for p in declared.phases] == ["tokens", "requests", "manoeuvre", "indirect", "end"]
    assert all(5 in p.lines for p in declared.phases)
    assert get_ruleset("manovra").sequence.declaration == declared
    seen = []
    for step in g.TurnStep:
        state.step = step
        seen.append(steps.position(state).phase)
    assert seen == [p.id for p in declared.phases]
    assert declared.when("callarty") == [
        "2 - Richiesta di fuoco indiretto di artiglieria e pianificazione › "
        "RICHIESTA FUOCO INDIRETTO (7)"
    ]


def test_the_side_that_began_the_turn_declares_first(state: g.ManovraState) -> None:
    """Line 8: the player who began the turn declares (or hands over a token) first, then
    the opponent; no unit acts and the turn does not move on before both have."""
    state.step = g.TurnStep.MANOEUVRE
    assert _owed(state) == ["declaration"]
    refused(state, g.Next(), "alleati", "error.manovra.declaration_owed")
    refused(
        state,
        g.Move(unit="squadra_1", terrain="piano_scoperto", distance_cm=5),
        "alleati",
        "error.manovra.declaration_owed",
    )
    assert set(verbs_of(legal_actions(state))) == {"manoeuvre.declare"}
    state = apply(state, g.Declare(platoon="plotone_fucilieri"), "alleati").state
    assert steps.position(state).owing[0].params == {"side": state.sides["asse"]}
    refused(state, g.Declare(platoon="zug_1"), "alleati", "error.manovra.not_your_declaration")


def test_the_units_act_in_the_order_of_the_initiative_tests(state: g.ManovraState) -> None:
    """Line 8 (and IT, line 226): both declared, IT orders the units of the two platoons,
    each acts in that order; no declaration and no /turn next meanwhile."""
    state.step = g.TurnStep.MANOEUVRE
    state = apply(state, g.Declare(platoon="plotone_fucilieri"), "alleati").state
    state = apply(state, g.PassToken(), "asse", [6, 1, 1]).state
    assert state.queue == ["squadra_1", "comando_plotone", "squadra_2"]
    assert _owed(state) == ["action"]
    refused(state, g.Next(), "alleati", "error.manovra.action_owed")
    refused(state, g.Declare(platoon="zug_1"), "asse", "error.manovra.action_owed")
    refused(state, g.Hold(unit="squadra_2"), "alleati", "error.manovra.not_this_units_turn")
    assert {a.unit for a in legal_actions(state) if a.verb != "fragments"} == {"squadra_1"}


def test_an_owed_test_comes_before_anything_else(state: g.ManovraState) -> None:
    """Lines 65 and 232 (ET), 153 and 229 (SF), 190, 230, 251 and 269 (CT): the unit rolls
    its test before anything else happens; only the fragments of a fire under way may."""
    state = acting(state, "squadra_2")
    state.queue = ["squadra_2", "squadra_1"]
    state = apply(state, MINES, "alleati").state
    assert _owed(state) == ["test", "action"]
    refused(state, g.Hold(unit="squadra_1"), "alleati", "error.manovra.test_owed")
    refused(state, g.Next(), None, "error.manovra.test_owed")  # not the referee either
    assert verbs_of(legal_actions(state)) == ["test"]
    owed = steps.declaration().owed_by("test")
    assert "fragments" not in owed.blocks and not owed.referee_skips


def test_step_3_closes_only_once_its_last_owed_test_is_taken(state: g.ManovraState) -> None:
    """Lines 5, 8, 11 and 65: the last unit of the last manoeuvre phase walks into a
    minefield; its ET belongs to that move, so step 4 (and its IT, line 17) opens only once
    it is rolled, not before."""
    state = acting(state, "squadra_2")
    state = apply(state, MINES, "alleati").state
    assert state.step is g.TurnStep.MANOEUVRE
    assert _owed(state) == ["test"]
    state = apply(state, g.TakeTest(unit="squadra_2", kind="ET"), "alleati", [6, 1]).state
    assert state.step is g.TurnStep.INDIRECT
    assert _owed(state) == []


def test_every_if_marker_fires_before_the_turn_ends(state: g.ManovraState) -> None:
    """Line 5 (step 4) and line 17: the IF markers are fired in the IT order before the
    turn moves on; the referee may move on without them."""
    state.step = g.TurnStep.INDIRECT
    state.markers = [g.FireMarker(id="if1-1", battery="batteria_105", requested_by="x", target="t")]
    state.marker_order = ["if1-1"]
    refused(state, g.Next(), "alleati", "error.manovra.fire_left")
    assert steps.position(state).owing[0].params == {"marker": "if1-1", "n": 1}
    assert apply(state, g.Next(), None).state.step is g.TurnStep.END


def test_a_failed_ct_panics_and_an_immobilised_vehicle_is_abandoned(
    state: g.ManovraState,
) -> None:
    """Lines 190 and 251: "Se il test coraggio (CT) fallisce l'unità è in panico …, se il
    mezzo è immobilizzato viene abbandonato dall'equipaggio" — out of the game."""
    sherman = state.units["sherman_1"]
    sherman.add("immobilised")
    state.pending = [g.PendingTest(unit="sherman_1", kind="CT", reason="heavy")]
    applied = apply(state, g.TakeTest(unit="sherman_1", kind="CT"), "alleati", [1, 8])
    assert applied.resolutions[0].outcome.key == "manovra.test.failed"
    after = applied.state.units["sherman_1"]
    assert {"panic", "abandoned", "destroyed"} <= set(after.statuses)
    assert not after.alive
