"""A store with a linea_gotica game (hidden units) and a campaign with a map and a game
decided, the link signer, and the web pages served by aiohttp's test server."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from bot.service import GameService, Reply, Request
from bot.service.links import LinkSigner, use_links
from bot.web.app import WebPages
from db.drivers.sqlite import SqliteStore
from tests.bot.conftest import QueuedDice

GAME, CAMPAIGN, CAMPAIGN_GAME = 3501, 3502, 3503
REFEREE, ANNA, BRUNO, OUTSIDER = 1, 2, 3, 9
#: Bruno's display name: the pages must show it as text, never run it.
SCRIPT = "<script>alert(1)</script>"
#: The Germans' units hidden from the Allies in esempio_gotica_campo.
#: The Germans' hidden units, by their names in the game's language (English).
HIDDEN = ("Sniper", "Farmhouse MG 42")
#: Their names in every language: none may reach the enemy.
HIDDEN_EVERYWHERE = (
    *HIDDEN,
    "Cecchino",
    "MG 42 del casolare",
    "Tireur d'élite",
    "MG 42 de la ferme",
)
SECRET = "a web secret long enough to sign"


@dataclass
class Table:
    """Sends requests to the service as the users of the tests."""

    service: GameService
    counter: Any

    async def __call__(self, where: int, who: int, verb: str, /, **options: Any) -> Reply:
        return await self.service.handle(
            Request(
                channel_id=where,
                guild_id=7,
                user_id=who,
                verb=verb,
                options=options,
                interaction_id=f"web-{next(self.counter)}",
                user_name=SCRIPT if who == BRUNO else f"user{who}",
            )
        )


@pytest.fixture()
def signer() -> Any:
    signing = LinkSigner(SECRET, "http://arbitro.test/pages")
    use_links(signing)
    yield signing
    use_links(None)


async def set_up(store: SqliteStore) -> Table:
    """A game with hidden units and a few events; a campaign with a map and a game decided."""
    table = Table(GameService(store, dice=QueuedDice()), itertools.count())
    await table(
        GAME,
        REFEREE,
        "game.new",
        ruleset="linea_gotica",
        scenario="esempio_gotica_campo",
        language="en",
    )
    await table(GAME, ANNA, "game.join", side="alleati")
    await table(GAME, BRUNO, "game.join", side="tedeschi")
    await table(
        CAMPAIGN,
        REFEREE,
        "campaign.new",
        ruleset="w40k4",
        name="Valle <b>",
        language="fr",
        book="crociata_valle",
    )
    for user, side in ((ANNA, "legione"), (BRUNO, "predoni")):  # seats by consent
        await table(CAMPAIGN, REFEREE, "campaign.invite", user=user, side=side)
        await table(CAMPAIGN, user, "campaign.join", side=side)
    await table(CAMPAIGN, REFEREE, "campaign.game", channel=CAMPAIGN_GAME)
    await table(CAMPAIGN_GAME, REFEREE, "game.decide", result="predoni", reason="ok")
    await table(CAMPAIGN, REFEREE, "campaign.status")  # the result enters the campaign
    return table


@pytest.fixture()
async def store(tmp_path) -> AsyncIterator[SqliteStore]:
    opened = await SqliteStore.open(str(tmp_path / "arbitro.db"))
    yield opened
    await opened.close()


@pytest.fixture()
async def table(store) -> Table:
    return await set_up(store)


@pytest.fixture()
async def client(store, signer, table) -> AsyncIterator[TestClient]:
    async with TestClient(TestServer(WebPages(store, signer, "en").application())) as opened:
        yield opened
