"""The registry of rulesets.

Each ruleset is a subpackage ``rules.<key>`` exposing ``RULESET``, a :class:`Ruleset`.
Rulesets are imported lazily, so loading one never pays for the others.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from rules.core.errors import UnknownName
from rules.core.procedures import Procedure
from rules.core.tables import TableSet


def _discover() -> tuple[str, ...]:
    """Every subpackage of ``rules`` that is a ruleset (has a ``tables`` folder); manovra first."""
    root = Path(__file__).resolve().parent.parent
    found = sorted(
        entry.name
        for entry in root.iterdir()
        if entry.is_dir() and (entry / "__init__.py").is_file() and (entry / "tables").is_dir()
    )
    return tuple(sorted(found, key=lambda name: (name != "manovra", name)))


KNOWN_RULESETS: tuple[str, ...] = _discover()


@dataclass(frozen=True)
class Ruleset:
    """A game's rules: its tables, its procedures, and (for play) its game logic."""

    key: str
    title: str
    seed: str
    dice: str
    load_tables: Callable[[], TableSet]
    procedures: Mapping[str, Procedure[Any]]
    play: Any = field(default=None)  # a rules.core.play.GamePlay
    zero_reads_as_ten: bool = False  # a typed 0 on a d10 means 10 (linea_gotica)

    @property
    def tables(self) -> TableSet:
        """The validated tables (loaded once)."""
        return self.load_tables()

    def procedure(self, name: str) -> Procedure[Any]:
        """One procedure by name."""
        try:
            return self.procedures[name]
        except KeyError:
            raise UnknownName(
                "error.unknown_procedure",
                name=name[:40],
                ruleset=self.key,
                known=", ".join(sorted(self.procedures)),
            ) from None


@lru_cache(maxsize=16)  # the known rulesets (an unknown key raises: nothing kept)
def get_ruleset(key: str) -> Ruleset:
    """The ruleset registered under ``key``."""
    if key not in KNOWN_RULESETS:
        raise UnknownName("error.unknown_ruleset", name=key[:40], known=", ".join(KNOWN_RULESETS))
    module = importlib.import_module(f"rules.{key}")
    ruleset: Ruleset = module.RULESET
    return ruleset


def all_rulesets() -> list[Ruleset]:
    """Every registered ruleset."""
    return [get_ruleset(key) for key in KNOWN_RULESETS]
