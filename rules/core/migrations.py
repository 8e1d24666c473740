"""Game document formats: every stored document says which format it is in, and older
formats are migrated in memory when the document is loaded.

A ruleset's game document is its state model dumped to JSON, plus a top-level
``"format": N`` field. ``N`` counts the changes of the state model that stored documents
had to follow: documents written before formats existed (release 0.1.0) carry no field and
are format 1. Each ruleset declares its current format and the migrations that lead to it
in ``rules/<ruleset>/migrations.py``::

    FORMAT = DocumentFormat("manovra", version=2)

    @FORMAT.migration(1)
    def _add_format_field(document: dict[str, Any]) -> dict[str, Any]:
        return document

A migration is a pure function from a document of format ``n`` to one of format ``n + 1``
(its ``format`` field is set by :meth:`DocumentFormat.upgrade`, not by the function). It
gets a private deep copy, may change it in place, and must not read anything but the
document: no tables, no clock, no dice — so migrating is deterministic and a document
migrates the same way in the bot, in a replay and in a test. Changing a state model means
bumping ``version`` and adding the one function (docs/storage.md, "How to change a state
model").

Nothing here writes to storage: a migrated document reaches the database only through the
next normal commit of its game, so a failed upgrade can never leave a database half
migrated.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from rules.core.errors import InvalidInput, RulesError

FORMAT_KEY = "format"
# Documents saved before formats existed carry no FORMAT_KEY: they are this format.
UNVERSIONED_FORMAT = 1

Migration = Callable[[dict[str, Any]], dict[str, Any]]


class DocumentTooNew(RulesError):
    """A document saved by a newer Arbitro, in a format this code cannot read."""

    default_key = "error.document.too_new"


class DocumentFormatError(InvalidInput):
    """A document whose ``format`` field is not a format number."""

    default_key = "error.document.bad_format"


@dataclass
class DocumentFormat:
    """A ruleset's current document format and the migrations from every older one."""

    ruleset: str
    version: int
    steps: dict[int, Migration] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.version < UNVERSIONED_FORMAT:
            raise ValueError(f"{self.ruleset}: format versions start at {UNVERSIONED_FORMAT}")

    def migration(self, from_version: int) -> Callable[[Migration], Migration]:
        """Register the decorated function as the migration from ``from_version`` to the next."""

        def register(function: Migration) -> Migration:
            if not UNVERSIONED_FORMAT <= from_version < self.version:
                raise ValueError(
                    f"{self.ruleset}: a migration from format {from_version} cannot lead to "
                    f"a format up to {self.version} (bump the version first)"
                )
            if from_version in self.steps:
                raise ValueError(f"{self.ruleset}: two migrations from format {from_version}")
            self.steps[from_version] = function
            return function

        return register

    def missing_steps(self) -> list[int]:
        """Formats with no migration to the next one (a complete format has none)."""
        return [n for n in range(UNVERSIONED_FORMAT, self.version) if n not in self.steps]

    def version_of(self, document: Mapping[str, Any]) -> int:
        """The format a document is in (format 1 when it carries none)."""
        value = document.get(FORMAT_KEY, UNVERSIONED_FORMAT)
        if isinstance(value, bool) or not isinstance(value, int) or value < UNVERSIONED_FORMAT:
            raise DocumentFormatError(
                "error.document.bad_format", ruleset=self.ruleset, value=str(value)[:20]
            )
        return value

    def upgrade(self, document: Mapping[str, Any]) -> dict[str, Any]:
        """The document in the current format: migrated in memory if it is older.

        A current document comes back as a shallow copy (cheap: this runs on every load);
        an older one is deep-copied first, so the caller's document is never changed.
        Raises :class:`DocumentTooNew` for a format newer than this code.
        """
        found = self.version_of(document)
        if found > self.version:
            raise DocumentTooNew(
                "error.document.too_new",
                ruleset=self.ruleset,
                format=found,
                supported=self.version,
            )
        if found == self.version:
            return dict(document)
        working = _copy_json(document)
        while found < self.version:
            step = self.steps.get(found)
            if step is None:
                raise RuntimeError(f"{self.ruleset}: no migration from format {found}")
            working = step(working)
            found += 1
            working[FORMAT_KEY] = found
        return working

    def stamp(self, fields: Mapping[str, Any]) -> dict[str, Any]:
        """A state model's dumped fields as a document of the current format."""
        return {**fields, FORMAT_KEY: self.version}

    @staticmethod
    def state_fields(document: Mapping[str, Any]) -> dict[str, Any]:
        """The document without its format field: what the state model validates."""
        return {key: value for key, value in document.items() if key != FORMAT_KEY}


def _copy_json(document: Mapping[str, Any]) -> dict[str, Any]:
    """A private copy of a JSON document: a round trip through C-accelerated JSON is about
    twice as fast as ``copy.deepcopy`` on a game document."""
    copied: dict[str, Any] = json.loads(json.dumps(document))
    return copied


@lru_cache(maxsize=16)  # one per ruleset
def document_format(ruleset: str) -> DocumentFormat:
    """The format of ``ruleset``'s documents, from ``rules.<ruleset>.migrations.FORMAT``."""
    module = importlib.import_module(f"rules.{ruleset}.migrations")
    found: DocumentFormat = module.FORMAT
    return found


def add_format_field(document: dict[str, Any]) -> dict[str, Any]:
    """Format 1 → 2, the same for every ruleset: documents start saying their format.

    Release 0.1.0 wrote the bare state; the state itself did not change, so the only
    difference is the ``format`` field, which :meth:`DocumentFormat.upgrade` sets.
    """
    return document


def add_full_strength(document: dict[str, Any]) -> dict[str, Any]:
    """The same step for every ruleset whose campaign musters units at their carried
    strength: each unit gains ``full_strength`` (the scenario's strength of a unit mustered
    below it). Games saved before began every unit whole: None."""
    for unit in document.get("units", {}).values():
        unit.setdefault("full_strength", None)
    return document


__all__ = [
    "FORMAT_KEY",
    "UNVERSIONED_FORMAT",
    "DocumentFormat",
    "DocumentFormatError",
    "DocumentTooNew",
    "Migration",
    "add_format_field",
    "add_full_strength",
    "document_format",
]
