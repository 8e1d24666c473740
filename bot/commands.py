"""Every command of both front ends, declared once.

The Discord app commands (:mod:`bot.discord.commands`) and the console parser and its
``/help`` (:mod:`bot.console.table`) are generated from :data:`COMMANDS`, so a command or an
option cannot exist in one and not the other. Each :class:`CommandSpec` names the service
verb it sends and its options (:class:`OptionSpec`): name, type, description key,
choices or autocomplete kind, whether required, bounds. :func:`invocation` turns the values
a front end received into the service request's parts, the same way for both.

The service's own commands are declared here; the rulesets' commands (``/move``,
``/fire``, ``/turn next``…) are computed from the rulesets' declarations
(``rules/<key>/commands.yaml``, :mod:`rules.core.declaration`). Discord registers one
command tree for every channel, so each such command offers the union of what the rulesets
declare; :func:`ruleset_view` is one ruleset's own view of a command (its options, choices,
bounds, descriptions), which help, autocomplete and the console's help show per channel.
docs/commands.md and docs/architecture.md ("Rulesets") explain both.
"""

from __future__ import annotations

import enum
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rules.campaign.aftermath import ADJUSTABLE_FIELDS
from rules.core.declaration import Declaration, OptionDeclaration, ValueType, declarations
from rules.core.errors import InvalidInput
from rules.core.i18n import LANGUAGES

#: The option that carries physical dice typed by the player (not a rules option).
DICE = "dice"
#: The option that carries an uploaded file (a scenario): a path at the console.
FILE = "file"
#: The one option that carries a ruleset's own modifiers (``extra:"ammo:AP facing:side"``).
EXTRA = "extra"
#: A command keeps at most this many options of its own in Discord (the player scrolls
#: past them all); the rulesets declare the rest ``extra``, typed in the one ``extra``
#: option (autocompleted for the channel's ruleset). Checked when the commands are built.
MAX_DIRECT_OPTIONS = 10
#: The autocomplete kind of an option whose fixed choices differ between rulesets: the
#: channel's ruleset's choices (``choice:move:kind``).
CHOICE_KIND = "choice"


