"""A long history is verified on first touch: its event chain at once, its states in the
background (`db.chain.long_history`).

The first time a process touches a game whose log is longer than
`db.chain.long_history.LONG_HISTORY`, the operation waits for its events only, read
``EVENT_PAGE`` at a time and hashed on a worker thread between reads; the states are then
read ``VERIFY_PAGE`` versions at a time in a background task. Every edit the whole-history
check refuses is still refused, naming the same event: an edited event before the first
command, an edited state as soon as the background check finds it (and from then on, even
once the refusal has expired); no read holds more than a page, and another channel — and
the game's own next command — is served while the states are checked. The limits are
lowered here so that the 40-version games of test_verified_chain.py count as long.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

import db.chain.long_history as long_history
from db.chain import verify as chain
from db.core import verify
from db.errors import ChainBroken
from db.models import NewEvent
from tests.db.chain.test_verify import (
    CLEAN,
    EDITS,
    HEAD,
    TAMPERED,
    names,
    tamper,
    two_games,
    version_of,
)
from tests.db.conftest import Backend

PAGE = 8
EVENT_PAGE = 16
#: The edits the event chain shows (refused before the first command); the others are
#: edits of states, found by the background check.
EVENT_EDITS = ("an event's args in the middle", "an event's dice in the middle")


@pytest.fixture(autouse=True)
def short_pages(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int, int]]:
    """A history of more than 16 versions counts as long; pages of 8 versions (16 events
    for the event chain). Each page read of the states' check is recorded: (events, whole
    documents, patches)."""
    monkeypatch.setattr(long_history, "LONG_HISTORY", 16)
    monkeypatch.setattr(long_history, "VERIFY_PAGE", PAGE)
    monkeypatch.setattr(long_history, "EVENT_PAGE", EVENT_PAGE)
    reads: list[tuple[int, int, int]] = []
    original = verify.page_rows

    def counted(channel_id: int, first: int, last: int, head: int) -> Any:
        answer = yield from original(channel_id, first, last, head)
        reads.append((len(answer[0]), len(answer[1]), len(answer[2])))
        return answer

    monkeypatch.setattr(verify, "page_rows", counted)
    return reads


async def test_a_long_history_is_read_in_bounded_pages(
    backend: Backend, short_pages: list[tuple[int, int, int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    event_reads: list[int] = []
    original = verify.event_page

    def counted(channel_id: int, first: int, last: int) -> Any:
        rows, salt = yield from original(channel_id, first, last)
        event_reads.append(len(rows))
        return rows, salt

    monkeypatch.setattr(verify, "event_page", counted)
    await two_games(backend)
    async with await backend.open() as store:  # a process that never saw the game
        record = await store.load(CLEAN)
        assert record.version == HEAD
        # The event chain: 40 events, 16 a read.
        assert event_reads == [16, 16, 8]
        await store.history_checks()
        # The states: 40 versions, 8 a page: 5 reads, none holding more than a page.
        assert len(short_pages) == HEAD // PAGE
        assert all(events <= PAGE and patches <= PAGE for events, _, patches in short_pages)
        assert sum(events for events, _, _ in short_pages) == HEAD
        assert sum(patches for _, _, patches in short_pages) == HEAD - 1
        # Verified once: the next command reads no page again.
        await store.commit(CLEAN, HEAD, {"turn": 41}, NewEvent(verb="advance"))
        assert (await store.state_at(CLEAN, 16)).document["turn"] == 16
        await store.history_checks()
        assert len(short_pages) == HEAD // PAGE and len(event_reads) == 3


@pytest.mark.parametrize("edit", sorted(EDITS))
async def test_every_edit_is_refused_by_the_paged_verification(
    backend: Backend,
    edit: str,
    short_pages: list[tuple[int, int, int]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    await two_games(backend)
    first_bad = await tamper(backend, edit)
    async with await backend.open() as store:
        if edit not in EVENT_EDITS:
            # The head is genuine and the events too: the first command is served, and
            # the background check of the states finds the edit.
            assert (await store.load(TAMPERED)).version == HEAD
            await store.history_checks()
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
        assert short_pages or edit in EVENT_EDITS, "the states were not checked"
        # Once the refusal expires, the game is verified whole again before it is used:
        # never its events alone, which are genuine.
        later = chain.time.monotonic() + 3600
        monkeypatch.setattr(chain.time, "monotonic", lambda: later)
        with pytest.raises(ChainBroken) as caught:
            await store.open_command(TAMPERED)
        assert names(caught.value, first_bad), caught.value
        assert (await store.load(CLEAN)).version == HEAD
        problems = await store.check()
        assert problems[0] == str(ChainBroken(TAMPERED, first_bad, caught.value.detail))


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
        await store.load(TAMPERED)
        await store.history_checks()
        with pytest.raises(ChainBroken) as caught:
            await store.load(TAMPERED)
        assert caught.value.seq == HEAD


async def test_a_state_edit_found_after_commands_refuses_the_head_they_made(
    backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The game's own commands go on while its states are checked; when the check fails,
    the game is refused at the head they reached, and nothing more is written."""
    await two_games(backend)
    first_bad = await tamper(backend, "a patch in the middle")
    release = threading.Event()
    original = long_history.verify_page

    def held(*args: Any, **kwargs: Any) -> Any:
        assert release.wait(10), "the commands were not served meanwhile"
        return original(*args, **kwargs)

    monkeypatch.setattr(long_history, "verify_page", held)
    async with await backend.open() as store:
        version = (await store.open_command(TAMPERED)).record.version
        for turn in range(3):
            event = NewEvent(verb="advance", args={"turn": turn})
            version = (await store.commit(TAMPERED, version, {"turn": turn}, event)).version
        release.set()
        await store.history_checks()
        with pytest.raises(ChainBroken) as caught:
            await store.commit(TAMPERED, version, {"turn": 9}, NewEvent(verb="advance"))
        assert names(caught.value, first_bad), caught.value
        assert await version_of(store, TAMPERED) == HEAD + 3


