"""From a verb and its options (as slash commands and the console give them) to a command.

What a player may type is declared in ``commands.yaml`` beside this module (verbs, options,
choices, examples: :mod:`rules.core.declaration`); this module reads the options through it
and builds the command model, which validates the rest.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from rules.core.declaration import FILE_NAME, load_declaration
from rules.core.procedures import option_error
from rules.w40k4 import turn as g

_COMMAND: TypeAdapter[Any] = TypeAdapter(g.Command)

#: The ruleset's commands as declared (``commands.yaml``).
DECLARATION = load_declaration(Path(__file__).with_name(FILE_NAME))
#: verb → (command verb, {option name: field name}), computed from the declaration.
VERB_OPTIONS: dict[str, tuple[str, dict[str, str]]] = DECLARATION.verb_options()
VERBS: tuple[str, ...] = DECLARATION.accepted_verbs


def build_command(verb: str, options: Mapping[str, Any]) -> Any:
    """The game command for a verb and its options; a clear error for anything else."""
    command_verb, fields = DECLARATION.read(verb, options)
    try:
        return _COMMAND.validate_python({"verb": command_verb, **fields})
    except ValidationError as error:
        raise option_error(error, _options_by_field(verb)) from None


def _options_by_field(verb: str) -> dict[str, str]:
    return {field: option for option, field in VERB_OPTIONS[verb][1].items()}
