"""``/game status``: after what the rules show, the lines each feature adds through its
status part (the roster from the seats, the deadlines due from the deadlines), read from
the handler table in its order: the status names no feature."""

from __future__ import annotations

from typing import Any

from bot.console.render_text import reply_text
from bot.service import GameService, Request
from bot.service.core import TABLE
from bot.service.export import read_file
from bot.service.handlers import HandlerTable, StatusPart

REFEREE, ANNA, BRUNO, CARLA = 1, 2, 3, 4
CHANNEL = 12


async def _game_with_a_roster_and_a_deadline(service: GameService) -> None:
    """A referee, a player on each side, a request pending, a deadline for one side."""

    async def send(user: int, verb: str, **options: Any) -> None:
        await service.handle(Request(CHANNEL, user, verb, options, guild_id=9))

    await send(REFEREE, "game.new", scenario="esempio_normandia", language="en")
    await send(ANNA, "game.join", side="alleati")
    await send(BRUNO, "game.join", side="asse")
    await send(CARLA, "game.join", side="alleati")  # a side with a player: asked
    await send(REFEREE, "game.deadline", side="asse", hours=5)


async def _status_keys(service: GameService) -> list[str]:
    status = await service.handle(Request(CHANNEL, CARLA, "game.status", {}, guild_id=9))
    return [n.key for n in status.notices]


async def test_the_status_lists_the_roster_then_the_deadlines_due(service) -> None:
    await _game_with_a_roster_and_a_deadline(service)
    assert await _status_keys(service) == [
        "bot.seats.referee",
        "bot.seats.side",
        "bot.seats.side",
        "bot.seats.pending_request",
        "bot.deadline.due",
    ]


async def test_the_status_reads_the_features_lines_from_the_table(store, dice) -> None:
    """Without the status parts in its table, the status adds no feature's line."""
    bare = HandlerTable(
        *TABLE,
        fallback=TABLE.fallback,
        reactions=[r for r in TABLE.reactions if not isinstance(r, StatusPart)],
    )
    assert {part.name for part in TABLE.status_parts} == {"seats.roster", "deadlines.due"}
    service = GameService(store, dice=dice, table=bare)
    await _game_with_a_roster_and_a_deadline(service)
    assert await _status_keys(service) == []


async def test_an_ended_games_report_names_its_objectives_in_the_games_language(service) -> None:
    """Played at the console: a French game's final score read "La chapelle" in
    ``/game status`` but "La chiesetta" in the export's report, whose result is read from
    the event that ended the game (JSON: the name's languages lost)."""
    channel = CHANNEL + 1

    async def send(user: int, verb: str, **options: Any) -> Any:
        return await service.handle(Request(channel, user, verb, options, guild_id=9))

    await send(REFEREE, "game.new", scenario="gotica_incontro", language="fr")
    await send(REFEREE, "game.end", result="none", reason="il pleut")
    status = reply_text(await send(REFEREE, "game.status"))
    reply = await send(REFEREE, "game.export")
    report = read_file(reply.files["arbitro-report.md"]).decode()
    for text in (status, report):
        assert "La chapelle" in text and "La chiesetta" not in text, text
