"""Manovra fire procedures: small arms, heavy weapons (and HE fragments), incendiaries."""

from __future__ import annotations

import enum
from collections.abc import Hashable
from functools import cache, lru_cache
from importlib import resources
from typing import Literal

from pydantic import Field, model_validator

from rules.core.caches import BoundedCache
from rules.core.compose import independent
from rules.core.dice import D6, D10, DiceTray, parse_die
from rules.core.errors import InvalidInput, UnknownName
from rules.core.procedures import ODDS_CACHE_CLEARERS
from rules.core.resolution import (
    Comparison,
    EffectKind,
    Modifier,
    Outcome,
    Resolution,
    ResolutionBuilder,
    TableRead,
    Threshold,
)
from rules.core.tables import Column, Row, Table, TableSet
from rules.core.yamlio import load_yaml
from rules.manovra.cells import CellEffect
from rules.manovra.model import RULESET_KEY, SAVED_BY, Cover, RangeBand, band_die
from rules.manovra.procedures.checks import (
    Frozen,
    ScatterInput,
    ScatterKind,
    TestInput,
    TestKind,
    resolve_scatter,
    resolve_test,
)
from rules.manovra.tables import load_tables

MAX_SHOTS = 10_000


# Cells read, by the identity of their table, row and column (the loaded tables live as long
# as the process): every odds path reads the same few cells again.
_READS: BoundedCache[tuple[int, int, int], tuple[Table, Row, Column, TableRead]] = BoundedCache(
    2048, name="manovra cells read"
)


def _read(table: Table, row: Row, column: Column) -> TableRead:
    key = (id(table), id(row), id(column))
    known = _READS.get(key)
    if known is not None and known[0] is table and known[1] is row and known[2] is column:
        return known[3]
    read = TableRead(
        table.id, table.title, table.row_label(row), column.label, table.cell(row, column)
    )
    _READS.put(key, (table, row, column, read))
    return read


def _row_axis(moving: bool) -> str:
    return "in_moto" if moving else "fermo"


def _apply_cell(
    builder: ResolutionBuilder,
    effects: tuple[CellEffect, ...],
    *,
    target: str | None,
    models_present: int | None,
) -> int:
    """Record a result cell's effects; return the casualties it inflicts (capped)."""
    casualties = 0
    everyone = False
    for effect in effects:
        if effect.kind == "casualties":
            if effect.all and models_present is None:
                everyone = True  # "tutti morti" with no head count: the whole crew
                continue
            amount = models_present if effect.all else effect.amount
            casualties += amount if amount is not None else 0
        elif effect.kind == "test" and effect.key:
            builder.effect(EffectKind.TEST_OWED, effect.key, target=target)
        elif effect.kind == "status" and effect.key:
            builder.effect(EffectKind.STATUS, effect.key, target=target)
        elif effect.kind == "movement" and effect.key:
            builder.effect(EffectKind.MOVEMENT, effect.key, target=target)
        elif effect.kind == "building" and effect.key:
            builder.effect(EffectKind.STATUS, f"building_{effect.key}", target=target)
        elif effect.kind == "crew_safe":
            builder.effect(EffectKind.STATUS, "crew_safe", target=target)
    if models_present is not None:
        casualties = min(casualties, models_present)
    if everyone:
        builder.effect(EffectKind.CASUALTIES, "all_killed", target=target)
    elif casualties:
        builder.effect(EffectKind.CASUALTIES, "killed", target=target, amount=casualties)
    return casualties


# -- FUOCO ARMI LEGGERE ------------------------------------------------------------------------


class SmallArmsTarget(enum.StrEnum):
    """Which small-arms table: infantry and artillery, or unarmoured vehicles."""

    FANTERIA = "fanteria"
    ARTIGLIERIA = "artiglieria"
    VEICOLO = "veicolo"


