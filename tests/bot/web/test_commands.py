"""``/game web`` and ``/campaign web``: a private personal link, the referee's public
spectator link, refusals; the settings that turn the pages on."""

from __future__ import annotations

import re

import pytest

from bot.app.settings import SettingsError, load_settings
from bot.service.links import use_links
from bot.web.app import signer_of
from rules.core.errors import RulesError
from tests.bot.web.conftest import ANNA, CAMPAIGN, GAME, OUTSIDER, REFEREE

URL = re.compile(r"http://arbitro\.test/pages(/\S+)")


def path_of(reply) -> str:
    found = URL.search(" ".join(reply.lines))
    assert found is not None, reply.lines
    return found.group(1)


async def test_a_player_gets_a_private_link_of_their_own(table, signer, client) -> None:
    reply = await table(GAME, ANNA, "game.web")
    assert reply.private and "valid 30 days" in reply.lines[0]
    path = path_of(reply)
    assert path.startswith(f"/game/{GAME}/{ANNA}/")
    assert (await client.get(path)).status == 200
    campaign = await table(CAMPAIGN, ANNA, "campaign.web")
    assert campaign.private and path_of(campaign).startswith(f"/campaign/{CAMPAIGN}/{ANNA}/")
    assert (await client.get(path_of(campaign))).status == 200


async def test_someone_without_a_seat_is_told_they_read_as_a_spectator(table, signer) -> None:
    reply = await table(GAME, OUTSIDER, "game.web")
    assert reply.private and "You have no seat" in reply.lines[1]


async def test_the_referee_alone_publishes_a_spectator_link(table, signer, client) -> None:
    reply = await table(GAME, REFEREE, "game.web", spectator=True)
    assert not reply.private and path_of(reply).startswith(f"/game/{GAME}/spectator/")
    assert (await client.get(path_of(reply))).status == 200
    published = await table(CAMPAIGN, REFEREE, "campaign.web", spectator=True)
    assert not published.private and "/spectator/" in path_of(published)
    for channel in (GAME, CAMPAIGN):
        with pytest.raises(RulesError) as refused:
            await table(
                channel, ANNA, f"{'game' if channel == GAME else 'campaign'}.web", spectator=True
            )
        assert refused.value.key == "error.service.referee_only"


async def test_without_web_pages_the_commands_say_so(table) -> None:
    use_links(None)
    with pytest.raises(RulesError) as refused:
        await table(GAME, ANNA, "game.web")
    assert refused.value.key == "error.web.off"


def test_the_pages_need_a_secret_and_are_off_by_default(monkeypatch) -> None:
    assert signer_of(load_settings()) is None
    monkeypatch.setenv("ARBITRO_WEB_URL", "https://arbitro.example/pages")
    with pytest.raises(SettingsError, match="ARBITRO_WEB_SECRET"):
        load_settings()
    monkeypatch.setenv("ARBITRO_WEB_SECRET", "short")
    with pytest.raises(SettingsError, match="ARBITRO_WEB_SECRET: is too short"):
        load_settings()
    monkeypatch.setenv("ARBITRO_WEB_SECRET", "x" * 32)
    settings = load_settings()
    assert settings.web_host == "127.0.0.1" and settings.web_port == 8080
    assert settings.web_nice == 10  # the pages' process below the bot's priority
    monkeypatch.setenv("ARBITRO_WEB_NICE", "0")
    assert load_settings().web_nice == 0
    monkeypatch.setenv("ARBITRO_WEB_NICE", "20")
    with pytest.raises(SettingsError, match="ARBITRO_WEB_NICE"):
        load_settings()
    monkeypatch.delenv("ARBITRO_WEB_NICE")
    signer = signer_of(settings)
    assert signer is not None and signer.base_url == "https://arbitro.example/pages"
    monkeypatch.setenv("ARBITRO_WEB_URL", "ftp://nope")
    with pytest.raises(SettingsError, match="ARBITRO_WEB_URL"):
        load_settings()
