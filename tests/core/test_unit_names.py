"""Unit names in the game's language: a bundled scenario names its units in Italian, English
and French (a French w40k4 game listed "Squadra tattica"), a player types a unit by its
name in any of them, a unit hidden from the seat is not found by its name, an uploaded
scenario's plain names keep working, and a game stored with plain names reads as before."""

from __future__ import annotations

import json
import random
import re
from importlib import resources
from pathlib import Path

import pytest

from rules.core.errors import RulesError
from rules.core.legal import LegalAction
from rules.core.play import DocumentRules
from rules.core.ruleset import KNOWN_RULESETS, get_ruleset
from rules.core.scenario import bundled_files
from rules.core.seatview import REFEREE, Seat
from rules.core.words import in_language
from rules.core.yamlio import load_yaml
from tests.core.hidden_worlds import hidden_scenarios
from tests.fuzz.harness import SeededDice
from tests.fuzz.harness import fill_options as fill
from tests.rulesets import UnitName, fact

LANGUAGES = ("it", "en", "fr")
NAMED = [(key, fact(key, "BATTLEFIELD"), fact(key, "UNIT_NAME")) for key in KNOWN_RULESETS]


def _play(ruleset: str) -> DocumentRules:
    play = get_ruleset(ruleset).rules
    assert isinstance(play, DocumentRules)
    return play


def _pieces(sides: list[dict]) -> list[dict]:
    """Every named piece of a scenario's sides: units, platoons and their units, batteries."""
    found = []
    for side in sides:
        for part in ("units", "platoons", "supports"):
            for piece in side.get(part, []):
                found += [piece, *piece.get("units", [])]
    return found


@pytest.mark.parametrize("ruleset", KNOWN_RULESETS)
def test_every_bundled_units_name_is_in_three_languages_or_a_proper_name(ruleset: str) -> None:
    """A name given in languages gives all three; a plain one is the same in every language
    (an equipment's or a German unit's: "StuG III", "Gruppe Müller")."""
    translated = 0
    for scenario_id, path in bundled_files(f"rules.{ruleset}").items():
        for piece in _pieces(load_yaml(path.read_text("utf-8"))["sides"]):
            name = piece["name"]
            if isinstance(name, dict):
                assert set(name) == set(LANGUAGES), (scenario_id, piece["id"])
                translated += 1
            else:
                assert re.search(r"[A-Z0-9]", name), (scenario_id, name)  # a proper name
    assert translated >= 4


@pytest.mark.parametrize(("ruleset", "scenario", "named"), NAMED)
def test_a_status_carries_a_units_name_in_every_language(
    ruleset: str, scenario: str, named: UnitName
) -> None:
    play = _play(ruleset)
    document = play.setup(scenario)
    assert document["units"][named.unit]["name"] == dict(zip(LANGUAGES, named.name, strict=True))
    line = next(u for u in play.view(document, REFEREE).status.units if u.id == named.unit)
    for language, expected in zip(LANGUAGES, named.name, strict=True):
        assert in_language(line.name, language) == expected


def _naming(play: DocumentRules, document: dict, named: UnitName) -> tuple[dict, LegalAction]:
    """The game, played on by its first legal actions (the initiative, the next phase) until
    the unit's side may give an order naming the unit (``unit:``), and that order."""
    rng = random.Random(7)
    for _ in range(30):
        legal = play.view(document, REFEREE).legal
        for action in legal:
            if action.side == named.side and action.options.get("unit") == named.unit:
                return document, action
        first = legal[0]
        seat = Seat.of(first.side) if first.side else REFEREE
        options = fill(first, rng)
        document = play.act(document, seat, first.verb, options, SeededDice(rng)).document
    raise AssertionError(f"no order names {named.unit}")


