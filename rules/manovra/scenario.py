"""Manovra scenarios: sides, platoons and batteries, units, and the weapons they carry.

The seed has no weapon catalogue, so scenarios define their weapons; the bundled example
scenarios say their values are examples.
"""

from __future__ import annotations

import enum
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from rules.core.battlefield import Battlefield
from rules.core.geometry import terrain_at
from rules.core.scenario import (
    ScenarioReferenceError,
    bundled_files,
    check_battlefield,
    check_forces,
    load_bundled_model,
    parse_yaml_model,
)
from rules.core.victory import Dialect, VictoryConditions, VictoryContext, check_victory
from rules.core.words import LocalizedName, LocalizedText, LocalizedTitle, Words
from rules.core.yamlio import load_yaml
from rules.manovra.model import MoveRate, RangeBand
from rules.manovra.tables import load_tables

SCENARIOS_PACKAGE = "rules.manovra"
_ID = r"^[a-z0-9][a-z0-9_\-]{0,39}$"
#: What manovra means by victory's shared words (rules/manovra/victory.py): losses in
#: models; a point objective is held within 10 cm of it, an edge reached within 10 cm.
VICTORY_DIALECT = Dialect("manovra", strength="models", radius=10.0, depth=10.0)
# The most rounds of heavy weapons one command fires (each is a roll with its odds): the
# rate × pieces of one weapon, or of a unit's indirect weapons firing an IF marker.
MAX_HEAVY_ROUNDS = 100
# The most infantry models one transport carries (the seed gives no capacity: a scenario
# states each transport's own).
MAX_CARRIED_MODELS = 30


def is_infantry(unit_type: str) -> bool:
    """Infantry models ("Fanteria Mortai" share a column of TIPI DI TERRENO and OSSERVAZIONE):
    the ones that embark on transports and conceal themselves."""
    return bool(unit_types()[unit_type]["movement"] == "fanteria")


def is_towable(unit_type: str) -> bool:
    """A gun a transport tows ("il pezzo di artiglieria da trainare")."""
    return unit_type == "artiglieria"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


@cache
def unit_types() -> dict[str, dict[str, Any]]:
    """The unit-type mapping of ``data/unit_types.yaml``."""
    text = (resources.files("rules.manovra") / "data" / "unit_types.yaml").read_text("utf-8")
    types: dict[str, dict[str, Any]] = load_yaml(text)["types"]
    return types


class WeaponKind(enum.StrEnum):
    """Light weapons fire on the small-arms tables; heavy ones on TIRO ARMI PESANTI."""

    LIGHT = "light"
    HEAVY = "heavy"
    INCENDIARY = "incendiary"


class Weapon(_Model):
    """A weapon: range bands in cm and rates of fire stationary (Appostata) and moving."""

    name: LocalizedName
    kind: WeaponKind
    ranges_cm: dict[Literal["breve", "efficace", "utile"], int] = Field(
        description="the far edge of each range band in cm"
    )
    rof_stationary: int = Field(ge=0, le=100, description="shots per model when appostata")
    rof_moving: int = Field(ge=0, le=100, description="shots per model when moving")
    calibre_mm: int | None = Field(None, ge=1, le=1000)
    ammo: tuple[Literal["AP", "HE"], ...] = ()
    gun_class: str | None = None
    indirect: bool = Field(False, description="can fire indirectly (mortars, artillery)")

    @model_validator(mode="after")
    def _check(self) -> Weapon:
        bands = [self.ranges_cm.get(b) for b in ("breve", "efficace", "utile")]
        present = [b for b in bands if b is not None]
        if present != sorted(present) or not present:
            raise ValueError("ranges_cm must grow from breve to efficace to utile")
        if self.kind is WeaponKind.HEAVY and (self.calibre_mm is None or not self.ammo):
            raise ValueError("a heavy weapon needs calibre_mm and ammo")
        return self

    def band_for(self, distance_cm: float) -> RangeBand | None:
        """The range band a distance falls in (None: out of range)."""
        for band in (RangeBand.BREVE, RangeBand.EFFICACE, RangeBand.UTILE):
            limit = self.ranges_cm.get(band.value)  # type: ignore[call-overload]
            if limit is not None and distance_cm <= limit:
                return band
        return None


class UnitSpec(_Model):
    """A squad, section, crew or vehicle as the scenario sets it up."""

    id: str = Field(pattern=_ID)
    name: LocalizedName
    type: str
    ad: int = Field(ge=0, le=3)
    leader: Literal["caporale", "sergente", "tenente", "capitano"] = "caporale"
    models: int = Field(ge=1, le=100)
    tactical_cm: float = Field(12, gt=0, le=200)
    weapons: dict[str, int] = Field(
        default_factory=dict, description="weapon id → how many models/mounts carry it"
    )
    armour: dict[Literal["front", "side", "rear"], dict[str, int]] = Field(default_factory=dict)
    turret: bool = True
    tracked: bool = True
    open_topped: bool = False
    terrain: str = "piano_scoperto"
    radio: bool = False
    carries: int = Field(
        0,
        ge=0,
        le=MAX_CARRIED_MODELS,
        description="a transport vehicle: the infantry models it carries (it also tows one gun)",
    )
    aboard: str | None = Field(
        None, description="the transport this unit starts in (infantry) or hooked to (a gun)"
    )

    @model_validator(mode="after")
    def _check(self) -> UnitSpec:
        if self.type not in unit_types():
            raise ValueError(f"unknown unit type {self.type!r}; known: {sorted(unit_types())}")
        if self.carries and not unit_types()[self.type]["vehicle"]:
            raise ValueError("only a vehicle carries (carries: is for transport vehicles)")
        return self


