"""The bundled scenarios that start with units hidden from the enemy, and the same
scenarios with those units removed or moved: worlds a seat that may not see them must not
tell apart (the noninterference of the seat views, tests/core/test_seat_redaction.py and
tests/bot/service/test_redaction.py).

A world is a scenario's YAML text, played as an uploaded scenario (so the three texts of a
scenario differ only in its hidden units). Moving swaps the hidden units' places: each keeps
the terrain, cover and position the other had, so the scenario stays valid.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from rules.core.ruleset import KNOWN_RULESETS
from rules.linea_gotica.surface import PLAY as LINEA_GOTICA

RULES = Path(__file__).resolve().parents[2] / "rules"
#: What a hidden unit's place is made of: it moves with the place.
PLACE_KEYS = ("place", "cover")


def hidden_scenarios() -> list[tuple[str, Path]]:
    """(ruleset, path) of every bundled scenario with a unit hidden from the start."""
    found = []
    for ruleset in KNOWN_RULESETS:
        for path in sorted((RULES / ruleset / "scenarios").glob("*.yaml")):
            if hidden_units(yaml.safe_load(path.read_text(encoding="utf-8"))):
                found.append((ruleset, path))
    return found


def _dicts(node: Any) -> Iterator[tuple[list[Any], dict[str, Any]]]:
    """Every mapping inside a list, with its list, anywhere in the scenario."""
    if isinstance(node, dict):
        for value in node.values():
            yield from _dicts(value)
    elif isinstance(node, list):
        for item in node:
            if isinstance(item, dict):
                yield node, item
            yield from _dicts(item)


def hidden_units(scenario: Any) -> list[dict[str, Any]]:
    """The units a scenario marks hidden (``hidden: true``)."""
    return [unit for _, unit in _dicts(scenario) if unit.get("hidden") is True and "id" in unit]


def _deployment(scenario: dict[str, Any]) -> dict[str, Any]:
    field = scenario.get("battlefield") or {}
    deployment: dict[str, Any] = field.get("deployment") or {}
    return deployment


def without_hidden(text: str) -> str:
    """The scenario with its hidden units removed."""
    scenario = yaml.safe_load(text)
    hidden = {unit["id"] for unit in hidden_units(scenario)}
    for owner, unit in list(_dicts(scenario)):
        if unit.get("id") in hidden and unit.get("hidden") is True:
            owner.remove(unit)
    for unit_id in hidden:
        _deployment(scenario).pop(unit_id, None)
    return yaml.safe_dump(scenario, allow_unicode=True, sort_keys=False)


def hidden_moved(text: str) -> str:
    """The scenario with its hidden units' places swapped (the first with the last)."""
    scenario = yaml.safe_load(text)
    units = hidden_units(scenario)
    first, last = units[0], units[-1]
    for key in PLACE_KEYS:
        first[key], last[key] = last.get(key), first.get(key)
    deployment = _deployment(scenario)
    if first["id"] in deployment and last["id"] in deployment:
        deployment[first["id"]], deployment[last["id"]] = (
            deployment[last["id"]],
            deployment[first["id"]],
        )
    return yaml.safe_dump(scenario, allow_unicode=True, sort_keys=False)


def worlds(path: Path) -> dict[str, str]:
    """The scenario as written, with its hidden units removed, and moved."""
    text = yaml.safe_dump(
        yaml.safe_load(path.read_text(encoding="utf-8")), allow_unicode=True, sort_keys=False
    )
    return {"as_written": text, "removed": without_hidden(text), "moved": hidden_moved(text)}


def owners(path: Path) -> set[str]:
    """The sides whose units start hidden in the scenario at ``path``."""
    scenario = yaml.safe_load(path.read_text(encoding="utf-8"))
    hidden = {unit["id"] for unit in hidden_units(scenario)}
    sides = set()
    for side in scenario.get("sides") or []:
        if any(unit.get("id") in hidden for unit in side.get("units") or []):
            sides.add(side["id"])
    for unit in scenario.get("units") or []:
        if unit.get("id") in hidden and unit.get("side"):
            sides.add(unit["side"])
    return sides


def _linea_gotica_without_hidden(document: dict[str, Any], side: str) -> dict[str, Any]:
    """A linea_gotica game with ``side``'s units now hidden taken off: everything that is
    theirs alone goes with them (their owed tests, their soldiers in the class roster, their
    covering fire); what the enemy learned of them stays. An observer of a mission under way
    stays: the mission (an aircraft on the table) is no secret, and it needs its observer."""
    play = LINEA_GOTICA
    state = play._load_state(document)
    observing = {m.observer for m in state.missions if m.stage != "done"}
    gone = {
        unit.id
        for unit in state.units.values()
        if unit.hidden and unit.side == side and unit.id not in observing
    }
    for unit_id in gone:
        del state.units[unit_id]
        state.positions.pop(unit_id, None)
    state.pending = [p for p in state.pending if p.unit not in gone]
    state.roster = [key for key in state.roster if key.split("#")[0] not in gone]
    state.covering = [c for c in state.covering if c.unit not in gone]
    for covering in state.covering:
        covering.resolved = [u for u in covering.resolved if u not in gone]
    for blast in state.blasts:
        blast.resolved = [u for u in blast.resolved if u not in gone]
    return play._document(state)


#: Per ruleset, how to take the units now hidden off a game document.
WITHOUT_HIDDEN_NOW = {"linea_gotica": _linea_gotica_without_hidden}


def without_hidden_now(ruleset: str, document: dict[str, Any], side: str) -> dict[str, Any]:
    """The game ``document`` with ``side``'s units now hidden removed: a world the other
    seats must not tell from the game as it is."""
    return WITHOUT_HIDDEN_NOW[ruleset](document, side)
