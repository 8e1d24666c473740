"""The console table: the same commands as Discord, typed at a terminal or piped from a file.

``/fire unit:squadra_1 target:gruppe_1 distance:12`` — the commands and option names are
the slash commands': both are generated from :mod:`bot.commands`. ``/as NAME`` switches the
seat (each name is a player), ``/help`` lists the commands (``/help fire`` one command's
options), ``/quit`` leaves. Piped input runs non-interactively and exits at its end. Discord's
buttons for dice typed by hand are typed here: ``/confirm seq:N``, ``/dispute seq:N``.

Physical dice: a command given with ``dice:`` that needs one more die prints a prompt
("roll a D6 for 'penetration' (1-6):"); the next line, a number alone, answers it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import shlex
import shutil
import sys
import zlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple, TextIO

from bot.app.warmup import settle_heap
from bot.commands import (
    BUTTON_COMMANDS,
    COMMANDS,
    DIE_ANSWER,
    EXTRA,
    FILE,
    CommandSpec,
    OptionSpec,
    OptionType,
)
from bot.commands import invocation as invocation_of
from bot.console.render_text import reply_text, terminal_safe
from bot.render.campaign_report import with_report
from bot.render.pictures import reply_picture, with_drawings
from bot.service import MAX_SCENARIO_BYTES, GameService, Request
from bot.service.export import FileContent, discard
from bot.service.help import command_lines, suggestion
from bot.service.notices.commands import EMPTY_INBOX
from bot.service.replies import FilesReply, Reply, picture_of, prompt_of, spool_of
from bot.service.rolls import DicePrompt
from db.errors import StoreError
from rules.core.errors import RulesError
from rules.core.i18n import translate

log = logging.getLogger(__name__)
DEFAULT_SEAT = "arbitro"
_MENTION = re.compile(r"<@(\d+)>")
_SAFE = re.compile(r"[^A-Za-z0-9_-]")
_SAFE_NAME = re.compile(r"[^A-Za-z0-9_.-]")
_FACE = re.compile(r"^\d{1,3}$")
# Refusals after which the die asked for is no longer awaited.
_PROMPT_OVER = frozenset({"error.service.roll_gone", "error.service.roll_expired"})
_INTEGER = re.compile(r"[+-]?\d+")
#: A channel is a Discord snowflake: a positive 64-bit signed integer (what the store keeps).
MAX_CHANNEL = 2**63 - 1


def _channel_number(typed: str) -> int | None:
    """``typed`` as a channel number (``2``, ``#2``), or None when it is not one."""
    typed = typed.strip().lstrip("#")
    if len(typed) > 19 or not _INTEGER.fullmatch(typed):
        return None
    number = int(typed)
    return number if 0 < number <= MAX_CHANNEL else None


_TRUE = frozenset({"true", "yes", "y", "1", "si", "sì", "vero", "oui", "vrai", "on"})
_FALSE = frozenset({"false", "no", "n", "0", "falso", "non", "faux", "off"})


def _console_commands(commands: Iterable[CommandSpec] = COMMANDS) -> dict[str, CommandSpec]:
    """Every command as typed (``game new``), with the console's short aliases."""
    table: dict[str, CommandSpec] = {}
    for command in (*commands, *BUTTON_COMMANDS):
        table[command.name] = command
        for alias in command.console_aliases:
            table[alias] = command
    return table


#: The command typed (``game new``, ``turn``) → its declaration (shared with Discord).
CONSOLE_COMMANDS: dict[str, CommandSpec] = _console_commands()


def user_id_of(name: str) -> int:
    """A stable user id for a seat name (console players have no Discord account)."""
    return zlib.crc32(name.strip().lower().encode("utf-8", "surrogatepass")) + 1


_USER_TOKEN = re.compile(r"(?:^|\s)user:(\S+)")


class ParseError(ValueError):
    """A line the console cannot read: a catalogue key and its parameters."""

    def __init__(self, key: str, **params: Any) -> None:
        super().__init__(translate(key, "en", **params))
        self.key = key
        self.params = params

    def localized(self, language: str) -> str:
        """The message in ``language``."""
        return translate(self.key, language, **self.params)


class Parsed(NamedTuple):
    """A console line read: what goes to the service."""

    verb: str
    options: dict[str, Any]
    dice: str | None
    attachment: str | None


def _number(text: str) -> int | float:
    # A whole number stays an int, as Discord sends it; a decimal comma is accepted.
    if _INTEGER.fullmatch(text):
        return int(text)
    return float(text.replace(",", "."))


def read_value(option: OptionSpec, raw: str) -> Any:
    """``raw`` as the value Discord would send for ``option``: checked like Discord does
    (type, bounds, fixed choices), so both front ends pass the rules the same values."""
    shown = raw[:40]
    if option.type is OptionType.USER:  # a seat name, as /as names seats
        return user_id_of(raw.strip().lstrip("@"))
    if option.type is OptionType.CHANNEL:  # a console channel is its number (#2 or 2)
        channel = _channel_number(raw)
        if channel is None:
            raise ParseError("bot.console.not_channel", option=option.name, value=shown)
        return channel
    if option.type is OptionType.ROLE:  # console seats have no roles: a stable id all the same
        return user_id_of("role:" + raw.strip().lstrip("@"))
    if option.type is OptionType.BOOLEAN:
        lowered = raw.strip().lower()
        if lowered in _TRUE or lowered in _FALSE:
            return lowered in _TRUE
        raise ParseError("bot.console.not_boolean", option=option.name, value=shown)
    if option.type in (OptionType.INTEGER, OptionType.NUMBER):
        try:
            value = _number(raw.strip())
        except ValueError:
            raise ParseError("bot.console.not_number", option=option.name, value=shown) from None
        if option.type is OptionType.INTEGER and not isinstance(value, int):
            raise ParseError("bot.console.not_integer", option=option.name, value=shown)
        if (option.low is not None and value < option.low) or (
            option.high is not None and value > option.high
        ):
            raise ParseError(
                "bot.console.out_of_range",
                option=option.name,
                low=_bound(option.low),
                high=_bound(option.high),
            )
        return value
    if option.choices:
        for choice in option.choices:
            if raw.lower() == choice.lower():
                return choice
        raise ParseError(
            "bot.console.bad_choice",
            option=option.name,
            value=shown,
            known=", ".join(option.choices),
        )
    low, high = option.low, option.high
    if low is not None and high is not None and not low <= len(raw) <= high:
        raise ParseError(
            "bot.console.bad_length",
            option=option.name,
            low=_bound(option.low),
            high=_bound(option.high),
        )
    return raw


def _bound(value: float | None) -> str:
    if value is None:
        return "-"
    return str(int(value)) if float(value).is_integer() else str(value)


def _joined_words(command: CommandSpec, tokens: list[str]) -> list[str]:
    """``side:Légion astrale`` typed without quotes: a bare word after a text option's value
    continues that value (it could be nothing else: a bare word is refused), unless the
    command takes an option without its name that is still to come (``/roll 2d6``)."""
    positional = command.positional
    if positional is not None and not any(t.startswith(f"{positional}:") for t in tokens):
        return tokens
    joined: list[str] = []
    for token in tokens:
        if ":" not in token and joined:
            key = joined[-1].partition(":")[0]
            option = command.option(key)
            if option is not None and option.type is OptionType.TEXT and option.name != FILE:
                joined[-1] = f"{joined[-1]} {token}"
                continue
        joined.append(token)
    return joined


def parse_line(line: str, commands: dict[str, CommandSpec] | None = None) -> Parsed:
    """``/fire unit:a distance:12 dice:4,6`` → (verb, options, dice, attachment path).

    The command and its options are the declared ones (:mod:`bot.commands`), the same as
    Discord's: an unknown option, a missing required one, a value of the wrong type or
    outside the choices is refused here, as Discord would refuse it. ``commands``: the
    channel's (its ruleset's view of each, as its help shows them, `GameService.commands`);
    every ruleset's by default.
    """
    table = CONSOLE_COMMANDS if commands is None else commands
    try:
        tokens = shlex.split(line.strip())
    except ValueError as error:
        raise ParseError("bot.console.quotes", detail=str(error)) from None
    if not tokens or not tokens[0].startswith("/") or tokens[0] == "/":
        raise ParseError("bot.console.not_a_command")
    words = [tokens[0][1:]]
    rest = tokens[1:]
    while rest and ":" not in rest[0] and " ".join([*words, rest[0]]) in table:
        words.append(rest.pop(0))
    typed = " ".join(words)
    command = table.get(typed)
    grouped = any(name.startswith(f"{typed} ") for name in table)
    if command is None and grouped and rest and ":" not in rest[0]:
        # ``/campaign standings``: a group and a word it lacks; suggest from both words.
        typed = f"{typed} {rest[0]}"
    if command is None:
        close = suggestion(typed, table)
        if close is not None:
            raise ParseError("bot.console.unknown_command_close", name=typed[:40], close=close)
        raise ParseError("bot.console.unknown_command", name=typed[:40])
    values: dict[str, Any] = {}
    for token in _joined_words(command, rest):
        key, sep, raw = token.partition(":")
        if not sep and command.positional is not None and command.positional not in values:
            # ``/roll 2d6+1``: the one option a command takes without its name.
            positional = command.option(command.positional)
            assert positional is not None
            values[positional.name] = read_value(positional, token)
            continue
        if not sep or not key:
            raise ParseError("bot.console.bad_token", token=token[:40])
        if key == EXTRA and key in values and raw:
            # ``extra:ammo:AP extra:facing:side``, as /help shows each one.
            values[key] = f"{values[key]} {raw}"
            continue
        option = command.option(key)
        if option is None:
            raise ParseError(
                "bot.console.unknown_option",
                command=command.name,
                option=key[:40],
                known=", ".join(o.name for o in command.options) or "-",
            )
        if key in values:
            raise ParseError("bot.console.repeated_option", option=key)
        values[key] = raw if option.name == FILE else read_value(option, raw)
    missing = [o.name for o in command.options if o.required and o.name not in values]
    if missing:
        raise ParseError(
            "bot.console.missing_option", command=command.name, options=", ".join(missing)
        )
    try:
        call = invocation_of(command, values)
    except RulesError as error:  # an extra:"…" token the command does not take
        raise ParseError(error.key, **error.params) from None
    return Parsed(call.verb, call.options, call.dice, call.file)


def help_text(language: str, topic: str = "") -> str:
    """``/help``: every command, its options (``*`` required) and a one-line description;
    ``/help fire``: one command's options in detail."""
    if topic:
        command = CONSOLE_COMMANDS.get(" ".join(topic.lstrip("/").split()))
        if command is None:
            raise ParseError("bot.console.unknown_command", name=topic[:40])
        return _command_help(command, language)
    lines = [translate("bot.console.help.header", language)]
    for command in (*COMMANDS, *BUTTON_COMMANDS):
        aliases = "".join(f" (/{alias})" for alias in command.console_aliases)
        lines.append(f"/{command.name}{aliases} — {translate(command.description_key, language)}")
        if command.options:
            names = " ".join(o.name + ("*" if o.required else "") for o in command.options)
            lines.append(f"      {names}")
    lines.append(translate("bot.console.help.seat", language))
    return "\n".join(lines)


def _command_help(command: CommandSpec, language: str) -> str:
    return "\n".join(command_lines(command, None, language))


class Console:
    """A hot-seat table over the application service."""

    def __init__(
        self,
        service: GameService,
        out: TextIO,
        *,
        channel_id: int = 1,
        maps_dir: Path | None = None,
        language: str = "it",
        files_dir: Path | None = None,
    ) -> None:
        """``language``: the table's own, until a game in the channel sets its own; sent as
        the asker's language, so a game created without one is made in it. ``files_dir``:
        where a reply's files (``/game export``) are saved; none saved without it."""
        self._service = service
        self._out = out
        self._channel = channel_id
        # Where the pictures of the table go (beside the database); None: not drawn.
        self._maps_dir = maps_dir
        self._files_dir = files_dir
        self._seat = DEFAULT_SEAT
        self._names: dict[int, str] = {user_id_of(DEFAULT_SEAT): DEFAULT_SEAT}
        self._counter = 0
        self._locale = language
        self._language = language  # the game's language once there is one, from its replies
        self._prompt: DicePrompt | None = None  # a die the last command still waits for
        self._prompt_noted = False
        self.errors = 0

    def _print(self, text: str) -> None:
        # What players wrote (names, files) never drives the terminal.
        self._out.write(terminal_safe(text) + "\n")
        self._out.flush()

    async def run(self, lines: Iterable[str], *, interactive: bool) -> int:
        """Read commands until the end of input or /quit; return the number of errors."""
        # The table speaks the game's language from its first line (a game already in this
        # channel), not only once a reply has come back.
        self._language = await self._service.language(self._channel) or self._language
        if interactive:
            self._print(translate("bot.console.welcome", self._language, seat=self._seat))
        for raw in lines:
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            if not interactive:
                self._print(f"[{self._seat}] {line}")
            if line in ("/quit", "/exit"):
                break
            if self._prompt is not None and _FACE.match(line):
                await self.answer_die(line)
            else:
                self._note_pending()
                await self.execute(line)
            if interactive:
                die = f" {self._prompt.die.name}" if self._prompt is not None else ""
                self._out.write(f"[{self._seat}]{die}> ")
                self._out.flush()
        return self.errors

    async def execute(self, line: str) -> None:
        """Run one line: a seat change, help, or a command through the service."""
        if line == "/as" or line.startswith("/as "):
            name = line[3:].strip()
            if not name:
                self._print(translate("bot.console.as_usage", self._language))
                return
            self._seat = name[:40]
            self._names[user_id_of(self._seat)] = self._seat
            self._print(translate("bot.console.seat", self._language, seat=self._seat))
            await self._show_notices()
            return
        if line == "/channel" or line.startswith("/channel "):
            await self._switch_channel(line[8:].strip().lstrip("#"))
            return
        try:
            if line == "/help" or line.startswith("/help "):
                # The channel's ruleset decides what help shows: ask the service, as Discord.
                topic = line[5:].strip()
                topic = topic.removeprefix("command:").strip()
                await self._send("help", {"command": topic} if topic else {}, None, None)
                return
            # The channel's commands as its ruleset declares them: what its help shows.
            commands = _console_commands(await self._service.commands(self._channel))
            verb, options, dice, path = parse_line(line, commands)
            if verb == "game.new" and not options and not path:
                # Nothing chosen yet: what could be started (every ruleset, its scenarios),
                # rather than a game of a ruleset the player never asked for.
                await self._send("help", {"command": "game new"}, None, None)
                return
            for named in _USER_TOKEN.findall(line):  # a seat named in a command: show its name
                self._names[user_id_of(named.lstrip("@"))] = named.lstrip("@")[:40]
            attachment = None
            if path:
                attachment = await asyncio.to_thread(read_scenario_file, path)
        except ParseError as error:
            self.errors += 1
            self._print(f"! {error.localized(self._language)}")
            return
        except FileTooBig:
            self._refuse(
                "bot.console.file_too_big", path=(path or "")[:80], limit=MAX_SCENARIO_BYTES
            )
            return
        except UnicodeDecodeError:
            self._refuse("bot.console.file_not_utf8", path=(path or "")[:80])
            return
        except OSError:
            self._refuse("bot.console.file_missing", path=(path or "")[:80])
            return
        await self._send(verb, options, dice, attachment, path or None)

    async def _show_notices(self) -> None:
        """The notices waiting for the seat just taken (``/notify inbox``: the console's
        direct messages), printed only when there are some."""
        self._counter += 1
        request = Request(
            channel_id=self._channel,
            user_id=user_id_of(self._seat),
            verb="notify.inbox",
            user_name=self._seat,
            interaction_id=f"console-{self._channel}-{self._counter}-{id(self)}",
            # The table speaks the channel game's language: a personal answer (/notify,
            # /game web) is given in it, not in the language the table started with.
            locale=self._language,
        )
        try:
            reply = await self._service.handle(request)
        except (RulesError, StoreError):
            log.exception("the notices of %s unread", self._seat)
            return
        # Only when something waits: an empty inbox says so, which taking a seat need not.
        if any(notice.key != EMPTY_INBOX for notice in reply.notices):
            self._print(translate("bot.console.notices", reply.language, seat=self._seat))
            self._print(reply_text(reply, self._name))

    async def _switch_channel(self, typed: str) -> None:
        """``/channel N``: the table moves to channel N (a campaign's games are played in
        channels of their own); the seat stays, the language is the channel's game's."""
        channel = _channel_number(typed)
        if channel is None:
            self._refuse("bot.console.channel_usage")
            return
        self._channel = channel
        self._prompt = None
        self._language = await self._service.language(self._channel) or self._locale
        self._print(translate("bot.console.channel", self._language, channel=self._channel))

    def _refuse(self, key: str, **params: Any) -> None:
        self.errors += 1
        self._print("! " + translate(key, self._language, **params))

    async def _send(
        self,
        verb: str,
        options: dict[str, Any],
        dice: str | None,
        attachment: str | None,
        attachment_name: str | None = None,
    ) -> None:
        """One request through the service as the current seat; print its reply."""
        self._counter += 1
        if verb in ("game.new", "campaign.new") and "language" not in options:
            options = {**options, "language": self._locale}
        request = Request(
            channel_id=self._channel,
            user_id=user_id_of(self._seat),
            verb=verb,
            options=options,
            dice=dice,
            user_name=self._seat,
            interaction_id=f"console-{self._channel}-{self._counter}-{id(self)}",
            attachment=attachment,
            attachment_name=attachment_name,
            # The table speaks the channel game's language: a personal answer (/notify,
            # /game web) is given in it, not in the language the table started with.
            locale=self._language,
        )
        try:
            reply = await self._service.handle(request)
        except RulesError as error:
            self.errors += 1
            self._print(f"! {error.localized(self._language)}")
            if error.key in _PROMPT_OVER:
                self._prompt = None
            return
        except StoreError as error:
            self.errors += 1
            self._print(f"! {error}")
            return
        except Exception:  # a bug must not end the table: say so politely, keep playing
            log.exception("console command failed: %s %s", verb, options)
            self._refuse("discord.error.unexpected")
            return
        reply = await with_drawings(await with_report(reply))
        self._language = reply.language
        prompt = prompt_of(reply)
        if prompt is not None or verb == DIE_ANSWER:
            # A new die asked for, or (after an answer that resolved it) none any more.
            self._prompt, self._prompt_noted = prompt, False
        for user, name in reply.names.items():  # names recorded in an earlier session
            self._names.setdefault(user, name)
        text = reply_text(reply, self._name)
        self._print(_MENTION.sub(lambda match: "@" + self._name(int(match.group(1))), text))
        # The seat's own view is printed; a hidden unit's move keeps the channel's picture
        # in its public part (`Reply.public`).
        saved = await self._save_picture(reply.public or reply)
        if saved is not None:
            self._print(translate("bot.map.saved", reply.language, path=saved))
        try:
            for path in await self._save_files(reply):
                self._print(translate("bot.file.saved", reply.language, path=path))
        finally:
            await asyncio.to_thread(discard, spool_of(reply))

    async def _save_files(self, reply: Reply) -> list[Path]:
        """The reply's files (an export) beside the database: ``<channel>-<head>-<name>``,
        a spooled file moved there, never read into memory."""
        if self._files_dir is None or not isinstance(reply, FilesReply) or not reply.files:
            return []
        prefix = f"{self._channel}-{(reply.head_hash or 'game')[:8]}-"
        directory = self._files_dir
        saved: list[Path] = []
        for name, content in reply.files.items():
            target = directory / (prefix + _SAFE_NAME.sub("_", name))

            def save(content: FileContent = content, target: Path = target) -> None:
                directory.mkdir(parents=True, exist_ok=True)
                if isinstance(content, bytes):
                    target.write_bytes(content)
                else:
                    shutil.move(content, target)

            try:
                await asyncio.to_thread(save)
            except OSError as error:
                log.warning("could not save %s: %s", target, error)
                self._print(translate("bot.file.failed", reply.language, name=name))
                continue
            saved.append(target)
        return saved

    async def _save_picture(self, reply: Reply) -> Path | None:
        """The reply's map as a PNG file beside the database: ``<channel>-<seq>.png`` for
        a command (one picture per event), ``<channel>-<head>.png`` for a look at the
        table (the same state, the same file), ``-<seat>`` for a seat's own view."""
        view, public = picture_of(reply)
        if self._maps_dir is None or view is None:
            return None
        picture = await reply_picture(reply)
        if picture is None:
            self._print(translate("bot.map.failed", reply.language))
            return None
        if reply.seq is not None and public:
            name = f"{self._channel}-{reply.seq:05d}.png"
        else:
            name = f"{self._channel}-{(reply.head_hash or 'map')[:8]}"
            name += ".png" if public else f"-{_SAFE.sub('_', self._seat)}.png"
        path = self._maps_dir / name

        def write() -> None:
            self._maps_dir_ready()
            path.write_bytes(picture)

        try:
            await asyncio.to_thread(write)
        except OSError as error:
            log.warning("could not save the map %s: %s", path, error)
            self._print(translate("bot.map.failed", reply.language))
            return None
        return path

    def _maps_dir_ready(self) -> None:
        assert self._maps_dir is not None
        self._maps_dir.mkdir(parents=True, exist_ok=True)

    async def answer_die(self, face: str) -> None:
        """Give the face a waiting command asked for (the next line after its prompt).

        A refused answer (another seat, a face the die cannot show) leaves it waiting.
        """
        prompt = self._prompt
        if prompt is None:
            return
        await self._send(
            DIE_ANSWER,
            {"prompt": prompt.prompt_id, "n": prompt.position, "face": face},
            None,
            None,
        )

    def _note_pending(self) -> None:
        """A line that is not a face leaves the die asked for pending: say so, once.

        The prompt is kept: a later line holding only a number still answers it (the
        service refuses it clearly if the game has moved on meanwhile).
        """
        prompt = self._prompt
        if prompt is None or self._prompt_noted:
            return
        self._prompt_noted = True
        self._print(
            "… "
            + translate("bot.dice.pending", self._language, die=prompt.die.name, label=prompt.label)
        )

    def _name(self, user_id: int) -> str:
        return self._names.get(user_id, str(user_id))


class FileTooBig(OSError):
    """A file given with ``file:`` larger than a scenario may be."""


def read_scenario_file(path: str) -> str:
    """Read a scenario for ``file:``: a bounded read (``/dev/zero`` is refused, not eaten),
    UTF-8 or a clear error."""
    with Path(path).open("rb") as handle:
        data = handle.read(MAX_SCENARIO_BYTES + 1)
    if len(data) > MAX_SCENARIO_BYTES:
        raise FileTooBig(f"{path}: more than {MAX_SCENARIO_BYTES} bytes")
    return data.decode("utf-8")


def _tolerant(stream: TextIO) -> TextIO:
    """The same stream, reconfigured to decode/encode UTF-8 without ever failing on a byte.

    A console must survive any bytes: undecodable input becomes U+FFFD, unencodable output
    a replacement, instead of a traceback that leaves the table unusable. (Reconfigured in
    place: a second wrapper would close the process's stream when it is collected.)
    """
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is not None:
        # A stream already read from keeps its settings.
        with contextlib.suppress(ValueError, OSError):
            reconfigure(encoding="utf-8", errors="replace")
    return stream


async def run_console(
    service: GameService,
    *,
    channel_id: int = 1,
    strict: bool = False,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    maps_dir: Path | None = None,
    language: str = "it",
    files_dir: Path | None = None,
) -> int:
    """Run the console on stdin/stdout; with ``strict``, status 1 if any command failed.
    ``maps_dir``: where the pictures of the table are saved (none drawn without it);
    ``language``: the table's own (see `Console`); ``files_dir``: where exports are saved."""
    source = stdin or _tolerant(sys.stdin)
    out = stdout or _tolerant(sys.stdout)
    console = Console(
        service,
        out,
        channel_id=channel_id,
        maps_dir=maps_dir,
        language=language,
        files_dir=files_dir,
    )
    settle_heap()
    interactive = source.isatty()
    if interactive:
        out.write(f"[{DEFAULT_SEAT}]> ")
        out.flush()
    errors = await console.run(source, interactive=interactive)
    return 1 if errors and strict else 0
