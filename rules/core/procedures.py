"""Procedures: named, typed resolvers with exact, bounded, cached odds.

A procedure takes a validated pydantic input and a :class:`DiceTray` and returns a
:class:`Resolution`. Its odds are computed by running the very same resolver over every
combination of its dice (:func:`rules.core.odds.enumerate_odds`), cached by input.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from rules.core.caches import BoundedCache
from rules.core.compose import clear_composed_parts
from rules.core.dice import DiceSource, DiceTray, ScriptedDice
from rules.core.errors import InvalidInput
from rules.core.odds import DEFAULT_PATH_LIMIT, enumerate_odds
from rules.core.resolution import Odds, ParamValue, Resolution

InputT = TypeVar("InputT", bound=BaseModel)


def _odds_weight(key: tuple[str, str, str], odds: Odds) -> int:
    """About the bytes an entry takes: its key's input text, and each outcome with its
    parameters and exact fraction (~450 B, measured over played games)."""
    return 300 + len(key[2]) + 450 * len(odds.entries)


#: The odds of every procedure by input: at most 8,192 inputs and about 4 MB.
_ODDS_CACHE: BoundedCache[tuple[str, str, str], Odds] = BoundedCache(
    8192, name="odds", max_weight=4 * 1024 * 1024, weigh=_odds_weight
)


_NUMBER_ERRORS = frozenset(
    {"int_parsing", "float_parsing", "int_from_float", "int_type", "float_type", "finite_number"}
)


def option_error(error: ValidationError, option_of: Mapping[str, str]) -> InvalidInput:
    """The first problem of a command's options, named as the player typed the option.

    ``option_of`` maps the command model's field names to the option names players type
    (``distance_cm`` → ``distance``); the message is a catalogue key, so it reads in the
    game's language rather than pydantic's English.
    """
    item = error.errors()[0]
    fields = [part for part in item["loc"] if isinstance(part, str)]
    field_name = next((f for f in reversed(fields) if f in option_of), fields[-1] if fields else "")
    option = option_of.get(field_name, field_name)[:40] or "-"
    kind = item["type"]
    context = item.get("ctx") or {}
    if kind in ("missing", "string_too_short"):
        return InvalidInput("error.option.missing", option=option)
    if kind in ("less_than_equal", "less_than"):
        limit = context.get("le", context.get("lt"))
        return InvalidInput("error.option.too_big", option=option, limit=str(limit))
    if kind in ("greater_than_equal", "greater_than"):
        limit = context.get("ge", context.get("gt"))
        return InvalidInput("error.option.too_small", option=option, limit=str(limit))
    if kind in _NUMBER_ERRORS:
        return InvalidInput("error.option.not_a_number", option=option)
    if kind in ("enum", "literal_error"):
        known = str(context.get("expected", ""))[:200]
        return InvalidInput("error.option.not_a_choice", option=option, known=known)
    if kind == "string_too_long":
        return InvalidInput(
            "error.option.too_long", option=option, limit=str(context.get("max_length"))
        )
    if kind == "bool_parsing":
        return InvalidInput("error.option.not_yes_no", option=option)
    return InvalidInput("error.option.invalid", option=option, detail=str(item["msg"])[:160])


def describe_validation_error(error: ValidationError) -> str:
    """A one-line, user-safe summary of a pydantic validation error."""
    parts = []
    for item in error.errors()[:3]:
        where = ".".join(str(part) for part in item["loc"]) or "input"
        parts.append(f"{where}: {item['msg']}")
    more = len(error.errors()) - 3
    return "; ".join(parts) + (f" (+{more})" if more > 0 else "")


@dataclass(frozen=True, slots=True)
class OddsLabel:
    """An outcome parameter that only labels the outcome (a figure's number): the odds are
    enumerated with ``placeholder`` in it and given back with ``actual`` (None: no such
    parameter)."""

    name: str
    placeholder: ParamValue
    actual: ParamValue | None


@dataclass(frozen=True, slots=True)
class SharedOdds(Generic[InputT]):
    """How an input's odds are shared with the inputs the dice cannot tell from it."""

    key: str
    enumerate: InputT
    labels: tuple[OddsLabel, ...] = ()


@dataclass(frozen=True)
class Procedure(Generic[InputT]):
    """A resolver of one ruleset, with its input model and documented dice order."""

    ruleset: str
    name: str
    input_model: type[InputT]
    resolver: Callable[[InputT, DiceTray], Resolution]
    summary: str
    dice_order: str
    path_limit: int = DEFAULT_PATH_LIMIT
    examples: tuple[Mapping[str, Any], ...] = field(default=())
    #: Inputs that differ only where the dice cannot tell them apart share one enumeration:
    #: given an input, the key its odds are cached under, the input to enumerate, and the
    #: outcome labels to put back (`OddsLabel`). None: the input itself is the key.
    odds_input: Callable[[InputT], SharedOdds[InputT]] | None = None

    def parse_input(self, data: Mapping[str, Any] | str) -> InputT:
        """Validate raw input (a mapping or JSON text) into the input model."""
        try:
            if isinstance(data, str):
                return self.input_model.model_validate_json(data)
            return self.input_model.model_validate(data)
        except ValidationError as error:
            raise InvalidInput(
                "error.invalid_input.detail", detail=describe_validation_error(error)
            ) from None

    def run(self, data: InputT, source: DiceSource) -> Resolution:
        """Resolve once with dice from ``source`` (no odds)."""
        return self.resolver(data, DiceTray(source))

    def odds(self, data: InputT) -> Odds:
        """The exact odds of this input's outcomes (bounded, cached)."""
        if self.odds_input is None:
            return self._enumerated(data.model_dump_json(), data)
        shared = self.odds_input(data)
        odds = self._enumerated(shared.key, shared.enumerate)
        for label in shared.labels:
            odds = odds.relabelled(label.name, label.placeholder, label.actual)
        return odds

    def _enumerated(self, key_text: str, data: InputT) -> Odds:
        key = (self.ruleset, self.name, key_text)
        cached = _ODDS_CACHE.get(key)
        if cached is not None:
            return cached

        def outcome_of(source: Any) -> Any:
            return self.resolver(data, DiceTray(source)).outcome

        computed = enumerate_odds(outcome_of, self.path_limit)
        if computed.exact:  # a budget cut may be the machine's load: try again next time
            _ODDS_CACHE.put(key, computed)
        return computed

    def resolve_on(self, data: InputT, tray: DiceTray) -> Resolution:
        """Resolve with a game's tray (its dice and roll record), carrying the exact odds."""
        return self.resolver(data, tray).with_odds(self.odds(data))

    def resolve(self, data: InputT, source: DiceSource, *, with_odds: bool = True) -> Resolution:
        """Resolve with dice from ``source``; scripted faces must all be used."""
        resolution = self.run(data, source)
        if isinstance(source, ScriptedDice):
            source.ensure_consumed()
        return resolution.with_odds(self.odds(data)) if with_odds else resolution

    def input_schema(self) -> dict[str, Any]:
        """The JSON schema of the input model."""
        return self.input_model.model_json_schema()


#: Other caches of odds (a ruleset's own composition) to forget with :func:`clear_odds_cache`.
ODDS_CACHE_CLEARERS: list[Callable[[], None]] = []


def clear_odds_cache() -> None:
    """Forget every cached odds and composed part (benchmarks measure cold odds with it)."""
    _ODDS_CACHE.clear()
    clear_composed_parts()
    for clear in ODDS_CACHE_CLEARERS:
        clear()


def dumps(value: Any) -> str:
    """Compact, stable JSON for CLI output."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True)
