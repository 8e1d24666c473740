"""The console survives any bytes and any file: an error line, never a traceback."""

from __future__ import annotations

import io
import random
import subprocess
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.console import Console
from bot.service import GameService
from db.sqlite import SqliteStore

ROOT = Path(__file__).resolve().parents[2]


def run_bytes(tmp_path: Path, data: bytes, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "bot.main", "console", "--db", str(tmp_path / "t.db"), *args],
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
    import asyncio

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

    asyncio.run(play())
