"""Document formats: every ruleset's documents say their format; older ones migrate in
memory, step by step, without touching the caller's copy; newer ones are refused."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from rules.core.dice import ScriptedDice
from rules.core.errors import InvalidInput
from rules.core.migrations import (
    FORMAT_KEY,
    DocumentFormat,
    DocumentFormatError,
    DocumentTooNew,
    document_format,
)
from rules.core.ruleset import KNOWN_RULESETS, get_ruleset
from rules.core.seatview import REFEREE, Seat


def _three_formats() -> DocumentFormat:
    """A ruleset at format 3: 1 → 2 renames a field, 2 → 3 adds one from it."""
    formats = DocumentFormat("example", version=3)

    @formats.migration(1)
    def rename_men(document: dict[str, Any]) -> dict[str, Any]:
        document["figures"] = document.pop("men")
        return document

    @formats.migration(2)
    def count_figures(document: dict[str, Any]) -> dict[str, Any]:
        document["count"] = len(document["figures"])
        return document

    return formats


def test_a_document_without_format_is_format_1_and_migrates_step_by_step():
    formats = _three_formats()
    old = {"men": ["a", "b"], "nested": {"x": 1}}
    kept = copy.deepcopy(old)
    assert formats.version_of(old) == 1
    upgraded = formats.upgrade(old)
    assert upgraded == {"figures": ["a", "b"], "count": 2, "nested": {"x": 1}, FORMAT_KEY: 3}
    assert old == kept  # the caller's document is never changed
    upgraded["nested"]["x"] = 2
    assert old["nested"]["x"] == 1  # nor shared
    from_two = formats.upgrade({"figures": ["a"], FORMAT_KEY: 2})
    assert from_two == {"figures": ["a"], "count": 1, FORMAT_KEY: 3}
    current = {"figures": [], "count": 0, FORMAT_KEY: 3}
    assert formats.upgrade(current) == current and formats.upgrade(current) is not current


def test_a_newer_or_unreadable_format_is_refused_clearly():
    formats = _three_formats()
    with pytest.raises(DocumentTooNew) as caught:
        formats.upgrade({FORMAT_KEY: 4})
    assert caught.value.key == "error.document.too_new"
    assert dict(caught.value.params) == {"ruleset": "example", "format": 4, "supported": 3}
    assert "4" in caught.value.localized("en") and "3" in caught.value.localized("en")
    for bad in ("2", 0, -1, True, 2.0, None):
        with pytest.raises(DocumentFormatError) as refused:
            formats.upgrade({FORMAT_KEY: bad})
        assert isinstance(refused.value, InvalidInput)
        assert refused.value.key == "error.document.bad_format"


def test_migrations_must_lead_to_the_declared_version():
    formats = DocumentFormat("example", version=2)
    assert formats.missing_steps() == [1]
    with pytest.raises(ValueError, match="bump the version"):
        formats.migration(2)(lambda document: document)
    formats.migration(1)(lambda document: document)
    with pytest.raises(ValueError, match="two migrations"):
        formats.migration(1)(lambda document: document)
    assert formats.missing_steps() == []
    with pytest.raises(ValueError):
        DocumentFormat("example", version=0)


@pytest.mark.parametrize("key", KNOWN_RULESETS)
def test_every_ruleset_declares_a_complete_format(key):
    formats = document_format(key)
    assert formats.ruleset == key and formats.version >= 2
    assert formats.missing_steps() == []


@pytest.mark.parametrize("key", KNOWN_RULESETS)
def test_documents_are_written_in_the_current_format_and_read_back(key):
    play = get_ruleset(key).rules
    current = document_format(key).version
    document = play.setup(None)
    assert document[FORMAT_KEY] == current
    status = play.view(document, REFEREE).status
    assert status.sides
    # The same game as 0.1.0 stored it (no format field) reads the same.
    old = {k: v for k, v in document.items() if k != FORMAT_KEY}
    assert play.document_format.upgrade(old) == document
    assert play.view(old, REFEREE).status == status
    assert play.canonical(old) == document
    with pytest.raises(DocumentTooNew):
        _ = play.view({**document, FORMAT_KEY: current + 1}, REFEREE).status
    with pytest.raises(DocumentTooNew):
        play.act({**document, FORMAT_KEY: current + 1}, REFEREE, "turn.next", {}, ScriptedDice([]))


def test_a_played_command_stores_the_current_format():
    play = get_ruleset("manovra").rules
    document = play.setup(None)
    old = {k: v for k, v in document.items() if k != FORMAT_KEY}
    played = play.act(old, Seat.of("alleati"), "turn.next", {}, ScriptedDice([]))
    assert played.document[FORMAT_KEY] == document_format("manovra").version
