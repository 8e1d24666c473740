"""Linea gotica fire procedures: direct fire, HE blasts, damage to soldiers and vehicles,
armour penetration, indirect fire's ranging shots, and anti-tank mines on soft vehicles.

A direct-fire shot is one resolution: 1d10 to hit, then (on a hit) the damage dice of the
target — or, for an HE round that missed, 1d10 on the deviation table. HE that lands among
soldiers is resolved per soldier (``he_effect``), each a resolution of its own.
"""

from __future__ import annotations

import enum
import math
from functools import lru_cache
from typing import Any, Literal

from pydantic import Field

from rules.core.compose import independent
from rules.core.dice import D6, D10, DiceTray, Roll
from rules.core.errors import InvalidInput, UnknownName
from rules.core.procedures import OddsLabel, SharedOdds
from rules.core.resolution import (
    Comparison,
    EffectKind,
    Modifier,
    Outcome,
    Resolution,
    ResolutionBuilder,
    Threshold,
)
from rules.core.tables import Row
from rules.linea_gotica.model import (
    RULESET_KEY,
    ChanceModifier,
    Direction,
    HeDeviation,
    IndirectDeviation,
    Quality,
    half_up,
)
from rules.linea_gotica.procedures.checks import (
    Coordination,
    Cover,
    Frozen,
    QualityModifier,
    quality_chance,
    read,
)
from rules.linea_gotica.tables import load_tables

K = RULESET_KEY


class TargetKind(enum.StrEnum):
    """What is hit: a soldier, an unarmoured vehicle, a tank, another armoured vehicle."""

    INFANTRY = "fanteria"
    SOFT = "non_blindato"
    TANK = "carro_armato"
    ARMOURED = "blindato"

    @property
    def armoured(self) -> bool:
        """Tanks and other armoured vehicles."""
        return self in (TargetKind.TANK, TargetKind.ARMOURED)


class SoftClass(enum.StrEnum):
    """The weapon's class on DANNI CONTRO VEICOLI NON BLINDATI."""

    NONE = "none"
    MG = "mg"
    EXPLOSIVE = "explosive"
    CANNON = "cannon"


class Armour(enum.StrEnum):
    """Armour class (media has no modifier)."""

    LEGGERA = "leggera"
    MEDIA = "media"
    PESANTE = "pesante"
    SUPER_PESANTE = "super_pesante"


PenetrationRow = Literal[
    "cannone_40",
    "cannone_60",
    "cannone_86",
    "cannone_oltre_86",
    "panzerfaust_bazooka",
    "panzerfaust_tardo",
    "mortaio_106",
    "mortaio_oltre_106",
    "fuciloni",
]


class DamageSpec(Frozen):
    """What a hit brings: the weapon's classes on the damage and penetration tables."""

    soft_class: SoftClass = SoftClass.NONE
    penetration: PenetrationRow | None = None
    sniper: bool = False
    flame: bool = False
    indirect: bool = False
    flank: bool = Field(False, description="a hit on the flank or rear")
    short_gun: bool = Field(False, description='a "short" gun (cannone corto)')


class TargetSpec(Frozen):
    """Who is hit, with what the damage tables need to know of it."""

    kind: TargetKind = TargetKind.INFANTRY
    armour: Armour = Armour.MEDIA
    turret: bool = True
    weapons: int = Field(1, ge=0, le=6, description="working weapons on board")
    wounded: bool = Field(False, description="the soldier is already wounded")
    unit: str | None = Field(None, max_length=64)
    figure: int | None = Field(None, ge=1, le=100)


def penetration_row_for_calibre(calibre_mm: int, *, indirect: bool) -> str:
    """The PENETRAZIONE CORAZZA row of a gun (or of mortars/artillery) of this calibre."""
    table = load_tables()["penetrazione"]
    prefix = "mortaio" if indirect else "cannone"
    for row in table.rows:
        band = row.data.get("calibre_mm")
        if row.id and row.id.startswith(prefix) and band and band[0] <= calibre_mm <= band[1]:
            return row.id
    raise UnknownName("error.linea_gotica.no_calibre_row", table="penetrazione", mm=calibre_mm)


def blast_row_for_calibre(calibre_mm: int) -> str:
    """The HE area row of a gun or mortar of this calibre."""
    table = load_tables()["area_he"]
    for row in table.rows:
        band = row.data.get("calibre_mm")
        if band and band[0] <= calibre_mm <= band[1] and row.id:
            return row.id
    raise UnknownName("error.linea_gotica.no_calibre_row", table="area_he", mm=calibre_mm)


