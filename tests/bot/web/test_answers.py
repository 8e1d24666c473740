"""The remembered pages (bot/web/answers.py) and the bound on requests answered at once:
a new event changes the page, no reader is ever given another's remembered page, an
expired link is refused with its page remembered, the memory is bounded, and past the
bound a reader gets 503 with Retry-After."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from types import SimpleNamespace

import pytest
from aiohttp.test_utils import TestClient, TestServer

import db.store as store_module
from bot.service import links
from bot.service.pages import GamePage
from bot.web import answers
from bot.web.app import RETRY_AFTER_S, WebPages
from bot.web.pages import Address
from rules.core.play import DocumentRules
from tests.bot.web.conftest import ANNA, BRUNO, GAME, HIDDEN, REFEREE

#: Two readers without a seat: they share what the service builds for no seat.
STRANGERS = (12345, 12346)


@pytest.fixture()
async def pages(store, signer, table) -> WebPages:
    return WebPages(store, signer, "en")


@pytest.fixture()
async def client(pages) -> AsyncIterator[TestClient]:
    async with TestClient(TestServer(pages.application())) as opened:
        yield opened


def log_ids(text: str) -> list[str]:
    return re.findall(r'id="(e\d+)"', text)


async def test_a_new_event_changes_a_remembered_page(client, signer, table) -> None:
    good = signer.relative(signer.link("game", GAME, ANNA))
    first = await client.get(good)
    before = await first.text()
    again = await client.get(good)  # remembered: the same page, the same tag
    assert await again.text() == before and again.headers["ETag"] == first.headers["ETag"]
    await table(GAME, REFEREE, "seat.remove", user=BRUNO)
    changed = await client.get(good)
    text = await changed.text()
    assert changed.headers["ETag"] != first.headers["ETag"]
    assert log_ids(text)[-1] != log_ids(before)[-1]  # the new event is on the page


async def test_no_reader_is_given_another_readers_remembered_page(client, signer) -> None:
    enemy = signer.relative(signer.link("game", GAME, ANNA))
    own = signer.relative(signer.link("game", GAME, BRUNO))
    for _ in range(2):  # built, then remembered: the same answer each time
        shown_enemy = await (await client.get(enemy)).text()
        shown_own = await (await client.get(own)).text()
        assert not any(name in shown_enemy for name in HIDDEN)
        assert all(name in shown_own for name in HIDDEN)
    # Two readers in the same (no) seat share the service's work, never the page: each
    # page's links are its own reader's.
    paths = [signer.relative(signer.link("game", GAME, user)) for user in STRANGERS]
    for _ in range(2):
        shown = [await (await client.get(path)).text() for path in paths]
        for path, other, text in zip(paths, reversed(paths), shown, strict=True):
            assert f'src="{path}/map.png"' in text and other not in text


async def test_an_expired_link_is_refused_with_its_page_remembered(
    client, signer, monkeypatch
) -> None:
    link = signer.link("game", GAME, ANNA)
    good = signer.relative(link)
    first = await client.get(good)
    assert first.status == 200
    tag = first.headers["ETag"]
    assert (await client.get(good, headers={"If-None-Match": tag})).status == 304
    later = SimpleNamespace(time=lambda: link.expires + 1.0)
    monkeypatch.setattr(links, "time", later)
    for held in ({}, {"If-None-Match": tag}):
        refused = await client.get(good, headers=held)
        assert refused.status == 403 and "expired" in await refused.text()
        assert "ETag" not in refused.headers
        assert (await client.get(good + "/map.png", headers=held)).status == 403


async def test_the_memory_of_pages_is_bounded_least_recently_used_first(
    client, signer, pages, monkeypatch
) -> None:
    monkeypatch.setattr(answers, "CACHE_ENTRIES", 2)
    paths = [signer.relative(signer.link("game", GAME, user)) for user in (ANNA, BRUNO, REFEREE)]
    tags = [(await client.get(path)).headers["ETag"] for path in paths]
    remembered = pages._builder._cache
    assert list(remembered) == tags[1:]
    await client.get(paths[1])  # used again: now the most recent
    await client.get(paths[0])  # built again, the least recently used forgotten
    assert list(remembered) == [tags[1], tags[0]]


async def test_a_game_s_older_heads_are_forgotten_together_once_it_has_moved_on(
    client, signer, pages, table, store
) -> None:
    """What is built for a seat is kept for the head read now and the one before: the
    head is in every ETag, so no reader asks for an older one again."""
    built = pages._builder._built
    paths = [signer.relative(signer.link("game", GAME, user)) for user in (ANNA, BRUNO)]
    heads = []
    for verb, options in (("seat.remove", {}), ("seat.assign", {"side": "tedeschi"})):
        for path in paths:
            await client.get(path)
            await client.get(path + "/map.png")
        heads.append((await store.load(GAME)).head_hash)
        await table(GAME, REFEREE, verb, user=BRUNO, **options)
    for path in paths:
        await client.get(path)
    heads.append((await store.load(GAME)).head_hash)
    assert len(set(heads)) == 3 and list(built) == [(GAME, head) for head in heads[1:]]
    # Each head's builds for each of the two seats: a page and its layout, and a picture
    # (none asked for at the last head).
    assert [len(builds) for builds in built.values()] == [6, 4]


async def test_past_the_bound_a_reader_is_told_to_come_back(client, signer, pages) -> None:
    pages.pending = 1
    builder = pages._builder
    answer = builder.answer
    release = asyncio.Event()
    started = asyncio.Event()

    async def held_up(*arguments):  # the first request holds its place until released
        started.set()
        await release.wait()
        return await answer(*arguments)

    builder.answer = held_up  # type: ignore[method-assign]
    good = signer.relative(signer.link("game", GAME, ANNA))
    first = asyncio.ensure_future(client.get(good))
    await started.wait()
    busy = await client.get(good)
    assert busy.status == 503 and busy.headers["Retry-After"] == str(RETRY_AFTER_S)
    assert "Too many readers" in await busy.text()
    release.set()
    assert (await first).status == 200
    builder.answer = answer  # type: ignore[method-assign]
    assert (await client.get(good)).status == 200  # the place was given back


async def test_a_picture_is_drawn_once_per_view_it_shows(
    client, signer, table, monkeypatch
) -> None:
    drawn: list[bool] = []
    real = answers.render_map

    def counting(view, language, *, public):
        drawn.append(public)
        return real(view, language, public=public)

    monkeypatch.setattr(answers, "render_map", counting)
    enemy = signer.relative(signer.link("game", GAME, ANNA)) + "/map.png"
    own = signer.relative(signer.link("game", GAME, BRUNO)) + "/map.png"
    first = await client.get(enemy)
    picture = await first.read()
    public = set()
    for user in STRANGERS:  # nobody's seat: the public picture, drawn once for both
        path = signer.relative(signer.link("game", GAME, user)) + "/map.png"
        public.add(await (await client.get(path)).read())
    assert len(public) == 1
    assert (await (await client.get(own)).read()) != picture  # Bruno's own seat: drawn
    assert len(drawn) == 3  # Anna's seat, nobody's (public), Bruno's
    await table(GAME, REFEREE, "seat.remove", user=BRUNO)  # nothing on the table changes
    again = await client.get(enemy)
    assert again.headers["ETag"] != first.headers["ETag"]
    assert await again.read() == picture and len(drawn) == 3


async def test_a_page_is_laid_out_once_for_every_reader_of_a_seat(
    client, signer, pages, monkeypatch
) -> None:
    """Fifty readers refreshing after a command: the template runs once for the seat, each
    reader's page then given its own links (escaped as the template escapes them)."""
    laid_out: list[int] = []
    real = answers.game_html

    def counting(page, address):
        laid_out.append(page.page)
        return real(page, address)

    monkeypatch.setattr(answers, "game_html", counting)
    paths = [signer.relative(signer.link("game", GAME, user)) for user in STRANGERS]
    shown = [await (await client.get(path)).text() for path in paths]
    assert len(laid_out) == 1
    for path, other, text in zip(paths, reversed(paths), shown, strict=True):
        assert f'src="{path}/map.png"' in text and other not in text
        assert "arbitro-link-" not in text
    # Each reader's page is the one the template gives for that reader's own links.
    built = [each.result() for builds in pages._builder._built.values() for each in builds.values()]
    page = next(each for each in built if isinstance(each, GamePage))
    assert page.pages == 1 and page.campaign is None  # no other page to link to
    alone = real(page, Address(paths[1], paths[1] + "/map.png", {}))
    assert shown[1] == alone


