"""The real Discord bot (``build_bot``) driven through SimCord, over a real SQLite store.

SimCord runs discord.py unmodified against an in-memory Discord: the commands are synced
by the bot's own ``setup_hook`` (an unsynced command would fail the test), every slash
command, autocomplete and button click is a real INTERACTION_CREATE, and the answers are
read back as Discord stored them (embeds, components, attachments, ephemeral flags).
"""

from __future__ import annotations

import json
import logging
from collections import deque
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import discord
import pytest
import simcord
from discord import app_commands

from bot.commands import COMMANDS, EXTRA
from bot.discord.client import build_bot
from bot.service import GameService, Reply
from db.drivers.sqlite import SqliteStore
from rules.core.dice import Die
from rules.core.i18n import translate

SCENARIO = (
    Path(__file__).resolve().parents[3]
    / "rules"
    / "manovra"
    / "scenarios"
    / "esempio_normandia.yaml"
)


class LenientDice:
    """System dice for the tests: queued faces first, then 1s (the lowest face)."""

    def __init__(self) -> None:
        self.faces: deque[int] = deque()

    @property
    def by_hand(self) -> bool:
        return False

    def push(self, *faces: int) -> None:
        self.faces.extend(faces)

    def face(self, die: Die, label: str) -> int:
        value = self.faces.popleft() if self.faces else 1
        assert die.can_show(value), f"{die.name} cannot show {value} ({label})"
        return value


@dataclass
class Table:
    """A guild with a game channel, a referee, two players and a stranger."""

    env: simcord.Env
    service: GameService
    dice: LenientDice
    guild: simcord.GuildHandle
    channel: simcord.ChannelHandle
    referee: simcord.MemberActor
    anna: simcord.MemberActor
    bruno: simcord.MemberActor
    stranger: simcord.MemberActor

    async def seat_campaign(self, channel: Any, anna: str, bruno: str | None = None) -> None:
        """The referee invites Anna (and Bruno) to a campaign's sides, and they join them: no
        side is taken without consent."""
        for member, side in ((self.anna, anna), (self.bruno, bruno)):
            if side is not None:
                await self.referee.slash(channel, "campaign invite", user=member._actor, side=side)
                assert_public(await member.slash(channel, "campaign join", side=side))


@pytest.fixture()
async def discord_store(tmp_path):
    store = await SqliteStore.open(str(tmp_path / "arbitro.db"))
    yield store
    await store.close()


@pytest.fixture()
def discord_dice() -> LenientDice:
    return LenientDice()


@pytest.fixture()
def discord_service(discord_store, discord_dice) -> GameService:
    return GameService(discord_store, dice=discord_dice)


@pytest.fixture()
def simcord_bot(discord_service):
    """The bot under test, as bot.app.main builds it (consumed by SimCord's simcord_env)."""
    return build_bot(discord_service, shard_count=1)


@pytest.fixture()
def table(simcord_env, discord_service, discord_dice) -> Table:
    guild = simcord_env.create_guild(name="club")
    channel = guild.create_text_channel("normandia")
    members = [
        PlayerTyping(guild.add_member(simcord_env.create_user(name)))
        for name in ("referee", "anna", "bruno", "stranger")
    ]
    return Table(simcord_env, discord_service, discord_dice, guild, channel, *members)


class PlayerTyping:
    """A member who types a ruleset's own options as Discord shows them: inside ``extra``
    (``/fire unit:… extra:"ammo:AP facing:side"``); every other call passes through."""

    def __init__(self, actor: Any) -> None:
        self._actor = actor

    def __getattr__(self, name: str) -> Any:
        return getattr(self._actor, name)

    async def slash(self, channel: Any, path: str, **values: Any) -> Any:
        command = next((c for c in COMMANDS if c.name == path), None)
        if command is not None and command.extras:
            extras = {o.name for o in command.extras}
            folded = [f"{k}:{v}" for k, v in values.items() if k in extras]
            values = {k: v for k, v in values.items() if k not in extras}
            if folded:
                values[EXTRA] = " ".join(folded)
        return await self._actor.slash(channel, path, **values)


# -- helpers --------------------------------------------------------------------------------------


def texts(message: Any) -> str:
    """Everything a message shows: content, embed titles, descriptions, fields, footers."""
    parts = [message.content or ""]
    for embed in message.embeds:
        parts += [embed.title or "", embed.description or "", embed.footer.text or ""]
        for field in embed.fields:
            parts += [field.name or "", field.value or ""]
    return "\n".join(parts)


