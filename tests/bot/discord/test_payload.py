"""The slash commands as Discord receives them: limits in every locale, translations, sync.

Discord rejects a whole sync when one name, description or option breaks a limit, so the
payload is checked here offline, exactly as ``tree.sync`` would send it.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import discord
import pytest
import simcord
from discord import app_commands

from bot.discord.client import (
    build_bot,
    dry_run_payload,
    dummy_service,
    payload_hash,
    sync_payload,
    translated_payload,
)
from bot.discord.translator import LOCALES, CatalogueTranslator, is_valid_name
from rules.core.i18n import LANGUAGES, catalogue
from rules.core.ruleset import KNOWN_RULESETS

HASH_FILE = Path(__file__).resolve().parents[1] / "command_payload.sha256"
UPDATE_HASH = "ARBITRO_UPDATE_COMMAND_HASH"
LOCALE_KEYS = ("it", "fr", "en-US", "en-GB")
SUBCOMMAND_TYPES = (1, 2)

COMMANDS = {
    "game": {
        "new",
        "join",
        "leave",
        "referee",
        "takeover",
        "creators",
        "status",
        "log",
        "export",
        "list",
        "rewind",
        "undo",
        "end",
        "concede",
        "deadline",
        "pace",
        "web",
    },
    "turn": {"status", "next"},
    "manoeuvre": {"declare", "pass"},
    "move": None,
    "fire": None,
    "odds": None,
    "embark": None,
    "disembark": None,
    "hook": None,
    "unhook": None,
    "callarty": None,
    "morale": None,
    "test": None,
    "assault": None,
    "execute": None,
    "fragments": None,
    "step": None,
    "template": None,
    "combat": None,
    "map": None,
    "roll": None,
    "takeback": None,
    "campaign": {
        "new",
        "join",
        "invite",
        "status",
        "log",
        "game",
        "end",
        "aftermath",
        "confirm",
        "dispute",
        "adjust",
        "export",
        "overdue",
        "roster",
        "web",
    },
    "seat": {"assign", "approve", "remove", "bind"},
    "reroll": None,
    "help": None,
    "rules": {"table"},
    "notify": {"set", "quiet", "digest", "mute", "show", "test", "inbox"},
}


@pytest.fixture(scope="module")
def payload() -> list[dict[str, Any]]:
    return sync_payload()


def nodes(command: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The command and every subcommand, group and option below it."""
    yield command
    for option in command.get("options", []):
        yield from nodes(option)


