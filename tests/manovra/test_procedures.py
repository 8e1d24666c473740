"""Every manovra procedure at its boundaries, with scripted dice, checked against the seed."""

from __future__ import annotations

from typing import Any

import pytest

from rules.core.dice import ScriptedDice
from rules.core.errors import DiceError, InvalidInput, RulesError, UnknownName
from rules.core.resolution import Comparison, EffectKind, Resolution, Step
from rules.manovra import PROCEDURES

TIRO = "TIRO - Armi Pesanti (D8 utile, D10 gittata efficace e schegge, D12 breve)"
PENETRAZIONE = "PENETRAZIONE CORAZZA (D8 utile, D10 gittata efficace e schegge, D12 breve)"
EFFETTI = "EFFETTI Armi Pesanti"
EDIFICI = "EFFETTI ARMI PESANTI CONTRO EDIFICI"
INCENDIARIE = "EFFETTI ARMI INCENDIARIE"
MINATO = "EFFETTI CAMPO MINATO"
VEICOLI = (
    "FUOCO ARMI LEGGERE contro veicoli Non corazzati (D8 utile, D10 gittata efficace, D12 breve)"
)
FANTERIA = (
    "FUOCO ARMI LEGGERE contro fanteria ed artiglieria (D8 utile, D10 gittata efficace, D12 breve)"
)

TIRO_COLUMNS = [
    "carro_alto",
    "carro",
    "basso_profilo",
    "semicingolato",
    "camion",
    "jeep",
    "fanteria",
    "artiglieria",
    "edificio_centro",
    "edificio_muro",
    "bunker_muro",
    "apertura",
    "feritoia",
]
LT75 = ["1L", "2", "3M", "4", "5C", "6", "7", "8B", "9-10", "11-12", "13-14", "15-16", ">17"]
EFFETTI_COLUMNS = [
    "apertura_scoperto",
    "scafo_carro",
    "scafo_camion",
    "torretta",
    "casamatta",
    "cingolo",
    "scafo_jeep",
    "ruota",
    "artiglieria",
]
SMALL_ARMS_BANDS = [
    "1-3",
    "4-7",
    "8-12",
    "13-17",
    "18-23",
    "24-30",
    "31-39",
    "40-50",
    "51-62",
    "63-75",
    "76-89",
    ">89",
]
VEHICLE_BANDS = [
    "1-3",
    "4-7",
    "8-12",
    "13-18",
    "19-25",
    "26-33",
    "34-42",
    "43-52",
    "53-63",
    "64-75",
    ">75",
]


# -- helpers -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def seed(seed_text) -> str:
    return seed_text("000")


def seed_row(seed: str, heading: str, *keys: str) -> list[str]:
    """The cells of the first line after ``heading`` whose leading fields are ``keys``."""
    lines = seed.split("\n")
    start = next(i for i, line in enumerate(lines) if line.split("\t")[0].strip() == heading)
    for line in lines[start + 1 :]:
        fields = [field.strip() for field in line.split("\t")]
        if fields[: len(keys)] == list(keys):
            return fields[len(keys) :]
    raise AssertionError(f"no row {keys} under {heading!r}")


def resolve(name: str, data: dict[str, Any], faces: list[int] | None = None) -> Resolution:
    """Resolve with exactly these faces (every face must be used), without odds."""
    procedure = PROCEDURES[name]
    return procedure.resolve(
        procedure.parse_input(data), ScriptedDice(faces or []), with_odds=False
    )


def step(resolution: Resolution, key: str, index: int = 0) -> Step:
    found = [s for s in resolution.steps if s.key == f"manovra.step.{key}"]
    assert len(found) > index, [s.key for s in resolution.steps]
    return found[index]


def effects(resolution: Resolution) -> set[tuple[str, str, int | None]]:
    return {(e.kind.value, e.key, e.amount) for e in resolution.effects}


def owed(resolution: Resolution) -> list[str]:
    return [e.key for e in resolution.effects if e.kind is EffectKind.TEST_OWED]


def casualties(resolution: Resolution) -> int:
    return sum(e.amount or 0 for e in resolution.effects if e.kind is EffectKind.CASUALTIES)


def faces(resolution: Resolution) -> list[tuple[str, int]]:
    return [(roll.die.name, roll.face) for roll in resolution.rolls]


# -- TEST ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("d8", "code"), [(7, "passed"), (8, "failed"), (1, "passed")])
def test_ct_d6_plus_ad_plus_cv_at_least_d8(d8: int, code: str):
    result = resolve("test", {"kind": "CT", "ad": 1, "cv": 2}, [4, d8])
    assert result.outcome.code == f"manovra.test.{code}(test=CT)"
    roll = step(result, "test_roll")
    assert roll.total == 7
    assert [(m.key, m.value) for m in roll.modifiers] == [
        ("manovra.mod.ad", 1),
        ("manovra.mod.cv", 2),
    ]
    assert roll.threshold is not None
    assert roll.threshold.comparison is Comparison.AT_LEAST
    assert roll.threshold.value == d8
    assert roll.table is not None and roll.table.cell == "D6 + AD + CV >= D8"
    assert faces(result) == [("D6", 4), ("D8", d8)]


def test_ct_refuses_a_nine_on_its_d8():
    with pytest.raises(DiceError) as caught:
        resolve("test", {"kind": "CT", "ad": 0}, [4, 9])
    assert caught.value.params["die"] == "D8"


@pytest.mark.parametrize("kind", ["DFR", "SF"])
@pytest.mark.parametrize(("d10", "code"), [(5, "passed"), (6, "failed"), (10, "failed")])
def test_dfr_and_sf_against_d10(kind: str, d10: int, code: str):
    result = resolve("test", {"kind": kind, "ad": 1, "cv": 1}, [3, d10])
    assert result.outcome.code == f"manovra.test.{code}(test={kind})"
    assert step(result, "test_roll").total == 5
    assert step(result, "test_roll").table.cell == "D6 + AD + CV >= D10"
    assert faces(result)[1] == ("D10", d10)


@pytest.mark.parametrize(("d10", "code"), [(5, "passed"), (6, "failed"), (8, "failed")])
def test_et_adds_ad_but_never_cv(d10: int, code: str):
    """Seed: ET "D6 + AD >= D10" — a CV of 3 must not be added."""
    result = resolve("test", {"kind": "ET", "ad": 1, "cv": 3}, [4, d10])
    assert result.outcome.code == f"manovra.test.{code}(test=ET)"
    roll = step(result, "test_roll")
    assert roll.total == 5
    assert [m.key for m in roll.modifiers] == ["manovra.mod.ad"]
    assert roll.table.cell == "D6 + AD >= D10"


@pytest.mark.parametrize(("d12", "code"), [(11, "passed"), (12, "failed"), (1, "passed")])
def test_ifr_against_d12(d12: int, code: str):
    result = resolve("test", {"kind": "IFR", "ad": 2, "cv": 3}, [6, d12])
    assert result.outcome.code == f"manovra.test.{code}(test=IFR)"
    assert step(result, "test_roll").total == 11
    assert step(result, "test_roll").table.cell == "D6 + AD + CV >= D12"
    assert faces(result)[1] == ("D12", d12)


def test_referee_modifier_is_added():
    result = resolve("test", {"kind": "CT", "ad": 0, "modifier": -2}, [5, 3])
    assert step(result, "test_roll").total == 3
    assert result.outcome.code == "manovra.test.passed(test=CT)"
    assert ("manovra.mod.referee", -2) in [
        (m.key, m.value) for m in step(result, "test_roll").modifiers
    ]