class SmallArmsInput(Frozen):
    """A unit's light weapons firing at one target: their rates of fire summed into shots."""

    target_kind: SmallArmsTarget
    band: Literal[RangeBand.UTILE, RangeBand.EFFICACE, RangeBand.BREVE]
    ad: int = Field(ge=0, le=3)
    shots: int = Field(ge=1, le=MAX_SHOTS, description="sum of the rates of fire fired")
    target_moving: bool = False
    cover: Cover = Cover.NONE
    models_present: int = Field(ge=0, le=1000, description="models in the target (caps losses)")
    initial_models: int | None = Field(None, ge=1, le=1000)
    target: str | None = Field(None, max_length=64, description="target unit id, for effects")

    @model_validator(mode="after")
    def _strength(self) -> SmallArmsInput:
        if self.initial_models is not None and self.models_present > self.initial_models:
            raise ValueError("models_present exceeds initial_models")
        return self


def resolve_small_arms(data: SmallArmsInput, tray: DiceTray) -> Resolution:
    """One die by range band + AD; row by target motion; column by shots (and cover)."""
    tables = load_tables()
    vehicle = data.target_kind is SmallArmsTarget.VEICOLO
    table = tables["fuoco_leggere_veicoli" if vehicle else "fuoco_leggere_fanteria"]
    die = band_die(table, data.band)
    axis = _row_axis(data.target_moving)
    if vehicle:
        column = table.column_for(data.shots)
    else:
        group = str(table.data["cover_groups"][data.cover.value])
        column = table.column_for(data.shots, group)
    # The face is read through the cell alone: the odds branch once per distinct cell.
    roll = tray.roll_grouped(
        die,
        f"{die.name} {data.band.value} — small arms",
        lambda face: tables.parsed(table, table.row_for(axis, face + data.ad), column),
    )
    total = roll.face + data.ad
    row = table.row_for(axis, total)
    builder = ResolutionBuilder(RULESET_KEY, "small_arms", tray)
    parsed = tables.parsed(table, row, column)
    if vehicle:
        casualties = _apply_cell(
            builder, parsed, target=data.target, models_present=data.models_present
        )
    else:
        casualties = min(int(parsed or 0), data.models_present)
        if casualties:
            builder.effect(EffectKind.CASUALTIES, "killed", target=data.target, amount=casualties)
    # The 50% rule: once reduced to half strength, every further loss owes a CT.
    half_rule = (
        not vehicle
        and casualties > 0
        and data.initial_models is not None
        and 2 * data.models_present <= data.initial_models
    )
    if half_rule and not any(e.key == "CT" for e in builder.effects):
        builder.effect(EffectKind.TEST_OWED, "CT", target=data.target, reason="half_strength")
    outcome = (
        Outcome.of("manovra.fire.casualties", n=casualties)
        if casualties
        else Outcome.of("manovra.fire.no_effect")
    )
    statuses = sorted(e.key for e in builder.effects if e.kind is EffectKind.STATUS)
    if statuses:
        outcome = Outcome.of(outcome.key, n=casualties or None, status="+".join(statuses))
    builder.step(
        "manovra.step.small_arms",
        rolls=(roll,),
        modifiers=(Modifier("manovra.mod.ad", data.ad),),
        total=total,
        table=_read(table, row, column),
        outcome=outcome,
        shots=data.shots,
    )
    return builder.finish(outcome)


# -- ARMI PESANTI ------------------------------------------------------------------------------


class HeavyTarget(enum.StrEnum):
    """The target columns of TIRO ARMI PESANTI."""

    CARRO_ALTO = "carro_alto"
    CARRO = "carro"
    BASSO_PROFILO = "basso_profilo"
    SEMICINGOLATO = "semicingolato"
    CAMION = "camion"
    JEEP = "jeep"
    FANTERIA = "fanteria"
    ARTIGLIERIA = "artiglieria"
    EDIFICIO_CENTRO = "edificio_centro"
    EDIFICIO_MURO = "edificio_muro"
    BUNKER_MURO = "bunker_muro"
    APERTURA = "apertura"
    FERITOIA = "feritoia"


BUILDING_TARGETS = {
    HeavyTarget.EDIFICIO_CENTRO,
    HeavyTarget.EDIFICIO_MURO,
    HeavyTarget.BUNKER_MURO,
    HeavyTarget.APERTURA,
    HeavyTarget.FERITOIA,
}


