"""pzgren procedures at their boundaries: every column modifier, the caps, per-unit columns,
the legend's effects, the anti-tank formula and modifiers, and the morale check."""

from __future__ import annotations

from typing import Any

import pytest

from rules.core.dice import ScriptedDice
from rules.core.errors import InvalidInput
from rules.core.resolution import EffectKind, Resolution
from rules.pzgren import PROCEDURES
from rules.pzgren.tables import load_tables
from tests.pzgren.test_tables import COLUMN_MODIFIERS

LABELS = ["1", "2", "4", "7", "11", "16", "22", "30", "45+"]


def resolve(name: str, data: dict[str, Any], faces: tuple[int, ...]) -> Resolution:
    procedure = PROCEDURES[name]
    return procedure.resolve(procedure.parse_input(data), ScriptedDice(faces))


def direct(faces: tuple[int, int], fire_value: int, *modifiers: str, **extra: Any) -> Resolution:
    return resolve(
        "direct_fire", {"fire_value": fire_value, "modifiers": list(modifiers), **extra}, faces
    )


def cell(roll: int, label: str) -> str:
    table = load_tables()["tir_direct"]
    column = next(c for c in table.columns if c.label == label)
    return table.cell(table.row_for("jet", roll), column)


def effects(resolution: Resolution, kind: EffectKind) -> list[tuple[str, str | None, dict]]:
    return [(e.key, e.target, dict(e.params)) for e in resolution.effects if e.kind is kind]


# -- the table read ----------------------------------------------------------------------------


@pytest.mark.parametrize("faces", [(1, 1), (3, 4), (6, 6), (2, 3)])
@pytest.mark.parametrize("fire_value", [1, 3, 5, 9, 13, 18, 25, 40, 60])
def test_no_modifier_reads_the_fire_value_column(faces, fire_value):
    table = load_tables()["tir_direct"]
    result = direct(faces, fire_value)
    label = table.column_for(fire_value).label
    column = result.steps[1]
    assert column.table is not None and column.table.column == label
    assert column.table.row == str(sum(faces))
    assert column.table.cell == cell(sum(faces), label)
    assert column.total == 0 and column.modifiers == ()
    assert result.outcome.code == f"pzgren.direct.result(result={cell(sum(faces), label)})"
    assert [r.face for r in result.rolls] == list(faces)


@pytest.mark.parametrize(("key", "value"), sorted(COLUMN_MODIFIERS.items()))
def test_every_column_modifier_shifts_by_its_value(key, value):
    # fire value 11 is the 5th column: -2 … +3 all stay on the table
    result = direct((1, 1), 11, key)
    step = result.steps[1]
    assert [(m.key, m.value) for m in step.modifiers] == [(f"pzgren.mod.{key}", value)]
    assert step.total == value
    expected = LABELS[4 + value]
    assert step.table is not None and step.table.column == expected
    assert step.table.cell == cell(2, expected)


def test_modifiers_are_cumulative():
    result = direct((2, 2), 7, "night", "opportunity", "marsh")  # -1 +1 +1
    step = result.steps[1]
    assert step.total == 1 and step.table.column == "11" and step.table.cell == cell(4, "11")


def test_the_net_shift_is_capped_at_minus_two():
    result = direct((1, 1), 30, "town_woods", "entrenchment", "night", "hill")  # -6
    step = result.steps[1]
    assert step.total == -2 and step.table.column == "16"
    assert step.modifiers[-1].key == "pzgren.mod.cap" and step.modifiers[-1].value == 4
    assert sum(m.value for m in step.modifiers) == -2


def test_the_net_shift_is_capped_at_plus_three():
    result = direct((1, 1), 2, "artillery", "adjacent_all", "opportunity", "cavalry", "marsh")
    step = result.steps[1]
    assert step.total == 3 and step.table.column == "11"
    assert step.modifiers[-1].key == "pzgren.mod.cap" and step.modifiers[-1].value == -4


def test_the_caps_are_reached_without_a_correction():
    assert direct((1, 1), 30, "town_woods").steps[1].modifiers[-1].key != "pzgren.mod.cap"
    up = direct((1, 1), 2, "artillery", "opportunity").steps[1]
    assert up.total == 3 and all(m.key != "pzgren.mod.cap" for m in up.modifiers)


