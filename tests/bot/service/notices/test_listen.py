"""The campaign's notices through the service, on both store backends: a side that comes to
owe its part of an aftermath, then its confirmation, is told once (never the player who
gave the command, never a side that owes nothing new); the game a campaign links is told to
its players in its own channel; a roster the referee adjusts is told to that side's players.
The campaign only declares what its writes made owed or happen; the notices choose how."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from bot.service.notices import records
from bot.service.replies import DirectReply
from rules.core.words import in_language
from tests.bot.service.campaign.test_aftermath import _adjust_banda, _typed
from tests.bot.service.campaign.test_aftermath_sides import _both_hurt_and_won_by_the_legion
from tests.bot.service.campaign.test_commands import (
    ANNA,
    BRUNO,
    CAMPAIGN,
    FIRST,
    GUILD,
    REFEREE,
    _campaign,
)


async def _taken(store: Any) -> list[tuple[int, str, str, str]]:
    """The notices queued since last asked, taken off the outbox as delivery takes them:
    (user, line, side, game number), and each about the campaign, by its name."""
    taken = []
    for user in (REFEREE, ANNA, BRUNO):
        for record in await records.pending_records(store, GUILD, user):
            notice = records.Notice.of_value(record.value)
            assert (notice.channel, notice.title, notice.page) == (CAMPAIGN, "Orbita", "campaign")
            assert notice.params["link"] == f"https://discord.com/channels/{GUILD}/{CAMPAIGN}"
            side, number = notice.params.get("side", ""), notice.params.get("number", "")
            taken.append((notice.user, notice.line or notice.kind, side, number))
            assert await records.claim(store, record)
    return sorted(taken)


async def test_an_aftermath_owed_then_its_confirmation_are_told_once(any_store: Any) -> None:
    table = await _campaign(any_store)
    for user in (ANNA, BRUNO):
        await table(CAMPAIGN, user, "notify.set", kind="owed", via="dm")
    # The game's end enters the campaign (the campaign's follower): each side owes its part.
    await _both_hurt_and_won_by_the_legion(table)
    state = await table.campaign()
    # Named as the campaign's language reads them (a notice keeps plain text).
    legion, raiders = (in_language(state.sides[side], "en") for side in ("legione", "predoni"))
    assert (legion, raiders) == ("Astral Legion", "Raiders")
    assert await _taken(any_store) == [
        (ANNA, "bot.notice.owed_roll", legion, "1"),
        (BRUNO, "bot.notice.owed_roll", raiders, "1"),
    ]
    # Anna rolls her part: the Raiders owed theirs already, nobody owes anything new.
    await _typed(table, ANNA, "6,6,6", game=1)
    assert await _taken(any_store) == []
    # Bruno rolls his: every side now confirms; Bruno, who gave the command, is not told.
    await table(CAMPAIGN, BRUNO, "campaign.aftermath", game=1)
    assert await _taken(any_store) == [(ANNA, "bot.notice.owed_confirm", legion, "1")]
    await table(CAMPAIGN, ANNA, "campaign.confirm", game=1)
    await table(CAMPAIGN, BRUNO, "campaign.confirm", game=1)
    assert await _taken(any_store) == []


async def test_an_aftermath_owed_is_delivered_by_direct_message_with_the_campaigns_line(
    any_store: Any,
) -> None:
    table = await _campaign(any_store)
    await table(CAMPAIGN, BRUNO, "notify.set", kind="owed", via="dm")
    await _both_hurt_and_won_by_the_legion(table)
    moment = datetime.now(UTC) + timedelta(minutes=1)
    sent = [r for _, r in await table.service.due_reminders(moment) if isinstance(r, DirectReply)]
    assert [(r.user, [n.key for n in r.notices]) for r in sent] == [
        (BRUNO, ["bot.notice.owed_roll"])
    ]
    params = dict(sent[0].notices[0].params)
    assert (params["title"], params["number"]) == ("Orbita", "1")
    assert await table.service.due_reminders(moment + timedelta(minutes=1)) == []


async def test_a_roster_adjusted_is_told_to_that_sides_players_as_they_chose(
    any_store: Any,
) -> None:
    table = await _campaign(any_store)
    await table(CAMPAIGN, BRUNO, "notify.set", kind="roster", via="both")
    await table(CAMPAIGN, ANNA, "notify.set", kind="roster", via="dm")
    await _both_hurt_and_won_by_the_legion(table)
    await _taken(any_store)
    adjusted = await _adjust_banda(table, "experience", "4", "a miscount")
    # Bruno plays the Raiders and chose both: mentioned, and a message. Anna's side was
    # not touched: nothing for her.
    assert adjusted.ping == [BRUNO]
    raiders = in_language((await table.campaign()).sides["predoni"], "en")
    assert await _taken(any_store) == [(BRUNO, "roster", raiders, "")]


async def test_the_game_a_campaign_links_is_told_to_its_players_in_its_channel(
    any_store: Any,
) -> None:
    table = await _campaign(any_store)
    await table(CAMPAIGN, ANNA, "notify.set", kind="linked", via="dm")
    await table(CAMPAIGN, BRUNO, "notify.set", kind="linked", via="off")
    linked = await table(CAMPAIGN, REFEREE, "campaign.game", scenario="avamposto", channel=FIRST)
    assert linked.ping == []  # Anna a message only, Bruno nothing
    [notice] = await records.pending(any_store, GUILD, ANNA)
    game = await any_store.load(FIRST)
    assert (notice.kind, notice.channel, notice.page) == ("linked", FIRST, "game")
    # The title in the game's language (English), not the Italian it reads as a string.
    assert notice.title == game.document["title"]["en"] == "Assault on the outpost (example)"
    assert notice.params["number"] == "1"
    assert await records.pending(any_store, GUILD, BRUNO) == []