class Ammo(enum.StrEnum):
    """Armour-piercing, or high-explosive / anti-aircraft (the HE/AA calibre rows)."""

    AP = "AP"
    HE = "HE"


class Delivery(enum.StrEnum):
    """How the round travels, for the scatter row of a miss."""

    DIRECT = "direct"
    MORTAR = "mortar"
    THROWN = "thrown"
    INDIRECT = "indirect"


class HitTarget(Frozen):
    """What a heavy-weapon round or its fragments strike: the target and its protection."""

    ad: int = Field(ge=0, le=3, description="AD of the firing unit")
    target: HeavyTarget
    calibre_mm: int = Field(ge=1, le=1000)
    armour: dict[str, int] = Field(
        default_factory=dict, description="armour in cm of the facing hit, per location"
    )
    turret: bool = True
    tracked: bool = True
    open_topped: bool = False
    chosen_location: str | None = Field(None, max_length=20)
    cover: Cover = Cover.NONE
    wall: Literal["L", "M", "C", "B"] | None = None
    building: Literal["legno", "casa", "palazzo", "bunker"] | None = None
    models_present: int | None = Field(None, ge=0, le=1000)
    target_has_manoeuvred: bool = False
    target_id: str | None = Field(None, max_length=64)

    @model_validator(mode="after")
    def _coherent(self) -> HitTarget:
        if len(self.armour) > 10 or any(not 0 <= v <= 100 for v in self.armour.values()):
            raise ValueError("armour: up to 10 locations, 0–100 cm each")
        if self.target in BUILDING_TARGETS - {HeavyTarget.APERTURA, HeavyTarget.FERITOIA} and (
            self.wall is None or self.building is None
        ):
            raise ValueError("a building target needs 'wall' (L/M/C/B) and 'building'")
        return self


class HeavyFireInput(HitTarget):
    """One heavy-weapon round at one target (or HE fragments reaching it)."""

    band: RangeBand
    target_moving: bool = False
    ammo: Ammo = Ammo.AP
    gun_class: str | None = Field(
        None, max_length=10, description="Bm, Ex, Mm, 2p, 6p, 17-25p, 50L, 75L, 88L"
    )
    impact: Literal["lt75", "gt75"] = Field("lt75", description="impact angle < 75° or > 75°")
    delivery: Delivery = Delivery.DIRECT
    fragments: bool = Field(False, description="resolve HE fragments (☼ columns)")

    @model_validator(mode="after")
    def _band_matches(self) -> HeavyFireInput:
        if self.fragments and self.band is not RangeBand.SCHEGGE:
            raise ValueError("fragments use the 'schegge' band")
        if self.band is RangeBand.SCHEGGE and not self.fragments:
            raise ValueError("the 'schegge' band is for fragments only")
        return self


class HeFragmentsInput(HitTarget):
    """A model within the blast of an HE round: the fragments procedure (☼)."""

    def as_heavy(self) -> HeavyFireInput:
        """The same shot expressed for the heavy-weapon resolver."""
        return HeavyFireInput(
            band=RangeBand.SCHEGGE, fragments=True, ammo=Ammo.HE, **self.model_dump()
        )


@cache
def _locations() -> dict[str, dict[str, str]]:
    text = (resources.files("rules.manovra") / "data" / "locations.yaml").read_text("utf-8")
    data: dict[str, dict[str, str]] = load_yaml(text)["targets"]
    return data


def _effective_cover(cover: Cover, calibre_mm: int, table: Table) -> Cover:
    """Large calibres negate light (> 70 mm) and medium (> 122 mm) cover."""
    if cover is Cover.LIGHT and calibre_mm > int(table.data["negates_light_cover_above_mm"]):
        return Cover.NONE
    if cover is Cover.MEDIUM and calibre_mm > int(table.data["negates_medium_cover_above_mm"]):
        return Cover.NONE
    return cover


