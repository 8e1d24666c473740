"""Help, choices and the console read each ruleset's declaration (issue 26, items 9–10;
issue 24, "declarations as data").

``/help`` in each ruleset lists only what that ruleset accepts; what it shows, the console
accepts (``extra:name:value`` and ``name:value``); every example of every declaration runs
on a bundled scenario or is refused there for its stated reason; a toy ruleset declared
under tests/ shows up in the commands, help and autocomplete without an edit in bot/.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import pytest

from bot.commands import CHOICE_KIND, COMMANDS, CommandSpec, OptionSpec, OptionType
from bot.commands import build_commands as build_all
from bot.console.table import parse_line
from bot.service.help import channel_commands, help_lines, options_for, shown_name
from rules.core.declaration import (
    declaration,
    declarations,
    load_declaration,
    register_declaration,
    unregister_declaration,
)
from rules.core.dice import ScriptedDice
from rules.core.ending import VERBS as ENDING_VERBS
from rules.core.errors import RulesError
from rules.core.i18n import translate
from rules.core.ruleset import KNOWN_RULESETS, get_ruleset

#: Refusals that blame the line typed, never the state of the game.
INPUT_ERRORS = {
    "error.unknown_option",
    "error.unknown_command",
    "error.option.not_a_choice",
    "error.option.too_big",
    "error.option.too_small",
    "error.option.not_a_number",
    "error.option.not_yes_no",
    "error.option.missing",
    "error.option.invalid",
}
TOY = Path(__file__).with_name("toy_commands.yaml")


def _play(key: str) -> Any:
    return get_ruleset(key).play


def _sample(option: OptionSpec) -> list[str]:
    if option.choices:
        return list(option.choices)
    if option.type is OptionType.BOOLEAN:
        return ["true"]
    if option.type in (OptionType.INTEGER, OptionType.NUMBER):
        return [_number(option.low), _number(option.high)]
    return {"hex": ["3,4"], "via": ["piano_scoperto:4"]}.get(option.name, ["x"])


def _number(bound: float | None) -> str:
    value = float(bound or 0)
    return str(int(value)) if value.is_integer() else str(value)


def _shown_cases() -> list[tuple[str, CommandSpec]]:
    return [
        (key, command)
        for key in KNOWN_RULESETS
        for command in channel_commands(_play(key))
        # The two verbs that end any game are the core's (rules.core.ending), not built by
        # the ruleset's commands module.
        if (command.verb in _play(key).verbs() and command.verb not in ENDING_VERBS)
        or command.route is not None
    ]


@pytest.mark.parametrize(
    ("key", "command"), _shown_cases(), ids=lambda case: getattr(case, "name", case)
)
def test_help_lists_only_what_the_ruleset_accepts_and_the_console_takes_it(key, command):
    play = _play(key)
    module = importlib.import_module(f"rules.{key}.commands")
    options = options_for(command, play)
    required = [o for o in options if o.required]
    base = " ".join(f"{o.name}:{_sample(o)[0]}" for o in required)
    for option in options:
        if option.required or option.name == "dice":
            continue
        if option.name == getattr(command.route, "option", None):
            continue
        for value in _sample(option):
            forms = {f"{shown_name(command, option)}:{value}", f"{option.name}:{value}"}
            parsed = [parse_line(f"/{command.name} {base} {form}") for form in forms]
            assert len({(p.verb, tuple(p.options.items())) for p in parsed}) == 1, forms
            try:
                module.build_command(parsed[0].verb, parsed[0].options)
            except RulesError as error:
                assert error.key not in INPUT_ERRORS - {"error.option.missing"}, (
                    key,
                    command.name,
                    option.name,
                    value,
                    error.localized("en"),
                )


@pytest.mark.parametrize("key", KNOWN_RULESETS)
@pytest.mark.parametrize("language", ["it", "en", "fr"])
def test_help_shows_each_ruleset_its_own_words(key, language):
    play = _play(key)
    everything = "\n".join(
        line
        for command in channel_commands(play)
        for line in help_lines(language, command.name, play)
    )
    overview = "\n".join(help_lines(language, "", play))
    if key != "manovra":  # manovra's test kinds are manovra's alone
        assert "DFR" not in everything and "DFR" not in overview
    if key == "w40k4":  # a game in inches: no cm anywhere
        assert " cm" not in everything
        assert translate("bot.measure.inch", language) in everything
    if key == "pzgren":
        assert "0304" not in everything and "3,4" in everything
    # /takeback is the service's: every ruleset has it.
    assert "/takeback" in overview
    takeback = help_lines(language, "takeback", play)
    not_here = translate("bot.help.not_here", language, command="takeback")
    assert not any(not_here in line for line in takeback)


def test_the_old_gaps_are_closed():
    """The refusals issue 26 item 9 and 10 found, each by name."""
    gotica, w40k4 = _play("linea_gotica"), _play("w40k4")
    fire = help_lines("en", "fire", gotica)
    assert sum(line.startswith("  extra:models ") for line in fire) == 1
    move_kind = next(line for line in help_lines("en", "move", w40k4) if line.startswith("  kind"))
    assert "[normal | deepstrike | mishap]" in move_kind
    facing = next(line for line in help_lines("it", "fire", w40k4) if "facing" in line)
    assert "fianco" not in facing and "front | side | rear" in facing
    with pytest.raises(RulesError) as refused:
        importlib.import_module("rules.w40k4.commands").build_command(
            "fire", {"unit": "a", "target": "b", "facing": "retro"}
        )
    assert " or " not in refused.value.localized("it") and "front" in refused.value.localized("it")
    # What /help fire shows (extra:ammo […]) is typed as shown, or plainly.
    assert parse_line("/fire unit:a target:b extra:ammo:AP extra:facing:front").options == {
        "unit": "a",
        "target": "b",
        "ammo": "AP",
        "facing": "front",
    }
    assert (
        parse_line("/fire unit:a target:b ammo:AP facing:front").options
        == parse_line('/fire unit:a target:b extra:"ammo:AP facing:front"').options
    )
    # The free roll of docs/players.md, positional at the console.
    assert parse_line("/roll 2d6+1")[:2] == ("roll", {"expression": "2d6+1"})


def _run(play: Any, document: dict[str, Any], line: str) -> dict[str, Any]:
    parsed = parse_line(line)
    dice, others = ScriptedDice([2] * 200), ScriptedDice([2] * 200)
    side = play.awaiting(document)
    return play.apply(document, parsed.verb, parsed.options, dice, side, others).document


EXAMPLES = [
    (key, verb, example)
    for key in KNOWN_RULESETS
    for verb, declared in declaration(key).verbs.items()
    for example in declared.examples
]


@pytest.mark.parametrize(("key", "verb", "example"), EXAMPLES, ids=lambda c: getattr(c, "line", c))
def test_every_example_runs_or_is_refused_for_its_stated_reason(key, verb, example):
    play = _play(key)
    declared = declaration(key)
    document = play.new_game(example.scenario or declared.scenarios[0], None)
    for line in example.after:
        document = _run(play, document, line)
    assert parse_line(example.line).verb in (verb, "morale")
    if example.refused is None:
        _run(play, document, example.line)
        return
    assert example.refused not in INPUT_ERRORS
    with pytest.raises(RulesError) as refused:
        _run(play, document, example.line)
    assert refused.value.key == example.refused


def test_every_ruleset_verb_has_an_example_in_its_help():
    for key in KNOWN_RULESETS:
        for verb, declared in declaration(key).verbs.items():
            if verb.startswith("manoeuvre.") or declared.examples:
                continue
            raise AssertionError(f"{key} {verb}: no example")


def test_every_choice_label_and_description_exists_in_every_language():
    for declared in declarations():
        for verb in declared.verbs.values():
            for option in verb.options:
                for language in ("it", "en", "fr"):
                    assert translate(option.description_key, language) != option.description_key
                    for choice in option.choices:
                        assert translate(choice.label_key, language) != choice.label_key


# -- a fifth ruleset needs no edit in bot/ ------------------------------------------------------


class _ToyPlay:
    """Just what help asks of a ruleset: its key and its verbs (from its declaration)."""

    ruleset = "toy"

    def verbs(self) -> tuple[str, ...]:
        return declaration("toy").accepted_verbs


@pytest.fixture
def toy():
    declared = load_declaration(TOY)
    register_declaration(declared)
    yield declared
    unregister_declaration("toy")


def test_a_toy_ruleset_shows_up_in_commands_help_and_choices(toy):
    commands = {c.path: c for c in build_all((*declarations(), toy))}
    # A new option on a shared command (typed in extra), and a verb no ruleset had.
    assert commands["fire"].option("arc") in commands["fire"].extras
    assert "parley" in commands and "parley" not in {c.path for c in COMMANDS}
    # The shared choices now differ between rulesets: suggested per channel.
    assert commands["turn.next"].option("order").autocomplete == f"{CHOICE_KIND}:turn.next:order"
    play = _ToyPlay()
    overview = "\n".join(help_lines("en", "", play))
    assert "/parley" in overview and "/callarty" not in overview
    assert translate("bot.measure.inch", "en") in overview
    fire = "\n".join(help_lines("en", "fire", play))
    assert "arc [front | flank | rear]" in fire and "/fire unit:raider arc:flank" in fire
    assert "ammo" not in fire and "facing" not in fire
    assert help_lines("en", "parley", play)[0].startswith("/parley — ")


async def test_a_toy_rulesets_choices_are_suggested_in_its_channel(toy, monkeypatch):
    from bot.service import views

    class _Record:
        ruleset = "toy"

    class _Store:
        async def load(self, channel_id: int) -> _Record:
            return _Record()

    class _Services:
        store = _Store()

    found = await views._declared_choices(_Services(), 1, 1, f"{CHOICE_KIND}:fire:arc", "")
    assert found == ["front", "flank", "rear"]


async def test_game_new_suggests_the_scenarios_of_the_ruleset_chosen_beside_it():
    from types import SimpleNamespace

    from bot.discord.commands import suggest

    asked: list[str] = []

    async def choices(channel_id: int, user_id: int, kind: str, typed: str) -> list[str]:
        asked.append(kind)
        return list(declaration(kind.partition(":")[2] or "manovra").scenarios)

    service = SimpleNamespace(choices=choices)
    interaction = SimpleNamespace(
        client=SimpleNamespace(service=service),
        channel_id=5,
        user=SimpleNamespace(id=7),
        namespace=SimpleNamespace(ruleset="w40k4"),
    )
    found = await suggest("scenario")(interaction, "")  # type: ignore[arg-type]
    assert asked == ["scenario:w40k4"]
    assert [c.value for c in found] == list(declaration("w40k4").scenarios)


async def test_the_service_lists_one_rulesets_scenarios():
    from bot.service import views

    class _Services:
        store = None

    found = await views.choices(_Services(), 1, 1, "scenario:pzgren", "")  # type: ignore[arg-type]
    assert found == list(declaration("pzgren").scenarios)
    every = await views.choices(_Services(), 1, 1, "scenario", "")  # type: ignore[arg-type]
    assert set(found) < set(every)
