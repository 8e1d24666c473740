"""``arbitro db replay``: re-run stored games' logs through the current rules.

Registered by the bot beside the storage commands of :mod:`db.tools.cli`, because replaying
needs the rules and ``db/`` must not import them. One line per game; exit status 0 when
every game replays to its stored states (or, with ``--adopt``, every diverging game had
its replayed state adopted), 1 when a game diverges, 2 when the command failed.
"""

from __future__ import annotations

import argparse
from functools import partial

from bot.service.campaign.audit import campaign_problems, replay_campaign
from bot.service.replay import ReplayReport, adopt_replayed, replay_game
from db.errors import StoreError
from db.open import describe, open_store
from db.protocol import GameStore
from db.tools.cli import EXIT_OK, EXIT_PROBLEMS, add_db_option, db_path, run_check, run_safely


def register(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``replay`` to the ``db`` subcommands, and the campaigns' invariants to
    ``db check`` (`bot.service.campaign.audit`: ``db/`` knows no campaign)."""
    actions.choices["check"].set_defaults(handler=partial(run_check, more=campaign_problems))
    replay = actions.add_parser(
        "replay",
        help="re-run games' event logs through the current rules and compare",
        description=(
            "Replay each game's event log through the current rules; report per game "
            "whether the result matches the stored state, or the first diverging event."
        ),
    )
    replay.add_argument("--channel", metavar="ID", type=int, help="only this channel's game")
    replay.add_argument(
        "--adopt",
        action="store_true",
        help="store the replayed state of each diverging game as a new logged event",
    )
    add_db_option(replay)
    replay.set_defaults(handler=run_replay)


def run_replay(args: argparse.Namespace) -> int:
    """``arbitro db replay [--channel ID] [--adopt]``."""
    path = db_path(args)
    channel: int | None = args.channel
    adopt: bool = args.adopt

    async def work() -> int:
        diverged = 0
        async with await open_store(path, create=False, migrate=False) as store:
            if channel is None:
                campaigns = {game.channel_id: game.is_campaign for game in await store.all_games()}
            else:
                record = await store.load(channel)
                campaigns = {record.channel_id: record.is_campaign}
            channels = list(campaigns)
            for channel_id in channels:
                # A campaign's log is folded by the campaign's rules, a game's by its own.
                replay = replay_campaign if campaigns[channel_id] else replay_game
                try:
                    report = await replay(store, channel_id)
                except StoreError as error:
                    print(f"channel {channel_id}: cannot replay: {error}")
                    diverged += 1
                    continue
                line = report.describe()
                if adopt and not report.matches:
                    line, adopted = await _adopt(store, report, line)
                    diverged += 0 if adopted else 1
                else:
                    diverged += 0 if report.matches else 1
                print(line)
        print(f"{describe(path)}: {len(channels)} game(s) replayed, {diverged} diverging")
        return EXIT_PROBLEMS if diverged else EXIT_OK

    return run_safely(work, args)


async def _adopt(store: GameStore, report: ReplayReport, line: str) -> tuple[str, bool]:
    """Adopt a diverging game's replayed state; the line says what happened."""
    if not report.adoptable:
        why = "the game has ended" if report.status == "ended" else "the replay stopped"
        return f"{line} — not adopted: {why}", False
    result = await adopt_replayed(store, report)
    return f"{line} — replayed state adopted as event {result.seq}", True


__all__ = ["register", "run_replay"]
