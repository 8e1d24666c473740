"""Shots the dice cannot tell apart share one enumeration of their odds (`direct_fire_odds`):
an area template's rolls at the figures of a squad, one shot at several distances of a band.

What must hold: whatever was enumerated before, the odds a shot gets are exactly those of
its own enumeration, figure numbers included.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.core.dice import DiceTray
from rules.core.odds import enumerate_odds
from rules.core.procedures import clear_odds_cache
from rules.linea_gotica import PROCEDURES
from rules.linea_gotica.model import Quality
from rules.linea_gotica.procedures.fire import (
    DirectFireInput,
    Night,
    TargetKind,
    TargetSpec,
    resolve_direct_fire,
)
from rules.linea_gotica.tables import load_tables

WEAPONS = sorted(
    str(row.id)
    for row in load_tables()["armi_tiro_diretto"].rows
    if row.id and not row.data.get("penetration_by_calibre")
)

SMALL_ARMS = [
    str(row.id)
    for row in load_tables()["armi_tiro_diretto"].rows
    if str(row.id) in WEAPONS and row.data.get("mode") not in ("he", "flame")
]

shots = st.builds(
    DirectFireInput,
    quality=st.sampled_from(list(Quality)),
    weapon=st.sampled_from(WEAPONS),
    distance_cm=st.floats(min_value=0, max_value=250, allow_nan=False).map(lambda d: round(d, 1)),
    night=st.sampled_from(list(Night)),
    prone=st.booleans(),
    target=st.builds(
        TargetSpec,
        kind=st.sampled_from([TargetKind.INFANTRY, TargetKind.SOFT]),
        figure=st.one_of(st.none(), st.integers(min_value=1, max_value=100)),
        unit=st.sampled_from([None, "squadra_1", "gruppe"]),
    ),
)


def own_enumeration(data: DirectFireInput) -> list[tuple[str, int, int]]:
    odds = enumerate_odds(lambda source: resolve_direct_fire(data, DiceTray(source)).outcome)
    return sorted((e.outcome.code, e.numerator, e.denominator) for e in odds.entries)


def shared(data: DirectFireInput) -> list[tuple[str, int, int]]:
    odds = PROCEDURES["direct_fire"].odds(data)
    return sorted((e.outcome.code, e.numerator, e.denominator) for e in odds.entries)


@settings(max_examples=60, deadline=None)
@given(first=shots, second=shots, figure=st.integers(min_value=1, max_value=100))
def test_shared_odds_are_each_shots_own(
    first: DirectFireInput, second: DirectFireInput, figure: int
) -> None:
    clear_odds_cache()
    # The same shot at another figure and a little further: the likeliest to share.
    near = second.model_copy(
        update={
            "distance_cm": round(second.distance_cm + 0.4, 1),
            "target": second.target.model_copy(update={"figure": figure}),
        }
    )
    # And at other bands: the same key there would be wrong odds.
    others = [
        second.model_copy(update={"distance_cm": distance, "target": near.target})
        for distance in (3.0, 15.0, 35.0, 90.0, 200.0)
    ]
    for data in (first, second, near, *others, first):
        assert shared(data) == own_enumeration(data)


def test_the_figures_of_a_squad_share_one_enumeration() -> None:
    clear_odds_cache()
    base = DirectFireInput(
        quality=Quality.REGOLARI,
        weapon="fucile",  # a rifle: 30 cm is its normal range
        distance_cm=30.0,
        target=TargetSpec(kind=TargetKind.INFANTRY, unit="squadra_1", figure=1),
    )
    procedure = PROCEDURES["direct_fire"]
    calls = 0
    original = procedure.resolver

    def counted(data: DirectFireInput, tray: DiceTray):  # type: ignore[no-untyped-def]
        nonlocal calls
        calls += 1
        return original(data, tray)

    object.__setattr__(procedure, "resolver", counted)
    try:
        first = procedure.odds(base)
        paths = calls
        for figure in range(2, 9):
            data = base.model_copy(
                update={
                    "distance_cm": 30.0 + figure / 10,
                    "target": base.target.model_copy(update={"figure": figure}),
                }
            )
            assert shared(data) == own_enumeration(data)
        assert first.entries and calls == paths  # the other seven figures: no new walk
    finally:
        object.__setattr__(procedure, "resolver", original)