class OptionType(enum.StrEnum):
    """The value types both front ends read (Discord's option types)."""

    TEXT = "text"
    INTEGER = "integer"
    NUMBER = "number"
    BOOLEAN = "boolean"
    ATTACHMENT = "attachment"
    USER = "user"  # a member of the server (a seat name at the console)
    ROLE = "role"  # a role of the server
    CHANNEL = "channel"  # a text channel of the server (a channel's number at the console)


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One option of a command.

    ``description`` is the stem of the catalogue key ``discord.opt.<stem>.description``
    (it differs from the name when one option means different things in two commands:
    ``target`` is a unit for /fire, a point on the table for /callarty). ``low``/``high``
    bound a number's value or a text's length. ``choices`` are fixed values (localized
    through ``discord.choice.<value>``); ``autocomplete`` names the kind of value the
    service suggests from the channel's game (unit, target, weapon…).
    """

    name: str
    type: OptionType = OptionType.TEXT
    description: str = ""
    required: bool = False
    choices: tuple[str, ...] = ()
    autocomplete: str | None = None
    low: float | None = None
    high: float | None = None
    #: The catalogue keys of the choices' names (``discord.choice.<value>`` by default).
    labels: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.description:
            object.__setattr__(self, "description", self.name)
        if self.choices and not self.labels:
            labels = tuple(f"discord.choice.{value}" for value in self.choices)
            object.__setattr__(self, "labels", labels)
        if self.choices and self.autocomplete:
            raise ValueError(f"option {self.name}: choices or autocomplete, not both")
        if self.choices and self.type is not OptionType.TEXT:
            raise ValueError(f"option {self.name}: choices are text")

    @property
    def description_key(self) -> str:
        """The catalogue key of the option's one-line description (a whole key when the
        description has a dot: options only the console types)."""
        if "." in self.description:
            return self.description
        return f"discord.opt.{self.description}.description"


@dataclass(frozen=True, slots=True)
class Route:
    """An option whose value picks the service verb (``/morale action:recover``).

    The option itself is not sent to the service; the first value is the default.
    """

    option: str
    verbs: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class Switch:
    """An option whose presence changes the service verb (``/game end result:…`` sends the
    referee's decision, ``game.decide``, instead of ``game.end``); unlike a route's, the
    option itself is still sent."""

    option: str
    verb: str


@dataclass(frozen=True, slots=True)
class CommandSpec:
    """One command: ``path`` is its name, group commands joined by a dot (``game.new``)."""

    path: str
    verb: str
    options: tuple[OptionSpec, ...] = ()
    private: bool = False  # the answer is shown to the asker only (/odds)
    route: Route | None = None
    #: The same command typed more briefly at the console (``/turn`` for ``/turn status``).
    console_aliases: tuple[str, ...] = ()
    #: The description's catalogue key, when not ``discord.cmd.<path>.description``.
    description: str = ""
    #: Options taken through the one ``extra`` option (``extra:"ammo:AP facing:side"``),
    #: filled in from ``options`` when a command has more than MAX_DIRECT_OPTIONS.
    extras: tuple[OptionSpec, ...] = ()
    #: A yes/no option that makes the answer private when given true (``/map mine:true``).
    private_when: str | None = None
    #: An option that, given, makes the command send another verb (see :class:`Switch`).
    switch: Switch | None = None
    #: The option a console line may give without its name (``/roll 2d6+1``).
    positional: str | None = None

    def __post_init__(self) -> None:
        if len(self.options) > MAX_DIRECT_OPTIONS:
            raise ValueError(f"/{self.path}: more than {MAX_DIRECT_OPTIONS} options")
        names = [option.name for option in (*self.options, *self.extras)]
        if len(set(names)) != len(names):
            raise ValueError(f"/{self.path}: an option is declared twice")
        if self.private_when is not None:
            flagged = self.option(self.private_when)
            if flagged is None or flagged.type is not OptionType.BOOLEAN:
                raise ValueError(f"/{self.path}: private_when must name a yes/no option")
        if self.route is not None:
            option = self.option(self.route.option)
            if option is None or set(option.choices) != set(self.route.verbs):
                raise ValueError(f"/{self.path}: the route's option must list its verbs")
        if self.switch is not None and self.option(self.switch.option) is None:
            raise ValueError(f"/{self.path}: the switch must name one of its options")

    @property
    def words(self) -> tuple[str, ...]:
        """The words typed to call the command (``("game", "new")``)."""
        return tuple(self.path.split("."))

    @property
    def name(self) -> str:
        """The command as typed: ``game new``."""
        return " ".join(self.words)

    @property
    def description_key(self) -> str:
        """The catalogue key of the command's one-line description."""
        return self.description or f"discord.cmd.{self.path}.description"

    def option(self, name: str) -> OptionSpec | None:
        """The option called ``name``, if declared (directly or as an extra)."""
        return next(
            (option for option in (*self.options, *self.extras) if option.name == name), None
        )

    @property
    def every_option(self) -> tuple[OptionSpec, ...]:
        """Its options, those typed in ``extra`` included (``extra`` itself left out)."""
        return tuple(o for o in (*self.options, *self.extras) if o.name != EXTRA)

    def verbs(self) -> tuple[str, ...]:
        """Every service verb this command can send."""
        if self.switch is not None:
            return (self.verb, self.switch.verb)
        if self.route is None:
            return (self.verb,)
        return tuple(dict.fromkeys(self.route.verbs.values()))


@dataclass(frozen=True, slots=True)
class Invocation:
    """The parts of a service request: verb, rules options, typed dice, file."""

    verb: str
    options: dict[str, Any] = field(default_factory=dict)
    dice: str | None = None
    file: Any = None


def invocation(command: CommandSpec, values: Mapping[str, Any]) -> Invocation:
    """What ``command`` sends to the service for the option ``values`` it received.

    Unset options (None) are dropped; ``dice`` and ``file`` travel beside the options; a
    routing option picks the verb. Both front ends call this, so they send the same thing.
    """
    given = {name: value for name, value in values.items() if value is not None}
    extra = given.pop(EXTRA, None)
    if extra:
        for key, value in read_extras(command, str(extra)).items():
            if key in given:
                raise InvalidInput("bot.extra.twice", option=key)
            given[key] = value
    dice = given.pop(DICE, None)
    file = given.pop(FILE, None)
    verb = command.verb
    if command.switch is not None and command.switch.option in given:
        verb = command.switch.verb
    if command.route is not None:
        choice = given.pop(command.route.option, None)
        verb = command.route.verbs.get(str(choice), command.verb) if choice else command.verb
    return Invocation(verb=verb, options=given, dice=str(dice) if dice else None, file=file)


# -- the option vocabulary -------------------------------------------------------------------


def name(option: str, autocomplete: str | None = None, **more: Any) -> OptionSpec:
    """A name from the game (unit, target, weapon…): 1–100 characters."""
    return OptionSpec(option, low=1, high=100, autocomplete=autocomplete, **more)


def text(option: str, **more: Any) -> OptionSpec:
    """Free text typed by the player: 1–200 characters."""
    return OptionSpec(option, low=1, high=200, **more)


def pick(option: str, *values: str, **more: Any) -> OptionSpec:
    """One of fixed, localized choices."""
    return OptionSpec(option, choices=values, **more)


def flag(option: str, **more: Any) -> OptionSpec:
    """A yes/no option."""
    return OptionSpec(option, type=OptionType.BOOLEAN, **more)


def integer(option: str, low: int, high: int, **more: Any) -> OptionSpec:
    """A whole number in [low, high]."""
    return OptionSpec(option, type=OptionType.INTEGER, low=low, high=high, **more)


def number(option: str, low: float, high: float, **more: Any) -> OptionSpec:
    """A number (decimals allowed) in [low, high]."""
    return OptionSpec(option, type=OptionType.NUMBER, low=low, high=high, **more)


#: The kinds of notice ``/notify set`` names (bot/service/notices/policy.py keeps them too).
NOTICE_KINDS = (
    "your_move",
    "deadline_soon",
    "deadline_passed",
    "owed",
    "ended",
    "linked",
    "roster",
)


def _notice_pick(option: str, values: tuple[str, ...], **more: Any) -> OptionSpec:
    """A choice of ``/notify``, its labels and description in the notices' catalogue."""
    labels = tuple(f"discord.choice.notice.{value}" for value in values)
    return pick(option, *values, labels=labels, description=f"notice_{option}", **more)


def member() -> OptionSpec:
    """A member of the server, required (a seat name at the console)."""
    return OptionSpec("user", type=OptionType.USER, required=True)


def dice_option() -> OptionSpec:
    """Physical dice typed by the player (``4,6``)."""
    return OptionSpec(DICE, low=1, high=100)


def distance(option: str = "distance", **more: Any) -> OptionSpec:
    """A distance measured on the table."""
    return number(option, 0, 10_000, **more)


def move_distance(option: str, **more: Any) -> OptionSpec:
    """A distance moved."""
    return number(option, 0, 1_000, **more)


def count(option: str, **more: Any) -> OptionSpec:
    """A number of models, men or shooters."""
    return integer(option, 0, 100, **more)


def modifier(option: str = "modifier", **more: Any) -> OptionSpec:
    """A modifier the player applies by hand."""
    return integer(option, -10, 10, **more)


# -- the rulesets' commands, computed from their declarations -------------------------------

#: Verbs sent by one command through a routing option: ``/morale action:recover``.
ROUTES: Mapping[str, Route] = {
    "morale": Route("action", {"test": "morale", "recover": "recover"}),
}
#: /odds resolves /fire with its odds, rolling nothing: fire's options, without dice.
ODDS, FIRE = "odds", "fire"


def _path_of(verb: str) -> str:
    """The command that sends a declared verb (``recover`` → ``morale``)."""
    for path, route in ROUTES.items():
        if verb in route.verbs.values():
            return path
    return verb


def _option_spec(
    path: str, name: str, declared: list[OptionDeclaration], required: bool
) -> OptionSpec:
    """One option as a command offers it: what its declarations allow together."""
    first = declared[0]
    if len({option.type for option in declared}) > 1:
        raise ValueError(f"/{path} {name}: declared with two types")
    kind = OptionType(first.type.value)
    # One description for all: theirs if they agree, else the shared one (``discord.opt.*``)
    # a ruleset's own description refines.
    stems = {option.description_stem for option in declared}
    shared = sorted(stem for stem in stems if "." not in stem)
    description = stems.pop() if len(stems) == 1 else (shared[0] if shared else name)
    autocomplete = next((o.autocomplete for o in declared if o.autocomplete), None)
    if any(option.choices for option in declared):
        if len({option.values for option in declared}) == 1:
            labels = tuple(choice.label_key for choice in first.choices)
            return OptionSpec(
                name, description=description, required=required, choices=first.values,
                labels=labels,
            )  # fmt: skip
        # Each ruleset its own words: the channel's ruleset's choices, suggested.
        autocomplete = f"{CHOICE_KIND}:{path}:{name}"
    low: float | None
    high: float | None
    if first.type is ValueType.BOOLEAN:
        low = high = None
    elif first.type is ValueType.TEXT:
        low, high = 1, max(option.length for option in declared)
    else:
        low = min(option.low for option in declared if option.low is not None)
        high = max(option.high for option in declared if option.high is not None)
    return OptionSpec(name, kind, description, required, (), autocomplete, low, high)


def _command_spec(path: str, entries: list[tuple[Declaration, str]]) -> CommandSpec:
    """The command ``path`` offering what every (declaration, verb) in ``entries`` takes."""
    verbs = [declared.verbs[verb] for declared, verb in entries]
    by_name: dict[str, list[OptionDeclaration]] = {}
    for declared_verb in verbs:
        for option in declared_verb.options:
            by_name.setdefault(option.name, []).append(option)
    direct: list[OptionSpec] = []
    extras: list[OptionSpec] = []
    route = ROUTES.get(path)
    for option_name, declared in by_name.items():
        required = all((v.option(option_name) or declared[0]).required for v in verbs) and len(
            declared
        ) == len(verbs)
        spec = _option_spec(path, option_name, declared, required)
        into_extra = all(option.extra for option in declared) and not required
        (extras if into_extra else direct).append(spec)
        if route is not None and required:
            # The routing option right after the required ones (``/morale unit:… action:…``).
            direct.append(pick(route.option, *route.verbs))
    if route is not None and not any(option.name == route.option for option in direct):
        direct.append(pick(route.option, *route.verbs))
    verb = next(iter(route.verbs.values())) if route is not None else path
    if extras:
        direct.append(OptionSpec(EXTRA, autocomplete=f"extra:{verb}", low=1, high=200))
    if any(declared.dice for declared in verbs):
        direct.append(dice_option())
    # A description of its own only where every ruleset says the same (manovra's /test
    # lists its kinds; the shared command must not).
    described = {declared.description for declared in verbs}
    description = described.pop() if len(described) == 1 else ""
    return CommandSpec(
        path, verb, tuple(direct), route=route, description=description, extras=tuple(extras)
    )


def ruleset_commands(rulesets: Iterable[Declaration]) -> tuple[CommandSpec, ...]:
    """The commands the rulesets' verbs need, each offering what they declare together
    (one ruleset: that ruleset's own view); /odds right after /fire."""
    paths: dict[str, list[tuple[Declaration, str]]] = {}
    for declared in rulesets:
        for verb in declared.verbs:
            paths.setdefault(_path_of(verb), []).append((declared, verb))
    commands: list[CommandSpec] = []
    for path, entries in paths.items():
        command = _command_spec(path, entries)
        commands.append(command)
        if path == FIRE:
            options = tuple(option for option in command.options if option.name != DICE)
            commands.append(CommandSpec(ODDS, ODDS, options, private=True, extras=command.extras))
    return tuple(commands)


def build_commands(rulesets: Iterable[Declaration]) -> tuple[CommandSpec, ...]:
    """Every command: the service's own and the rulesets' (computed from ``rulesets``)."""
    return (*_SERVICE_HEAD, *ruleset_commands(rulesets), *_SERVICE_TAIL)


def ruleset_view(declared: Declaration) -> dict[str, CommandSpec]:
    """One ruleset's own commands by path: its options, choices, bounds and descriptions."""
    return {command.path: command for command in ruleset_commands((declared,))}


#: The service's own commands listed before the rulesets' (a game, its seats, its turn).
_SERVICE_HEAD: tuple[CommandSpec, ...] = (
    # -- /game ---------------------------------------------------------------------------
    CommandSpec(
        "game.new",
        "game.new",
        (
            # The ruleset is autocompleted rather than a fixed choice: the list grows with
            # every ruleset, and fixed choices with their localizations would swell the
            # /game payload.
            OptionSpec("ruleset", autocomplete="ruleset"),
            name("scenario", "scenario"),
            OptionSpec(FILE, type=OptionType.ATTACHMENT),
            pick("language", *LANGUAGES),
        ),
    ),
    CommandSpec("game.join", "game.join", (name("side", "side", required=True),)),
    CommandSpec("game.leave", "game.leave"),
    CommandSpec("game.referee", "game.referee", (member(),)),
    CommandSpec("game.takeover", "game.takeover"),
    CommandSpec("game.creators", "game.creators", (OptionSpec("role", type=OptionType.ROLE),)),
    CommandSpec("game.status", "game.status"),
    CommandSpec("game.log", "game.log", (integer("count", 1, 50),)),
    CommandSpec("game.export", "game.export", (integer("archive", 1, 2**53),)),
    # A personal signed link to the game's page (bot/service/web.py); the referee's
    # spectator:true link is for everyone.
    CommandSpec("game.web", "game.web", (flag("spectator"),)),
    CommandSpec("game.list", "game.list"),
    CommandSpec("game.rewind", "game.rewind", (integer("seq", 1, 10**9, required=True),)),
    CommandSpec("game.undo", "game.undo"),
    # Plain, the game ends with the result the rules compute then (the score as it stands);
    # with a result, it is the referee's decision (its reason required).
    CommandSpec(
        "game.end",
        "game.end",
        (
            name("result", "result"),
            pick("level", "decisive", "marginal"),
            text("reason", description="reason_end"),
        ),
        switch=Switch("result", "game.decide"),
    ),
    # A seated player concedes for their side (the referee names the side); the bot asks
    # to confirm first: confirm carries the code it gave, cancel withdraws.
    CommandSpec(
        "game.concede",
        "game.concede",
        (
            name("side", "side", description="side_concede"),
            integer("confirm", 1, 2**53),
            flag("cancel"),
        ),
    ),
    CommandSpec(
        "game.deadline",
        "game.deadline",
        (integer("hours", 0, 1440, required=True), name("side", "side")),
    ),
    CommandSpec("game.pace", "game.pace", (integer("hours", 0, 1440, required=True),)),
    CommandSpec("turn.status", "turn.status", console_aliases=("turn",)),
)
#: The service's own commands listed after the rulesets'.
_SERVICE_TAIL: tuple[CommandSpec, ...] = (
    # The table as a picture: the channel's view, or (mine:true) the asker's own, privately.
    CommandSpec("map", "game.map", (flag("mine"),), private_when="mine"),
    # Free dice, with or without a game in the channel (logged in its game when there is one).
    # ``/roll 2d6+1`` at the console: the expression may be typed without its name.
    CommandSpec(
        "roll",
        "roll",
        (text("expression", required=True), dice_option()),
        positional="expression",
    ),
    CommandSpec("takeback", "takeback"),
    # -- /campaign: linked games, in a channel of its own (bot/service/campaign/) ----------
    CommandSpec(
        "campaign.new",
        "campaign.new",
        (
            OptionSpec("ruleset", autocomplete="ruleset", required=True),
            text("name", required=True, description="campaign_name"),
            integer("win", -100, 100),
            integer("draw", -100, 100),
            integer("loss", -100, 100),
            pick("language", *LANGUAGES),
            name("book", "book", description="campaign_book"),
        ),
    ),
    CommandSpec("campaign.join", "campaign.join", (name("side", "side", required=True),)),
    CommandSpec("campaign.invite", "campaign.invite", (member(), name("side", "side"))),
    CommandSpec("campaign.status", "campaign.status"),
    CommandSpec("campaign.log", "campaign.log", (integer("count", 1, 50),)),
    CommandSpec(
        "campaign.game",
        "campaign.game",
        (
            OptionSpec("channel", type=OptionType.CHANNEL, required=True),
            name("scenario", "scenario", description="campaign_scenario"),
            text("by", description="campaign_by"),
            text("leave", description="campaign_leave"),
        ),
    ),
    CommandSpec("campaign.end", "campaign.end"),
    # After a battle: the post-battle sequence (bot/service/campaign/aftermath.py).
    CommandSpec(
        "campaign.aftermath",
        "campaign.aftermath",
        (
            integer("game", 1, 200, required=True, description="campaign_game"),
            dice_option(),
            name("side", "side"),
        ),
    ),
    CommandSpec(
        "campaign.confirm",
        "campaign.confirm",
        (integer("game", 1, 200, required=True, description="campaign_game"),),
    ),
    CommandSpec(
        "campaign.dispute",
        "campaign.dispute",
        (
            integer("game", 1, 200, required=True, description="campaign_game"),
            name("side", "side"),
        ),
    ),
    CommandSpec(
        "campaign.adjust",
        "campaign.adjust",
        (
            name("side", "side", required=True),
            name("unit", required=True, description="campaign_unit"),
            pick(
                "field",
                *ADJUSTABLE_FIELDS,
                required=True,
                labels=tuple(f"discord.choice.adjust.{f}" for f in ADJUSTABLE_FIELDS),
            ),
            OptionSpec("value", low=1, high=40, required=True),
            text("reason", required=True, description="adjust_reason"),
        ),
    ),
    CommandSpec("campaign.export", "campaign.export"),
    CommandSpec("campaign.web", "campaign.web", (flag("spectator"),)),
    CommandSpec(
        "campaign.overdue",
        "campaign.overdue",
        (
            integer("game", 1, 200, required=True),
            text("decision", required=True, description="campaign_decision"),
        ),
    ),
    CommandSpec(
        "campaign.roster",
        "campaign.roster",
        (name("side", "side"), OptionSpec(FILE, type=OptionType.ATTACHMENT)),
    ),
    # -- /seat: the referee seats the players -----------------------------------------------
    CommandSpec("seat.assign", "seat.assign", (member(), name("side", "side", required=True))),
    CommandSpec("seat.approve", "seat.approve", (member(), name("side", "side"))),
    CommandSpec("seat.remove", "seat.remove", (member(),)),
    CommandSpec(
        "seat.bind",
        "seat.bind",
        (name("side", "side", required=True), OptionSpec("role", type=OptionType.ROLE)),
    ),
    CommandSpec("reroll", "dice.reroll", (integer("seq", 1, 10**9, required=True),)),
    # -- /help, /rules: answered to the asker only ------------------------------------------
    CommandSpec("help", "help", (OptionSpec("command", autocomplete="command"),), private=True),
    CommandSpec(
        "rules.table",
        "rules.table",
        (OptionSpec("table", autocomplete="table"), OptionSpec("ruleset", autocomplete="ruleset")),
        private=True,
    ),
    # -- /notify: how a player is told (bot/service/notices/), answered to them alone -----
    CommandSpec(
        "notify.set",
        "notify.set",
        (
            _notice_pick("kind", ("all", *NOTICE_KINDS), required=True),
            _notice_pick("via", ("mention", "dm", "both", "off"), required=True),
            flag("everywhere"),
        ),
        private=True,
    ),
    CommandSpec(
        "notify.quiet",
        "notify.quiet",
        (
            integer("start", 0, 23, required=True),
            integer("stop", 0, 23, required=True),
            text("zone"),
            flag("everywhere"),
        ),
        private=True,
    ),
    CommandSpec(
        "notify.digest", "notify.digest", (flag("daily"), flag("everywhere")), private=True
    ),
    CommandSpec("notify.mute", "notify.mute", (flag("unmute"),), private=True),
    CommandSpec("notify.show", "notify.show", private=True),
    CommandSpec("notify.test", "notify.test", private=True),
    CommandSpec("notify.inbox", "notify.inbox", private=True),
)

#: Every command, in the order Discord lists them and ``/help`` shows them: the service's
#: own and, between them, the rulesets' computed from their declarations.
COMMANDS: tuple[CommandSpec, ...] = build_commands(declarations())

#: What Discord shows as buttons under a reply (dice typed by hand: confirm or dispute);
#: the console, which has no buttons, types them as commands.
BUTTON_COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec(
        "confirm",
        "dice.confirm",
        (integer("seq", 1, 10**9, required=True, description="bot.console.help.seq"),),
        description="bot.console.help.confirm",
    ),
    CommandSpec(
        "dispute",
        "dice.dispute",
        (integer("seq", 1, 10**9, required=True, description="bot.console.help.seq"),),
        description="bot.console.help.dispute",
    ),
)

