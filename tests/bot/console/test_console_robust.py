"""The console survives any bytes and any file: an error line, never a traceback."""

from __future__ import annotations

import io
import logging
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.app import loop as app_loop
from bot.commands import command_line
from bot.console.table import CONSOLE_COMMANDS, DEFAULT_SEAT, Console
from bot.service import GameService
from db.drivers.sqlite import SqliteStore
from rules.core.i18n import translate
from rules.core.ruleset import get_ruleset
from rules.core.seatview import REFEREE
from tests.fuzz.harness import SeededDice, bundled_games, fill_options

ROOT = Path(__file__).resolve().parents[3]


def run_bytes(tmp_path: Path, data: bytes, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "bot.app.main", "console", "--db", str(tmp_path / "t.db"), *args],
        input=data,
        capture_output=True,
        timeout=120,
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "LANG": "C"},
    )


def test_undecodable_bytes_and_a_seat_with_them_leave_the_table_usable(tmp_path):
    script = (
        b"/game new scenario:esempio_normandia language:en\n"
        b"/as b\xe9a\n"
        b"/game join side:alleati\n"
        b"\xff\xfe\x00garbage\n"
        b"/game status\n"
    )
    result = run_bytes(tmp_path, script)
    out = result.stdout.decode("utf-8")
    assert result.returncode == 0, result.stderr
    assert b"Traceback" not in result.stderr + result.stdout
    assert "You joined" in out and "Turn 1" in out


def test_a_file_that_never_ends_is_refused(tmp_path):
    result = run_bytes(tmp_path, b"/game new file:/dev/zero\n/game new file:missing.yaml\n")
    out = result.stdout.decode()
    assert b"Traceback" not in result.stderr
    assert "troppo grande" in out and "non trovato" in out


def test_a_channel_id_past_64_bits_is_a_usage_error(tmp_path):
    result = run_bytes(tmp_path, b"", "--channel", "9223372036854775808")
    assert result.returncode == 2
    assert b"Traceback" not in result.stderr and b"channel" in result.stderr


def test_random_bytes_piped_in_print_no_traceback(tmp_path):
    rng = random.Random(1234)  # a generator of the test's own, never the global one
    commands = [
        b"/game new scenario:esempio_normandia",
        b"/as x",
        b"/turn next",
        b"/fire",
        b"/move unit:",
        b"/help",
        b"/game log count:",
        b"/roll expression:",
        b"/odds",
    ]
    lines = []
    for _ in range(400):
        if rng.random() < 0.5:
            line = rng.choice(commands) + bytes(
                rng.randrange(256) for _ in range(rng.randrange(12))
            )
        else:
            line = bytes(rng.randrange(256) for _ in range(rng.randrange(40)))
        lines.append(line.replace(b"\n", b" "))
    result = run_bytes(tmp_path, b"\n".join(lines) + b"\n")
    assert result.returncode == 0, result.stderr[-2000:]
    assert b"Traceback" not in result.stderr + result.stdout


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.text(max_size=60), min_size=1, max_size=8))
def test_any_lines_are_answered_without_an_exception(tmp_path_factory, lines):

    async def play() -> None:
        path = tmp_path_factory.mktemp("c") / "c.db"
        store = await SqliteStore.open(str(path))
        try:
            out = io.StringIO()
            console = Console(GameService(store), out)
            await console.execute("/game new scenario:esempio_normandia")
            for line in lines:
                await console.execute("/" + line if not line.startswith("/") else line)
            assert "Traceback" not in out.getvalue()
        finally:
            await store.close()

    app_loop.run(play())


# ---- thousands of inputs, for every ruleset's bundled scenario -------------------------

# One bundled scenario per playable ruleset.
FUZZ_GAMES = sorted(dict(bundled_games()).items())
LINES_PER_RULESET = 1500
PIPED_LINES_PER_RULESET = 800
JUNK = ["", "0", "-1", "99999999999999999999999", "1e400", "nan", "∞", "٣", "🎲", "é" * 50]


def _game_vocabulary(ruleset: str, scenario: str) -> list[str]:
    """Sides, units and option values of the scenario's opening position, plus junk."""
    play = get_ruleset(ruleset).rules
    assert play is not None
    document = play.setup(scenario)
    names: dict[str, None] = dict.fromkeys(play.sides(document))
    for action in play.view(play.document_format.upgrade(document), REFEREE).every_legal:
        names.update(dict.fromkeys(str(value) for value in action.options.values()))
        for spec in action.free:
            names.update(dict.fromkeys(spec.choices))
    return [*names, *JUNK]


