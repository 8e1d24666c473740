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
from rules.linea_gotica.orders import Command

_COMMAND: TypeAdapter[Any] = TypeAdapter(Command)

FIRE_OPTIONS = {
    "unit": "unit",
    "target": "target",
    "distance": "distance_cm",
    "weapon": "weapon",
    "mode": "mode",
    "kind": "kind",
    "models": "models",
    "models_long": "models_long",
    "man": "man",
    "shooters": "shooters",
    "facing": "facing",
    "modifier": "modifier",
}

# verb → (command verb, {option name: field name})
_VERBS: dict[str, tuple[str, dict[str, str]]] = {
    "turn.next": ("next", {"order": "order"}),
    "move": (
        "move",
        {
            "unit": "unit",
            "kind": "kind",
            "distance": "distance_cm",
            "mods": "mods",
            "cover": "cover",
            "place": "place",
            "hidden": "hidden",
            "behind": "behind",
            "vehicle": "vehicle",
            "minefield": "minefield",
            "models": "models",
            "to": "to",
        },
    ),
    "fire": ("fire", FIRE_OPTIONS),
    "odds": ("fire", FIRE_OPTIONS),
    "test": (
        "test",
        {
            "unit": "unit",
            "kind": "kind",
            "difficulty": "difficulty",
            "target": "target",
            "man": "man",
            "distance": "distance_cm",
            "minefield": "minefield",
            "weapon": "weapon",
            "task": "task",
            "turns": "turns",
            "source": "source",
            "place": "place",
        },
    ),
    "morale": (
        "morale",
        {
            "unit": "unit",
            "reason": "reason",
            "enemy_near": "enemy_near",
            "air": "air",
            "isolated": "isolated",
        },
    ),
    "callarty": ("callarty", {"unit": "unit", "battery": "battery", "target": "target"}),
    "execute": (
        "execute",
        {
            "marker": "marker",
            "order": "order",
            "visible": "visible",
            "ammo": "ammo",
            "where": "where",
        },
    ),
    "fragments": (
        "fragments",
        {"target": "target", "marker": "marker", "ring": "ring", "models": "models"},
    ),
}
VERBS: tuple[str, ...] = tuple(_VERBS)
# The shared /fire command's English choices.
_FACING = {"front": "fronte", "side": "fianco", "rear": "retro"}


def options_of(verb: str) -> tuple[str, ...]:
    """The option names a verb accepts (for the docs and the slash commands)."""
    return tuple(_VERBS[verb][1])


def build_command(verb: str, options: Mapping[str, Any]) -> Any:
    """The game command for a verb and its options; a clear error for anything else."""
    if verb not in _VERBS:
        raise UnknownName("error.unknown_command", name=verb[:40], known=", ".join(VERBS))
    command_verb, names = _VERBS[verb]
    # Front ends may send every option of a shared slash command, unset ones as None.
    unknown = sorted(k for k, v in options.items() if k not in names and v not in (None, ""))
    if unknown:
        raise InvalidInput(
            "error.unknown_option", option=unknown[0][:40], known=", ".join(names) or "-"
        )
    data: dict[str, Any] = {"verb": command_verb}
    for option, value in options.items():
        if value is None or value == "":
            continue
        if option not in names:
            continue
        field = names[option]
        if field == "facing" and isinstance(value, str):
            value = _FACING.get(value, value)
        if field == "mods" and isinstance(value, str):
            value = tuple(part.strip() for part in value.split(",") if part.strip())
        data[field] = value
    try:
        return _COMMAND.validate_python(data)
    except ValidationError as error:
        raise option_error(error, {field: option for option, field in names.items()}) from None
VERB_OPTIONS = _VERBS  # public: verb → (command verb, {option: field})