def all_texts(result: simcord.InteractionResult) -> str:
    messages = ([result.response] if result.response else []) + result.followups
    return "\n".join(texts(message) for message in messages)


def buttons(message: Any) -> list[dict[str, Any]]:
    return [
        component
        for row in message.components
        for component in row.get("components", [])
        if component.get("type") == 2
    ]


def button(message: Any, verb: str, **options: str) -> dict[str, Any]:
    wanted = [
        b
        for b in buttons(message)
        if b["custom_id"].split(":")[1] == verb
        and all(f"{k}={v}" in b["custom_id"] for k, v in options.items())
    ]
    assert len(wanted) == 1, [b["custom_id"] for b in buttons(message)]
    return wanted[0]


def assert_private_error(result: simcord.InteractionResult, text: str | None = None) -> str:
    """A refusal: one ephemeral message only the user sees, and nothing public.

    For a slash command that message is the response itself; a button click is first
    acknowledged as an invisible update of its message, and the error follows ephemerally.
    """
    assert result.acknowledged, result
    if result.deferred and result.followups:  # a button click
        assert len(result.followups) == 1, result
        message = result.followups[0]
    else:
        assert result.response is not None and not result.followups, result
        message = result.response
    assert message.ephemeral and not message.embeds, message
    content = message.content
    assert content and "error." not in content and "{" not in content, content
    if text is not None:
        assert content == text
    return content


def assert_public(result: simcord.InteractionResult) -> Any:
    assert result.acknowledged and not result.ephemeral, result
    assert result.response is not None and result.response.embeds, result
    return result.response


async def start_game(table: Table) -> None:
    result = await table.referee.slash(
        table.channel, "game new", ruleset="manovra", scenario="esempio_normandia", language="it"
    )
    response = assert_public(result)
    assert "Normandia, giugno 1944 (esempio)" in texts(response)
    assert "squadra_1" in texts(response)  # the status: one line per unit
    assert_public(await table.anna.slash(table.channel, "game join", side="alleati"))
    assert_public(await table.bruno.slash(table.channel, "game join", side="asse"))


# -- the whole game ------------------------------------------------------------------------------


