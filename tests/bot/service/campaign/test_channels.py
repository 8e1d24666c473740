"""``/campaign new`` in a channel whose game has ended archives that game, as ``/game new``
does (it was refused as "a game in play"); refused for any other reason, it archives
nothing; a game in play still keeps its channel."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bot.commands import COMMANDS
from bot.console.render_text import reply_text
from db.drivers.sqlite import SqliteStore
from tests.bot.service.campaign.test_commands import (
    ANNA,
    REFEREE,
    Table,
)
from tests.db.helpers import as_before_salts, file_at_schema

HERE = 600


async def test_a_campaign_takes_a_channel_whose_game_has_ended(
    any_store: Any,
) -> None:
    table = Table(any_store)
    await table(HERE, REFEREE, "game.new", ruleset="w40k4", scenario="avamposto")
    await table.refused(
        HERE,
        REFEREE,
        "campaign.new",
        "error.campaign.channel_taken",
        ruleset="w40k4",
        name="Orbita",
    )
    await table(HERE, REFEREE, "game.end")
    ended = await any_store.load(HERE)
    # Refused for its name: the ended game stays where it is, not archived.
    await table.refused(
        HERE, REFEREE, "campaign.new", "error.campaign.bad_name", ruleset="w40k4", name="x" * 81
    )
    assert await any_store.all_archives() == []
    created = await table(HERE, REFEREE, "campaign.new", ruleset="w40k4", name="Orbita")
    keys = [n.key for n in created.notices]
    assert keys == ["bot.games.archived_previous", "bot.campaign.created"], keys
    [archive] = await any_store.all_archives()
    assert archive.channel_id == HERE and archive.head_hash == ended.head_hash
    campaign = await any_store.load(HERE)
    # A record of kind campaign; its ruleset column names its games' ruleset.
    assert (campaign.kind, campaign.is_campaign, campaign.ruleset) == ("campaign", True, "w40k4")
    assert await any_store.check() == []


async def test_a_campaigns_channel_is_no_game_of_its_ruleset(any_store: Any) -> None:
    """The campaign's row names its games' ruleset, yet its channel is no game of it: every
    command is offered there (as outside a game), a side is completed from the campaign's
    sides and nothing of a game's, and a game command is refused."""
    table = Table(any_store)
    await table(HERE, REFEREE, "campaign.new", ruleset="w40k4", name="Orbita")
    assert (await any_store.load(HERE)).ruleset == "w40k4"
    assert await table.service.commands(HERE) == list(COMMANDS)
    assert await table.service.choices(HERE, REFEREE, "side", "pred") == ["predoni"]
    # No game's names: no unit, and no result to end a game with ("none" is a game's draw).
    assert await table.service.choices(HERE, REFEREE, "unit", "") == []
    assert await table.service.choices(HERE, REFEREE, "result", "") == []
    await table.refused(HERE, REFEREE, "turn.next", "error.campaign.here")


async def test_a_campaign_stored_before_kinds_keeps_working(tmp_path: Path) -> None:
    """A campaign of a file from before schema 11 (its row's ruleset "campaign") is, once the
    file is opened and migrated, a campaign: it reads, takes its players, keeps its channel
    from game commands and the games' listing, and helps with its games' ruleset."""
    async with await SqliteStore.open(tmp_path / "source.db") as source:
        await Table(source)(HERE, REFEREE, "campaign.new", ruleset="w40k4", name="Orbita")
        bundle = as_before_salts((await source.export(HERE)).to_json_dict())
    bundle["game"]["ruleset"] = "campaign"  # as the releases before 11 stored a campaign
    path = tmp_path / "at-10.db"
    file_at_schema(path, [bundle], 10)
    async with await SqliteStore.open(path) as store:  # migrates to 11
        table = Table(store)
        stored = await store.load(HERE)
        assert (stored.kind, stored.ruleset) == ("campaign", "campaign")
        assert "Orbita" in reply_text(await table(HERE, ANNA, "campaign.status"))
        await table(HERE, REFEREE, "campaign.invite", user=ANNA, side="legione")
        joined = await table(HERE, ANNA, "campaign.join", side="legione")
        assert [n.key for n in joined.notices] == ["bot.campaign.joined"]
        await table.refused(HERE, REFEREE, "turn.next", "error.campaign.here")
        assert "Orbita" not in reply_text(await table(HERE + 1, ANNA, "game.list"))
        assert await table.service.commands(HERE) == list(COMMANDS)
        assert (await table(HERE, ANNA, "help")).ruleset == "w40k4"  # its state names it
        assert await store.check() == []
