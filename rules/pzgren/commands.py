"""From a verb and its options (as slash commands and the console give them) to a command.

The option names are the slash-command option names: ``/fire unit:… hex:… target:…``.
Values may be strings (console) or typed (Discord); validation is the command models'.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import TypeAdapter, ValidationError

from rules.core.errors import InvalidInput, UnknownName
from rules.core.procedures import option_error
from rules.pzgren import turn as g

_COMMAND: TypeAdapter[Any] = TypeAdapter(g.Command)

_FIRE = {
    "unit": "units",
    "target": "target",
    "hex": "hex",
    "mode": "mode",
    "opportunity": "opportunity",
    "modifiers": "modifiers",
}
# verb → (command verb, {option name: field name})
_VERBS: dict[str, tuple[str, dict[str, str]]] = {
    "turn.next": ("next", {}),
    "move": ("move", {"unit": "unit", "hex": "hex", "kind": "kind"}),
    "fire": ("fire", _FIRE),
    "odds": ("fire", _FIRE),
    "morale": ("morale", {"unit": "unit"}),
    "recover": ("recover", {"unit": "unit"}),
    "step": ("step", {"unit": "unit"}),
}
VERBS = tuple(_VERBS)
LIST_FIELDS = ("units", "modifiers")
HOLD_WORDS = ("hold", "tenir", "fermo", "stay")


def _as_list(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(part.strip() for part in value.replace(";", ",").split(",") if part.strip())
    if isinstance(value, list | tuple):
        return tuple(str(part).strip() for part in value if str(part).strip())
    return (str(value),)


def build_command(verb: str, options: Mapping[str, Any]) -> Any:
    """The game command for a verb and its options; a clear error for anything else."""
    if verb not in _VERBS:
        raise UnknownName("error.unknown_command", name=verb[:40], known=", ".join(VERBS))
    command_verb, names = _VERBS[verb]
    # Options left empty (a slash command's unset options) are not options at all.
    options = {k: v for k, v in options.items() if v is not None and v != ""}
    unknown = sorted(set(options) - set(names))
    if unknown:
        raise InvalidInput(
            "error.unknown_option", option=unknown[0][:40], known=", ".join(names) or "-"
        )
    data: dict[str, Any] = {"verb": command_verb}
    for option, value in options.items():
        name = names[option]
        data[name] = _as_list(value) if name in LIST_FIELDS else value
    if verb == "move":
        kind = str(data.pop("kind", "move")).strip().lower()
        if kind in HOLD_WORDS:
            data = {"verb": "hold", "unit": data.get("unit", "")}
        elif kind not in ("move", "muovi", "déplacer", "deplacer"):
            raise InvalidInput("error.pzgren.bad_move_kind", kind=kind[:20])
    try:
        return _COMMAND.validate_python(data)
    except ValidationError as error:
        raise option_error(error, {field: option for option, field in names.items()}) from None
VERB_OPTIONS = _VERBS  # public: verb → (command verb, {option: field})