async def test_a_whole_turn_through_discord(table: Table) -> None:
    channel, referee, anna, bruno = table.channel, table.referee, table.anna, table.bruno
    dice = table.dice

    # No game yet: the error follows the user's locale (SimCord's clients are en-US).
    assert_private_error(
        await anna.slash(channel, "game status"), translate("error.service.no_game", "en")
    )
    await start_game(table)
    result = await table.stranger.slash(channel, "turn next")
    # From now on the bot knows the game's language: Italian.
    assert_private_error(result, translate("error.service.join_first", "it"))
    assert_private_error(await bruno.slash(channel, "turn next"))  # not the Axis' move
    result = await anna.slash(channel, "turn next")
    assert translate("manovra.turn.step", "it", turn=1, step=2) in texts(assert_public(result))

    # Step 2: an IFR with dice typed by hand → Confirm / Dispute buttons.
    result = await anna.slash(
        channel,
        "callarty",
        unit="comando_plotone",
        battery="batteria_105",
        target="bosco nord",
        distance=20.0,
        link="stesso_plotone_radio",
        dice="6,3",
    )
    request = assert_public(result)
    shown = texts(request)
    assert "`D6 → 6`" in shown and "IFR" in shown
    footers = [e.footer.text or "" for e in request.embeds]
    assert any(translate("render.by_hand", "it") in footer for footer in footers)
    # The reply's last footer carries the chain head's short hash (the anchor).
    head = (await table.service._store.load(channel.id)).head_hash
    assert footers[-1].endswith(translate("bot.chain_head", "it", hash=head[:8]))
    confirm = button(request, "dice.confirm")
    assert confirm["label"] == translate("discord.button.confirm", "it")
    # Confirming one's own dice is refused, ephemerally; the opponent disputes them.
    assert_private_error(
        await anna.click(request, custom_id=confirm["custom_id"]),
        translate("error.service.own_dice", "it"),
    )
    dispute = button(request, "dice.dispute")["custom_id"]
    seq = int(dispute.rsplit("seq=", 1)[1])  # the button carries the event it is about
    disputed = await bruno.click(request, custom_id=dispute)
    assert disputed.followups and not disputed.followups[0].ephemeral
    assert translate("bot.dice.disputed", "it", seq=seq) in texts(disputed.followups[0])
    stored = next(m for m in channel.history() if m.id == request.id)
    assert all(b.disabled for row in stored.components for b in row.children)

    # /odds while planning: shown to the asker only, nothing rolled, no buttons.
    result = await anna.slash(channel, "odds", unit="squadra_1", target="gruppe_1", distance=12.0)
    assert result.ephemeral and result.response is not None
    odds = texts(result.response)
    assert translate("render.odds", "it") in odds and "%" in odds and "`D" not in odds
    assert not result.response.components

    assert_public(await anna.slash(channel, "turn next"))

    # Step 3: declarations ping the opponent, and only them.
    result = await anna.slash(channel, "manoeuvre declare", platoon="plotone_fucilieri")
    message = assert_public(result).message
    assert message.content == bruno.mention
    assert [user.id for user in message.mentions] == [bruno.id]
    dice.push(6, 1, 1)
    result = await bruno.slash(channel, "manoeuvre pass")
    assert assert_public(result).content == anna.mention

    # Wrong side's unit, unknown unit: ephemeral, localized, nothing public.
    assert_private_error(
        await bruno.slash(channel, "fire", unit="squadra_1", target="gruppe_1", distance=12.0)
    )
    unknown = assert_private_error(
        await anna.slash(channel, "fire", unit="squadra_9", target="gruppe_1", distance=12.0)
    )
    assert "squadra_9" in unknown

    # A fire: dice faces, modifiers, the table cell read, the odds.
    dice.push(10)
    result = await anna.slash(channel, "fire", unit="squadra_1", target="gruppe_1", distance=12.0)
    fire = assert_public(result)
    shot = fire.embeds[-1]
    assert shot.title == translate("manovra.procedure.small_arms", "it")
    first = shot.fields[0]
    assert first.name.startswith("1. ")
    assert "`D12 → 10`" in first.value
    assert "«1»*" in first.value and "8-12 M" in first.value  # the cell, in italics
    assert any(f.name == translate("render.odds", "it") and "%" in f.value for f in shot.fields)
    assert shot.description  # the outcome

    assert_public(
        await anna.slash(
            channel, "move", unit="comando_plotone", terrain="piano_boscoso", distance=6.0
        )
    )
    assert_public(await anna.slash(channel, "move", unit="squadra_2", kind="hold"))

    # Second phase: a hand-rolled hit on the Panzer owes it an SF and a CT (follow-ups).
    assert_public(await anna.slash(channel, "manoeuvre declare", platoon="plotone_carri"))
    dice.push(6, 1, 1)
    assert_public(await bruno.slash(channel, "manoeuvre declare", platoon="panzer"))
    result = await anna.slash(
        channel,
        "fire",
        unit="sherman_1",
        target="panzer_iv",
        distance=40.0,
        ammo="AP",
        dice="7,12,3",
    )
    hit = assert_public(result)
    assert "«arma distrutta + 1 morto + CT»" in texts(hit)
    sf = button(hit, "test", unit="panzer_iv", kind="SF")
    ct = button(hit, "test", unit="panzer_iv", kind="CT")
    assert ct["label"] == translate("manovra.follow.test", "it", test="CT", unit="Panzer IV")
    # Anna may not roll the Axis' test: ephemeral refusal, the button stays usable.
    assert_private_error(await anna.click(hit, custom_id=ct["custom_id"]))

    # A restart: a new bot on the same store; the old message's buttons still work.
    await table.env.restart_bot(build_bot(table.service, shard_count=1))
    dice.push(1, 10)
    clicked = await bruno.click(hit, custom_id=sf["custom_id"])
    assert clicked.followups and "SF" in texts(clicked.followups[0])
    dice.push(6, 1)
    clicked = await bruno.click(hit, custom_id=ct["custom_id"])
    assert "CT" in texts(clicked.followups[0])
    confirm = button(hit, "dice.confirm")["custom_id"]
    confirmed = await bruno.click(hit, custom_id=confirm)
    assert translate("bot.dice.confirmed", "it", seq=int(confirm.rsplit("seq=", 1)[1])) in texts(
        confirmed.followups[0]
    )
    stored = next(m for m in channel.history() if m.id == hit.id)
    assert all(b.disabled for row in stored.components for b in row.children)

    assert_private_error(
        await bruno.slash(channel, "fire", unit="panzer_iv", target="sherman_1", distance=40.0)
    )  # skip fire
    assert_public(await bruno.slash(channel, "move", unit="panzer_iv", kind="hold"))
    assert_public(await anna.slash(channel, "move", unit="sherman_2", kind="hold"))

    # Third phase: the referee assaults for the absent Axis player (a long resolution).
    assert_public(await anna.slash(channel, "manoeuvre declare", platoon="sezione_mortai"))
    dice.push(1, 1, 1, 1)
    assert_public(await bruno.slash(channel, "manoeuvre declare", platoon="zug_1"))
    result = await referee.slash(channel, "assault", unit="gruppe_1", target="squadra_1")
    assault = all_texts(result)
    assert translate("discord.embed.acted_for", "it", side="asse") in assault
    assert translate("manovra.procedure.close_combat", "it") in assault
    assert "16. " in assault  # every duel is a step, none dropped
    for unit in ("mg_team", "pak"):
        assert_public(await bruno.slash(channel, "move", unit=unit, kind="hold"))
    dice.push(1)
    result = await anna.slash(channel, "move", unit="mortai", kind="hold")
    step4 = assert_public(result)
    execute = button(step4, "execute", marker="if1-1")

    # Step 4: the follow-up button executes the marker; /execute again is refused.
    dice.push(1, 1, 1)
    clicked = await anna.click(step4, custom_id=execute["custom_id"])
    assert translate("manovra.procedure.scatter", "it") in texts(clicked.followups[0])
    assert_private_error(await anna.slash(channel, "execute", marker="if1-1"))
    result = await anna.slash(channel, "fragments", target="gruppe_1", marker="if1-1", dice="9")
    assert "«morto -P»" in texts(assert_public(result))

    # Tests nobody owes are refused, privately, before their dice (issue 26); so is a
    # recovery out of the unit's turn.
    assert_private_error(
        await anna.slash(channel, "test", unit="squadra_2", kind="PT", dice="5,7"),
        "L'unità 2ª squadra non deve alcun test PT. Ora non si deve nulla."
        " Ora puoi: /fragments, /turn next.",
    )
    assert_private_error(await anna.slash(channel, "morale", unit="squadra_2", action="test"))
    assert_private_error(
        await anna.slash(channel, "morale", unit="squadra_2", action="recover")
    )  # wrong step

    # Status, log, export, undo, deadline, end.
    assert "Turno" in texts(assert_public(await bruno.slash(channel, "turn status")))
    status = texts(assert_public(await bruno.slash(channel, "game status")))
    assert "Panzer IV" in status and "`panzer_iv`" in status
    log = texts(assert_public(await bruno.slash(channel, "game log", count=50)))
    assert "(l'arbitro ha agito per Asse)" in log
    result = await bruno.slash(channel, "game export")
    exported = assert_public(result)
    files = {a.filename: await a.read() for a in exported.attachments}
    assert sorted(files) == ["arbitro-log.json", "arbitro-report.md"]
    assert json.loads(files["arbitro-log.json"])["events"]
    assert b"/turn next" in files["arbitro-report.md"]
    assert_private_error(
        await anna.slash(channel, "game undo"), translate("error.service.referee_only", "it")
    )
    assert "#" in texts(assert_public(await referee.slash(channel, "game undo")))
    result = await referee.slash(channel, "game deadline", hours=12, side="asse")
    assert "12" in texts(assert_public(result))
    assert_private_error(await anna.slash(channel, "game end"))
    assert_public(await referee.slash(channel, "game end"))
    assert_private_error(
        await anna.slash(channel, "turn next"), translate("error.service.game_ended", "it")
    )