def _resolve_location(location: str, data: HeavyFireInput) -> str:
    if location == "torretta_casamatta":
        return "torretta" if data.turret else "casamatta"
    if location == "ruota_cingolo":
        return "cingolo" if data.tracked else "ruota"
    if location == "a_scelta":
        allowed = set(_locations().get(data.target.value, {}))
        if data.chosen_location is not None:
            if data.chosen_location not in allowed:
                raise InvalidInput(
                    "error.manovra.bad_location",
                    location=data.chosen_location,
                    allowed=", ".join(sorted(allowed)),
                )
            return data.chosen_location
        # The shooter's best choice: an open top, else the thinnest horizontal/hull armour.
        if data.open_topped:
            return "apertura"
        return "superiore" if "superiore" in data.armour else "scafo"
    return location


def _on_axis(table: Table, axis: str, gun_class: str) -> bool:
    try:
        table.row_for(axis, gun_class)
    except UnknownName:
        return False
    return True


@lru_cache(maxsize=64)
def _always_gt75(classes: tuple[object, ...]) -> frozenset[str]:
    return frozenset(str(name) for name in classes)


def _penetration(
    builder: ResolutionBuilder,
    tray: DiceTray,
    tables: TableSet,
    data: HeavyFireInput,
    armour_cm: int | None,
    wall: str | None,
    location: str,
) -> bool:
    """Roll against PENETRAZIONE CORAZZA; True when the armour or wall is pierced.

    ``location`` (the part struck, or ``muro``) is named by the step's outcome as by the
    command's: "Armour not pierced (turret)".
    """
    table = tables["penetrazione"]
    always_gt75 = _always_gt75(tuple(table.data["always_gt75_classes"]))
    axis = "ap" if data.ammo is Ammo.AP else "he"
    if data.fragments:
        row = table.row_for("he", "☼")
    elif data.gun_class and _on_axis(table, axis, data.gun_class):
        row = table.row_for(axis, data.gun_class)
    elif data.gun_class and not _on_axis(table, "he" if axis == "ap" else "ap", data.gun_class):
        raise InvalidInput(
            "error.manovra.bad_gun_class", gun_class=data.gun_class, ammo=data.ammo.value
        )
    else:
        # No class, or a class the table gives for the other ammunition only (a 75L firing
        # HE): the round reads the row of its calibre.
        try:
            row = table.row_for(axis, data.calibre_mm)
        except UnknownName:
            raise InvalidInput(
                "error.manovra.calibre_not_in_table", calibre=data.calibre_mm, ammo=data.ammo.value
            ) from None
    group = "gt75" if (data.impact == "gt75" or (data.gun_class in always_gt75)) else "lt75"
    if data.delivery is Delivery.INDIRECT:
        group = str(table.data["indirect_fire_group"])
    # Walls (L wood, M brick, C concrete, B bunker) are thicknesses the legend names.
    thickness = int(table.data["wall_thickness_cm"][wall]) if wall else max(1, armour_cm or 1)
    column = table.column_for(thickness, group)
    needed = tables.parsed(table, row, column)
    die = band_die(table, data.band)
    roll = tray.roll_grouped(
        die, f"{die.name} — penetration", lambda face: needed is not None and face >= needed
    )
    pierced = needed is not None and roll.face >= needed
    outcome = (
        Outcome.of("manovra.heavy.penetrated")
        if pierced
        else Outcome.of("manovra.heavy.not_penetrated", location=location)
    )
    builder.step(
        "manovra.step.penetration",
        rolls=(roll,),
        total=roll.face,
        threshold=None
        if needed is None
        else Threshold(Comparison.AT_LEAST, needed, "manovra.threshold.needed"),
        table=_read(table, row, column),
        outcome=outcome,
    )
    return pierced