@pytest.mark.parametrize(
    ("die", "face", "code"),
    [("D10", 6, "passed"), ("D10", 7, "failed"), ("D12", 6, "passed"), ("D12", 12, "failed")],
)
def test_pt_against_d10_or_d12(die: str, face: int, code: str):
    result = resolve("test", {"kind": "PT", "ad": 1, "cv": 3, "precision_die": die}, [5, face])
    assert result.outcome.code == f"manovra.test.{code}(test=PT)"
    assert step(result, "test_roll").total == 6  # D6 + AD: no CV
    assert faces(result) == [("D6", 5), (die, face)]


@pytest.mark.parametrize(
    ("mine", "theirs", "code"), [(4, 3, "won"), (3, 3, "tie"), (2, 3, "lost"), (6, 1, "won")]
)
def test_it_is_opposed_and_strictly_greater(mine: int, theirs: int, code: str):
    data = {"kind": "IT", "ad": 1, "cv": 1, "opponent_ad": 1, "opponent_cv": 1}
    result = resolve("test", data, [mine, theirs])
    assert result.outcome.code == f"manovra.test.{code}(test=IT)"
    roll = step(result, "test_roll")
    assert roll.total == mine + 2
    assert roll.threshold.comparison is Comparison.GREATER
    assert roll.threshold.value == theirs + 2
    assert step(result, "opponent_roll").total == theirs + 2
    assert roll.table.cell == "D6 + AD + CV > D6 + AD + CV nemico"


@pytest.mark.parametrize(("mine", "theirs", "code"), [(2, 4, "tie"), (3, 4, "won"), (1, 4, "lost")])
def test_cc_adds_ad_only_and_a_tie_is_not_a_win(mine: int, theirs: int, code: str):
    data = {"kind": "CC", "ad": 2, "cv": 3, "opponent_ad": 0, "opponent_cv": 3}
    result = resolve("test", data, [mine, theirs])
    assert result.outcome.code == f"manovra.test.{code}(test=CC)"
    assert step(result, "test_roll").total == mine + 2
    assert step(result, "opponent_roll").total == theirs
    assert step(result, "test_roll").table.cell == "D6 + AD > D6 + AD nemico"


def test_it_of_a_crew_with_losses_uses_the_fixed_face_one():
    """PERDITE EQUIPAGGI: 1+AD+CV, no die: the script holds only the opponent's D6."""
    data = {"kind": "IT", "ad": 2, "cv": 1, "crew_losses": True, "opponent_ad": 0}
    result = resolve("test", data, [3])
    assert faces(result) == [("D6", 3)]
    own = step(result, "test_roll")
    assert own.rolls == ()
    assert own.total == 4
    assert ("manovra.mod.crew_fixed_die", 1) in [(m.key, m.value) for m in own.modifiers]
    assert result.outcome.code == "manovra.test.won(test=IT)"
    # one more face would be one too many
    with pytest.raises(DiceError) as caught:
        resolve("test", data, [3, 3])
    assert caught.value.key == "error.dice.unused"


def test_both_crews_with_losses_roll_no_dice():
    data = {
        "kind": "IT",
        "ad": 1,
        "cv": 1,
        "crew_losses": True,
        "opponent_ad": 1,
        "opponent_cv": 1,
        "opponent_crew_losses": True,
    }
    result = resolve("test", data, [])
    assert result.rolls == ()
    assert result.outcome.code == "manovra.test.tie(test=IT)"


def test_crew_losses_fix_only_the_initiative_test():
    result = resolve("test", {"kind": "CT", "ad": 0, "crew_losses": True}, [6, 6])
    assert faces(result) == [("D6", 6), ("D8", 6)]
    assert result.outcome.code == "manovra.test.passed(test=CT)"


# -- FUOCO ARMI LEGGERE --------------------------------------------------------------------


def _small(data: dict[str, Any], face: int) -> Resolution:
    base = {"target_kind": "fanteria", "band": "efficace", "ad": 0, "models_present": 20}
    return resolve("small_arms", {**base, **data}, [face])


def _infantry_cell(seed: str, row: tuple[str, str], shots_band: str, cover: str) -> str:
    cells = seed_row(seed, FANTERIA, *row)
    assert len(cells) >= 36
    return cells[SMALL_ARMS_BANDS.index(shots_band) * 3 + "SLM".index(cover)]


@pytest.mark.parametrize(
    ("cover", "group"),
    [("scoperto", "S"), ("leggero", "L"), ("medio", "M"), ("pesante", "M")],
)
def test_small_arms_cover_groups(seed: str, cover: str, group: str):
    # D10 5 + AD 1 = 6: row fermo 6 / in moto 8; 20 shots: band 18-23
    result = _small({"ad": 1, "shots": 20, "cover": cover}, 5)
    read = step(result, "small_arms").table
    assert read.cell == _infantry_cell(seed, ("6", "8"), "18-23", group)
    assert read.column == f"18-23 {group}"
    assert read.row == "6 / 8"
    expected = 0 if read.cell == "-" else int(read.cell)
    assert casualties(result) == expected
    assert [r.die.name for r in result.rolls] == ["D10"]


@pytest.mark.parametrize(
    ("moving", "row"), [(False, ("+", "+")), (True, ("10", "12"))], ids=["fermo", "in_moto"]
)
def test_small_arms_row_by_target_motion(seed: str, moving: bool, row: tuple[str, str]):
    # D12 (breve) 10 + AD 2 = 12: stationary reads the '+' row, moving the 'in moto 12' row
    result = _small({"band": "breve", "ad": 2, "shots": 45, "target_moving": moving}, 10)
    read = step(result, "small_arms").table
    assert read.cell == _infantry_cell(seed, row, "40-50", "S")
    assert step(result, "small_arms").total == 12
    assert result.outcome.code == f"manovra.fire.casualties(n={read.cell})"


@pytest.mark.parametrize("band", ["utile", "efficace", "breve"])
def test_small_arms_die_by_band(band: str):
    die = {"utile": "D8", "efficace": "D10", "breve": "D12"}[band]
    result = _small({"band": band, "shots": 5}, 1)
    assert faces(result) == [(die, 1)]
    top = {"utile": 8, "efficace": 10, "breve": 12}[band]
    with pytest.raises(DiceError):
        _small({"band": band, "shots": 5}, top + 1)


@pytest.mark.parametrize(
    ("shots", "band"),
    [(1, "1-3"), (3, "1-3"), (4, "4-7"), (75, "63-75"), (76, "76-89"), (89, "76-89"), (90, ">89")],
)
def test_small_arms_infantry_shot_bands(seed: str, shots: int, band: str):
    result = _small({"ad": 3, "shots": shots}, 7)  # 10: row fermo 10 / in moto 12
    read = step(result, "small_arms").table
    assert read.column == f"{band} S"
    assert read.cell == _infantry_cell(seed, ("10", "12"), band, "S")


@pytest.mark.parametrize(
    ("shots", "band"), [(3, "1-3"), (4, "4-7"), (75, "64-75"), (76, ">75"), (10_000, ">75")]
)
def test_small_arms_vehicle_shot_bands(seed: str, shots: int, band: str):
    data = {
        "target_kind": "veicolo",
        "band": "efficace",
        "ad": 0,
        "shots": shots,
        "models_present": 9,
    }
    result = resolve("small_arms", data, [5])  # 5: row fermo 5 / in moto 7
    read = step(result, "small_arms").table
    assert read.column == band
    assert read.cell == seed_row(seed, VEICOLI, "5", "7")[VEHICLE_BANDS.index(band)]


@pytest.mark.parametrize("present", [0, 1, 3, 12, 20])
def test_small_arms_casualties_never_exceed_models_present(present: int):
    # D12 12 + AD 3 = 15: the '+' row; 90+ shots in the open: 12 casualties
    result = _small({"band": "breve", "ad": 3, "shots": 200, "models_present": present}, 12)
    assert step(result, "small_arms").table.cell == "12"
    assert casualties(result) == min(12, present)
    if present == 0:
        assert result.outcome.code == "manovra.fire.no_effect"
    else:
        assert result.outcome.code == f"manovra.fire.casualties(n={min(12, present)})"


