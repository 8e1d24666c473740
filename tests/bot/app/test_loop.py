"""The event loop every process runs (bot/app/loop.py): uvloop's unless
``ARBITRO_EVENT_LOOP=asyncio`` or uvloop is missing; the entry points and the tests run on it.
(`arbitro run` as a process: tests/bot/app/test_lifecycle.py.)"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
import uvloop

from bot.app import loop
from bot.app import main as app_main
from bot.app.main import build_parser, main


async def running_loop() -> asyncio.AbstractEventLoop:
    return asyncio.get_running_loop()


@pytest.fixture
def default_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(loop.EVENT_LOOP_ENV, raising=False)


@pytest.mark.usefixtures("default_loop")
def test_run_runs_on_uvloop_by_default() -> None:
    assert loop.loop_name() == "uvloop"
    ran_on = loop.run(running_loop())
    assert isinstance(ran_on, uvloop.Loop) and ran_on.is_closed()


def test_arbitro_event_loop_asyncio_runs_asyncios_own_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(loop.EVENT_LOOP_ENV, " AsyncIO ")
    ran_on = loop.run(running_loop())
    assert isinstance(ran_on, asyncio.SelectorEventLoop)
    assert not isinstance(ran_on, uvloop.Loop)
    assert loop.loop_name() == "asyncio"


@pytest.mark.usefixtures("default_loop")
def test_without_uvloop_installed_asyncios_loop_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(loop, "uvloop", None)
    assert loop.loop_name() == "asyncio"
    assert not isinstance(loop.run(running_loop()), uvloop.Loop)


def test_an_unknown_loop_is_refused_naming_the_variable_and_the_coroutine_closed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(loop.EVENT_LOOP_ENV, "trio")
    never_started = running_loop()
    with pytest.raises(loop.EventLoopChoiceError, match=r"ARBITRO_EVENT_LOOP='trio'.*uvloop"):
        loop.run(never_started)
    assert never_started.cr_frame is None  # closed: no "never awaited" warning


async def test_the_tests_coroutines_run_on_the_loop_production_runs() -> None:
    # tests/conftest.py hands pytest-asyncio bot.app.loop's factory.
    kind = uvloop.Loop if loop.loop_name() == "uvloop" else asyncio.SelectorEventLoop
    assert isinstance(asyncio.get_running_loop(), kind)


def _console_reporting_its_loop(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> list[asyncio.AbstractEventLoop]:
    """``arbitro console`` on a fresh file, its table replaced by one that notes its loop."""
    monkeypatch.setenv("ARBITRO_PICTURE_WORKERS", "0")
    monkeypatch.delenv("ARBITRO_WEB_URL", raising=False)
    seen: list[asyncio.AbstractEventLoop] = []

    async def table(*_: Any, **__: Any) -> int:
        seen.append(asyncio.get_running_loop())
        return 0

    monkeypatch.setattr(app_main, "run_console", table)
    assert main(["console", "--db", str(tmp_path / "arbitro.db")]) == 0
    return seen


@pytest.mark.usefixtures("default_loop")
def test_the_console_runs_on_uvloop(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    [seen] = _console_reporting_its_loop(monkeypatch, tmp_path)
    assert isinstance(seen, uvloop.Loop)


def test_the_console_runs_on_asyncio_when_asked(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(loop.EVENT_LOOP_ENV, "asyncio")
    [seen] = _console_reporting_its_loop(monkeypatch, tmp_path)
    assert not isinstance(seen, uvloop.Loop)


def test_an_unknown_loop_is_one_line_and_status_2(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(loop.EVENT_LOOP_ENV, "tokio")
    assert main(["db", "migrate", "--db", str(tmp_path / "arbitro.db")]) == 2
    assert capsys.readouterr().err == (
        "arbitro: ARBITRO_EVENT_LOOP='tokio' is not one of uvloop, asyncio\n"
    )
    assert not (tmp_path / "arbitro.db").exists()


def test_the_database_tools_run_on_the_apps_loop() -> None:
    for command in (["db", "migrate"], ["db", "check"], ["db", "replay"]):
        assert build_parser().parse_args(command).run_coroutine is loop.run