# -- damage ---------------------------------------------------------------------------------


def _damage_effect(
    builder: ResolutionBuilder, result: str, target: TargetSpec, **params: Any
) -> None:
    builder.effect(EffectKind.DAMAGE, result, target=target.unit, figure=target.figure, **params)


def _owe_morale(builder: ResolutionBuilder, target: TargetSpec, modifier: int = 0) -> None:
    builder.effect(
        EffectKind.TEST_OWED,
        "morale",
        target=target.unit,
        figure=target.figure,
        modifier=modifier or None,
        reason="tabelle",
    )


def _damage_infantry(
    builder: ResolutionBuilder, tray: DiceTray, spec: DamageSpec, target: TargetSpec
) -> Outcome:
    tables = load_tables()
    table = tables["danni_fanteria"]

    def modifiers(face: int) -> list[Modifier]:
        if face in table.data["never_modified"]:
            return []
        if spec.sniper:
            return [Modifier(f"{K}.mod.sniper_damage", int(table.data["modifiers"]["sniper"]))]
        if spec.flame:
            return [Modifier(f"{K}.mod.flame_damage", int(table.data["modifiers"]["flame"]))]
        return []

    def row_of(face: int) -> Row:
        return table.row_for("d10", min(face + sum(m.value for m in modifiers(face)), 10))

    # Only the row is read: the odds branch per row, not per face.
    roll = tray.roll_grouped(
        D10, "Damage (infantry) — d10", lambda face: table.rows.index(row_of(face))
    )
    mods = modifiers(roll.face)
    total = roll.face + sum(m.value for m in mods)
    row = row_of(roll.face)
    result = str(row.data["result"])
    if result in ("wounded", "badly_wounded") and target.wounded:
        result = "dead"
    params: dict[str, int | None] = {}
    bleed = None
    if result == "badly_wounded":
        bleed = tray.roll(D6, "Grave wound: turns to live — d6")
        params["bleed"] = bleed.face
    outcome = Outcome.of(f"{K}.damage.{result}", figure=target.figure, turns=params.get("bleed"))
    builder.step(
        f"{K}.step.damage",
        rolls=(roll,) if bleed is None else (roll, bleed),
        modifiers=tuple(mods),
        total=total,
        table=read(table, row, "effetto" if table.cell(row, "effetto") else "danno"),
        outcome=outcome,
        second=1 if result == "dead" and row.data["result"] != "dead" else None,
    )
    _damage_effect(builder, result, target, **params)
    if row.data.get("morale") and result != "dead":
        _owe_morale(builder, target)
    return outcome


def _damage_soft(
    builder: ResolutionBuilder, tray: DiceTray, spec: DamageSpec, target: TargetSpec
) -> Outcome:
    tables = load_tables()
    table = tables["danni_non_blindati"]
    soft = SoftClass.EXPLOSIVE if spec.flame else spec.soft_class

    def modifiers(face: int) -> list[Modifier]:
        if face in table.data["never_modified"] or soft is SoftClass.NONE:
            return []
        bonus = int(table.data["modifiers"][soft.value])
        return [Modifier(f"{K}.mod.soft_{soft.value}", bonus)]

    def unharmed(face: int) -> bool:
        return spec.flame and face in table.data["flame_no_damage_faces"]

    def row_of(face: int) -> Row:
        return table.row_for("d10", face + sum(m.value for m in modifiers(face)))

    # Only the row (and a flame's harmless faces) is read: the odds branch on those.
    roll = tray.roll_grouped(
        D10,
        "Damage (unarmoured vehicle) — d10",
        lambda face: (table.rows.index(row_of(face)), unharmed(face)),
    )
    mods = modifiers(roll.face)
    total = roll.face + sum(m.value for m in mods)
    row = row_of(roll.face)
    if unharmed(roll.face):
        outcome = Outcome.of(f"{K}.damage.flame_no_damage")
        builder.step(
            f"{K}.step.damage",
            rolls=(roll,),
            modifiers=tuple(mods),
            total=total,
            table=read(table, row, "effetto"),
            outcome=outcome,
        )
        return outcome
    result = str(row.data["result"])
    outcome = Outcome.of(f"{K}.damage.{result}")
    builder.step(
        f"{K}.step.damage",
        rolls=(roll,),
        modifiers=tuple(mods),
        total=total,
        table=read(table, row, "effetto" if table.cell(row, "effetto") else "danno"),
        outcome=outcome,
    )
    _damage_effect(builder, result, target)
    if row.data.get("morale"):
        _owe_morale(builder, target, int(row.data.get("morale_modifier", 0)))
    return outcome