# -- autocomplete ---------------------------------------------------------------------------------


async def test_autocomplete_is_filtered_bounded_and_never_fails(table: Table) -> None:
    # Before any game: nothing, and no error.
    assert await table.anna.autocomplete(table.channel, "fire", "unit", "") == []
    scenarios = await table.anna.autocomplete(table.channel, "game new", "scenario", "esempio_norm")
    assert scenarios == [
        {"name": "esempio_normandia", "value": "esempio_normandia"},
        {"name": "esempio_normandia_campo", "value": "esempio_normandia_campo"},
    ]
    await start_game(table)
    units = await table.anna.autocomplete(table.channel, "fire", "unit", "squ")
    assert [c["value"] for c in units] == ["squadra_1", "squadra_2"]
    # Shown by their names in the game's language, the id the value sent.
    assert [c["name"] for c in units] == ["1ª squadra", "2ª squadra"]
    named = await table.anna.autocomplete(table.channel, "fire", "unit", "2ª")
    assert named == [{"name": "2ª squadra", "value": "squadra_2"}]
    targets = [
        c["value"] for c in await table.anna.autocomplete(table.channel, "fire", "target", "")
    ]
    assert "gruppe_1" in targets and "squadra_1" not in targets and len(targets) <= 25
    terrains = await table.anna.autocomplete(table.channel, "move", "terrain", "")
    assert 0 < len(terrains) <= 25
    assert all(
        "bosc" in c["value"]
        for c in await table.anna.autocomplete(table.channel, "move", "terrain", "bosc")
    )
    sides = await table.anna.autocomplete(table.channel, "game join", "side", "")
    assert [c["value"] for c in sides] == ["alleati", "asse"]
    weapons = await table.bruno.autocomplete(table.channel, "fire", "weapon", "")
    assert "mg42" in [c["value"] for c in weapons] and "bar" not in [c["value"] for c in weapons]

    async def broken(*args: Any) -> list[str]:
        raise RuntimeError("storage down")

    table.service.choices = broken  # type: ignore[method-assign]
    assert await table.anna.autocomplete(table.channel, "fire", "unit", "") == []


