"""A whole turn on each bundled battlefield, played over Discord (the real bot under SimCord).

Each seat types the slash commands its ruleset lists as legal (moves to destinations, fires
without a distance: the bot measures), until the turn number moves on (and a fire at a unit
was measured, within three turns). Every reply must be
public, every move and fire reply must carry the picture of the table, and fire replies must
show the distance the bot measured.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from bot.commands import OptionType, command_for
from rules.core.ruleset import get_ruleset
from rules.core.seatview import REFEREE, SPECTATOR
from tests.bot.discord.test_simcord import (  # noqa: F401  (fixtures are used by name)
    Table,
    assert_public,
    discord_dice,
    discord_service,
    discord_store,
    simcord_bot,
    table,
    texts,
)
from tests.rulesets import fact, facts

PNG = b"\x89PNG\r\n\x1a\n"
MAX_COMMANDS = 1200
# Verbs whose reply draws the table (the battlefield's rulesets mark the action on it).
DRAWN = {"move", "fire"}


def _slash_values(path_verb: str, options: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The slash command and its typed option values for a service verb and its options."""
    found = command_for(path_verb)
    assert found is not None, path_verb
    command, routing = found
    values: dict[str, Any] = {}
    for name, value in {**options, **routing}.items():
        spec = command.option(name)
        if spec is not None and spec.type is OptionType.NUMBER:
            value = float(value)
        elif spec is not None and spec.type is OptionType.INTEGER:
            value = int(value)
        elif spec is not None and spec.type is OptionType.BOOLEAN:
            value = str(value).lower() in {"1", "true", "yes", "si", "sì", "oui"}
        else:
            value = str(value)
        values[name] = value
    return command.name, values


async def _picture(message: Any) -> bytes:
    files = {a.filename: await a.read() for a in message.attachments}
    assert list(files) == ["map.png"], (list(files), texts(message)[:300])
    assert files["map.png"].startswith(PNG)
    return files["map.png"]


@pytest.mark.parametrize(("ruleset", "scenario"), facts("BATTLEFIELD").items())
async def test_a_whole_turn_over_discord_on_the_battlefield(
    table: Table, ruleset: str, scenario: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    play = get_ruleset(ruleset).rules
    on_hexes = fact(ruleset, "GRID") == "hexes"  # no distance measured on a hex map
    rng = random.Random(7)
    # Fair dice drawn from the seeded generator (all 1s would tie initiative for ever).
    monkeypatch.setattr(table.dice, "face", lambda die, label: rng.randint(1, die.sides))
    channel = table.channel
    created = assert_public(
        await table.referee.slash(
            channel, "game new", ruleset=ruleset, scenario=scenario, language="en"
        )
    )
    await _picture(created)  # the new game's reply shows the table
    document = (await table.service._store.load(channel.id)).document
    seats = dict(zip(play.sides(document), (table.anna, table.bruno), strict=False))
    for side, member in seats.items():
        assert_public(await member.slash(channel, "game join", side=side))
    first_turn = play.view(document, REFEREE).status.turn
    measured = drawn = 0
    for _ in range(MAX_COMMANDS):
        document = (await table.service._store.load(channel.id)).document
        status = play.view(document, REFEREE).status
        # A whole turn at least; more (up to three) until a fire at a unit was measured,
        # for a first turn spent closing the distance.
        enough = measured or on_hexes or status.turn > first_turn + 2
        if status.ended or (status.turn > first_turn and enough):
            break
        actions = play.view(document, REFEREE).every_legal
        assert actions, "dead end"
        # The units the channel's status shows (a hidden one is absent from it).
        units = {line.id for line in play.view(document, SPECTATOR).status.units}
        owed = [a for a in actions if a.owed]
        # Fire at a unit whenever one is listed (the measured distance is the point here),
        # else mostly moves, else anything (turn steps, holds…).
        at_units = [a for a in actions if a.verb == "fire" and a.target in units]
        moves = [a for a in actions if a.verb == "move"]
        pool = owed or at_units or (moves if moves and rng.random() < 0.7 else actions)
        action = rng.choice(pool)
        options = dict(action.options)
        for spec in action.free:
            if spec.required:
                options[spec.name] = rng.choice(spec.choices) if spec.choices else spec.low
        path, values = _slash_values(action.verb, options)
        member = table.referee if action.side is None else seats[action.side]
        reply = assert_public(await member.slash(channel, path, **values))
        if action.verb in DRAWN:
            await _picture(reply)
            drawn += 1
        # A hidden unit (absent from the channel's status) fires in secret: the channel is
        # told only that it acted (its side reads how, privately), so no measured distance.
        shown = options.get("unit") in units
        if action.verb == "fire" and not on_hexes and action.target in units and shown:
            assert "measured" in texts(reply), texts(reply)[:500]
            assert "distance" not in options  # the bot measured it: nobody typed one
            measured += 1
    else:
        pytest.fail(f"no end of turn in {MAX_COMMANDS} commands")
    assert drawn, "no move or fire was played"
    assert measured or on_hexes, "no fire at a unit was listed in the turn"
    status_reply = assert_public(await table.stranger.slash(channel, "game status"))
    await _picture(status_reply)