def penetration_chance(
    spec: DamageSpec, target: TargetSpec
) -> tuple[int, tuple[Modifier, ...], Row] | None:
    """PENETRAZIONE CORAZZA with its modifiers; None when the weapon has no row."""
    if spec.penetration is None:
        return None
    tables = load_tables()
    table = tables["penetrazione"]
    row = table.row_by_id(spec.penetration)
    column_key = str(
        table.data["target_columns"]["tank" if target.kind is TargetKind.TANK else "other"]
    )
    base: int = tables.parsed(table, row, table.column(column_key))
    mod_table = tables["modificatori_penetrazione"]

    def value(row_id: str) -> int:
        parsed: ChanceModifier = tables.parsed(
            mod_table, mod_table.row_by_id(row_id), mod_table.column("modifica")
        )
        return parsed.add

    mods: list[Modifier] = []
    if spec.flank:
        mods.append(Modifier(f"{K}.mod.pen_fianco_retro", value("fianco_retro")))
    if target.armour is not Armour.MEDIA:
        mods.append(Modifier(f"{K}.mod.pen_{target.armour.value}", value(target.armour.value)))
    if spec.short_gun:
        mods.append(Modifier(f"{K}.mod.pen_cannone_corto", value("cannone_corto")))
    return base + sum(m.value for m in mods), tuple(mods), row


# A d10 game: the weapon destroyed "a caso" is drawn with the d10 (a 0 reads 10). With n
# weapons the faces 1..n×⌊10/n⌋ name weapon ((face − 1) mod n) + 1; a higher face is rolled
# again, at most WEAPON_REROLLS times (then the last face is read modulo n, so the odds stay
# enumerable; the bias is below 1 %).
WEAPON_REROLLS = 3


