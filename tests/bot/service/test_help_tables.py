"""Help that fits the channel's ruleset, seed tables in chat, suggestions for typos."""

from __future__ import annotations

import io

import pytest

from bot.console.table import Console, ParseError, parse_line
from bot.service import Request
from rules.core.errors import RulesError
from rules.core.ruleset import get_ruleset

REFEREE = 1


async def _game(service, channel: int, ruleset: str, language: str) -> None:
    await service.handle(
        Request(channel, REFEREE, "game.new", {"ruleset": ruleset, "language": language})
    )


async def test_help_lists_the_rulesets_own_commands_and_options(service) -> None:
    await _game(service, 1, "w40k4", "en")
    await _game(service, 2, "manovra", "fr")
    w40k = await service.handle(Request(1, REFEREE, "help", {}))
    text = "\n".join(w40k.lines)
    assert "/manoeuvre declare" not in text and "/fire" in text and "/game new" in text
    fire = "\n".join((await service.handle(Request(1, REFEREE, "help", {"command": "fire"}))).lines)
    assert "cover" in fire and "ammo" not in fire and "impact" not in fire  # w40k4's, not manovra's
    manovra_fire = await service.handle(Request(2, REFEREE, "help", {"command": "/fire"}))
    text = "\n".join(manovra_fire.lines)
    assert "ammo" in text and "cover" not in text
    assert manovra_fire.language == "fr" and "obligatoire" in text  # the game's language
    lacking = await service.handle(Request(1, REFEREE, "help", {"command": "manoeuvre declare"}))
    assert "not a command of w40k4" in lacking.lines[0] and "/fire" in lacking.lines[0]
    with pytest.raises(RulesError) as typo:
        await service.handle(Request(1, REFEREE, "help", {"command": "fier"}))
    assert "/fire" in typo.value.localized("en")
    outside = await service.handle(Request(99, REFEREE, "help", {}, locale="en"))
    assert "/manoeuvre declare" in "\n".join(outside.lines)  # no game: every command


async def test_a_seed_table_is_shown_as_the_seed_lays_it_out(service) -> None:
    await _game(service, 3, "manovra", "it")
    listing = await service.handle(Request(3, REFEREE, "rules.table", {}))
    tables = get_ruleset("manovra").tables
    assert len(listing.lines) == len(list(tables))
    table_id = next(iter(tables)).id
    shown = await service.handle(Request(3, REFEREE, "rules.table", {"table": table_id}))
    assert shown.preformatted and shown.lines[1].startswith("seed:")
    assert shown.lines_title == "discord.embed.table"
    pzgren_table = next(iter(get_ruleset("pzgren").tables))
    other = await service.handle(
        Request(3, REFEREE, "rules.table", {"ruleset": "pzgren", "table": pzgren_table.id})
    )
    assert other.lines[0].startswith(pzgren_table.title)
    with pytest.raises(RulesError):
        await service.handle(Request(3, REFEREE, "rules.table", {"table": "nessuna"}))
    choices = await service.choices(3, REFEREE, "table", "")
    assert table_id in choices
    assert "fire" in await service.choices(3, REFEREE, "command", "fi")


def test_a_mistyped_console_command_gets_a_suggestion() -> None:
    with pytest.raises(ParseError) as typo:
        parse_line("/fier unit:x")
    assert "/fire" in typo.value.localized("en")
    with pytest.raises(ParseError) as nothing_close:
        parse_line("/zzzzzz")
    assert "did you mean" not in nothing_close.value.localized("en")


async def test_the_console_help_is_the_channels(service) -> None:
    out = io.StringIO()
    console = Console(service, out, channel_id=7)
    await console.run(
        ["/game new ruleset:pzgren language:en", "/help fire", "/help", "/fier", "/rules table"],
        interactive=False,
    )
    text = out.getvalue()
    assert "hex" in text and "ammo" not in text  # pzgren's /fire options
    assert "did you mean /fire?" in text


def test_the_console_takes_a_rulesets_options_directly_or_in_extra() -> None:
    direct = parse_line("/fire unit:a target:b ammo:AP facing:side")
    extra = parse_line('/fire unit:a target:b extra:"ammo:AP facing:side"')
    assert (
        direct.options
        == extra.options
        == {"unit": "a", "target": "b", "ammo": "AP", "facing": "side"}
    )
    with pytest.raises(ParseError) as wrong:
        parse_line('/fire unit:a extra:"ammo:XX"')
    assert "ammo:XX" in wrong.value.localized("en")


async def test_rules_table_lists_and_shows_titles_in_the_readers_language(service) -> None:
    listing = await service.handle(Request(5, 1, "rules.table", {"ruleset": "w40k4"}, locale="en"))
    assert "tiri_per_ferire — ROLLS TO WOUND" in listing.lines
    assert "danni_veicoli — TABELLA DEI DANNI AI VEICOLI" in listing.lines
    assert not any("seed" in line for line in listing.lines)
    shown = await service.handle(
        Request(5, 1, "rules.table", {"ruleset": "w40k4", "table": "tiri_per_ferire"}, locale="fr")
    )
    assert shown.lines[0] == "JETS POUR BLESSER  [tiri_per_ferire]"