# -- game creation from an uploaded file ----------------------------------------------------------


async def test_new_game_from_an_uploaded_scenario(table: Table) -> None:
    other = table.guild.create_text_channel("upload")
    bad = await table.referee.slash(
        other, "game new", file=("mine.yaml", b"id: x\nsides: [\n  - a\n")
    )
    message = assert_private_error(bad)
    assert "line" in message or "riga" in message  # line-precise, from the service
    binary = await table.referee.slash(other, "game new", file=("mine.yaml", b"\xff\xfe\x00"))
    assert_private_error(binary, translate("discord.error.not_utf8", "en", file="mine.yaml"))
    result = await table.referee.slash(
        other, "game new", language="en", file=("mine.yaml", SCENARIO.read_bytes())
    )
    assert "Normandy, June 1944 (example)" in texts(assert_public(result))  # an English game
    # The game's language (English) now governs this channel's errors.
    assert_private_error(
        await table.stranger.slash(other, "turn next"), translate("error.service.join_first", "en")
    )


# -- reminders ------------------------------------------------------------------------------------


async def test_deadline_reminders_are_posted_with_pings(table: Table) -> None:
    await start_game(table)
    assert_public(await table.referee.slash(table.channel, "game deadline", hours=1, side="asse"))
    real = table.service.due_reminders

    async def two_hours_later(
        now: datetime | None = None, **options: Any
    ) -> list[tuple[int, Reply]]:
        return await real(datetime.now(UTC) + timedelta(hours=2), **options)

    table.service.due_reminders = two_hours_later  # type: ignore[method-assign]
    await table.env.advance_time(61)  # the bot's 60 s loop runs once more
    reminder = table.channel.last_message
    assert reminder is not None and reminder.content == table.bruno.mention
    assert [user.id for user in reminder.mentions] == [table.bruno.id]
    assert "Asse" in texts(reminder)
    before = len(table.channel.history())
    await table.env.advance_time(61)
    assert len(table.channel.history()) == before  # once only


# -- failures -------------------------------------------------------------------------------------


async def test_an_unexpected_error_is_logged_and_apologised_for(
    table: Table, caplog: pytest.LogCaptureFixture
) -> None:
    async def crash(request: Any) -> Reply:
        raise RuntimeError("disk on fire")

    table.service.handle = crash  # type: ignore[method-assign]
    with caplog.at_level(logging.ERROR, logger="bot.discord"):
        result = await table.anna.slash(
            table.channel, "fire", unit="squadra_1", target="gruppe_1", distance=12.0, dice="4"
        )
    assert_private_error(result, translate("discord.error.unexpected", "en"))
    record = next(r for r in caplog.records if r.levelno == logging.ERROR)
    logged = record.getMessage()
    assert "fire" in logged and str(table.channel.id) in logged and str(table.anna.id) in logged
    assert "squadra_1" in logged and record.exc_info is not None