#: The verb no command sends: the answer to a die a waiting command asked for (Discord's
#: face buttons under the prompt; the console's next line after it).
DIE_ANSWER = "dice.roll"

#: The top-level groups and their order (``game``, ``turn``, ``manoeuvre``).
GROUPS: tuple[str, ...] = tuple(dict.fromkeys(c.words[0] for c in COMMANDS if len(c.words) > 1))


def command_for(verb: str) -> tuple[CommandSpec, dict[str, str]] | None:
    """The command that sends ``verb``, and the routing option that selects it."""
    for command in (*COMMANDS, *BUTTON_COMMANDS):
        if command.route is not None and verb in command.route.verbs.values():
            choice = next(k for k, v in command.route.verbs.items() if v == verb)
            extra = {} if verb == command.verb else {command.route.option: choice}
            return command, extra
        if command.verb == verb or (command.switch is not None and command.switch.verb == verb):
            return command, {}
    return None


def command_line(verb: str, options: Mapping[str, Any]) -> str:
    """The line a player types for ``verb`` with ``options`` (``/morale unit:x action:recover``).

    Follow-ups name service verbs; the console shows them as the command to type.
    """
    found = command_for(verb)
    if found is None:
        head, extra = "/" + verb, {}
    else:
        head, extra = "/" + found[0].name, found[1]
    parts = [head]
    for key, value in {**options, **extra}.items():
        shown = str(value)
        parts.append(f'{key}:"{shown}"' if " " in shown else f"{key}:{shown}")
    return " ".join(parts)


