"""One declaration, two front ends: Discord's app commands and the console parser agree.

Both are generated from :mod:`bot.commands`; these tests build both sides and fail if a
command, an option, its type, bounds, choices or requiredness differ, and if a ruleset
accepts an option no front end can send.
"""

from __future__ import annotations

import importlib
from typing import Any

import pytest

from bot.commands import (
    BUTTON_COMMANDS,
    COMMANDS,
    DICE,
    EXTRA,
    FILE,
    CommandSpec,
    OptionSpec,
    OptionType,
    command_for,
    command_line,
    invocation,
)
from bot.console.table import CONSOLE_COMMANDS, ParseError, help_text, parse_line, user_id_of
from bot.discord.client import sync_payload
from rules.core.i18n import LANGUAGES, has_key, translate
from rules.core.ruleset import KNOWN_RULESETS, get_ruleset

SUBCOMMAND_TYPES = (1, 2)
# Discord's option types.
DISCORD_TYPES = {
    OptionType.TEXT: 3,
    OptionType.INTEGER: 4,
    OptionType.BOOLEAN: 5,
    OptionType.NUMBER: 10,
    OptionType.ATTACHMENT: 11,
    OptionType.USER: 6,
    OptionType.ROLE: 8,
    OptionType.CHANNEL: 7,
}
RULESETS = KNOWN_RULESETS


@pytest.fixture(scope="module")
def discord_commands() -> dict[str, dict[str, Any]]:
    """Every Discord leaf command by its typed name (``game new``), as synced."""
    leaves: dict[str, dict[str, Any]] = {}

    def walk(node: dict[str, Any], prefix: str) -> None:
        name = f"{prefix} {node['name']}".strip()
        children = [o for o in node.get("options", []) if o["type"] in SUBCOMMAND_TYPES]
        if not children:
            leaves[name] = node
        for child in children:
            walk(child, name)

    for command in sync_payload(locale_aware=False):
        walk(command, "")
    return leaves


def _discord_option(option: dict[str, Any]) -> tuple[Any, ...]:
    low = option.get("min_value", option.get("min_length"))
    high = option.get("max_value", option.get("max_length"))
    choices = tuple(str(c["value"]) for c in option.get("choices", []))
    return (
        option["name"],
        option["type"],
        bool(option.get("required")),
        choices,
        bool(option.get("autocomplete")),
        low,
        high,
    )


def _declared_option(option: OptionSpec) -> tuple[Any, ...]:
    return (
        option.name,
        DISCORD_TYPES[option.type],
        option.required,
        option.choices,
        option.autocomplete is not None,
        option.low,
        option.high,
    )


def test_discord_and_the_console_have_the_same_commands(discord_commands):
    console = {command.name for command in CONSOLE_COMMANDS.values()}
    buttons = {command.name for command in BUTTON_COMMANDS}
    assert set(discord_commands) == console - buttons == {c.name for c in COMMANDS}
    assert {"step", "template", "combat", "morale", "turn next"} <= set(discord_commands)


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c.name)
def test_each_command_has_the_same_options_on_both_sides(discord_commands, command):
    discord = discord_commands[command.name]
    ordered = sorted(command.options, key=lambda option: not option.required)
    assert [_discord_option(o) for o in discord.get("options", [])] == [
        _declared_option(o) for o in ordered
    ]
    # The console accepts exactly the same option names (and refuses any other).
    for option in command.options:
        line = _line(command, extra=option)
        parse_line(line)
    with pytest.raises(ParseError) as refused:
        parse_line(_line(command) + " nonsense:1")
    assert refused.value.key == "bot.console.unknown_option"


def _sample(option: OptionSpec, command: CommandSpec | None = None) -> str:
    if option.name == EXTRA and command is not None:
        first = command.extras[0]
        return f'"{first.name}:{_sample(first)}"'
    if option.choices:
        return option.choices[-1]
    if option.type is OptionType.BOOLEAN:
        return "true"
    if option.type in (OptionType.INTEGER, OptionType.NUMBER):
        return str(int(option.high if option.high is not None else 1))
    if option.type is OptionType.CHANNEL:
        return "5"
    return "x"


def _line(command: CommandSpec, extra: OptionSpec | None = None) -> str:
    options = [o for o in command.options if o.required or o is extra]
    return " ".join([f"/{command.name}", *(f"{o.name}:{_sample(o, command)}" for o in options)])


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c.name)
def test_both_front_ends_send_the_same_request(command):
    """The console's parse and Discord's callback both go through ``invocation``."""
    values = {o.name: _sample(o, command) for o in command.options}
    typed = {
        o.name: (
            user_id_of(values[o.name])  # Discord sends the member's id; the console the seat's
            if o.type is OptionType.USER
            else user_id_of("role:" + values[o.name])
            if o.type is OptionType.ROLE
            else True
            if o.type is OptionType.BOOLEAN
            else int(values[o.name])
            if o.type in (OptionType.INTEGER, OptionType.NUMBER, OptionType.CHANNEL)
            else values[o.name]
        )
        for o in command.options
    }
    line = " ".join([f"/{command.name}", *(f"{k}:{v}" for k, v in values.items())])
    verb, options, dice, attachment = parse_line(line)
    sent = invocation(command, typed)
    assert (verb, options, dice, attachment) == (sent.verb, sent.options, sent.dice, sent.file)
    assert DICE not in options and FILE not in options


def test_morale_takes_the_discord_option_action():
    assert parse_line("/morale unit:u action:test") == ("morale", {"unit": "u"}, None, None)
    assert parse_line("/morale unit:u action:recover dice:2,2") == (
        "recover",
        {"unit": "u"},
        "2,2",
        None,
    )
    assert parse_line("/morale unit:u reason:losses") == (
        "morale",
        {"unit": "u", "reason": "losses"},
        None,
        None,
    )


