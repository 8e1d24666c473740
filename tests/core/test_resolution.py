"""Resolution value objects: outcome codes, comparisons, JSON round trip."""

from __future__ import annotations

import json

import pytest

from rules.core.dice import ScriptedDice
from rules.core.resolution import (
    Comparison,
    Effect,
    EffectKind,
    Odds,
    OddsEntry,
    Outcome,
    Resolution,
    Threshold,
)
from rules.core.words import Words, in_language
from rules.manovra import PROCEDURES
from rules.render import effect_text


def test_outcome_codes():
    assert Outcome.of("manovra.test.passed", test="CT").code == "manovra.test.passed(test=CT)"
    assert Outcome.of("x", a=1, b=None, c="z").code == "x(a=1,c=z)"
    assert Outcome.of("x").code == "x"
    assert Outcome.of("x", n=2).param("n") == 2
    assert Outcome.of("x").param("n", 7) == 7


@pytest.mark.parametrize(
    ("comparison", "total", "threshold", "holds"),
    [
        (">=", 7, 7, True),
        (">=", 6, 7, False),
        (">", 7, 7, False),
        (">", 8, 7, True),
        ("<=", 7, 7, True),
        ("<=", 8, 7, False),
        ("<", 6, 7, True),
        ("<", 7, 7, False),
    ],
)
def test_comparisons(comparison: str, total: int, threshold: int, holds: bool):
    assert Comparison(comparison).holds(total, threshold) is holds
    assert Threshold(Comparison(comparison), threshold).passed(total) is holds


def test_odds_lookups():
    odds = Odds((OddsEntry(Outcome.of("a"), 1, 4), OddsEntry(Outcome.of("b"), 3, 4)), 4)
    assert odds.as_mapping() == {"a": 0.25, "b": 0.75}
    assert odds.probability("b") == 0.75
    assert odds.probability("c") == 0.0


def test_resolution_json_round_trip():
    procedure = PROCEDURES["heavy_fire"]
    data = procedure.parse_input(
        {
            "band": "efficace",
            "ad": 1,
            "target": "carro",
            "calibre_mm": 75,
            "armour": {"scafo": 5},
        }
    )
    resolution = procedure.resolve(data, ScriptedDice([4, 7, 3], by_hand=True))
    payload = json.loads(json.dumps(resolution.to_json()))
    assert payload["outcome_code"] == resolution.outcome.code
    assert payload["odds_map"] == resolution.odds.as_mapping()
    again = Resolution.from_json(payload)
    assert again == resolution
    assert all(roll.by_hand for roll in again.rolls)
    assert [roll.face for roll in again.rolls] == [4, 7, 3]


def test_effects_carry_their_targets_names_through_the_json_and_ids_only_without_one():
    effects = (
        Effect(EffectKind.CASUALTIES, "killed", target="carro", amount=2),
        Effect(EffectKind.STATUS, "pinned", target="no_name"),
    )
    resolution = Resolution("manovra", "fire", (), Outcome.of("x"), effects)
    named = resolution.naming_targets({"carro": Words("Carro", {"en": "Tank", "fr": "Char"})})
    assert [effect.name for effect in named.effects] == ["Carro", None]
    assert effect_text("manovra", named.effects[0], "en").startswith("Tank, ")
    assert effect_text("manovra", named.effects[1], "en").startswith("[no_name] ")
    again = Resolution.from_json(json.loads(json.dumps(named.to_json())))
    assert [effect.name for effect in again.effects] == ["Carro", None]
    assert resolution.naming_targets({"other": "Other"}) is resolution


def test_a_name_parameter_is_stored_with_its_languages_and_plain_ones_as_before() -> None:
    side = Words("Alleati", {"it": "Alleati", "en": "Allies", "fr": "Alliés"})
    outcome = Outcome.of("x.won", side=side, n=3, unit="plain")
    resolution = Resolution("x", "p", (), outcome)
    stored = resolution.to_json()
    assert stored["outcome"]["params"] == [
        ["side", dict(side.translations)],
        ["n", 3],
        ["unit", "plain"],
    ]
    assert stored["outcome_code"] == "x.won(side=Alleati,n=3,unit=plain)"
    back = Resolution.from_json(json.loads(json.dumps(stored)))
    named = back.outcome.param("side")
    assert isinstance(named, Words) and in_language(named, "en") == "Allies"
    assert back.outcome.code == outcome.code and back == resolution
    # A parameter stored before (a plain text) reads back as it was.
    older = {**stored, "outcome": {"key": "x.won", "params": [["side", "Alleati"]]}}
    assert Resolution.from_json(older).outcome.params == (("side", "Alleati"),)


def test_an_effect_s_target_name_is_stored_with_its_languages() -> None:
    mob = Words("Banda di predoni", {"it": "Banda di predoni", "en": "Raider Mob"})
    effect = Effect(EffectKind.CASUALTIES, "killed", target="banda", amount=9, name=mob)
    resolution = Resolution("w40k4", "shooting", (), Outcome.of("x"), effects=(effect,))
    back = Resolution.from_json(json.loads(json.dumps(resolution.to_json())))
    (stored,) = back.effects
    assert stored.name is not None and in_language(stored.name, "en") == "Raider Mob"
    assert "Raider Mob" in effect_text("w40k4", stored, "en")
    # One stored before, a plain text, and none at all read back as they were.
    plain = {**resolution.to_json()}
    plain["effects"] = [{**plain["effects"][0], "name": "Banda di predoni"}]
    assert Resolution.from_json(plain).effects[0].name == "Banda di predoni"
    assert Resolution.from_json({**plain, "effects": [{**plain["effects"][0], "name": None}]})