@pytest.mark.parametrize(("ruleset", "scenario", "named"), NAMED)
def test_a_unit_typed_by_its_name_in_any_language_plays_as_by_its_id(
    ruleset: str, scenario: str, named: UnitName
) -> None:
    play = _play(ruleset)
    document, action = _naming(play, play.setup(scenario), named)
    options = fill(action, random.Random(3))
    seat = Seat.of(named.side)
    by_id = play.act(document, seat, action.verb, options, SeededDice(random.Random(5)))
    for spelled in (*named.name, named.name.fr.upper()):
        typed = {**options, "unit": spelled}
        played = play.act(document, seat, action.verb, typed, SeededDice(random.Random(5)))
        assert played.document == by_id.document, spelled


@pytest.mark.parametrize(("ruleset", "scenario", "named"), NAMED)
def test_an_unknown_name_is_left_as_typed_for_the_rulesets_refusal(
    ruleset: str, scenario: str, named: UnitName
) -> None:
    play = _play(ruleset)
    state = play._load_state(play.setup(scenario))
    seat = Seat.of(named.side)
    assert play.by_id(state, seat, "move", {"unit": "Nobody"}) == {"unit": "Nobody"}
    assert play.by_id(state, seat, "move", {"unit": named.name.en}) == {"unit": named.unit}


def test_a_unit_hidden_from_the_seat_is_not_found_by_its_name() -> None:
    """A concealed squad is no name the enemy may type: its name in any language is left
    as typed (then refused as any unknown name), as for a unit that is not there."""
    play = _play("manovra")
    state = play._load_state(play.setup("esempio_normandia_campo"))
    typed = {"unit": "gruppe_1", "target": "2nd Squad"}
    assert play.by_id(state, Seat.of("asse"), "fire", typed)["target"] == "squadra_2"
    state.units["squadra_2"].add("concealed")
    for name in ("2ª squadra", "2nd Squad", "2e escouade"):
        typed = {"unit": "gruppe_1", "target": name}
        assert play.by_id(state, Seat.of("asse"), "fire", typed)["target"] == name
        assert play.by_id(state, REFEREE, "fire", typed)["target"] == "squadra_2"
        assert play.by_id(state, Seat.of("alleati"), "move", {"unit": name}) == {
            "unit": "squadra_2"
        }


@pytest.mark.parametrize(
    ("ruleset", "path"), hidden_scenarios(), ids=[p.stem for _, p in hidden_scenarios()]
)
def test_no_bundled_hidden_unit_is_found_by_its_name_by_a_seat_it_is_hidden_from(
    ruleset: str, path: Path
) -> None:
    """linea_gotica's plain status is the public one: the sniper hidden from the Allies was
    missing from it, so "Sniper" (or "Cecchino") was read as the sniper's id and the odds
    answered "Sniper has not been spotted" where an unknown name is answered "Unknown unit".
    Every bundled scenario with hidden units, every seat they are hidden from, every
    language of their names: left as typed, as a name nobody has."""
    play = _play(ruleset)
    state = play._load_state(play.setup(path.stem))
    every = play.seat_status(state, REFEREE).units
    sides = {unit.side for unit in every}
    checked = 0
    for unit in every:
        for side in sorted(sides):
            seat = Seat.of(side)
            if seat.may_see(unit) and unit.id in {
                u.id for u in play.seat_status(state, seat).units
            }:
                continue
            for language in ("it", "en", "fr"):
                name = in_language(unit.name, language)
                for option in ("unit", "target"):
                    typed = {option: name}
                    assert play.by_id(state, seat, "fire", typed) == typed, (unit.id, name)
                    checked += 1
    assert checked


@pytest.mark.parametrize(("ruleset", "scenario", "named"), NAMED)
def test_an_uploaded_scenarios_plain_unit_name_reads_as_given(
    ruleset: str, scenario: str, named: UnitName
) -> None:
    text = (resources.files(f"rules.{ruleset}") / "scenarios" / f"{scenario}.yaml").read_text(
        "utf-8"
    )
    spelled = re.escape(named.name.it)
    text, count = re.subn(
        r"name: \{it: \"" + spelled + r"\"[^}]*\}", 'name: "Squadra del circolo"', text
    )
    assert count >= 1
    play = _play(ruleset)
    document = play.setup(None, text)
    assert document["units"][named.unit]["name"] == "Squadra del circolo"  # a string stays
    line = next(u for u in play.view(document, REFEREE).status.units if u.id == named.unit)
    assert {in_language(line.name, language) for language in LANGUAGES} == {"Squadra del circolo"}
    state = play._load_state(document)
    typed = {"unit": "squadra del circolo"}
    assert play.by_id(state, Seat.of(named.side), "move", typed) == {"unit": named.unit}


