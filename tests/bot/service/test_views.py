"""``/game status``: after what the rules show, the lines each feature adds through its
status part (the roster from the seats, the deadlines due from the deadlines), read from
the handler table in its order: the status names no feature."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from bot.console.render_text import reply_text, status_text
from bot.discord.embeds import status_card
from bot.service import GameService, Request
from bot.service.core import TABLE
from bot.service.events import event_line
from bot.service.export import read_file
from bot.service.handlers import HandlerTable, StatusPart
from bot.service.replies import StatusReply
from rules.core.resolution import Outcome, Resolution
from rules.core.ruleset import KNOWN_RULESETS
from rules.core.words import spelled_in
from tests.rulesets import UnitName, fact

REFEREE, ANNA, BRUNO, CARLA = 1, 2, 3, 4
CHANNEL = 12
#: Each ruleset's battlefield and a unit of it named in three languages.
NAMED = [(key, fact(key, "BATTLEFIELD"), fact(key, "UNIT_NAME")) for key in KNOWN_RULESETS]


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


@pytest.mark.parametrize(("ruleset", "scenario", "named"), NAMED)
@pytest.mark.parametrize("language", ["en", "fr"])
async def test_a_status_names_the_units_in_the_games_language(
    service, ruleset: str, scenario: str, named: UnitName, language: str
) -> None:
    """A French w40k4 fuga listed "Squadra tattica", "Devastatori" at the console: its units
    read in French there, on Discord and on the web page's rows."""
    channel = CHANNEL + 2
    expected = dict(zip(("it", "en", "fr"), named.name, strict=True))[language]

    async def send(user: int, verb: str, **options: Any) -> Any:
        return await service.handle(Request(channel, user, verb, options, guild_id=9))

    await send(REFEREE, "game.new", ruleset=ruleset, scenario=scenario, language=language)
    status = await send(REFEREE, "game.status")
    assert isinstance(status, StatusReply) and status.status is not None
    shown = {
        "console": status_text(status.status, ruleset, language),
        "discord": "\n".join(
            line
            for section in status_card(status.status, ruleset, language).sections
            for line in section.lines
        ),
    }
    for where, text in shown.items():
        assert f"{expected}" in text and named.name.it not in text, where


async def test_a_units_stored_outcome_reads_in_the_readers_language(service, store) -> None:
    """A log line reads an event kept as JSON, whose outcome names the unit in plain Italian:
    with the names the game's document spells, it names the unit in the reader's language."""
    channel = CHANNEL + 3
    await service.handle(
        Request(channel, REFEREE, "game.new", {"scenario": "avamposto", "ruleset": "w40k4"})
    )
    event = (await store.events(channel))[-1]
    stored = Outcome.of("w40k4.status.arriving", unit="Squadra tattica")
    record = replace(event, resolution=[Resolution("w40k4", "p", (), stored).to_json()])
    document = (await store.load(channel)).document
    for language, name in (("en", "Tactical Squad"), ("fr", "Escouade tactique")):
        line = event_line(record, "w40k4", language, {}, spelled=spelled_in(document))
        assert name in line and "Squadra tattica" not in line, line
    assert "Squadra tattica" in event_line(record, "w40k4", "en", {})  # no names: as kept


async def test_autocomplete_offers_units_by_their_names_in_the_games_language(service) -> None:
    """French units by their French names, the id the value typed; matched by either."""
    channel = CHANNEL + 4
    await service.handle(
        Request(
            channel,
            REFEREE,
            "game.new",
            {"scenario": "fuga", "ruleset": "w40k4", "language": "fr"},
            guild_id=9,
        )
    )
    await service.handle(Request(channel, ANNA, "game.join", {"side": "legione"}, guild_id=9))
    units = await service.choices(channel, ANNA, "unit", "")
    labels = {str(unit): getattr(unit, "label", None) for unit in units}
    assert labels["squadra_tattica"] == "Escouade tactique"
    assert labels["veterani"] == "Vétérans en armure lourde"
    assert await service.choices(channel, ANNA, "unit", "vétér") == ["veterani"]
    assert await service.choices(channel, ANNA, "unit", "devast") == ["devastatori"]
    targets = await service.choices(channel, ANNA, "target", "")
    assert {getattr(t, "label", None) for t in targets} >= {"Bande de pillards"}