async def test_another_channel_is_served_while_a_long_history_is_verified(
    backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the event chain is hashed the other channel is served; while the states are
    checked, the other channel and the game itself."""
    await two_games(backend)
    hashing = threading.Event()
    release = threading.Event()

    def holding(original: Callable[..., Any]) -> Callable[..., Any]:
        def held(*args: Any, **kwargs: Any) -> Any:
            if kwargs["first"] > 1:  # the second page waits until the others were served
                hashing.set()
                assert release.wait(10), "the other channel was not served meanwhile"
            return original(*args, **kwargs)

        return held

    monkeypatch.setattr(long_history, "verify_events", holding(long_history.verify_events))
    monkeypatch.setattr(long_history, "verify_page", holding(long_history.verify_page))
    async with await backend.open() as store:
        release.set()
        await store.load(CLEAN)  # verified first, its pages not held
        await store.history_checks()
        release.clear()
        hashing.clear()
        first_touch = asyncio.ensure_future(store.load(TAMPERED))
        assert await asyncio.to_thread(hashing.wait, 10)
        other = await asyncio.wait_for(store.open_command(CLEAN), 5)
        assert other.record.version == HEAD and not first_touch.done()
        hashing.clear()
        release.set()
        assert (await first_touch).version == HEAD
        # The events are verified; the states' check now waits at its second page.
        release.clear()
        assert await asyncio.to_thread(hashing.wait, 10)
        mine = await asyncio.wait_for(store.open_command(TAMPERED), 5)
        other = await asyncio.wait_for(store.open_command(CLEAN), 5)
        assert mine.record.version == other.record.version == HEAD
        release.set()
        await store.history_checks()


async def test_the_background_checks_run_one_at_a_time(
    backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A restart touching many long games queues their states' checks: one hashes at a
    time, the worker threads stay free for the other channels' commands."""
    await two_games(backend)
    lock = threading.Lock()
    running = [0]
    most = [0]
    original = long_history.verify_page

    def counted(*args: Any, **kwargs: Any) -> Any:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        try:
            time.sleep(0.02)  # long enough for a second check to overlap, were it let
            return original(*args, **kwargs)
        finally:
            with lock:
                running[0] -= 1

    monkeypatch.setattr(long_history, "verify_page", counted)
    async with await backend.open() as store:
        await asyncio.gather(store.load(TAMPERED), store.load(CLEAN))
        await store.history_checks()
    assert most[0] == 1
