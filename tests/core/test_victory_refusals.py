"""Bad victory data is refused at load, naming its line: an objective off the table or on no
hex, a side or unit that does not exist, levels that overlap or cannot be reached, points
that cannot add up, an extension die that is not a die, a sudden death the ruleset cannot
tell."""

from __future__ import annotations

import re
from importlib import resources

import pytest

from rules.core.errors import InvalidInput
from rules.core.scenario import ScenarioReferenceError
from rules.core.victory import Dialect, VictoryConditions, VictoryContext, check_victory
from rules.linea_gotica.scenario import parse_scenario as parse_gotica
from rules.manovra.scenario import parse_scenario as parse_manovra
from rules.pzgren.scenario import parse_scenario as parse_pzgren
from rules.w40k4.scenario import parse_scenario as parse_w40k4


def _bundled(package: str, name: str) -> str:
    return (resources.files(package) / "scenarios" / f"{name}.yaml").read_text("utf-8")


def _without_victory(text: str) -> str:
    """The scenario text up to its victory section (every bundled one ends with it)."""
    cut = re.search(r"^(# Victory.*\n)*victory:\n", text, re.M)
    assert cut is not None
    return text[: cut.start()]


NORMANDIA = _without_victory(_bundled("rules.manovra", "esempio_normandia_campo"))
NORMANDIA_PLAIN = _without_victory(_bundled("rules.manovra", "esempio_normandia"))
ARDENNES = _without_victory(_bundled("rules.pzgren", "exemple_ardennes"))


def _refusal(parse, text: str, victory: str) -> tuple[int, str]:  # type: ignore[no-untyped-def]
    """Parse ``text`` + ``victory``; the refused line, counted within ``victory`` (1-based),
    and the detail."""
    with pytest.raises(InvalidInput) as caught:
        parse(text + victory, "test.yaml")
    error = caught.value
    assert error.key == "error.scenario.invalid_line", error.params
    line = int(error.params["line"]) - text.count("\n")
    return line, str(error.params["detail"])


def _check(parse, text: str, victory: str, line: int, words: str) -> None:  # type: ignore[no-untyped-def]
    found, detail = _refusal(parse, text, victory)
    assert found == line, (found, detail)
    assert words in detail, detail


@pytest.mark.parametrize(
    ("victory", "line", "words"),
    [
        (  # a named point the battlefield does not have
            "victory:\n  objectives:\n    - {id: f, name: F, area: fattoria}\n"
            "    - {id: m, name: M, point: mulino}\n",
            4,
            "'mulino' is not a named point",
        ),
        (
            "victory:\n  objectives:\n    - {id: f, name: F, area: palude}\n",
            3,
            "'palude' is not a terrain area",
        ),
        (  # hexes on a measured table
            "victory:\n  objectives:\n    - {id: f, name: F, hexes: ['1,1']}\n",
            3,
            "this table has no hexes",
        ),
        (
            "victory:\n  objectives:\n    - {id: f, name: F, point: crocevia, area: fattoria}\n",
            3,
            "exactly one of point, area or hexes",
        ),
        (
            "victory:\n  objectives:\n    - {id: f, name: F, area: fattoria}\n"
            "    - {id: f, name: G, point: crocevia}\n",
            4,
            "used twice",
        ),
        (
            "victory:\n  losses:\n    - {side: alleati, destroyed: 1}\n"
            "    - {side: russi, destroyed: 1}\n",
            4,
            "unknown side 'russi'",
        ),
        (
            "victory:\n  exits:\n    - side: alleati\n      edge: north\n"
            "      units: [squadra_1, panzer_iv]\n",
            5,
            "'panzer_iv' is not a unit of alleati",
        ),
        (
            "victory:\n  objectives:\n    - {id: f, name: F, area: fattoria, points: 3}\n"
            "  sudden_death:\n    - {kind: objective, objective: g, side: alleati}\n",
            5,
            "unknown objective 'g'",
        ),
        (  # levels that overlap
            "victory:\n  objectives:\n    - {id: f, name: F, area: fattoria, points: 3}\n"
            "  levels: {marginal: 3, decisive: 3}\n",
            4,
            "levels overlap",
        ),
        (  # a decisive margin larger than all the points there are
            "victory:\n  objectives:\n    - {id: f, name: F, area: fattoria, points: 3}\n"
            "  levels:\n    marginal: 1\n    decisive: 4\n",
            6,
            "the points cannot add up",
        ),
        (
            "victory:\n  end:\n    extension: {die: D7x, at_least: 4}\n",
            3,
            "is not a die",
        ),
        (
            "victory:\n  end:\n    extension:\n      die: D6\n      at_least: 7\n",
            5,
            "at_least 7 on a D6",
        ),
        (
            "victory:\n  losses:\n    - {side: asse, share: 50}\n",
            3,
            "share and share_points go together",
        ),
    ],
)
def test_bad_victory_data_is_refused_with_its_line(victory: str, line: int, words: str):
    _check(parse_manovra, NORMANDIA, victory, line, words)


def test_an_objective_needs_a_battlefield():
    victory = "victory:\n  objectives:\n    - {id: f, name: F, point: crocevia}\n"
    _check(parse_manovra, NORMANDIA_PLAIN, victory, 3, "needs a battlefield")
    exits = "victory:\n  exits:\n    - {side: alleati, edge: north}\n"
    _check(parse_manovra, NORMANDIA_PLAIN, exits, 3, "an exit needs a battlefield")


def test_an_objective_hex_off_the_map_is_refused():
    victory = (
        "victory:\n  objectives:\n    - name: Loin\n      id: loin\n      hexes: ['7,3', '12,3']\n"
    )
    _check(parse_pzgren, ARDENNES, victory, 5, "hex '12,3' is not on the map")
    badly = "victory:\n  objectives:\n    - {id: v, name: V, hexes: ['7 3']}\n"
    _check(parse_pzgren, ARDENNES, badly, 3, "as q,r")
    area = "victory:\n  objectives:\n    - {id: v, name: V, area: bois}\n"
    _check(parse_pzgren, ARDENNES, area, 3, "on a hex map an objective is hexes")


def test_a_sudden_death_the_ruleset_cannot_tell_is_refused():
    with pytest.raises(InvalidInput) as unknown:
        parse_w40k4(
            _without_victory(_bundled("rules.w40k4", "avamposto_campo"))
            + "victory:\n  sudden_death:\n    - {kind: routed}\n",
            "test.yaml",
        )
    assert "sudden_death.0.kind" in str(unknown.value.params["detail"])
    narrow = Dialect("toy", strength="models", sudden_death=frozenset({"wiped_out"}))
    rules = VictoryConditions.model_validate({"sudden_death": [{"kind": "broken"}]})
    with pytest.raises(ScenarioReferenceError) as refused:
        check_victory(rules, VictoryContext(narrow, {"a": ["a1"], "b": ["b1"]}))
    assert refused.value.location == ("victory", "sudden_death", 0, "kind")


def test_every_ruleset_checks_its_victory_section():
    gotica = _without_victory(_bundled("rules.linea_gotica", "esempio_gotica_campo"))
    victory = "victory:\n  objectives:\n    - {id: p, name: P, point: mulino}\n"
    _check(parse_gotica, gotica, victory, 3, "'mulino' is not a named point")
    w40k = _without_victory(_bundled("rules.w40k4", "avamposto_campo"))
    _check(parse_w40k4, w40k, victory, 3, "'mulino' is not a named point")
