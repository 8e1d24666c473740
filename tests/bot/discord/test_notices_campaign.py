"""The campaign's notices through the real bot on SimCord: a player who chose direct
messages for them gets one when their side comes to owe a game's aftermath, and one when the
referee adjusts their side's roster, each naming the campaign and linking to its channel."""

from __future__ import annotations

from typing import Any

from tests.bot.campaign_flow import campaign_with_a_game
from tests.bot.discord.test_notices import direct_messages
from tests.bot.discord.test_simcord import (  # noqa: F401 - the fixtures the test uses
    Table,
    assert_public,
    discord_dice,
    discord_service,
    discord_store,
    simcord_bot,
    table,
    texts,
)


async def test_a_direct_message_when_an_aftermath_is_owed(
    table: Table,  # noqa: F811
    discord_store: Any,  # noqa: F811
) -> None:
    home, front = await campaign_with_a_game(table, discord_store)
    assert (await table.bruno.slash(home, "notify set", kind="owed", via="dm")).ephemeral
    await table.referee.slash(front, "game end", result="alleati", reason="held")
    await table.env.advance_time(61)
    [message] = direct_messages(table.bruno)
    shown = texts(message)
    assert "Normandia" in shown and "aftermath of game 1" in shown
    assert f"/channels/{table.guild.id}/{home.id}" in shown
    assert not direct_messages(table.anna)  # she never asked
    # Bruno rolls his part: owing nothing new, he is not told again.
    assert_public(await table.bruno.slash(home, "campaign aftermath", game=1))
    await table.env.advance_time(61)
    assert len(direct_messages(table.bruno)) == 1


async def test_a_direct_message_when_the_referee_adjusts_the_roster(
    table: Table,  # noqa: F811
    discord_store: Any,  # noqa: F811
) -> None:
    home, _ = await campaign_with_a_game(table, discord_store)
    assert (await table.anna.slash(home, "notify set", kind="roster", via="dm")).ephemeral
    adjusted = await table.referee._actor.slash(
        home,
        "campaign adjust",
        side="alleati",
        unit="squadra_1",
        field="experience",
        value="2",
        reason="a miscount",
    )
    assert_public(adjusted)
    await table.env.advance_time(61)
    [message] = direct_messages(table.anna)
    shown = texts(message)
    assert "Normandia: the referee adjusted your roster." in shown
    assert f"/channels/{table.guild.id}/{home.id}" in shown
    assert not direct_messages(table.bruno)
