"""Noninterference of the seat views: for every bundled scenario with units hidden from the
start, what a seat that may not see them reads — the status, the picture, the score, its
legal actions, the names it is offered — is the same when those units are removed or moved
(tests/core/hidden_worlds.py). Their own side and the referee do tell the worlds apart."""

from __future__ import annotations

from pathlib import Path

import pytest

from rules.core.ruleset import get_ruleset
from rules.core.seatview import REFEREE, SPECTATOR, Seat, SeatView
from rules.core.surface import Rules
from rules.linea_gotica.commands import build_command
from rules.linea_gotica.surface import PLAY as LINEA_GOTICA
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
    state = play._load_state(play.new_game("esempio_gotica_campo", None))
    shot = build_command("fire", {"unit": "cecchino", "target": "squadra_1"})
    assert play.secret_side(state, shot) == "tedeschi"
    state.units["cecchino"].hidden = False  # seen: its shots are everyone's
    assert play.secret_side(state, shot) is None
    open_shot = build_command("fire", {"unit": "gruppe", "target": "squadra_1"})
    assert play.secret_side(state, open_shot) is None


def test_the_public_order_of_manoeuvre_names_no_concealed_unit() -> None:
    play = MANOVRA
    state = play._load_state(play.new_game("esempio_normandia_campo", None))
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
