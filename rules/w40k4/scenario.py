"""w40k4 scenarios: two sides, their units with profiles, and the weapons they carry.

The seed has no unit or weapon catalogue, so scenarios define them; the bundled example
scenario says its values are examples.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from rules.core.battlefield import Battlefield
from rules.core.errors import UnknownName
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
from rules.w40k4 import lookups
from rules.w40k4.model import Template, WeaponType, field_data, terrain_class, unit_types

_ID = r"^[a-z0-9][a-z0-9_\-]{0,39}$"


#: What w40k4 means by victory's shared words (rules/w40k4/victory.py): losses in models;
#: a point objective is held within 3" of it (the 4th edition's distance), an edge reached
#: within 3". Units have no platoons: "broken" reads unit by unit (falling back).
VICTORY_DIALECT = Dialect("w40k4", strength="models", radius=3.0, depth=3.0)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Weapon(_Model):
    """A weapon profile: range in inches, Strength, VP (AP), type, shots, template."""

    name: LocalizedName
    type: WeaponType
    range: int | None = Field(None, ge=1, le=240, description="inches; none for a flamer template")
    strength: int = Field(ge=1, le=10)
    ap: int | None = Field(None, ge=1, le=6, description="VP; none for VP -")
    shots: int = Field(1, ge=1, le=10, description="shots per model (Assalto / Pesante N)")
    template: Template | None = None
    barrage: bool = Field(False, description="Bombardamento: scatters without the BS")
    defensive: bool | None = Field(None, description="override: defensive weapon of a vehicle")

    @model_validator(mode="after")
    def _check(self) -> Weapon:
        if self.range is None and self.template is not Template.SAGOMA:
            raise ValueError("only a flamer template (sagoma) may have no range")
        if self.barrage and self.template is not Template.ARTIGLIERIA:
            raise ValueError('barrage (Bombardamento) needs the 5" template (artiglieria)')
        return self


class Profile(_Model):
    """Characteristics: AC (WS), AB (BS), F (S), R (T), Fe (W), I, A, D (Ld), TS (Sv)."""

    ws: int | None = Field(None, ge=1, le=10)
    bs: int | None = Field(None, ge=1, le=10)
    s: int | None = Field(None, ge=1, le=10)
    t: int | None = Field(None, ge=1, le=10)
    w: int = Field(1, ge=1, le=10)
    i: int | None = Field(None, ge=1, le=10)
    a: int | None = Field(None, ge=1, le=10)
    ld: int | None = Field(None, ge=1, le=10)
    sv: int | None = Field(None, ge=2, le=6, description="armour save; none = no save")


class Armour(_Model):
    """A vehicle's armour values."""

    front: int = Field(ge=1, le=20)
    side: int = Field(ge=1, le=20)
    rear: int = Field(ge=1, le=20)


class UnitSpec(_Model):
    """A unit as the scenario sets it up."""

    id: str = Field(pattern=_ID)
    name: LocalizedName
    type: str
    models: int = Field(ge=1, le=100)
    profile: Profile
    invulnerable: int | None = Field(None, ge=2, le=6)
    weapons: dict[str, int] = Field(
        default_factory=dict, description="weapon id → how many models (or mounts) carry it"
    )
    close_combat_weapon: bool = Field(True, description="with a pistol: one extra attack")
    move: int | None = Field(None, ge=0, le=48, description="override the type's move")
    assault: int | None = Field(None, ge=0, le=24, description="override the type's assault")
    reserve: bool = Field(False, description="starts in reserve")
    deep_strike: bool = Field(False, description="may arrive by deep strike")
    fast: bool = Field(False, description="a fast vehicle (Veloci)")
    armour: Armour | None = None
    open_topped: bool = False
    squadron: bool = False
    guns: int = Field(0, ge=0, le=20, description="artillery: guns crewed by the unit")
    cover: str | None = Field(None, max_length=40, description="TIRI COPERTURA row at start")

    @model_validator(mode="after")
    def _check(self) -> UnitSpec:
        types = unit_types()
        if self.type not in types:
            raise ValueError(f"unknown unit type {self.type!r}; known: {sorted(types)}")
        kind = types[self.type]
        p = self.profile
        if kind.get("vehicle"):
            if self.armour is None or p.bs is None:
                raise ValueError("a vehicle needs armour and bs")
            if kind.get("walker") and None in (p.ws, p.s, p.i, p.a):
                raise ValueError("a walker needs ws, s, i and a")
        elif None in (p.ws, p.bs, p.s, p.t, p.i, p.a, p.ld):
            raise ValueError("a unit of models needs ws, bs, s, t, i, a and ld")
        if self.type == "artiglieria" and self.guns < 1:
            raise ValueError("artillery needs guns")
        if self.cover is not None:
            try:
                lookups.cover_save(self.cover)
            except UnknownName:
                raise ValueError(f"unknown cover {self.cover!r}") from None
        return self

    @property
    def vehicle(self) -> bool:
        """Whether the unit is a vehicle."""
        return bool(unit_types()[self.type].get("vehicle"))


