"""The web pages through aiohttp's test client: each page, each reader's redaction, the
signed links (tampered or expired: 403), read only (405), escaping, ETag and 304."""

from __future__ import annotations

import re

from bot.service import GameService, Request
from bot.service.links import Link
from tests.bot.conftest import QueuedDice
from tests.bot.web.conftest import (
    ANNA,
    BRUNO,
    CAMPAIGN,
    CAMPAIGN_GAME,
    GAME,
    HIDDEN,
    HIDDEN_EVERYWHERE,
    REFEREE,
    SCRIPT,
)

PNG = b"\x89PNG\r\n\x1a\n"


async def page(client, signer, kind, channel, reader, suffix=""):
    response = await client.get(signer.relative(signer.link(kind, channel, reader)) + suffix)
    return response, await response.read()


async def test_a_game_page_shows_status_owed_map_units_and_log(client, signer) -> None:
    response, body = await page(client, signer, "game", GAME, ANNA)
    text = body.decode()
    assert response.status == 200 and response.headers["Content-Type"].startswith("text/html")
    assert '<html lang="en">' in text
    # The sides in the game's language (English), not the scenario's Italian.
    assert "View of side Allies" in text and "Germans" in text
    assert "Alleati" not in text and "Tedeschi" not in text
    # Its title too: the page's heading and its window's title.
    assert text.count("Gothic Line, September 1944, on the field (example)") >= 2
    assert "Linea Gotica" not in text
    assert "Who must act" in text and "Roll the initiative" in text
    assert "Sherman" in text  # a unit every seat sees
    # Units by their names in the game's language too.
    assert "1st Rifle Squad" in text and "1ª squadra fucilieri" not in text
    assert 'id="e1"' in text and "game created" in text  # the log
    assert "Page 1 of 1" in text
    assert "<script" not in text  # no script at all, the player's name included
    picture = re.search(r'<img src="([^"]+)"', text)
    assert picture is not None
    shown = await client.get(picture.group(1))
    assert shown.status == 200 and shown.headers["Content-Type"] == "image/png"
    assert (await shown.read()).startswith(PNG)


async def test_hidden_units_are_shown_to_their_side_alone(client, signer) -> None:
    for reader in (ANNA, None, 12345):  # the enemy, a spectator, someone without a seat
        _, body = await page(client, signer, "game", GAME, reader)
        assert not any(name in body.decode() for name in HIDDEN_EVERYWHERE), reader
    for reader in (BRUNO, REFEREE):  # their side, the referee
        _, body = await page(client, signer, "game", GAME, reader)
        assert all(name in body.decode() for name in HIDDEN), reader
    # The pictures differ the same way: the enemy's is the spectator's.
    _, enemy = await page(client, signer, "game", GAME, ANNA, "/map.png")
    _, spectator = await page(client, signer, "game", GAME, None, "/map.png")
    _, own = await page(client, signer, "game", GAME, BRUNO, "/map.png")
    assert enemy.startswith(PNG) and own.startswith(PNG) and own != spectator


async def test_the_seat_is_read_when_served_not_from_the_link(client, signer, table) -> None:
    link = signer.relative(signer.link("game", GAME, BRUNO))
    assert HIDDEN[0] in (await (await client.get(link)).text())
    await table(GAME, BRUNO, "game.leave")
    assert HIDDEN[0] not in (await (await client.get(link)).text())


async def test_names_are_escaped(client, signer) -> None:
    _, body = await page(client, signer, "game", GAME, REFEREE)
    text = body.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text and SCRIPT not in text
    _, body = await page(client, signer, "campaign", CAMPAIGN, ANNA)
    assert "Valle &lt;b&gt;" in body.decode() and "Valle <b>" not in body.decode()


async def test_a_campaign_page_shows_standings_sides_map_games_and_story(client, signer) -> None:
    response, body = await page(client, signer, "campaign", CAMPAIGN, ANNA)
    text = body.decode()
    assert response.status == 200 and '<html lang="fr">' in text
    assert "Classement" in text and text.count('<tr><td class="n">') == 2
    # The sides in the campaign's language (French): the reader's, the standings'.
    assert "Vue du camp Légion astrale" in text and "Pillards" in text
    assert "Legione" not in text and "Predoni" not in text
    assert "Le récit" in text and "#1 " in text
    game = re.search(rf'<a href="(/game/{CAMPAIGN_GAME}/{ANNA}/[^"]+)"', text)
    assert game is not None  # the campaign's game, under the same reader's link
    assert (await client.get(game.group(1))).status == 200
    _, picture = await page(client, signer, "campaign", CAMPAIGN, ANNA, "/map.png")
    assert picture.startswith(PNG)
    # The game's page links back to its campaign.
    assert f"/campaign/{CAMPAIGN}/{ANNA}/" in (await (await client.get(game.group(1))).text())


