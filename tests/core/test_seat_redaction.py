"""Noninterference of the seat views: for every bundled scenario with units hidden from the
start, what a seat that may not see them reads — the status, the picture, the score, its
legal actions, the names it is offered — is the same when those units are removed or moved
(tests/core/hidden_worlds.py). Their own side and the referee do tell the worlds apart."""

from __future__ import annotations

from pathlib import Path

import pytest

from rules.core import ending
from rules.core.battlefield import Point
from rules.core.dice import ScriptedDice
from rules.core.errors import RulesError
from rules.core.game import Applied
from rules.core.ruleset import get_ruleset
from rules.core.score import Ending, EndingKind
from rules.core.seatview import REFEREE, SPECTATOR, Seat, SeatView
from rules.core.surface import Rules
from rules.linea_gotica import victory as lg_victory
from rules.linea_gotica.commands import build_command
from rules.linea_gotica.surface import PLAY as LINEA_GOTICA
from rules.manovra.state import TurnStep
from rules.manovra.surface import PLAY as MANOVRA
from tests.core.hidden_worlds import hidden_scenarios, owners, worlds

SCENARIOS = hidden_scenarios()
#: The names a seat is offered for autocomplete, of every kind a hidden unit could be in.
KINDS = ("unit", "target", "place", "destination", "marker", "weapon")


def _rules(ruleset: str) -> Rules:
    rules: Rules = get_ruleset(ruleset).rules
    return rules


def readings(view: SeatView) -> dict[str, object]:
    """Everything a seat view tells its reader."""
    return {
        "status": view.status,
        "map": view.map("en"),
        "score": view.score,
        "legal": view.legal,
        "follow_ups": view.follow_ups,
        **{f"names:{kind}": view.names(kind) for kind in KINDS},
    }


def test_every_ruleset_scenario_with_hidden_units_is_checked() -> None:
    assert {path.name for _, path in SCENARIOS} >= {
        "esempio_gotica.yaml",
        "esempio_gotica_campo.yaml",
        "gotica_retroguardia.yaml",
    }


@pytest.mark.parametrize(("ruleset", "path"), SCENARIOS, ids=lambda p: getattr(p, "stem", p))
def test_a_seat_cannot_tell_hidden_units_from_none(ruleset: str, path: Path) -> None:
    rules = _rules(ruleset)
    documents = {name: rules.setup(None, text) for name, text in worlds(path).items()}
    sides = list(rules.view(documents["as_written"], SPECTATOR).status.sides)
    hiding = owners(path)
    readers = [SPECTATOR, *(Seat(side) for side in sides if side not in hiding)]
    assert len(readers) > 1
    for seat in readers:
        seen = {name: readings(rules.view(doc, seat)) for name, doc in documents.items()}
        for world in ("removed", "moved"):
            for part, value in seen["as_written"].items():
                assert seen[world][part] == value, (seat, world, part)
    # The hidden side and the referee see them: the worlds differ for them.
    for seat in (REFEREE, *(Seat(side) for side in hiding)):
        shown = {name: rules.view(doc, seat).status for name, doc in documents.items()}
        assert shown["removed"] != shown["as_written"] != shown["moved"], seat


def test_a_hidden_units_shot_is_its_sides_secret() -> None:
    """A shot that leaves its unit hidden (a sniper's) is played for its side alone: the
    channel is told only what it may see (bot/service/play.py)."""
    play = LINEA_GOTICA
    state = play._load_state(play.setup("esempio_gotica_campo"))
    shot = build_command("fire", {"unit": "cecchino", "target": "squadra_1"})
    assert play.secret_side(state, shot) == "tedeschi"
    state.units["cecchino"].hidden = False  # seen: its shots are everyone's
    assert play.secret_side(state, shot) is None
    open_shot = build_command("fire", {"unit": "gruppe", "target": "squadra_1"})
    assert play.secret_side(state, open_shot) is None


def test_the_public_order_of_manoeuvre_names_no_concealed_unit() -> None:
    play = MANOVRA
    state = play._load_state(play.setup("esempio_normandia_campo"))
    squad = state.units["squadra_2"]
    assert squad.position is not None
    state.queue = ["squadra_2", "squadra_1"]
    shown = play._document(state)
    assert "2ª squadra" in str(play.view(shown, SPECTATOR).status.notes)
    squad.add("concealed")
    hidden = play._document(state)
    for seat in (SPECTATOR, Seat("asse")):
        notes = str(play.view(hidden, seat).status.notes)
        assert "2ª squadra" not in notes and "1ª squadra" in notes, seat
    for seat in (REFEREE, Seat("alleati")):
        assert "2ª squadra" in str(play.view(hidden, seat).status.notes), seat


