"""Pages built in a page process of its own (bot/web/processes.py): the same pages as the
server's own threads build, each reader's redaction kept, a new event seen, an expired link
refused, and the process's store closed with the server."""

from __future__ import annotations

import multiprocessing
from types import SimpleNamespace

from aiohttp import ClientSession
from aiohttp.test_utils import TestClient, TestServer

from bot.web import links
from bot.web.app import WebPages, start_web
from tests.bot.web.conftest import ANNA, BRUNO, CAMPAIGN, GAME, HIDDEN, REFEREE

PNG = b"\x89PNG\r\n\x1a\n"


async def test_a_page_process_builds_what_the_server_would(
    store, signer, table, monkeypatch
) -> None:
    here = WebPages(store, signer, "en")
    apart = WebPages(store, signer, "en", database=store.path, processes=1)
    readers = (ANNA, BRUNO, REFEREE, None)
    async with (
        TestClient(TestServer(here.application())) as local,
        TestClient(TestServer(apart.application())) as remote,
    ):
        for kind, channel in (("game", GAME), ("campaign", CAMPAIGN)):
            for reader in readers:
                path = signer.relative(signer.link(kind, channel, reader))
                expected, got = await local.get(path), await remote.get(path)
                assert got.status == 200 and got.headers["ETag"] == expected.headers["ETag"]
                assert await got.text() == await expected.text(), (kind, reader)
        enemy = await (await remote.get(signer.relative(signer.link("game", GAME, ANNA)))).text()
        assert not any(name in enemy for name in HIDDEN)
        own_path = signer.relative(signer.link("game", GAME, BRUNO))
        own = await remote.get(own_path)
        own_text = await own.text()
        assert all(name in own_text for name in HIDDEN)
        picture = await remote.get(own_path + "/map.png")
        assert picture.status == 200 and (await picture.read()).startswith(PNG)
        tag = own.headers["ETag"]
        assert (await remote.get(own_path, headers={"If-None-Match": tag})).status == 304
        await table(GAME, REFEREE, "seat.remove", user=ANNA)  # written by the bot's process
        changed = await remote.get(own_path, headers={"If-None-Match": tag})
        assert changed.status == 200 and changed.headers["ETag"] != tag
        await apart.forget()  # built again: the same page
        again = await remote.get(own_path)
        assert again.headers["ETag"] == changed.headers["ETag"]
        assert await again.text() == await changed.text()
        link = signer.link("game", GAME, BRUNO)
        monkeypatch.setattr(links, "time", SimpleNamespace(time=lambda: link.expires + 1.0))
        assert (await remote.get(own_path)).status == 403
    # The server closed: its page process is gone, the bot's store still answers.
    assert (await store.load(GAME)).version > 0


async def test_the_server_beside_a_bot_builds_its_pages_in_a_page_process(
    store, signer, table
) -> None:
    before = set(multiprocessing.active_children())
    server = await start_web(store, signer, "127.0.0.1", 0, "en", store.path)
    try:
        host, port = server.runner.addresses[0][:2]
        async with ClientSession() as session:
            for reader, shown in ((ANNA, False), (BRUNO, True)):
                path = signer.relative(signer.link("game", GAME, reader))
                async with session.get(f"http://{host}:{port}{path}") as response:
                    text = await response.text()
                    assert response.status == 200
                    assert all((name in text) is shown for name in HIDDEN), reader
        assert set(multiprocessing.active_children()) - before  # the page process
    finally:
        await server.stop()
