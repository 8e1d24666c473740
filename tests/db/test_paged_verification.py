"""A long history is verified page by page, outside the command's transaction.

The first time a process touches a game whose log is longer than `db.store.LONG_HISTORY`,
its history is read ``VERIFY_PAGE`` versions at a time, as separate short reads, and hashed
on a worker thread between them (`CoreStore._verify_long_history`): every edit the
whole-history check refuses is still refused, naming the same event, no read holds more
than a page, and another channel is served while the verification is under way. The
limits are lowered here so that the 40-version games of test_verified_chain.py count as
long.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import pytest

import db.store as store_module
from db.core import verify
from db.errors import ChainBroken
from db.models import NewEvent
from tests.db.conftest import Backend
from tests.db.test_verified_chain import CLEAN, EDITS, HEAD, TAMPERED, names, tamper, two_games

PAGE = 8


@pytest.fixture(autouse=True)
def short_pages(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int, int]]:
    """A history of more than 16 versions counts as long; pages of 8 versions. Each page
    read is recorded: (events, whole documents, patches)."""
    monkeypatch.setattr(store_module, "LONG_HISTORY", 16)
    monkeypatch.setattr(store_module, "VERIFY_PAGE", PAGE)
    reads: list[tuple[int, int, int]] = []
    original = verify.page_rows

    def counted(channel_id: int, first: int, last: int, head: int) -> Any:
        answer = yield from original(channel_id, first, last, head)
        reads.append((len(answer[0]), len(answer[1]), len(answer[2])))
        return answer

    monkeypatch.setattr(verify, "page_rows", counted)
    return reads


async def test_a_long_history_is_read_in_bounded_pages(
    backend: Backend, short_pages: list[tuple[int, int, int]]
) -> None:
    await two_games(backend)
    async with await backend.open() as store:  # a process that never saw the game
        record = await store.load(CLEAN)
        assert record.version == HEAD
        # 40 versions, 8 a page: 5 reads, none holding more than a page.
        assert len(short_pages) == HEAD // PAGE
        assert all(events <= PAGE and patches <= PAGE for events, _, patches in short_pages)
        assert sum(events for events, _, _ in short_pages) == HEAD
        assert sum(patches for _, _, patches in short_pages) == HEAD - 1
        # Verified once: the next command reads no page again.
        await store.commit(CLEAN, HEAD, {"turn": 41}, NewEvent(verb="advance"))
        assert (await store.state_at(CLEAN, 16)).document["turn"] == 16
        assert len(short_pages) == HEAD // PAGE


@pytest.mark.parametrize("edit", sorted(EDITS))
async def test_every_edit_is_refused_by_the_paged_verification(
    backend: Backend, edit: str, short_pages: list[tuple[int, int, int]]
) -> None:
    await two_games(backend)
    first_bad = await tamper(backend, edit)
    async with await backend.open() as store:
        reads: dict[str, Callable[[], Any]] = {
            "load": lambda: store.load(TAMPERED),
            "open_command": lambda: store.open_command(TAMPERED),
            "state_at 38": lambda: store.state_at(TAMPERED, 38),
            "commit": lambda: store.commit(
                TAMPERED, HEAD, {"turn": 41}, NewEvent(verb="advance", dice=[3])
            ),
            "undo": lambda: store.undo(TAMPERED),
        }
        for name, read in reads.items():
            with pytest.raises(ChainBroken) as caught:
                await read()
            assert names(caught.value, first_bad), (name, caught.value)
        assert short_pages, "the paged verification did not run"
        assert (await store.load(CLEAN)).version == HEAD


async def test_a_state_beyond_the_head_is_refused_by_the_paged_verification(
    backend: Backend,
) -> None:
    await two_games(backend)
    column = backend.document_column
    await backend.tamper(
        f"INSERT INTO states (channel_id, version, status, {column}) "
        f"SELECT channel_id, {HEAD + 5}, status, {column} FROM states "
        f"WHERE channel_id = {TAMPERED} AND version = 1"
    )
    async with await backend.open() as store:
        with pytest.raises(ChainBroken) as caught:
            await store.load(TAMPERED)
        assert caught.value.seq == HEAD


async def test_another_channel_is_served_while_a_long_history_is_verified(
    backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    await two_games(backend)
    hashing = threading.Event()
    release = threading.Event()
    original = store_module.verify_page

    def held(*args: Any, **kwargs: Any) -> Any:
        if kwargs["first"] > 1:  # the second page waits until the other channel was served
            hashing.set()
            assert release.wait(10), "the other channel was not served meanwhile"
        return original(*args, **kwargs)

    monkeypatch.setattr(store_module, "verify_page", held)
    async with await backend.open() as store:
        release.set()
        await store.load(CLEAN)  # verified first, its pages not held
        release.clear()
        hashing.clear()
        first_touch = asyncio.ensure_future(store.load(TAMPERED))
        assert await asyncio.to_thread(hashing.wait, 10)
        other = await asyncio.wait_for(store.open_command(CLEAN), 5)
        assert other.record.version == HEAD and not first_touch.done()
        release.set()
        assert (await first_touch).version == HEAD
