"""pzgren scenarios: a hex map, two sides, and their units with the values the tables read.

The seed has no unit catalogue: scenarios give each unit its fire value, anti-tank value,
armour, range, movement, steps and morale; the bundled example says its values are examples.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from rules.core.errors import RulesError
from rules.core.scenario import (
    ScenarioReferenceError,
    bundled_files,
    check_forces,
    load_bundled_model,
    parse_yaml_model,
)
from rules.core.victory import Dialect, VictoryConditions, VictoryContext, check_victory
from rules.core.words import LocalizedName, LocalizedText, LocalizedTitle, Words
from rules.core.yamlio import load_yaml
from rules.pzgren.field import Hex, parse_hex
from rules.pzgren.model import ID_PATTERN, Armour

#: What pzgren means by victory's shared words (rules/pzgren/victory.py): losses in steps;
#: objectives are hexes, an edge is its row or column of hexes. Units have no platoons:
#: "broken" reads unit by unit (demoralized).
VICTORY_DIALECT = Dialect("pzgren", strength="steps", hexes=True)
_CANONICAL_HEX = re.compile(r"[0-9]{1,3},[0-9]{1,3}")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


@cache
def unit_types() -> dict[str, dict[str, Any]]:
    """The unit-type mapping of ``data/unit_types.yaml``."""
    text = (resources.files("rules.pzgren") / "data" / "unit_types.yaml").read_text("utf-8")
    types: dict[str, dict[str, Any]] = load_yaml(text)["types"]
    return types


@cache
def terrain_data() -> dict[str, Any]:
    """``data/terrain.yaml``: terrains and stacking."""
    text = (resources.files("rules.pzgren") / "data" / "terrain.yaml").read_text("utf-8")
    data: dict[str, Any] = load_yaml(text)
    return data


def _hex_or_error(text: str) -> Hex:
    try:
        return parse_hex(text)
    except RulesError:
        raise ValueError(f"not a hex {text!r} (write q,r for example 3,4)") from None


class HexSpec(_Model):
    """What a hex holds besides units: terrain, elevation, an entrenchment, minefields."""

    terrain: str = "clear"
    elevation: int = Field(0, ge=0, le=9)
    entrenchment: bool = False
    minefield: str | None = Field(None, description="the side whose minefield this is")

    @model_validator(mode="after")
    def _check(self) -> HexSpec:
        if self.terrain not in terrain_data()["terrains"]:
            raise ValueError(
                f"unknown terrain {self.terrain!r}; known: {sorted(terrain_data()['terrains'])}"
            )
        return self


class MapSpec(_Model):
    """A map of ``columns`` × ``rows`` hexes in axial coordinates (q 0..columns-1, r 0..rows-1)."""

    columns: int = Field(ge=1, le=60)
    rows: int = Field(ge=1, le=60)
    hexes: dict[str, HexSpec] = Field(default_factory=dict)

    def contains(self, where: Hex) -> bool:
        """Whether the hex is on the map."""
        return 0 <= where.q < self.columns and 0 <= where.r < self.rows

    @model_validator(mode="after")
    def _check(self) -> MapSpec:
        for key in self.hexes:
            where = _hex_or_error(key)
            if str(where) != key.replace(" ", ""):
                raise ValueError(f"write hex {key!r} as {where}")
            if not self.contains(where):
                raise ValueError(f"hex {key} is off the map")
        return self


class UnitSpec(_Model):
    """A unit as the scenario sets it up."""

    id: str = Field(pattern=ID_PATTERN)
    name: LocalizedName
    type: str
    hex: str
    fire: int = Field(0, ge=0, le=99, description="direct-fire value")
    at: int | None = Field(None, ge=0, le=30, description="anti-tank value")
    armour: int | None = Field(None, ge=0, le=30, description="armour value (AFVs)")
    top: Literal["closed", "open"] | None = Field(None, description="AFVs: closed or open top")
    range: int = Field(1, ge=0, le=40, description="fire range in hexes")
    movement: int = Field(1, ge=0, le=20, description="hexes per move")
    steps: int = Field(2, ge=1, le=10)
    morale: int = Field(7, ge=2, le=12)
    dug_in: bool = False

    @model_validator(mode="after")
    def _check(self) -> UnitSpec:
        kind = unit_types().get(self.type)
        if kind is None:
            raise ValueError(f"unknown unit type {self.type!r}; known: {sorted(unit_types())}")
        where = _hex_or_error(self.hex)
        if str(where) != self.hex.replace(" ", ""):
            raise ValueError(f"write hex {self.hex!r} as {where}")
        if kind.get("armoured") and self.armour is None:
            raise ValueError(f"unit {self.id}: an AFV needs an armour value")
        if not kind.get("armoured") and (self.armour is not None or self.top is not None):
            raise ValueError(f"unit {self.id}: only AFVs have armour and a top")
        return self

    @property
    def armour_kind(self) -> Armour:
        """Closed- or open-top AFV, or no armour value."""
        if self.armour is None:
            return Armour.NONE
        return Armour.OPEN if self.top == "open" else Armour.CLOSED


class SideSpec(_Model):
    """One side of the battle."""

    id: str = Field(pattern=ID_PATTERN)
    #: A plain string, or ``{it: …, en: …, fr: …}`` (a bundled scenario's, read in the
    #: reader's language).
    name: LocalizedName
    units: tuple[UnitSpec, ...] = Field(min_length=1, max_length=40)


class Scenario(_Model):
    """A whole scenario."""

    id: str = Field(pattern=ID_PATTERN)
    ruleset: Literal["pzgren"] = "pzgren"
    #: A plain string, or ``{it: …, en: …, fr: …}`` (a bundled scenario's: both read in the
    #: reader's language).
    title: LocalizedTitle
    description: LocalizedText = Words("")
    values_are_examples: bool = True
    turns: int = Field(6, ge=1, le=100)
    night_turns: tuple[int, ...] = Field((), max_length=100)
    first_side: str
    map: MapSpec
    sides: tuple[SideSpec, SideSpec]
    victory: VictoryConditions | None = Field(
        None, description="objective hexes, step losses, exits, sudden death, end, levels"
    )

    @model_validator(mode="after")
    def _check(self) -> Scenario:
        check_forces(
            [
                (side.id, [(("sides", s, "units", u), 0) for u in range(len(side.units))])
                for s, side in enumerate(self.sides)
            ]
        )
        side_ids = [side.id for side in self.sides]
        if len(set(side_ids)) != 2:
            raise ScenarioReferenceError("two distinct sides", ("sides",))
        if self.first_side not in side_ids:
            raise ScenarioReferenceError("first_side must be one of the sides", ("first_side",))
        for key, spec in self.map.hexes.items():
            if spec.minefield is not None and spec.minefield not in side_ids:
                raise ScenarioReferenceError(
                    f"minefield of unknown side {spec.minefield!r}",
                    ("map", "hexes", key, "minefield"),
                )
        seen: set[str] = set()
        holder: dict[str, str] = {}
        combat: dict[str, int] = {}
        limit = int(terrain_data()["stacking"]["combat_units"])
        for s, side in enumerate(self.sides):
            for u, unit in enumerate(side.units):
                where: tuple[str | int, ...] = ("sides", s, "units", u)
                if unit.id in seen:
                    raise ScenarioReferenceError(f"id {unit.id!r} is used twice", where)
                seen.add(unit.id)
                kind = unit_types()[unit.type]
                if kind.get("air"):
                    continue
                at = (*where, "hex")
                if not self.map.contains(parse_hex(unit.hex)):
                    raise ScenarioReferenceError(
                        f"unit {unit.id}: hex {unit.hex} is off the map", at
                    )
                if holder.setdefault(unit.hex, side.id) != side.id:
                    raise ScenarioReferenceError(f"hex {unit.hex} holds units of both sides", at)
                if kind["category"] == "combat":
                    combat[unit.hex] = combat.get(unit.hex, 0) + 1
                    if combat[unit.hex] > limit:
                        raise ScenarioReferenceError(
                            f"hex {unit.hex}: more than {limit} combat units", at
                        )
        if self.victory is not None:
            self._check_victory(self.victory)
        return self

    def _check_victory(self, victory: VictoryConditions) -> None:
        for o, objective in enumerate(victory.objectives):
            for h, text in enumerate(objective.hexes):
                if _CANONICAL_HEX.fullmatch(text) is None:
                    raise ScenarioReferenceError(
                        f"objective {objective.id}: write the hex {text!r} as q,r",
                        ("victory", "objectives", o, "hexes", h),
                    )
        units = {side.id: [unit.id for unit in side.units] for side in self.sides}

        def on_map(text: str) -> bool:
            return self.map.contains(parse_hex(text))

        check_victory(victory, VictoryContext(VICTORY_DIALECT, units, on_map=on_map))


def parse_scenario(text: str, source: str = "scenario") -> Scenario:
    """Validate scenario YAML text, with errors that name the line where possible."""
    return parse_yaml_model(text, Scenario, source)


def bundled_scenarios() -> dict[str, Path]:
    """Bundled example scenarios by id."""
    return bundled_files("rules.pzgren")


def load_bundled(scenario_id: str) -> Scenario:
    """A bundled scenario by id."""
    return load_bundled_model("rules.pzgren", Scenario, scenario_id)
