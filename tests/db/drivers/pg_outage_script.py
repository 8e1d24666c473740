"""A process using PostgreSQL through an outage (run by tests/db/drivers/test_pg_outage.py).

It starts a throwaway server of its own (tests/pgserver.py), opens a store with no logging
configured (as the console and the command line run), stops the server, keeps asking for a
game while asyncpg's pool retries its connections (1 s, then 2 s), starts the server again,
plays, and has a second outage. What it answers goes to stdout; stderr is what a user
would see. Exit status 3: no PostgreSQL server binaries here.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from db.drivers.postgres import PostgresStore
from db.errors import StoreUnavailable
from db.models import NewEvent
from tests.pgserver import ServerUnavailable, start_server


async def ask(store: PostgresStore) -> str:
    try:
        return f"version {(await store.load(1)).version}"
    except StoreUnavailable as error:
        return f"unavailable: {error.key}"


async def outage(store: PostgresStore, server: object, seconds: float) -> None:
    server.halt()  # type: ignore[attr-defined]
    for _ in range(int(seconds / 0.5)):
        print("during the outage:", await ask(store), flush=True)
        await asyncio.sleep(0.5)


async def main() -> int:
    try:
        server = start_server()
    except ServerUnavailable as error:
        print(error, file=sys.stderr)
        return 3
    try:
        async with await PostgresStore.open(server.url("postgres")) as store:
            await store.create_game(
                1, guild_id=None, ruleset="manovra", language="it", document={"turn": 1}
            )
            await outage(store, server, 4.0)  # the pool retries after 1 s and 3 s
            server.resume()
            for _ in range(40):  # the first operations may still meet closed connections
                if (answer := await ask(store)).startswith("version"):
                    break
                await asyncio.sleep(0.25)
            print("after the outage:", answer, flush=True)
            await store.commit(1, 1, {"turn": 2}, NewEvent(verb="advance"))
            print("played:", await ask(store), flush=True)
            await outage(store, server, 2.0)
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
