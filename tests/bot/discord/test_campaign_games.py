"""A campaign of three games over Discord (SimCord, the real bot): created and joined in its
channel; game 1 fought by the players (a unit destroyed, another badly reduced) and played
to its last turn in a channel of its own; its aftermath rolled with the dice a player types
and confirmed by both; game 2, mustered from the rosters with the losses carried (the reduced
unit at its strength, the dead one absent), ended by the referee's decision in another;
game 3 conceded with the confirmation button in the first game's channel (which archives
game 1). After each game the campaign's status shows the standings of this test's recount
of the games' own results; the log names every final hash; only the referee ends the
campaign."""

from __future__ import annotations

from typing import Any

from db.protocol import GameStore
from rules.campaign.state import CampaignState
from rules.core.ruleset import get_ruleset
from rules.core.seatview import REFEREE
from rules.core.words import in_language
from tests.bot.campaign_flow import as_typed, check_fielded, deadly_faces
from tests.bot.discord.test_simcord import (  # noqa: F401 - the fixtures the test uses
    LenientDice,
    Table,
    all_texts,
    assert_private_error,
    assert_public,
    buttons,
    discord_dice,
    discord_service,
    discord_store,
    simcord_bot,
    table,
    texts,
)
from tests.bot.service.campaign.test_rosters import losing_prefix
from tests.fuzz.campaign_checks import SeenResult, standing_lines

NAME = "Orbita"
SCENARIO = "avamposto_campo"


async def _seen(store: GameStore, channel_id: int) -> SeenResult:
    record = await store.load(channel_id)
    play = get_ruleset(record.ruleset).rules
    assert play is not None
    result = play.view(play.document_format.upgrade(record.document), REFEREE).result
    assert record.status == "ended" and result is not None and record.head_hash is not None
    return SeenResult(record.head_hash, result.winner, tuple(result.score.totals))


async def _standings_shown(
    at: Table, store: GameStore, home: Any, seen: dict[int, SeenResult | None]
) -> None:
    status = texts(assert_public(await at.anna.slash(home, "campaign status")))
    state = CampaignState.from_json((await store.load(home.id)).document)
    for shown in standing_lines(state, seen, "en"):
        assert shown in status, f"{shown!r} not in:\n{status}"


async def test_a_three_game_campaign_through_discord(
    table: Table,  # noqa: F811
    discord_store: GameStore,  # noqa: F811
    discord_dice: LenientDice,  # noqa: F811
) -> None:
    home, referee = table.channel, table.referee
    first = table.guild.create_text_channel("avamposto")
    second = table.guild.create_text_channel("fuga")
    entered = "The result enters the campaign «Orbita» (game {})."
    await referee.slash(home, "campaign new", ruleset="w40k4", name=NAME, language="en")
    await table.seat_campaign(home, "legione", "predoni")
    seen: dict[int, SeenResult | None] = {}

    # Game 1: the players fight with the dice queued until a unit is destroyed and another
    # badly reduced; then the referee passes every phase to the last turn (the D6 of the
    # extension 1).
    linked = await referee._actor.slash(home, "campaign game", scenario=SCENARIO, channel=first)
    assert "Game 1 of «Orbita» starts in" in texts(assert_public(linked))
    commands, faces = losing_prefix("w40k4", SCENARIO)
    discord_dice.push(*faces)
    seats = {"legione": table.anna, "predoni": table.bruno, None: referee}
    for verb, options, side, _ in commands:
        assert_public(await seats[side].slash(first, verb.replace(".", " "), **options))
    assert not discord_dice.faces
    for _ in range(120):
        message = assert_public(await referee.slash(first, "turn next"))
        if any((e.title or "").startswith("🏁") for e in message.embeds):
            break
    else:
        raise AssertionError("game 1 did not end")
    assert entered.format(1) in texts(message)
    seen[1] = await _seen(discord_store, first.id)
    await _standings_shown(table, discord_store, home, seen)

    # The next game waits for game 1's aftermath: each side's rolled with the dice its player
    # types (every casualty and every destroyed unit lost for good), shown die by die,
    # confirmed by both.
    refused = await referee._actor.slash(home, "campaign game", scenario="fuga", channel=second)
    assert_private_error(
        refused,
        "Game 1 still owes its aftermath: each side rolls its own with "
        "/campaign aftermath game:1, then confirms.",
    )
    state = CampaignState.from_json((await discord_store.load(home.id)).document)
    shown = ""
    for member, side in ((table.anna, "legione"), (table.bruno, "predoni")):
        hurt = deadly_faces(state, side)
        typed = {"dice": as_typed(hurt)} if hurt else {}
        shown += texts(
            assert_public(await member.slash(home, "campaign aftermath", game=1, **typed))
        )
    assert "After game 1 of «Orbita» (dice typed by the player):" in shown
    assert f"D6 {' '.join(['1'] * 3)}" in shown, shown  # the dice, as typed
    await table.anna.slash(home, "campaign confirm", game=1)
    settled = texts(assert_public(await table.bruno.slash(home, "campaign confirm", game=1)))
    assert "settled" in settled, settled

    # Game 2: mustered from the rosters the aftermath left (a unit fielded at the strength
    # it kept, the dead left out); the referee's decision for the Legion.
    await referee._actor.slash(home, "campaign game", scenario="fuga", channel=second)
    state = CampaignState.from_json((await discord_store.load(home.id)).document)
    play = get_ruleset("w40k4").rules
    fielded = check_fielded(play, state, "fuga", (await discord_store.load(second.id)).document)
    assert fielded.reduced and fielded.dead_absent, fielded
    shown = texts(assert_public(await referee.slash(second, "game status")))
    for unit in fielded.reduced:
        entry = next(e for r in state.rosters.values() for e in r.entries if e.id == unit)
        assert in_language(entry.name, "en") in shown, shown  # the campaign's English
    ended = await referee.slash(second, "game end", result="legione", reason="the gate fell")
    assert entered.format(2) in texts(assert_public(ended))
    seen[2] = await _seen(discord_store, second.id)
    assert seen[2].winner == "legione"
    await _standings_shown(table, discord_store, home, seen)

    # Game 2's aftermath: the bot's dice, validated by the referee for both sides.
    assert_public(await table.anna.slash(home, "campaign aftermath", game=2))
    assert_public(await referee.slash(home, "campaign aftermath", game=2))
    assert_public(await referee.slash(home, "campaign confirm", game=2))

    # Game 3, in game 1's channel (archived): the Predoni concede with the button.
    linked = await referee._actor.slash(home, "campaign game", scenario="relitto", channel=first)
    assert "Game 3 of «Orbita» starts in" in texts(assert_public(linked))
    asked = await table.bruno.slash(first, "game concede")
    confirm = next(b for b in buttons(asked.response) if "confirm=" in b["custom_id"])
    conceded = await table.bruno.click(asked.response, custom_id=confirm["custom_id"])
    assert entered.format(3) in all_texts(conceded)
    seen[3] = await _seen(discord_store, first.id)
    assert seen[3].winner == "legione"
    await _standings_shown(table, discord_store, home, seen)

    log = texts(assert_public(await table.anna.slash(home, "campaign log", count=20)))
    for result in seen.values():
        assert result is not None and result.final_hash[:12] in log, log
    assert [a.head_hash for a in await discord_store.all_archives()] == [seen[1].final_hash]
    assert_private_error(
        await table.anna.slash(home, "campaign end"), "Only the campaign's referee can do that."
    )
    over = await referee.slash(home, "campaign end")
    assert "The campaign «Orbita» is over." in texts(assert_public(over))
    assert await discord_store.check() == []