def resolve_heavy_fire(data: HeavyFireInput, tray: DiceTray) -> Resolution:
    """TIRO → (HE miss → scatter) → PENETRAZIONE → (EDIFICI) → EFFETTI; SF owed on a hit."""
    tables = load_tables()
    builder = ResolutionBuilder(
        RULESET_KEY, "he_fragments" if data.fragments else "heavy_fire", tray
    )
    to_hit = tables["tiro_armi_pesanti"]
    die = band_die(to_hit, data.band)
    # Fragments (☼) and artificial elements (π) read the stationary column.
    moving = data.target_moving and not data.fragments and data.target not in BUILDING_TARGETS
    axis = _row_axis(moving)
    column = to_hit.column(data.target.value)

    def what_follows(face: int) -> Hashable:
        # All that the rest of the shot reads of the cell: a miss, a kill (and the cover
        # that saves from it), or the location struck once resolved ("a scelta" and "scafo"
        # may strike the same): one odds branch per distinct continuation.
        cell: tuple[CellEffect, ...] = tables.parsed(
            to_hit, to_hit.row_for(axis, face + data.ad), column
        )
        if not cell:
            return None
        if cell[0].kind in ("killed", "killed_unless_cover"):
            return cell[0].kind, cell[0].saved_by
        return "at", _resolve_location(cell[0].key or "", data)

    roll = tray.roll_grouped(die, f"{die.name} {data.band.value} — to hit", what_follows)
    total = roll.face + data.ad
    row = to_hit.row_for(axis, total)
    cell: tuple[CellEffect, ...] = tables.parsed(to_hit, row, column)
    read = _read(to_hit, row, column)
    mods = (Modifier("manovra.mod.ad", data.ad),)
    target = data.target_id

    if not cell:
        outcome = Outcome.of("manovra.heavy.miss")
        builder.step(
            "manovra.step.to_hit",
            rolls=(roll,),
            modifiers=mods,
            total=total,
            table=read,
            outcome=outcome,
        )
        if data.ammo is Ammo.HE and not data.fragments:
            return _scatter_after_miss(builder, tray, tables, data)
        return builder.finish(outcome)

    hit = cell[0]
    hit_outcome = Outcome.of("manovra.heavy.hit", location=hit.key or hit.kind)
    builder.step(
        "manovra.step.to_hit",
        rolls=(roll,),
        modifiers=mods,
        total=total,
        table=read,
        outcome=hit_outcome,
    )
    is_unit = data.target not in BUILDING_TARGETS
    if is_unit and not data.target_has_manoeuvred:
        builder.effect(EffectKind.TEST_OWED, "SF", target=target, reason="hit")

    if hit.kind in ("killed", "killed_unless_cover"):
        cover = _effective_cover(data.cover, data.calibre_mm, to_hit)
        saved = (
            hit.kind == "killed_unless_cover"
            and cover.rank >= SAVED_BY[hit.saved_by or "light"].rank
        )
        if saved:
            outcome = Outcome.of("manovra.heavy.saved_by_cover", cover=cover.value)
        else:
            builder.effect(EffectKind.CASUALTIES, "killed", target=target, amount=1)
            outcome = Outcome.of("manovra.heavy.killed")
        builder.step(
            "manovra.step.cover",
            outcome=outcome,
            cover=data.cover.value,
            effective_cover=cover.value,
        )
        return builder.finish(outcome)

    location = _resolve_location(hit.key or "", data)
    if data.target in BUILDING_TARGETS:
        return _building_hit(builder, tray, tables, data, location)

    mapping = _locations().get(data.target.value, {})
    if location not in mapping:
        raise InvalidInput(
            "error.manovra.bad_location", location=location, allowed=", ".join(sorted(mapping))
        )
    armour = data.armour.get(location)
    if armour is not None and not _penetration(builder, tray, tables, data, armour, None, location):
        outcome = Outcome.of("manovra.heavy.not_penetrated", location=location)
        return builder.finish(outcome)
    return _effects(builder, tray, tables, data, mapping[location], location)


def _effects(
    builder: ResolutionBuilder,
    tray: DiceTray,
    tables: TableSet,
    data: HeavyFireInput,
    column_key: str,
    location: str,
) -> Resolution:
    table = tables["effetti_armi_pesanti"]
    axis = "schegge" if data.fragments else "diretto"
    column = table.column(column_key)
    roll = tray.roll_grouped(
        D10, "D10 — effects", lambda face: tables.parsed(table, table.row_for(axis, face), column)
    )
    row = table.row_for(axis, roll.face)
    effects: tuple[CellEffect, ...] = tables.parsed(table, row, column)
    casualties = _apply_cell(
        builder, effects, target=data.target_id, models_present=data.models_present
    )
    statuses = sorted({e.key for e in effects if e.kind in ("status", "movement") and e.key})
    outcome = Outcome.of(
        "manovra.heavy.effect",
        location=location,
        status="+".join(statuses) or None,
        n=casualties or None,
        ct=1 if any(e.key == "CT" for e in effects) else None,
    )
    builder.step(
        "manovra.step.effects",
        rolls=(roll,),
        total=roll.face,
        table=_read(table, row, column),
        outcome=outcome,
    )
    return builder.finish(outcome)


