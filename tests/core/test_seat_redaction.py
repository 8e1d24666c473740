"""Noninterference of the seat views: for every bundled scenario with units hidden from the
start, what a seat that may not see them reads — the status, the picture, the score, its
legal actions, the names it is offered — is the same when those units are removed or moved
(tests/core/hidden_worlds.py). Their own side and the referee do tell the worlds apart."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from rules.core import ending
from rules.core.battlefield import Point
from rules.core.dice import Die, ScriptedDice
from rules.core.errors import RulesError
from rules.core.game import Applied
from rules.core.legal import LegalAction
from rules.core.ruleset import get_ruleset
from rules.core.score import Ending, EndingKind
from rules.core.seatview import REFEREE, SPECTATOR, Seat, SeatView
from rules.core.surface import Rules
from rules.linea_gotica import victory as lg_victory
from rules.linea_gotica.commands import build_command
from rules.linea_gotica.surface import PLAY as LINEA_GOTICA
from rules.manovra.state import TurnStep
from rules.manovra.surface import PLAY as MANOVRA
from tests.core.hidden_worlds import hidden_scenarios, owners, without_hidden_now, worlds
from tests.fuzz.harness import fill_options

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


def test_a_hidden_squads_new_leader_is_told_to_no_other_seat() -> None:
    """esempio_gotica_campo with the leaders of the Allies' first squad and of the hidden
    MG dead: the ``/turn next`` that rolls the initiative rolls for both new leaders first.
    The Allies and a spectator read of it what they read in the world without the hidden
    units (the visible squad's roll and the initiative); the Germans and the referee read
    the MG's roll and its new leader too."""
    rules = _rules("linea_gotica")
    path = next(path for _, path in SCENARIOS if path.stem == "esempio_gotica_campo")
    faces = {"as_written": [10, 1, 8, 3], "removed": [10, 8, 3]}  # the MG's passes
    played = {}
    for world, text in worlds(path).items():
        if world not in faces:
            continue
        state = LINEA_GOTICA._load_state(rules.setup(None, text))
        for unit in ("squadra_1", "mg_casolare"):
            if unit in state.units:
                state.units[unit].figures[0].dead = True
        document = LINEA_GOTICA._document(state)
        dice = ScriptedDice(faces[world])
        played[world] = rules.act(document, Seat("alleati"), "turn.next", {}, dice)
        dice.ensure_consumed()
    for reader in (SPECTATOR, Seat("alleati")):
        seen = {world: result.read_by(reader) for world, result in played.items()}
        assert seen["as_written"] == seen["removed"], reader
        resolutions, notices = seen["as_written"]
        assert [r.outcome.key for r in resolutions] == [
            "linea_gotica.action.failed",
            "linea_gotica.initiative.won",
        ]
        assert notices == []
    for reader in (REFEREE, Seat("tedeschi")):
        resolutions, notices = played["as_written"].read_by(reader)
        assert [r.secret_for for r in resolutions] == [None, "tedeschi", None], reader
        assert [(n.key, n.param("figure")) for n in notices] == [
            ("linea_gotica.turn.new_leader", 2)
        ], reader


#: Commands played forward in each scenario, and the seed of their choices and dice: enough
#: for several turns' movement, observation and fire steps, in a few seconds.
FORWARD_COMMANDS = 150
FORWARD_SEED = 4
#: Besides every ``/turn next``, the readings are compared after one command in this many.
CHECK_EVERY = 6


class DiceByLabel:
    """Fair faces drawn per label: a die one world rolls for a unit the other lacks (a hidden
    squad's new leader, before the initiative) takes no face from the rolls both share."""

    def __init__(self, seed: int) -> None:
        self._seed = seed
        self._rolled: dict[str, int] = {}

    def face(self, die: Die, label: str) -> int:
        """The ``n``-th face for ``label`` in this command."""
        n = self._rolled[label] = self._rolled.get(label, 0) + 1
        return random.Random(f"{self._seed}:{label}:{n}").randint(1, die.sides)

    @property
    def by_hand(self) -> bool:
        """Never typed by a player."""
        return False


def _hidden_now(rules: Rules, document: dict[str, object]) -> dict[str, str]:
    """The units hidden now, with their sides."""
    units = rules.view(document, REFEREE).status.units
    return {unit.id: unit.side for unit in units if unit.hidden}


def _forward_choice(actions: list[LegalAction], rng: random.Random) -> LegalAction:
    """Owed actions first; otherwise pass one time in three (the steps move on), else act."""
    owed = [a for a in actions if a.owed]
    if owed:
        return rng.choice(owed)
    passes = [a for a in actions if a.verb == "turn.next"]
    acting = [a for a in actions if a.verb not in ("turn.next", "odds")]
    if passes and (not acting or rng.random() < 0.35):
        return rng.choice(passes)
    return rng.choice(acting)


@pytest.mark.parametrize(("ruleset", "path"), SCENARIOS, ids=lambda p: getattr(p, "stem", p))
def test_a_seat_cannot_tell_hidden_units_from_none_as_the_game_goes_on(
    ruleset: str, path: Path
) -> None:
    """The game played forward with legal commands: before each command every seat may see,
    a side's units then hidden are taken off (tests/core/hidden_worlds.py); the command is
    played in both worlds with the same dice, and the other seats read the same after it —
    the steps, whose move it is, what is owed, the legal actions, the picture, the score.
    The command's result too: the resolutions and notices they may read. A command naming a
    hidden unit is its side's secret (played in the game only); one that reveals a hidden
    unit (an observation) is not compared."""
    rules = _rules(ruleset)
    document = rules.setup(None, worlds(path)["as_written"])
    sides = list(rules.view(document, REFEREE).status.sides)
    rng = random.Random(FORWARD_SEED)
    compared: set[str] = set()
    for step in range(FORWARD_COMMANDS):
        whole = rules.view(document, REFEREE)
        if whole.status.ended:
            break
        hidden = _hidden_now(rules, document)
        action = _forward_choice(list(whole.legal), rng)
        options = fill_options(action, rng)
        seat = REFEREE if action.side is None else Seat(action.side)
        played = rules.act(document, seat, action.verb, options, DiceByLabel(step))
        secret = bool(set(hidden) & {str(value) for value in options.values()})
        # Compared after each step ends (where the leaks of the steps were), and now and then.
        checked = action.verb == "turn.next" or step % CHECK_EVERY == 0
        if checked and not secret and _hidden_now(rules, played.document) == hidden:
            where = f"step {step}: [{seat}] /{action.verb} {options}"
            for owner in set(hidden.values()):
                other = without_hidden_now(ruleset, document, owner)
                try:
                    without = rules.act(other, seat, action.verb, options, DiceByLabel(step))
                except RulesError as error:
                    refused = f"{where}: refused without {owner}'s hidden units: {error}"
                    raise AssertionError(refused) from None
                if without.document.get("ended") and not played.document.get("ended"):
                    continue  # their last units: the game goes on for them (a sudden death)
                for reader in (SPECTATOR, *(Seat(side) for side in sides if side != owner)):
                    seen = readings(rules.view(played.document, reader))
                    unseen = readings(rules.view(without.document, reader))
                    # What the command's result tells it (a hidden squad's new leader, at
                    # the initiative's /turn next, is its side's).
                    seen["result"], unseen["result"] = (
                        played.read_by(reader),
                        without.read_by(reader),
                    )
                    for part, value in seen.items():
                        assert unseen[part] == value, (where, owner, reader, part)
                compared.add(str(whole.status.phase))
        document = played.document
    # The game went through the fire phase's class steps, compared there.
    assert len(compared) >= 4, compared
