"""Domain vocabulary of w40k4 shared by its procedures and its game logic."""

from __future__ import annotations

import enum
import re
from functools import cache
from importlib import resources
from typing import Any

from rules.core.yamlio import load_yaml

RULESET_KEY = "w40k4"


class Phase(enum.StrEnum):
    """The phases of a player turn (SEQUENZA DEL TURNO); values are the table's row ids."""

    MOVEMENT = "movement"
    SHOOTING = "shooting"
    ASSAULT = "assault"


class WeaponType(enum.StrEnum):
    """The weapon types of RIASSUNTO DEI VARI TIPI DI ARMI (row ids)."""

    PISTOLA = "pistola"
    RAFFICA = "raffica"
    ASSALTO = "assalto"
    PESANTE = "pesante"


class Template(enum.StrEnum):
    """The templates of ALTRI TIPI DI ARMI COMUNI (row ids)."""

    SAGOMA = "sagoma"
    AREA = "area"
    ARTIGLIERIA = "artiglieria"


class Facing(enum.StrEnum):
    """The side of a vehicle a shot strikes."""

    FRONT = "front"
    SIDE = "side"
    REAR = "rear"


class Terrain(enum.StrEnum):
    """What a move crosses: open ground, difficult terrain, or terrain defined dangerous."""

    OPEN = "open"
    DIFFICULT = "difficult"
    DANGEROUS = "dangerous"


class Speed(enum.StrEnum):
    """Vehicle speeds (the columns of MOVIMENTO E TIRO DEI VEICOLI)."""

    STAZIONARIO = "stazionario"
    COMBATTIMENTO = "combattimento"
    MANOVRA = "manovra"
    TAVOLETTA = "tavoletta"


class DangerRule(enum.StrEnum):
    """How a unit type meets difficult terrain (TERRENI ACCIDENTATI, second column)."""

    IF_DANGEROUS = "if_dangerous"
    ALWAYS = "always"
    START_END = "start_end"
    WEAPON_ONLY = "weapon_only"


class Allowance(enum.StrEnum):
    """What a vehicle may fire at a speed."""

    ALL = "all"
    ONE_MAIN = "one_main"
    NONE = "none"
    NOT_ALLOWED = "not_allowed"


class Damage(enum.StrEnum):
    """Results of TABELLA DEI DANNI AI VEICOLI, from least to most severe."""

    SHAKEN = "shaken"
    STUNNED = "stunned"
    WEAPON_DESTROYED = "weapon_destroyed"
    IMMOBILISED = "immobilised"
    WRECKED = "wrecked"
    EXPLODED = "exploded"

    @property
    def severity(self) -> int:
        """1 (shaken) … 6 (exploded): the D6 line of the result."""
        return list(Damage).index(self) + 1

    @property
    def destroys(self) -> bool:
        """Whether the result destroys the vehicle."""
        return self in (Damage.WRECKED, Damage.EXPLODED)


@cache
def vocabulary() -> dict[str, dict[str, Any]]:
    """The cell vocabulary of ``data/vocabulary.yaml``."""
    text = (resources.files("rules.w40k4") / "data" / "vocabulary.yaml").read_text("utf-8")
    data: dict[str, dict[str, Any]] = load_yaml(text)
    return data


@cache
def unit_types() -> dict[str, dict[str, Any]]:
    """Movement and assault distances per unit type (``data/unit_types.yaml``, not in the seed)."""
    text = (resources.files("rules.w40k4") / "data" / "unit_types.yaml").read_text("utf-8")
    types: dict[str, dict[str, Any]] = load_yaml(text)["types"]
    return types


_SCORE = re.compile(r"^([2-6])\+?$")


def parse_score(text: str) -> int | None:
    """``"4+"`` or ``"4"`` → 4; ``"-"`` → None (impossible / denied)."""
    token = text.strip()
    if token == "-":
        return None
    match = _SCORE.match(token)
    if match is None:
        raise ValueError(f"not a D6 score: {text!r}")
    return int(match.group(1))


@cache
def field_data() -> dict[str, Any]:
    """Terrain classes of a battlefield and the sizes the bot measures units with
    (``data/terrain.yaml``, not in the seed)."""
    text = (resources.files("rules.w40k4") / "data" / "terrain.yaml").read_text("utf-8")
    data: dict[str, Any] = load_yaml(text)
    return data


def terrain_class(name: str) -> dict[str, Any] | None:
    """A battlefield terrain class: ``{"move": open|difficult|dangerous, "cover": row|None}``."""
    found: dict[str, Any] | None = field_data()["classes"].get(name)
    return found
