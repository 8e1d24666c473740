"""Every command of both front ends, declared once.

The Discord app commands (:mod:`bot.discord.commands`) and the console parser and its
``/help`` (:mod:`bot.console`) are generated from :data:`COMMANDS`, so a command or an
option cannot exist in one and not the other. Each :class:`CommandSpec` names the service
verb it sends and its options (:class:`OptionSpec`): name, type, description key,
choices or autocomplete kind, whether required, bounds. :func:`invocation` turns the values
a front end received into the service request's parts, the same way for both.

One slash command serves every ruleset, so each offers the union of the options the
rulesets accept; the ruleset in play refuses the options it does not know. docs/commands.md
explains the declaration and how a per-ruleset option set would plug in.
"""

from __future__ import annotations

import enum
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rules.core.errors import InvalidInput
from rules.core.i18n import LANGUAGES

#: The option that carries physical dice typed by the player (not a rules option).
DICE = "dice"
#: The option that carries an uploaded file (a scenario): a path at the console.
FILE = "file"
#: The one option that carries a ruleset's own modifiers (``extra:"ammo:AP facing:side"``).
EXTRA = "extra"
#: A command keeps at most this many options of its own in Discord; past it, every option
#: not shared by the rulesets moves into ``extra`` (autocompleted for the channel's ruleset).
#: Decided on the declaration alone: a new ruleset adds no option to a shared command.
MAX_DIRECT_OPTIONS = 8
# ``to`` is where /move goes on a battlefield the bot keeps (coordinates, a named point…).
SHARED_OPTIONS = frozenset(
    {"unit", "target", "distance", "weapon", "terrain", "kind", "to", DICE}
)


class OptionType(enum.StrEnum):
    """The value types both front ends read (Discord's option types)."""

    TEXT = "text"
    INTEGER = "integer"
    NUMBER = "number"
    BOOLEAN = "boolean"
    ATTACHMENT = "attachment"
    USER = "user"  # a member of the server (a seat name at the console)
    ROLE = "role"  # a role of the server


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

    def __post_init__(self) -> None:
        if not self.description:
            object.__setattr__(self, "description", self.name)
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

    def __post_init__(self) -> None:
        if len(self.options) > MAX_DIRECT_OPTIONS and not self.extras:
            direct = [o for o in self.options if o.name in SHARED_OPTIONS or o.required]
            extras = tuple(o for o in self.options if o not in direct)
            extra = OptionSpec(EXTRA, autocomplete=f"extra:{self.verb}", low=1, high=200)
            at = len(direct) - (1 if direct and direct[-1].name == DICE else 0)
            direct.insert(at, extra)
            object.__setattr__(self, "options", tuple(direct))
            object.__setattr__(self, "extras", extras)
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


# The values each ruleset accepts, together (the ruleset in play refuses the others).
MOVE_KINDS = (
    "tattico",
    "breve",
    "cauto",
    "hold",
    "move",
    "normal",
    "deepstrike",
    "mishap",
    "normale",
    "corsa",
    "strada",
    "fuori_strada",
    "sali",
    "scendi",
)
FACINGS = ("front", "side", "rear", "fronte", "fianco", "retro")
TEST_KINDS = (
    "IT",
    "DFR",
    "IFR",
    "SF",
    "CT",
    "PT",
    "ET",
    "CC",
    "azione",
    "mirare",
    "piazzare",
    "ricaricare",
    "medicare",
    "scavare",
    "disinnescare",
    "osservare",
    "mine",
    "comando",
    "fumo",
)

# /fire and /odds take the same options (/odds rolls nothing, so it takes no dice).
FIRE_OPTIONS: tuple[OptionSpec, ...] = (
    name("unit", "unit", required=True),
    name("target", "target"),
    distance(),
    name("weapon", "weapon"),
    pick("ammo", "AP", "HE"),
    pick("facing", *FACINGS),
    pick("impact", "lt75", "gt75"),
    name("move_terrain", "terrain"),
    move_distance("move_distance"),
    name("move_to", "destination"),
    count("models"),
    name("location"),
    name("hex", "hex"),
    pick("mode", "direct", "at", "singolo", "area"),
    flag("opportunity"),
    text("modifiers", autocomplete="modifiers"),
    name("cover", "cover"),
    pick("kind", "normale", "copertura", description="kind_fire"),
    count("models_long"),
    count("man"),
    count("shooters"),
    modifier(),
)