@pytest.mark.parametrize(
    ("present", "initial", "face", "ct"),
    [
        (5, 10, 10, True),  # at half strength, a loss owes a CT
        (4, 10, 10, True),
        (6, 10, 10, False),  # above half strength: none
        (5, 10, 1, False),  # at half strength but no loss: none
        (5, None, 10, False),  # initial strength unknown: the rule cannot apply
    ],
)
def test_small_arms_fifty_percent_rule(present: int, initial: int | None, face: int, ct: bool):
    # 1-3 shots in the open: row fermo 10 inflicts 1, row 1-2 none
    data = {"ad": 0, "shots": 3, "models_present": present, "initial_models": initial}
    result = _small(data, face)
    assert (casualties(result) > 0) == (face == 10)
    assert ("CT" in owed(result)) is ct
    if ct:
        (effect,) = [e for e in result.effects if e.key == "CT"]
        assert dict(effect.params) == {"reason": "half_strength"}


def test_small_arms_models_present_cannot_exceed_initial():
    with pytest.raises(InvalidInput):
        PROCEDURES["small_arms"].parse_input(
            {
                "target_kind": "fanteria",
                "band": "utile",
                "ad": 0,
                "shots": 3,
                "models_present": 11,
                "initial_models": 10,
            }
        )


@pytest.mark.parametrize(
    ("face", "shots", "code", "statuses", "movement", "ct"),
    [
        (2, 53, "manovra.fire.casualties(n=3)", set(), {"short"}, True),
        (2, 76, "manovra.fire.casualties(n=4,status=immobilised)", {"immobilised"}, set(), True),
        (9, 19, "manovra.fire.casualties(n=4,status=immobilised)", {"immobilised"}, set(), True),
        (6, 19, "manovra.fire.casualties(n=2)", set(), {"short"}, False),
        (10, 40, "manovra.fire.casualties(n=6,status=destroyed)", {"destroyed"}, set(), True),
        (1, 3, "manovra.fire.no_effect", set(), set(), False),
    ],
)
def test_small_arms_vehicle_cells_and_effects(
    seed: str,
    face: int,
    shots: int,
    code: str,
    statuses: set[str],
    movement: set[str],
    ct: bool,
):
    data = {
        "target_kind": "veicolo",
        "band": "efficace",
        "ad": 0,
        "shots": shots,
        "models_present": 6,
    }
    result = resolve("small_arms", data, [face])
    read = step(result, "small_arms").table
    row = next(
        r
        for r in (
            ("1-2", "1-2"),
            ("3", "3-4"),
            ("4", "5-6"),
            ("5", "7"),
            ("6", "8"),
            ("7", "9"),
            ("8", "10"),
            ("9", "11"),
            ("10", "12"),
        )
        if r[0] == str(face) or (face <= 2 and r[0] == "1-2")
    )
    assert read.cell == seed_row(seed, VEICOLI, *row)[VEHICLE_BANDS.index(read.column)]
    assert result.outcome.code == code
    assert {e.key for e in result.effects if e.kind is EffectKind.STATUS} == statuses
    assert {e.key for e in result.effects if e.kind is EffectKind.MOVEMENT} == movement
    assert ("CT" in owed(result)) is ct


def test_small_arms_vehicle_explodes_with_everyone_aboard():
    data = {"target_kind": "veicolo", "band": "breve", "ad": 3, "shots": 30, "models_present": 3}
    result = resolve("small_arms", data, [12])
    assert step(result, "small_arms").table.cell == "esplode tutti morti"
    assert casualties(result) == 3
    assert result.outcome.code == "manovra.fire.casualties(n=3,status=destroyed+exploded)"


# -- ARMI PESANTI: AP at a tank ------------------------------------------------------------


TANK = {
    "band": "efficace",
    "ad": 1,
    "target": "carro",
    "calibre_mm": 75,
    "armour": {"scafo": 5, "torretta": 8},
}


def test_ap_hull_hit_penetrated_then_effects(seed: str):
    result = resolve("heavy_fire", TANK, [4, 7, 3])
    to_hit, pen, eff = result.steps
    # D10 4 + AD 1 = 5 → row fermo 5 / in moto 8, column carro
    assert to_hit.key == "manovra.step.to_hit"
    assert to_hit.total == 5
    assert (
        to_hit.table.cell == seed_row(seed, TIRO, "5", "8")[TIRO_COLUMNS.index("carro")] == "scafo"
    )
    assert to_hit.outcome.code == "manovra.heavy.hit(location=scafo)"
    # 75 mm AP → row AP 71-80; 5 cm hull, impact < 75° → column 5C
    assert pen.key == "manovra.step.penetration"
    assert pen.table.cell == seed_row(seed, PENETRAZIONE, "71-80", "91-106 / Mm")[LT75.index("5C")]
    assert pen.table.cell == "7"
    assert pen.threshold.value == 7 and pen.threshold.comparison is Comparison.AT_LEAST
    assert pen.outcome.code == "manovra.heavy.penetrated"
    assert pen.rolls[0].die.name == "D10"
    # D10 3 → row diretto 3-4, column scafo di carro
    assert eff.key == "manovra.step.effects"
    assert (
        eff.table.cell
        == seed_row(seed, EFFETTI, "3-4", "4-6")[EFFETTI_COLUMNS.index("scafo_carro")]
    )
    assert eff.table.cell == "arma distrutta + 1 morto + CT"
    assert result.outcome.code == (
        "manovra.heavy.effect(location=scafo,status=weapon_destroyed,n=1,ct=1)"
    )
    assert owed(result) == ["SF", "CT"]
    assert ("casualties", "killed", 1) in effects(result)
    assert ("status", "weapon_destroyed", None) in effects(result)


@pytest.mark.parametrize(("manoeuvred", "sf"), [(False, True), (True, False)])
def test_ap_not_penetrated_owes_sf_only_before_the_target_manoeuvred(manoeuvred: bool, sf: bool):
    result = resolve("heavy_fire", {**TANK, "target_has_manoeuvred": manoeuvred}, [4, 6])
    assert result.outcome.code == "manovra.heavy.not_penetrated(location=scafo)"
    # The step names the part struck as the command's outcome does ("Armour not pierced
    # (hull)", not "Armour not pierced ()" as a played game showed).
    penetration = step(result, "penetration")
    assert penetration.outcome.code == "manovra.heavy.not_penetrated(location=scafo)"
    assert len(result.steps) == 2  # no effects roll
    assert ("SF" in owed(result)) is sf
    assert casualties(result) == 0


def test_turret_hit_reads_the_turret_armour(seed: str):
    # D10 5 + 1 = 6 → 'torretta/casam.'; turret 8 cm → column 8B: 10 needed
    result = resolve("heavy_fire", TANK, [5, 10, 10])
    assert step(result, "to_hit").table.cell == "torretta/casam."
    pen = step(result, "penetration")
    assert pen.table.cell == seed_row(seed, PENETRAZIONE, "71-80", "91-106 / Mm")[LT75.index("8B")]
    assert pen.threshold.value == 10
    eff = step(result, "effects")
    assert eff.table.cell == seed_row(seed, EFFETTI, "10", "-")[EFFETTI_COLUMNS.index("torretta")]
    assert result.outcome.code == (
        "manovra.heavy.effect(location=torretta,status=destroyed+exploded)"
    )