__all__ = [
    "BUTTON_COMMANDS",
    "COMMANDS",
    "DICE",
    "DIE_ANSWER",
    "FILE",
    "GROUPS",
    "CommandSpec",
    "Invocation",
    "OptionSpec",
    "OptionType",
    "Route",
    "Switch",
    "command_for",
    "command_line",
    "invocation",
]


# -- the extra option ------------------------------------------------------------------------


def read_extras(command: CommandSpec, text: str) -> dict[str, Any]:
    """``ammo:AP facing:side`` → {"ammo": "AP", "facing": "side"}, each checked like the
    option it names (type, bounds, choices); an error names the token as typed."""
    try:
        tokens = shlex.split(text)
    except ValueError:
        raise InvalidInput("bot.extra.quotes", text=text[:60]) from None
    values: dict[str, Any] = {}
    known = ", ".join(o.name for o in command.extras) or "-"
    for token in tokens:
        key, sep, raw = token.partition(":")
        option = next((o for o in command.extras if o.name == key), None)
        if not sep or option is None:
            raise InvalidInput(
                "bot.extra.unknown", token=token[:40], command=command.name, known=known
            )
        if key in values:
            raise InvalidInput("bot.extra.twice", option=key)
        values[key] = _extra_value(option, raw, token)
    return values


