"""Help in a campaign's channel: its games' ruleset, its commands as a group, the words
players type for a campaign command."""

from __future__ import annotations

import pytest

from bot.console.table import ParseError, parse_line
from bot.service import Request

REFEREE = 1


async def _campaign(service, language: str = "en") -> None:
    await service.handle(
        Request(
            1,
            REFEREE,
            "campaign.new",
            {"ruleset": "manovra", "name": "Book", "book": "strada_saint_lo", "language": language},
        )
    )


async def test_help_in_a_campaigns_channel_is_for_its_games_ruleset(service) -> None:
    await _campaign(service, "fr")
    every = "\n".join((await service.handle(Request(1, REFEREE, "help", {}))).lines)
    assert "/campaign roster" in every and "/fire" in every
    roster = await service.handle(Request(1, REFEREE, "help", {"command": "campaign roster"}))
    assert roster.language == "fr" and roster.lines[0].startswith("/campaign roster — ")
    tables = await service.handle(Request(1, REFEREE, "rules.table", {}))
    assert any(line.startswith("addestramento — ") for line in tables.lines)  # manovra's


async def test_help_of_a_group_lists_its_commands(service) -> None:
    await _campaign(service)
    group = await service.handle(Request(1, REFEREE, "help", {"command": "campaign"}))
    names = [line.split(" — ")[0] for line in group.lines if line.startswith("/")]
    assert "/campaign status" in names and "/campaign export" in names
    assert all(name.startswith("/campaign ") for name in names)
    outside = await service.handle(Request(9, REFEREE, "help", {"command": "campaign"}))
    assert any(line.startswith("/campaign new — ") for line in outside.lines)


@pytest.mark.parametrize(
    ("typed", "meant"),
    [("/campaign standings", "/campaign status"), ("/campaign report", "/campaign export")],
)
def test_a_word_for_a_campaign_command_suggests_it(typed: str, meant: str) -> None:
    with pytest.raises(ParseError) as refused:
        parse_line(typed)
    assert f"{typed}: did you mean {meant}?" in refused.value.localized("en")