async def test_a_game_is_validated_once_for_every_seat_and_head_of_one_document(
    client, signer, table, monkeypatch
) -> None:
    """Every seat's page and picture at a head read one validated state, and so does a new
    head that left the document as it was (a seat given up), whose stored text is not even
    parsed again: only a new document is validated again."""
    parsed: list[str] = []
    parse = store_module.parse_kept
    monkeypatch.setattr(store_module, "parse_kept", lambda text: parsed.append(text) or parse(text))
    validated: list[int] = []
    real = DocumentRules._load_state

    def counting(rules, document):
        validated.append(id(document))
        return real(rules, document)

    monkeypatch.setattr(DocumentRules, "_load_state", counting)
    readers = (ANNA, BRUNO, REFEREE, *STRANGERS)
    paths = [signer.relative(signer.link("game", GAME, user)) for user in readers]

    async def validations_of_a_read() -> int:
        """How many states every reader's page and picture validated, read once each."""
        validated.clear()
        parsed.clear()
        for path in paths:
            for end in ("", "/map.png"):
                assert (await client.get(path + end)).status == 200
        return len(validated)

    assert await validations_of_a_read() == 1
    await table(GAME, REFEREE, "seat.remove", user=ANNA)  # the game's document unchanged
    assert await validations_of_a_read() == 0 and parsed == []
    table.service._services.dice.push(8, 3)
    await table(GAME, BRUNO, "turn.next")  # the initiative rolled: a new document
    assert await validations_of_a_read() == 1


async def test_a_refresh_after_an_undo_shows_the_state_and_log_of_the_new_head(
    client, signer, table
) -> None:
    """The validated state kept by its document is never shown for another: a command's
    page shows what it did, and after the referee's undo the earlier state again, with the
    undo in the log (the picture back as it was)."""
    good = signer.relative(signer.link("game", GAME, ANNA))
    before = await (await client.get(good)).text()
    picture = await (await client.get(good + "/map.png")).read()
    assert "Turn 1 — Initiative — to move: —" in before
    table.service._services.dice.push(8, 3)
    await table(GAME, ANNA, "turn.next")
    played = await (await client.get(good)).text()
    assert "Choosing the movement order — to move: Allies" in played
    assert "Initiative — to move" not in played and log_ids(played)[-1] == "e4"
    await table(GAME, REFEREE, "game.undo")
    undone = await (await client.get(good)).text()
    assert "Turn 1 — Initiative — to move: —" in undone
    assert "Choosing the movement order" not in undone
    assert log_ids(undone)[-2:] == ["e4", "e5"] and "/undo undone_seq:4" in undone
    assert await (await client.get(good + "/map.png")).read() == picture