async def test_tampered_and_expired_links_are_refused(client, signer) -> None:
    link = signer.link("game", GAME, ANNA)
    good = signer.relative(link)
    assert (await client.get(good)).status == 200
    as_bruno = good.replace(f"/{ANNA}/", f"/{BRUNO}/")
    assert (await client.get(as_bruno)).status == 403
    longer = good.replace(f"/{link.expires}/", f"/{link.expires + 1}/")
    assert (await client.get(longer)).status == 403
    other = good.replace(f"/{GAME}/", f"/{CAMPAIGN_GAME}/")
    assert (await client.get(other)).status == 403
    assert (await client.get(good[:-2] + "AA")).status == 403
    assert (await client.get(good.replace("/game/", "/campaign/"))).status == 403
    expired = signer.relative(Link("game", GAME, ANNA, 1_000))
    response = await client.get(expired)
    assert response.status == 403 and "expired" in (await response.text())
    assert (await client.get(expired + "/map.png")).status == 403


async def test_only_reading_is_answered(client, signer) -> None:
    good = signer.relative(signer.link("game", GAME, ANNA))
    for method in ("POST", "PUT", "DELETE", "PATCH"):
        response = await client.request(method, good)
        assert response.status == 405, method
        assert response.headers["Allow"] == "GET, HEAD"
    assert (await client.request("POST", "/elsewhere")).status == 405
    assert (await client.head(good)).status == 200
    assert (await client.get("/elsewhere")).status == 404


async def test_an_unchanged_page_is_not_sent_again(client, signer, table) -> None:
    good = signer.relative(signer.link("game", GAME, ANNA))
    first = await client.get(good)
    tag = first.headers["ETag"]
    again = await client.get(good, headers={"If-None-Match": tag})
    assert again.status == 304 and not await again.read()
    other_reader = await client.get(signer.relative(signer.link("game", GAME, BRUNO)))
    assert other_reader.headers["ETag"] != tag
    await table(GAME, REFEREE, "game.log")  # a read: the head is unchanged
    assert (await client.get(good, headers={"If-None-Match": tag})).status == 304
    await table(GAME, ANNA, "game.leave")  # a new event: a new head
    changed = await client.get(good, headers={"If-None-Match": tag})
    assert changed.status == 200 and changed.headers["ETag"] != tag


async def test_the_log_is_shown_page_by_page(client, signer, table) -> None:
    for _ in range(30):
        await table(GAME, REFEREE, "seat.remove", user=ANNA)
        await table(GAME, REFEREE, "seat.assign", user=ANNA, side="alleati")
    good = signer.relative(signer.link("game", GAME, ANNA))
    last = await (await client.get(good)).text()
    assert "Page 2 of 2" in last and 'id="e63"' in last and 'id="e50"' not in last
    # Bruno acted on no event of this page: his seat is named by the name he took it under.
    assert "Germans: &lt;script&gt;" in last and f"@{BRUNO}" not in last
    first = await (await client.get(good + "?page=1")).text()
    assert "Page 1 of 2" in first and 'id="e1"' in first and 'id="e51"' not in first
    assert f'href="{good}?page=2"' in first.replace("&amp;", "&")


async def test_no_page_shows_a_records_secret_salt(client, signer, store) -> None:
    """The salt hashed into each state (docs/integrity.md, "A seat's export") is the
    store's: no page or picture of a game or a campaign, for any reader, carries it."""
    salts = [(await store.export(channel)).state_salt for channel in (GAME, CAMPAIGN)]
    assert all(salt is not None and len(salt) == 64 for salt in salts)
    for kind, channel in (("game", GAME), ("campaign", CAMPAIGN)):
        for reader in (ANNA, BRUNO, REFEREE, None):
            for suffix in ("", "/map.png"):
                response, body = await page(client, signer, kind, channel, reader, suffix)
                assert response.status == 200, (kind, reader, suffix)
                assert not any(salt.encode() in body for salt in salts), (kind, reader)


async def test_the_dice_of_the_log_name_sides_in_the_page_s_language(client, signer, store) -> None:
    # The initiative's rolls name each side; stored, they keep the side's languages, so a
    # page read later says "Allies" in an English game, as the reply did (not "Alleati").
    dice = QueuedDice()
    service = GameService(store, dice=dice)
    channel = 3599

    async def send(user: int, verb: str, **options: object) -> None:
        await service.handle(Request(channel, user, verb, options, guild_id=7))

    await send(
        REFEREE, "game.new", ruleset="linea_gotica", scenario="gotica_retroguardia", language="en"
    )
    await send(ANNA, "game.join", side="alleati")
    await send(BRUNO, "game.join", side="tedeschi")
    dice.push(8, 3)
    await send(ANNA, "turn.next")
    response, body = await page(client, signer, "game", channel, ANNA)
    text = body.decode()
    assert response.status == 200
    assert "Initiative: Allies" in text and "won by Allies" in text
    assert "Alleati" not in text and "Tedeschi" not in text
