"""A heavy weapon's, a flame's or a mine's effect names its casualties with their noun.

The effect's text was "{location}: {status} {n}": the odds read "hull: weapon destroyed 1",
"caisse : arme détruite 1", a count after a noun it did not count. The casualties now
follow the statuses with their noun and its plural, and a text leaves out what the outcome
does not carry (``rules.render.worded_key``).
"""

from __future__ import annotations

import pytest

from rules.core.resolution import Outcome
from rules.manovra import PROCEDURES
from rules.render import odds_lines, outcome_text, worded_key
from tests.core.examples import TANK

_HULL = {"it": "scafo", "en": "hull", "fr": "caisse"}
_WEAPON_DESTROYED = {"it": "arma distrutta", "en": "weapon destroyed", "fr": "arme détruite"}
_ONE = {"it": "1 perdita", "en": "1 casualty", "fr": "1 perte"}
_TWO = {"it": "2 perdite", "en": "2 casualties", "fr": "2 pertes"}


@pytest.mark.parametrize("language", ["it", "en", "fr"])
def test_an_effect_names_its_casualties_with_their_noun(language: str) -> None:
    hull, destroyed = _HULL[language], _WEAPON_DESTROYED[language]
    colon = "\u202f:" if language == "fr" else ":"

    def text(**params: object) -> str:
        outcome = Outcome.of("manovra.heavy.effect", location="scafo", **params)
        return outcome_text("manovra", outcome, language)

    assert text(status="weapon_destroyed", n=1) == f"{hull}{colon} {destroyed}, {_ONE[language]}"
    assert text(status="weapon_destroyed", n=2).endswith(f", {_TWO[language]}")
    assert text(status="weapon_destroyed") == f"{hull}{colon} {destroyed}"
    assert text(n=2) == f"{hull}{colon} {_TWO[language]}"


@pytest.mark.parametrize("language", ["it", "en", "fr"])
def test_the_odds_of_a_heavy_hit_read_naturally(language: str) -> None:
    """The odds of a hit on a tank: no line ends a status with a bare count."""
    procedure = PROCEDURES["heavy_fire"]
    data = {"band": "efficace", "ad": 1, "target": "carro", "calibre_mm": 75, "armour": TANK}
    lines = odds_lines("manovra", (procedure.odds(procedure.parse_input(data)),), language)
    destroyed = _WEAPON_DESTROYED[language]
    assert any(f"{destroyed}, {_ONE[language]}" in line for line in lines), lines
    assert not any(f"{destroyed} 1" in line for line in lines), lines


@pytest.mark.parametrize(
    ("key", "params", "reads"),
    [
        ("manovra.flame.vehicle", {"n": 1}, "1 casualty"),
        ("manovra.flame.vehicle", {}, "No effect"),
        ("manovra.flame.vehicle", {"status": "immobilised", "n": 2}, "immobilised, 2 casualties"),
        ("manovra.obstacle.mine", {"status": "immobilised"}, "Mine: immobilised"),
        ("manovra.obstacle.mine", {}, "Mine: no effect"),
    ],
)
def test_a_flame_or_a_mine_names_only_what_it_did(
    key: str, params: dict[str, object], reads: str
) -> None:
    assert outcome_text("manovra", Outcome.of(key, **params), "en") == reads


def test_an_outcome_carrying_every_parameter_keeps_its_own_key() -> None:
    full = Outcome.of("manovra.heavy.effect", location="scafo", status="destroyed", n=3)
    assert worded_key(full) == "manovra.heavy.effect"
    lacking = Outcome.of("manovra.heavy.effect", location="scafo", status="destroyed")
    assert worded_key(lacking) == "manovra.heavy.effect.no_n"
    assert worded_key(Outcome.of("manovra.flame.vehicle")) == "manovra.flame.vehicle.no_n_status"