#: Every command, in the order Discord lists them and ``/help`` shows them.
COMMANDS: tuple[CommandSpec, ...] = (
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
    # -- /turn, /manoeuvre ---------------------------------------------------------------
    CommandSpec("turn.status", "turn.status", console_aliases=("turn",)),
    CommandSpec(
        "turn.next",
        "turn.next",
        # The turn sequence rolls too (initiative, reserves): physical dice are welcome.
        (pick("order", "first", "second", description="order_turn"), dice_option()),
    ),
    # Declaring (or passing) closes the declarations: the IT tests that order the units roll.
    CommandSpec(
        "manoeuvre.declare",
        "manoeuvre.declare",
        (name("platoon", "platoon", required=True), dice_option()),
    ),
    CommandSpec("manoeuvre.pass", "manoeuvre.pass", (dice_option(),)),
    # -- unit actions --------------------------------------------------------------------
    CommandSpec(
        "move",
        "move",
        (
            name("unit", "unit", required=True),
            name("to", "destination", description="to_move"),
            name("terrain", "terrain"),
            move_distance("distance", description="distance_move"),
            pick("kind", *MOVE_KINDS, description="kind_move"),
            text("via"),
            flag("conceal"),
            name("hex", "hex", description="hex_move"),
            flag("inside"),
            name("cover", "cover", description="cover_move"),
            name("target", "target", description="target_move"),
            text("mods", autocomplete="mods"),
            text("place"),
            flag("hidden"),
            flag("behind"),
            name("vehicle", "unit"),
            name("minefield", "minefield"),
            count("models", description="models_mine"),
            dice_option(),
        ),
    ),
    CommandSpec("fire", "fire", (*FIRE_OPTIONS, dice_option())),
    CommandSpec("odds", "odds", FIRE_OPTIONS, private=True),
    # The table as a picture: the channel's view, or (mine:true) the asker's own, privately.
    CommandSpec("map", "game.map", (flag("mine"),), private_when="mine"),
    # Free dice, with or without a game in the channel (logged in its game when there is one).
    CommandSpec("roll", "roll", (text("expression", required=True), dice_option())),
    CommandSpec("takeback", "takeback"),
    # -- /seat: the referee seats the players -----------------------------------------------
    CommandSpec("seat.assign", "seat.assign", (member(), name("side", "side", required=True))),
    CommandSpec("seat.remove", "seat.remove", (member(),)),
    CommandSpec(
        "seat.bind",
        "seat.bind",
        (name("side", "side", required=True), OptionSpec("role", type=OptionType.ROLE)),
    ),
    CommandSpec("reroll", "dice.reroll", (integer("seq", 1, 10**9, required=True),)),
    # -- /help, /rules: answered to the asker only ------------------------------------------
    CommandSpec(
        "help", "help", (OptionSpec("command", autocomplete="command"),), private=True
    ),
    CommandSpec(
        "rules.table",
        "rules.table",
        (OptionSpec("table", autocomplete="table"), OptionSpec("ruleset", autocomplete="ruleset")),
        private=True,
    ),
    CommandSpec(
        "callarty",
        "callarty",
        (
            name("unit", "unit", required=True),
            name("battery", "battery", required=True),
            text("target", required=True, description="target_point"),
            distance(description="link_distance"),
            pick(
                "link", "stessa_squadra", "stesso_plotone", "stesso_plotone_radio", "altro_plotone"
            ),
            pick("sight", "diretta", "interrotta"),
            flag("entrenched"),
            dice_option(),
        ),
    ),
    CommandSpec(
        "morale",
        "morale",
        (
            name("unit", "unit", required=True),
            pick("action", "test", "recover"),
            name("reason", "reason"),
            flag("enemy_near"),
            flag("air"),
            flag("isolated"),
            dice_option(),
        ),
        # A morale test (the default) or the recovery from panic.
        route=Route("action", {"test": "morale", "recover": "recover"}),
    ),
    CommandSpec(
        "test",
        "test",
        (
            name("unit", "unit", required=True),
            pick("kind", *TEST_KINDS, description="kind_test"),
            name("opponent", "target"),
            modifier(),
            pick("difficulty", "molto_facile", "facile", "normale", "difficile"),
            text("target", description="target_test"),
            count("man"),
            distance(),
            name("minefield", "minefield"),
            name("weapon", "weapon"),
            text("task"),
            integer("turns", 1, 10),
            pick("source", "bomba_mano", "lanciafumogeni_veicolo"),
            text("place"),
            dice_option(),
        ),
    ),
    CommandSpec(
        "assault",
        "assault",
        (
            name("unit", "unit", required=True),
            name("target", "target", required=True),
            name("weapon", "weapon"),
            distance(),
            name("terrain", "terrain", description="terrain_assault"),
            dice_option(),
        ),
    ),
    CommandSpec(
        "execute",
        "execute",
        (
            name("marker", "marker", required=True),
            pick(
                "order",
                "tiro",
                "effetto",
                "aggiusta",
                "fine",
                "mitraglia",
                description="order_fire",
            ),
            flag("visible"),
            pick("ammo", "he", "fumo", description="ammo_support"),
            text("where"),
            dice_option(),
        ),
    ),
    CommandSpec(
        "fragments",
        "fragments",
        (
            name("target", "target", required=True),
            name("marker", "marker"),
            pick("ring", "breve", "lunga"),
            count("models", description="models_blast"),
            dice_option(),
        ),
    ),
    CommandSpec("step", "step", (name("unit", "unit", required=True, description="unit_step"),)),
    CommandSpec(
        "template",
        "template",
        (
            name("unit", "unit", required=True),
            name("target", "target", required=True),
            count("models", required=True, description="models_template"),
            count("partial"),
            pick("facing", *FACINGS),
            dice_option(),
        ),
    ),
    CommandSpec(
        "combat",
        "combat",
        (name("unit", "unit", required=True, description="unit_combat"), dice_option()),
    ),
)

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