async def test_a_slow_service_defers_and_keeps_errors_private(table: Table) -> None:
    """Past the defer budget the bot shows "thinking…"; a late refusal still goes privately,
    leaving only a one-line public notice in place of the thinking message."""
    import asyncio

    from rules.core.errors import IllegalAction

    def last_callback_type() -> int:
        calls = [
            r
            for r in table.env.http_requests
            if r.method == "POST" and r.path.endswith("/callback")
        ]
        return int(calls[-1].json["type"])

    await start_game(table)
    real = table.service.handle

    async def slow(request: Any) -> Reply:
        await asyncio.sleep(5)  # virtual time: SimCord advances it on request
        return await real(request)

    table.service.handle = slow  # type: ignore[method-assign]
    result = await table.anna.slash(table.channel, "turn status")
    await table.env.advance_time(10)
    assert last_callback_type() == 5  # DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE ("thinking…")
    assert not result.ephemeral and "Turno" in texts(result.response)

    async def slow_refusal(request: Any) -> Reply:
        await asyncio.sleep(5)
        raise IllegalAction("error.service.referee_only")

    table.service.handle = slow_refusal  # type: ignore[method-assign]
    result = await table.anna.slash(table.channel, "game undo")
    await table.env.advance_time(10)
    assert last_callback_type() == 5
    assert result.response is not None and not result.response.ephemeral
    assert result.response.content == translate("discord.error.see_private", "it")
    assert len(result.followups) == 1 and result.followups[0].ephemeral
    assert result.followups[0].content == translate("error.service.referee_only", "it")

    # A fast answer is never deferred: the refusal is the (ephemeral) response itself.
    table.service.handle = real  # type: ignore[method-assign]
    assert_private_error(await table.anna.slash(table.channel, "game undo"))
    assert last_callback_type() == 4


async def test_requests_carry_the_interaction_user_and_guild(table: Table) -> None:
    """The interaction id reaches the service (which applies a retried interaction once),
    with the user's name and the guild."""
    await start_game(table)
    seen: list[str | None] = []
    real = table.service.handle

    async def spy(request: Any) -> Reply:
        seen.append(request.interaction_id)
        assert request.user_name and request.guild_id == table.guild.id
        return await real(request)

    table.service.handle = spy  # type: ignore[method-assign]
    await table.anna.slash(table.channel, "turn next")
    assert len(seen) == 1 and seen[0] and seen[0].isdigit()


def test_intents_are_not_privileged() -> None:
    intents = build_bot(GameService(object())).intents  # type: ignore[arg-type]
    assert not (intents.members or intents.presences or intents.message_content)
    assert intents.guilds
    assert isinstance(intents, discord.Intents)


class Strict(app_commands.Transformer):
    """Rejects every value (to exercise the transformer-error path)."""

    async def transform(self, interaction: discord.Interaction[Any], value: Any) -> Any:
        raise app_commands.TransformerError(value, discord.AppCommandOptionType.string, self)


@pytest.mark.simcord()  # SimCord runs on asyncio's loop (tests/conftest.py)
async def test_checks_and_transformers_meet_the_one_error_handler(discord_service) -> None:
    """Refusals raised by discord.py itself (a check, a value a transformer rejects) go
    through the tree's single error handler: an ephemeral, localized line."""

    @app_commands.command(name="locked", description="always refused by a check")
    @app_commands.check(lambda interaction: False)
    async def locked(interaction: discord.Interaction[Any]) -> None:
        raise AssertionError("a failed check never runs the command")

    @app_commands.command(name="strict", description="a value no transformer accepts")
    async def strict(
        interaction: discord.Interaction[Any], value: app_commands.Transform[str, Strict]
    ) -> None:
        raise AssertionError("a failed transformer never runs the command")

    bot = build_bot(discord_service, shard_count=1)
    bot.tree.add_command(locked)
    bot.tree.add_command(strict)
    async with simcord.run(bot) as env:
        guild = env.create_guild()
        channel = guild.create_text_channel("x")
        member = guild.add_member(env.create_user("anna"))
        assert_private_error(
            await member.slash(channel, "locked"), translate("discord.error.check", "en")
        )
        assert_private_error(
            await member.slash(channel, "strict", value="zzz"),
            translate("discord.error.transform", "en", value="zzz"),
        )
        assert [type(error) for error in env.errors] == [
            app_commands.CheckFailure,
            app_commands.TransformerError,
        ]


# -- physical dice, roll by roll ------------------------------------------------------------------