def _building_hit(
    builder: ResolutionBuilder,
    tray: DiceTray,
    tables: TableSet,
    data: HeavyFireInput,
    location: str,
) -> Resolution:
    if location == "apertura":
        if data.ammo is Ammo.HE:
            roll = tray.roll(D6, "D6 — cm inside the building")
            outcome = Outcome.of("manovra.heavy.opening_he", cm=roll.face)
            builder.step("manovra.step.opening", rolls=(roll,), total=roll.face, outcome=outcome)
        else:
            outcome = Outcome.of("manovra.heavy.opening_ap")
            builder.step("manovra.step.opening", outcome=outcome)
        return builder.finish(outcome)
    wall = data.wall or "B"
    if not _penetration(builder, tray, tables, data, None, wall, "muro"):
        return builder.finish(Outcome.of("manovra.heavy.not_penetrated", location="muro"))
    table = tables["effetti_edifici"]
    axis = None
    for spec in table.data["calibre_columns"]:
        if data.calibre_mm > int(spec["above_mm"]):
            axis = str(spec["axis"])
            break
    if axis is None:
        outcome = Outcome.of("manovra.building.too_small", calibre=data.calibre_mm)
        builder.step("manovra.step.building", outcome=outcome)
        return builder.finish(outcome)
    column = table.column(data.building or "casa")
    band_axis = axis

    def effect_of(face: int) -> object:
        if not _has_band(table, band_axis, face):
            return None
        return tables.parsed(table, table.row_for(band_axis, face), column)

    roll = tray.roll_grouped(D10, "D10 — building effects", effect_of)
    row = table.row_for(axis, roll.face) if _has_band(table, axis, roll.face) else None
    if row is None:
        outcome = Outcome.of("manovra.building.no_effect")
        builder.step("manovra.step.building", rolls=(roll,), total=roll.face, outcome=outcome)
        return builder.finish(outcome)
    effects: tuple[CellEffect, ...] = tables.parsed(table, row, column)
    _apply_cell(builder, effects, target=data.target_id, models_present=None)
    keys = "+".join(e.key or "" for e in effects if e.kind == "building")
    outcome = Outcome.of("manovra.building.effect", effect=keys)
    builder.step(
        "manovra.step.building",
        rolls=(roll,),
        total=roll.face,
        table=_read(table, row, column),
        outcome=outcome,
    )
    return builder.finish(outcome)


def _has_band(table: Table, axis: str, value: int) -> bool:
    return any(band is not None and value in band for band, _, _ in table.axis_bands(axis))


@lru_cache(maxsize=256)
def _miss_scatter(delivery: Delivery, ad: int) -> ScatterInput:
    """Where a missed HE round of this delivery lands (built once, not on every odds path)."""
    kind = {
        Delivery.DIRECT: ScatterKind.DIRETTO_HE,
        Delivery.THROWN: ScatterKind.LANCIO_ORDIGNI,
        Delivery.MORTAR: ScatterKind.MORTAI_DIRETTO,
        Delivery.INDIRECT: ScatterKind.INDIRETTO_IN_CAMPO,
    }[delivery]
    return ScatterInput(kind=kind, ad=ad)


def _scatter_after_miss(
    builder: ResolutionBuilder, tray: DiceTray, tables: TableSet, data: HeavyFireInput
) -> Resolution:
    scatter = resolve_scatter(_miss_scatter(data.delivery, data.ad), tray)
    builder.steps.extend(scatter.steps)
    cm = scatter.outcome.param("cm")
    outcome = Outcome.of("manovra.heavy.miss_scatter", cm=cm if cm is not None else 0)
    return builder.finish(outcome)