def test_casemate_without_armour_goes_straight_to_effects(seed: str):
    result = resolve("heavy_fire", {**TANK, "turret": False}, [5, 1])
    assert [s.key for s in result.steps] == ["manovra.step.to_hit", "manovra.step.effects"]
    cell = seed_row(seed, EFFETTI, "1-2", "1-3")[EFFETTI_COLUMNS.index("casamatta")]
    assert step(result, "effects").table.cell == cell == "cannone bloccato + 1 morto + CT"
    assert result.outcome.param("location") == "casamatta"


def test_moving_target_reads_the_in_moto_column():
    # 6 + 1 = 7: stationary → row fermo 7 (cingolo); moving → in moto 7 = row fermo 4 ('-')
    assert resolve("heavy_fire", TANK, [6, 1]).outcome.code != "manovra.heavy.miss"
    moving = resolve("heavy_fire", {**TANK, "target_moving": True}, [6])
    assert moving.outcome.code == "manovra.heavy.miss"
    assert step(moving, "to_hit").table.cell == "-"
    assert step(moving, "to_hit").table.row == "4 / 7"
    assert owed(moving) == []


def test_gt75_impact_reads_the_other_group():
    # 5 cm hull at > 75°, AP 71-80: column 5 of the > 75° group needs 1
    result = resolve("heavy_fire", {**TANK, "impact": "gt75"}, [4, 1, 1])
    pen = step(result, "penetration")
    assert pen.table.column == "5" and pen.table.cell == "1"
    assert pen.outcome.code == "manovra.heavy.penetrated"


def test_gun_class_alias_picks_the_penetration_row():
    result = resolve("heavy_fire", {**TANK, "calibre_mm": 88, "gun_class": "88L"}, [4, 4, 1])
    pen = step(result, "penetration")
    assert pen.table.row == "107-122 / 88L / 156-210"
    assert pen.table.cell == "4"
    with pytest.raises(InvalidInput) as caught:
        resolve("heavy_fire", {**TANK, "gun_class": "99X"}, [4, 4])
    assert caught.value.key == "error.manovra.bad_gun_class"


def test_ap_calibre_below_the_table_is_refused():
    with pytest.raises(InvalidInput) as caught:
        resolve("heavy_fire", {**TANK, "calibre_mm": 12}, [4, 4])
    assert caught.value.key == "error.manovra.calibre_not_in_table"


def test_a_scelta_and_a_chosen_location():
    # 9 + 1 = 10 → 'a scelta': the thinnest of horizontal armour/hull, or the open top
    best = resolve("heavy_fire", {**TANK, "armour": {"scafo": 5, "superiore": 1}}, [9, 2, 1])
    assert best.outcome.param("location") == "superiore"
    assert step(best, "penetration").table.cell == "2"  # 1 cm, AP 71-80
    chosen = resolve("heavy_fire", {**TANK, "chosen_location": "torretta"}, [9, 1])
    assert chosen.outcome.code == "manovra.heavy.not_penetrated(location=torretta)"
    with pytest.raises(InvalidInput) as caught:
        resolve("heavy_fire", {**TANK, "chosen_location": "ruota"}, [9])
    assert caught.value.key == "error.manovra.bad_location"


def test_open_top_hit_all_crew_dead_is_recorded():
    result = resolve("heavy_fire", {**TANK, "open_topped": True}, [9, 1])
    assert step(result, "effects").table.cell == "movimento breve + tutti morti"
    assert any(e.kind is EffectKind.CASUALTIES for e in result.effects)


def test_open_top_hit_all_crew_dead_with_models_present():
    result = resolve("heavy_fire", {**TANK, "open_topped": True, "models_present": 4}, [9, 1])
    assert step(result, "effects").table.cell == "movimento breve + tutti morti"
    assert casualties(result) == 4
    assert result.outcome.code == "manovra.heavy.effect(location=apertura,status=short,n=4)"


# -- ARMI PESANTI: HE, infantry, buildings -------------------------------------------------


@pytest.mark.parametrize(("d8", "ad", "cm"), [(5, 1, 4), (8, 0, 8), (1, 3, 0)])
def test_he_miss_scatters_d8_minus_ad(d8: int, ad: int, cm: int):
    data = {"band": "efficace", "ad": ad, "target": "fanteria", "ammo": "HE", "calibre_mm": 75}
    result = resolve("heavy_fire", data, [1, d8])
    assert step(result, "to_hit").outcome.code == "manovra.heavy.miss"
    scatter = step(result, "scatter")
    assert scatter.table.cell == "D8 - AD"
    assert scatter.table.row == "Bersaglio mancato dal fuoco diretto HE"
    assert scatter.total == d8 - ad
    assert dict(scatter.params)["direction"] == d8
    assert result.outcome.code == f"manovra.heavy.miss_scatter(cm={cm})"


def test_ap_miss_does_not_scatter():
    data = {"band": "efficace", "ad": 0, "target": "fanteria", "calibre_mm": 75}
    result = resolve("heavy_fire", data, [1])
    assert result.outcome.code == "manovra.heavy.miss"


@pytest.mark.parametrize(
    ("face", "cell", "cover", "calibre", "code"),
    [
        (6, "morto -M", "medio", 75, "manovra.heavy.saved_by_cover(cover=medio)"),
        (6, "morto -M", "medio", 122, "manovra.heavy.saved_by_cover(cover=medio)"),
        (6, "morto -M", "medio", 150, "manovra.heavy.killed"),  # > 122 mm negates medium
        (6, "morto -M", "leggero", 20, "manovra.heavy.killed"),  # light cover is not enough
        (5, "morto -L", "leggero", 70, "manovra.heavy.saved_by_cover(cover=leggero)"),
        (5, "morto -L", "leggero", 75, "manovra.heavy.killed"),  # > 70 mm negates light
        (5, "morto -L", "medio", 75, "manovra.heavy.saved_by_cover(cover=medio)"),
        (5, "morto -L", "scoperto", 20, "manovra.heavy.killed"),
        (8, "morto -P", "pesante", 300, "manovra.heavy.saved_by_cover(cover=pesante)"),
        (8, "morto -P", "medio", 40, "manovra.heavy.killed"),
        (10, "morto", "pesante", 20, "manovra.heavy.killed"),
    ],
)
def test_infantry_hit_and_cover(
    seed: str, face: int, cell: str, cover: str, calibre: int, code: str
):
    data = {
        "band": "efficace",
        "ad": 1,
        "target": "fanteria",
        "ammo": "HE",
        "calibre_mm": calibre,
        "cover": cover,
    }
    result = resolve("heavy_fire", data, [face])
    fermo = "+" if face + 1 > 10 else str(face + 1)
    in_moto = "+" if fermo == "+" else str(face + 4)
    assert step(result, "to_hit").table.cell == cell
    assert cell == seed_row(seed, TIRO, fermo, in_moto)[TIRO_COLUMNS.index("fanteria")]
    assert result.outcome.code == code
    assert casualties(result) == (1 if code == "manovra.heavy.killed" else 0)
    assert owed(result) == ["SF"]


def test_building_wall_hit_penetrates_via_the_wall_alias(seed: str):
    data = {
        "band": "efficace",
        "ad": 0,
        "target": "edificio_muro",
        "ammo": "HE",
        "calibre_mm": 75,
        "wall": "M",
        "building": "casa",
    }
    result = resolve("heavy_fire", data, [6, 8, 9])
    assert step(result, "to_hit").table.cell == "colpito"
    pen = step(result, "penetration")
    # HE 75 mm → row HE 71-80; wall M (mattoni) → column 3M
    assert pen.table.column == "3M"
    assert pen.table.cell == seed_row(seed, PENETRAZIONE, "51-60 / 50L", "71-80 / Ex")[2] == "6"
    building = step(result, "building")
    # 75 mm > 70 → the +70 mm axis; D10 9 → the fourth row; column casa
    assert building.table.cell == seed_row(seed, EDIFICI, "7", "9", "-")[1] == "piano"
    assert result.outcome.code == "manovra.building.effect(effect=floor)"
    assert ("status", "building_floor", None) in effects(result)
    assert owed(result) == []  # an element, not a unit: no SF