def face_buttons(message: Any) -> list[list[dict[str, Any]]]:
    """The rows of die-face buttons of a message."""
    return [
        [c for c in row.get("components", []) if c["custom_id"].startswith("arbitro-die:")]
        for row in message.components
    ]


async def test_a_die_asked_for_is_answered_with_face_buttons(table: Table) -> None:
    channel, anna, bruno = table.channel, table.anna, table.bruno
    await start_game(table)
    assert_public(await anna.slash(channel, "turn next"))
    assert_public(await anna.slash(channel, "turn next"))
    assert_public(await anna.slash(channel, "manoeuvre declare", platoon="plotone_carri"))
    table.dice.push(6, 1, 1)
    assert_public(await bruno.slash(channel, "manoeuvre declare", platoon="panzer"))

    # Anna rolled the hit only: the penetration die is asked for, a D12 in three rows of 4.
    result = await anna.slash(
        channel, "fire", unit="sherman_1", target="panzer_iv", distance=40.0, ammo="AP", dice="7"
    )
    asked = assert_public(result)
    assert "D12" in texts(asked) and "penetra" in texts(asked)
    rows = face_buttons(asked)
    assert [[b["label"] for b in row] for row in rows] == [
        ["1", "2", "3", "4"],
        ["5", "6", "7", "8"],
        ["9", "10", "11", "12"],
    ]
    twelve = rows[2][3]["custom_id"]
    assert len(twelve) <= 100

    # Bruno may not roll Anna's die: a private refusal, the buttons stay.
    assert_private_error(
        await bruno.click(asked, custom_id=twelve), translate("error.service.not_your_roll", "it")
    )
    # A restart: the prompt is kept by the store, its buttons still work.
    await table.env.restart_bot(build_bot(table.service, shard_count=1))
    clicked = await anna.click(asked, custom_id=twelve)
    effects = clicked.followups[0]
    assert "D10" in texts(effects)
    assert [len(row) for row in face_buttons(effects) if row] == [5, 5]  # a D10: two rows of five
    stored = next(m for m in channel.history() if m.id == asked.id)
    assert all(b.disabled for row in stored.components for b in row.children)  # answered

    three = next(b for row in face_buttons(effects) for b in row if b["label"] == "3")
    clicked = await anna.click(effects, custom_id=three["custom_id"])
    resolved = texts(clicked.followups[0])
    assert "«arma distrutta + 1 morto + CT»" in resolved
    assert button(clicked.followups[0], "dice.confirm")  # dice by hand: the opponent confirms


# -- the table's life: help, tables, a second game, the list --------------------------------------


async def test_help_tables_and_a_second_game_through_discord(table: Table) -> None:
    await start_game(table)
    help_reply = await table.anna.slash(table.channel, "help", command="fire")
    assert help_reply.ephemeral and help_reply.response is not None
    shown = texts(help_reply.response)
    assert "/fire" in shown and "ammo" in shown and "cover" not in shown  # manovra's options
    commands = await table.anna.autocomplete(table.channel, "help", "command", "manoeuvre")
    assert {"name": "manoeuvre declare", "value": "manoeuvre declare"} in commands
    table_reply = await table.anna.slash(table.channel, "rules table", table="penetrazione")
    assert table_reply.ephemeral and "```" in all_texts(table_reply)
    assert_public(await table.referee.slash(table.channel, "game end"))
    second = await table.referee.slash(table.channel, "game new", ruleset="w40k4", language="en")
    assert "archived as #" in texts(assert_public(second))
    listing = all_texts(await table.bruno.slash(table.channel, "game list"))
    assert f"<#{table.channel.id}>" in listing and "archived" in listing
    w40k_help = all_texts(await table.anna.slash(table.channel, "help"))
    assert "/manoeuvre declare" not in w40k_help and "/fire" in w40k_help