def test_the_cap_is_applied_after_summing():
    # +2 +2 +1 -1 -1 = +3: nothing to cap although the positives alone exceed +3
    step = direct((1, 1), 2, "artillery", "adjacent_all", "marsh", "night", "hill").steps[1]
    assert step.total == 3 and all(m.key != "pzgren.mod.cap" for m in step.modifiers)


def test_entrenchment_in_town_or_woods():
    step = direct((1, 1), 30, "entrenchment_town_woods").steps[1]
    assert step.total == -1
    both = direct((1, 1), 30, "entrenchment_town_woods", "town_woods").steps[1]
    assert both.total == -2  # -1 -2 = -3, capped
    with pytest.raises(InvalidInput):
        direct((1, 1), 30, "entrenchment", "entrenchment_town_woods")


def test_shifts_past_the_edges_clamp():
    left = direct((1, 1), 1, "town_woods").steps[1]
    assert left.total == -2 and left.table.column == "1" and left.table.cell == "M"
    right = direct((1, 1), 45, "artillery", "opportunity").steps[1]
    assert right.total == 3 and right.table.column == "45+" and right.table.cell == "3X"


@pytest.mark.parametrize(
    "data",
    [
        {"fire_value": 0},
        {"fire_value": 1000},
        {"fire_value": 5, "modifiers": ["nope"]},
        {"fire_value": 5, "modifiers": ["night", "night"]},
        {"fire_value": 5, "units": [{"id": "a"}, {"id": "a"}]},
        {"fire_value": 5, "units": [{"id": "a", "modifiers": ["night"]}]},
        {
            "fire_value": 5,
            "modifiers": ["artillery"],
            "units": [{"id": "a", "modifiers": ["artillery"]}],
        },
        {"fire_value": 5, "extra": 1},
    ],
)  # fmt: skip
def test_bad_direct_fire_inputs(data):
    with pytest.raises(InvalidInput):
        PROCEDURES["direct_fire"].parse_input(data)


# -- separate columns for unit-specific modifiers ------------------------------------------


def test_unit_specific_modifiers_are_resolved_on_separate_columns():
    units = [
        {"id": "inf"},
        {"id": "art", "modifiers": ["artillery"]},
        {"id": "mor", "modifiers": ["mortar_aa_at", "dug_in"]},
        {"id": "cav", "modifiers": ["cavalry"]},
        {"id": "inf2"},
    ]
    result = direct((5, 5), 7, "night", units=units, hex="4,4")  # one roll: 10
    assert len(result.rolls) == 2
    columns = result.steps[1:]
    assert [(s.outcome.param("units"), s.total, s.table.column) for s in columns] == [
        ("inf, inf2", -1, "4"),
        ("cav", 0, "7"),
        ("art", 1, "11"),
        ("mor", -1, "4"),  # -1 night -1 dug in +1 mortar
    ]
    assert [s.table.cell for s in columns] == [
        cell(10, "4"),
        cell(10, "7"),
        cell(10, "11"),
        cell(10, "4"),
    ]
    assert (
        result.outcome.code
        == "pzgren.direct.result(result=inf, inf2: M · cav: M · art: M1 · mor: M)"
    )
    owed = effects(result, EffectKind.TEST_OWED)
    assert [(k, t) for k, t, _ in owed] == [
        ("M", "inf"), ("M", "inf2"), ("M", "cav"), ("M1", "art"), ("M", "mor")
    ]  # fmt: skip


def test_one_group_names_no_units_in_the_outcome():
    result = direct((1, 1), 1, units=[{"id": "a"}, {"id": "b"}])
    assert result.outcome.code == "pzgren.direct.result(result=M)"


# -- the legend ----------------------------------------------------------------------------------

HEX = [
    {"id": "inf"},
    {"id": "truck", "category": "transport"},
    {"id": "sdkfz", "armour": "open"},
    {"id": "tiger", "armour": "closed"},
]


def test_m_checks_the_units_without_armour_only():
    result = direct((1, 1), 2, units=HEX, hex="3,3")  # row 2, column 2: M1
    assert result.steps[1].table.cell == "M1"
    assert effects(result, EffectKind.TEST_OWED) == [
        ("M1", "inf", {"n": 1}),
        ("M1", "truck", {"n": 1}),
    ]
    assert effects(result, EffectKind.DAMAGE) == []


