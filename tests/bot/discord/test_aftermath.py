"""After a campaign's battle over Discord (SimCord, the real bot): the aftermath rolled with
a player's typed dice and shown in the campaign's channel, each side confirming, the next
game linked only then."""

from __future__ import annotations

from typing import Any

from tests.bot.campaign_flow import campaign_with_a_game
from tests.bot.discord.test_simcord import (  # noqa: F401 - the fixtures the test uses
    Table,
    assert_private_error,
    assert_public,
    discord_dice,
    discord_service,
    discord_store,
    simcord_bot,
    table,
    texts,
)


async def test_an_aftermath_through_discord(table: Table, discord_store: Any) -> None:  # noqa: F811
    home, front = await campaign_with_a_game(table, discord_store)
    rear = table.guild.create_text_channel("retrovie")
    await table.referee.slash(front, "game end", result="alleati", reason="held")
    refused = await table.referee._actor.slash(
        home, "campaign game", scenario="normandia_sfondamento", channel=rear
    )
    assert_private_error(
        refused,
        "Game 1 still owes its aftermath: each side rolls its own with "
        "/campaign aftermath game:1, then confirms.",
    )
    rolled = texts(
        assert_public(await table.anna.slash(home, "campaign aftermath", game=1, dice="2,5"))
    )
    assert "After game 1 of «Normandia» (dice typed by the player):" in rolled
    assert "strength 8 → 10 of 10 (2 casualties, D6 2 5: 1 back, 1 lost;" in rolled
    assert "/campaign dispute game:1 side:alleati" in rolled
    # Her dice fed her side only: Bruno rolls his own, then both confirm.
    assert_public(await table.bruno.slash(home, "campaign aftermath", game=1))
    await table.anna.slash(home, "campaign confirm", game=1)
    settled = texts(assert_public(await table.bruno.slash(home, "campaign confirm", game=1)))
    assert "The aftermath of game 1 is settled: the next game may start." in settled
    linked = await table.referee._actor.slash(
        home, "campaign game", scenario="normandia_sfondamento", channel=rear
    )
    assert "Game 2 of «Normandia» starts in" in texts(assert_public(linked))
