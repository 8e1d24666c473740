"""Help that fits the channel's ruleset, seed tables as the seed lays them out, suggestions.

``/help`` lists the commands the channel's ruleset has (a command whose verbs the ruleset
lacks is left out); ``/help fire`` lists the options of /fire that this ruleset takes, with
their descriptions; outside a game every command is listed. Both front ends show the same
text: the console asks the service as Discord does.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from bot.commands import COMMANDS, DICE, EXTRA, CommandSpec, OptionSpec, OptionType
from rules.core.errors import UnknownName
from rules.core.i18n import translate
from rules.core.play import GamePlay

#: Commands of the service itself, offered whatever the ruleset.
_ALWAYS = ("game.", "turn.status", "roll", "help", "rules.", "dice.")


def _by_name() -> dict[str, CommandSpec]:
    return {command.name: command for command in COMMANDS}


def _verbs(command: CommandSpec) -> tuple[str, ...]:
    if command.route is not None:
        return tuple(command.route.verbs.values())
    return (command.verb,)


def _service_command(command: CommandSpec) -> bool:
    return command.verb.startswith(_ALWAYS) or command.path.startswith(_ALWAYS)


def offered(command: CommandSpec, play: GamePlay | None) -> bool:
    """Whether the channel's ruleset has this command (every command outside a game)."""
    if play is None or _service_command(command):
        return True
    verbs = play.verbs()
    return any(verb in verbs for verb in _verbs(command))


def options_for(command: CommandSpec, play: GamePlay | None) -> list[OptionSpec]:
    """The options of ``command`` the ruleset takes (all of them outside a game, and for the
    service's own commands, whose options the service reads: ``/game concede confirm:``)."""
    every = [o for o in (*command.options, *command.extras) if o.name != EXTRA]
    if play is None or _service_command(command):
        return every
    if not any(verb in play.verbs() for verb in _verbs(command)):
        return every
    taken = {name for verb in _verbs(command) for name in play.options_of(verb)}
    routed = {command.route.option} if command.route is not None else set()
    return [o for o in every if o.name in taken or o.name in routed or o.name == DICE]


def command_names(play: GamePlay | None) -> list[str]:
    """The commands offered in a channel, as typed (autocomplete of /help)."""
    return [command.name for command in COMMANDS if offered(command, play)]


def suggestion(typed: str, names: Iterable[str]) -> str | None:
    """The command closest to a mistyped one (``fier`` → ``fire``), if any is close."""
    found = difflib.get_close_matches(typed.strip().lstrip("/"), list(names), n=1, cutoff=0.6)
    return found[0] if found else None


def help_lines(language: str, topic: str, play: GamePlay | None) -> list[str]:
    """``/help`` (the commands of the channel's ruleset) or ``/help COMMAND`` (its options)."""
    if topic:
        wanted = " ".join(topic.lstrip("/").split())
        command = _by_name().get(wanted)
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
    for command in COMMANDS:
        if not offered(command, play):
            continue
        lines.append(f"/{command.name} — {translate(command.description_key, language)}")
        options = options_for(command, play)
        if options:
            names = " ".join(o.name + ("*" if o.required else "") for o in options)
            lines.append(f"      {names}")
    return lines


def command_lines(command: CommandSpec, play: GamePlay | None, language: str) -> list[str]:
    """One command's options (those ``play`` takes), each with its values and description."""
    lines = [f"/{command.name} — {translate(command.description_key, language)}"]
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
        # A ruleset's own option is typed inside extra: on Discord (or directly at the console).
        name = f"extra:{option.name}" if option in command.extras else option.name
        lines.append(f"  {name}{tail} — {translate(option.description_key, language)}")
    return lines


def _bound(value: float | None) -> str:
    if value is None:
        return "-"
    return str(int(value)) if float(value).is_integer() else str(value)
