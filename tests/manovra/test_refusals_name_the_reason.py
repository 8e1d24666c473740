"""Refusals that name the real reason: a unit with one weapon needs no ``weapon:``, and
out of range says how far the weapons reach (issue 26 item 11)."""

from __future__ import annotations

import pytest

from rules.core.dice import ReplayingDice, SystemDice
from rules.core.errors import RulesError
from rules.manovra import turn as g
from rules.manovra.scenario import load_bundled


@pytest.fixture()
def state() -> g.ManovraState:
    """The example at step 3 (typed distances)."""
    made = g.new_game(load_bundled("esempio_normandia"))
    made.step = g.TurnStep.MANOEUVRE
    made.manoeuvred = list(made.platoons)
    made.declarations = {"alleati": "-", "asse": "-"}
    return made


def test_a_unit_with_one_weapon_fires_it_unnamed(state):
    """The mortars carry one weapon (mortaio_60): /fire without weapon: fires it, as
    naming it does, instead of "choose the weapon: mortaio_60"."""
    state.queue = ["mortai"]
    named = g.Fire(unit="mortai", target="gruppe_1", distance_cm=10, weapon="mortaio_60")
    unnamed = g.Fire(unit="mortai", target="gruppe_1", distance_cm=10)
    faces = [5, 3, 2, 2]
    expected = g.apply(
        state.model_copy(deep=True), named, ReplayingDice(faces, SystemDice()), actor_side="alleati"
    )
    applied = g.apply(state, unnamed, ReplayingDice(faces, SystemDice()), actor_side="alleati")
    assert [r.procedure for r in applied.resolutions] == [r.procedure for r in expected.resolutions]


def test_out_of_range_names_the_distance_and_the_reach(state):
    state.queue = ["squadra_1"]
    fire = g.Fire(unit="squadra_1", target="gruppe_1", distance_cm=12, weapon="granate")
    with pytest.raises(RulesError) as caught:
        g.apply(state, fire, ReplayingDice([], SystemDice()), actor_side="alleati")
    assert caught.value.key == "error.manovra.out_of_reach"
    assert caught.value.localized("en") == "Target out of range at 12 cm > 10 cm."
    assert caught.value.localized("fr") == "Cible hors de portée à 12 cm > 10 cm."
