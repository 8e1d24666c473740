"""The documentation holds up: every `docs/….md` that code or docs cite exists, every relative
link between the pages resolves, and every console transcript the README and docs/ show
runs at the console table as shown.

A transcript is a fenced block whose first line is a seat typing `/game new` or `/campaign
new` (`[arbitro] /game new …`): it starts from an empty table. Its `[seat] /command` lines
are typed in order into `arbitro console --strict --language en` on a fresh database (a line
typed by another seat than the last is preceded by `/as SEAT`, which the transcript need not
show); each run of its lines between two `…` lines must appear, in order and contiguous, in
what the console prints (leaving out the `# chain` lines and the seat switches). Hashes and
dates change from run to run, so both sides read them as placeholders, and a typed date
becomes a date ahead of today, in the order the transcript gives them.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
CITING = [
    path
    for pattern in ("*.py", "*.md", "*.yaml", "*.toml", "Dockerfile")
    for folder in ("bot", "db", "rules", "tests", "bench", "docs")
    for path in (ROOT / folder).rglob(pattern)
] + [ROOT / "README.md", ROOT / "pyproject.toml", ROOT / "compose.yaml", ROOT / "Dockerfile"]

CITED = re.compile(r"docs/[A-Za-z0-9_./-]+?\.md")
LINK = re.compile(r"\]\(([^)\s#]+\.md)(#[^)\s]*)?\)")
FENCE = re.compile(r"^```[a-z]*\n(.*?)^```", re.M | re.S)
TYPED = re.compile(r"^\[(\w+)\] (/.*)$")
SWITCH = re.compile(r"^(\[\w+\] /as \w+|You are now '\w+'\.)$")
STARTS = re.compile(r"^\[\w+\] /(game|campaign) new ")
DATE = re.compile(r"\d{4}-\d{2}-\d{2}( \d{2}:\d{2} UTC)?")
HASH = re.compile(r"\b[0-9a-f]{8,12}\b")
ELISION = "…"


def test_every_cited_docs_page_exists() -> None:
    missing = sorted(
        f"{path.relative_to(ROOT)}: {cited}"
        for path in CITING
        if path.is_file()
        for cited in set(CITED.findall(path.read_text(encoding="utf-8", errors="replace")))
        if "<" not in cited and not (ROOT / cited).is_file()
    )
    assert not missing, missing


def test_every_relative_link_between_pages_resolves() -> None:
    broken = sorted(
        f"{page.relative_to(ROOT)}: {target}"
        for page in PAGES
        for target, _anchor in LINK.findall(page.read_text(encoding="utf-8"))
        if "://" not in target and not (page.parent / target).is_file()
    )
    assert not broken, broken


def test_the_docs_have_an_index_that_links_every_page() -> None:
    index = (DOCS / "README.md").read_text(encoding="utf-8")
    linked = {target for target, _anchor in LINK.findall(index)}
    pages = {page.name for page in DOCS.glob("*.md")} - {"README.md"}
    unlisted = sorted(pages - linked)
    assert not unlisted, unlisted


def _transcripts() -> list[tuple[str, str]]:
    found = []
    for page in PAGES:
        for number, match in enumerate(FENCE.finditer(page.read_text(encoding="utf-8"))):
            block = match.group(1)
            if STARTS.match(block):
                found.append((f"{page.relative_to(ROOT)}#{number}", block))
    return found


TRANSCRIPTS = _transcripts()


def test_the_readme_and_the_referees_guide_show_transcripts() -> None:
    where = {name.split("#")[0] for name, _block in TRANSCRIPTS}
    assert {"README.md", "docs/referees.md", "docs/players.md"} <= where


def _typed_lines(block: str) -> list[str]:
    """The commands the transcript types, its dates moved ahead of today in their order."""
    today = dt.datetime.now(dt.UTC).date()
    dates: dict[str, str] = {}

    def ahead(match: re.Match[str]) -> str:
        day = today + dt.timedelta(days=10 * (len(dates) + 1))
        return dates.setdefault(match.group(0), day.isoformat())

    lines, seat = [], "arbitro"
    for line in block.splitlines():
        if typed := TYPED.match(line):
            if typed.group(1) != seat and not typed.group(2).startswith("/as "):
                lines.append(f"/as {typed.group(1)}")
            command = DATE.sub(ahead, typed.group(2))
            seat = command.split()[1] if command.startswith("/as ") else typed.group(1)
            lines.append(command)
    return lines


def _normal(line: str) -> str:
    return HASH.sub("HASH", DATE.sub("DATE", line.rstrip()))


def _runs(block: str) -> list[list[str]]:
    runs: list[list[str]] = [[]]
    for line in block.splitlines():
        if SWITCH.match(line):
            continue
        if line.strip() == ELISION:
            runs.append([])
        else:
            runs[-1].append(_normal(line))
    return [run for run in runs if run]


@pytest.mark.parametrize(("name", "block"), TRANSCRIPTS, ids=[name for name, _ in TRANSCRIPTS])
def test_a_transcript_runs_at_the_console_as_shown(name: str, block: str, tmp_path: Path) -> None:
    typed = "".join(line + "\n" for line in _typed_lines(block))
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    environment.pop("ARBITRO_LANGUAGE", None)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "bot.app.main",
            "console",
            "--strict",
            "--language=en",
            "--db=arbitro.db",
        ],
        input=typed,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=environment,
        timeout=300,
    )
    printed = [
        _normal(line)
        for line in result.stdout.splitlines()
        if not line.startswith("# chain ") and not SWITCH.match(line)
    ]
    position = 0
    for run in _runs(block):
        starts = [
            start
            for start in range(position, len(printed) - len(run) + 1)
            if printed[start : start + len(run)] == run
        ]
        assert starts, (
            f"{name}: not printed in order:\n"
            + "\n".join(run)
            + "\n--- printed:\n"
            + ("\n".join(printed[position:]))
        )
        position = starts[0] + len(run)
    refusals_shown = sum(line.startswith("! ") for line in block.splitlines())
    assert sum(line.startswith("! ") for line in printed) == refusals_shown, result.stdout
    assert result.returncode == (1 if refusals_shown else 0), result.stderr