async def test_seats_take_backs_and_a_pace_through_discord(table: Table) -> None:
    result = await table.referee.slash(
        table.channel, "game new", ruleset="manovra", scenario="esempio_normandia", language="fr"
    )
    assert_public(result)
    assigned = await table.referee.slash(
        table.channel, "seat assign", user=table.anna._actor, side="alleati"
    )
    assert "joue maintenant Alliés" in texts(assert_public(assigned))
    refused = await table.anna.slash(
        table.channel, "seat assign", user=table.bruno._actor, side="asse"
    )
    assert_private_error(refused)
    assert_public(await table.bruno.slash(table.channel, "game join", side="asse"))
    paced = await table.referee.slash(table.channel, "game pace", hours=12)
    assert "<t:" in texts(assert_public(paced))  # Discord timestamps, each reader's own time
    status = texts(assert_public(await table.stranger.slash(table.channel, "game status")))
    assert table.anna.mention in status and "Arbitre" in status  # the roster
    moved = await table.anna.slash(table.channel, "turn next")
    assert_public(moved)
    taken = await table.anna.slash(table.channel, "takeback")
    assert "repris" in texts(assert_public(taken))
    rewind = await table.anna.slash(table.channel, "game rewind", seq=1)
    assert_private_error(rewind)  # the referee's


async def test_a_large_export_is_attached_from_disk_and_its_spool_removed(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    import bot.service.export
    from db.chain.hashing import verify_links

    monkeypatch.setattr(bot.service.export, "IN_MEMORY_BYTES", 0)  # every file spooled on disk
    spools: list[Path] = []
    export_files = bot.service.export.export_files

    async def spooling(*args: Any, **kwargs: Any) -> Any:
        exported = await export_files(*args, **kwargs)
        spools.append(exported.spool)
        return exported

    monkeypatch.setattr("bot.service.views.export_files", spooling)
    await start_game(table)
    result = await table.bruno.slash(table.channel, "game export")
    exported = assert_public(result)
    files = {a.filename: await a.read() for a in exported.attachments}
    assert sorted(files) == ["arbitro-log.json", "arbitro-report.md"]
    data = json.loads(files["arbitro-log.json"])
    # A player's export of a ruleset that can hide units: its links verify, not its states.
    assert verify_links(data) == data["head_hash"]
    assert spools and spools[0] is not None and not spools[0].exists()


# -- the end of a game -----------------------------------------------------------------------------


async def test_a_scenario_played_to_its_end_posts_the_result(table: Table) -> None:
    channel, referee = table.channel, table.referee
    await referee.slash(
        channel, "game new", ruleset="w40k4", scenario="avamposto_campo", language="en"
    )
    assert_public(await table.anna.slash(channel, "game join", side="legione"))
    assert_public(await table.bruno.slash(channel, "game join", side="predoni"))
    # The score if the game ended now, in /game status.
    status = texts(assert_public(await table.anna.slash(channel, "game status")))
    assert translate("bot.result.score_title", "en") in status
    # The referee passes every phase to the last turn (the extension's D6 shows 1: none).
    for _ in range(120):
        result = await referee.slash(channel, "turn next")
        message = assert_public(result)
        if any((e.title or "").startswith("🏁") for e in message.embeds):
            break
    else:
        pytest.fail("the game did not end")
    embed = next(e for e in message.embeds if (e.title or "").startswith("🏁"))
    assert "turn 6" in (embed.title or "")
    fields = {field.name: field.value for field in embed.fields}
    assert translate("bot.result.points", "en") in fields
    assert "Astral Legion" in fields[translate("bot.result.points", "en")]
    assert "Winner: " in texts(message) or translate("bot.result.draw", "en") in texts(message)
    assert message.attachments, "the final map, its objectives marked"
    # Everyone at the table is told, and the game is over.
    assert table.anna.id and str(table.anna.id) in (message.content or "")
    assert_private_error(
        await referee.slash(channel, "turn next"), translate("error.service.game_ended", "en")
    )


async def test_a_concession_is_confirmed_with_a_button(table: Table) -> None:
    channel = table.channel
    await start_game(table)
    asked = await table.anna.slash(channel, "game concede")
    assert asked.ephemeral, asked
    question = asked.response
    assert translate("bot.concede.ask", "it", side="Alleati") in texts(question)
    cancel = button(question, "game.concede", cancel="true")
    kept = await table.anna.click(question, custom_id=cancel["custom_id"])
    assert translate("bot.concede.cancelled", "it") in all_texts(kept)
    asked = await table.anna.slash(channel, "game concede")
    question = asked.response
    confirm = next(b for b in buttons(question) if "confirm=" in b["custom_id"])
    ended = await table.anna.click(question, custom_id=confirm["custom_id"])
    shown = all_texts(ended)
    assert "🏁" in shown and "Asse" in shown, shown
    assert_private_error(
        await table.referee.slash(channel, "turn next"),
        translate("error.service.game_ended", "it"),
    )
