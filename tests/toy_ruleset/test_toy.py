"""The toy ruleset plugs in through the three calls and its data alone.

It lives in ``tests/``, registers itself with :func:`rules.core.ruleset.register`, and is
then played to its end by random legal actions at the rules level, and through the whole
service (a SQLite store, the replay check) with no line of ``bot/`` or ``db/`` naming it.
"""

from __future__ import annotations

import io
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.console.table import Console
from bot.service import GameService, StatusReply
from db.drivers.sqlite import SqliteStore
from rules.core.dice import ScriptedDice
from rules.core.errors import IllegalAction, UnknownName
from rules.core.ruleset import (
    KNOWN_RULESETS,
    Ruleset,
    get_ruleset,
    known_rulesets,
    register,
    unregister,
)
from rules.core.seatview import REFEREE, SPECTATOR, Seat
from rules.core.surface import SurfacePlay
from tests.core.legal_loop import play_random_game
from tests.fuzz.harness import CHANNEL, Table, fuzz
from tests.toy_ruleset import RULESET, TOY

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def toy() -> Iterator[Ruleset]:
    """The toy registered for one test, forgotten after."""
    register(RULESET)
    try:
        yield get_ruleset("toy")
    finally:
        unregister("toy")


def test_it_registers_with_its_surface_and_data_alone(toy: Ruleset) -> None:
    assert toy is RULESET and toy.rules is TOY
    assert isinstance(toy.play, SurfacePlay)  # the older interface, made from the surface
    assert known_rulesets() == (*KNOWN_RULESETS, "toy")
    assert register(RULESET) is RULESET  # again: nothing changes
    with pytest.raises(ValueError, match="already registered"):
        register(Ruleset("toy", "other", "", "D6", RULESET.load_tables, {}, rules=TOY))
    with pytest.raises(ValueError, match="already registered"):
        register(Ruleset("manovra", "fake", "", "D6", RULESET.load_tables, {}, rules=TOY))
    with pytest.raises(ValueError, match="bundled"):
        unregister("manovra")


def test_it_is_unknown_once_forgotten(toy: Ruleset) -> None:
    unregister("toy")
    with pytest.raises(UnknownName):
        get_ruleset("toy")
    assert "toy" not in known_rulesets()
    register(RULESET)  # the fixture forgets it again


@pytest.mark.parametrize("seed", range(6))
def test_it_plays_to_its_end_through_setup_view_and_act(toy: Ruleset, seed: int) -> None:
    log = play_random_game(TOY, "duel", seed, check_views_every=1)
    assert log.ended and log.turns == 3
    assert log.verbs.get("turn.next", 0) >= 5  # two sides, three turns


def _fire_until_hit(document: dict[str, Any]) -> dict[str, Any]:
    """Red's gun fires at blue's squad with a 6: a hit, and a rally roll owed by blue."""
    return TOY.act(
        document,
        Seat("red"),
        "fire",
        {"unit": "red_gun", "target": "blue_squad"},
        ScriptedDice([6]),
    ).document


def test_whose_move_and_the_buttons_come_from_what_is_owed(toy: Ruleset) -> None:
    document = TOY.setup("duel")
    assert TOY.view(document, REFEREE).awaiting == "red"  # the turn sequence: red moves
    assert TOY.view(document, REFEREE).follow_ups == []
    document = _fire_until_hit(document)
    view = TOY.view(document, Seat("red"))
    # Blue owes a rally: it is blue's move, and the roll is a button for blue.
    assert view.awaiting == "blue" and view.status.awaiting == "blue"
    [button] = view.follow_ups
    assert button.verb == "rally" and button.side == "blue"
    assert dict(button.options) == {"unit": "blue_squad"}
    assert button.label.key == "toy.follow.rally"
    assert [a.verb for a in view.owed] == ["rally"]
    assert view.legal == []  # red may do nothing while blue owes
    # The older interface answers the same, through the adapter.
    assert toy.play.awaiting(document) == "blue"
    assert toy.play.follow_ups(document) == [button]


def test_a_hidden_unit_is_in_no_view_of_the_other_side(toy: Ruleset) -> None:
    document = TOY.setup("duel")
    red, blue = TOY.view(document, Seat("red")), TOY.view(document, Seat("blue"))
    spectator, referee = TOY.view(document, SPECTATOR), TOY.view(document, REFEREE)
    assert "blue_scout" not in {u.id for u in red.status.units}
    assert "blue_scout" not in {u.id for u in spectator.status.units}
    assert "blue_scout" not in red.names("target") + red.names("unit")
    assert "blue_scout" not in toy.play.choices(document, "target", "red")
    assert "blue_scout" in {u.id for u in blue.status.units}  # its own side sees it
    assert "blue_scout" in blue.names("unit")
    assert "blue_scout" in {u.id for u in referee.status.units}
    # Once it moves, it is seen.
    document = TOY.act(document, REFEREE, "turn.next", {}, ScriptedDice([])).document
    document = TOY.act(
        document, Seat("blue"), "move", {"unit": "blue_scout", "to": 5}, ScriptedDice([])
    ).document
    assert "blue_scout" in {u.id for u in TOY.view(document, Seat("red")).status.units}