class SideSpec(_Model):
    """One side of the battle."""

    id: str = Field(pattern=_ID)
    #: A plain string, or ``{it: …, en: …, fr: …}`` (a bundled scenario's, read in the
    #: reader's language).
    name: LocalizedName
    units: tuple[UnitSpec, ...] = Field(min_length=1, max_length=40)


class Scenario(_Model):
    """A whole scenario."""

    id: str = Field(pattern=_ID)
    ruleset: Literal["w40k4"] = "w40k4"
    #: A plain string, or ``{it: …, en: …, fr: …}`` (a bundled scenario's: both read in the
    #: reader's language).
    title: LocalizedTitle
    description: LocalizedText = Words("")
    values_are_examples: bool = True
    turns: int = Field(6, ge=1, le=20)
    first_side: str
    weapons: dict[str, Weapon]
    sides: tuple[SideSpec, SideSpec]
    battlefield: Battlefield | None = Field(
        None, description="the table in inches; without it players type distances"
    )
    victory: VictoryConditions | None = Field(
        None, description="objectives, losses, exits, sudden death, the end and levels"
    )

    @field_validator("battlefield")
    @classmethod
    def _in_inches(cls, value: Battlefield | None) -> Battlefield | None:
        # w40k4 measures in inches: a battlefield that names no unit is in inches (an
        # after-validator: the file is validated strictly, as JSON, all the way down).
        if value is None or "unit" in value.model_fields_set:
            return value
        return value.model_copy(update={"unit": "in"})

    @model_validator(mode="after")
    def _check(self) -> Scenario:
        # The limits first: nothing below measures a scenario past them.
        check_forces(
            [
                (
                    side.id,
                    [(("sides", s, "units", u), unit.models) for u, unit in enumerate(side.units)],
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
            for u, unit in enumerate(side.units):
                where: tuple[str | int, ...] = ("sides", s, "units", u)
                if unit.id in seen:
                    raise ScenarioReferenceError(f"id {unit.id!r} is used twice", where)
                seen.add(unit.id)
                for w, weapon in enumerate(unit.weapons):
                    if weapon not in self.weapons:
                        raise ScenarioReferenceError(
                            f"unit {unit.id}: unknown weapon {weapon!r}", (*where, "weapons", w)
                        )
        if self.battlefield is not None:
            self._check_field(self.battlefield)
        if self.victory is not None:
            units = {side.id: [unit.id for unit in side.units] for side in self.sides}
            check_victory(self.victory, VictoryContext(VICTORY_DIALECT, units, self.battlefield))
        return self

    def _check_field(self, field: Battlefield) -> None:
        """Terrain classes known, every unit on the table placed, deployment of known units."""
        known = sorted(field_data()["classes"])
        if field.unit != "in":
            raise ScenarioReferenceError(
                "a w40k4 battlefield measures in inches (unit: in)", ("battlefield", "unit")
            )
        if terrain_class(field.open_terrain) is None:
            raise ScenarioReferenceError(
                f"unknown terrain class {field.open_terrain!r}; known: {', '.join(known)}",
                ("battlefield", "open_terrain"),
            )
        for a, area in enumerate(field.areas):
            if terrain_class(area.terrain) is None:
                raise ScenarioReferenceError(
                    f"area {area.id}: unknown terrain class {area.terrain!r}; "
                    f"known: {', '.join(known)}",
                    ("battlefield", "areas", a, "terrain"),
                )
        units = {unit.id: unit for side in self.sides for unit in side.units}
        for unit_id in field.deployment:
            if unit_id not in units:
                raise ScenarioReferenceError(
                    f"deployment: unknown unit {unit_id!r}", ("battlefield", "deployment", unit_id)
                )
        for s, side in enumerate(self.sides):
            for u, unit in enumerate(side.units):
                where: tuple[str | int, ...] = ("sides", s, "units", u)
                point = field.deployment.get(unit.id)
                if point is None:
                    if not unit.reserve:
                        raise ScenarioReferenceError(
                            f"unit {unit.id} starts on the table: the battlefield's "
                            "deployment must place it",
                            where,
                        )
                    continue
                if unit.reserve:
                    raise ScenarioReferenceError(
                        f"unit {unit.id} starts in reserve: it has no place in the deployment",
                        ("battlefield", "deployment", unit.id),
                    )
                terrain, _ = terrain_at(field, point)
                cover = lookups.terrain_cover(terrain)
                given = lookups.cover_save(unit.cover)[2] if unit.cover is not None else None
                if unit.cover is not None and given != cover:
                    raise ScenarioReferenceError(
                        f"unit {unit.id}: cover {unit.cover!r}, but it is deployed in "
                        f"{terrain!r} (cover {cover or 'none'})",
                        (*where, "cover"),
                    )


def parse_scenario(text: str, source: str = "scenario") -> Scenario:
    """Validate scenario YAML text, with errors that name the line where possible."""
    return parse_yaml_model(text, Scenario, source)


def bundled_scenarios() -> dict[str, Path]:
    """Bundled example scenarios by id."""
    return bundled_files("rules.w40k4")


def load_bundled(scenario_id: str) -> Scenario:
    """A bundled scenario by id."""
    return load_bundled_model("rules.w40k4", Scenario, scenario_id)