def resolve_he_fragments(data: HeFragmentsInput, tray: DiceTray) -> Resolution:
    """The fragments procedure: TIRO (☼) → PENETRAZIONE (☼) → EFFETTI (schegge)."""
    return resolve_heavy_fire(data.as_heavy(), tray)


# -- Bombe a mano: PT, then the blast ----------------------------------------------------------


class ThrownInput(HitTarget):
    """A hand grenade (Bm) thrown at a unit: a PT decides whether it lands where aimed."""

    band: RangeBand = RangeBand.BREVE
    vehicle: bool = Field(False, description="aimed at a vehicle's openings (PT against D12)")
    gun_class: str = Field("Bm", max_length=10)


@lru_cache(maxsize=256)
def _precision_test(ad: int, vehicle: bool) -> TestInput:
    return TestInput(kind=TestKind.PT, ad=ad, precision_die="D12" if vehicle else "D10")


@lru_cache(maxsize=128)
def _grenade_scatter(ad: int) -> ScatterInput:
    return ScatterInput(kind=ScatterKind.LANCIO_ORDIGNI, ad=ad)


# The round a grenade becomes once on target, per thrown input: an odds enumeration asks for
# it on every path, and validating it costs as much as a short resolver step. Keyed by the
# input's identity (inputs holding armour are not hashable); the entry keeps the input
# alive, so its id cannot be reused while cached.
_SHOTS: BoundedCache[int, tuple[ThrownInput, HeavyFireInput]] = BoundedCache(
    64, name="manovra grenade shots"
)
ODDS_CACHE_CLEARERS.append(_SHOTS.clear)  # a cold benchmark forgets them too


def _grenade_shot(data: ThrownInput) -> HeavyFireInput:
    """The blast on infantry and artillery (fragments), or the Bm round at a vehicle."""
    cached = _SHOTS.get(id(data))
    if cached is not None and cached[0] is data:
        return cached[1]
    fields = data.model_dump(exclude={"band", "vehicle", "gun_class"})
    if data.vehicle:
        shot = HeavyFireInput(
            band=data.band, ammo=Ammo.HE, gun_class=data.gun_class, impact="gt75", **fields
        )
    else:
        shot = HeavyFireInput(band=RangeBand.SCHEGGE, fragments=True, ammo=Ammo.HE, **fields)
    _SHOTS.put(id(data), (data, shot))
    return shot


def resolve_thrown(data: ThrownInput, tray: DiceTray) -> Resolution:
    """PT (D6 + AD ≥ D10, or ≥ D12 at a vehicle); a miss lands D8 − AD cm away (scatter).

    On the target: infantry and artillery take the fragments (☼); a vehicle takes the blast
    in its open top, or on its top armour (PENETRAZIONE, Bm row) and then EFFETTI.
    """
    tables = load_tables()
    builder = ResolutionBuilder(RULESET_KEY, "thrown", tray)
    test = resolve_test(_precision_test(data.ad, data.vehicle), tray)
    builder.steps.extend(test.steps)
    if test.outcome.key != "manovra.test.passed":
        scatter = resolve_scatter(_grenade_scatter(data.ad), tray)
        builder.steps.extend(scatter.steps)
        cm = scatter.outcome.param("cm")
        return builder.finish(
            Outcome.of("manovra.heavy.miss_scatter", cm=cm if cm is not None else 0)
        )
    shot = _grenade_shot(data)
    if not data.vehicle:
        blast = resolve_heavy_fire(shot, tray)
        builder.steps.extend(blast.steps)
        builder.effects.extend(blast.effects)
        return builder.finish(blast.outcome)
    if data.target_id is not None and not data.target_has_manoeuvred:
        builder.effect(EffectKind.TEST_OWED, "SF", target=data.target_id, reason="hit")
    location = (
        "apertura" if data.open_topped else "superiore" if "superiore" in data.armour else "scafo"
    )
    armour = data.armour.get(location)
    if armour is not None and not _penetration(builder, tray, tables, shot, armour, None, location):
        return builder.finish(Outcome.of("manovra.heavy.not_penetrated", location=location))
    mapping = _locations().get(data.target.value, {})
    if location not in mapping:
        raise InvalidInput(
            "error.manovra.bad_location", location=location, allowed=", ".join(sorted(mapping))
        )
    return _effects(builder, tray, tables, shot, mapping[location], location)


