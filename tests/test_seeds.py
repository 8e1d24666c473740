"""The repository's own copy of the seed documents is complete and unedited."""

from __future__ import annotations

import hashlib

from tests.conftest import ROOT, SEEDS


def test_every_seed_is_in_the_repository_and_unedited() -> None:
    pinned = {}
    for line in (ROOT / "tests" / "seeds.sha256").read_text(encoding="utf-8").splitlines():
        digest, name = line.split()
        pinned[name] = digest
    assert set(pinned) == {
        "000_manovra.txt",
        "001_w40k4.txt",
        "003_pzgren.txt",
        "004_linea_gotica.txt",
    }
    for name, digest in pinned.items():
        assert hashlib.sha256((SEEDS / name).read_bytes()).hexdigest() == digest, name


def test_nothing_reads_outside_the_repository() -> None:
    outside = ("..", "shared")
    needles = ("/".join(outside), '"' + outside[1] + '" / "seeds"')
    for path in [
        *ROOT.glob("tests/**/*.py"),
        *ROOT.glob("rules/**/*.py"),
        *ROOT.glob("bot/**/*.py"),
        *ROOT.glob("db/**/*.py"),
    ]:
        text = path.read_text(encoding="utf-8")
        assert not any(needle in text for needle in needles), path