@pytest.mark.parametrize(("ruleset", "scenario", "named"), NAMED)
def test_a_game_stored_with_plain_unit_names_reads_as_before(
    ruleset: str, scenario: str, named: UnitName
) -> None:
    """A game started before units had their languages stored the Italian name as a string:
    it reads as it was, and the ruleset writes it back the same."""
    play = _play(ruleset)
    document = json.loads(json.dumps(play.setup(scenario)))
    document["units"][named.unit]["name"] = named.name.it
    assert play.canonical(document)["units"][named.unit]["name"] == named.name.it
    line = next(u for u in play.view(document, REFEREE).status.units if u.id == named.unit)
    assert in_language(line.name, "en") == named.name.it
    document, action = _naming(play, document, named)
    options = {**fill(action, random.Random(3)), "unit": named.name.it}
    play.act(document, Seat.of(named.side), action.verb, options, SeededDice(random.Random(5)))


@pytest.mark.parametrize(
    ("ruleset", "scenario", "verb", "option", "typed", "found"),
    [
        (
            "manovra",
            "esempio_normandia",
            "manoeuvre.declare",
            "platoon",
            "Tank Platoon",
            "plotone_carri",
        ),
        (
            "manovra",
            "esempio_normandia",
            "callarty",
            "battery",
            "Batterie de 105 (hors table)",
            "batteria_105",
        ),
        ("linea_gotica", "esempio_gotica", "callarty", "battery", "105 mm Battery", "batteria_105"),
    ],
)
def test_a_platoon_or_a_battery_is_typed_by_its_name_too(
    ruleset: str, scenario: str, verb: str, option: str, typed: str, found: str
) -> None:
    play = _play(ruleset)
    state = play._load_state(play.setup(scenario))
    assert play.by_id(state, REFEREE, verb, {option: typed})[option] == found


def test_several_units_are_typed_by_their_names_together() -> None:
    """pzgren's fire takes several units, comma-separated: each by its id or any name."""
    play = _play("pzgren")
    state = play._load_state(play.setup("exemple_ardennes"))
    typed = {"unit": "1st Rifle Platoon, Chasseur de chars M10,us_mortar", "target": "de_pzgren_1"}
    assert play.by_id(state, Seat.of("us"), "fire", typed)["unit"] == "us_rifle_1,us_m10,us_mortar"
    untouched = {"unit": "us_rifle_1,nobody", "target": "de_pzgren_1"}
    assert play.by_id(state, Seat.of("us"), "fire", untouched) == untouched


@pytest.mark.parametrize(("ruleset", "scenario", "named"), NAMED)
def test_a_refusal_names_the_unit_in_the_readers_language(
    ruleset: str, scenario: str, named: UnitName
) -> None:
    """The enemy ordering the unit (by its id or its French name) is told it is not theirs,
    the unit named in each reader's language."""
    play = _play(ruleset)
    document, action = _naming(play, play.setup(scenario), named)
    enemy = Seat.of(next(side for side in play.sides(document) if side != named.side))
    for typed in (named.unit, named.name.fr):
        options = {**fill(action, random.Random(3)), "unit": typed}
        with pytest.raises(RulesError) as refused:
            play.act(document, enemy, action.verb, options, SeededDice(random.Random(5)))
        assert refused.value.key == f"error.{ruleset}.not_your_unit"
        for language, name in zip(LANGUAGES, named.name, strict=True):
            assert name in refused.value.localized(language), (typed, language)
        assert named.name.it not in refused.value.localized("en")
