"""The pictures' processes: drawn in a worker (the same bytes as on a thread), the views
pickle, a broken pool falls back to a thread, ``workers=0`` draws on a thread, no worker
outlives its pool or its parent (even killed)."""

from __future__ import annotations

import asyncio
import logging
import os
import pickle
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest

from bot.app.settings import Settings
from bot.render.campaign_map import campaign_map_png
from bot.render.map import render_map
from bot.render.pictures import picture_pool, worker_pid
from bot.render.pool import DEFAULT_WORKERS, STOP_WAIT_S, PicturePool
from rules.campaign.story import CampaignMap, MapArea
from rules.core.battlefield import MapView
from rules.core.play import DocumentRules
from rules.core.ruleset import KNOWN_RULESETS, get_ruleset
from rules.core.seatview import REFEREE
from tests.processes import alive, gone_within
from tests.rulesets import fact

ROOT = Path(__file__).resolve().parents[3]
#: How long a worker may take to go once its pool or its parent is gone.
GONE_WITHIN_S = 10.0


def battlefield(ruleset: str) -> MapView:
    """The referee's map of the ruleset's battlefield, as the service gives it."""
    play = get_ruleset(ruleset).rules
    assert isinstance(play, DocumentRules)
    view = play.view(play.setup(fact(ruleset, "BATTLEFIELD")), REFEREE).map("en")
    assert view is not None
    return view


CAMPAIGN = CampaignMap(
    title="Linea Gotica — autunno",
    areas=(
        MapArea(name="Passo", holder="alleati", holder_name="Alleati", contested=True),
        MapArea(name="Valle", holder="asse", holder_name="Asse", contested=False),
    ),
    sides={"alleati": "Alleati", "asse": "Asse"},
    language="it",
)


@pytest.fixture(scope="module")
def pool() -> Iterator[PicturePool]:
    """One pool for the module's drawings (workers are spawned: a second each)."""
    pictures = PicturePool(1)
    yield pictures
    pictures.shutdown()


@pytest.mark.parametrize("ruleset", KNOWN_RULESETS)
def test_every_rulesets_map_view_pickles(ruleset: str):
    view = battlefield(ruleset)
    assert pickle.loads(pickle.dumps(view)) == view


def test_the_campaign_map_pickles():
    assert pickle.loads(pickle.dumps(CAMPAIGN)) == CAMPAIGN


async def test_a_map_is_drawn_in_another_process_with_the_threads_bytes(pool: PicturePool):
    view = battlefield("manovra")
    assert await pool.run(worker_pid) != os.getpid()
    drawn = await pool.run(render_map, view, "fr", public=True)
    assert drawn == render_map(view, "fr", public=True)
    assert await pool.run(campaign_map_png, CAMPAIGN) == campaign_map_png(CAMPAIGN)


async def test_the_workers_run_at_a_lower_priority(pool: PicturePool):
    assert await pool.run(os.nice, 0) == os.nice(0) + min(pool.nice, 19 - os.nice(0))


async def test_a_broken_pool_draws_on_a_thread_then_starts_again(caplog):
    pictures = PicturePool(1)
    try:
        first = await pictures.run(worker_pid)
        os.kill(first, signal.SIGKILL)
        assert gone_within({first}, GONE_WITHIN_S)
        with caplog.at_level(logging.ERROR, logger="bot.render.pool"):
            assert await pictures.run(worker_pid) == os.getpid()  # on a thread
        assert "the pool is broken" in caplog.text
        again = await pictures.run(worker_pid)
        assert again not in (first, os.getpid())
    finally:
        pictures.shutdown()


async def test_what_does_not_pickle_is_drawn_on_a_thread(pool: PicturePool, caplog):
    with caplog.at_level(logging.ERROR, logger="bot.render.pool"):
        assert await pool.run(lambda: os.getpid()) == os.getpid()
    assert "once more on a thread" in caplog.text
    assert await pool.run(worker_pid) != os.getpid()  # the pool still draws


async def test_no_workers_draws_on_a_thread():
    pictures = PicturePool(0)
    assert await pictures.run(worker_pid) == os.getpid()
    pictures.warm(worker_pid)
    pictures.shutdown()


def test_the_setting_chooses_the_workers(monkeypatch):
    monkeypatch.setenv("ARBITRO_PICTURE_WORKERS", "0")
    assert Settings().picture_workers == 0
    monkeypatch.setenv("ARBITRO_PICTURE_WORKERS", "")
    assert Settings().picture_workers == DEFAULT_WORKERS == picture_pool().workers


async def test_no_worker_is_left_after_shutdown():
    pictures = PicturePool(1)
    pid = await pictures.run(worker_pid)
    await pictures.stop()
    assert not alive(pid)


async def test_a_worker_busy_at_the_stop_is_ended_in_time():
    pictures = PicturePool(1)
    pid = await pictures.run(worker_pid)
    drawing = asyncio.ensure_future(pictures.run(time.sleep, 60))
    waiting = [asyncio.ensure_future(pictures.run(time.sleep, 60)) for _ in range(3)]
    await asyncio.sleep(0.2)  # the worker has the first, the others wait their turn
    started = time.monotonic()
    await pictures.stop()
    assert time.monotonic() - started < STOP_WAIT_S + 1.0
    assert not alive(pid)
    # Not drawn again on a thread (we are stopping), and a failure to draw for their callers,
    # not a cancellation of them.
    for outcome in await asyncio.gather(drawing, *waiting, return_exceptions=True):
        assert isinstance(outcome, BrokenProcessPool)


WORKER_OF_A_KILLED_PARENT = """
import asyncio, sys, time
from bot.render.pictures import worker_pid
from bot.render.pool import DEFAULT_WORKERS, STOP_WAIT_S, PicturePool
pid = asyncio.run(PicturePool(1).run(worker_pid))
print(pid, flush=True)
time.sleep(60)
"""


def test_the_workers_end_when_their_parent_is_killed():
    parent = subprocess.Popen(
        [sys.executable, "-c", WORKER_OF_A_KILLED_PARENT],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        assert parent.stdout is not None
        worker = int(parent.stdout.readline())
        assert alive(worker)
        parent.kill()
        parent.wait()
        assert gone_within({worker}, GONE_WITHIN_S)
    finally:
        parent.kill()
        parent.wait()