def test_an_objective_a_hidden_unit_held_at_a_stated_turn_stays_unknown_to_the_enemy() -> None:
    """The hairpin of gotica_retroguardia scores at the end of turns 4 and 8: held then by
    the hidden MG alone, the enemy's and the spectator's scores read it as in the world
    without the MG until the game ends; the end reveals it (the result is everyone's)."""
    play = LINEA_GOTICA
    path = next(path for _, path in SCENARIOS if path.stem == "gotica_retroguardia")
    documents = {}
    for world in ("as_written", "removed"):
        state = play._load_state(play.setup(None, worlds(path)[world]))
        for unit in state.units.values():  # the units in sight off the hairpin
            if unit.side == "tedeschi" and not unit.hidden:
                state.positions[unit.id] = Point(x=170, y=115)
        if "mg_casolare" in state.units:
            state.positions["mg_casolare"] = Point(x=95, y=88)  # within 15 cm of the hairpin
        state.turn = 4
        lg_victory.turn_over(state, Applied(state))
        documents[world] = play._document(state)
    hairpin = "victory.line.objective.held_at"
    for seat in (SPECTATOR, Seat("alleati")):
        seen = {world: play.view(doc, seat).score for world, doc in documents.items()}
        assert seen["as_written"] == seen["removed"], seat
        assert not any(line.text.key == hairpin for line in seen["as_written"].lines)
    for seat in (REFEREE, Seat("tedeschi")):
        score = play.view(documents["as_written"], seat).score
        assert any(line.text.key == hairpin and line.side == "tedeschi" for line in score.lines)
    # The end: the result, everyone's, counts the hairpin held.
    state = play._load_state(documents["as_written"])
    ending.conclude(state, lg_victory.battle(state), Ending(EndingKind.TURN_LIMIT, 8))
    ended = play._document(state)
    for seat in (SPECTATOR, Seat("alleati")):
        assert any(line.side == "tedeschi" for line in play.view(ended, seat).score.lines)


def test_a_manoeuvre_out_of_turn_names_no_concealed_unit_to_the_enemy() -> None:
    """The Axis acting while a concealed Allied squad is next in the order of manoeuvre is
    told whose side's turn it is, not which unit's."""
    play = MANOVRA
    state = play._load_state(play.setup("esempio_normandia_campo"))
    axis = next(unit.id for unit in state.units.values() if unit.side == "asse" and unit.position)
    state.step = TurnStep.MANOEUVRE
    state.queue = ["squadra_2", axis]
    refusals = {}
    for concealed in (False, True):
        if concealed:
            state.units["squadra_2"].add("concealed")
        with pytest.raises(RulesError) as refused:
            play.act(
                play._document(state), Seat.of("asse"), "move", {"unit": axis, "kind": "hold"}, None
            )
        refusals[concealed] = refused.value.localized("en")
    assert "2nd Squad" in refusals[False]  # the reader's words for the unit
    spellings = ("2ª squadra", "2nd Squad", "2e escouade")
    assert not any(name in refusals[True] for name in spellings) and "Allies" in refusals[True]


def test_what_a_hidden_unit_owes_is_owed_to_no_other_seat() -> None:
    """gotica_retroguardia: covering fire on the bell tower near-misses the hidden sniper as
    it shoots (a sniper's shot keeps it hidden), and it owes a morale test. The Germans and
    the referee read it owed, with its button; the Allies and a spectator read nothing
    owed naming it."""
    rules = _rules("linea_gotica")
    document = rules.setup("gotica_retroguardia")

    def act(side: str, verb: str, options: dict[str, object], *faces: int) -> None:
        nonlocal document
        dice = ScriptedDice(list(faces) or [1] * 80)
        document = rules.act(document, Seat(side), verb, options, dice).document

    act("alleati", "turn.next", {}, 8, 3)  # the Allies win the initiative
    act("alleati", "turn.next", {"order": "first"})
    cover = {"unit": "sherman", "kind": "copertura", "target": "campanile"}
    act("alleati", "fire", {**cover, "weapon": "browning_30"})
    for side in ("alleati", "tedeschi") * 3:  # covering fire, movement, observation
        act(side, "turn.next", {})
    act("tedeschi", "fire", {"unit": "cecchino", "target": "squadra_1", "weapon": "k98_zf"})
    morale = {"unit": "cecchino"}
    for seat in (Seat("tedeschi"), REFEREE):
        view = rules.view(document, seat)
        assert [a.options for a in view.owed] == [morale], seat
        assert [f.options for f in view.follow_ups] == [morale], seat
    for seat in (Seat("alleati"), SPECTATOR):
        view = rules.view(document, seat)
        assert view.owed == [] and view.follow_ups == [], seat
