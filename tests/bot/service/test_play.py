"""The command path through the seam: at most one validation of the game's document per
command (none when the channel's last command left it validated, `bot.service.kept_games`),
no deep copy of its state, no parse of the text it read, and no status for a caption
without a picture, nor for the names hidden from a side where none can be or none was
typed."""

from __future__ import annotations

import ast
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import bot.service.handlers as handlers_module
import db.chain.prepare as prepare_module
from rules.core.play import StateSource
from rules.core.seatview import REFEREE as REFEREE_SEAT
from rules.core.seatview import Seat
from tests.bot.service_table import ServiceTable
from tests.rulesets import fact

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


@pytest.fixture()
def statuses(monkeypatch) -> list[Seat]:
    """The seats whose status a seat view reads, in order."""
    read: list[Seat] = []
    status = StateSource.status

    def counted(source: StateSource, seat: Seat) -> Any:
        read.append(seat)
        return status(source, seat)

    monkeypatch.setattr(StateSource, "status", counted)
    return read


async def test_a_command_without_a_picture_reads_no_status_for_a_caption(
    service, dice, statuses
) -> None:
    """The status under a picture is read only when there is a picture: the referee's
    decision, which shows the table, reads none on a table without a battlefield; with a
    battlefield its caption opens with the status line."""
    for channel, scenario in enumerate(("esempio_normandia", fact("manovra", "BATTLEFIELD"))):
        table = ServiceTable(service, dice, CHANNEL + 1 + channel)
        await table(REFEREE, "game.new", scenario=scenario, language="en")
        statuses.clear()
        # The referee's: no status is read for names hidden from the command's giver.
        reply = await table(REFEREE, "game.decide", result="alleati", reason="ok")
        assert reply.result is not None
        if reply.map_view is None:
            assert statuses == [], scenario
        else:
            assert statuses == [REFEREE_SEAT], scenario
            assert reply.map_view.caption.startswith("Turn 1 — ")
    assert reply.map_view is not None  # the battlefield's table was drawn


async def test_a_sides_command_reads_the_hidden_units_only_where_a_name_may_be_hidden(
    table, statuses, monkeypatch
) -> None:
    """The units hidden from a side are read (from the referee's status, before the
    command) for a command that types a name in a ruleset that hides units: not for one
    that types none, nor in a ruleset that hides nothing."""
    await table(REFEREE, "game.new", scenario="esempio_normandia", language="en")
    await table(ANNA, "game.join", side="alleati")
    await table(BRUNO, "game.join", side="asse")
    statuses.clear()
    for _ in range(2):
        await table(ANNA, "turn.next")  # no name typed
    assert statuses == []
    await table(ANNA, "manoeuvre.declare", platoon="plotone_carri")
    assert statuses == [REFEREE_SEAT]  # manovra conceals units: the name is checked
    statuses.clear()
    lookup = handlers_module.get_ruleset
    monkeypatch.setattr(  # were manovra to hide nothing, a name would need no check
        handlers_module, "get_ruleset", lambda key: replace(lookup(key), hides_units=False)
    )
    await table(BRUNO, "manoeuvre.declare", [6, 1, 1], platoon="panzer")
    assert statuses == []


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
