"""The registry of rulesets.

A ruleset plugs in with :func:`register`: its :class:`Ruleset` (key, title, seed, dice,
tables, procedures) and its play, the three calls of :class:`rules.core.surface.Rules`.
The bundled rulesets are the subpackages ``rules.<key>`` with a ``tables`` folder; each
registers its ``RULESET`` when imported, and they are imported lazily (on the first
:func:`get_ruleset` of their key), so loading one never pays for the others. A ruleset
outside ``rules/`` (the toy one in ``tests/``) registers itself the same way.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rules.core.errors import UnknownName
from rules.core.procedures import Procedure
from rules.core.sequence import Tracked
from rules.core.surface import CarriedDeclaration, Muster, Rules
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


#: The bundled rulesets' keys, manovra first.
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
    #: Its play: the three calls (:class:`rules.core.surface.Rules`).
    rules: Rules = field(kw_only=True)
    zero_reads_as_ten: bool = False  # a typed 0 on a d10 means 10 (linea_gotica)
    # Its commands as data (a rules.core.declaration.Declaration): a ruleset from outside
    # rules/ carries it; a bundled one keeps it in rules/<key>/commands.yaml.
    declaration: CarriedDeclaration | None = None
    # How a campaign musters its games from the sides' rosters; None: the ruleset plays
    # campaigns without rosters.
    muster: Muster | None = None
    # Its declared sequence of play and where a game stands in it; None: the ruleset
    # declares none yet.
    sequence: Tracked | None = None
    # Whether a unit can be hidden from a side (linea_gotica's hidden units, manovra's
    # concealed ones): then no export for a side or a spectator keeps a state or a state's
    # hash, whether or not a unit is hidden now (which the choice would otherwise tell), and
    # a name a side types is looked up among what it may see. True unless a ruleset declares
    # it never hides one: a ruleset that forgot to say would otherwise leak what it hides
    # (the whole-game fuzzer checks every declared False after every command).
    hides_units: bool = True

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


_REGISTERED: dict[str, Ruleset] = {}


def register(ruleset: Ruleset) -> Ruleset:
    """Make ``ruleset`` playable under its key; returns it (``RULESET = register(...)``).

    Registering the same ruleset again changes nothing; another ruleset under a key already
    taken is refused (a bundled key is taken even before its package is imported).
    """
    taken = _REGISTERED.get(ruleset.key)
    if taken is ruleset:
        return ruleset
    if taken is not None or (ruleset.key in KNOWN_RULESETS and not _is_bundled(ruleset)):
        raise ValueError(f"a ruleset is already registered as {ruleset.key!r}")
    if ruleset.rules.ruleset != ruleset.key:
        raise ValueError(f"{ruleset.key!r} plays as {ruleset.rules.ruleset!r}")
    _REGISTERED[ruleset.key] = ruleset
    return ruleset


def unregister(key: str) -> None:
    """Forget a ruleset registered from outside ``rules/`` (tests do, after a toy game)."""
    if key in KNOWN_RULESETS:
        raise ValueError(f"{key!r} is bundled: it stays registered")
    _REGISTERED.pop(key, None)


def _is_bundled(ruleset: Ruleset) -> bool:
    """Whether a ruleset is the one its bundled package defines (being imported now)."""
    return type(ruleset.rules).__module__.startswith(f"rules.{ruleset.key}.")


def known_rulesets() -> tuple[str, ...]:
    """Every playable key: the bundled ones, then those registered from outside ``rules/``."""
    extra = tuple(key for key in _REGISTERED if key not in KNOWN_RULESETS)
    return KNOWN_RULESETS + extra


def get_ruleset(key: str) -> Ruleset:
    """The ruleset registered under ``key`` (a bundled one is imported, and so registered,
    on first use)."""
    found = _REGISTERED.get(key)
    if found is not None:
        return found
    if key not in KNOWN_RULESETS:
        known = ", ".join(known_rulesets())
        raise UnknownName("error.unknown_ruleset", name=key[:40], known=known)
    importlib.import_module(f"rules.{key}")
    return _REGISTERED[key]


def all_rulesets() -> list[Ruleset]:
    """Every registered ruleset (the bundled ones imported)."""
    return [get_ruleset(key) for key in known_rulesets()]
