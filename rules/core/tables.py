"""Seed tables as validated data.

Each table is a YAML file naming the seed table it transcribes. Rows are located by one or
more *axes* (a die total on an integer-range axis such as ``1-3``/``4``/``+``, or a category
such as a terrain type); columns by key, alias or integer range (shots ``1-3`` … ``>75``),
optionally in groups (the two impact-angle groups of the penetration table). Cells keep the
seed's text verbatim; a ruleset may register a parser that turns each cell into typed
effects at load time, so a cell the rules cannot read fails the load, not a game.

Range syntax, for axis values and column ranges:
``7`` (one value), ``1-3`` (inclusive), ``+`` or ``>N`` (from just after the previous band,
open-ended), ``N+`` (N and above), ``-`` (no band on this axis for this row). An axis value
may carry aliases after slashes: ``31-40 / 2p`` is the band 31–40, also called ``2p``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

from rules.core.errors import TableDataError, UnknownName
from rules.core.words import LocalizedTitle
from rules.core.yamlio import load_yaml

OPEN = 10**9  # the upper bound of an open-ended band
_FOUND_LIMIT = 4096  # memoised lookups per table, then forgotten at once


@dataclass(frozen=True, slots=True)
class Band:
    """An inclusive integer band ``low..high`` (``high == OPEN`` when open-ended)."""

    low: int
    high: int

    def __contains__(self, value: object) -> bool:
        return isinstance(value, int) and self.low <= value <= self.high

    def __str__(self) -> str:
        if self.high == OPEN:
            return f"{self.low}+"
        return str(self.low) if self.low == self.high else f"{self.low}-{self.high}"


_SINGLE = re.compile(r"^-?\d+$")
_SPAN = re.compile(r"^(-?\d+)\s*-\s*(-?\d+)$")
_ABOVE = re.compile(r"^>\s*(\d+)$")
_FROM = re.compile(r"^(\d+)\s*\+$")


def parse_band(text: str, previous: Band | None) -> Band | None:
    """Parse one band; ``None`` for ``-`` (absent). ``previous`` resolves ``+`` and ``>N``."""
    token = text.strip()
    if token == "-":
        return None
    if token == "+" or _ABOVE.match(token):
        if previous is None:
            raise ValueError(f"open band {token!r} with no band before it")
        above = _ABOVE.match(token)
        if above is not None and int(above.group(1)) not in (previous.high, previous.high + 1):
            raise ValueError(f"band {token!r} does not follow {previous}")
        return Band(previous.high + 1, OPEN)
    if (match := _FROM.match(token)) is not None:
        return Band(int(match.group(1)), OPEN)
    if _SINGLE.match(token):
        return Band(int(token), int(token))
    if (match := _SPAN.match(token)) is not None:
        low, high = int(match.group(1)), int(match.group(2))
        if low > high:
            raise ValueError(f"band {token!r} runs backwards")
        return Band(low, high)
    raise ValueError(f"not a band: {token!r}")


def split_aliases(text: str) -> tuple[str, list[str]]:
    """Split ``'31-40 / 2p'`` into the band text and its aliases."""
    parts = [part.strip() for part in text.split("/")]
    return parts[0], [part for part in parts[1:] if part]


class Note(BaseModel):
    """A transcription decision: where the seed is garbled, what was decided and why."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    where: str
    decision: str
    reasoning: str


class Axis(BaseModel):
    """A way of locating rows: an integer ``range`` axis or a ``category`` axis."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    key: str
    label: str
    kind: Literal["range", "category"] = "range"
    optional: bool = False  # whether rows may have '-' (no band) on this axis


class Column(BaseModel):
    """A column: its key, the seed's heading, optional group, band and aliases."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    key: str
    label: str
    group: str | None = None
    range: str | None = None
    aliases: tuple[str, ...] = ()
    data: dict[str, Any] = Field(default_factory=dict)


