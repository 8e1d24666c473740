"""Each ruleset's declaration (``rules/<key>/commands.yaml``) and its command models agree.

The declaration is what the front ends offer; the command models are what the rules read.
These tests fail when one says something the other does not: a choice the ruleset refuses,
a field the ruleset reads that no option fills, bounds or requiredness that differ.
"""

from __future__ import annotations

import enum
import importlib
import typing
from typing import Any

import annotated_types
import pytest
from pydantic import BaseModel

from rules.core.declaration import (
    Declaration,
    OptionDeclaration,
    ValueType,
    declaration,
    parse_declaration,
)
from rules.core.ending import VERBS as ENDING_VERBS
from rules.core.errors import RulesError
from rules.core.ruleset import KNOWN_RULESETS, get_ruleset

#: Fields a command model has that no player types, and why.
INTERNAL_FIELDS = {
    # /morale is manovra's CT test: the kind is fixed, there is no opponent.
    ("manovra", "morale"): {"kind", "opponent"},
    # Fragments of an indirect-fire marker: calibre and AD come from the marker.
    ("manovra", "fragments"): {"calibre_mm", "ad"},
}
#: Choices that pick another command rather than fill the field (``kind:hold`` holds).
ROUTING_CHOICES = {
    ("manovra", "move", "kind"): {"hold"},
    ("pzgren", "move", "kind"): {"move", "hold"},
}
#: Options the model requires only for one of the commands a routing choice picks
#: (pzgren's ``hex``: where a move goes; ``kind:hold`` needs none).
REQUIRED_WHEN_ROUTED = {("pzgren", "move", "hex")}


def _routing_only(key: str, verb: str, option: OptionDeclaration) -> bool:
    routing = ROUTING_CHOICES.get((key, verb, option.name))
    return routing is not None and set(option.values) <= routing


def _models(key: str) -> dict[str, type[BaseModel]]:
    """The ruleset's command models by their verb."""
    orders = importlib.import_module(f"rules.{key}.orders")
    (union, *_) = typing.get_args(orders.Command)
    return {model.model_fields["verb"].default: model for model in typing.get_args(union)}


def _values(annotation: Any) -> set[str]:
    """The fixed values a field's type allows (a Literal, an Enum, optional or not)."""
    if typing.get_origin(annotation) is typing.Literal:
        return {str(value) for value in typing.get_args(annotation)}
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return {str(member.value) for member in annotation}
    found: set[str] = set()
    for argument in typing.get_args(annotation):
        found |= _values(argument)
    return found


def _bounds(metadata: list[Any], declared_low: float | None) -> tuple[Any, Any]:
    low = high = None
    for item in metadata:
        if isinstance(item, annotated_types.Gt):
            # An exclusive bound (``gt=0``): the declaration's low is just above it.
            assert declared_low is not None and declared_low > item.gt
            low = declared_low
        if isinstance(item, annotated_types.Ge):
            low = item.ge
        if isinstance(item, annotated_types.Le | annotated_types.Lt):
            high = getattr(item, "le", getattr(item, "lt", None))
    return low, high


def _sample(option: OptionDeclaration) -> Any:
    if option.choices:
        return option.choices[0].value
    if option.type is ValueType.BOOLEAN:
        return True
    if option.type in (ValueType.INTEGER, ValueType.NUMBER):
        return int(option.high or 1) if option.high is not None and option.high >= 1 else 1
    return TEXT_SAMPLES.get(option.name, "x")


#: Texts the commands read further (a hex, legs of a move).
TEXT_SAMPLES = {"hex": "3,4", "via": "piano_scoperto:4"}


def _required_options(declared: Any) -> dict[str, Any]:
    return {o.name: _sample(o) for o in declared.options if o.required or o.name == "hex"}


CASES = [(key, verb) for key in KNOWN_RULESETS for verb in declaration(key).verbs]


def test_every_ruleset_declares_its_commands_and_its_scenarios():
    for key in KNOWN_RULESETS:
        declared = declaration(key)
        play = get_ruleset(key).rules
        assert declared.ruleset == key
        assert list(declared.scenarios) == play.scenarios(), key
        # Besides the two verbs that end any game (the core's, rules.core.ending).
        assert set(play.verbs()) - set(ENDING_VERBS) == set(declared.accepted_verbs), key
        for verb in declared.verbs:
            assert play.options_of(verb) == declared.options_of(verb)


@pytest.mark.parametrize(("key", "verb"), CASES, ids=lambda case: str(case))
def test_every_option_the_ruleset_reads_is_declared(key, verb):
    declared = declaration(key).verbs[verb]
    model = _models(key)[declared.command or verb]
    fields = set(model.model_fields) - {"verb"} - INTERNAL_FIELDS.get((key, verb), set())
    filled = {o.field_name for o in declared.options if not _routing_only(key, verb, o)}
    assert fields == filled, (key, verb, fields ^ filled)


