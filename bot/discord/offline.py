"""An offline stand-in for the Discord gateway (``arbitro run --offline``, hidden).

It lets the whole ``arbitro run`` lifecycle — settings, store, bot, signal handlers,
heartbeat, shutdown — run without a token or a network, for tests and for checking a
deployment's volume and signals: the bot is installed (cogs, translator, buttons) exactly
as for Discord, reports itself connected (latency 0), and receives its "interactions" as
lines on standard input instead of gateway events::

    CHANNEL_ID /game new scenario:esempio_normandia
    CHANNEL_ID /turn next

Each line is one command, run concurrently like interactions are, through the same
in-flight accounting as slash commands (refused once shutdown began, waited for while
running). Each prints one line on standard output: ``done LINE seq=N`` or
``refused LINE: reason``. Commands are never synced and nothing is sent anywhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import threading
from typing import TextIO

from bot.app.loop import running_loop_name
from bot.console.table import ParseError, parse_line, user_id_of
from bot.discord.client import ArbitroBot
from bot.service import Request
from rules.core.errors import RulesError

log = logging.getLogger("bot.discord")

OFFLINE_USER = "offline"


def _read_lines(
    stream: TextIO, loop: asyncio.AbstractEventLoop, queue: asyncio.Queue[str | None]
) -> None:
    """On a daemon thread (a blocked read must not hold the process at exit)."""
    # RuntimeError: the loop is already closed; OSError, ValueError: input closed under us.
    with contextlib.suppress(OSError, ValueError, RuntimeError):
        for line in stream:
            loop.call_soon_threadsafe(queue.put_nowait, line)
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(queue.put_nowait, None)


def _say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


async def run_offline_line(bot: ArbitroBot, number: int, line: str) -> None:
    """Run one input line as a command, as an interaction would be."""
    try:
        bot.check_accepting()
    except RulesError as error:
        _say(f"refused {number}: {error.localized('en')}")
        return
    with bot.command_in_flight():
        try:
            channel_text, _, command = line.strip().partition(" ")
            if not channel_text.isdigit():
                raise ParseError("a line is CHANNEL_ID /command options…")
            verb, options, dice, _attachment = parse_line(command)
            reply = await bot.service.handle(
                Request(
                    channel_id=int(channel_text),
                    user_id=user_id_of(OFFLINE_USER),
                    user_name=OFFLINE_USER,
                    verb=verb,
                    options=options,
                    dice=dice,
                    interaction_id=f"offline-{channel_text}-{number}",
                )
            )
        except RulesError as error:
            _say(f"refused {number}: {error.localized('en')}")
        except ParseError as error:
            _say(f"refused {number}: {error}")
        except Exception:
            log.exception("offline command %d failed: %s", number, line.strip())
            _say(f"refused {number}: unexpected error")
        else:
            _say(f"done {number} seq={reply.seq}")


async def run_offline(bot: ArbitroBot, commands: TextIO | None = None) -> None:
    """Stand in for ``bot.start(token)``: install, report connected, serve the lines of
    ``commands`` (standard input by default) until the bot is closed."""
    await bot.install()
    bot.offline = True
    bot.gateway_connected = True
    log.info("ready (offline: no Discord connection; event loop: %s)", running_loop_name())
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[str | None] = asyncio.Queue()
    reader = threading.Thread(
        target=_read_lines,
        args=(commands or sys.stdin, loop, queue),
        name="arbitro-offline-input",
        daemon=True,
    )
    reader.start()
    tasks: set[asyncio.Task[None]] = set()
    number = 0
    closed = asyncio.create_task(bot.closed.wait())
    try:
        while not bot.closed.is_set():
            next_line = asyncio.create_task(queue.get())
            done, _ = await asyncio.wait({next_line, closed}, return_when=asyncio.FIRST_COMPLETED)
            if next_line not in done:
                next_line.cancel()
                break
            line = next_line.result()
            if line is None:  # end of input: stay "connected" until stopped
                await closed
                break
            if not line.strip():
                continue
            number += 1
            task = asyncio.create_task(run_offline_line(bot, number, line))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
    finally:
        closed.cancel()


__all__ = ["run_offline", "run_offline_line"]
