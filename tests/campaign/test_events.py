"""The campaign's events: one module holds every class, each named as the ``type`` its events
are stored under, and logs written with today's stored types still load and replay."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any, get_args

import pytest

import rules.campaign.events as events_module
from rules.campaign.events import CAMPAIGN_VERBS, CampaignEvent, event_json, event_of
from rules.campaign.state import replay, standings

LOGS = Path(__file__).parent / "logs"
PACKAGE = Path(events_module.__file__).parent
#: Logs as stored: a fuzzed campaign to its end; an older one opening its book by a
#: ``campaign.book`` event after the created one, a join asked then approved.
LOG_FILES = ("linea_gotica_fuzz_1.json", "linea_gotica_book_older.json")
#: The one stored event no log above holds, as stored.
AFTERMATH_REVERSAL = {"number": 2, "type": "campaign.aftermath_reversal"}


def _classes() -> tuple[Any, ...]:
    union, _ = get_args(CampaignEvent)
    return get_args(union)


def _log(name: str) -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads((LOGS / name).read_text("utf-8"))
    return data


def _stored_types() -> set[str]:
    """Every ``type`` the stored logs hold: those the classes must read, never to change."""
    return {e["type"] for name in LOG_FILES for e in _log(name)} | {AFTERMATH_REVERSAL["type"]}


def test_every_event_class_is_named_as_its_stored_type() -> None:
    """A class reads as the ``type`` its events are stored under (``campaign.join_request``
    is ``CampaignJoinRequest``), and the stored types are those of the logs."""
    stored = set()
    for event in _classes():
        kind = event.model_fields["type"].default
        stored.add(kind)
        expected = "".join(part.capitalize() for part in re.split(r"[._]", kind))
        assert event.__name__ == expected, (event.__name__, kind)
        assert event.__module__ == "rules.campaign.events", event.__name__
    assert stored == _stored_types() == set(CAMPAIGN_VERBS)


def test_no_other_module_of_the_package_declares_an_event() -> None:
    """An event class is a model with a ``type`` field: only ``events.py`` declares one."""
    declaring = []
    for path in sorted(PACKAGE.glob("*.py")):
        tree = ast.parse(path.read_text("utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and any(
                isinstance(item, ast.AnnAssign)
                and isinstance(item.target, ast.Name)
                and item.target.id == "type"
                for item in node.body
            ):
                declaring.append((path.name, node.name))
    assert {module for module, _ in declaring} == {"events.py"}
    assert len(declaring) == len(_stored_types()) == 16


@pytest.mark.parametrize("name", LOG_FILES)
def test_a_log_with_todays_stored_types_loads_and_replays(name: str) -> None:
    """A campaign's log as stored: each event loads as the class of its type and writes
    back as it was stored; the log replays to a state."""
    log = _log(name)
    loaded = [event_of(data) for data in log]
    for data, event in zip(log, loaded, strict=True):
        assert event.type == data["type"]
        assert type(event).__name__ == "".join(
            part.capitalize() for part in re.split(r"[._]", data["type"])
        )
        assert event_json(event) == data
    state = replay(loaded)
    assert state.name


def test_the_fuzzed_log_replays_to_its_end() -> None:
    """The fuzzed campaign ended with three games, each with its result."""
    state = replay(event_of(data) for data in _log("linea_gotica_fuzz_1.json"))
    assert state.ended
    assert [entry.number for entry in state.games] == [1, 2, 3]
    assert all(entry.result is not None for entry in state.games)
    assert sum(line.played for line in standings(state)) == 2 * 3


def test_an_aftermath_reversal_as_stored_loads() -> None:
    """The one stored type no fixture log above holds."""
    event = event_of(AFTERMATH_REVERSAL)
    assert type(event).__name__ == "CampaignAftermathReversal"
    assert event_json(event) == AFTERMATH_REVERSAL
