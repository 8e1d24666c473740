"""Domain vocabulary of pzgren shared by its procedures and its game logic."""

from __future__ import annotations

import enum

from pydantic import BaseModel, ConfigDict

RULESET_KEY = "pzgren"
ID_PATTERN = r"^[a-z0-9][a-z0-9_\-]{0,39}$"


class Frozen(BaseModel):
    """Base of procedure inputs: strict about unknown fields, immutable, hashable."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Category(enum.StrEnum):
    """The two step-loss categories of an X result: combat units, and wagons/trucks/sledges."""

    COMBAT = "combat"
    TRANSPORT = "transport"


class Armour(enum.StrEnum):
    """Whether a unit has an armour value, and if so whether it is a closed- or open-top AFV."""

    NONE = "none"
    CLOSED = "closed"
    OPEN = "open"


class MoraleState(enum.StrEnum):
    """The morale states of rule 14.1 (not in the seed): the columns of the morale table."""

    GOOD_ORDER = "good_order"
    DISRUPTED = "disrupted"
    DEMORALIZED = "demoralized"