def test_a_spectator_gives_no_command_and_a_seat_only_its_own(toy: Ruleset) -> None:
    document = TOY.setup("duel")
    with pytest.raises(IllegalAction) as refused:
        TOY.act(document, SPECTATOR, "turn.next", {}, ScriptedDice([]))
    assert refused.value.key == "error.seat.spectator"
    with pytest.raises(IllegalAction):  # blue may not pass red's move
        TOY.act(document, Seat("blue"), "turn.next", {}, ScriptedDice([]))


def test_adding_it_needs_no_edit_in_bot_or_db() -> None:
    """No file of bot/ or db/ names it: the service test below plays it as it is."""
    named = [
        path
        for folder in ("bot", "db")
        for path in (ROOT / folder).rglob("*")
        if path.is_file()
        and path.suffix in (".py", ".yaml", ".sql", ".json")
        and any(word in path.read_text(encoding="utf-8") for word in ("toy_ruleset", '"toy"'))
    ]
    assert named == []


async def test_the_service_plays_it_to_its_end(toy: Ruleset, tmp_path: Path) -> None:
    """The whole-game fuzzer: seats join, play random legal actions and junk through the
    service on a SQLite store, and the log replays to the stored state."""
    for seed in (1, 2):
        run = await fuzz("toy", "duel", seed, tmp_path)
        assert not run.failures, "\n".join(run.failures)
        assert run.ended and run.commands > 0


async def test_the_service_shows_each_seat_its_own_view(toy: Ruleset, tmp_path: Path) -> None:
    """Autocomplete and ``/map mine`` read the asker's seat view, ``/game status`` the public
    one: blue's hidden scout reaches no one but blue and the referee."""
    store = await SqliteStore.open(tmp_path / "toy.db")
    table = Table(store, random.Random(1), "views")
    referee, red, blue, outsider = 1, 100, 101, 999
    try:
        await table.send(CHANNEL, referee, "game.new", {"ruleset": "toy", "scenario": "duel"})
        await table.send(CHANNEL, red, "game.join", {"side": "red"})
        await table.send(CHANNEL, blue, "game.join", {"side": "blue"})
        service = table.service
        assert "blue_scout" not in await service.choices(CHANNEL, red, "target", "")
        assert "blue_scout" not in await service.choices(CHANNEL, outsider, "target", "")
        assert "blue_scout" not in await service.choices(CHANNEL, outsider, "unit", "")
        assert "blue_scout" in await service.choices(CHANNEL, blue, "unit", "")
        assert "blue_scout" in await service.choices(CHANNEL, referee, "target", "")
        # Red's own units come first for red: what it may use now.
        first = (await service.choices(CHANNEL, red, "unit", ""))[:2]
        assert sorted(first) == ["red_gun", "red_squad"]
        status = await table.send(CHANNEL, blue, "game.status", {})
        assert isinstance(status, StatusReply) and status.status is not None
        assert "blue_scout" not in {unit.id for unit in status.status.units}
        assert status.status.awaiting == "red"
        # A registered ruleset is offered like a bundled one.
        assert await service.choices(CHANNEL, outsider, "ruleset", "to") == ["toy"]
        assert await service.choices(CHANNEL, outsider, "scenario", "duel") == ["duel"]
    finally:
        await store.close()


async def test_at_the_console_its_commands_come_from_its_declaration(
    toy: Ruleset, tmp_path: Path
) -> None:
    """Its commands.yaml alone makes its commands: /help lists them (its own /rally, which no
    bundled ruleset has, included), the console parses and plays them, and a bad option is
    refused with the declaration's words — with no line of bot/ naming it."""
    store = await SqliteStore.open(tmp_path / "toy.db")
    out = io.StringIO()
    try:
        console = Console(GameService(store, dice=ScriptedDice([])), out, language="en")
        await console.run(
            [
                "/game new ruleset:toy scenario:duel language:en",
                "/as rosa",
                "/game join side:red",
                "/as bruno",
                "/game join side:blue",
                "/help",
                "/help move",
                "/as rosa",
                "/move unit:red_squad to:2 colour:green",
                "/move unit:red_squad to:2",
                "/game status",
                "/rally unit:red_squad",
            ],
            interactive=False,
        )
    finally:
        await store.close()
    text = out.getvalue()
    assert "Traceback" not in text
    assert "/rally" in text  # its own verb, a command of its own in its help
    assert "/move" in text and "to:" in text
    # The console parses the channel's commands as its ruleset declares them: the unknown
    # option is refused with the toy's own options, and its own /rally is a command (the
    # rules then refuse it: nobody owes a rally).
    assert "/move has no option 'colour'. Options: unit, to, dice." in text
    rally = text.split("[rosa] /rally unit:red_squad\n", 1)[1]
    assert "Unknown command" not in rally and rally.startswith("! ")
    moved = text.split("[rosa] /move unit:red_squad to:2\n", 1)[1]
    assert not moved.startswith("!")  # played, not refused
    status = moved.split("[rosa] /game status", 1)[1].split("[rosa] /rally", 1)[0]
    assert re.search(r"red_squad +Red squad +3/3 +2 ", status)  # at place 2 now, acted
