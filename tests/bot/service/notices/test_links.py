"""A notice's link, through the service on both store backends: with the web pages on, a
direct message leads to its game's (or campaign's) page, signed for the one player it goes
to; a notice shown in the channel instead (their messages closed to the bot) keeps the
channel's link, never a player's own page; with the pages off, the channel's link."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from bot.service.links import Link, LinkSigner, use_links
from bot.service.replies import DirectReply
from tests.bot.service.campaign.test_aftermath_sides import _both_hurt_and_won_by_the_legion
from tests.bot.service.campaign.test_commands import BRUNO, CAMPAIGN, _campaign
from tests.bot.service.notices.test_follow import ANNA, FIRST, GUILD, Table

BASE = "http://arbitro.test/pages"


@pytest.fixture()
def signer() -> Iterator[LinkSigner]:
    signing = LinkSigner("a secret of the tests", BASE)
    use_links(signing)
    yield signing
    use_links(None)


def _opened(signer: LinkSigner, url: str) -> Link:
    """The link a page's address grants (refused if not signed by ``signer``)."""
    assert url.startswith(BASE + "/"), url
    kind, channel, reader, expires, signature = url.removeprefix(BASE + "/").split("/")
    return signer.check(kind, channel, reader, expires, signature)


async def _direct(service: Any) -> DirectReply:
    moment = datetime.now(UTC) + timedelta(minutes=1)
    [(_, direct)] = await service.due_reminders(moment)
    assert isinstance(direct, DirectReply)
    return direct


async def test_a_direct_message_links_to_the_games_page_signed_for_its_reader(
    any_store: Any, signer: LinkSigner
) -> None:
    table = Table(any_store)
    await table.game(FIRST)
    await table.send(FIRST, ANNA, "notify.set", kind="your_move", via="dm")
    await table.until_owed_by(FIRST, "alleati")
    direct = await _direct(table.service)
    link = _opened(signer, dict(direct.notices[0].params)["link"])
    assert (link.kind, link.channel, link.reader) == ("game", FIRST, ANNA)
    # Her messages refuse the bot: the channel is shown the notice with its own link.
    assert direct.refused is not None
    instead = await direct.refused()
    assert instead is not None
    channel_link = f"https://discord.com/channels/{GUILD}/{FIRST}"
    assert dict(instead.notices[0].params)["link"] == channel_link


async def test_a_campaigns_notice_links_to_the_campaigns_page(
    any_store: Any, signer: LinkSigner
) -> None:
    table = await _campaign(any_store)
    await table(CAMPAIGN, BRUNO, "notify.set", kind="owed", via="dm")
    await _both_hurt_and_won_by_the_legion(table)
    direct = await _direct(table.service)
    link = _opened(signer, dict(direct.notices[0].params)["link"])
    assert (link.kind, link.channel, link.reader) == ("campaign", CAMPAIGN, BRUNO)


async def test_with_the_pages_off_a_notice_links_to_its_channel(any_store: Any) -> None:
    table = Table(any_store)
    await table.game(FIRST)
    await table.send(FIRST, ANNA, "notify.set", kind="your_move", via="dm")
    await table.until_owed_by(FIRST, "alleati")
    direct = await _direct(table.service)
    assert dict(direct.notices[0].params)["link"] == f"https://discord.com/channels/{GUILD}/{FIRST}"