def test_plain_m_adds_nothing():
    result = direct((1, 1), 1, units=[{"id": "inf"}])
    assert effects(result, EffectKind.TEST_OWED) == [("M", "inf", {"n": 0})]


def test_x_steps_per_category_and_morale_m_or_m2():
    result = direct((1, 1), 7, units=HEX, hex="3,3")  # row 2, column 7: X
    assert result.steps[1].table.cell == "X"
    assert effects(result, EffectKind.DAMAGE) == [
        ("steps_combat_1", "3,3", {"category": "combat", "units": "inf,sdkfz"}),
        ("steps_transport_1", "3,3", {"category": "transport", "units": "truck"}),
    ]
    assert [e.amount for e in result.effects if e.kind is EffectKind.DAMAGE] == [1, 1]
    assert effects(result, EffectKind.TEST_OWED) == [
        ("M2", "inf", {"n": 2}),
        ("M2", "truck", {"n": 2}),
        ("M2", "sdkfz", {"n": 2}),
        ("M", "tiger", {"n": 0}),
    ]


def test_2x_needs_an_open_top_afv_to_take_a_step():
    result = direct((1, 1), 16, units=HEX, hex="3,3")  # row 2, column 16: 2X
    assert result.steps[1].table.cell == "2X"
    damage = effects(result, EffectKind.DAMAGE)
    assert damage[0] == (
        "steps_combat_2",
        "3,3",
        {"category": "combat", "units": "inf,sdkfz", "open_top": "sdkfz"},
    )
    assert damage[1][2] == {"category": "transport", "units": "truck"}


def test_absent_categories_are_ignored():
    result = direct((1, 1), 30, units=[{"id": "tiger", "armour": "closed"}])  # 3X
    assert effects(result, EffectKind.DAMAGE) == []  # closed-top AFVs take no steps
    assert effects(result, EffectKind.TEST_OWED) == [("M", "tiger", {"n": 0})]
    transport_only = direct((1, 1), 30, units=[{"id": "wagon", "category": "transport"}])
    assert [k for k, _, _ in effects(transport_only, EffectKind.DAMAGE)] == ["steps_transport_3"]


# -- anti-tank ---------------------------------------------------------------------------------


def anti_tank(faces: tuple[int, int], **data: Any) -> Resolution:
    return resolve("anti_tank", {"at_value": 5, "armour": 3, **data}, faces)


@pytest.mark.parametrize(
    ("faces", "outcome"),
    [
        ((3, 4), "pzgren.at.no_effect"),  # 7 + 5 - 3 = 9
        ((4, 4), "pzgren.at.step_lost(left=1)"),  # 10
        ((6, 4), "pzgren.at.step_lost(left=1)"),  # 12
        ((6, 5), "pzgren.at.eliminated"),  # 13
        ((1, 1), "pzgren.at.no_effect"),
    ],
)
def test_anti_tank_boundaries(faces, outcome):
    result = anti_tank(faces, steps=2, target="t")
    assert result.outcome.code == outcome
    assert result.steps[0].total == sum(faces) + 5 - 3


def test_a_step_lost_owes_m2_if_the_target_survives():
    result = anti_tank((4, 4), steps=2, target="t")
    assert [(e.kind, e.key, e.target, e.amount) for e in result.effects] == [
        (EffectKind.DAMAGE, "step_loss", "t", 1),
        (EffectKind.TEST_OWED, "M2", "t", None),
    ]
    last = anti_tank((4, 4), steps=1, target="t")
    assert last.outcome.code == "pzgren.at.last_step"
    assert [(e.kind, e.key) for e in last.effects] == [(EffectKind.STATUS, "eliminated")]
    gone = anti_tank((6, 6), steps=3, target="t")
    assert [(e.kind, e.key) for e in gone.effects] == [(EffectKind.STATUS, "eliminated")]


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("moved", -1),
        ("opportunity", -1),
        ("dug_in_or_town_woods", -1),
        ("higher_hill", -1),
        ("range_over_5", -1),
        ("adjacent", 1),
        ("river_engineers", 1),
        ("flank", 2),
    ],
)
def test_every_anti_tank_modifier(key, value):
    result = anti_tank((3, 3), modifiers=[key])
    step = result.steps[0]
    assert (step.modifiers[-1].key, step.modifiers[-1].value) == (f"pzgren.atmod.{key}", value)
    assert step.total == 6 + 5 - 3 + value