def random_line(rng: random.Random, vocabulary: list[str], seats: list[str]) -> str:
    """A console line: a declared command with random options, a seat change, a face,
    random text or undecodable bytes (as the tolerant stdin decodes them)."""
    kind = rng.random()
    if kind < 0.45:
        typed = rng.choice(sorted(CONSOLE_COMMANDS))
        spec = CONSOLE_COMMANDS[typed]
        parts = [f"/{typed}"]
        for option in rng.sample(spec.options, k=rng.randint(0, len(spec.options))):
            value = rng.choice(
                [*vocabulary, str(rng.randint(-(10**12), 10**12)), f"{rng.random() * 1e6:.3f}"]
            )
            parts.append(f"{option.name}:{value}")
        if rng.random() < 0.2:
            parts.append("dice:" + ",".join(str(rng.randint(-2, 13)) for _ in range(4)))
        return " ".join(parts)
    if kind < 0.55:
        return "/as " + rng.choice([*seats, "referee", "x" * 80, "b\udce9a", "\x00"])
    if kind < 0.65:
        return str(rng.randint(-3, 30))  # a face for a pending die, or a stray number
    if kind < 0.85:
        return "".join(
            chr(rng.choice([rng.randint(32, 126), rng.randint(0, 0x10FFFF)]))
            for _ in range(rng.randint(0, 60))
        ).replace("\n", " ")
    data = bytes(rng.randrange(256) for _ in range(rng.randrange(60)))
    return data.decode("utf-8", errors="replace").replace("\n", " ")


@pytest.mark.slow
@pytest.mark.parametrize(("ruleset", "scenario"), FUZZ_GAMES)
async def test_thousands_of_random_lines_print_no_traceback(
    tmp_path: Path, ruleset: str, scenario: str, caplog: pytest.LogCaptureFixture
) -> None:
    rng = random.Random(f"console-{ruleset}")  # the test's own generator
    vocabulary = _game_vocabulary(ruleset, scenario)
    play = get_ruleset(ruleset).rules
    assert play is not None
    seats = list(play.sides(play.setup(scenario)))
    caplog.set_level(logging.ERROR)
    async with await SqliteStore.open(tmp_path / "fuzz.db") as store:
        out = io.StringIO()
        console = Console(GameService(store, dice=SeededDice(rng)), out)
        opening = [f"/game new ruleset:{ruleset} scenario:{scenario} language:en"]
        for side in seats:
            opening += [f"/as {side}", f"/game join side:{side}"]
        await console.run(opening, interactive=False)
        listed = 0
        for _ in range(LINES_PER_RULESET):
            if rng.random() < 0.3:
                # A listed action typed by its seat: the game goes deep, not only refusals.
                record = await store.load(1)
                # A random /game new after an end may have started another ruleset's game.
                rules = get_ruleset(record.ruleset).rules
                assert rules is not None
                actions = rules.view(
                    rules.document_format.upgrade(record.document), REFEREE
                ).every_legal
                if record.status == "ended" or not actions:
                    chunk = [f"/as {DEFAULT_SEAT}", "/game undo"]
                else:
                    action = rng.choice(actions)
                    line = command_line(action.verb, fill_options(action, rng))
                    seat = action.side or DEFAULT_SEAT
                    chunk = [f"/as {seat}", line]
                    if action.side:  # a random /game leave may have freed the seat
                        chunk.insert(1, f"/game join side:{action.side}")
                    listed += 1
            else:
                chunk = [random_line(rng, vocabulary, seats)]
            await console.run(chunk, interactive=False)
        assert await store.check() == []
        # The games went somewhere: listed actions were accepted. A game that ends (its last
        # turn, a random /game end) may be archived by a random /game new: its events count.
        archived = sum(entry.version for entry in await store.archived_games(None))
        assert (await store.load(1)).version + archived > listed // 4, listed
    text = out.getvalue()
    assert "Traceback" not in text
    for language in ("it", "en", "fr"):  # the console's apology for a bug it caught
        assert translate("discord.error.unexpected", language) not in text
    assert not [r for r in caplog.records if r.exc_info], caplog.text[-3000:]
    assert text.count("\n[") >= LINES_PER_RULESET // 2  # the lines were all read


@pytest.mark.slow
@pytest.mark.parametrize(("ruleset", "scenario"), FUZZ_GAMES)
def test_random_bytes_piped_into_every_ruleset_print_no_traceback(
    tmp_path: Path, ruleset: str, scenario: str
) -> None:
    rng = random.Random(f"piped-{ruleset}")
    vocabulary = [word.encode() for word in _game_vocabulary(ruleset, scenario)]
    commands = [f"/{typed}".encode() for typed in sorted(CONSOLE_COMMANDS)]
    lines = [f"/game new ruleset:{ruleset} scenario:{scenario}".encode()]
    for _ in range(PIPED_LINES_PER_RULESET):
        if rng.random() < 0.5:
            line = (
                rng.choice(commands)
                + b" "
                + rng.choice(vocabulary)
                + bytes(rng.randrange(256) for _ in range(rng.randrange(12)))
            )
        else:
            line = bytes(rng.randrange(256) for _ in range(rng.randrange(40)))
        lines.append(line.replace(b"\n", b" "))
    result = run_bytes(tmp_path, b"\n".join(lines) + b"\n")
    assert result.returncode == 0, result.stderr[-2000:]
    assert b"Traceback" not in result.stderr + result.stdout
    assert translate("discord.error.unexpected", "it").encode() not in result.stdout
