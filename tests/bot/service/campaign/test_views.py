"""``/campaign status``, ``log`` and ``roster side:`` answer with a typed page (the
campaign's state, the server's campaigns, the latest events, a side's roster), no text of
their own: the front ends render it, the console and Discord alike."""

from __future__ import annotations

from typing import Any

from bot.console.render_text import reply_text
from bot.discord.embeds import reply_cards
from bot.discord.outgoing import safe_name
from bot.service.campaign import CAMPAIGN_ARG
from bot.service.core import TABLE
from bot.service.replies import CampaignReply
from db.models import Scope
from rules.campaign.events import event_of
from rules.campaign.text import (
    AftermathPage,
    ListedCampaign,
    ListingPage,
    LogPage,
    RosterPage,
    StatusPage,
    page_lines,
)
from rules.core.i18n import translate
from rules.core.words import joined
from tests.bot.service.campaign.test_commands import (
    ANNA,
    BRUNO,
    CAMPAIGN,
    FIRST,
    OUTSIDER,
    REFEREE,
    _campaign,
    _last_turn,
)


async def test_the_status_is_the_campaigns_state_for_the_front_ends_to_render(
    any_store: Any,
) -> None:
    table = await _campaign(any_store)
    status = await table(CAMPAIGN, ANNA, "campaign.status")
    assert isinstance(status, CampaignReply)
    assert status.page == StatusPage(await table.campaign(), in_guild=True)
    lines = page_lines(status.page, "en")
    assert lines[0].startswith("Campaign «Orbita» (w40k4)")
    assert reply_text(status).splitlines()[: len(lines)] == lines
    (card,) = [
        c for c in reply_cards(status) if c.title == translate("discord.embed.campaign", "en")
    ]
    assert len(card.lines) == len(lines) and "Orbita" in card.lines[0]


async def _everything_stored(store: Any) -> list[Any]:
    """Each record's head hash, version and events, and the campaign's own records."""
    stored: list[Any] = []
    for game in await store.all_games():
        record = await store.load(game.channel_id)
        events = await store.events(game.channel_id, after_seq=0, limit=10_000)
        stored.append((game.channel_id, record.head_hash, record.version, len(events)))
    for feature in ("campaign_pending", "campaign_due", "campaign_reopening"):
        stored.append(await store.feature_list(feature, Scope.of_game(CAMPAIGN)))
    return stored


async def test_the_status_writes_nothing_whoever_asks_it_and_wherever(any_store: Any) -> None:
    """``/campaign status`` is read-only: declared so, and with a game linked and ended (its
    result entered, its aftermath owed) and a free roll in the campaign's channel, asked by
    the referee, a player or an outsider, in the campaign's channel, the game's or another,
    every record's head hash, version and number of events stay as they were, and so do the
    campaign's records."""
    assert TABLE.handler("campaign.status").read_only
    table = await _campaign(any_store)
    await table(CAMPAIGN, REFEREE, "campaign.game", scenario="avamposto", channel=FIRST)
    await _last_turn(table, FIRST)
    await table(CAMPAIGN, ANNA, "roll", expression="2d6")
    before = await _everything_stored(any_store)
    assert (await table.campaign()).game(1).result is not None  # type: ignore[union-attr]
    for user in (REFEREE, ANNA, BRUNO, OUTSIDER):
        for where in (CAMPAIGN, FIRST, 999):
            assert isinstance(await table(where, user, "campaign.status"), CampaignReply)
            assert await _everything_stored(any_store) == before, (user, where)


async def test_elsewhere_the_status_lists_the_servers_campaigns(any_store: Any) -> None:
    table = await _campaign(any_store)
    listing = await table(999, ANNA, "campaign.status")
    assert isinstance(listing, CampaignReply)
    assert listing.page == ListingPage(
        (ListedCampaign(CAMPAIGN, "Orbita", "w40k4", 0, False),), in_guild=True
    )
    assert reply_text(listing).splitlines() == [
        "Campaigns in this server:",
        f"<#{CAMPAIGN}>: «Orbita» (w40k4), 0 games",
    ]


async def test_the_log_is_the_campaigns_events_for_the_front_ends_to_word(any_store: Any) -> None:
    table = await _campaign(any_store)
    await table(CAMPAIGN, ANNA, "roll", expression="2d6")  # a free roll: an event of the channel
    log = await table(CAMPAIGN, ANNA, "campaign.log", count=3)
    assert isinstance(log, CampaignReply) and isinstance(log.page, LogPage)
    assert log.page.state == await table.campaign()
    stored = await table.campaign_events()
    assert [entry.seq for entry in log.page.entries] == [e.seq for e in stored[-3:]]
    *joined, roll = log.page.entries
    assert [entry.event for entry in joined] == [
        event_of(e.args[CAMPAIGN_ARG]) for e in stored[-3:-1]
    ]
    assert roll.event is None and "2d6" in roll.other
    lines = page_lines(log.page, "en")
    assert lines[0].startswith(f"#{joined[0].seq} ") and lines[-1] == f"#{roll.seq} {roll.other}"
    assert reply_text(log).splitlines()[: len(lines)] == lines


async def test_a_roster_is_a_page_its_players_words_shown_as_typed_on_discord(
    any_store: Any,
) -> None:
    table = await _campaign(any_store)
    await table(CAMPAIGN, REFEREE, "campaign.game", scenario="avamposto", channel=FIRST)
    state = await table.campaign()
    side = next(iter(state.rosters))
    shown = await table(CAMPAIGN, ANNA, "campaign.roster", side=side)
    assert isinstance(shown, CampaignReply) and isinstance(shown.page, RosterPage)
    assert (shown.page.state, shown.page.side) == (state, side)
    assert shown.page.known is not None
    assert {entry.id for entry in state.rosters[side].entries} <= shown.page.known
    lines = page_lines(shown.page, "en")
    assert len(lines) == 1 + len(state.rosters[side].entries)
    assert reply_text(shown).splitlines()[: len(lines)] == lines
    (card,) = [
        c for c in reply_cards(shown) if c.title == translate("discord.embed.campaign", "en")
    ]
    assert card.lines == [safe_name(line) for line in lines]
    # A side without a roster yet says so.
    empty = RosterPage(state.model_copy(update={"rosters": {}}), side)
    assert page_lines(empty, "en") == [
        translate("bot.campaign.roster.none", "en", side=state.sides[side])
    ]


async def test_a_sides_aftermath_is_a_page_saying_what_comes_next(any_store: Any) -> None:
    table = await _campaign(any_store)
    await table(CAMPAIGN, REFEREE, "campaign.game", scenario="avamposto", channel=FIRST)
    await _last_turn(table, FIRST)
    before = await table.campaign()
    side = next(iter(before.sides))
    rolled = await table(CAMPAIGN, REFEREE, "campaign.aftermath", game=1, side=side)
    assert isinstance(rolled, CampaignReply) and isinstance(rolled.page, AftermathPage)
    page = rolled.page
    logged = (await table.campaign_events())[-1].args[CAMPAIGN_ARG]
    assert page.state == before and page.event == event_of(logged)
    assert page.unrolled == tuple(s for s in before.sides if s != side)
    lines = page_lines(page, "en")
    assert lines[0] == translate(
        "bot.campaign.aftermath.title", "en", number=1, name=before.name, typed=""
    )
    assert lines[-1] == translate(
        "bot.campaign.aftermath.next_side",
        "en",
        number=1,
        sides=joined(before.sides[s] for s in page.unrolled),
        n=len(page.unrolled),
    )
    assert reply_text(rolled).splitlines()[: len(lines)] == lines
