"""linea_gotica: rolls nobody owes, a repeated /turn next, and two rules of the
seed (004) the bot did not keep — each test quotes the line it follows."""

from __future__ import annotations

import pytest

from rules.core.dice import ScriptedDice
from rules.core.errors import RulesError
from rules.core.seatview import REFEREE, Seat
from rules.linea_gotica import turn as g
from rules.linea_gotica.state import PendingMorale, Phase
from rules.linea_gotica.surface import PLAY
from tests.linea_gotica.conftest import gotica_without_field
from tests.linea_gotica.test_game import Game


@pytest.fixture()
def esempio() -> Game:
    return Game(g.new_game(gotica_without_field()))


def _fire_phase(esempio: Game) -> None:
    """The fire phase of turn 1, the Allies first (the referee moves the steps on)."""
    esempio.to_phase(Phase.FIRE, first="alleati")


# -- 3. A morale test nobody owes --------------------------------------------------------------


def test_a_morale_test_nobody_owes_is_refused_naming_what_is_owed_and_by_whom(esempio):
    _fire_phase(esempio)
    esempio.refused("error.linea_gotica.no_morale_owed", "morale", "alleati", unit="squadra_1")
    # Through the play interface the refusal names what is owed now and by whom.
    esempio.state.pending = [PendingMorale(unit="gruppe", figure=2, reasons=["soldato_ucciso"])]
    document = PLAY._document(esempio.state)
    with pytest.raises(RulesError) as caught:
        PLAY.act(document, Seat.of("alleati"), "morale", {"unit": "squadra_1"}, ScriptedDice([]))
    assert caught.value.key == "error.linea_gotica.no_morale_owed"
    text = caught.value.localized("en")
    assert text.startswith("Unit 1st Rifle Squad owes no morale test")
    assert "Owed now: Morale of Gruppe Müller (Germans)." in text
    # A test a trigger calls for (reason:) is owed by that trigger: it is rolled.
    applied = esempio("morale", "alleati", [1] * 8, unit="squadra_1", reason="soldato_ucciso")
    assert applied.resolutions


# -- 4. /turn next again by a side that has ended its step ----------------------------------


@pytest.mark.parametrize("phase", [Phase.OBSERVE_MOVE, Phase.FIRE, Phase.OBSERVE_FIRE])
def test_a_side_that_ended_its_step_cannot_end_it_again(esempio, phase):
    """The report: the side that had finished its class sent /turn next again and again, each
    accepted silently and stored (400 events in one test)."""
    esempio.to_phase(phase, first="alleati")
    if phase is Phase.FIRE:
        while "alleati" in esempio.state.done:  # a class where the Allies have someone to act
            esempio("turn.next", "tedeschi")
    esempio("turn.next", "alleati")
    if esempio.state.phase is not phase:
        pytest.skip("the step closed at once")  # both sides were done
    before = esempio.state.model_dump(mode="json")
    esempio.refused("error.linea_gotica.step_done", "turn.next", "alleati")
    assert esempio.state.model_dump(mode="json") == before
    assert not any(
        a.verb == "turn.next" and a.side == "alleati"
        for a in PLAY.view(PLAY._document(esempio.state), REFEREE).every_legal
    )
    with pytest.raises(RulesError) as caught:
        esempio("turn.next", "alleati")
    assert caught.value.localized("en") == (
        "This step is already ended for Allies: waiting for Germans."
    )
    # The other side still ends its own.
    esempio("turn.next", "tedeschi")


# -- 6. A leaderless squad whose survivors are all shocked --------------------------------------


def test_shocked_survivors_take_over_a_dead_leaders_squad(esempio):
    """Seed 004 line 80: "lanciare 1d10 all'inizio di ogni turno: se uguale o inferiore alla
    Qualità della squadra/sezione uno dei superstiti assume il ruolo di caposquadra" — shocked
    soldiers are survivors: the squad rolls."""
    squad = esempio.unit("squadra_1")
    squad.figures[0].dead = True  # the leader
    for figure in squad.figures[1:]:
        figure.shocked_until = esempio.state.turn  # every survivor shocked this turn
    assert squad.leaderless
    # The squad's d10 (1: passed), then both initiative dice.
    applied = esempio("turn.next", None, [1, 9, 1])
    assert [r.procedure for r in applied.resolutions] == ["action", "initiative"]
    assert not esempio.unit("squadra_1").leaderless
    assert esempio.unit("squadra_1").figure(2).role == "leader"


# -- 7. Covering fire is the unit's activity for the turn ---------------------------------------


def test_a_unit_that_gave_covering_fire_does_not_fire_in_the_next_fire_phase(esempio):
    """Seed 004 line 154: "ogni unità può svolgere una sola attività durante un turno (quindi
    le unità che abbiano già sparato con un tiro di copertura durante la fase di movimento
    dell'avversario **non** potranno sparare nuovamente durante la successiva fase di tiro, e
    non potranno muovere)"."""
    esempio.to_phase(Phase.COVERING, first="alleati")
    esempio("fire", "alleati", unit="squadra_1", target="siepe", kind="copertura", weapon="bar")
    # While the covering step lasts, the squad's other automatic weapon may join it.
    esempio(
        "fire", "alleati", unit="squadra_1", target="casolare", kind="copertura", weapon="thompson"
    )
    esempio("turn.next", "alleati")
    esempio("turn.next", "tedeschi")
    esempio.refused(
        "error.linea_gotica.already_acted", "move", "alleati", unit="squadra_1", distance=5
    )
    esempio.to_phase(Phase.FIRE, first="alleati")
    while esempio.state.fire_class != 1:  # Veterani: the squad's class
        for side in list(esempio.state.sides):
            if side not in esempio.state.done:
                esempio("turn.next", side)
    for weapon in ("garand", "bar"):
        esempio.refused(
            "error.linea_gotica.already_acted",
            "fire",
            "alleati",
            unit="squadra_1",
            target="gruppe",
            distance=30,
            weapon=weapon,
        )
    esempio.refused(
        "error.linea_gotica.already_acted", "test", "alleati", unit="squadra_1", kind="scavare"
    )
    listed = PLAY.view(PLAY._document(esempio.state), REFEREE).every_legal
    assert not [a for a in listed if a.unit == "squadra_1" and a.verb in ("fire", "test")]
