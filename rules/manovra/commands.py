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
from rules.manovra import turn as g
from rules.manovra.procedures.ground import Leg

_COMMAND: TypeAdapter[Any] = TypeAdapter(g.Command)

# verb → (command verb, {option name: field name})
_VERBS: dict[str, tuple[str, dict[str, str]]] = {
    "turn.next": ("next", {}),
    "manoeuvre.declare": ("declare", {"platoon": "platoon"}),
    "manoeuvre.pass": ("pass", {}),
    "callarty": (
        "callarty",
        {
            "unit": "unit",
            "battery": "battery",
            "target": "target",
            "distance": "distance_cm",
            "link": "link",
            "sight": "line_of_sight",
            "entrenched": "both_entrenched",
        },
    ),
    "move": (
        "move",
        {
            "unit": "unit",
            "terrain": "terrain",
            "distance": "distance_cm",
            "kind": "kind",
            "via": "via",
            "conceal": "conceal",
            "to": "to",
        },
    ),
    "fire": (
        "fire",
        {
            "unit": "unit",
            "target": "target",
            "distance": "distance_cm",
            "weapon": "weapon",
            "ammo": "ammo",
            "facing": "facing",
            "impact": "impact",
            "move_terrain": "move_terrain",
            "move_distance": "move_cm",
            "move_to": "move_to",
            "models": "models_touched",
            "location": "chosen_location",
        },
    ),
    "test": ("test", {"unit": "unit", "kind": "kind", "opponent": "opponent"}),
    "morale": ("test", {"unit": "unit"}),
    "recover": ("recover", {"unit": "unit"}),
    "assault": (
        "assault",
        {
            "unit": "unit",
            "target": "target",
            "weapon": "weapon",
            "distance": "distance_cm",
            "terrain": "terrain",
        },
    ),
    "execute": ("execute", {"marker": "marker"}),
    "fragments": ("fragments", {"target": "target", "marker": "marker"}),
}
VERBS = (*_VERBS, "odds")


def parse_via(text: str) -> tuple[Leg, ...]:
    """``"piano_scoperto:4, piano_boscoso:2"`` → legs before the last one."""
    legs = []
    for part in text.split(","):
        if not part.strip():
            continue
        terrain, _, cm = part.partition(":")
        try:
            legs.append(Leg(terrain=terrain.strip(), cm=float(cm)))
        except (ValueError, ValidationError):
            raise InvalidInput("error.manovra.bad_via", part=part.strip()[:40]) from None
    return tuple(legs)


def build_command(verb: str, options: Mapping[str, Any]) -> Any:
    """The game command for a verb and its options; a clear error for anything else."""
    if verb == "odds":
        verb = "fire"
    if verb not in _VERBS:
        raise UnknownName("error.unknown_command", name=verb[:40], known=", ".join(VERBS))
    command_verb, names = _VERBS[verb]
    unknown = sorted(set(options) - set(names))
    if unknown:
        raise InvalidInput(
            "error.unknown_option", option=unknown[0][:40], known=", ".join(names) or "-"
        )
    data: dict[str, Any] = {"verb": command_verb}
    for option, value in options.items():
        if value is None or value == "":
            continue
        field = names[option]
        if field == "via" and isinstance(value, str):
            value = parse_via(value)
        data[field] = value
    if verb == "morale":
        data["kind"] = "CT"
    if verb == "move" and str(data.get("kind", "")).lower() in ("hold", "appostarsi"):
        data = {"verb": "hold", "unit": data.get("unit", "")}
    try:
        return _COMMAND.validate_python(data)
    except ValidationError as error:
        raise option_error(error, {field: option for option, field in names.items()}) from None
VERB_OPTIONS = _VERBS  # public: verb → (command verb, {option: field})
