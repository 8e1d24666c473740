"""Each ruleset's facts for the shared tests, kept in the ruleset's own test folder.

A shared test that runs once per ruleset takes its rulesets from the registry
(`rules.core.ruleset.KNOWN_RULESETS`) and what it must know of each one (a battlefield, the
name of an objective, the units of a campaign book) from ``tests/<key>/facts.py``: a fifth
ruleset adds its folder, with its facts, and every such table gains its row without an edit
elsewhere. A ruleset without the fact a table needs fails that table's collection, naming it.
"""

from __future__ import annotations

import importlib
from typing import Any, Literal, NamedTuple

from rules.core.ruleset import KNOWN_RULESETS


class Words(NamedTuple):
    """A text of a bundled scenario as each language reads it."""

    it: str
    en: str
    fr: str


#: How a ruleset's battlefield is laid out: a table measured in cm or inches (objectives
#: are shapes, fire distances measured), or a hex map (objectives are hexes, ranges in hexes).
Grid = Literal["table", "hexes"]


class Objective(NamedTuple):
    """The first objective of a ruleset's battlefield: its name and who holds it at the start."""

    name: Words
    holder: str


class SideName(NamedTuple):
    """A side of a ruleset's battlefield and its name in each language."""

    side: str
    name: Words


class UnitName(NamedTuple):
    """A unit of a ruleset's battlefield, its side, and its name in each language."""

    unit: str
    side: str
    name: Words


class ConsoleCampaign(NamedTuple):
    """A three-game campaign played at the console in one language
    (tests/bot/console/test_console_campaign_rulesets.py): its scenarios, the side that wins
    the referee's decision, the side that concedes (the other one wins), the language's
    standings heading, and what game 1 carries into the next games: the units fielded
    reduced in game 2, and the dead its games 2 and 3 have but leave out."""

    language: str
    scenarios: tuple[str, str, str]
    decided: str
    conceding: str
    heading: str
    reduced: list[str]
    dead: list[str]


def fact(key: str, name: str) -> Any:
    """The fact ``name`` of ruleset ``key``, from ``tests/<key>/facts.py``."""
    module = importlib.import_module(f"tests.{key}.facts")
    if not hasattr(module, name):
        raise LookupError(f"tests/{key}/facts.py declares no {name}")
    return getattr(module, name)


def facts(name: str) -> dict[str, Any]:
    """The fact ``name`` of every ruleset the registry knows, by key."""
    return {key: fact(key, name) for key in KNOWN_RULESETS}