@pytest.mark.parametrize(
    ("calibre", "d10", "keys", "column", "effect"),
    [
        (130, 9, ("9", "-", "-"), 1, "collapse"),
        (121, 5, ("5", "6-7", "7-8"), 3, "floor"),
        (71, 6, ("5", "6-7", "7-8"), 3, "floor"),
        (40, 9, ("6", "8", "10"), 1, "blast_radius"),  # +30 mm: 9 reads the '10' row (9-10)
    ],
)
def test_building_effects_by_calibre_column(
    seed: str, calibre: int, d10: int, keys: tuple[str, ...], column: int, effect: str
):
    building = ["legno", "casa", "palazzo", "bunker"][column]
    data = {
        "band": "breve",
        "ad": 0,
        "target": "edificio_centro",
        "ammo": "HE",
        "calibre_mm": calibre,
        "wall": "L",
        "building": building,
    }
    result = resolve("heavy_fire", data, [12, 12, d10])
    assert step(result, "building").table.cell == seed_row(seed, EDIFICI, *keys)[column]
    assert result.outcome.code == f"manovra.building.effect(effect={effect})"


@pytest.mark.parametrize("calibre", [30, 20, 11])
def test_building_calibre_thirty_or_less_is_too_small(calibre: int):
    data = {
        "band": "breve",
        "ad": 0,
        "target": "edificio_muro",
        "ammo": "HE",
        "calibre_mm": calibre,
        "wall": "L",
        "building": "legno",
    }
    result = resolve("heavy_fire", data, [6, 12])
    assert step(result, "penetration").outcome.code == "manovra.heavy.penetrated"
    assert result.outcome.code == f"manovra.building.too_small(calibre={calibre})"


def test_building_wall_not_penetrated():
    data = {
        "band": "breve",
        "ad": 0,
        "target": "bunker_muro",
        "ammo": "HE",
        "calibre_mm": 75,
        "wall": "B",
        "building": "bunker",
    }
    result = resolve("heavy_fire", data, [8, 12])
    pen = step(result, "penetration")
    assert pen.table.column == "8B" and pen.table.cell == "-"
    assert pen.threshold is None
    assert result.outcome.code == "manovra.heavy.not_penetrated(location=muro)"


def test_building_target_ignores_motion():
    data = {
        "band": "breve",
        "ad": 0,
        "target": "edificio_muro",
        "ammo": "HE",
        "calibre_mm": 75,
        "wall": "L",
        "building": "casa",
        "target_moving": True,
    }
    assert step(resolve("heavy_fire", data, [6, 1]), "to_hit").table.cell == "colpito"


def test_building_target_needs_wall_and_building():
    with pytest.raises(InvalidInput):
        PROCEDURES["heavy_fire"].parse_input(
            {"band": "breve", "ad": 0, "target": "edificio_muro", "calibre_mm": 75}
        )


@pytest.mark.parametrize(("target", "face"), [("apertura", 10), ("feritoia", 12)])
def test_opening_hit_he_explodes_d6_cm_inside(target: str, face: int):
    data = {"band": "breve", "ad": 0, "target": target, "ammo": "HE", "calibre_mm": 75}
    result = resolve("heavy_fire", data, [face, 4])
    assert step(result, "to_hit").table.cell == "centrata"
    assert faces(result)[1] == ("D6", 4)
    assert result.outcome.code == "manovra.heavy.opening_he(cm=4)"


def test_opening_hit_ap_goes_through_without_a_die():
    data = {"band": "breve", "ad": 0, "target": "apertura", "ammo": "AP", "calibre_mm": 75}
    result = resolve("heavy_fire", data, [11])
    assert result.outcome.code == "manovra.heavy.opening_ap"
    assert len(result.rolls) == 1


def test_artillery_shield_hit_reads_the_artillery_column(seed: str):
    data = {"band": "efficace", "ad": 0, "target": "artiglieria", "calibre_mm": 57}
    result = resolve("heavy_fire", data, [7, 4])
    assert step(result, "to_hit").table.cell == "scudo"
    cell = seed_row(seed, EFFETTI, "3-4", "4-6")[EFFETTI_COLUMNS.index("artiglieria")]
    assert step(result, "effects").table.cell == cell == "affusto bloccato + 2 morti + CT"


# -- HE fragments --------------------------------------------------------------------------


def test_he_fragments_use_the_schegge_axis_and_d10s(seed: str):
    data = {"ad": 0, "target": "carro", "calibre_mm": 75, "armour": {"scafo": 1}}
    result = resolve("he_fragments", data, [8, 5, 10])
    assert result.procedure == "he_fragments"
    assert [roll.die.name for roll in result.rolls] == ["D10", "D10", "D10"]
    assert step(result, "to_hit").table.cell == "scafo"
    pen = step(result, "penetration")
    assert pen.table.row == "21-30 / 41-50 / ☼"
    assert pen.table.cell == seed_row(seed, PENETRAZIONE, "21-30", "41-50 / ☼")[0] == "5"
    eff = step(result, "effects")
    # D10 10 on the schegge axis is the fourth row (diretto 6)
    assert (
        eff.table.cell == seed_row(seed, EFFETTI, "6", "10")[EFFETTI_COLUMNS.index("scafo_carro")]
    )
    assert eff.table.cell == "immobilizzato + 1 morto + CT"
    assert result.outcome.code == (
        "manovra.heavy.effect(location=scafo,status=immobilised,n=1,ct=1)"
    )


@pytest.mark.parametrize(
    ("d10", "keys"), [(1, ("1-2", "1-3")), (6, ("3-4", "4-6")), (9, ("5", "7-9"))]
)
def test_he_fragments_effect_rows(seed: str, d10: int, keys: tuple[str, str]):
    data = {"ad": 0, "target": "camion", "calibre_mm": 81, "models_present": 9}
    result = resolve("he_fragments", data, [6, d10])  # 6: camion 'scafo', no armour given
    cell = seed_row(seed, EFFETTI, *keys)[EFFETTI_COLUMNS.index("scafo_camion")]
    assert step(result, "effects").table.cell == cell


def test_he_fragments_miss_does_not_scatter():
    result = resolve("he_fragments", {"ad": 0, "target": "fanteria", "calibre_mm": 81}, [4])
    assert result.outcome.code == "manovra.heavy.miss"


@pytest.mark.parametrize(
    "data",
    [
        {"ad": 0, "target": "edificio_muro", "calibre_mm": 75},
        {"ad": 0, "target": "carro", "calibre_mm": 75, "armour": {"scafo": 500}},
    ],
    ids=["building_without_wall", "armour_500"],
)
def test_he_fragments_bad_input_is_a_rules_error(data: dict[str, Any]):
    procedure = PROCEDURES["he_fragments"]
    with pytest.raises(RulesError):
        procedure.resolve(procedure.parse_input(data), ScriptedDice([10, 10, 10]), with_odds=False)


# -- ARMI INCENDIARIE -------------------------------------------------------------------------


