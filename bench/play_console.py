"""Play a bundled scenario to its end at the console table, as people would type it.

    .venv/bin/python bench/play_console.py manovra esempio_normandia en 7
    .venv/bin/python bench/play_console.py linea_gotica esempio_gotica fr 3 --transcript out.txt

A referee creates the game in the chosen language, one player joins each side, and then,
until the game ends, the seat whose action it is types a line: each line is built from the
ruleset's legal actions (owed rolls first) with ``bot.commands.command_line``, sent through
the real :class:`bot.console.table.Console` (its parser, its replies) as that seat after ``/as``.
Dice are fair random (``secrets``), as in a real game. Prints the transcript (or writes it)
and a last line with the lines typed, the refusals and the final turn; exits 1 if any line
the rules listed was refused or the game did not end.
"""

from __future__ import annotations

import argparse
import io
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.app import loop as app_loop
from bot.commands import command_line
from bot.console.table import Console
from bot.service import GameService
from db.drivers.sqlite import SqliteStore
from rules.core.ruleset import get_ruleset
from rules.core.seatview import REFEREE as REFEREE_SEAT
from tests.fuzz.harness import fill_options

REFEREE = "arbitro"
MAX_LINES = 5000


async def play(
    ruleset: str,
    scenario: str,
    language: str,
    seed: int,
    out: io.StringIO,
    maps_dir: Path | None = None,
) -> tuple[int, int, int, bool]:
    """Play one game; return (lines typed, refusals, last turn, ended)."""
    rng = random.Random(seed)  # picks the actions only: the dice are the bot's own
    play_ = get_ruleset(ruleset).rules
    with tempfile.TemporaryDirectory() as directory:
        store = await SqliteStore.open(Path(directory, "table.db"))
        try:
            console = Console(
                GameService(store), out, channel_id=1, maps_dir=maps_dir, language=language
            )
            typed = 0

            async def say(seat: str, line: str) -> None:
                nonlocal typed
                typed += 1
                await console.execute(f"/as {seat}")
                out.write(f"[{seat}] {line}\n")
                await console.execute(line)

            await say(REFEREE, f"/game new ruleset:{ruleset} scenario:{scenario} "
                               f"language:{language}")
            document = (await store.load(1)).document
            seats = {side: f"player_{side}" for side in play_.sides(document)}
            for side, seat in seats.items():
                await say(seat, f"/game join side:{side}")
            refused_before = console.errors
            turn = 0
            while typed < MAX_LINES:
                record = await store.load(1)
                status = play_.view(record.document, REFEREE_SEAT).status
                turn = status.turn
                if status.ended or record.status == "ended":
                    return typed, console.errors - refused_before, turn, True
                actions = play_.view(record.document, REFEREE_SEAT).every_legal
                if not actions:
                    out.write("! no legal action: dead end\n")
                    break
                owed = [a for a in actions if a.owed]
                acting = [a for a in actions if not a.verb.startswith("turn.")]
                if owed:
                    action = rng.choice(owed)
                elif acting and rng.random() < 0.75:
                    action = rng.choice(acting)
                else:
                    action = rng.choice(actions)
                seat = REFEREE if action.side is None else seats[action.side]
                await say(seat, command_line(action.verb, fill_options(action, rng)))
            return typed, console.errors - refused_before, turn, False
        finally:
            await store.close()


def main() -> int:
    """Parse the arguments, play, print the transcript and the summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ruleset")
    parser.add_argument("scenario")
    parser.add_argument("language", choices=("it", "en", "fr"))
    parser.add_argument("seed", type=int, nargs="?", default=1)
    parser.add_argument("--transcript", type=Path, help="write the transcript here")
    parser.add_argument("--maps", type=Path, help="save the pictures of the table here")
    args = parser.parse_args()
    out = io.StringIO()
    typed, refused, turn, ended = app_loop.run(
        play(args.ruleset, args.scenario, args.language, args.seed, out, args.maps)
    )
    if args.transcript:
        args.transcript.write_text(out.getvalue(), encoding="utf-8")
    else:
        sys.stdout.write(out.getvalue())
    print(f"{args.ruleset}/{args.scenario} [{args.language}] seed {args.seed}: {typed} lines, "
          f"{refused} refused, turn {turn}, {'ended' if ended else 'NOT ended'}")
    return 0 if ended and not refused else 1


if __name__ == "__main__":
    sys.exit(main())