# -- EFFETTI ARMI INCENDIARIE ------------------------------------------------------------------


class IncendiaryTarget(enum.StrEnum):
    """The target columns of EFFETTI ARMI INCENDIARIE."""

    CARRO = "carro"
    CAMION = "camion"
    AUTO = "auto"
    FANTERIA = "fanteria"


class IncendiaryInput(Frozen):
    """A flamethrower or Molotov: one die for a vehicle, one per model touched for infantry."""

    target: IncendiaryTarget
    models_touched: int = Field(1, ge=1, le=20)
    cover: Cover = Cover.NONE
    target_id: str | None = Field(None, max_length=64)


def resolve_incendiary(data: IncendiaryInput, tray: DiceTray) -> Resolution:
    """Roll EFFETTI ARMI INCENDIARIE (a D10 per model touched for infantry and artillery)."""
    tables = load_tables()
    table = tables["effetti_incendiarie"]
    column = table.column(data.target.value)
    per_model = bool(column.data.get("one_die_per_model"))
    builder = ResolutionBuilder(RULESET_KEY, "incendiary", tray)
    if not per_model:
        roll = tray.roll_grouped(
            D10,
            "D10 — flames",
            lambda face: tables.parsed(table, table.row_for("d10", face), column),
        )
        row = table.row_for("d10", roll.face)
        effects: tuple[CellEffect, ...] = tables.parsed(table, row, column)
        killed = _apply_cell(builder, effects, target=data.target_id, models_present=None)
        statuses = sorted(e.key for e in effects if e.kind == "status" and e.key)
        outcome = Outcome.of(
            "manovra.flame.vehicle", status="+".join(statuses) or None, n=killed or None
        )
        builder.step(
            "manovra.step.flames",
            rolls=(roll,),
            total=roll.face,
            table=_read(table, row, column),
            outcome=outcome,
        )
        return builder.finish(outcome)

    def kills(face: int) -> int:
        for effect in tables.parsed(table, table.row_for("d10", face), column):
            if effect.kind == "killed" or (
                effect.kind == "killed_unless_cover"
                and data.cover.rank < SAVED_BY[effect.saved_by or "light"].rank
            ):
                return 1
        return 0

    def flames(model_tray: DiceTray, index: int) -> int:
        roll = model_tray.roll_grouped(D10, f"D10 — flames #{index + 1}", kills)
        row = table.row_for("d10", roll.face)
        step_killed = kills(roll.face)
        builder.step(
            "manovra.step.flames",
            rolls=(roll,),
            total=roll.face,
            table=_read(table, row, column),
            outcome=Outcome.of("manovra.flame.killed" if step_killed else "manovra.flame.spared"),
        )
        return step_killed

    # Each model rolls its own D10: independent parts, composed for the odds. The part's
    # key holds what its result depends on (the column and the cover), not the model number.
    killed = independent(
        tray,
        tuple(range(data.models_touched)),
        flames,
        _add,
        0,
        key=(RULESET_KEY, "incendiary", data.target.value, data.cover.value),
    )
    if killed:
        builder.effect(EffectKind.CASUALTIES, "killed", target=data.target_id, amount=killed)
    return builder.finish(Outcome.of("manovra.flame.casualties", n=killed))


def _add(total: int, more: int) -> int:
    return total + more


__all__ = [
    "Ammo",
    "Delivery",
    "HeFragmentsInput",
    "HeavyFireInput",
    "HeavyTarget",
    "IncendiaryInput",
    "IncendiaryTarget",
    "SmallArmsInput",
    "SmallArmsTarget",
    "ThrownInput",
    "parse_die",
    "resolve_he_fragments",
    "resolve_heavy_fire",
    "resolve_incendiary",
    "resolve_small_arms",
    "resolve_thrown",
]
