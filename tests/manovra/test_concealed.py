"""A unit concealed from the enemy (Occultarsi, seed 000 line 9) in the turn's sequence: its
IT test and its holding are its side's to read, as its concealed move is."""

from __future__ import annotations

import pytest

from rules.core.seatview import REFEREE, Seat
from rules.manovra import turn as g
from rules.manovra.scenario import load_bundled
from rules.manovra.surface import ManovraPlay
from tests.manovra.test_defects import apply

CONCEALED = "squadra_2"
NAMES = ("squadra_2", "2ª squadra")


@pytest.fixture()
def campo() -> g.ManovraState:
    """esempio_normandia_campo at step 3, the Allies' 2ª squadra concealed on the table."""
    state = g.new_game(load_bundled("esempio_normandia_campo"))
    state.step = g.TurnStep.MANOEUVRE
    state.units[CONCEALED].add("concealed")
    assert state.units[CONCEALED].position is not None
    return state


def _told(resolutions, seat: Seat) -> str:
    return repr([r for r in resolutions if seat.may_read(r.secret_for)])


def test_a_concealed_units_initiative_test_is_its_sides_to_read(campo) -> None:
    """The Axis reads the IT of the units it may know of, in their order; the concealed
    squad is tested all the same, in its place, in an account the Allies alone read."""
    state = apply(campo, g.Declare(platoon="plotone_fucilieri"), "alleati").state
    applied = apply(state, g.PassToken(), "asse", [6, 1, 1])
    assert applied.state.queue == ["squadra_1", "comando_plotone", "squadra_2"]
    public, kept = applied.resolutions
    assert public.secret_for is None and kept.secret_for == "alleati"
    assert [dict(s.params)["unit"] for s in public.steps] == ["1ª squadra", "Comando di plotone"]
    assert [v for _, v in public.outcome.params] == ["squadra_1", "comando_plotone"]
    assert [v for _, v in kept.outcome.params] == applied.state.queue
    enemy = _told(applied.resolutions, Seat("asse"))
    assert not any(name in enemy for name in NAMES)
    for seat in (Seat("alleati"), REFEREE):
        assert "2ª squadra" in _told(applied.resolutions, seat)


def test_a_concealed_units_initiative_die_is_the_bots_though_its_side_typed(campo) -> None:
    """The Allies type their dice for the declaration that rolls the IT: their visible
    units' tests spend them, the concealed squad's is the bot's (a typed face every seat
    reads would tell of it)."""
    campo.first_side = "asse"  # the Allies' declaration comes second: it rolls the IT
    state = apply(campo, g.PassToken(), "asse").state
    applied = apply(state, g.Declare(platoon="plotone_fucilieri"), "alleati", [6, 1], other=[1])
    assert applied.state.queue == ["squadra_1", "comando_plotone", "squadra_2"]


def test_without_a_concealed_unit_the_initiative_is_one_account_for_all(campo) -> None:
    campo.units[CONCEALED].statuses = []
    state = apply(campo, g.Declare(platoon="plotone_fucilieri"), "alleati").state
    applied = apply(state, g.PassToken(), "asse", [6, 1, 1])
    [public] = applied.resolutions
    assert public.secret_for is None and len(public.steps) == 3


def test_a_concealed_unit_that_holds_is_its_sides_to_read(campo) -> None:
    """Holding keeps a unit concealed (only a move without concealing or a plain fire shows
    it, seed line 10): like its concealed move, the command is its side's."""
    rules = ManovraPlay()
    assert rules.secret_side(campo, g.Hold(unit=CONCEALED)) == "alleati"
    assert rules.secret_side(campo, g.Hold(unit="squadra_1")) is None