def _extra_value(option: OptionSpec, raw: str, token: str) -> Any:
    if option.type is OptionType.BOOLEAN:
        lowered = raw.strip().lower()
        if lowered in ("true", "yes", "si", "sì", "oui", "1", "vero", "vrai"):
            return True
        if lowered in ("false", "no", "non", "0", "falso", "faux"):
            return False
        raise InvalidInput("bot.extra.bad_value", token=token[:40])
    if option.type in (OptionType.INTEGER, OptionType.NUMBER):
        try:
            value: float = float(raw.replace(",", "."))
        except ValueError:
            raise InvalidInput("bot.extra.bad_value", token=token[:40]) from None
        if option.type is OptionType.INTEGER:
            if not value.is_integer():
                raise InvalidInput("bot.extra.bad_value", token=token[:40])
            value = int(value)
        if (option.low is not None and value < option.low) or (
            option.high is not None and value > option.high
        ):
            raise InvalidInput("bot.extra.bad_value", token=token[:40])
        return value
    if option.choices:
        for choice in option.choices:
            if raw.lower() == choice.lower():
                return choice
        raise InvalidInput(
            "bot.extra.bad_choice", token=token[:40], known=" | ".join(option.choices)
        )
    if not raw or len(raw) > (option.high or 200):
        raise InvalidInput("bot.extra.bad_value", token=token[:40])
    return raw
