"""From a verb and its options (as slash commands and the console give them) to a command.

The option names are the slash-command option names: ``/fire unit:… target:… distance:…``.
Values may be strings (console) or typed (Discord); validation is the command models'.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import TypeAdapter, ValidationError

from rules.core.errors import InvalidInput, UnknownName
from rules.core.procedures import option_error
from rules.w40k4 import turn as g

_COMMAND: TypeAdapter[Any] = TypeAdapter(g.Command)

_FIRE = {
    "unit": "unit",
    "target": "target",
    "distance": "distance",
    "weapon": "weapon",
    "facing": "facing",
    "cover": "cover",
    "models": "models",
}

# verb → (command verb, {option name: field name})
VERB_OPTIONS: dict[str, tuple[str, dict[str, str]]] = {
    "turn.next": ("next", {}),
    "move": (
        "move",
        {
            "unit": "unit",
            "distance": "distance",
            "terrain": "terrain",
            "inside": "inside",
            "cover": "cover",
            "kind": "kind",
            "target": "target",
            "to": "to",
        },
    ),
    "fire": ("fire", _FIRE),
    "odds": ("fire", _FIRE),
    "template": (
        "template",
        {
            "unit": "unit",
            "target": "target",
            "models": "models",
            "partial": "partial",
            "facing": "facing",
        },
    ),
    "assault": (
        "assault",
        {"unit": "unit", "target": "target", "distance": "distance", "terrain": "terrain"},
    ),
    "combat": ("combat", {"unit": "unit"}),
    "morale": ("morale", {"unit": "unit"}),
    "test": ("test", {"unit": "unit", "modifier": "modifier"}),
}
VERBS = tuple(VERB_OPTIONS)


def build_command(verb: str, options: Mapping[str, Any]) -> Any:
    """The game command for a verb and its options; a clear error for anything else."""
    if verb not in VERB_OPTIONS:
        raise UnknownName("error.unknown_command", name=verb[:40], known=", ".join(VERBS))
    command_verb, names = VERB_OPTIONS[verb]
    unknown = sorted(set(options) - set(names))
    if unknown:
        raise InvalidInput(
            "error.unknown_option", option=unknown[0][:40], known=", ".join(names) or "-"
        )
    data: dict[str, Any] = {"verb": command_verb}
    for option, value in options.items():
        if value is None or value == "":
            continue
        data[names[option]] = value
    try:
        return _COMMAND.validate_python(data)
    except ValidationError as error:
        raise option_error(error, {field: option for option, field in names.items()}) from None
