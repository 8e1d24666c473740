"""The command path through the seam: at most one validation of the game's document per
command (none when the channel's last command left it validated, `bot.service.kept_games`),
no deep copy of its state, and no parse of the text it read."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest

import db.chain.prepare as prepare_module
from tests.bot.service_table import ServiceTable

CHANNEL = 4545
REFEREE, ANNA, BRUNO = 1, 2, 3


@pytest.fixture()
def table(service, dice) -> ServiceTable:
    return ServiceTable(service, dice, CHANNEL)


async def test_a_command_validates_its_document_once_and_copies_no_state(table, counted) -> None:
    await table(REFEREE, "game.new", scenario="esempio_normandia", language="en")
    await table(ANNA, "game.join", side="alleati")
    await table(BRUNO, "game.join", side="asse")
    # Each: whose move, the command, what follows. The first reads the document the joins
    # left; the next ones take the state the command before them left, validated.
    for verb, validated in (("turn.next", 1), ("turn.next", 0)):
        counted.update(validated=0, deep_copied=0)
        await table(ANNA, verb)
        assert counted == {"validated": validated, "deep_copied": 0}, verb
    counted.update(validated=0, deep_copied=0)
    await table(ANNA, "manoeuvre.declare", platoon="plotone_carri")  # a picture too
    assert counted == {"validated": 0, "deep_copied": 0}


async def test_a_status_then_an_end_on_the_score_read_the_document_once(table, counted) -> None:
    await table(REFEREE, "game.new", scenario="esempio_normandia", language="en")
    await table(ANNA, "game.join", side="alleati")
    await table(BRUNO, "game.join", side="asse")
    counted.update(validated=0, deep_copied=0)
    await table(ANNA, "game.status")  # the public view, its picture, what is owed
    assert counted == {"validated": 1, "deep_copied": 0}
    counted.update(validated=0, deep_copied=0)
    # The score now, then the decision played on it: on the state the status validated.
    reply = await table(REFEREE, "game.end")
    assert reply.result is not None
    assert counted == {"validated": 0, "deep_copied": 0}
    counted.update(validated=0, deep_copied=0)
    await table(ANNA, "game.status")  # an ended game is not kept: read again
    assert counted == {"validated": 1, "deep_copied": 0}


async def test_a_command_is_diffed_against_its_document_without_a_parse_of_its_text(
    table, store, monkeypatch
) -> None:
    """The commit's patch is made against the document the command read (the kept game's,
    or the store's parse), proven by the text it writes: the text is not parsed again."""
    await table(REFEREE, "game.new", scenario="esempio_normandia", language="en")
    await table(ANNA, "game.join", side="alleati")
    await table(BRUNO, "game.join", side="asse")
    parsed: list[str] = []

    def counted(text: str) -> Any:
        parsed.append(text)
        return json.loads(text)

    monkeypatch.setattr(prepare_module, "parse_kept", counted)
    for verb in ("turn.next", "turn.next"):  # on the store's parse, then on the kept game
        await table(ANNA, verb)
    assert parsed == []
    assert await store.check() == []  # each patch rebuilds its stored state


def test_no_module_of_the_application_reaches_past_the_three_calls() -> None:
    root = Path(__file__).resolve().parents[3] / "bot"
    wide = sorted(
        str(path.relative_to(root.parent))
        for path in root.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom)
        and node.module == "rules.core.play"
        and any(alias.name == "DocumentRules" for alias in node.names)
    )
    assert wide == []
