"""The work budget: geometry and listings stop past it with a localized refusal, the odds
give up before it, and the area index changes no measurement."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.core import geometry
from rules.core.battlefield import Battlefield, CircleShape, Point, PolygonShape, TerrainArea
from rules.core.budget import CLOCK_EVERY, WorkBudgetExceeded, charge, remaining, work_budget
from rules.core.odds import enumerate_odds
from rules.core.resolution import Outcome

NARROW = "\u202f"


def test_without_a_budget_nothing_is_refused() -> None:
    assert remaining() is None
    for _ in range(10):
        charge(10 * CLOCK_EVERY)


def test_past_the_budget_work_is_refused_in_every_language() -> None:
    with work_budget(0.0), pytest.raises(WorkBudgetExceeded) as caught:
        for _ in range(2):
            charge(CLOCK_EVERY)
    error = caught.value
    assert error.key == "error.budget.exceeded" and error.params == {"ms": 0}
    texts = {language: error.localized(language) for language in ("it", "en", "fr")}
    assert texts["it"].startswith("Questo comando richiede più lavoro")
    assert texts["en"].startswith("This command needs more work than the bot allows")
    assert texts["fr"].startswith("Cette commande demande plus de travail")
    # French typography: a narrow no-break space before the colon and the semicolon.
    assert f"commande{NARROW}:" in texts["fr"] and f"court{NARROW};" in texts["fr"]
    assert "0 ms" in texts["en"] and f"0{NARROW}ms" in texts["fr"]


def test_an_inner_budget_keeps_the_sooner_deadline() -> None:
    with work_budget(0.0):
        with work_budget(60.0):
            assert remaining() == 0.0
        with work_budget(None):
            assert remaining() == 0.0
    assert remaining() is None


def _field(areas: list[TerrainArea], size: float = 100.0) -> Battlefield:
    return Battlefield(width_cm=size, height_cm=size, open_terrain="open", areas=tuple(areas))


def _star(area_id: str, cx: float, cy: float, radius: float, corners: int) -> TerrainArea:
    points = tuple(
        Point(
            x=max(0.0, cx + radius * (1 if i % 2 else 0.6) * math.cos(2 * math.pi * i / corners)),
            y=max(0.0, cy + radius * (1 if i % 2 else 0.6) * math.sin(2 * math.pi * i / corners)),
        )
        for i in range(corners)
    )
    return TerrainArea(
        id=area_id, name=area_id, terrain=f"t{area_id}", shape=PolygonShape(points=points),
        blocks_sight=int(area_id[1:]) % 2 == 0,
    )  # fmt: skip


def test_the_geometry_is_charged_to_the_budget() -> None:
    field = _field([_star(f"a{i}", 50, 50, 40, 64) for i in range(4)])
    with work_budget(0.0), pytest.raises(WorkBudgetExceeded):
        for _ in range(10):
            geometry.line_of_sight(field, Point(x=1, y=1), Point(x=99, y=99))


def test_odds_give_up_before_the_work_budget_instead_of_refusing() -> None:
    from rules.core.dice import D6, DiceTray

    def run(source: object) -> Outcome:
        tray = DiceTray(source)  # type: ignore[arg-type]
        total = sum(tray.roll(D6, f"d{i}").face for i in range(6))
        return Outcome.of("x", total=total)

    with work_budget(0.0):
        odds = enumerate_odds(run, limit=100_000)
    assert not odds.exact


# -- the area index asks fewer areas and answers exactly as asking them all ---------------

coordinate = st.floats(min_value=0, max_value=100, allow_nan=False)
points = st.builds(Point, x=coordinate, y=coordinate)
areas = st.lists(
    st.one_of(
        st.builds(
            lambda i, x, y, r, n: _star(f"a{i}", x, y, r, n),
            st.integers(0, 99), coordinate, coordinate, st.floats(1, 30), st.integers(3, 24),
        ),
        st.builds(
            lambda i, x, y, r: TerrainArea(
                id=f"c{i}",
                name="c",
                terrain="round",
                shape=CircleShape(center=Point(x=x, y=y), radius=r),
            ),
            st.integers(0, 99), coordinate, coordinate, st.floats(0.5, 30),
        ),
    ),
    max_size=12,
    unique_by=lambda area: area.id,
)  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(areas, points, points)
def test_the_area_index_changes_no_answer(found: list[TerrainArea], a: Point, b: Point) -> None:
    field = _field(found)

    def measure() -> tuple[object, ...]:
        return (
            geometry.terrain_at(field, a),
            geometry.path_legs(field, a, b),
            geometry.line_of_sight(field, a, b),
        )

    fast = measure()
    indexed = geometry.areas_at, geometry.areas_along
    # Every area, as before the index: the answers must not change.
    geometry.areas_at = lambda f, p: list(f.areas)  # type: ignore[assignment]
    geometry.areas_along = lambda f, p, q: list(f.areas)  # type: ignore[assignment]
    try:
        slow = measure()
    finally:
        geometry.areas_at, geometry.areas_along = indexed
    assert fast == slow