class PlatoonSpec(_Model):
    """A platoon, or a battery (artillery that may be off the table)."""

    id: str = Field(pattern=_ID)
    name: LocalizedName
    kind: Literal["platoon", "battery"] = "platoon"
    off_table: bool = False
    units: tuple[UnitSpec, ...] = Field(min_length=1, max_length=30)


class SideSpec(_Model):
    """One side of the battle."""

    id: str = Field(pattern=_ID)
    #: A plain string, or ``{it: …, en: …, fr: …}`` (a bundled scenario's, read in the
    #: reader's language).
    name: LocalizedName
    platoons: tuple[PlatoonSpec, ...] = Field(min_length=1, max_length=20)


class ScenarioBattlefield(Battlefield):
    """The ``battlefield:`` section: a :class:`Battlefield` whose errors name their line."""

    @model_validator(mode="after")
    def _on_the_table(self) -> ScenarioBattlefield:
        # Replaces the base check so a point off the table names its own line.
        seen: set[str] = set()
        for index, area in enumerate(self.areas):
            if area.id in seen:
                raise ScenarioReferenceError(
                    f"area id {area.id!r} is used twice", ("areas", index, "id")
                )
            seen.add(area.id)
        for group in ("points", "deployment"):
            for name, point in getattr(self, group).items():
                if point.x > self.width_cm or point.y > self.height_cm:
                    raise ScenarioReferenceError(
                        f"{name!r} ({point.x:g}, {point.y:g}) is off the table "
                        f"({self.width_cm:g} × {self.height_cm:g} cm)",
                        (group, name),
                    )
        return self


def terrain_classes() -> tuple[str, ...]:
    """The terrain classes a battlefield may name: the rows of TIPI DI TERRENO."""
    return tuple(row.id or "" for row in load_tables()["tipi_terreno"].rows)


