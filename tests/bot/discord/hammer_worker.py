"""Child process for the two-process test: one bot process's service hammering one channel.

Usage: ``python tests/bot/discord/hammer_worker.py DB_URL CHANNEL NAME COUNT``. Waits for a line
on standard input (so both processes start together), then sends COUNT ``dice.confirm``
requests to CHANNEL, each with its own interaction id ``NAME-n``, and every fifth also as
``shared-n`` (the same interaction id the other process sends: a retry that reached
another process). Prints one JSON line per request: what a player would have seen.
"""

from __future__ import annotations

import json
import sys

from bot.app import loop as app_loop
from bot.service import GameService, Request
from db.open import open_store
from rules.core.errors import RulesError

REFEREE = 1


async def run(url: str, channel_id: int, name: str, count: int) -> None:
    async with await open_store(url) as store:
        service = GameService(store)
        sys.stdin.readline()
        for n in range(count):
            ids = [f"{name}-{n}"] + ([f"shared-{n}"] if n % 5 == 0 else [])
            for interaction_id in ids:
                request = Request(
                    channel_id,
                    REFEREE,
                    "dice.confirm",
                    {"seq": 2},
                    guild_id=7,
                    interaction_id=interaction_id,
                )
                try:
                    reply = await service.handle(request)
                    line = {"id": interaction_id, "seq": reply.seq, "duplicate": reply.duplicate}
                except RulesError as error:
                    line = {"id": interaction_id, "error": error.key}
                print(json.dumps(line), flush=True)


def main() -> None:
    url, channel, name, count = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    app_loop.run(run(url, channel, name, count))


if __name__ == "__main__":
    main()
