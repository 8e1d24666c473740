"""Child process for the service crash test: play through `GameService` until killed.

Usage: ``python tests/bot/service/crash_writer.py DB RUN_NUMBER SEED``. One game per
playable ruleset, one channel each, on a real SQLite file. Seats give listed actions with
random options (and now and then the referee moves a deadline, a player re-joins, the
referee ends the game and undoes the end). After ``handle`` returns with a committed event
(the moment the bot would answer the player) it prints ``ack CHANNEL SEQ INTERACTION_ID``
and flushes, so the parent knows exactly which commands were acknowledged before its SIGKILL.
"""

from __future__ import annotations

import contextlib
import random
import sys
from typing import Any

from bot.app import loop as app_loop
from bot.service import GameService, Request
from db.drivers.sqlite import SqliteStore
from rules.core.errors import RulesError
from rules.core.ruleset import get_ruleset
from rules.core.seatview import REFEREE as REFEREE_SEAT
from tests.fuzz.harness import SeededDice, bundled_games, fill_options

REFEREE = 1
FIRST_PLAYER = 100

#: (channel, ruleset, scenario): one game per playable ruleset.
GAMES = [
    (channel, ruleset, scenario)
    for channel, (ruleset, scenario) in enumerate(sorted(dict(bundled_games()).items()), 1)
]


def seats(channel: int, sides: list[str]) -> dict[str, int]:
    """The player of each side of a channel's game (stable across runs)."""
    return {side: FIRST_PLAYER + 10 * channel + index for index, side in enumerate(sides)}


async def run(path: str, run_number: int, rng: random.Random) -> None:
    store = await SqliteStore.open(path)
    service = GameService(store, dice=SeededDice(rng))
    counter = iter(range(10**9))

    async def send(channel: int, user: int, verb: str, options: dict[str, Any]) -> Any:
        interaction_id = f"run{run_number}-step{next(counter)}"
        request = Request(channel, user, verb, options, guild_id=1, interaction_id=interaction_id)
        reply = await service.handle(request)
        if reply.seq is not None and not reply.duplicate:
            print(f"ack {channel} {reply.seq} {interaction_id}", flush=True)
        return reply

    try:
        for channel, ruleset, scenario in GAMES:
            # Idempotent on a restart: a retried creation answers with the existing game.
            await service.handle(
                Request(
                    channel,
                    REFEREE,
                    "game.new",
                    {"ruleset": ruleset, "scenario": scenario},
                    guild_id=1,
                    interaction_id=f"create-{channel}",
                )
            )
            play = get_ruleset(ruleset).rules
            assert play is not None
            document = (await store.load(channel)).document
            for side, user in seats(channel, list(play.sides(document))).items():
                # Joining closes once the game has ended: the seats stay as they were.
                with contextlib.suppress(RulesError):
                    await service.handle(Request(channel, user, "game.join", {"side": side}))
        print("ready", flush=True)
        while True:
            channel, ruleset, _ = rng.choice(GAMES)
            play = get_ruleset(ruleset).rules
            assert play is not None
            record = await store.load(channel)
            document = play.document_format.upgrade(record.document)
            players = seats(channel, list(play.sides(document)))
            try:
                if record.status == "ended" or play.view(document, REFEREE_SEAT).status.ended:
                    await send(channel, REFEREE, "game.undo", {})
                    continue
                roll = rng.random()
                if roll < 0.03:
                    await send(channel, REFEREE, "game.end", {})
                elif roll < 0.08:
                    side = rng.choice(list(players))
                    hours = rng.randint(0, 48)
                    await send(channel, REFEREE, "game.deadline", {"side": side, "hours": hours})
                elif roll < 0.1:
                    side = rng.choice(list(players))
                    await send(channel, players[side], "game.join", {"side": side})
                else:
                    actions = play.view(document, REFEREE_SEAT).every_legal
                    if not actions:
                        await send(channel, REFEREE, "game.undo", {})
                        continue
                    action = rng.choice(actions)
                    user = REFEREE if action.side is None else players[action.side]
                    await send(channel, user, action.verb, fill_options(action, rng))
            except RulesError:
                continue  # a refusal changes nothing: play on
    finally:
        await store.close()


def main() -> None:
    path, run_number, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    app_loop.run(run(path, run_number, random.Random(seed)))


if __name__ == "__main__":
    main()