class Row(BaseModel):
    """A row: its axis values as the seed prints them, and one cell per column."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str | None = None
    label: str | None = None
    keys: dict[str, str] = Field(default_factory=dict)
    cells: tuple[str, ...]
    data: dict[str, Any] = Field(default_factory=dict)


class Table(BaseModel):
    """A transcribed seed table, validated at load time."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str
    #: The seed's own title (its words, in its language); a table the seed does not give
    #: (``data: {not_in_seed: true}``) is titled in each reader's language.
    title: LocalizedTitle
    seed: str
    seed_table: str
    dice: str | None = None
    description: str | None = None
    row_axes: tuple[Axis, ...] = ()
    column_groups: dict[str, str] = Field(default_factory=dict)
    columns: tuple[Column, ...]
    rows: tuple[Row, ...]
    cell_pattern: str | None = None
    column_cell_patterns: dict[str, str] = Field(default_factory=dict)
    footnotes: tuple[str, ...] = ()
    notes: tuple[Note, ...] = ()
    data: dict[str, Any] = Field(default_factory=dict)
    _bands: dict[str, list[tuple[Band | None, tuple[str, ...], Row]]] = PrivateAttr(
        default_factory=dict
    )
    # Lookups already answered: an odds enumeration reads the same rows and columns on
    # every path. Only found ones are kept, and the memo is bounded.
    _found_rows: dict[tuple[str, int | str], Row] = PrivateAttr(default_factory=dict)
    _found_columns: dict[tuple[int, str | None], Column] = PrivateAttr(default_factory=dict)

    @model_validator(mode="after")
    def _check_shape(self) -> Table:
        column_keys = [column.key for column in self.columns]
        duplicated = {key for key in column_keys if column_keys.count(key) > 1}
        if duplicated:
            raise ValueError(f"duplicate column keys {sorted(duplicated)}")
        for group in {column.group for column in self.columns if column.group}:
            if self.column_groups and group not in self.column_groups:
                raise ValueError(f"column group {group!r} is not declared in column_groups")
        row_ids = [row.id for row in self.rows if row.id is not None]
        if len(row_ids) != len(set(row_ids)):
            raise ValueError("duplicate row ids")
        axis_keys = {axis.key for axis in self.row_axes}
        for index, row in enumerate(self.rows, start=1):
            where = f"row {index} ({row.label or row.id or row.keys})"
            if len(row.cells) != len(self.columns):
                raise ValueError(f"{where}: {len(row.cells)} cells for {len(self.columns)} columns")
            if set(row.keys) != axis_keys:
                raise ValueError(f"{where}: keys {sorted(row.keys)} != axes {sorted(axis_keys)}")
            for column, cell in zip(self.columns, row.cells, strict=True):
                pattern = self.column_cell_patterns.get(column.key, self.cell_pattern)
                if pattern is not None and re.fullmatch(pattern, cell) is None:
                    raise ValueError(f"{where}, column {column.key}: cell {cell!r} !~ {pattern}")
        for axis in self.row_axes:
            if axis.kind == "range":
                self._check_bands(
                    f"axis {axis.key}",
                    [row.keys[axis.key] for row in self.rows],
                    allow_absent=axis.optional,
                )
        groups: dict[str | None, list[str]] = {}
        for column in self.columns:
            if column.range is not None:
                groups.setdefault(column.group, []).append(column.range)
        for group_name, ranges in groups.items():
            self._check_bands(f"columns of group {group_name}", ranges, allow_absent=False)
        return self

    @staticmethod
    def _check_bands(where: str, texts: Iterable[str], *, allow_absent: bool) -> None:
        previous: Band | None = None
        for text in texts:
            band_text, _ = split_aliases(text)
            band = parse_band(band_text, previous)
            if band is None:
                if not allow_absent:
                    raise ValueError(f"{where}: '-' where a band is required")
                continue
            if previous is not None:
                if band.low <= previous.high:
                    raise ValueError(f"{where}: band {band} overlaps {previous}")
                if band.low != previous.high + 1:
                    raise ValueError(f"{where}: gap between {previous} and {band}")
            previous = band

    # -- lookups -------------------------------------------------------------------------

    def axis_bands(self, axis: str) -> list[tuple[Band | None, tuple[str, ...], Row]]:
        """Each row's band and aliases on ``axis``, in order."""
        cached = self._bands.get(axis)
        if cached is not None:
            return cached
        result: list[tuple[Band | None, tuple[str, ...], Row]] = []
        previous: Band | None = None
        for row in self.rows:
            band_text, aliases = split_aliases(row.keys[axis])
            band = parse_band(band_text, previous)
            if band is not None:
                previous = band
            result.append((band, tuple(aliases), row))
        self._bands[axis] = result
        return result

    def row_for(self, axis: str, value: int | str) -> Row:
        """The row whose band on ``axis`` contains ``value`` (an int or an alias)."""
        memo: dict[tuple[str, int | str], Row] = self._private("_found_rows")
        found = memo.get((axis, value))
        if found is not None:
            return found
        row = self._row_for(axis, value)
        if len(memo) >= _FOUND_LIMIT:
            memo.clear()
        memo[(axis, value)] = row
        return row

    def _private(self, name: str) -> Any:
        # Read straight from pydantic's store of private attributes: ``self._name`` goes
        # through BaseModel.__getattr__, which costs more than the memoised lookup itself.
        private = self.__pydantic_private__
        return private[name] if private is not None else getattr(self, name)

    def _row_for(self, axis: str, value: int | str) -> Row:
        if axis not in {a.key for a in self.row_axes}:
            raise UnknownName("error.table.no_axis", table=self.id, axis=axis)
        for band, aliases, row in self.axis_bands(axis):
            if isinstance(value, int):
                if band is not None and value in band:
                    return row
            elif value in aliases or (band is not None and str(band) == value):
                return row
        raise UnknownName("error.table.no_row", table=self.id, axis=axis, value=str(value))

    def row_where(self, **criteria: str) -> Row:
        """The single row whose category keys equal ``criteria``."""
        matches = [
            row for row in self.rows if all(row.keys.get(k) == v for k, v in criteria.items())
        ]
        if len(matches) != 1:
            raise UnknownName(
                "error.table.no_row", table=self.id, axis=",".join(criteria), value=str(criteria)
            )
        return matches[0]

    def row_by_id(self, row_id: str) -> Row:
        """The row with this id."""
        for row in self.rows:
            if row.id == row_id:
                return row
        raise UnknownName("error.table.no_row", table=self.id, axis="id", value=row_id)

    def column(self, key: str) -> Column:
        """The column with this key (or alias)."""
        for column in self.columns:
            if column.key == key or key in column.aliases:
                return column
        raise UnknownName("error.table.no_column", table=self.id, column=key)

    def column_for(self, value: int, group: str | None = None) -> Column:
        """The column of ``group`` whose band contains ``value``."""
        memo: dict[tuple[int, str | None], Column] = self._private("_found_columns")
        found = memo.get((value, group))
        if found is not None:
            return found
        column = self._column_for(value, group)
        if len(memo) >= _FOUND_LIMIT:
            memo.clear()
        memo[(value, group)] = column
        return column

    def _column_for(self, value: int, group: str | None) -> Column:
        previous: Band | None = None
        for column in self.columns:
            if column.group != group or column.range is None:
                continue
            band = parse_band(column.range, previous)
            previous = band
            if band is not None and value in band:
                return column
        raise UnknownName("error.table.no_column", table=self.id, column=f"{group}:{value}")

    def cell(self, row: Row, column: Column | str) -> str:
        """The text of the cell at ``row`` × ``column``."""
        col = self.column(column) if isinstance(column, str) else column
        for index, candidate in enumerate(self.columns):
            if candidate is col:
                return row.cells[index]
        raise UnknownName("error.table.no_column", table=self.id, column=col.key)

    def row_label(self, row: Row) -> str:
        """How the row is named when a resolution cites it."""
        if row.label:
            return row.label
        return " / ".join(f"{value}" for value in row.keys.values()) or (row.id or "")


