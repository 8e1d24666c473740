"""A ruleset's commands declared as data: its verbs, their options, choices and examples.

Each ruleset keeps its declaration in ``rules/<key>/commands.yaml``, validated here by
pydantic when it is loaded. It is the one place a ruleset says what a player may type:

* the ruleset's ``commands.py`` reads its options through :meth:`Declaration.read` (unknown
  options refused, choices matched case-insensitively and in the ruleset's own words,
  aliases kept for old logs), then builds its command model;
* the front ends (``bot/commands.py``, ``bot/service/help.py``, the console) compute the shared
  slash commands (the union of every declaration) and each channel's help, choices and
  autocomplete (the declaration of the channel's ruleset) from it.

A YAML file rather than a Python module: it is data a reviewer reads at a glance, the
same shape as the tables and scenarios, and a ruleset added later writes no front-end code.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from rules.core.errors import InvalidInput, UnknownName
from rules.core.procedures import describe_validation_error
from rules.core.ruleset import KNOWN_RULESETS, get_ruleset, known_rulesets
from rules.core.yamlio import load_yaml

#: The file each ruleset declares its commands in (``rules/<key>/commands.yaml``).
FILE_NAME = "commands.yaml"
#: Discord's rules for an option name: lowercase letters, digits and ``_``, 1–32 long.
_OPTION_NAME = r"^[a-z][a-z0-9_]{0,31}$"
#: A verb as the service sends it: ``move``, ``turn.next``.
_VERB = r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)?$"
#: The preview of ``fire``: every ruleset that fires takes it, with fire's options.
ODDS = "odds"
FIRE = "fire"


class Measure(enum.StrEnum):
    """How a ruleset measures the table: what a distance or a place is typed in."""

    CM = "cm"
    INCH = "inch"
    HEX = "hex"


class ValueType(enum.StrEnum):
    """The type of an option's value (Discord's option types a ruleset may use)."""

    TEXT = "text"
    INTEGER = "integer"
    NUMBER = "number"
    BOOLEAN = "boolean"


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Choice(_Strict):
    """One fixed value of an option, in the ruleset's own words.

    ``label`` is the catalogue key of the name players see (``discord.choice.<value>`` when
    not given); ``aliases`` are older or other-language spellings still read as this value
    (a logged game replays with the words it was played with).
    """

    value: str = Field(min_length=1, max_length=100)
    label: str = ""
    aliases: tuple[str, ...] = ()

    @property
    def label_key(self) -> str:
        """The catalogue key of the choice's displayed name."""
        return self.label or f"discord.choice.{self.value}"


class OptionDeclaration(_Strict):
    """One option of a verb: how it is typed, what it means, where it goes in the command.

    ``field``: the command model's field it fills (the option's name when not given).
    ``description``: a stem (``distance_move`` → ``discord.opt.distance_move.description``)
    or a whole catalogue key (with a dot); a ``{unit}`` in its text reads the ruleset's
    measure. ``low``/``high``: a number's bounds; ``length``: a text's longest.
    ``autocomplete``: the kind of name the game suggests (unit, target, weapon, place…).
    ``extra``: typed inside the one ``extra`` option on Discord, where a shared command
    would otherwise carry too many options.
    """

    name: str = Field(pattern=_OPTION_NAME)
    field: str = ""
    type: ValueType = ValueType.TEXT
    description: str = ""
    required: bool = False
    choices: tuple[Choice, ...] = ()
    low: float | None = None
    high: float | None = None
    length: int = Field(100, ge=1, le=200)
    autocomplete: str | None = None
    extra: bool = False

    @field_validator("choices", mode="before")
    @classmethod
    def _plain_choices(cls, value: Any) -> Any:
        """A choice may be written as its bare value (``- front``)."""
        if isinstance(value, list | tuple):
            return [{"value": item} if isinstance(item, str) else item for item in value]
        return value

    @model_validator(mode="after")
    def _coherent(self) -> OptionDeclaration:
        if self.choices and self.type is not ValueType.TEXT:
            raise ValueError(f"option {self.name}: choices are text")
        if self.choices and self.autocomplete:
            raise ValueError(f"option {self.name}: choices or autocomplete, not both")
        numeric = self.type in (ValueType.INTEGER, ValueType.NUMBER)
        if numeric and (self.low is None or self.high is None):
            raise ValueError(f"option {self.name}: a number needs low and high")
        if not numeric and (self.low is not None or self.high is not None):
            raise ValueError(f"option {self.name}: only numbers have low/high")
        if numeric and self.low is not None and self.high is not None and self.low > self.high:
            raise ValueError(f"option {self.name}: low > high")
        spellings = [s.lower() for c in self.choices for s in (c.value, *c.aliases)]
        if len(set(spellings)) != len(spellings):
            raise ValueError(f"option {self.name}: a choice is spelt twice")
        return self

    @property
    def field_name(self) -> str:
        """The command model's field this option fills."""
        return self.field or self.name

    @property
    def description_stem(self) -> str:
        """The description's stem or key as declared (the name when not given)."""
        return self.description or self.name

    @property
    def description_key(self) -> str:
        """The catalogue key of the option's one-line description."""
        stem = self.description_stem
        return stem if "." in stem else f"discord.opt.{stem}.description"

    @property
    def values(self) -> tuple[str, ...]:
        """The declared choices' values, in order."""
        return tuple(choice.value for choice in self.choices)

    def choice_of(self, raw: str) -> str | None:
        """The choice ``raw`` names (its value or an alias, any case); None if none."""
        lowered = raw.strip().lower()
        for choice in self.choices:
            if lowered in (spelling.lower() for spelling in (choice.value, *choice.aliases)):
                return choice.value
        return None


