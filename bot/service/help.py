"""Help that fits the channel's ruleset, seed tables as the seed lays them out, suggestions.

``/help`` lists the commands the channel's ruleset has, each with the options that ruleset
declares (``rules/<key>/commands.yaml``); ``/help fire`` lists those options with the
ruleset's own choices, bounds, descriptions in its unit of measure, and its examples.
Outside a game every command is listed with every ruleset's options. Both front ends show
the same text: the console asks the service as Discord does. What help shows, the console
accepts: an option Discord takes inside ``extra`` is shown ``extra:name``, and both
``extra:name:value`` and ``name:value`` are typed at the console.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from bot.commands import (
    COMMANDS,
    EXTRA,
    CommandSpec,
    OptionSpec,
    OptionType,
    ruleset_commands,
    ruleset_view,
)
from rules.core.declaration import Declaration, declaration, declarations
from rules.core.errors import UnknownName
from rules.core.i18n import translate
from rules.core.ruleset import KNOWN_RULESETS, get_ruleset, known_rulesets
from rules.core.scenario import bundled_titles
from rules.core.surface import Rules
from rules.core.words import in_language

#: ``/game new``: its help lists every ruleset with its scenarios.
GAME_NEW = "game.new"

#: The commands the rulesets' declarations make (the others are the service's own).
RULESET_PATHS = frozenset(command.path for command in ruleset_commands(declarations()))


def _declaration(play: Rules | None) -> Declaration | None:
    return declaration(play.ruleset) if play is not None else None


def channel_commands(play: Rules | None) -> list[CommandSpec]:
    """The commands of a channel: the service's own and its ruleset's (its own view of
    each: options, choices, bounds); every command outside a game."""
    declared = _declaration(play)
    if declared is None:
        return list(COMMANDS)
    own = ruleset_view(declared)
    found: list[CommandSpec] = []
    for command in COMMANDS:
        if command.path in own:
            found.append(own.pop(command.path))
        elif command.path not in RULESET_PATHS:
            found.append(command)
    # Verbs no shared command had (a ruleset added since the commands were synced).
    return [*found, *own.values()]


def offered(command: CommandSpec, play: Rules | None) -> bool:
    """Whether the channel's ruleset has this command (every command outside a game)."""
    return any(c.path == command.path for c in channel_commands(play))


def options_for(command: CommandSpec, play: Rules | None) -> list[OptionSpec]:
    """The options of ``command`` the channel's ruleset takes, in its own words (every
    ruleset's outside a game)."""
    own = next((c for c in channel_commands(play) if c.path == command.path), command)
    options = list(own.every_option)
    if own.route is not None:
        # The routing option offers only the verbs the ruleset has (none if just one).
        routed = own.option(own.route.option)
        taken = set(play.verbs()) if play is not None else set(own.route.verbs.values())
        choices = tuple(k for k, verb in own.route.verbs.items() if verb in taken)
        options = [o for o in options if o is not routed]
        if routed is not None and len(choices) > 1:
            at = sum(1 for o in options if o.required)
            options.insert(at, OptionSpec(routed.name, choices=choices))
    return options


def command_names(play: Rules | None) -> list[str]:
    """The commands offered in a channel, as typed (autocomplete of /help)."""
    return [command.name for command in channel_commands(play)]


def closest(typed: str, names: Iterable[str], n: int = 3) -> list[str]:
    """The names closest to a mistyped one, best first (``devastaori`` → ``devastatori``):
    the same measure for commands, units, targets, weapons and markers."""
    return difflib.get_close_matches(typed.strip().lstrip("/"), list(names), n=n, cutoff=0.6)


#: Words players type for a command that has another name: ``/campaign standings`` is
#: what ``/campaign status`` shows (spelling would suggest ``/campaign new``).
MEANT = {
    "campaign standings": "campaign status",
    "campaign map": "campaign status",
    "campaign games": "campaign status",
    "campaign report": "campaign export",
    "campaign history": "campaign log",
    "campaign rosters": "campaign roster",
}


def suggestion(typed: str, names: Iterable[str]) -> str | None:
    """The command closest to a mistyped one (``fier`` → ``fire``), if any is close; a
    word that means another command (`MEANT`) suggests that one."""
    known = list(names)
    wanted = " ".join(typed.strip().lstrip("/").split())
    if MEANT.get(wanted) in known:
        return MEANT[wanted]
    found = closest(wanted, known, n=1)
    return found[0] if found else None


def group_lines(group: str, play: Rules | None, language: str) -> list[str]:
    """``/help campaign``: the commands of a group, each with its options (empty when
    ``group`` names no group)."""
    return [
        line
        for command in channel_commands(play)
        if command.name.startswith(f"{group} ")
        for line in _listed(command, play, language)
    ]


def _unit(play: Rules | None, language: str) -> str:
    declared = _declaration(play)
    measure = declared.measure.value if declared is not None else "any"
    return translate(f"bot.measure.{measure}", language)


