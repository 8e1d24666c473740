"""``/help <command>`` says when the command is given, read from the ruleset's declared
sequence of play (rules/<key>/sequence.yaml), and says nothing of it for a ruleset that
declares none."""

from __future__ import annotations

from bot.commands import COMMANDS
from bot.service.help import command_lines
from rules.core.ruleset import get_ruleset, register, unregister
from tests.toy_ruleset import RULESET


def _help(name: str, ruleset: str, language: str = "en") -> list[str]:
    command = next(c for c in COMMANDS if c.name == name)
    return command_lines(command, get_ruleset(ruleset).play, language)


def test_help_names_the_step_of_the_seed_a_command_belongs_to() -> None:
    lines = _help("assault", "w40k4")
    at = lines.index("When (sequence of play, seed lines):")
    assert lines[at + 1] == "  Fase d'Assalto › Muovete le unità in assalto (20)"
    assert "  Fase d'Assalto › Risolvete i combattimenti (22, 84, 86, 87, 88, 91)" in _help(
        "combat", "w40k4"
    )
    assert "Quand (séquence de jeu, lignes du seed)\u202f:" in _help("combat", "w40k4", "fr")


def test_help_of_a_ruleset_without_a_declared_sequence_has_no_when() -> None:
    """Every bundled ruleset declares its sequence; the toy one (tests/toy_ruleset) none."""
    assert RULESET.sequence is None
    register(RULESET)
    try:
        lines = _help("move", RULESET.key)
    finally:
        unregister(RULESET.key)
    assert lines and not any(line.startswith("When") for line in lines)
