"""Scenario limits on what costs time: refused at load, naming the file and the line, in
every language; the bundled scenarios and the largest accepted one load."""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path
from types import ModuleType

import pytest

from rules.core import scenario as limits
from rules.core.errors import InvalidInput
from rules.core.ruleset import KNOWN_RULESETS, get_ruleset
from rules.linea_gotica.scenario import parse_scenario as parse_gotica
from rules.manovra.scenario import parse_scenario as parse_manovra
from rules.pzgren.scenario import parse_scenario as parse_pzgren
from rules.w40k4.scenario import parse_scenario as parse_w40k4

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "bench_availability.py"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_availability_limits", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BENCH = _bench()


def _refused(parse: object, text: str, key: str) -> InvalidInput:
    with pytest.raises(InvalidInput) as caught:
        parse(text, "upload.yaml")  # type: ignore[operator]
    error = caught.value
    assert error.key == key, error.localized("en")
    for language in ("it", "en", "fr"):
        message = error.localized(language)
        assert message.startswith("upload.yaml") and "error." not in message, message
        assert str(error.params["line"]) in message
    return error


def _line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_a_480_unit_upload_is_refused_at_once_naming_the_unit_past_the_limit() -> None:
    text = BENCH.manovra(1, 480, 6, 200, 0)
    started = time.perf_counter()
    error = _refused(parse_manovra, text, "error.scenario.limit.units_per_side")
    assert time.perf_counter() - started < 2.0
    assert error.params["found"] == 480 and error.params["limit"] == limits.MAX_UNITS_PER_SIDE
    assert error.params["line"] == _line_of(text, f"id: ass{limits.MAX_UNITS_PER_SIDE},")
    assert "480" in error.localized("en") and "60 per side" in error.localized("en")


def test_units_in_all() -> None:
    text = BENCH.manovra(50, 60, 1, 4, 0)  # 60 a side is allowed, 110 in all is not
    error = _refused(parse_manovra, text, "error.scenario.limit.units")
    assert error.params["found"] == 110
    assert error.params["line"] == _line_of(text, "id: ass50,")


def test_models_in_all() -> None:
    text = BENCH.manovra(30, 1, 1, 4, 0).replace("models: 10,", "models: 100,")
    _refused(parse_manovra, text, "error.scenario.limit.models")


def test_terrain_areas_corners_and_named_points() -> None:
    many_areas = BENCH.manovra(1, 1, limits.MAX_AREAS + 1, 4, 0)
    error = _refused(parse_manovra, many_areas, "error.scenario.limit.areas")
    assert error.params["line"] == _line_of(many_areas, f"id: area{limits.MAX_AREAS},")
    wiggly = BENCH.w40k4(1, 1, 2, limits.MAX_CORNERS_PER_AREA + 2, 0)
    error = _refused(parse_w40k4, wiggly, "error.scenario.limit.corners_per_area")
    assert error.params["area"] == "area0"
    assert error.params["line"] == _line_of(wiggly, "id: area0,")
    corners = BENCH.linea_gotica(1, 1, 20, 60, 0)  # 1,200 corners in all
    error = _refused(parse_gotica, corners, "error.scenario.limit.corners")
    assert error.params["found"] == 1200
    points = BENCH.manovra(1, 1, 1, 4, limits.MAX_POINTS + 1)
    error = _refused(parse_manovra, points, "error.scenario.limit.points")
    assert error.params["line"] == _line_of(points, f"point{limits.MAX_POINTS}:")


def test_pzgren_counts_its_units_too() -> None:
    text = BENCH.pzgren(40, 40, 0, 0, 0)
    parse_pzgren(text, "upload.yaml")  # 80 units: within MAX_UNITS


@pytest.mark.parametrize("ruleset", KNOWN_RULESETS)
def test_the_largest_accepted_scenario_loads(ruleset: str) -> None:
    play = get_ruleset(ruleset).rules
    assert play is not None
    text = BENCH.scenarios(ruleset)["largest accepted"]
    document = play.setup(None, text)
    assert len(document["units"]) == (100 if ruleset == "manovra" else 80)


@pytest.mark.parametrize("ruleset", KNOWN_RULESETS)
def test_the_bundled_scenarios_stay_far_within_the_limits(ruleset: str) -> None:
    play = get_ruleset(ruleset).rules
    assert play is not None
    for scenario_id in play.scenarios():
        document = play.setup(scenario_id)
        assert len(document["units"]) * 5 <= limits.MAX_UNITS
