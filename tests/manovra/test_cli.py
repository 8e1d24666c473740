"""``python -m rules``: list, procedures, table, resolve — as a subprocess and in-process."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from rules.cli import EXIT_USAGE, main
from rules.manovra import PROCEDURES
from tests.core.examples import EXAMPLES

ROOT = Path(__file__).resolve().parents[2]
CT = json.dumps({"kind": "CT", "ad": 1, "cv": 2})
TANK = json.dumps(
    {
        "band": "efficace",
        "ad": 1,
        "target": "carro",
        "calibre_mm": 75,
        "armour": {"scafo": 5, "torretta": 8},
    }
)


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rules", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def run_main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        status = main(list(args))
    except SystemExit as exit_:  # argparse errors
        status = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


def assert_one_line_error(status: int, out: str, err: str) -> None:
    assert status == EXIT_USAGE == 2
    assert out == ""
    assert err.endswith("\n")
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err


# -- as a subprocess ---------------------------------------------------------------------------


def test_subprocess_list():
    done = cli("list")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("manovra\t")
    assert "000_28771903b3591280.txt" in done.stdout
    assert done.stderr == ""


def test_subprocess_procedures_json_maps_names_to_schemas():
    done = cli("procedures", "manovra", "--json")
    assert done.returncode == 0, done.stderr
    schemas = json.loads(done.stdout)
    assert isinstance(schemas, dict)
    assert set(schemas) == set(PROCEDURES)
    for name, schema in schemas.items():
        assert schema["type"] == "object", name
        assert isinstance(schema["properties"], dict) and schema["properties"], name
        assert schema == PROCEDURES[name].input_schema()
    assert "kind" in schemas["test"]["required"]


def test_subprocess_table_penetrazione_prints_the_transcription_notes():
    done = cli("table", "manovra", "penetrazione")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("PENETRAZIONE CORAZZA  [penetrazione]")
    assert "Transcription notes:" in done.stdout
    assert "[column lt_17" in done.stdout
    assert "ANGOLO di IMPATTO < 75°" in done.stdout  # the column groups


def test_subprocess_resolve_json():
    done = cli("resolve", "manovra", "heavy_fire", "--input", TANK, "--dice", "4,7,3", "--json")
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert payload["outcome"] == (
        "manovra.heavy.effect(location=scafo,status=weapon_destroyed,n=1,ct=1)"
    )
    assert isinstance(payload["steps"], list) and len(payload["steps"]) == 3
    assert [s["table"]["cell"] for s in payload["steps"]] == [
        "scafo",
        "7",
        "arma distrutta + 1 morto + CT",
    ]
    odds = payload["odds"]
    assert isinstance(odds, dict) and odds
    assert all(isinstance(value, float) for value in odds.values())
    assert math.isclose(sum(odds.values()), 1.0, abs_tol=1e-9)
    assert payload["outcome"] in odds


@pytest.mark.parametrize(
    "args",
    [
        ("resolve", "manovra", "test", "--input", "{not json"),
        ("resolve", "manovra", "nope", "--input", "{}"),
        ("resolve", "manovra", "test", "--input", CT, "--dice", "4,9"),
        ("resolve", "manovra", "test", "--input", CT, "--dice", " ".join(["1"] * 201)),
    ],
    ids=["bad_json", "unknown_procedure", "impossible_face", "too_many_dice"],
)
def test_subprocess_errors_are_one_line_and_status_2(args: tuple[str, ...]):
    done = cli(*args)
    assert_one_line_error(done.returncode, done.stdout, done.stderr)


# -- in-process --------------------------------------------------------------------------------


def test_main_list(capsys: pytest.CaptureFixture[str]):
    status, out, err = run_main(capsys, "list")
    assert (status, err) == (0, "")
    assert out.splitlines()[0].split("\t")[0] == "manovra"


def test_main_procedures_text(capsys: pytest.CaptureFixture[str]):
    status, out, _ = run_main(capsys, "procedures", "manovra")
    assert status == 0
    names = [line.split("\t")[0] for line in out.splitlines() if not line.startswith("\t")]
    assert names == list(PROCEDURES)
    assert out.count("\tdice: ") == len(PROCEDURES)


def test_main_procedures_json(capsys: pytest.CaptureFixture[str]):
    status, out, _ = run_main(capsys, "procedures", "manovra", "--json")
    assert status == 0
    schemas = json.loads(out)
    assert set(schemas) == set(PROCEDURES)
    assert set(schemas["small_arms"]["properties"]) >= {"target_kind", "band", "ad", "shots"}


def test_main_table_list(capsys: pytest.CaptureFixture[str]):
    status, out, _ = run_main(capsys, "table", "manovra")
    assert status == 0
    ids = [line.split("\t")[0] for line in out.splitlines()]
    assert "penetrazione" in ids and "tiro_armi_pesanti" in ids and "test" in ids
    assert len(ids) == len(set(ids)) >= 16


def test_main_table_penetrazione(capsys: pytest.CaptureFixture[str]):
    status, out, _ = run_main(capsys, "table", "manovra", "penetrazione")
    assert status == 0
    lines = out.splitlines()
    assert lines[1] == (
        "seed: 000_28771903b3591280.txt — "
        "PENETRAZIONE CORAZZA (D8 utile, D10 gittata efficace e schegge, D12 breve)"
    )
    notes = lines[lines.index("Transcription notes:") + 1 :]
    assert len(notes) == 6
    assert all(line.startswith("- [") for line in notes)


@pytest.mark.parametrize("language", ["it", "en", "fr"])
def test_main_resolve_text(capsys: pytest.CaptureFixture[str], language: str):
    status, out, err = run_main(
        capsys, "resolve", "manovra", "test", "--input", CT, "--dice", "4 7", "--lang", language
    )
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert lines[0].startswith("== ")
    assert "D6=4" in lines[1] and "D8=7" in lines[2]
    quoted = "«\u202fD6 + AD + CV >= D8\u202f»" if language == "fr" else "«D6 + AD + CV >= D8»"
    assert quoted in lines[1]
    outcome = {"it": "CT superato", "en": "CT passed", "fr": "CT réussi"}[language]
    assert outcome in out


def test_main_resolve_json_with_system_dice(capsys: pytest.CaptureFixture[str]):
    status, out, _ = run_main(
        capsys,
        "resolve",
        "manovra",
        "small_arms",
        "--json",
        "--input",
        json.dumps(EXAMPLES["small_arms"][0]),
    )
    assert status == 0
    payload = json.loads(out)
    assert isinstance(payload["outcome"], str)
    assert payload["outcome"] in payload["odds"]
    assert math.isclose(sum(payload["odds"].values()), 1.0)
    assert len(payload["steps"]) == 1
    assert payload["steps"][0]["rolls"][0]["die"] == {"sides": 10}


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_main_resolves_every_procedure_example(capsys: pytest.CaptureFixture[str], name: str):
    for data in EXAMPLES[name]:
        status, out, err = run_main(
            capsys, "resolve", "manovra", name, "--input", json.dumps(data), "--json"
        )
        assert (status, err) == (0, ""), err
        payload: dict[str, Any] = json.loads(out)
        assert math.isclose(sum(payload["odds"].values()), 1.0)


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (("resolve", "manovra", "test", "--input", "{not json"), "Dati non validi"),
        (("resolve", "manovra", "test", "--input", "[]"), "Dati non validi"),
        (("resolve", "manovra", "test", "--input", '{"kind": "CT"}'), "ad"),
        (("resolve", "manovra", "test", "--input", '{"kind": "CT", "ad": 9}'), "ad"),
        (("resolve", "manovra", "nope", "--input", "{}"), "nope"),
        (("resolve", "manovra", "test", "--input", CT, "--dice", "4,9"), "D8"),
        (("resolve", "manovra", "test", "--input", CT, "--dice", "4"), "D8"),
        (("resolve", "manovra", "test", "--input", CT, "--dice", "4,7,1"), "1"),
        (("resolve", "manovra", "test", "--input", CT, "--dice", "4,x"), "x"),
        (("resolve", "manovra", "test", "--input", CT, "--dice", "1 " * 201), "200"),
        (("resolve", "nope", "test", "--input", "{}"), "nope"),
        (("procedures", "nope"), "nope"),
        (("table", "manovra", "nope"), "nope"),
        (("bogus",), "bogus"),
        (("resolve", "manovra", "test"), "--input"),
        (("resolve", "manovra", "test", "--input", CT, "--lang", "de"), "de"),
    ],
)
def test_main_errors_are_one_line_and_status_2(
    capsys: pytest.CaptureFixture[str], args: tuple[str, ...], fragment: str
):
    status, out, err = run_main(capsys, *args)
    assert_one_line_error(status, out, err)
    assert fragment in err


def test_main_errors_follow_the_language(capsys: pytest.CaptureFixture[str]):
    base = ("resolve", "manovra", "test", "--input", CT, "--dice", "4,9")
    _, _, it = run_main(capsys, *base)
    _, _, en = run_main(capsys, *base, "--lang", "en")
    _, _, fr = run_main(capsys, *base, "--lang", "fr")
    assert "non può" in it and "cannot" in en and "ne peut pas" in fr


def test_main_resolves_a_precision_test(capsys: pytest.CaptureFixture[str]):
    data = json.dumps({"kind": "PT", "ad": 1, "precision_die": "D12"})
    status, out, err = run_main(
        capsys, "resolve", "manovra", "test", "--input", data, "--dice", "5,6"
    )
    assert (status, err) == (0, "")
    assert "PT" in out