def which_weapon(weapons: int, tray: DiceTray) -> tuple[list[Roll], int]:
    """Draw one of ``weapons`` (2..10) with the d10: the rolls made and the weapon's number."""
    usable = weapons * (10 // weapons)
    rolls: list[Roll] = []
    for attempt in range(WEAPON_REROLLS + 1):
        last = attempt == WEAPON_REROLLS

        def reading(face: int, last: bool = last) -> int | None:
            # A weapon's number, or None for "roll again": the odds branch on these.
            return (face - 1) % weapons + 1 if face <= usable or last else None

        pick = tray.roll_grouped(D10, f"Which weapon (1–{weapons}) — d10", reading)
        rolls.append(pick)
        if pick.face <= usable or attempt == WEAPON_REROLLS:
            break
    return rolls, (rolls[-1].face - 1) % weapons + 1


def _draw_weapon(tray: DiceTray, weapons: int) -> int:
    return which_weapon(weapons, tray)[1]


def _last(_: int, weapon: int) -> int:
    return weapon


def _damage_armour(
    builder: ResolutionBuilder, tray: DiceTray, spec: DamageSpec, target: TargetSpec
) -> Outcome:
    tables = load_tables()
    if not spec.flame:
        found = penetration_chance(spec, target)
        if found is None:
            outcome = Outcome.of(f"{K}.damage.cannot_penetrate")
            builder.step(f"{K}.step.penetration", outcome=outcome)
            return outcome
        chance, mods, pen_row = found
        pen_table = tables["penetrazione"]
        column = str(
            pen_table.data["target_columns"]["tank" if target.kind is TargetKind.TANK else "other"]
        )
        cell = read(pen_table, pen_row, column)
        if mods:
            base_mod = Modifier(f"{K}.mod.penetration", chance - sum(m.value for m in mods))
            builder.step(f"{K}.step.chance", modifiers=(base_mod, *mods), total=chance, table=cell)
        roll = tray.roll_against(D10, "Penetration — d10", chance)
        pierced = roll.face <= chance
        pen_outcome = Outcome.of(
            f"{K}.damage.penetrated" if pierced else f"{K}.damage.not_penetrated"
        )
        builder.step(
            f"{K}.step.penetration",
            rolls=(roll,),
            total=roll.face,
            threshold=Threshold(Comparison.AT_MOST, chance, f"{K}.threshold.chance"),
            table=None if mods else cell,
            outcome=pen_outcome,
        )
        if not pierced:
            _owe_morale(builder, target)
            return pen_outcome
    table = tables["danni_blindati"]
    mods2: list[Modifier] = []
    if spec.indirect:
        mods2.append(Modifier(f"{K}.mod.armour_indirect", int(table.data["modifiers"]["indirect"])))
    if spec.flame:
        mods2.append(Modifier(f"{K}.mod.armour_flame", int(table.data["modifiers"]["flame"])))
    shift = sum(m.value for m in mods2)
    # Only the row is read: the odds branch per row, not per face.
    roll = tray.roll_grouped(
        D10,
        "Damage (armoured vehicle) — d10",
        lambda face: table.rows.index(table.row_for("d10", face + shift)),
    )
    total = roll.face + shift
    row = table.row_for("d10", total)
    result = str(row.data["result"])
    column_key = "effetto" if table.cell(row, "effetto") else "danno"
    if spec.flame and row.data.get("flame_immune"):
        outcome = Outcome.of(f"{K}.damage.flame_no_damage")
        builder.step(
            f"{K}.step.damage",
            rolls=(roll,),
            modifiers=tuple(mods2),
            total=total,
            table=read(table, row, column_key),
            outcome=outcome,
        )
        _owe_morale(builder, target)
        return outcome
    if result == "turret_jammed" and not target.turret:
        result = str(row.data["no_turret_as"])
    morale_modifier = int(row.data.get("morale_modifier", 0))
    rolls = [roll]
    weapon: int | None = None
    if result == "weapon_destroyed" and target.weapons >= 1:
        weapon = 1
        if target.weapons >= 2:
            # The draw with its rerolls is one part for the odds: enumerated alone (a few
            # cheap paths), then one branch per weapon instead of every reroll's path.
            start = len(tray.rolls)
            weapon = independent(
                tray,
                (target.weapons,),
                _draw_weapon,
                _last,
                0,
                key=(K, "which_weapon"),
            )
            rolls += tray.rolls[start:]
        if weapon == 1:
            weapons_row = table.row_for("d10", 7)
            morale_modifier = int(weapons_row.data["main_weapon_morale_modifier"])
    outcome = Outcome.of(f"{K}.damage.{result}", weapon=weapon)
    builder.step(
        f"{K}.step.damage",
        rolls=tuple(rolls),
        modifiers=tuple(mods2),
        total=total,
        table=read(table, row, column_key),
        outcome=outcome,
    )
    _damage_effect(builder, result, target, weapon=weapon)
    if row.data.get("morale"):
        _owe_morale(builder, target, morale_modifier)
    return outcome


def damage_chain(
    builder: ResolutionBuilder, tray: DiceTray, spec: DamageSpec, target: TargetSpec
) -> Outcome:
    """Roll the damage of one hit on the target's table (penetration first for armour)."""
    if target.kind is TargetKind.INFANTRY:
        return _damage_infantry(builder, tray, spec, target)
    if target.kind is TargetKind.SOFT:
        return _damage_soft(builder, tray, spec, target)
    return _damage_armour(builder, tray, spec, target)


class DamageInput(Frozen):
    """One hit, resolved on the damage tables (the referee's, or a mine's)."""

    spec: DamageSpec = DamageSpec()
    target: TargetSpec = TargetSpec()


def resolve_damage(data: DamageInput, tray: DiceTray) -> Resolution:
    """DANNI: infantry, unarmoured vehicles, or penetration then armoured vehicles."""
    builder = ResolutionBuilder(K, "damage", tray)
    return builder.finish(damage_chain(builder, tray, data.spec, data.target))


# -- TIRO DIRETTO ---------------------------------------------------------------------------


class TargetMovement(enum.StrEnum):
    """What the target did this turn."""

    FERMO = "fermo"
    CAUTO = "cauto"
    NORMALE = "normale"
    CORSA = "corsa"


class Night(enum.StrEnum):
    """Light: day, moonlit night, moonless night."""

    GIORNO = "giorno"
    LUNA = "luna"
    SENZA_LUNA = "senza_luna"


class TargetFired(enum.StrEnum):
    """Whether the target fired this turn (it matters at night)."""

    NO = "no"
    SINGOLO = "singolo"
    AUTOMATICO = "automatico"


class DirectFireInput(Frozen):
    """One shot of a direct-fire weapon (one roll of an area template) at one target."""

    quality: Quality
    quality_modifier: int = QualityModifier
    weapon: str = Field(min_length=1, max_length=40, description="a row of the weapons table")
    distance_cm: float = Field(ge=0, le=10_000)
    calibre_mm: int | None = Field(None, ge=1, le=1000, description="guns and autocannons")
    penetration: PenetrationRow | None = Field(None, description="override the penetration row")
    short_gun: bool = False
    flank: bool = False
    aimed: bool = False
    sniper: bool = False
    wounded: bool = False
    covering: bool = False
    opportunity: bool = False
    semiautomatic: bool = True
    target_movement: TargetMovement = TargetMovement.FERMO
    prone: bool = False
    cover: Cover = Cover.NONE
    behind_armour: bool = False
    night: Night = Night.GIORNO
    target_fired: TargetFired = TargetFired.NO
    modifier: int = Field(0, ge=-6, le=6, description="a modifier granted by the referee")
    target: TargetSpec = TargetSpec()


def weapon_row(weapon: str) -> Row:
    """A row of the weapons table, or a clear error."""
    table = load_tables()["armi_tiro_diretto"]
    for row in table.rows:
        if row.id == weapon:
            return row
    raise UnknownName("error.linea_gotica.unknown_weapon_row", name=weapon[:40])


def weapon_ranges(weapon: str) -> tuple[int | None, int | None, int | None]:
    """(breve, normale, lunga) in cm of a weapon row (None: NO), inherited when blank."""
    tables = load_tables()
    table = tables["armi_tiro_diretto"]
    row = weapon_row(weapon)
    source = table.row_by_id(str(row.data["ranges_from"])) if "ranges_from" in row.data else row
    values = [tables.parsed(table, source, table.column(key)) for key in table.data["bands"]]
    return values[0], values[1], values[2]


def range_band(weapon: str, distance_cm: float) -> str | None:
    """The band a distance falls in: breve, normale, lunga, or None beyond range."""
    table = load_tables()["armi_tiro_diretto"]
    for band, limit in zip(table.data["bands"], weapon_ranges(weapon), strict=True):
        if limit is not None and distance_cm <= limit:
            return str(band)
    return None


def weapon_damage(data: DirectFireInput, row: Row) -> DamageSpec:
    """The damage classes of the weapon firing."""
    penetration = data.penetration or row.data.get("penetration")
    if penetration is None and row.data.get("penetration_by_calibre"):
        calibre = data.calibre_mm
        if calibre is None:
            if not str(row.id).startswith("cannoncino"):
                raise InvalidInput("error.linea_gotica.calibre_needed", weapon=str(row.id))
            calibre = int(
                load_tables()["aerei"]
                .row_by_id("mitragliamento")
                .data.get("default_calibre_mm", 20)
            )
        penetration = penetration_row_for_calibre(calibre, indirect=False)
    return DamageSpec(
        soft_class=SoftClass(str(row.data.get("soft_vehicle", "none"))),
        penetration=penetration,
        sniper=data.sniper,
        flame=bool(row.data.get("flame")),
        flank=data.flank,
        short_gun=data.short_gun,
    )


def to_hit_chance(data: DirectFireInput) -> tuple[int, list[Modifier], str | None]:
    """The firer's chance: quality, additions, then each ½ rounded up; and the band."""
    tables = load_tables()
    table = tables["modificatori_tiro"]
    row = weapon_row(data.weapon)
    band = range_band(data.weapon, data.distance_cm)
    _, quality_mods = quality_chance(data.quality, data.quality_modifier)
    mods: list[Modifier] = list(quality_mods)

    def add(row_id: str) -> None:
        parsed: ChanceModifier = tables.parsed(
            table, table.row_by_id(row_id), table.column("modifica")
        )
        mods.append(Modifier(f"{K}.mod.{row_id}", parsed.add))

    if band == "breve":
        add("breve")
    elif band == "lunga":
        add("lunga")
    if data.aimed or data.sniper:
        add("mirato")
    if data.target_movement is TargetMovement.CAUTO:
        add("bersaglio_cauto")
    elif data.target_movement is TargetMovement.CORSA:
        add("bersaglio_corsa")
    if data.prone:
        add("sdraiato")
    if data.cover is Cover.LIGHT:
        add("copertura_leggera")
    elif data.cover in (Cover.HEAVY, Cover.ENTRENCHED):
        add("copertura_pesante")
    if data.behind_armour:
        add("dietro_blindato")
    if not data.semiautomatic and 1 in row.data.get("notes", []):
        add("non_semiautomatico")
    if data.night is Night.SENZA_LUNA:
        add("senza_luna")
        if data.distance_cm > int(table.row_by_id("senza_luna").data["max_cm"]):
            band = None
    elif data.night is Night.LUNA:
        near = int(table.row_by_id("luna_20").data["max_cm"])
        add("luna_20" if data.distance_cm <= near else "luna_50")
        if data.distance_cm > int(table.row_by_id("luna_50").data["max_cm"]):
            band = None
    if data.night is not Night.GIORNO:
        if data.target_fired is TargetFired.SINGOLO:
            add("bersaglio_singolo")
        elif data.target_fired is TargetFired.AUTOMATICO:
            add("bersaglio_automatico")
    if data.modifier:
        mods.append(Modifier(f"{K}.mod.referee", data.modifier))
    chance = sum(m.value for m in mods)
    halvings = [
        (data.wounded, "ferito"),
        (data.covering, "copertura"),
        (data.opportunity, "opportunita"),
        (bool(row.data.get("area_halves")), "assalto_area"),
    ]
    for flag, row_id in halvings:
        if flag:
            halved = half_up(chance) if chance > 0 else chance
            mods.append(Modifier(f"{K}.mod.{row_id}", halved - chance))
            chance = halved
    return chance, mods, band


#: The figure number a shared enumeration is made with (`direct_fire_odds`).
_ANY_FIGURE = 100


def direct_fire_odds(data: DirectFireInput) -> SharedOdds[DirectFireInput]:
    """The shots whose odds are the same: an area template's rolls at the figures of one
    squad, or one shot at several distances of the same band.

    The target's figure and unit only label what happens (the figure number is put back
    into the outcomes); a shot in range that cannot deviate depends on its distance only
    through the chance and the band it gives (`to_hit_chance`), so those replace it in the
    key. An HE or flame miss deviates by a share of the distance, and a shot out of range
    names it: those keep their distance.
    """
    target = data.target.model_copy(update={"figure": _ANY_FIGURE, "unit": None})
    enumerate_on = data.model_copy(update={"target": target})
    key = enumerate_on.model_dump_json()
    chance, _, band = to_hit_chance(data)
    if band is not None and str(weapon_row(data.weapon).data["mode"]) not in ("he", "flame"):
        anywhere = enumerate_on.model_copy(update={"distance_cm": 0.0})
        key = f"{chance}|{band}|{anywhere.model_dump_json()}"
    label = OddsLabel("figure", _ANY_FIGURE, data.target.figure)
    return SharedOdds(key, enumerate_on, (label,))


def resolve_direct_fire(data: DirectFireInput, tray: DiceTray) -> Resolution:
    """TIRO DIRETTO: 1d10 ≤ the modified quality; a hit rolls damage (or lands an HE blast),
    an HE miss rolls the deviation table."""
    tables = load_tables()
    weapons = tables["armi_tiro_diretto"]
    row = weapon_row(data.weapon)
    builder = ResolutionBuilder(K, "direct_fire", tray)
    chance, mods, band = to_hit_chance(data)
    line = read(weapons, row, "colpi")
    if band is None:
        outcome = Outcome.of(f"{K}.fire.out_of_range", distance=math.ceil(data.distance_cm))
        builder.step(f"{K}.step.range", table=line, outcome=outcome)
        return builder.finish(outcome)
    mode = str(row.data["mode"])
    # What a hit would do is settled before any die: a gun fired without its calibre is
    # refused whatever the dice, never only when it hits.
    damage = weapon_damage(data, row)
    builder.step(f"{K}.step.chance", modifiers=tuple(mods), total=chance, table=line)
    roll = tray.roll_against(D10, f"To hit ({row.id}) — d10", chance)
    hit = roll.face <= chance
    builder.step(
        f"{K}.step.to_hit",
        rolls=(roll,),
        total=roll.face,
        threshold=Threshold(Comparison.AT_MOST, chance, f"{K}.threshold.chance"),
        outcome=Outcome.of(f"{K}.fire.hit" if hit else f"{K}.fire.miss", band=band),
        band=band,
        figure=data.target.figure,
    )
    explosive = mode in ("he", "flame")
    if hit:
        blast = row.data.get("blast") or ("calibre" if row.data.get("blast_by_calibre") else None)
        if explosive and data.target.kind is TargetKind.INFANTRY and blast is not None:
            outcome = Outcome.of(f"{K}.fire.blast")
            builder.effect(EffectKind.MARKER, "blast", target=data.target.unit)
            return builder.finish(outcome)
        return builder.finish(damage_chain(builder, tray, damage, data.target))
    if not explosive:
        return builder.finish(Outcome.of(f"{K}.fire.miss", band=band))
    table = tables["deviazione_he"]
    deviation_roll = tray.roll_grouped(
        D10, "HE deviation — d10", lambda face: table.rows.index(table.row_for("d10", face))
    )
    dev_row = table.row_for("d10", deviation_roll.face)
    deviation: HeDeviation = tables.parsed(table, dev_row, table.column("effetto"))
    if deviation.dud:
        outcome = Outcome.of(f"{K}.fire.dud")
    else:
        cm = math.ceil(data.distance_cm * deviation.percent / 100)
        outcome = Outcome.of(f"{K}.fire.deviated", direction=deviation.direction.value, cm=cm)
    builder.step(
        f"{K}.step.he_deviation",
        rolls=(deviation_roll,),
        total=deviation_roll.face,
        table=read(table, dev_row, "effetto"),
        outcome=outcome,
    )
    return builder.finish(outcome)


# -- HE: probabilità di essere colpiti -------------------------------------------------------


class HeEffectInput(Frozen):
    """One soldier or vehicle inside an HE blast (fire for effect, direct HE, bombs, mines)."""

    zone: Literal["breve", "lunga"]
    terrain: Literal["aperto", "copertura", "trincerati"] = "aperto"
    heavy_calibre: bool = Field(False, description="guns or mortars of 106 mm and more")
    bombs: Literal["none", "anti_fanteria", "anti_carro", "napalm"] = "none"
    spec: DamageSpec = DamageSpec()
    target: TargetSpec = TargetSpec()


def resolve_he_effect(data: HeEffectInput, tray: DiceTray) -> Resolution:
    """Probabilità HE: 1d10 ≤ the cell (+1 over 106 mm, ½ for the wrong bombs); a hit rolls
    the damage of the target's table."""
    tables = load_tables()
    table = tables["probabilita_he"]
    terrain = data.terrain
    if data.target.kind is not TargetKind.INFANTRY and terrain == "trincerati":
        terrain = "copertura"
    row = table.row_by_id(terrain)
    chance: int = tables.parsed(table, row, table.column(data.zone))
    mods: list[Modifier] = []
    if data.heavy_calibre:
        bonus = int(table.data["heavy_calibre_bonus"])
        mods.append(Modifier(f"{K}.mod.heavy_calibre", bonus))
        chance += bonus
    if data.bombs != "none":
        aircraft = tables["aerei"]
        halves = aircraft.row_by_id(data.bombs).data["halves"]
        if (halves == "armoured" and data.target.kind.armoured) or (
            halves == "infantry" and data.target.kind is TargetKind.INFANTRY
        ):
            halved = half_up(chance)
            mods.append(Modifier(f"{K}.mod.bombs_{data.bombs}", halved - chance))
            chance = halved
    builder = ResolutionBuilder(K, "he_effect", tray)
    cell = read(table, row, data.zone)
    if mods:
        builder.step(f"{K}.step.chance", modifiers=tuple(mods), total=chance, table=cell)
    roll = tray.roll_against(D10, f"HE ({data.zone}) — d10", chance)
    hit = roll.face <= chance
    builder.step(
        f"{K}.step.he_hit",
        rolls=(roll,),
        total=roll.face,
        threshold=Threshold(Comparison.AT_MOST, chance, f"{K}.threshold.chance"),
        table=None if mods else cell,
        outcome=Outcome.of(f"{K}.fire.hit" if hit else f"{K}.fire.miss", band=data.zone),
        figure=data.target.figure,
    )
    if not hit:
        return builder.finish(Outcome.of(f"{K}.he.spared", figure=data.target.figure))
    return builder.finish(damage_chain(builder, tray, data.spec, data.target))


# -- TIRO INDIRETTO ---------------------------------------------------------------------------


class RangingInput(Frozen):
    """A ranging shot (or an air attack's approach): precise or imprecise, then where."""

    quality: Quality
    quality_modifier: int = QualityModifier
    coordination: int = Coordination


def resolve_ranging(data: RangingInput, tray: DiceTray) -> Resolution:
    """The observer's 1d10 ≤ quality makes it precise; 1d10 on PRECISO or IMPRECISO."""
    tables = load_tables()
    base, mods = quality_chance(data.quality, data.quality_modifier, coordination=data.coordination)
    builder = ResolutionBuilder(K, "ranging", tray)
    if len(mods) > 1:
        builder.step(f"{K}.step.chance", modifiers=mods, total=base)
    roll = tray.roll_against(D10, "Ranging: precision — d10", base)
    precise = roll.face <= base
    builder.step(
        f"{K}.step.precision",
        rolls=(roll,),
        total=roll.face,
        threshold=Threshold(Comparison.AT_MOST, base, f"{K}.threshold.chance"),
        outcome=Outcome.of(f"{K}.ranging.precise" if precise else f"{K}.ranging.imprecise"),
    )
    table = tables["deviazione_preciso" if precise else "deviazione_impreciso"]
    where = tray.roll_grouped(
        D10, "Ranging: deviation — d10", lambda face: table.rows.index(table.row_for("d10", face))
    )
    row = table.row_for("d10", where.face)
    deviation: IndirectDeviation = tables.parsed(table, row, table.column("effetto"))
    kind = "precise" if precise else "imprecise"
    if deviation.on_target:
        outcome = Outcome.of(f"{K}.ranging.on_target", kind=kind)
    elif deviation.lost:
        outcome = Outcome.of(f"{K}.ranging.lost", kind=kind)
    else:
        outcome = Outcome.of(
            f"{K}.ranging.deviated_across" if deviation.across_dice else f"{K}.ranging.deviated",
            kind=kind,
            along=deviation.along.value,
            along_dice=deviation.along_dice,
            across=deviation.across.value if deviation.across_dice else None,
            across_dice=deviation.across_dice or None,
        )
    builder.step(
        f"{K}.step.deviation",
        rolls=(where,),
        total=where.face,
        table=read(table, row, "effetto"),
        outcome=outcome,
    )
    return builder.finish(outcome)


class ScatterDistanceInput(Frozen):
    """How far a deviated ranging shot lands in one direction: 1d10 or 4d10 cm."""

    dice: int = Field(ge=1, le=4)
    direction: Direction = Direction.LONG


@lru_cache(maxsize=256)
def _deviation_labels(direction: str, dice: int) -> tuple[str, ...]:
    return tuple(f"Deviation {direction} #{index + 1} — d10" for index in range(dice))


def resolve_scatter_distance(data: ScatterDistanceInput, tray: DiceTray) -> Resolution:
    """The cm of a deviation: the sum of its d10s."""
    builder = ResolutionBuilder(K, "scatter_distance", tray)
    direction = data.direction.value
    # Only the sum is read: the odds branch on its distribution, play rolls every d10.
    rolls = tray.roll_sum(D10, _deviation_labels(direction, data.dice))
    total = sum(roll.face for roll in rolls)
    outcome = Outcome.of(f"{K}.ranging.distance", direction=direction, cm=total)
    builder.step(
        f"{K}.step.scatter_distance", rolls=rolls, total=total, outcome=outcome, direction=direction
    )
    return builder.finish(outcome)


# -- MINE -----------------------------------------------------------------------------------


class MineVehicleInput(Frozen):
    """An anti-tank mine under an unarmoured vehicle."""

    target: TargetSpec = TargetSpec(kind=TargetKind.SOFT)


def resolve_mine_vehicle(data: MineVehicleInput, tray: DiceTray) -> Resolution:
    """Anti-tank mines destroy unarmoured vehicles on 1–5."""
    table = load_tables()["mine"]
    row = table.row_by_id("anticarro")
    limit = int(row.data["unarmoured"]["destroyed_at_most"])
    builder = ResolutionBuilder(K, "mine_vehicle", tray)
    roll = tray.roll_against(D10, "Anti-tank mine — d10", limit)
    destroyed = roll.face <= limit
    outcome = Outcome.of(f"{K}.damage.destroyed" if destroyed else f"{K}.damage.no_effect")
    builder.step(
        f"{K}.step.mine",
        rolls=(roll,),
        total=roll.face,
        threshold=Threshold(Comparison.AT_MOST, limit, f"{K}.threshold.chance"),
        table=read(table, row, "non_blindati"),
        outcome=outcome,
    )
    if destroyed:
        _damage_effect(builder, "destroyed", data.target)
    return builder.finish(outcome)