def leaves(command: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The commands that take options: the command itself or its subcommands."""
    children = [o for o in command.get("options", []) if o["type"] in SUBCOMMAND_TYPES]
    if not children:
        yield command
    for child in children:
        yield from leaves(child)


def localized(node: dict[str, Any], key: str, locale: str | None) -> str:
    if locale is None:
        return str(node[key])
    return str((node.get(f"{key}_localizations") or {}).get(locale, node[key]))


# -- the commands ---------------------------------------------------------------------------------


def test_the_commands_are_the_expected_ones(payload):
    assert {
        c["name"]: (
            {o["name"] for o in c.get("options", []) if o["type"] in SUBCOMMAND_TYPES} or None
        )
        for c in payload
    } == COMMANDS
    fire = next(c for c in payload if c["name"] == "fire")
    odds = next(c for c in payload if c["name"] == "odds")
    assert [o["name"] for o in fire["options"]][:-1] == [o["name"] for o in odds["options"]]
    assert fire["options"][-1]["name"] == "dice"
    assert all(c["contexts"] == [0] for c in payload)  # guild channels only


def test_every_name_and_description_is_translated_in_every_locale(payload):
    for command in payload:
        for node in nodes(command):
            assert set(node.get("name_localizations") or {}) == set(LOCALE_KEYS), node["name"]
            if "description" in node:
                assert set(node.get("description_localizations") or {}) == set(LOCALE_KEYS)
            for choice in node.get("choices", []):
                assert set(choice.get("name_localizations") or {}) == set(LOCALE_KEYS)
    game = next(c for c in payload if c["name"] == "game")
    assert game["name_localizations"]["it"] == "partita"
    assert game["name_localizations"]["fr"] == "partie"
    assert game["name_localizations"]["en-GB"] == "game"


# -- Discord's limits -----------------------------------------------------------------------------


def test_at_most_100_top_level_commands(payload):
    assert len(payload) <= 100
    assert len({c["name"] for c in payload}) == len(payload)


@pytest.mark.parametrize("locale", [None, *LOCALE_KEYS])
def test_names_match_discords_pattern_and_are_lowercase(payload, locale):
    for command in payload:
        for node in nodes(command):
            name = localized(node, "name", locale)
            assert is_valid_name(name), (locale, name)


@pytest.mark.parametrize("locale", [None, *LOCALE_KEYS])
def test_descriptions_and_choice_names_are_1_to_100(payload, locale):
    for command in payload:
        for node in nodes(command):
            if "description" in node:
                text = localized(node, "description", locale)
                assert 1 <= len(text) <= 100, (locale, node["name"], text)
            for choice in node.get("choices", []):
                text = localized(choice, "name", locale)
                assert 1 <= len(text) <= 100, (locale, text)
                assert 1 <= len(str(choice["value"])) <= 100


@pytest.mark.parametrize("locale", [None, *LOCALE_KEYS])
def test_names_are_unique_where_discord_requires(payload, locale):
    top = [localized(c, "name", locale) for c in payload]
    assert len(set(top)) == len(top), (locale, top)
    for command in payload:
        for node in nodes(command):
            children = [localized(o, "name", locale) for o in node.get("options", [])]
            assert len(set(children)) == len(children), (locale, node["name"], children)


def test_options_and_choices_are_at_most_25_and_required_come_first(payload):
    for command in payload:
        for leaf in leaves(command):
            options = leaf.get("options", [])
            assert len(options) <= 25, leaf["name"]
            required = [bool(o.get("required")) for o in options]
            assert required == sorted(required, reverse=True), leaf["name"]
            for option in options:
                assert len(option.get("choices", [])) <= 25
                assert not (option.get("choices") and option.get("autocomplete"))
        assert len(command.get("options", [])) <= 25


def _longest(node: dict[str, Any], key: str) -> int:
    """Discord counts the longest of a field's default and localized values."""
    values = [str(node[key]), *(node.get(f"{key}_localizations") or {}).values()]
    return max(len(value) for value in values)


def _combined_text(command: dict[str, Any]) -> int:
    total = 0
    for node in nodes(command):
        total += _longest(node, "name")
        if "description" in node:
            total += _longest(node, "description")
        for choice in node.get("choices", []):
            total += _longest(choice, "name") + len(str(choice["value"]))
    return total


def test_each_command_fits_discords_size_limits(payload):
    for command in payload:
        # Discord: names, descriptions and choices of a command ≤ 4000 characters, counting
        # the longest localization of each. Localizations multiply the JSON itself, which
        # Discord does not limit per command; a loose bound still catches a runaway payload.
        assert _combined_text(command) <= 4000, command["name"]
        assert len(json.dumps(command, ensure_ascii=False)) <= 32_000, command["name"]


# -- the translator --------------------------------------------------------------------------------


async def test_the_translator_reads_the_catalogue_and_only_known_locales():
    translator = CatalogueTranslator()
    context = app_commands.TranslationContext(
        location=app_commands.TranslationContextLocation.other, data=None
    )
    fire = app_commands.locale_str("fire", key="discord.cmd.fire.name")
    assert await translator.translate(fire, discord.Locale.italian, context) == "fuoco"
    assert await translator.translate(fire, discord.Locale.french, context) == "tir"
    assert await translator.translate(fire, discord.Locale.british_english, context) == "fire"
    assert await translator.translate(fire, discord.Locale.german, context) is None
    plain = app_commands.locale_str("fire")
    assert await translator.translate(plain, discord.Locale.italian, context) is None
    missing = app_commands.locale_str("x", key="discord.cmd.nope.name")
    assert await translator.translate(missing, discord.Locale.italian, context) is None
    assert set(LOCALES.values()) == set(LANGUAGES)


def test_the_discord_catalogue_is_complete_in_the_three_languages():
    keys = {
        language: {k for k in catalogue(language) if k.startswith("discord.")}
        for language in LANGUAGES
    }
    assert keys["it"] and keys["it"] == keys["en"] == keys["fr"]


def test_name_validation():
    assert is_valid_name("unità") and is_valid_name("move_terrain") and is_valid_name("éclats")
    assert not is_valid_name("Fire") and not is_valid_name("two words")
    assert not is_valid_name("") and not is_valid_name("x" * 33) and not is_valid_name("a.b")


# -- sync -----------------------------------------------------------------------------------------


def _stable_hash(commands: list[dict[str, Any]]) -> str:
    """The hash the bot records after a sync (it syncs again only when this changes)."""
    text = json.dumps(commands, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert digest == payload_hash(commands)
    return digest


def test_the_commands_did_not_change_without_a_sync(payload):
    """A forgotten sync: the payload's hash is pinned; changing a command fails here until
    someone runs ``arbitro sync`` and re-pins it (``ARBITRO_UPDATE_COMMAND_HASH=1 pytest``)."""
    current = _stable_hash(payload)
    if os.environ.get(UPDATE_HASH) == "1":
        HASH_FILE.write_text(current + "\n", encoding="utf-8")
    pinned = HASH_FILE.read_text(encoding="utf-8").strip() if HASH_FILE.exists() else ""
    assert current == pinned, (
        "commands changed: run arbitro sync, then re-pin with "
        f"{UPDATE_HASH}=1 pytest tests/bot/discord/test_payload.py"
    )


@pytest.mark.simcord()  # SimCord runs on asyncio's loop (tests/conftest.py)
async def test_the_dry_run_is_what_the_bot_syncs_through_simcord(tmp_path):
    """setup_hook syncs globally on start, and sends exactly the dry-run payload."""
    bot = build_bot(dummy_service(), shard_count=1)
    async with simcord.run(bot) as env:
        puts = [r for r in env.http_requests if r.method == "PUT" and r.path.endswith("/commands")]
        assert len(puts) == 1 and "/guilds/" not in puts[0].path
        sent = puts[0].json
        channel = env.create_guild().create_text_channel("x")
        assert "game new" in env.guild.add_member(env.create_user("u")).available_commands(channel)
    assert sent == await dry_run_payload()


async def test_setup_hook_syncs_to_the_development_guild(monkeypatch):
    bot = build_bot(dummy_service(), guild_id=1234)
    calls: list[Any] = []

    async def fake_sync(*, guild: Any = None) -> list[Any]:
        calls.append(guild)
        return []

    monkeypatch.setattr(bot.tree, "sync", fake_sync)
    monkeypatch.setattr(bot.reminder_loop, "start", lambda *a, **k: None)
    await bot.setup_hook()
    assert [getattr(g, "id", None) for g in calls] == [1234]
    guild_commands = bot.tree.get_commands(guild=discord.Object(id=1234))
    assert {c.name for c in guild_commands} == set(COMMANDS)
    assert await translated_payload(bot, guild=discord.Object(id=1234)) == await dry_run_payload()
    await bot.close()


async def test_setup_hook_survives_an_unreachable_discord(monkeypatch, caplog):
    bot = build_bot(dummy_service())

    class Down(discord.HTTPException):
        def __init__(self) -> None:
            Exception.__init__(self, "503")

    async def failing_sync(*, guild: Any = None) -> list[Any]:
        raise Down()

    monkeypatch.setattr(bot.tree, "sync", failing_sync)
    monkeypatch.setattr(bot.reminder_loop, "start", lambda *a, **k: None)
    await bot.setup_hook()  # logs, does not raise: the previous sync still serves
    assert "command sync failed" in caplog.text
    await bot.close()


def test_the_payload_without_translations_has_no_localizations():
    plain = sync_payload(locale_aware=False)
    assert [c["name"] for c in plain] == list(COMMANDS)
    assert not any(
        "name_localizations" in node and node["name_localizations"]
        for command in plain
        for node in nodes(command)
    )


def test_no_command_crowds_the_player_and_rulesets_add_no_options():
    from bot.commands import COMMANDS, MAX_DIRECT_OPTIONS

    payload = sync_payload(locale_aware=False)
    assert max(len(leaf.get("options", [])) for c in payload for leaf in leaves(c)) <= 10
    assert all(len(c.options) <= MAX_DIRECT_OPTIONS for c in COMMANDS)
    # The declaration reads no ruleset: a fifth one cannot add an option to a shared command.
    import ast
    from pathlib import Path

    source = Path(__file__).resolve().parents[3] / "bot" / "commands.py"
    imported = {
        node.module
        for node in ast.walk(ast.parse(source.read_text()))
        if isinstance(node, ast.ImportFrom) and node.module
    }
    packages = {m.split(".")[1] for m in imported if m.startswith("rules.")}
    assert not packages & set(KNOWN_RULESETS), packages