def test_incendiary_rolls_one_d10_per_infantry_model(seed: str):
    data = {"target": "fanteria", "models_touched": 3, "cover": "medio"}
    result = resolve("incendiary", data, [3, 5, 1])
    assert [roll.die.name for roll in result.rolls] == ["D10"] * 3
    cells = [s.table.cell for s in result.steps]
    assert cells == [
        seed_row(seed, INCENDIARIE, "3-4")[3],
        seed_row(seed, INCENDIARIE, "5")[3],
        seed_row(seed, INCENDIARIE, "1-2")[3],
    ]
    assert cells == ["morto/MP spento", "morto /P spento", "Spento + SF"]
    assert [s.outcome.code for s in result.steps] == [
        "manovra.flame.spared",
        "manovra.flame.killed",
        "manovra.flame.spared",
    ]
    assert result.outcome.code == "manovra.flame.casualties(n=1)"
    assert casualties(result) == 1


@pytest.mark.parametrize(
    ("face", "cover", "killed"),
    [
        (3, "medio", 0),  # 'morto/MP spento': medium cover spares
        (4, "pesante", 0),
        (3, "leggero", 1),
        (3, "scoperto", 1),
        (5, "medio", 1),  # 'morto /P spento': only heavy cover spares
        (5, "pesante", 0),
        (6, "pesante", 1),  # 'morto'
        (2, "scoperto", 0),  # 'Spento + SF'
    ],
)
def test_incendiary_cover_on_infantry(face: int, cover: str, killed: int):
    result = resolve("incendiary", {"target": "fanteria", "cover": cover}, [face])
    assert result.outcome.code == f"manovra.flame.casualties(n={killed})"


@pytest.mark.parametrize(
    ("target", "face", "code"),
    [
        ("carro", 1, "manovra.flame.vehicle"),
        ("carro", 6, "manovra.flame.vehicle(n=1)"),
        ("carro", 7, "manovra.flame.vehicle(status=immobilised)"),
        ("camion", 8, "manovra.flame.vehicle(status=destroyed+exploded)"),
        ("auto", 5, "manovra.flame.vehicle(status=destroyed+on_fire)"),
    ],
)
def test_incendiary_one_die_per_vehicle(seed: str, target: str, face: int, code: str):
    result = resolve("incendiary", {"target": target, "models_touched": 5}, [face])
    assert len(result.rolls) == 1
    assert result.outcome.code == code
    column = ["carro", "camion", "auto", "fanteria"].index(target)
    row = {1: "1-2", 5: "5", 6: "6", 7: "7", 8: "8"}[face]
    assert result.steps[0].table.cell == seed_row(seed, INCENDIARIE, row)[column]


# -- MOVIMENTO -------------------------------------------------------------------------------


def _move(legs: list[tuple[str, float]], **data: Any) -> Resolution:
    base = {"unit_class": "fanteria", "tactical_cm": 12}
    legs_data = [{"terrain": terrain, "cm": cm} for terrain, cm in legs]
    return resolve("move", {**base, **data, "legs": legs_data})


@pytest.mark.parametrize(
    ("legs", "data", "code"),
    [
        ([("piano_scoperto", 12)], {}, "manovra.move.ok(percent=100)"),
        ([("piano_scoperto", 12.5)], {}, "manovra.move.too_far(percent=104)"),
        ([("piano_scoperto", 6)], {"kind": "breve"}, "manovra.move.ok(percent=100)"),
        ([("piano_scoperto", 7)], {"kind": "breve"}, "manovra.move.too_far(percent=117)"),
        ([("piano_scoperto", 3)], {"kind": "cauto"}, "manovra.move.ok(percent=100)"),
        ([("piano_scoperto", 4)], {"kind": "cauto"}, "manovra.move.too_far(percent=133)"),
        # terrain costs: 'breve' terrain halves, 'cauto' quarters the tactical allowance
        ([("piano_accidentato", 6)], {}, "manovra.move.ok(percent=100)"),
        ([("piano_accidentato", 3)], {}, "manovra.move.ok(percent=50)"),
        ([("rocce_a_picco", 3)], {}, "manovra.move.ok(percent=100)"),
        ([("rocce_a_picco", 3.5)], {}, "manovra.move.too_far(percent=117)"),
        # the slower of the move kind and the terrain class
        ([("piano_accidentato", 3)], {"kind": "cauto"}, "manovra.move.ok(percent=100)"),
        ([("piano_scoperto", 6), ("piano_accidentato", 3)], {}, "manovra.move.ok(percent=100)"),
        ([("piano_scoperto", 6), ("rocce_a_picco", 2)], {}, "manovra.move.too_far(percent=117)"),
        ([("piano_scoperto", 0.5)], {}, "manovra.move.too_short"),
        ([("piano_scoperto", 0.4), ("piano_boscoso", 0.5)], {}, "manovra.move.too_short"),
        ([("piano_scoperto", 1)], {}, "manovra.move.ok(percent=8)"),
    ],
)
def test_move_allowances(legs: list[tuple[str, float]], data: dict[str, Any], code: str):
    assert _move(legs, **data).outcome.code == code


@pytest.mark.parametrize(
    ("unit", "tactical", "cm", "kind", "code", "cell"),
    [
        ("carri", 20, 40, "tattico", "manovra.move.ok(percent=100)", "2 cm ogni 1"),
        ("carri", 20, 41, "tattico", "manovra.move.too_far(percent=102)", "2 cm ogni 1"),
        ("carri", 20, 20, "breve", "manovra.move.ok(percent=100)", "2 cm ogni 1"),
        ("camion", 20, 60, "tattico", "manovra.move.ok(percent=100)", "3 cm ogni 1"),
        ("camion", 20, 15, "cauto", "manovra.move.ok(percent=100)", "3 cm ogni 1"),
        ("fanteria", 12, 12, "tattico", "manovra.move.ok(percent=100)", "tattico"),
    ],
)
def test_move_on_roads(unit: str, tactical: float, cm: float, kind: str, code: str, cell: str):
    result = _move([("strade", cm)], unit_class=unit, tactical_cm=tactical, kind=kind)
    assert result.outcome.code == code
    assert step(result, "leg").table.cell == cell


def test_move_impassable():
    result = _move(
        [("piano_scoperto", 5), ("pendio_roccioso", 1)], unit_class="carri", tactical_cm=20
    )
    assert result.outcome.code == "manovra.move.impassable(terrain=pendio_roccioso)"
    assert step(result, "leg", 1).table.cell == "intransitabile"
    assert not any(e.key == "cover" for e in result.effects)
    assert _move([("fluviale_acqua", 1)]).outcome.code == (
        "manovra.move.impassable(terrain=fluviale_acqua)"
    )


@pytest.mark.parametrize(
    ("unit", "kind", "code"),
    [
        ("fanteria", "cauto", "manovra.move.ok(percent=100)"),
        ("artiglieria", "cauto", "manovra.move.ok(percent=100)"),
        ("fanteria", "breve", "manovra.move.cannot_conceal"),
        ("fanteria", "tattico", "manovra.move.cannot_conceal"),
        ("carri", "cauto", "manovra.move.cannot_conceal"),
        ("moto", "cauto", "manovra.move.cannot_conceal"),
    ],
)
def test_move_conceal_only_infantry_and_artillery_moving_cautiously(
    unit: str, kind: str, code: str
):
    result = _move([("piano_scoperto", 3)], unit_class=unit, kind=kind, conceal=True)
    assert result.outcome.code == code
    concealed = ("status", "concealed", None) in effects(result)
    assert concealed is (code == "manovra.move.ok(percent=100)")


@pytest.mark.parametrize("terrain", ["reticolati", "campi_minati"])
def test_move_through_mines_or_wire_owes_an_et(terrain: str):
    result = _move([(terrain, 3)])
    assert step(result, "leg").table.cell == "cauto +ET"
    assert owed(result) == ["ET"]
    assert result.outcome.code == "manovra.move.ok(percent=100)"