def test_anti_tank_modifiers_have_no_cap():
    everything = ["moved", "opportunity", "dug_in_or_town_woods", "higher_hill", "range_over_5"]
    assert anti_tank((6, 6), modifiers=everything).steps[0].total == 12 + 2 - 5
    boosts = ["adjacent", "river_engineers", "flank"]
    assert anti_tank((1, 1), modifiers=boosts).steps[0].total == 2 + 2 + 4


def test_trucks_count_armour_minus_one():
    result = resolve("anti_tank", {"at_value": 3, "target_kind": "truck"}, (3, 3))
    step = result.steps[0]
    assert [(m.key, m.value) for m in step.modifiers] == [
        ("pzgren.mod.at_value", 3),
        ("pzgren.mod.truck_armour", 1),
    ]
    assert step.total == 10 and result.outcome.code == "pzgren.at.last_step"


@pytest.mark.parametrize(
    "data",
    [
        {"at_value": 5},
        {"at_value": 5, "target_kind": "truck", "armour": 2},
        {"at_value": 5, "armour": 2, "modifiers": ["flank", "flank"]},
        {"at_value": 5, "armour": 2, "modifiers": ["night"]},
        {"at_value": 31, "armour": 2},
    ],
)
def test_bad_anti_tank_inputs(data):
    with pytest.raises(InvalidInput):
        PROCEDURES["anti_tank"].parse_input(data)


# -- morale (not in the seed) --------------------------------------------------------------


@pytest.mark.parametrize(
    ("faces", "n", "passed"),
    [
        ((3, 4), 0, True),
        ((4, 4), 0, False),
        ((2, 3), 2, True),
        ((3, 3), 2, False),
        ((6, 6), 0, False),
    ],
)
def test_morale_at_or_below_the_rating_passes(faces, n, passed):
    result = resolve("morale", {"morale": 7, "n": n, "target": "u"}, faces)
    step = result.steps[0]
    assert step.total == sum(faces) + n
    assert step.threshold.value == 7 and step.threshold.comparison.value == "<="
    assert result.outcome.key == ("pzgren.morale.passed" if passed else "pzgren.morale.failed")
    assert step.params == (("check", "M" if n == 0 else f"M{n}"),)


@pytest.mark.parametrize(
    ("status", "after"),
    [("good_order", "disrupted"), ("disrupted", "demoralized"), ("demoralized", "demoralized")],
)
def test_a_failed_check_worsens_the_state_as_the_table_says(status, after):
    result = resolve("morale", {"morale": 6, "status": status, "target": "u"}, (6, 6))
    assert result.outcome.code == f"pzgren.morale.failed(status={after})"
    assert result.steps[0].table.column in ("En bon ordre", "Désorganisée", "Démoralisée")
    changed = [(e.key, e.target) for e in result.effects if e.kind is EffectKind.STATUS]
    assert changed == ([] if status == after else [(after, "u")])


def test_a_passed_check_changes_nothing():
    result = resolve("morale", {"morale": 8, "status": "disrupted"}, (1, 2))
    assert result.outcome.code == "pzgren.morale.passed(status=disrupted)"
    assert result.effects == ()


@pytest.mark.parametrize(
    ("status", "faces", "outcome"),
    [
        ("disrupted", (3, 4), "pzgren.morale.rallied(status=good_order)"),
        ("demoralized", (3, 4), "pzgren.morale.rallied(status=disrupted)"),
        ("demoralized", (4, 4), "pzgren.morale.not_rallied(status=demoralized)"),
    ],
)
def test_rally(status, faces, outcome):
    result = resolve("morale", {"morale": 7, "status": status, "rally": True}, faces)
    assert result.outcome.code == outcome
    assert result.steps[0].table is None


def test_the_referee_modifier():
    result = resolve("morale", {"morale": 7, "n": 1, "modifier": -2}, (4, 4))
    assert result.steps[0].total == 7 and result.outcome.key == "pzgren.morale.passed"