CellParser = Callable[[Table, Row, Column, str], Any]


class TableSet:
    """The tables of one ruleset, loaded from a folder and validated once."""

    def __init__(self, tables: Mapping[str, Table], parsed: Mapping[tuple[str, int, int], Any]):
        self._tables = dict(tables)
        self._parsed = dict(parsed)
        # Rows are value objects (two rows may be equal), so cells are found by identity.
        self._row_index = {
            id(row): index
            for table in self._tables.values()
            for index, row in enumerate(table.rows)
        }
        self._column_index = {
            id(column): index
            for table in self._tables.values()
            for index, column in enumerate(table.columns)
        }

    @classmethod
    def load(cls, folder: Path, parsers: Mapping[str, CellParser] | None = None) -> TableSet:
        """Load and validate every ``*.yaml`` table in ``folder``; run the cell parsers."""
        tables: dict[str, Table] = {}
        parsed: dict[tuple[str, int, int], Any] = {}
        for path in sorted(folder.glob("*.yaml")):
            table = load_table(path)
            if table.id in tables:
                raise TableDataError("error.table.duplicate", table=table.id)
            tables[table.id] = table
        for table_id, parser in (parsers or {}).items():
            if table_id not in tables:
                raise TableDataError("error.table.missing", table=table_id)
            table = tables[table_id]
            for row_index, row in enumerate(table.rows):
                for col_index, column in enumerate(table.columns):
                    text = row.cells[col_index]
                    try:
                        parsed[(table_id, row_index, col_index)] = parser(table, row, column, text)
                    except ValueError as error:
                        raise TableDataError(
                            "error.table.bad_cell",
                            table=table_id,
                            row=table.row_label(row),
                            column=column.label,
                            cell=text,
                            detail=str(error),
                        ) from error
        return cls(tables, parsed)

    def __getitem__(self, table_id: str) -> Table:
        try:
            return self._tables[table_id]
        except KeyError:
            raise UnknownName("error.unknown_table", name=table_id) from None

    def __contains__(self, table_id: object) -> bool:
        return table_id in self._tables

    def __iter__(self) -> Any:
        return iter(self._tables.values())

    def parsed(self, table: Table, row: Row, column: Column) -> Any:
        """The typed value a registered parser made of a cell."""
        return self._parsed[(table.id, self._row_index[id(row)], self._column_index[id(column)])]


def load_table(path: Path) -> Table:
    """Load one table file, turning any schema problem into a :class:`TableDataError`."""
    try:
        raw = load_yaml(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as error:
        raise TableDataError("error.table.yaml", file=path.name, detail=str(error)) from error
    try:
        return Table.model_validate(raw)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise TableDataError(
            "error.table.invalid", file=path.name, detail=f"{where}: {first['msg']}"
        ) from error