@pytest.mark.parametrize(
    ("terrain", "unit", "cell", "status"),
    [
        ("siepe", "carri", "tattico /elimina", "obstacle_elimina"),
        ("muro_di_cinta", "semicingolati", "cauto/elimina", "obstacle_elimina"),
        ("edificio_legno", "carri", "breve /rovina", "obstacle_rovina"),
        ("relitto", "carri", "breve /sposta", "obstacle_sposta"),
    ],
)
def test_move_obstacle_effects(terrain: str, unit: str, cell: str, status: str):
    result = _move([(terrain, 1)], unit_class=unit, tactical_cm=20)
    assert step(result, "leg").table.cell == cell
    assert ("status", status, None) in effects(result)


@pytest.mark.parametrize(
    ("terrain", "cover", "rank"),
    [
        ("piano_scoperto", "scoperto", 0),
        ("piano_boscoso", "leggero", 1),
        ("trincee", "medio", 2),
        ("bunker", "pesante", 3),
    ],
)
def test_move_ends_in_the_cover_of_the_last_leg(terrain: str, cover: str, rank: int):
    result = _move([("piano_scoperto", 1), (terrain, 1)])
    (effect,) = [e for e in result.effects if e.key == "cover"]
    assert effect.amount == rank
    assert dict(effect.params) == {"cover": cover}


def test_move_input_bounds():
    procedure = PROCEDURES["move"]
    for bad in (
        {"unit_class": "fanteria", "tactical_cm": 12, "legs": []},
        {"unit_class": "fanteria", "tactical_cm": 12, "legs": [{"terrain": "strade", "cm": 0}]},
        {"unit_class": "fanteria", "tactical_cm": 0, "legs": [{"terrain": "strade", "cm": 1}]},
        {"unit_class": "nave", "tactical_cm": 12, "legs": [{"terrain": "strade", "cm": 1}]},
    ):
        with pytest.raises(InvalidInput):
            procedure.parse_input(bad)
    with pytest.raises(UnknownName):
        _move([("lava", 1)])


# -- ET: mines and wire ------------------------------------------------------------------------


@pytest.mark.parametrize("obstacle", ["mine", "wire"])
def test_obstacle_passed_et_avoids(obstacle: str):
    data = {"obstacle": obstacle, "target": "fanteria_artiglieria", "ad": 1}
    result = resolve("obstacle", data, [4, 5])
    assert result.outcome.code == f"manovra.obstacle.avoided(obstacle={obstacle})"
    assert step(result, "test_roll").table.cell == "D6 + AD >= D10"
    assert result.effects == ()


def test_obstacle_wire_failure_holds_the_unit():
    data = {"obstacle": "wire", "target": "carri", "ad": 1, "target_id": "u1"}
    result = resolve("obstacle", data, [4, 6])
    assert result.outcome.code == "manovra.obstacle.wire_holds"
    assert [(e.kind.value, e.key, e.target) for e in result.effects] == [
        ("movement", "stopped_by_wire", "u1")
    ]


@pytest.mark.parametrize(
    ("target", "d6", "code"),
    [
        ("fanteria_artiglieria", 1, "manovra.obstacle.mine(n=1)"),
        ("fanteria_artiglieria", 3, "manovra.obstacle.mine(n=2,ct=1)"),
        ("fanteria_artiglieria", 6, "manovra.obstacle.mine(n=3,ct=1)"),
        ("carri", 1, "manovra.obstacle.mine"),
        ("carri", 2, "manovra.obstacle.mine(status=immobilised+track_broken)"),
        ("carri", 5, "manovra.obstacle.mine(status=immobilised,ct=1)"),
        ("autoblindo_semicingolato", 6, "manovra.obstacle.mine(status=destroyed+exploded)"),
        ("camion_auto_moto", 2, "manovra.obstacle.mine(n=3,status=destroyed)"),
    ],
)
def test_obstacle_mine_failure_reads_effetti_campo_minato(
    seed: str, target: str, d6: int, code: str
):
    data = {"obstacle": "mine", "target": target, "ad": 0, "models_present": 5}
    result = resolve("obstacle", data, [1, 9, d6])
    assert step(result, "test_roll").outcome.code == "manovra.test.failed(test=ET)"
    mine = step(result, "mine")
    column = ["carri", "autoblindo_semicingolato", "camion_auto_moto", "fanteria_artiglieria"]
    assert mine.table.cell == seed_row(seed, MINATO, str(d6))[column.index(target)]
    assert mine.table.title == "EFFETTI CAMPO MINATO"
    assert result.outcome.code == code


def test_obstacle_mine_casualties_capped_by_models_present():
    data = {"obstacle": "mine", "target": "fanteria_artiglieria", "ad": 0, "models_present": 2}
    result = resolve("obstacle", data, [1, 9, 6])
    assert casualties(result) == 2
    assert result.outcome.code == "manovra.obstacle.mine(n=2,ct=1)"


# -- COMUNICAZIONI ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("link", "sight", "limit"),
    [
        ("stessa_squadra", "diretta", 12),
        ("stessa_squadra", "interrotta", 6),
        ("stesso_plotone", "diretta", 24),
        ("stesso_plotone", "interrotta", 12),
        ("stesso_plotone_radio", "diretta", 96),
        ("stesso_plotone_radio", "interrotta", 48),
    ],
)
def test_communication_rows(link: str, sight: str, limit: int):
    data = {"link": link, "line_of_sight": sight}
    ok = resolve("communication", {**data, "distance_cm": limit})
    assert ok.outcome.code == f"manovra.comms.ok(limit={limit})"
    assert ok.steps[0].table.cell == f"{limit} cm"
    out = resolve("communication", {**data, "distance_cm": limit + 0.5})
    assert out.outcome.code == f"manovra.comms.out_of_range(limit={limit})"


@pytest.mark.parametrize(
    ("distance", "code"),
    [(0, "ok"), (6, "ok"), (6.1, "out_of_range"), (30, "out_of_range")],
)
def test_communication_always_possible_within_six_cm(distance: float, code: str):
    result = resolve("communication", {"link": "altro_plotone", "distance_cm": distance})
    assert result.outcome.code == f"manovra.comms.{code}(limit=6)"


@pytest.mark.parametrize(
    ("link", "sight", "distance", "code"),
    [
        ("stessa_squadra", "interrotta", 96, "ok"),
        ("stesso_plotone", "diretta", 50, "ok"),
        ("stesso_plotone_radio", "interrotta", 96, "ok"),
        ("stesso_plotone_radio", "diretta", 97, "out_of_range"),
    ],
)
def test_communication_between_entrenched_units_reaches_96_cm(
    link: str, sight: str, distance: float, code: str
):
    data = {"link": link, "line_of_sight": sight, "distance_cm": distance, "both_entrenched": True}
    result = resolve("communication", data)
    assert result.outcome.code == f"manovra.comms.{code}(limit=96)"
    assert dict(result.steps[0].params)["rule"] == "entrenched"


# -- OSSERVAZIONE ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "cell", "limit"),
    [
        ({"observed": "carri", "terrain": "aperto", "state": "appostata"}, "110", 110),
        (
            {
                "observed": "carri",
                "terrain": "copertura",
                "state": "ha_sparato",
                "from_inside_area": True,
            },
            "38",
            38,
        ),
        (
            {
                "observed": "bassi",
                "terrain": "altro",
                "state": "in_movimento",
                "from_loophole": True,
            },
            "90",
            90,
        ),
        (
            {
                "observed": "fanteria",
                "terrain": "altro",
                "state": "ha_sparato",
                "from_loophole": True,
                "from_inside_area": True,
            },
            "37",
            37,
        ),
        ({"observed": "fanteria", "terrain": "copertura", "state": "in_movimento"}, "30/15", 30),
        (
            {
                "observed": "fanteria",
                "terrain": "copertura",
                "state": "in_movimento",
                "terrain_detail": "boschi",
            },
            "30/15",
            30,
        ),
        (
            {
                "observed": "fanteria",
                "terrain": "copertura",
                "state": "in_movimento",
                "terrain_detail": "edifici",
            },
            "30/15",
            15,
        ),
        (
            {
                "observed": "fanteria",
                "terrain": "copertura",
                "state": "in_movimento",
                "terrain_detail": "Trincee",
                "from_loophole": True,
                "from_inside_area": True,
            },
            "9/4",
            4,
        ),
    ],
)
def test_observation_cells(data: dict[str, Any], cell: str, limit: int):
    seen = resolve("observation", {**data, "distance_cm": limit})
    assert seen.steps[0].table.cell == cell
    assert seen.outcome.code == f"manovra.observe.seen(limit={limit})"
    unseen = resolve("observation", {**data, "distance_cm": limit + 1})
    assert unseen.outcome.code == f"manovra.observe.unseen(limit={limit})"


