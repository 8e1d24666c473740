"""Issue 26 item 13 through the real bot under SimCord: what players and scenarios write is
safe in Discord. An error of 11,000 characters reaches the channel clipped to Discord's
2,000 with a visible "…"; a scenario named ``**[x](http://evil)** @everyone`` is shown as
typed (markdown escaped, no link, no ping); every message goes out with explicit allowed
mentions that never reach everyone or a role."""

from __future__ import annotations

import re
from typing import Any

from bot.discord.outgoing import safe_name, safe_resolution, unlinked
from bot.service import GameService
from rules.core.errors import UnknownName
from rules.core.resolution import Effect, EffectKind, Outcome, Resolution, Step
from tests.bot.discord.test_simcord import (  # noqa: F401  (fixtures are used by name)
    SCENARIO,
    Table,
    assert_private_error,
    assert_public,
    discord_dice,
    discord_service,
    discord_store,
    simcord_bot,
    table,
    texts,
)

EVIL = "**[x](http://evil)** @everyone"


def sent_messages(table: Table) -> list[dict[str, Any]]:
    """The message bodies the bot sent Discord (responses, follow-ups, channel posts)."""
    bodies = []
    for entry in table.env.http_requests:
        body = entry.json if isinstance(entry.json, dict) else None
        if body is None:
            continue
        body = body.get("data", body) if "type" in body else body
        if isinstance(body, dict) and ("content" in body or "embeds" in body):
            bodies.append(body)
    return bodies


def assert_no_mass_mention(table: Table) -> None:
    bodies = sent_messages(table)
    assert bodies
    for body in bodies:
        allowed = body.get("allowed_mentions")
        assert allowed is not None, body
        assert "everyone" not in allowed.get("parse", []), allowed
        assert "roles" not in allowed.get("parse", []) and not allowed.get("roles"), allowed


async def test_an_eleven_thousand_character_error_is_clipped(table: Table, monkeypatch) -> None:
    async def refuse(self: GameService, request: Any) -> Any:
        raise UnknownName("error.unknown_scenario", name="x", known="point_" * 1_850)

    monkeypatch.setattr(GameService, "handle", refuse)
    result = await table.anna.slash(table.channel, "game status")
    text = assert_private_error(result)
    assert len(text.encode("utf-16-le")) // 2 <= 2000 and text.endswith("…")
    assert (
        len(UnknownName("error.unknown_scenario", name="x", known="point_" * 1_850).localized("it"))
        > 11_000
    )
    assert_no_mass_mention(table)


async def test_a_scenario_named_with_markdown_and_everyone_shows_as_typed(table: Table) -> None:
    text = SCENARIO.read_text(encoding="utf-8")
    # An uploaded scenario's plain title, in place of the bundled one's three languages.
    text = re.sub(r"^title:\n(?:  .*\n)+", f"title: {EVIL!r}\n", text, flags=re.MULTILINE)
    text = text.replace('name: "1ª squadra"', 'name: "[1ª](http://evil) @here"')
    assert EVIL in text
    result = await table.referee.slash(
        table.channel, "game new", language="en", file=("evil.yaml", text.encode())
    )
    shown = texts(assert_public(result))
    assert EVIL not in shown and "](http" not in shown and "http://" not in shown
    assert "@everyone" not in shown and "@here" not in shown
    assert safe_name(EVIL) in shown  # the title, escaped, as typed
    assert "\\*\\*\\[x]" in shown
    assert_no_mass_mention(table)


def test_names_lose_their_markdown_links_and_mentions() -> None:
    assert safe_name(EVIL) == "\\*\\*\\[x]\u200b(http:\u200b//evil)\\*\\* @\u200beveryone"
    assert safe_name("<@&123456789012345678>").startswith("<\u200b@&")
    # Texts the bot wrote keep their mentions of users (a ping it means).
    assert unlinked("<@123456789012345678> @here") == "<@123456789012345678> @\u200bhere"


def test_names_in_a_breakdown_show_as_typed() -> None:
    """A breakdown names units from the scenario ("Result M1 for <unit>"): its outcome, its
    steps' outcomes and parameters and its effects are escaped like the notices are."""
    evil_unit = ("unit", EVIL)
    resolution = Resolution(
        ruleset="pzgren",
        procedure="direct_fire",
        steps=(
            Step(
                "pzgren.step.fire",
                outcome=Outcome("pzgren.fire.result", (evil_unit,)),
                params=(evil_unit,),
            ),
        ),
        outcome=Outcome("pzgren.fire.result", (evil_unit, ("n", 1))),
        effects=(Effect(EffectKind.TEST_OWED, "M1", target="x", params=(evil_unit,)),),
    )
    safe = safe_resolution(resolution)
    shown = [
        safe.outcome.param("unit"),
        safe.steps[0].outcome.param("unit") if safe.steps[0].outcome else None,
        dict(safe.steps[0].params)["unit"],
        dict(safe.effects[0].params)["unit"],
    ]
    assert shown == [safe_name(EVIL)] * 4
    assert safe.outcome.param("n") == 1  # numbers untouched


def test_a_rosters_names_are_shown_as_typed() -> None:
    # A roster's lines quote the names a file gave: markdown escaped, no link, no ping.
    from bot.discord.embeds import reply_cards
    from bot.service.replies import TextReply

    reply = TextReply(language="en", lines=[f"{EVIL} (squadra_1): 4/10"], players_words=True)
    shown = "\n".join(line for card in reply_cards(reply) for line in card.lines)
    assert shown.startswith("\\*\\*\\[x]") and "](http" not in shown  # bold and link inert
    assert "@everyone" not in shown
