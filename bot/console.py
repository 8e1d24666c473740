"""The console table: the same commands as Discord, typed at a terminal or piped from a file.

``/fire unit:squadra_1 target:gruppe_1 distance:12`` — the option names are the slash
commands'. ``/as NAME`` switches the seat (each name is a player), ``/help`` lists the
commands, ``/quit`` leaves. Piped input runs non-interactively and exits at its end.

Physical dice: a command given with ``dice:`` that needs one more die prints a prompt
("roll a D6 for 'penetration' (1-6):"); the next line, a number alone, answers it.
"""

from __future__ import annotations

import asyncio
import re
import shlex
import sys
import zlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TextIO

from bot.render_text import reply_text
from bot.rolls import DicePrompt
from bot.service import GameService, Request
from db.errors import StoreError
from rules.core.errors import RulesError
from rules.core.i18n import translate

# Slash command → service verb (group commands join their words with a dot).
COMMANDS: dict[str, str] = {
    "game new": "game.new",
    "game join": "game.join",
    "game status": "game.status",
    "game log": "game.log",
    "game export": "game.export",
    "game undo": "game.undo",
    "game end": "game.end",
    "game deadline": "game.deadline",
    "turn": "turn.status",
    "turn status": "turn.status",
    "turn next": "turn.next",
    "manoeuvre declare": "manoeuvre.declare",
    "manoeuvre pass": "manoeuvre.pass",
    "move": "move",
    "fire": "fire",
    "odds": "odds",
    "callarty": "callarty",
    "morale": "morale",
    "recover": "recover",
    "test": "test",
    "assault": "assault",
    "execute": "execute",
    "fragments": "fragments",
    "confirm": "dice.confirm",
    "dispute": "dice.dispute",
}
DEFAULT_SEAT = "arbitro"
_MENTION = re.compile(r"<@(\d+)>")
_FACE = re.compile(r"^\d{1,3}$")
# Refusals after which the die asked for is no longer awaited.
_PROMPT_OVER = frozenset({"error.service.roll_gone", "error.service.roll_expired"})


def user_id_of(name: str) -> int:
    """A stable user id for a seat name (console players have no Discord account)."""
    return zlib.crc32(name.strip().lower().encode()) + 1


class ParseError(ValueError):
    """A line the console cannot read."""


def parse_line(line: str) -> tuple[str, dict[str, str], str | None, str | None]:
    """``/fire unit:a distance:12 dice:4,6`` → (verb, options, dice, attachment path)."""
    try:
        tokens = shlex.split(line.strip())
    except ValueError as error:
        raise ParseError(str(error)) from None
    if not tokens or not tokens[0].startswith("/"):
        raise ParseError("a command starts with /")
    words = [tokens[0][1:]]
    rest = tokens[1:]
    while rest and ":" not in rest[0] and " ".join([*words, rest[0]]) in COMMANDS:
        words.append(rest.pop(0))
    name = " ".join(words)
    if name not in COMMANDS:
        raise ParseError(f"unknown command /{name}")
    options: dict[str, str] = {}
    for token in rest:
        key, sep, value = token.partition(":")
        if not sep or not key:
            raise ParseError(f"expected option:value, got {token!r}")
        options[key] = value
    dice = options.pop("dice", None)
    attachment = options.pop("file", None)
    return COMMANDS[name], options, dice, attachment


class Console:
    """A hot-seat table over the application service."""

    def __init__(self, service: GameService, out: TextIO, *, channel_id: int = 1) -> None:
        self._service = service
        self._out = out
        self._channel = channel_id
        self._seat = DEFAULT_SEAT
        self._names: dict[int, str] = {user_id_of(DEFAULT_SEAT): DEFAULT_SEAT}
        self._counter = 0
        self._language = "it"  # the game's language, learnt from its replies
        self._prompt: DicePrompt | None = None  # a die the last command still waits for
        self._prompt_noted = False
        self.errors = 0

    def _print(self, text: str) -> None:
        self._out.write(text + "\n")
        self._out.flush()

    async def run(self, lines: Iterable[str], *, interactive: bool) -> int:
        """Read commands until the end of input or /quit; return the number of errors."""
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
            return
        if line.startswith("/help"):
            self._print(
                "  " + "\n  ".join(f"/{name}" for name in COMMANDS) + "\n  /as NAME\n  /quit"
            )
            return
        try:
            verb, options, dice, path = parse_line(line)
            attachment = None
            if path:
                attachment = await asyncio.to_thread(Path(path).read_text, encoding="utf-8")
        except (ParseError, OSError, UnicodeDecodeError) as error:
            self.errors += 1
            self._print(f"! {error}")
            return
        await self._send(verb, options, dice, attachment)

    async def _send(
        self, verb: str, options: dict[str, Any], dice: str | None, attachment: str | None
    ) -> None:
        """One request through the service as the current seat; print its reply."""
        self._counter += 1
        request = Request(
            channel_id=self._channel,
            user_id=user_id_of(self._seat),
            verb=verb,
            options=options,
            dice=dice,
            user_name=self._seat,
            interaction_id=f"console-{self._channel}-{self._counter}-{id(self)}",
            attachment=attachment,
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
        self._language = reply.language
        if reply.dice_prompt is not None or verb == "dice.roll":
            # A new die asked for, or (after an answer that resolved it) none any more.
            self._prompt, self._prompt_noted = reply.dice_prompt, False
        text = reply_text(reply, self._name)
        self._print(_MENTION.sub(lambda match: "@" + self._name(int(match.group(1))), text))

    async def answer_die(self, face: str) -> None:
        """Give the face a waiting command asked for (the next line after its prompt).

        A refused answer (another seat, a face the die cannot show) leaves it waiting.
        """
        prompt = self._prompt
        if prompt is None:
            return
        await self._send(
            "dice.roll",
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


async def run_console(
    service: GameService,
    *,
    channel_id: int = 1,
    strict: bool = False,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
) -> int:
    """Run the console on stdin/stdout; with ``strict``, status 1 if any command failed."""
    source = stdin or sys.stdin
    out = stdout or sys.stdout
    console = Console(service, out, channel_id=channel_id)
    interactive = source.isatty()
    if interactive:
        out.write(f"[{DEFAULT_SEAT}]> ")
        out.flush()
    errors = await console.run(source, interactive=interactive)
    return 1 if errors and strict else 0
