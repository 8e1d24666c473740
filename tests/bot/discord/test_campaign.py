"""A campaign over Discord (SimCord, the real bot): created in its channel, joined, a game
linked in another channel (a channel option), its end entering the campaign's standings."""

from __future__ import annotations

from tests.bot.discord.test_simcord import (  # noqa: F401 - the fixtures the test uses
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


async def test_a_campaign_game_through_discord(table: Table) -> None:  # noqa: F811
    home = table.channel
    front = table.guild.create_text_channel("fronte")
    created = await table.referee.slash(
        home, "campaign new", ruleset="manovra", name="Normandia", language="en"
    )
    assert "Campaign «Normandia» created" in texts(assert_public(created))
    await table.seat_campaign(home, "alleati", "asse")
    # PlayerTyping's own ``channel`` parameter would take the option: the member itself.
    refused = await table.anna._actor.slash(
        home, "campaign game", scenario="normandia_incontro", channel=front
    )
    assert_private_error(refused, "Only the campaign's referee can do that.")
    linked = await table.referee._actor.slash(
        home, "campaign game", scenario="normandia_incontro", channel=front
    )
    assert "Game 1 of «Normandia» starts in" in texts(assert_public(linked))
    ended = await table.referee.slash(front, "game end", result="alleati", reason="held")
    assert "The result enters the campaign «Normandia» (game 1)." in texts(assert_public(ended))
    status = texts(assert_public(await table.anna.slash(home, "campaign status")))
    assert "Allies won" in status and "1. Allies: 1 game, 1-0-0, 3 points" in status


async def test_a_bundled_campaign_through_discord(table: Table) -> None:  # noqa: F811
    """``/campaign new book:``, a game without ``scenario:`` (the book's next), its end
    changing the map's holder, ``/campaign export`` attaching the report, the log and the
    map's picture."""
    home = table.channel
    front = table.guild.create_text_channel("fronte")
    await table.referee.slash(
        home,
        "campaign new",
        ruleset="manovra",
        name="Saint-Lô",
        language="en",
        book="strada_saint_lo",
    )
    await table.seat_campaign(home, "alleati", "asse")
    linked = await table.referee._actor.slash(home, "campaign game", channel=front)
    assert "(esempio\\_normandia\\_campo)" in texts(assert_public(linked))  # Markdown-escaped
    await table.referee.slash(front, "game end", result="alleati", reason="held")
    status = texts(assert_public(await table.anna.slash(home, "campaign status")))
    assert "The farm: held by Allies" in status
    exported = assert_public(await table.bruno.slash(home, "campaign export"))
    files = {a.filename: await a.read() for a in exported.attachments}
    assert set(files) == {"campaign-report.md", "campaign-log.json", "campaign-map.png"}
    assert b"final hash of its log" in files["campaign-report.md"]
    assert files["campaign-map.png"].startswith(b"\x89PNG")


ROSTER = b"""\
side: alleati
entries:
  - {id: squadra_1, name: 1a squadra, strength: 6, full: 10}
"""


async def test_a_roster_file_uploaded_and_shown_through_discord(table: Table) -> None:  # noqa: F811
    home = table.channel
    await table.referee.slash(home, "campaign new", ruleset="manovra", name="N", language="en")
    await table.seat_campaign(home, "alleati")
    bad = await table.anna.slash(
        home, "campaign roster", file=("roster.yaml", ROSTER.replace(b"full: 10", b"full: 1"))
    )
    assert_private_error(bad, "roster.yaml, line 3: entries.0: strength 6 is more than full 1")
    loaded = await table.anna.slash(home, "campaign roster", file=("roster.yaml", ROSTER))
    assert "Roster of Allies set from the file: 1 unit." in texts(assert_public(loaded))
    shown = texts(assert_public(await table.bruno.slash(home, "campaign roster", side="alleati")))
    # A roster's lines are the players' words: markdown escaped (Discord shows squadra_1).
    assert "1a squadra (squadra\\_1): 6/10, casualties 0" in shown
