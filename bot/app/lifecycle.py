"""``arbitro run``: start the bot, keep its heartbeat, and stop it cleanly on a signal.

A container stops its main process with SIGTERM and kills it 10 s later. Python leaves
SIGTERM at its default action, and a process running as PID 1 (``docker run`` without
``--init``) ignores signals whose action is the default — so the bot would wait out the
10 s and die mid-write. :func:`serve` therefore installs explicit SIGTERM and SIGINT
handlers in the event loop. On either signal it:

1. stops accepting commands (a new one gets a polite "restarting" refusal) and waits up
   to :data:`DRAIN_SECONDS` for the commands already running to finish;
2. closes the Discord connection (at most :data:`DISCONNECT_SECONDS`);
3. closes the store, whose queued transactions finish first (at most
   :data:`STORE_CLOSE_SECONDS`); the last close checkpoints the WAL and removes it;
4. removes the heartbeat file and returns 0 — well inside 2 s in all.

A command still running past the drain finishes or fails on its own: the store runs each
transaction to COMMIT or ROLLBACK, so nothing is ever half-written.

Failing to start (Discord unreachable, a refused token) is one line on stderr and a
non-zero exit status (:class:`StartError`), not a traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Callable, Coroutine
from typing import Any

import aiohttp
import discord

from bot.app.heartbeat import remove_beat, stamp_while_connected
from bot.app.settings import Settings
from bot.app.warmup import settle_heap
from bot.discord.client import ArbitroBot, build_bot
from bot.render.pictures import start_pictures, stop_pictures
from bot.service import GameService
from bot.service.limits import LogLimits
from bot.web.beside import web_beside
from db.open import open_store

log = logging.getLogger("bot.app.lifecycle")

DRAIN_SECONDS = 1.0
DISCONNECT_SECONDS = 0.4
STORE_CLOSE_SECONDS = 0.4

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_CONFIGURATION = 2

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)

#: Runs the bot until it is closed: ``bot.start(token)`` or the offline double.
Connector = Callable[[ArbitroBot], Coroutine[Any, Any, None]]


class StartError(RuntimeError):
    """The bot could not connect; ``str()`` is one line, ``exit_status`` the exit code."""

    def __init__(self, message: str, exit_status: int = EXIT_FAILED) -> None:
        super().__init__(message)
        self.exit_status = exit_status


def explain_gateway_failure(error: BaseException) -> StartError:
    """One line for what stopped the connection (a refused token, no network, an outage)."""
    if isinstance(error, discord.LoginFailure):
        return StartError(
            "Discord refused the token (DISCORD_TOKEN): copy it again from the developer portal",
            EXIT_CONFIGURATION,
        )
    if isinstance(error, discord.PrivilegedIntentsRequired):
        return StartError(
            "Discord refused a privileged intent: check the bot's settings in the portal",
            EXIT_CONFIGURATION,
        )
    if isinstance(error, discord.GatewayNotFound):
        return StartError("Discord's gateway is unavailable (an outage?); try again later")
    if isinstance(error, discord.HTTPException):
        return StartError(f"Discord answered {error.status}: {error.text or error}".strip())
    if isinstance(error, discord.ConnectionClosed):
        return StartError(f"Discord closed the connection (code {error.code}): {error.reason}")
    if isinstance(error, aiohttp.ClientError | OSError | TimeoutError):
        detail = str(error) or type(error).__name__
        return StartError(f"cannot reach Discord: {detail}")
    return StartError(f"the Discord connection failed: {type(error).__name__}: {error}")


def install_stop_handlers(loop: asyncio.AbstractEventLoop, stop: asyncio.Event) -> list[int]:
    """SIGTERM and SIGINT set ``stop`` (explicit handlers: PID 1 ignores default ones)."""
    installed: list[int] = []
    for number in STOP_SIGNALS:
        try:
            loop.add_signal_handler(number, _request_stop, stop, number)
        except (NotImplementedError, RuntimeError, ValueError):  # not the main thread
            continue
        installed.append(number)
    return installed


def _request_stop(stop: asyncio.Event, number: int) -> None:
    if not stop.is_set():
        log.info("%s received: stopping", signal.Signals(number).name)
    stop.set()


async def shut_down(bot: ArbitroBot, gateway: asyncio.Task[Any]) -> None:
    """Drain running commands, then disconnect (each step bounded in time)."""
    still_running = await bot.drain(DRAIN_SECONDS)
    if still_running:
        log.warning("%d command(s) still running at shutdown", still_running)
    try:
        await asyncio.wait_for(bot.close(), DISCONNECT_SECONDS)
    except TimeoutError:
        log.warning("the Discord connection did not close in %.1f s", DISCONNECT_SECONDS)
    except Exception:
        log.exception("error while closing the Discord connection")
    if not gateway.done():
        gateway.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await asyncio.wait_for(asyncio.shield(gateway), DISCONNECT_SECONDS)
    log.debug("disconnected")


async def serve(settings: Settings, connect: Connector) -> int:
    """Run the bot until a stop signal or a failure; return the exit status.

    Raises :class:`StartError` when the gateway fails, after everything is closed.
    """
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    handled = install_stop_handlers(loop, stop)
    heartbeat_path = settings.heartbeat_path
    failure: StartError | None = None
    try:
        store = await open_store(str(settings.db))
        try:
            bot = build_bot(
                GameService(
                    store,
                    language=settings.language,
                    limits=LogLimits.from_settings(settings),
                ),
                guild_id=settings.guild,
                sync_state=settings.sync_state_path,
                shard_count=settings.shard_count,
                shard_ids=settings.shard_id_list(),
                sync_commands=settings.sync_choice(),
            )
            settle_heap()
            # The maps drawn in processes of their own (bot/render/pool.py).
            start_pictures(settings.picture_workers)
            # The read-only web pages, when ARBITRO_WEB_URL is set (bot/web/).
            pages = await web_beside(settings, store)
            gateway: asyncio.Task[None] = asyncio.create_task(connect(bot), name="arbitro-gateway")
            heartbeat = asyncio.create_task(
                stamp_while_connected(heartbeat_path, bot.gateway_status), name="arbitro-heartbeat"
            )
            stopping = asyncio.create_task(stop.wait(), name="arbitro-stop")
            try:
                await asyncio.wait({gateway, stopping}, return_when=asyncio.FIRST_COMPLETED)
                if gateway.done() and not gateway.cancelled():
                    error = gateway.exception()
                    if error is not None:
                        failure = explain_gateway_failure(error)
                        log.debug("gateway failure", exc_info=error)
                heartbeat.cancel()
                await shut_down(bot, gateway)
            finally:
                heartbeat.cancel()
                stopping.cancel()
                await asyncio.gather(heartbeat, stopping, return_exceptions=True)
                if pages is not None:
                    await pages.stop()
                await stop_pictures()
                remove_beat(heartbeat_path)
        finally:
            try:
                await asyncio.wait_for(store.close(), STORE_CLOSE_SECONDS)
                log.debug("database closed")
            except TimeoutError:
                log.warning("the database was busy for %.1f s more; exiting", STORE_CLOSE_SECONDS)
    finally:
        for number in handled:
            loop.remove_signal_handler(number)
    if failure is not None:
        raise failure
    return EXIT_OK


def connect_to_discord(token: str) -> Connector:
    """The real connector: ``bot.start(token)`` (login, setup hook, gateway)."""

    async def connect(bot: ArbitroBot) -> None:
        await bot.start(token)

    return connect


__all__ = [
    "DRAIN_SECONDS",
    "Connector",
    "StartError",
    "connect_to_discord",
    "explain_gateway_failure",
    "install_stop_handlers",
    "serve",
    "shut_down",
]