def test_observation_shared_by_friendly_infantry():
    data = {
        "observed": "fanteria",
        "terrain": "copertura",
        "state": "appostata",
        "distance_cm": 500,
        "shared_by_infantry": True,
    }
    assert resolve("observation", data).outcome.code == "manovra.observe.seen(limit=15)"


def test_observation_has_no_row_for_tanks_in_other_terrain():
    data = {"observed": "carri", "terrain": "altro", "state": "appostata", "distance_cm": 1}
    with pytest.raises(UnknownName):
        resolve("observation", data)


# -- assault, close combat, overrun, panic ------------------------------------------------------


def test_panic_recovery_stops_at_the_first_passed_ct():
    data = {"ad": 0, "commanders_cv": [0, 1, 2]}
    result = resolve("panic_recovery", data, [1, 8, 5, 2])
    assert result.outcome.code == "manovra.panic.recovered"
    tests = [s for s in result.steps if s.key == "manovra.step.test_roll"]
    assert [s.outcome.code for s in tests] == [
        "manovra.test.failed(test=CT)",
        "manovra.test.passed(test=CT)",
    ]
    assert [s.total for s in tests] == [1, 6]  # the second commander's CV 1 is added
    assert [(e.kind.value, e.key) for e in result.effects] == [("clear_status", "panic")]
    with pytest.raises(DiceError) as caught:  # the third commander never rolls
        resolve("panic_recovery", data, [1, 8, 5, 2, 3, 3])
    assert caught.value.key == "error.dice.unused"


def test_panic_recovery_all_fail():
    result = resolve("panic_recovery", {"ad": 0, "commanders_cv": [0, 0]}, [1, 8, 2, 7])
    assert result.outcome.code == "manovra.panic.still_panicked"
    assert result.effects == ()


def test_close_combat_counts():
    duels = [
        {"ad": 1, "opponent_ad": 0},  # 4+1 > 3: won
        {"ad": 0, "opponent_ad": 2},  # 3 < 2+2: lost
        {"ad": 0, "opponent_ad": 0},  # 5 = 5: tie
        {"ad": 3, "opponent_ad": 0},  # 1+3 > 2: won
    ]
    data = {"duels": duels, "target_id": "them", "attacker_id": "us"}
    result = resolve("close_combat", data, [4, 3, 3, 2, 5, 5, 1, 2])
    assert result.outcome.code == "manovra.cc.result(won=2,lost=1)"
    assert [(e.key, e.target, e.amount) for e in result.effects] == [
        ("killed", "them", 2),
        ("killed", "us", 1),
    ]
    assert len([s for s in result.steps if s.key == "manovra.step.test_roll"]) == 4


def test_close_combat_all_ties():
    result = resolve("close_combat", {"duels": [{"ad": 0, "opponent_ad": 0}]}, [3, 3])
    assert result.outcome.code == "manovra.cc.result(won=0,lost=0)"
    assert result.effects == ()


@pytest.mark.parametrize(("dice", "code"), [([5, 7], "goes_in"), ([5, 8], "refused")])
def test_assault_ct(dice: list[int], code: str):
    result = resolve("assault", {"ad": 1, "cv": 1}, dice)
    assert result.outcome.code == f"manovra.assault.{code}"


def test_overrun_et():
    avoided = resolve("overrun", {"ad": 2}, [3, 5])
    assert avoided.outcome.code == "manovra.overrun.avoided"
    overrun = resolve("overrun", {"ad": 2, "target_id": "sq1"}, [3, 6])
    assert overrun.outcome.code == "manovra.overrun.overrun"
    assert [(e.kind.value, e.key, e.target) for e in overrun.effects] == [
        ("status", "overrun", "sq1"),
        ("test_owed", "CT", "sq1"),
    ]


# -- IMPRECISIONE E DISPERSIONE ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "ad", "cv", "dice", "dies", "total", "code"),
    [
        ("diretto_he", 1, 3, [5], ["D8"], 4, "manovra.scatter.landed(cm=4)"),
        ("diretto_he", 3, 0, [2], ["D8"], -1, "manovra.scatter.landed(cm=0)"),
        ("lancio_ordigni", 0, 0, [8], ["D8"], 8, "manovra.scatter.landed(cm=8)"),
        ("mortai_diretto", 2, 0, [5, 3], ["D8", "D6"], 6, "manovra.scatter.landed(cm=6)"),
        ("indiretto_in_campo", 1, 2, [10, 8], ["D10", "D8"], 15, "manovra.scatter.landed(cm=15)"),
        ("indiretto_in_campo", 3, 3, [1, 5], ["D10", "D8"], 0, "manovra.scatter.on_point"),
        (
            "indiretto_fuori_campo",
            3,
            3,
            [1, 1, 1],
            ["D10", "D8", "D8"],
            -3,
            "manovra.scatter.on_point",
        ),
        (
            "indiretto_fuori_campo",
            0,
            1,
            [4, 7, 2],
            ["D10", "D8", "D8"],
            12,
            "manovra.scatter.landed(cm=12)",
        ),
    ],
)
def test_scatter_formulas(
    kind: str, ad: int, cv: int, dice: list[int], dies: list[str], total: int, code: str
):
    result = resolve("scatter", {"kind": kind, "ad": ad, "cv": cv}, dice)
    scatter = step(result, "scatter")
    assert [r.die.name for r in scatter.rolls] == dies
    assert scatter.total == total
    assert result.outcome.code == code
    # the (first) D8 gives the direction
    d8 = next(r.face for r in scatter.rolls if r.die.name == "D8")
    assert dict(scatter.params)["direction"] == d8


def test_a_wall_is_read_at_its_thickness_in_the_impact_angle_group():
    """Walls read PENETRAZIONE at the thickness their letter names (M = 3 cm), in either
    impact-angle group (the table's wall_thickness_cm data)."""
    from rules.core.dice import ScriptedDice
    from rules.manovra import PROCEDURES

    heavy = PROCEDURES["heavy_fire"]
    wall = {
        "band": "breve",
        "ad": 0,
        "target": "edificio_muro",
        "ammo": "AP",
        "calibre_mm": 75,
        "wall": "M",
        "building": "casa",
    }
    # D12 6 → "colpito"; < 75°: the 3M column needs 5, a 1 does not pierce.
    shallow = heavy.resolve(heavy.parse_input(wall), ScriptedDice([6, 1]))
    assert [(s.table.column, s.table.cell) for s in shallow.steps[1:]] == [("3M", "5")]
    # > 75°: the plain 3 column needs 1; pierced, the +70 mm building row follows.
    steep = heavy.resolve(heavy.parse_input({**wall, "impact": "gt75"}), ScriptedDice([6, 1, 1]))
    assert (steep.steps[1].table.column, steep.steps[1].table.cell) == ("3", "1")
    assert steep.steps[2].table.table == "effetti_edifici"
