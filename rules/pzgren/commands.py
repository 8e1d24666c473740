"""From a verb and its options (as slash commands and the console give them) to a command.

What a player may type is declared in ``commands.yaml`` beside this module (verbs, options,
choices, examples: :mod:`rules.core.declaration`); this module reads the options through it
and builds the command model, which validates the rest. ``/move kind:hold`` holds.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from rules.core.declaration import FILE_NAME, load_declaration
from rules.core.procedures import option_error
from rules.pzgren import turn as g

_COMMAND: TypeAdapter[Any] = TypeAdapter(g.Command)

#: The ruleset's commands as declared (``commands.yaml``).
DECLARATION = load_declaration(Path(__file__).with_name(FILE_NAME))
#: verb → (command verb, {option name: field name}), computed from the declaration.
VERB_OPTIONS: dict[str, tuple[str, dict[str, str]]] = DECLARATION.verb_options()
VERBS: tuple[str, ...] = DECLARATION.accepted_verbs
#: Fields typed as one text and read as a list (``unit:a,b``).
LIST_FIELDS = ("units", "modifiers")
#: The /move kind that holds instead of moving.
HOLD = "hold"


def _as_list(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(part.strip() for part in value.replace(";", ",").split(",") if part.strip())
    if isinstance(value, list | tuple):
        return tuple(str(part).strip() for part in value if str(part).strip())
    return (str(value),)


def build_command(verb: str, options: Mapping[str, Any]) -> Any:
    """The game command for a verb and its options; a clear error for anything else."""
    command_verb, fields = DECLARATION.read(verb, options)
    data: dict[str, Any] = {"verb": command_verb}
    for name, value in fields.items():
        data[name] = _as_list(value) if name in LIST_FIELDS else value
    if command_verb == "move" and data.pop("kind", None) == HOLD:
        data = {"verb": "hold", "unit": data.get("unit", "")}
    try:
        return _COMMAND.validate_python(data)
    except ValidationError as error:
        options_by_field = {field: option for option, field in VERB_OPTIONS[verb][1].items()}
        raise option_error(error, options_by_field) from None