def help_lines(language: str, topic: str, play: Rules | None) -> list[str]:
    """``/help`` (the commands of the channel's ruleset) or ``/help COMMAND`` (its options)."""
    if topic:
        wanted = " ".join(topic.lstrip("/").split())
        command = next((c for c in COMMANDS if c.name == wanted), None)
        if command is None:
            command = next((c for c in channel_commands(play) if c.name == wanted), None)
        group = group_lines(wanted, play, language) if command is None else []
        if group:
            return group
        if command is None:
            close = suggestion(wanted, command_names(play))
            raise UnknownName(
                "bot.help.unknown" if close is None else "bot.help.unknown_close",
                name=wanted[:40],
                close=close or "",
            )
        if not offered(command, play):
            assert play is not None
            return [
                translate(
                    "bot.help.not_here",
                    language,
                    command=command.name,
                    ruleset=play.ruleset,
                    known=", ".join(f"/{n}" for n in command_names(play) if " " not in n),
                )
            ]
        return command_lines(command, play, language)
    lines = [translate("bot.console.help.header", language)]
    if play is not None:
        lines.append(translate("bot.help.measure", language, unit=_unit(play, language)))
    for command in channel_commands(play):
        lines += _listed(command, play, language)
    return lines


def _listed(command: CommandSpec, play: Rules | None, language: str) -> list[str]:
    """A command as ``/help`` lists it: its name, what it does, its options."""
    lines = [f"/{command.name} — {translate(command.description_key, language)}"]
    options = options_for(command, play)
    if options:
        names = " ".join(o.name + ("*" if o.required else "") for o in options)
        lines.append(f"      {names}")
    return lines


def shown_name(command: CommandSpec, option: OptionSpec) -> str:
    """An option as help shows it: ``extra:ammo`` where Discord takes it inside ``extra``."""
    shared = next((c for c in COMMANDS if c.path == command.path), command)
    inside = any(o.name == option.name for o in shared.extras) or (
        shared is command and option in command.extras
    )
    return f"{EXTRA}:{option.name}" if inside else option.name


def command_lines(command: CommandSpec, play: Rules | None, language: str) -> list[str]:
    """One command's options (those ``play`` takes), each with its values and description,
    then the ruleset's examples."""
    lines = [f"/{command.name} — {translate(command.description_key, language)}"]
    unit = _unit(play, language)
    for option in options_for(command, play):
        details = []
        if option.required:
            details.append(translate("bot.console.help.required", language))
        if option.choices:
            details.append(" | ".join(option.choices))
        elif option.type in (OptionType.INTEGER, OptionType.NUMBER):
            details.append(f"{_bound(option.low)}..{_bound(option.high)}")
        elif option.type is OptionType.BOOLEAN:
            details.append("true | false")
        elif option.type is OptionType.ATTACHMENT:
            details.append(translate("bot.console.help.path", language))
        tail = f" [{'; '.join(details)}]" if details else ""
        description = translate(option.description_key, language, unit=unit)
        lines.append(f"  {shown_name(command, option)}{tail} — {description}")
    lines += _sequence_lines(command, play, language)
    declared = _declaration(play)
    examples = [
        line
        for verb in command.verbs()
        for line in (declared.example_lines(verb) if declared is not None else ())
    ]
    if examples:
        lines.append(translate("bot.help.examples", language))
        lines += [f"  {line}" for line in dict.fromkeys(examples)]
    if command.path == GAME_NEW:
        lines += scenario_lines(language)
    return lines


def _sequence_lines(command: CommandSpec, play: Rules | None, language: str) -> list[str]:
    """When the command is given, read from the ruleset's declared sequence of play."""
    if play is None or play.ruleset not in known_rulesets():
        return []  # a declaration with no ruleset behind it (a test's toy)
    sequence = get_ruleset(play.ruleset).sequence
    if sequence is None:
        return []
    places = [p for verb in command.verbs() for p in sequence.declaration.when(verb)]
    if not places:
        return []
    return [translate("bot.help.when", language), *(f"  {p}" for p in dict.fromkeys(places))]


def scenario_lines(language: str) -> list[str]:
    """What ``/game new`` can start: every ruleset, each with its scenarios and their
    titles, and the line that starts the first one."""
    lines = [translate("bot.help.scenarios", language)]
    first = ""
    for key in known_rulesets():
        ruleset = get_ruleset(key)
        lines.append(f"  ruleset:{key} — {ruleset.title}")
        titles = _scenario_titles(key)
        for scenario_id, title in titles.items():
            title = in_language(title, language)
            lines.append(f"    scenario:{scenario_id}" + (f" — {title}" if title else ""))
            first = first or f"/game new ruleset:{key} scenario:{scenario_id}"
    if first:
        lines.append(translate("bot.help.start_with", language, line=first))
    return lines


def _scenario_titles(key: str) -> dict[str, str]:
    """A ruleset's scenarios, id → title (a ruleset registered from outside ``rules/``
    lists its rules' ids, untitled)."""
    if key in KNOWN_RULESETS:
        return dict(bundled_titles(f"rules.{key}"))
    return dict.fromkeys(get_ruleset(key).rules.scenarios(), "")


def _bound(value: float | None) -> str:
    if value is None:
        return "-"
    return str(int(value)) if float(value).is_integer() else str(value)