class Example(_Strict):
    """A line a player types, as shown in help. It runs on the ruleset's first bundled
    scenario (or the one named) after the lines of ``after`` (each typed by the side whose
    move it is), or is refused there for the stated reason (``refused``: a catalogue key,
    a reason of the game's state, never of the line itself)."""

    line: str = Field(pattern=r"^/\S", max_length=200)
    scenario: str | None = None
    after: tuple[str, ...] = Field((), max_length=10)
    refused: str | None = None


class VerbDeclaration(_Strict):
    """One verb of the ruleset: the command it builds and the options it reads.

    ``command``: the command model's verb (the verb itself when not given). ``map``: the
    reply carries the picture of the table (something moved or fired). ``dice``: the
    player may type physical dice for it. ``description``: the command's catalogue key
    when it is a verb no shared command had (``discord.cmd.<verb>.description`` otherwise).
    """

    command: str = ""
    map: bool = False
    dice: bool = True
    description: str = ""
    options: tuple[OptionDeclaration, ...] = ()
    examples: tuple[Example, ...] = ()

    @model_validator(mode="after")
    def _unique(self) -> VerbDeclaration:
        names = [option.name for option in self.options]
        if len(set(names)) != len(names):
            raise ValueError("an option is declared twice")
        fields = [option.field_name for option in self.options]
        if len(set(fields)) != len(fields):
            raise ValueError("two options fill one field")
        return self

    def option(self, name: str) -> OptionDeclaration | None:
        """The option called ``name``, if declared."""
        return next((option for option in self.options if option.name == name), None)

    @property
    def option_names(self) -> tuple[str, ...]:
        """The names of the options, in declared order."""
        return tuple(option.name for option in self.options)


