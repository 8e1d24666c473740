"""Value objects describing how an action was resolved.

A :class:`Resolution` is what every procedure of every ruleset returns: ordered steps (each
with its dice, named modifiers, total, threshold or table cell read, and an outcome), the
state effects it implies, and the exact odds of its outcome keys. It holds no text: the
front ends render it in the game's language from the catalogue keys it carries.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Annotated, Any

from pydantic import Field, PlainSerializer, PlainValidator, TypeAdapter

from rules.core.dice import DiceTray, Roll
from rules.core.i18n import DEFAULT_LANGUAGE
from rules.core.words import LocalizedTitle, Words

ParamValue = str | int


def _stored_param(value: object) -> ParamValue:
    """A parameter as stored: a number, a text, or a name with its languages (read back as
    :class:`Words`, so a log, a page or an export read later names it in its reader's
    language, as the reply did)."""
    if isinstance(value, Mapping) and value:
        texts = {str(language): str(text) for language, text in value.items()}
        return Words(texts.get(DEFAULT_LANGUAGE) or next(iter(texts.values())), texts)
    if isinstance(value, str | int):
        return value
    raise ValueError(f"a parameter is a text, a number or a name's languages, not {value!r}")


def _param_dumped(value: ParamValue) -> str | int | dict[str, str]:
    translations = getattr(value, "translations", None)
    if translations:
        # The text itself is read where a language has none: kept as the default's.
        return {DEFAULT_LANGUAGE: str(value), **translations}
    return str(value) if isinstance(value, str) else value


def _stored_name(value: object) -> str:
    """A name as stored: a text, or its languages (read back as :class:`Words`)."""
    named = _stored_param(value)
    if not isinstance(named, str):
        raise ValueError(f"a name is a text or its languages, not {value!r}")
    return named


#: A name stored with its languages when it has them (an effect's target's).
StoredName = Annotated[str, PlainValidator(_stored_name), PlainSerializer(_param_dumped)]
#: A parameter's value, stored with its languages when it is a name that has them.
StoredParam = Annotated[ParamValue, PlainValidator(_stored_param), PlainSerializer(_param_dumped)]
Params = tuple[tuple[str, StoredParam], ...]


def make_params(values: dict[str, ParamValue | None]) -> Params:
    """Freeze keyword parameters into a hashable, ordered tuple (``None`` dropped)."""
    return tuple((name, value) for name, value in values.items() if value is not None)


@dataclass(frozen=True, slots=True)
class Outcome:
    """A machine outcome: a catalogue key plus the parameters that localize it.

    ``secret_for``: a notice that only this side (and the referee) may read, for it tells of
    a unit hidden from the enemy (a hidden squad's new leader); None: every seat. Never
    stored: an outcome kept in a log is a resolution's, whose own ``secret_for`` says who
    reads it."""

    key: str
    params: Params = ()
    secret_for: Annotated[str | None, Field(exclude=True)] = None

    @classmethod
    def of(cls, key: str, **params: ParamValue | None) -> Outcome:
        """Build an outcome from keyword parameters."""
        return cls(key, make_params(params))

    @property
    def code(self) -> str:
        """A stable string for this outcome, e.g. ``casualties(n=2)``; the odds' key."""
        if not self.params:
            return self.key
        inner = ",".join(f"{name}={value}" for name, value in self.params)
        return f"{self.key}({inner})"

    def param(self, name: str, default: ParamValue | None = None) -> ParamValue | None:
        """The value of one parameter."""
        for key, value in self.params:
            if key == name:
                return value
        return default

    def kept_for(self, side: str) -> Outcome:
        """This notice, for ``side`` (and the referee) alone to read."""
        return replace(self, secret_for=side)


@dataclass(frozen=True, slots=True)
class Modifier:
    """A named modifier added to a roll (catalogue key ``key``)."""

    key: str
    value: int
    params: Params = ()


class Comparison(enum.StrEnum):
    """How a total is compared with its threshold."""

    AT_LEAST = ">="
    GREATER = ">"
    AT_MOST = "<="
    LESS = "<"

    def holds(self, total: int, threshold: int) -> bool:
        """Whether ``total`` passes against ``threshold``."""
        if self is Comparison.AT_LEAST:
            return total >= threshold
        if self is Comparison.GREATER:
            return total > threshold
        if self is Comparison.AT_MOST:
            return total <= threshold
        return total < threshold


@dataclass(frozen=True, slots=True)
class Threshold:
    """What a total had to beat: ``total <comparison> value``."""

    comparison: Comparison
    value: int
    key: str = ""
    params: Params = ()

    def passed(self, total: int) -> bool:
        """Whether ``total`` meets this threshold."""
        return self.comparison.holds(total, self.value)


@dataclass(frozen=True, slots=True)
class TableRead:
    """The table cell a step read: table id and title, row, column and the cell's text."""

    table: str
    title: LocalizedTitle  # a table the seed does not give is titled in every language
    row: str
    column: str
    cell: str


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a resolution."""

    key: str
    rolls: tuple[Roll, ...] = ()
    modifiers: tuple[Modifier, ...] = ()
    total: int | None = None
    threshold: Threshold | None = None
    table: TableRead | None = None
    outcome: Outcome | None = None
    params: Params = ()


class EffectKind(enum.StrEnum):
    """The kinds of change to the game state a resolution can imply."""

    CASUALTIES = "casualties"
    STATUS = "status"
    CLEAR_STATUS = "clear_status"
    MARKER = "marker"
    TEST_OWED = "test_owed"
    MOVEMENT = "movement"
    DAMAGE = "damage"


@dataclass(frozen=True, slots=True)
class Effect:
    """A state change implied by a resolution, applied by the ruleset's game logic."""

    kind: EffectKind
    key: str
    #: The id of what the effect falls on: the game logic applies it by its id.
    target: str | None = None
    amount: int | None = None
    params: Params = ()
    #: The target's name (:class:`rules.core.words.Words`, read in the reader's language),
    #: given by :meth:`Resolution.naming_targets`: players read names, never ids.
    name: StoredName | None = None


@dataclass(frozen=True, slots=True)
class OddsEntry:
    """The exact probability ``numerator / denominator`` of one outcome."""

    outcome: Outcome
    numerator: int
    denominator: int

    @property
    def probability(self) -> float:
        """The probability as a float."""
        return self.numerator / self.denominator


@dataclass(frozen=True, slots=True)
class Odds:
    """The distribution of a procedure's outcomes over every combination of its dice.

    ``exact`` is false when the enumeration hit its bound; then ``entries`` is empty.
    """

    entries: tuple[OddsEntry, ...]
    paths: int
    exact: bool = True

    def as_mapping(self) -> dict[str, float]:
        """Outcome code → probability."""
        return {entry.outcome.code: entry.probability for entry in self.entries}

    def probability(self, code: str) -> float:
        """The probability of one outcome code (0 when it cannot happen)."""
        for entry in self.entries:
            if entry.outcome.code == code:
                return entry.probability
        return 0.0

    def relabelled(self, name: str, placeholder: ParamValue, actual: ParamValue | None) -> Odds:
        """The same odds with outcome parameter ``name`` set to ``actual`` (None: dropped)
        wherever it is ``placeholder``: the odds of an input that differs only in a label."""
        if placeholder == actual:
            return self

        def relabel(params: Params) -> Params:
            kept: list[tuple[str, ParamValue]] = []
            for key, value in params:
                if key != name or value != placeholder:
                    kept.append((key, value))
                elif actual is not None:
                    kept.append((key, actual))
            return tuple(kept)

        entries = tuple(
            OddsEntry(
                Outcome(entry.outcome.key, relabel(entry.outcome.params)),
                entry.numerator,
                entry.denominator,
            )
            for entry in self.entries
        )
        return Odds(entries, self.paths, self.exact)


@dataclass(frozen=True, slots=True)
class Resolution:
    """The complete, renderable account of one resolved action."""

    ruleset: str
    procedure: str
    steps: tuple[Step, ...]
    outcome: Outcome
    effects: tuple[Effect, ...] = ()
    odds: Odds | None = None
    #: The side that alone (with the referee) may read this account and its dice: it tells
    #: of a unit hidden from the enemy (a hidden squad's roll for a new leader, in a turn's
    #: public ``/turn next``). None: every seat. Stored with it, so every reader of a log,
    #: a page or an export is given only what it may read.
    secret_for: str | None = None

    @property
    def rolls(self) -> tuple[Roll, ...]:
        """Every die rolled, in order."""
        return tuple(roll for step in self.steps for roll in step.rolls)

    def with_odds(self, odds: Odds | None) -> Resolution:
        """A copy carrying ``odds``."""
        return replace(self, odds=odds)

    def kept_for(self, side: str) -> Resolution:
        """This account, for ``side`` (and the referee) alone to read."""
        return replace(self, secret_for=side)

    def naming(self, param: str, names: Mapping[str, ParamValue]) -> Resolution:
        """The same account with parameter ``param`` given the name of the id it holds,
        wherever ``names`` has one (in its steps, its outcome and its odds): a procedure
        works on ids (dice belong to their roller, a side is found by its id), its reader
        reads names — a side's in each language (:class:`rules.core.words.Words`)."""

        def named(params: Params) -> Params:
            return tuple(
                (key, names.get(value, value) if key == param and isinstance(value, str) else value)
                for key, value in params
            )

        def outcome(found: Outcome) -> Outcome:
            return Outcome(found.key, named(found.params))

        steps = tuple(
            replace(
                step,
                params=named(step.params),
                outcome=None if step.outcome is None else outcome(step.outcome),
            )
            for step in self.steps
        )
        odds = self.odds
        if odds is not None:
            entries = tuple(
                OddsEntry(outcome(entry.outcome), entry.numerator, entry.denominator)
                for entry in odds.entries
            )
            odds = Odds(entries, odds.paths, odds.exact)
        return replace(self, steps=steps, outcome=outcome(self.outcome), odds=odds)

    def naming_targets(self, names: Mapping[str, str]) -> Resolution:
        """The same account with each effect given the name of its target, wherever
        ``names`` (names by id) has one: a procedure's effects fall on ids, its reader
        reads "Devastators: 1 killed", not "[devastatori]"."""
        found = [names.get(effect.target or "") for effect in self.effects]
        if not any(found):
            return self
        effects = tuple(
            effect if name is None else replace(effect, name=name)
            for effect, name in zip(self.effects, found, strict=True)
        )
        return replace(self, effects=effects)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict with ``outcome`` (code), ``steps``, ``effects`` and ``odds``
        (and ``secret_for``, when only a side may read it)."""
        data: dict[str, Any] = _ADAPTER.dump_python(self, mode="json")
        if data["secret_for"] is None:  # every seat's, stored as it always was
            del data["secret_for"]
        data["outcome_code"] = self.outcome.code
        data["odds_map"] = None if self.odds is None else self.odds.as_mapping()
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Resolution:
        """Rebuild a resolution stored with :meth:`to_json`."""
        payload = {k: v for k, v in data.items() if k not in ("outcome_code", "odds_map")}
        return _ADAPTER.validate_python(payload)


_ADAPTER: TypeAdapter[Resolution] = TypeAdapter(Resolution)


@dataclass(slots=True)
class ResolutionBuilder:
    """Collects steps and effects while a procedure runs."""

    ruleset: str
    procedure: str
    tray: DiceTray
    steps: list[Step] = field(default_factory=list)
    effects: list[Effect] = field(default_factory=list)

    def step(
        self,
        key: str,
        *,
        rolls: tuple[Roll, ...] = (),
        modifiers: tuple[Modifier, ...] = (),
        total: int | None = None,
        threshold: Threshold | None = None,
        table: TableRead | None = None,
        outcome: Outcome | None = None,
        **params: ParamValue | None,
    ) -> Step:
        """Record a step and return it."""
        made = Step(key, rolls, modifiers, total, threshold, table, outcome, make_params(params))
        self.steps.append(made)
        return made

    def effect(
        self,
        kind: EffectKind,
        key: str,
        *,
        target: str | None = None,
        amount: int | None = None,
        **params: ParamValue | None,
    ) -> None:
        """Record a state effect."""
        self.effects.append(Effect(kind, key, target, amount, make_params(params)))

    def finish(self, outcome: Outcome) -> Resolution:
        """The resolution, without odds (the engine adds them)."""
        return Resolution(
            self.ruleset, self.procedure, tuple(self.steps), outcome, tuple(self.effects)
        )
