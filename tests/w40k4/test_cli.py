"""``python -m rules`` works for w40k4: procedures, tables, resolve with dice and exact odds."""

from __future__ import annotations

import json

import pytest

from rules.cli import EXIT_USAGE, main


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        status = main(list(args))
    except SystemExit as exit_:
        status = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


def test_list_and_procedures(capsys):
    status, out, _ = run(capsys, "list")
    assert status == 0 and "w40k4\t" in out and "001_772b98ed090d40a6.txt" in out
    status, out, _ = run(capsys, "procedures", "w40k4")
    assert status == 0
    assert "shooting\tA weapon group's shooting at a unit" in out
    assert "dice: to hit: one D6 per attack" in out
    status, out, _ = run(capsys, "procedures", "w40k4", "--json")
    assert "leadership" in json.loads(out)


def test_table_prints_the_seed_cells_and_notes(capsys):
    status, out, _ = run(capsys, "table", "w40k4", "danni_veicoli")
    assert status == 0
    assert "TABELLA DEI DANNI AI VEICOLI  [danni_veicoli]" in out
    assert "Distrutto- Esplose!" in out and "Transcription notes:" in out
    status, out, _ = run(capsys, "table", "w40k4", "tiri_per_ferire")
    assert "not in the seed" in out


def test_resolve_a_shooting_with_dice_and_odds(capsys):
    data = json.dumps(
        {"attacks": 10, "bs": 4, "strength": 4, "ap": 5, "toughness": 4, "save": 3, "models": 10}
    )
    faces = ",".join(["3"] * 10 + ["4"] * 10 + ["1"] * 10)
    status, out, err = run(
        capsys, "resolve", "w40k4", "shooting", "--input", data, "--dice", faces, "--json"
    )
    assert status == 0, err
    payload = json.loads(out)
    assert payload["outcome"] == "w40k4.chain.casualties(n=10)"
    assert abs(sum(payload["odds"].values()) - 1) < 1e-9
    status, out, _ = run(
        capsys, "resolve", "w40k4", "shooting", "--input", data, "--dice", faces, "--lang", "fr"
    )
    assert "== Tir ==" in out and "Résultat\u202f: 10 pertes" in out  # French typography


def test_bad_input_is_one_line(capsys):
    status, out, err = run(capsys, "resolve", "w40k4", "leadership", "--input", '{"leadership": 0}')
    assert status == EXIT_USAGE and out == "" and len(err.strip().splitlines()) == 1