class Scenario(_Model):
    """A whole scenario."""

    id: str = Field(pattern=_ID)
    ruleset: Literal["manovra"] = "manovra"
    #: A plain string, or ``{it: …, en: …, fr: …}`` (a bundled scenario's: both read in the
    #: reader's language).
    title: LocalizedTitle
    description: LocalizedText = Words("")
    values_are_examples: bool = True
    turns: int = Field(8, ge=1, le=100)
    first_side: str
    weapons: dict[str, Weapon]
    sides: tuple[SideSpec, SideSpec]
    battlefield: ScenarioBattlefield | None = Field(
        None, description="the table, its terrain areas, named points and deployment (cm)"
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
                        (("sides", s, "platoons", p, "units", u), unit.models)
                        for p, platoon in enumerate(side.platoons)
                        for u, unit in enumerate(platoon.units)
                    ],
                )
                for s, side in enumerate(self.sides)
            ]
        )
        if self.battlefield is not None:
            check_battlefield(self.battlefield)
        side_ids = [side.id for side in self.sides]
        if len(set(side_ids)) != 2:
            raise ScenarioReferenceError("two distinct sides", ("sides",))
        if self.first_side not in side_ids:
            raise ScenarioReferenceError("first_side must be one of the sides", ("first_side",))
        seen: set[str] = set()
        for s, side in enumerate(self.sides):
            for p, platoon in enumerate(side.platoons):
                where: tuple[str | int, ...] = ("sides", s, "platoons", p)
                if platoon.id in seen:
                    raise ScenarioReferenceError(f"id {platoon.id!r} is used twice", where)
                seen.add(platoon.id)
                for u, unit in enumerate(platoon.units):
                    if unit.id in seen:
                        raise ScenarioReferenceError(
                            f"id {unit.id!r} is used twice", (*where, "units", u)
                        )
                    seen.add(unit.id)
                    for weapon in unit.weapons:
                        if weapon not in self.weapons:
                            raise ScenarioReferenceError(
                                f"unit {unit.id}: unknown weapon {weapon!r}",
                                (*where, "units", u, "weapons", weapon),
                            )
                    self._check_rounds(unit, (*where, "units", u, "weapons"))
        self._check_aboard()
        if self.battlefield is not None:
            self._check_battlefield(self.battlefield)
        if self.victory is not None:
            check_victory(self.victory, self._victory_context())
        return self

    def _check_aboard(self) -> None:
        """A unit starting ``aboard`` names a transport of its side with room for it: infantry
        rides (up to the transport's ``carries`` models), a gun is towed (one a transport)."""
        for s, side in enumerate(self.sides):
            units = {u.id: u for p in side.platoons for u in p.units}
            load: dict[str, int] = {}
            towed: set[str] = set()
            for p, platoon in enumerate(side.platoons):
                for u, unit in enumerate(platoon.units):
                    if unit.aboard is None:
                        continue
                    where = ("sides", s, "platoons", p, "units", u, "aboard")
                    vehicle = units.get(unit.aboard)
                    if vehicle is None or not vehicle.carries:
                        raise ScenarioReferenceError(
                            f"unit {unit.id}: {unit.aboard!r} is no transport of its side", where
                        )
                    if is_towable(unit.type):
                        if unit.aboard in towed:
                            raise ScenarioReferenceError(
                                f"{unit.aboard} already tows a gun (one each)", where
                            )
                        towed.add(unit.aboard)
                    elif is_infantry(unit.type):
                        load[unit.aboard] = load.get(unit.aboard, 0) + unit.models
                        if load[unit.aboard] > vehicle.carries:
                            raise ScenarioReferenceError(
                                f"{unit.aboard} carries {vehicle.carries} models, not "
                                f"{load[unit.aboard]}",
                                where,
                            )
                    else:
                        raise ScenarioReferenceError(
                            f"unit {unit.id}: only infantry rides and only a gun is towed", where
                        )

    def _victory_context(self) -> VictoryContext:
        units = {s.id: [u.id for p in s.platoons for u in p.units] for s in self.sides}
        return VictoryContext(VICTORY_DIALECT, units, self.battlefield)

    def _check_rounds(self, unit: UnitSpec, where: tuple[str | int, ...]) -> None:
        """Every round of a heavy weapon is a roll of its own (seed line 9: a unit fires "con
        tutte le armi dell'unità", so N pieces fire N × the rate): at most
        ``MAX_HEAVY_ROUNDS`` rounds in one fire, and in one IF marker of its indirect ones."""
        indirect = 0
        for weapon_id, count in unit.weapons.items():
            weapon = self.weapons[weapon_id]
            if weapon.kind is not WeaponKind.HEAVY:
                continue
            rounds = weapon.rof_stationary * min(count, unit.models)
            indirect += rounds if weapon.indirect else 0
            if max(rounds, indirect) > MAX_HEAVY_ROUNDS:
                raise ScenarioReferenceError(
                    f"unit {unit.id}: its heavy weapons fire more than {MAX_HEAVY_ROUNDS} "
                    "rounds at once (rate × pieces)",
                    (*where, weapon_id),
                )

    def _check_battlefield(self, field: Battlefield) -> None:
        """Terrain classes known; every unit on the table deployed, where its terrain is."""
        known = terrain_classes()
        here: tuple[str | int, ...] = ("battlefield",)
        if field.open_terrain not in known:
            raise ScenarioReferenceError(
                f"unknown terrain class {field.open_terrain!r}", (*here, "open_terrain")
            )
        for index, area in enumerate(field.areas):
            if area.terrain not in known:
                raise ScenarioReferenceError(
                    f"area {area.id}: unknown terrain class {area.terrain!r}; "
                    f"known: {', '.join(known)}",
                    (*here, "areas", index, "terrain"),
                )
        units = {u.id for side in self.sides for p in side.platoons for u in p.units}
        for unit_id in field.deployment:
            if unit_id not in units:
                raise ScenarioReferenceError(
                    f"deployment: unknown unit {unit_id!r}", (*here, "deployment", unit_id)
                )
        for s, side in enumerate(self.sides):
            for p, platoon in enumerate(side.platoons):
                for u, unit in enumerate(platoon.units):
                    where = ("sides", s, "platoons", p, "units", u)
                    elsewhere = (
                        "is off the table (its battery is off_table): it has no position"
                        if platoon.off_table
                        else f"starts aboard {unit.aboard}: it stands where its transport does"
                        if unit.aboard is not None
                        else None
                    )
                    if elsewhere is not None:
                        if unit.id in field.deployment:
                            raise ScenarioReferenceError(
                                f"unit {unit.id} {elsewhere}", (*here, "deployment", unit.id)
                            )
                        continue
                    if unit.id not in field.deployment:
                        raise ScenarioReferenceError(
                            f"unit {unit.id} has no position: add it to "
                            "battlefield.deployment (x, y in cm)",
                            where,
                        )
                    terrain, area_id = terrain_at(field, field.deployment[unit.id])
                    if "terrain" in unit.model_fields_set and unit.terrain != terrain:
                        raise ScenarioReferenceError(
                            f"unit {unit.id} is deployed in {area_id or 'open ground'} "
                            f"({terrain}), not in {unit.terrain}",
                            (*where, "terrain"),
                        )


def parse_scenario(text: str, source: str = "scenario") -> Scenario:
    """Validate scenario YAML text, with errors that name the line where possible."""
    return parse_yaml_model(text, Scenario, source)


def bundled_scenarios() -> dict[str, Path]:
    """Bundled example scenarios by id."""
    return bundled_files("rules.manovra")


def load_bundled(scenario_id: str) -> Scenario:
    """A bundled scenario by id."""
    return load_bundled_model("rules.manovra", Scenario, scenario_id)


MOVE_KINDS = tuple(MoveRate)