class Declaration(_Strict):
    """A ruleset's commands: its measure, its scenarios, its verbs."""

    ruleset: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    measure: Measure
    scenarios: tuple[str, ...] = Field(min_length=1)
    verbs: dict[str, VerbDeclaration] = Field(min_length=1)

    @model_validator(mode="after")
    def _verbs_named(self) -> Declaration:
        for verb, declared in self.verbs.items():
            if not re.match(_VERB, verb) or verb == ODDS:
                raise ValueError(f"{verb!r} is not a verb a ruleset declares")
            for example in declared.examples:
                head = example.line.split()[0]
                if not head.startswith("/"):
                    raise ValueError(f"{verb}: example {example.line!r}")
        return self

    @property
    def accepted_verbs(self) -> tuple[str, ...]:
        """Every verb the ruleset takes: the declared ones and ``odds`` (fire's preview)."""
        verbs: list[str] = []
        for verb in self.verbs:
            verbs += [verb, ODDS] if verb == FIRE else [verb]
        return tuple(verbs)

    def verb(self, verb: str) -> VerbDeclaration | None:
        """A verb's declaration (``odds`` reads fire's); None for a verb the ruleset lacks."""
        return self.verbs.get(FIRE if verb == ODDS else verb)

    def options_of(self, verb: str) -> tuple[str, ...]:
        """The option names ``verb`` takes (none for a verb the ruleset lacks)."""
        declared = self.verb(verb)
        return declared.option_names if declared is not None else ()

    def verb_options(self) -> dict[str, tuple[str, dict[str, str]]]:
        """verb → (command verb, {option name: field name}), ``odds`` included."""
        table = {
            verb: (declared.command or verb, {o.name: o.field_name for o in declared.options})
            for verb, declared in self.verbs.items()
        }
        if FIRE in table:
            table[ODDS] = table[FIRE]
        return table

    def read(self, verb: str, options: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        """The command verb and the fields a verb's options fill, checked as declared.

        Unset options (None or empty, as a shared slash command sends them) are dropped;
        an option the verb does not declare is refused naming the ones it takes; a choice
        is matched case-insensitively, aliases included, and refused with the ruleset's
        own choices in the player's language (never the model's English list); a number
        outside its bounds is refused with the bound. Types and what the command model
        checks beyond that stay the model's.
        """
        declared = self.verb(verb)
        if declared is None:
            raise UnknownName(
                "error.unknown_command", name=verb[:40], known=", ".join(self.accepted_verbs)
            )
        given = {name: value for name, value in options.items() if value not in (None, "")}
        unknown = sorted(name for name in given if declared.option(name) is None)
        if unknown:
            raise InvalidInput(
                "error.unknown_option",
                option=unknown[0][:40],
                known=", ".join(declared.option_names) or "-",
            )
        fields: dict[str, Any] = {}
        for name, value in given.items():
            option = declared.option(name)
            assert option is not None
            fields[option.field_name] = _checked(option, value)
        return declared.command or (FIRE if verb == ODDS else verb), fields

    def example_lines(self, verb: str) -> tuple[str, ...]:
        """The example lines of a verb, as shown in help."""
        declared = self.verb(verb)
        return tuple(e.line for e in declared.examples) if declared is not None else ()


def _checked(option: OptionDeclaration, value: Any) -> Any:
    if option.choices and isinstance(value, str):
        found = option.choice_of(value)
        if found is None:
            raise InvalidInput(
                "error.option.not_a_choice",
                option=option.name,
                known=", ".join(option.values),
            )
        return found
    if (
        option.type in (ValueType.INTEGER, ValueType.NUMBER)
        and isinstance(value, int | float)
        and not isinstance(value, bool)
    ):
        if option.high is not None and value > option.high:
            raise InvalidInput(
                "error.option.too_big", option=option.name, limit=_shown(option.high)
            )
        if option.low is not None and value < option.low:
            raise InvalidInput(
                "error.option.too_small", option=option.name, limit=_shown(option.low)
            )
    return value


def _shown(bound: float) -> str:
    return str(int(bound)) if float(bound).is_integer() else str(bound)


def parse_declaration(text: str, source: str) -> Declaration:
    """A declaration from its YAML text; a ``ValueError`` naming ``source`` if it is wrong."""
    try:
        return Declaration.model_validate(load_yaml(text))
    except ValidationError as error:
        raise ValueError(f"{source}: {describe_validation_error(error)}") from None


def load_declaration(path: Path) -> Declaration:
    """The declaration in the file at ``path`` (a ruleset's ``commands.yaml``)."""
    return parse_declaration(path.read_text(encoding="utf-8"), str(path))


def declaration_path(key: str) -> Path:
    """Where ruleset ``key`` keeps its declaration."""
    return Path(__file__).resolve().parent.parent / key / FILE_NAME


#: Declarations registered at run time (a ruleset packaged outside ``rules/``, a test's toy
#: ruleset): the one hook front ends need beyond the rulesets found in ``rules/``.
_REGISTERED: dict[str, Declaration] = {}


def register_declaration(declaration: Declaration) -> None:
    """Make ``declaration`` the one front ends read for its ruleset."""
    _REGISTERED[declaration.ruleset] = declaration


def unregister_declaration(key: str) -> None:
    """Forget a declaration registered with :func:`register_declaration`."""
    _REGISTERED.pop(key, None)


@lru_cache(maxsize=16)  # one per ruleset found in rules/
def _bundled(key: str) -> Declaration:
    declared = load_declaration(declaration_path(key))
    if declared.ruleset != key:
        raise ValueError(f"{declaration_path(key)}: declares {declared.ruleset!r}, not {key!r}")
    return declared


def declaration(key: str) -> Declaration:
    """The declaration of ruleset ``key``: one registered with :func:`register_declaration`,
    a bundled ruleset's ``rules/<key>/commands.yaml``, or the one a ruleset registered from
    outside ``rules/`` carries (``Ruleset.declaration``)."""
    registered = _REGISTERED.get(key)
    if registered is not None:
        return registered
    if key in KNOWN_RULESETS:
        return _bundled(key)
    if key in known_rulesets():  # registered from outside rules/, with its declaration
        carried = get_ruleset(key).declaration
        if isinstance(carried, Declaration):  # the registry types it without naming the class
            return carried
    raise UnknownName("error.unknown_ruleset", name=key[:40], known=", ".join(known_rulesets()))


def declarations(keys: Iterable[str] | None = None) -> tuple[Declaration, ...]:
    """The declarations of ``keys`` (every ruleset found in ``rules/`` by default)."""
    return tuple(declaration(key) for key in (KNOWN_RULESETS if keys is None else keys))


__all__ = [
    "FILE_NAME",
    "Choice",
    "Declaration",
    "Example",
    "Measure",
    "OptionDeclaration",
    "ValueType",
    "VerbDeclaration",
    "declaration",
    "declaration_path",
    "declarations",
    "load_declaration",
    "parse_declaration",
    "register_declaration",
    "unregister_declaration",
]
