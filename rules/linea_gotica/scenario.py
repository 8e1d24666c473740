"""Linea gotica scenarios: sides, squads of soldiers (one figure = one man), vehicles, the
off-table supports an observer may call, minefields, and the weapons they carry.

The weapons table of the seed gives ranges and shots by weapon type; a scenario names its
weapons and says which row each reads (and its calibre for guns). Bundled scenarios say
that their values are examples.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from rules.core.battlefield import Battlefield, Shape
from rules.core.geometry import terrain_at
from rules.core.scenario import (
    ScenarioReferenceError,
    bundled_files,
    check_battlefield,
    check_forces,
    load_bundled_model,
    parse_yaml_model,
)
from rules.core.upload import PlainName
from rules.core.victory import Dialect, VictoryConditions, VictoryContext, check_victory
from rules.core.words import LocalizedName, LocalizedText, LocalizedTitle, Words
from rules.linea_gotica.field import terrain_class, terrain_classes
from rules.linea_gotica.model import Quality
from rules.linea_gotica.procedures.fire import Armour, PenetrationRow
from rules.linea_gotica.tables import load_tables

_ID = r"^[a-z0-9][a-z0-9_\-]{0,39}$"

Role = Literal[
    "leader", "soldato", "sniper", "esploratore", "servente", "portamunizioni", "osservatore"
]


#: What linea_gotica means by victory's shared words (rules/linea_gotica/victory.py):
#: losses in figures (one figure is one man); a point objective is held within 10 cm of it,
#: an edge reached within 10 cm. Squads have no platoons: "broken" reads squad by squad.
VICTORY_DIALECT = Dialect("linea_gotica", strength="figures", radius=10.0, depth=10.0)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


@cache
def weapon_rows() -> frozenset[str]:
    """The row ids of the weapons table."""
    return frozenset(str(row.id) for row in load_tables()["armi_tiro_diretto"].rows)


class Weapon(_Model):
    """A weapon of the scenario: the row of TIRO DIRETTO it reads, and what the row leaves
    open (calibre, semi-automatic rifles, reloading, anti-aircraft use)."""

    name: LocalizedName
    row: str | None = Field(None, description="a row of the weapons table (direct fire)")
    calibre_mm: int | None = Field(None, ge=1, le=1000)
    semiautomatic: bool = Field(True, description="rifles: False for bolt-action (−1)")
    short_gun: bool = Field(False, description='a "short" gun (−2 to penetrate)')
    penetration: PenetrationRow | None = Field(None, description="override (late Panzerfaust)")
    reusable: bool = Field(False, description="HE weapons that reload (with an ammo bearer)")
    uses: int = Field(1, ge=1, le=20, description="shots of a one-use HE weapon per soldier")
    anti_aircraft: Literal["mitragliatrice_aa", "cannoncino_aa"] | None = None
    smoke: bool = Field(False, description="a vehicle's smoke launcher")

    @model_validator(mode="after")
    def _check(self) -> Weapon:
        if self.row is None and self.anti_aircraft is None and not self.smoke:
            raise ValueError("a weapon needs a row, anti_aircraft or smoke")
        if self.row is not None:
            if self.row not in weapon_rows() or self.row.endswith("_area"):
                raise ValueError(f"unknown weapon row {self.row!r}")
            if self.row.startswith("cannone") and self.calibre_mm is None:
                raise ValueError("a gun needs calibre_mm")
        return self


class FigureSpec(_Model):
    """One or more soldiers with the same role and weapon."""

    role: Role = "soldato"
    weapon: str | None = None
    count: int = Field(1, ge=1, le=20)


class VehicleSpec(_Model):
    """What a vehicle is: movement row, armour, turret, open or closed."""

    type: Literal[
        "carri", "cingolati", "ruotati_4x4", "civili", "moto", "traino_animale", "cavalleria"
    ] = "carri"
    armoured: bool = True
    armour: Armour = Armour.MEDIA
    weight: Literal["leggero", "medio", "pesante"] = "medio"
    turret: bool = True
    open: bool = Field(False, description="open vehicle, or tank commander exposed")
    transport: bool = Field(False, description="a troop carrier (always isolated for morale)")


class UnitSpec(_Model):
    """A squad, section, sniper team, observer team, or a vehicle."""

    id: str = Field(pattern=_ID)
    name: LocalizedName
    quality: Quality
    quality_modifier: int = Field(0, ge=-3, le=3, description="the referee's, at game start")
    leader: Quality | None = Field(None, description="the leader's ability (default: quality)")
    section: bool = False
    fanatic: int = Field(0, ge=0, le=3)
    radio: bool = False
    engineers: bool = False
    observer: bool = Field(False, description="a specialised artillery observer team")
    commander: bool = Field(False, description="a platoon or company leader")
    figures: tuple[FigureSpec, ...] = ()
    vehicle: VehicleSpec | None = None
    weapons: tuple[str, ...] = Field((), description="a vehicle's weapons, main first")
    cover: Literal["nessuna", "leggera", "pesante", "trincerati"] = "nessuna"
    hidden: bool = False
    place: str = Field("", max_length=60)
    emplaced: tuple[str, ...] = ()
    squad: str | None = Field(
        None,
        description="an unarmed transport's own squad: on a battlefield it must stay within "
        "that squad leader's command distance",
    )

    @model_validator(mode="after")
    def _check(self) -> UnitSpec:
        if (self.vehicle is None) == (not self.figures):
            raise ValueError("a unit has either figures (infantry) or a vehicle")
        if self.vehicle is None and self.weapons:
            raise ValueError("infantry carries weapons per figure, not in 'weapons'")
        leaders = sum(f.count for f in self.figures if f.role == "leader")
        if self.figures and leaders > 1:
            raise ValueError("at most one leader per squad or section")
        if self.section:
            table = load_tables()["distanze_comando"]
            ability = self.leader or self.quality
            row = table.row_by_id(ability.value)
            if table.cell(row, "capo_sezione") == "Non consentito":
                raise ValueError("only Elite leaders may lead a section")
        return self


class SupportSpec(_Model):
    """An off-table battery, a mortar group, or an aircraft an observer may call."""

    id: str = Field(pattern=_ID)
    name: LocalizedName
    kind: Literal["artiglieria", "mortai", "aereo"]
    contact: Literal["dedicata", "generale", "mortaio_leggero"] = "generale"
    calibre_mm: int = Field(81, ge=20, le=1000)
    platoon_mortars: bool = Field(False, description="platoon or company leaders may call it")
    smoke: bool = True
    bombs: Literal["anti_fanteria", "anti_carro", "napalm"] | None = None
    strafing: bool = False
    quality: Quality = Quality.REGOLARI

    @model_validator(mode="after")
    def _check(self) -> SupportSpec:
        if self.kind == "aereo" and self.bombs is None:
            raise ValueError("an aircraft needs bombs")
        if self.kind != "aereo" and (self.bombs is not None or self.strafing):
            raise ValueError("only aircraft carry bombs or strafe")
        return self


class MinefieldSpec(_Model):
    """A strip of mines."""

    id: str = Field(pattern=_ID)
    name: PlainName = Field(max_length=60)
    kind: Literal["antiuomo", "anticarro"]
    owner: str = Field(description="the side that laid it (and knows it)")
    shape: Shape | None = Field(
        None, description="where it lies on the battlefield (drawn only for those who know it)"
    )


class SideSpec(_Model):
    """One side of the battle."""

    id: str = Field(pattern=_ID)
    #: A plain string, or ``{it: …, en: …, fr: …}`` (a bundled scenario's, read in the
    #: reader's language).
    name: LocalizedName
    coordination: int = Field(0, ge=-2, le=0, description="poor coordination: −1 or −2")
    units: tuple[UnitSpec, ...] = Field(min_length=1, max_length=40)
    supports: tuple[SupportSpec, ...] = Field((), max_length=10)


class Scenario(_Model):
    """A whole scenario."""

    id: str = Field(pattern=_ID)
    ruleset: Literal["linea_gotica"] = "linea_gotica"
    #: A plain string, or ``{it: …, en: …, fr: …}`` (a bundled scenario's: both read in the
    #: reader's language).
    title: LocalizedTitle
    description: LocalizedText = Words("")
    values_are_examples: bool = True
    turns: int = Field(10, ge=1, le=100)
    night: Literal["giorno", "luna", "senza_luna"] = "giorno"
    passengers_on_tanks: bool = False
    weapons: dict[str, Weapon]
    minefields: tuple[MinefieldSpec, ...] = ()
    terrain: tuple[Annotated[str, Field(min_length=1, max_length=60)], ...] = Field(
        (),
        max_length=60,
        description="the table's named terrain elements (public: every seat sees the table)",
    )
    sides: tuple[SideSpec, SideSpec]
    battlefield: Battlefield | None = Field(
        None, description="the table (issue 16): areas, named points, every unit's position"
    )
    victory: VictoryConditions | None = Field(
        None, description="objectives, losses, exits, sudden death, the end and levels"
    )

    @model_validator(mode="after")
    def _check(self) -> Scenario:
        # The limits first: nothing below measures a scenario past them.
        check_forces(
            [
                (
                    side.id,
                    [
                        (("sides", s, "units", u), sum(f.count for f in unit.figures))
                        for u, unit in enumerate(side.units)
                    ],
                )
                for s, side in enumerate(self.sides)
            ]
        )
        if self.battlefield is not None:
            check_battlefield(
                self.battlefield,
                extra_areas=[
                    (("minefields", m), mine.shape)
                    for m, mine in enumerate(self.minefields)
                    if mine.shape is not None
                ],
            )
            self._check_battlefield(self.battlefield)
        side_ids = [side.id for side in self.sides]
        if len(set(side_ids)) != 2:
            raise ScenarioReferenceError("two distinct sides", ("sides",))
        seen: set[str] = set()
        for s, side in enumerate(self.sides):
            named: list[tuple[str, tuple[str | int, ...]]] = [
                (u.id, ("sides", s, "units", i)) for i, u in enumerate(side.units)
            ]
            named += [(x.id, ("sides", s, "supports", i)) for i, x in enumerate(side.supports)]
            for name, where in named:
                if name in seen:
                    raise ScenarioReferenceError(f"id {name!r} is used twice", where)
                seen.add(name)
            for u, unit in enumerate(side.units):
                if unit.squad is not None:
                    squad = next((x for x in side.units if x.id == unit.squad), None)
                    if unit.vehicle is None or squad is None or squad.vehicle is not None:
                        raise ScenarioReferenceError(
                            f"unit {unit.id}: squad {unit.squad!r} must be an infantry unit of"
                            " its side, and only a vehicle names one",
                            ("sides", s, "units", u, "squad"),
                        )
                carried = [f.weapon for f in unit.figures if f.weapon] + list(unit.weapons)
                for weapon in [*carried, *unit.emplaced]:
                    if weapon not in self.weapons:
                        raise ScenarioReferenceError(
                            f"unit {unit.id}: unknown weapon {weapon!r}", ("sides", s, "units", u)
                        )
        for m, field in enumerate(self.minefields):
            if field.shape is not None and self.battlefield is None:
                raise ScenarioReferenceError(
                    f"minefield {field.id}: a shape needs a battlefield", ("minefields", m, "shape")
                )
            if field.owner not in side_ids:
                raise ScenarioReferenceError(
                    f"minefield {field.id}: unknown owner {field.owner!r}",
                    ("minefields", m, "owner"),
                )
            if field.id in seen:
                raise ScenarioReferenceError(f"id {field.id!r} is used twice", ("minefields", m))
            seen.add(field.id)
        if self.victory is not None:
            units = {side.id: [unit.id for unit in side.units] for side in self.sides}
            check_victory(self.victory, VictoryContext(VICTORY_DIALECT, units, self.battlefield))
        return self

    def _check_battlefield(self, field: Battlefield) -> None:
        """Terrain classes known, deployment of known units, and every unit placed in
        the terrain its cover and place say (no unit is off-table in linea_gotica)."""
        known = terrain_classes()
        where: tuple[str | int, ...] = ("battlefield",)
        if field.open_terrain not in known:
            raise ScenarioReferenceError(
                f"unknown terrain class {field.open_terrain!r} (known: {', '.join(known)})",
                (*where, "open_terrain"),
            )
        for a, area in enumerate(field.areas):
            if area.terrain not in known:
                raise ScenarioReferenceError(
                    f"area {area.id}: unknown terrain class {area.terrain!r}"
                    f" (known: {', '.join(known)})",
                    (*where, "areas", a, "terrain"),
                )
        units = {
            u.id: (s, i, u) for s, side in enumerate(self.sides) for i, u in enumerate(side.units)
        }
        for unit_id in field.deployment:
            if unit_id not in units:
                raise ScenarioReferenceError(
                    f"deployment: unknown unit {unit_id!r}", (*where, "deployment", unit_id)
                )
        for unit_id, (s, i, unit) in units.items():
            at = ("sides", s, "units", i)
            point = field.deployment.get(unit_id)
            if point is None:
                raise ScenarioReferenceError(
                    f"unit {unit_id} has no position in battlefield.deployment", at
                )
            terrain, area_id = terrain_at(field, point)
            cover = terrain_class(terrain).cover.value
            if unit.cover not in (cover, "trincerati"):
                raise ScenarioReferenceError(
                    f"unit {unit_id}: cover {unit.cover!r} but it stands in {terrain}"
                    f" ({area_id or 'open ground'}, cover {cover!r})",
                    (*where, "deployment", unit_id),
                )
            if unit.place and unit.place != (area_id or ""):
                raise ScenarioReferenceError(
                    f"unit {unit_id}: place {unit.place!r} but it stands in"
                    f" {area_id or 'open ground'}",
                    (*where, "deployment", unit_id),
                )


def parse_scenario(text: str, source: str = "scenario") -> Scenario:
    """Validate scenario YAML text, with errors that name the line where possible."""
    return parse_yaml_model(text, Scenario, source)


def bundled_scenarios() -> dict[str, Path]:
    """Bundled example scenarios by id."""
    return bundled_files("rules.linea_gotica")


def load_bundled(scenario_id: str) -> Scenario:
    """A bundled scenario by id."""
    return load_bundled_model("rules.linea_gotica", Scenario, scenario_id)