@pytest.mark.parametrize(("key", "verb"), CASES, ids=lambda case: str(case))
def test_declared_bounds_choices_and_requiredness_are_the_models(key, verb):
    declared = declaration(key).verbs[verb]
    model = _models(key)[declared.command or verb]
    for option in declared.options:
        if _routing_only(key, verb, option):
            continue
        info = model.model_fields[option.field_name]
        if (key, verb, option.name) not in REQUIRED_WHEN_ROUTED:
            assert option.required == info.is_required(), (key, verb, option.name)
        low, high = _bounds(info.metadata, option.low)
        if option.type in (ValueType.INTEGER, ValueType.NUMBER):
            assert (low, high) == (option.low, option.high) or low is high is None, (
                key,
                verb,
                option.name,
                (low, high),
            )
        allowed = _values(info.annotation)
        if allowed or option.choices:
            routing = ROUTING_CHOICES.get((key, verb, option.name), set())
            assert set(option.values) - routing == allowed, (key, verb, option.name)


@pytest.mark.parametrize(("key", "verb"), CASES, ids=lambda case: str(case))
def test_every_declared_choice_and_alias_is_accepted(key, verb):
    module = importlib.import_module(f"rules.{key}.commands")
    declared = declaration(key).verbs[verb]
    base = _required_options(declared)
    module.build_command(verb, base)
    for option in declared.options:
        for choice in option.choices:
            for spelling in (choice.value, choice.value.upper(), *choice.aliases):
                module.build_command(verb, {**base, option.name: spelling})
        if not option.choices:
            module.build_command(verb, {**base, option.name: _sample(option)})
    with pytest.raises(RulesError) as refused:
        module.build_command(verb, {**base, "not_an_option": "1"})
    assert refused.value.key == "error.unknown_option"


def test_a_choice_the_ruleset_lacks_is_refused_with_its_own_choices():
    module = importlib.import_module("rules.w40k4.commands")
    with pytest.raises(RulesError) as refused:
        module.build_command("fire", {"unit": "a", "target": "b", "facing": "fianco"})
    assert refused.value.key == "error.option.not_a_choice"
    assert refused.value.params["known"] == "front, side, rear"
    # linea_gotica reads the English words of older logs as its own.
    gotica = importlib.import_module("rules.linea_gotica.commands")
    command = gotica.build_command("fire", {"unit": "a", "target": "b", "facing": "side"})
    assert command.facing == "fianco"


def test_a_number_outside_the_declared_bounds_is_refused_with_the_bound():
    module = importlib.import_module("rules.w40k4.commands")
    with pytest.raises(RulesError) as refused:
        module.build_command("move", {"unit": "a", "distance": 60})
    assert (refused.value.key, refused.value.params["limit"]) == ("error.option.too_big", "48")


HEAD = "ruleset: x\nmeasure: cm\nscenarios: [a]\n"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("verbs: {}", "measure"),
        (HEAD + "verbs: {move: {options: [{name: a}, {name: a}]}}", "twice"),
        (HEAD + "verbs: {move: {options: [{name: a, type: integer}]}}", "low and high"),
        (HEAD + "verbs: {move: {options: [{name: a, choices: [b, B]}]}}", "spelt twice"),
        (HEAD.replace("cm", "yards") + "verbs: {move: {}}", "measure"),
        (HEAD + "verbs: {odds: {}}", "not a verb"),
        (HEAD + "verbs: {move: {options: [{name: Bad}]}}", "name"),
    ],
)
def test_a_wrong_declaration_is_refused_when_loaded(text, problem):
    with pytest.raises(ValueError) as refused:
        parse_declaration(text, "toy.yaml")
    assert "toy.yaml" in str(refused.value) and problem in str(refused.value)


def test_a_declaration_reads_the_options_it_declares():
    toy = parse_declaration(
        "ruleset: toy\nmeasure: inch\nscenarios: [duel]\nverbs:\n"
        "  fire:\n    options:\n"
        "      - {name: unit, required: true}\n"
        "      - {name: arc, choices: [{value: front, aliases: [fronte]}, rear]}\n"
        "      - {name: range, field: range_in, type: number, low: 0, high: 36}\n",
        "toy.yaml",
    )
    assert isinstance(toy, Declaration)
    assert toy.accepted_verbs == ("fire", "odds")
    assert toy.read("odds", {"unit": "a", "arc": "FRONTE", "range": 12, "dice": None}) == (
        "fire",
        {"unit": "a", "arc": "front", "range_in": 12},
    )
    for options, key in [
        ({"unit": "a", "arc": "side"}, "error.option.not_a_choice"),
        ({"unit": "a", "range": 40}, "error.option.too_big"),
        ({"unit": "a", "weapon": "x"}, "error.unknown_option"),
    ]:
        with pytest.raises(RulesError) as refused:
            toy.read("fire", options)
        assert refused.value.key == key
    with pytest.raises(RulesError):
        toy.read("move", {})