@pytest.mark.parametrize(
    ("line", "key"),
    [
        ("/morale unit:u action:flee", "bot.console.bad_choice"),
        ("/morale action:test", "bot.console.missing_option"),
        ("/move unit:u distance:far", "bot.console.not_number"),
        ("/move unit:u distance:2000", "bot.console.out_of_range"),
        ("/game log count:2.5", "bot.console.not_integer"),
        ("/move unit:u conceal:maybe", "bot.console.not_boolean"),
        ("/move unit:u unit:v", "bot.console.repeated_option"),
        ("/step unit:u dice:1", "bot.console.unknown_option"),
        ("/game", "bot.console.unknown_command_close"),  # did you mean /game new?
        ("/qqqqqq", "bot.console.unknown_command"),
        ("/turn nxt", "bot.console.bad_token"),
        ("move unit:u", "bot.console.not_a_command"),
    ],
)
def test_the_console_refuses_what_discord_would_refuse(line, key):
    with pytest.raises(ParseError) as refused:
        parse_line(line)
    assert refused.value.key == key
    for language in LANGUAGES:
        assert "{" not in refused.value.localized(language)


def test_a_name_of_several_words_needs_no_quotes_at_the_console():
    """``/game join side:Légion astrale`` was refused ("expected option:value, got
    'astrale'"): a bare word after a text option's value continues it."""
    assert parse_line("/game join side:Légion astrale").options == {"side": "Légion astrale"}
    assert parse_line('/game join side:"Légion astrale"').options == {"side": "Légion astrale"}
    assert parse_line("/fire unit:1ª squadra target:north wood distance:12").options == {
        "unit": "1ª squadra",
        "target": "north wood",
        "distance": 12,
    }
    with pytest.raises(ParseError) as refused:  # a number's option takes no second word
        parse_line("/move unit:u distance:12 cm")
    assert refused.value.key == "bot.console.bad_token"
    assert parse_line("/roll 2d6+1").options == {"expression": "2d6+1"}


def test_console_values_are_typed_as_discord_sends_them():
    options = parse_line("/fire unit:a distance:12 opportunity:sì facing:SIDE").options
    # facing's words are each ruleset's own: the channel's ruleset matches them (any case).
    assert options == {"unit": "a", "distance": 12, "opportunity": True, "facing": "SIDE"}
    assert parse_line("/turn next order:FIRST").options == {"order": "first"}
    assert parse_line("/move unit:a distance:7,5")[1]["distance"] == 7.5
    assert parse_line("/turn next order:first dice:8,3") == (
        "turn.next",
        {"order": "first"},
        "8,3",
        None,
    )


def _verb_options(ruleset: str) -> dict[str, tuple[str, ...]]:
    """A ruleset's verbs and the option names its commands module reads."""
    module = importlib.import_module(f"rules.{ruleset}.commands")
    table = getattr(module, "VERB_OPTIONS", None) or module._VERBS
    return {verb: tuple(names) for verb, (_, names) in table.items()}


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_ruleset_verb_and_option_can_be_sent_from_both_front_ends(ruleset):
    play = get_ruleset(ruleset).rules
    assert play is not None
    options = _verb_options(ruleset)
    for verb in play.verbs():
        found = command_for(verb)
        assert found is not None, (ruleset, verb)
        command, _ = found
        declared = {o.name for o in (*command.options, *command.extras)}
        missing = set(options.get(verb, ())) - declared
        assert not missing, (ruleset, verb, missing)


@pytest.mark.parametrize(
    ("verb", "options", "line"),
    [
        ("turn.next", {"order": "first"}, "/turn next order:first"),
        ("recover", {"unit": "us_rifle_1"}, "/morale unit:us_rifle_1 action:recover"),
        ("morale", {"unit": "banda"}, "/morale unit:banda"),
        ("combat", {"unit": "squadra"}, "/combat unit:squadra"),
        ("dice.confirm", {"seq": 4}, "/confirm seq:4"),
        ("test", {"unit": "a", "task": "two words"}, '/test unit:a task:"two words"'),
    ],
)
def test_a_follow_up_is_shown_as_the_line_to_type(verb, options, line):
    assert command_line(verb, options) == line
    parsed = parse_line(line)
    assert (parsed.verb, parsed.options) == (verb, options)


def test_every_description_exists_in_every_language():
    for command in (*COMMANDS, *BUTTON_COMMANDS):
        assert has_key(command.description_key, "it"), command.path
        for option in command.options:
            assert has_key(option.description_key, "it"), (command.path, option.name)


@pytest.mark.parametrize("language", ["it", "en", "fr"])
def test_help_lists_every_command_with_its_options_and_description(language):
    text = help_text(language)
    lines = text.splitlines()
    for command in (*COMMANDS, *BUTTON_COMMANDS):
        description = translate(command.description_key, language)
        head = next(line for line in lines if line.startswith(f"/{command.name} "))
        assert head.endswith(description)
    assert "/turn status (/turn) — " in text
    assert "unit* target distance weapon" in text
    fire = help_text(language, "fire")
    assert fire.startswith(f"/fire — {translate('discord.cmd.fire.description', language)}")
    required = translate("bot.console.help.required", language)
    assert f"  unit [{required}] — " in fire
    assert "  extra:ammo [AP | HE] — " in fire
    assert "  distance [0..10000] — " in fire
    assert "  extra:opportunity [true | false] — " in fire
    assert translate("discord.opt.dice.description", language) in fire
    assert help_text(language, "/turn next").startswith("/turn next — ")
    with pytest.raises(ParseError):
        help_text(language, "nope")
