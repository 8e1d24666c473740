"""Each side rolls its own aftermath, through the service on both store backends: one
player's typed dice never touch the enemy's roster, the other side rolls its own (the bot's
dice or typed), a typed part is disputed and rolled again by the bot, and the
confirmations wait until every side rolled; the state always the replay of the log."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from bot.console.render_text import reply_text
from bot.service.campaign.ledger import load_campaign, log_event
from rules.campaign.events import CampaignRoster
from rules.campaign.roster import Roster, RosterEntry
from rules.core.errors import RulesError
from tests.bot.service.campaign.test_aftermath import _typed
from tests.bot.service.campaign.test_commands import (
    ANNA,
    BRUNO,
    CAMPAIGN,
    FIRST,
    REFEREE,
    SECOND,
    Table,
    _assert_log_is_the_state,
    _campaign,
)

#: The service's dice (the tests' table): every face a 3, dead on the D6 of casualties.
BOT_FACE = 3


async def _both_hurt_and_won_by_the_legion(table: Table) -> None:
    """Each side's roster holds 3 casualties; game 1 is won by the Legion (a casualty's
    D6: 1-3 dead, 4-6 returns)."""
    rosters = (
        Roster(
            side="legione",
            entries=(
                RosterEntry(
                    id="squadra_tattica", name="Squadra", strength=7, full=10, casualties=3
                ),
            ),
        ),
        Roster(
            side="predoni",
            entries=(RosterEntry(id="banda", name="Banda", strength=17, full=20, casualties=3),),
        ),
    )
    services: Any = SimpleNamespace(store=table.store)  # the ledger needs only the store
    for roster in rosters:
        record, state = await load_campaign(services, CAMPAIGN)
        await log_event(
            services,
            record,
            state,
            CampaignRoster(side=roster.side, roster=roster, source="file"),
            actor_id=REFEREE,
            interaction_id=None,
        )
    await table(CAMPAIGN, REFEREE, "campaign.game", scenario="avamposto", channel=FIRST)
    await table(FIRST, REFEREE, "game.decide", result="legione", reason="held the outpost")


async def _units(table: Table) -> tuple[Any, Any]:
    state = await table.campaign()
    return (
        state.rosters["legione"].entry("squadra_tattica"),
        state.rosters["predoni"].entry("banda"),
    )


async def test_one_players_typed_dice_do_not_touch_the_enemys_roster(any_store: Any) -> None:
    table = await _campaign(any_store)
    await _both_hurt_and_won_by_the_legion(table)
    versions = await table._versions()
    # The reported case: Anna types her casualties' faces and the enemy's.
    with pytest.raises(RulesError) as caught:
        await _typed(table, ANNA, "6,6,6,1,1,1", game=1)
    assert caught.value.key == "error.dice.unused"
    with pytest.raises(RulesError) as caught:
        await _typed(table, ANNA, "1,1,1", game=1, side="predoni")
    assert caught.value.key == "error.campaign.aftermath_not_your_side"
    assert await table._versions() == versions  # nothing written
    rolled = reply_text(await _typed(table, ANNA, "6,6,6", game=1))
    assert "The part of Raiders is still to roll: /campaign aftermath game:1" in rolled
    assert "/campaign dispute game:1 side:legione" in rolled
    squad, banda = await _units(table)
    assert (squad.strength, squad.casualties) == (10, 0)
    assert (banda.strength, banda.casualties, banda.experience) == (17, 3, 0)  # untouched


async def test_the_other_side_rolls_its_own_typed_or_with_the_bots_dice(any_store: Any) -> None:
    table = await _campaign(any_store)
    await _both_hurt_and_won_by_the_legion(table)
    await _typed(table, ANNA, "6,6,6", game=1)
    await table.refused(CAMPAIGN, ANNA, "campaign.aftermath", "error.campaign.side_rolled", game=1)
    await table.refused(
        CAMPAIGN,
        BRUNO,
        "campaign.aftermath",
        "error.campaign.aftermath_not_your_side",
        game=1,
        side="legione",
    )
    with pytest.raises(RulesError) as short:  # told the count of his side's part
        await _typed(table, BRUNO, "4", game=1)
    assert short.value.key == "error.campaign.aftermath_dice_short"
    assert short.value.params["n"] == 3
    rolled = reply_text(await _typed(table, BRUNO, "4,5,1", game=1))
    assert (
        "Raiders, Banda: strength 17 → 20 of 20 (3 casualties, D6 4 5 1: 2 back, 1 lost" in rolled
    )
    assert "Each side confirms with /campaign confirm game:1" in rolled
    events = await table.campaign_events()
    assert [e.args["campaign"]["side"] for e in events[-2:]] == ["legione", "predoni"]
    _assert_log_is_the_state(events, (await any_store.load(CAMPAIGN)).document)


async def test_the_referee_rolls_a_side_with_the_bots_dice_never_typing_for_all(
    any_store: Any,
) -> None:
    table = await _campaign(any_store)
    await _both_hurt_and_won_by_the_legion(table)
    with pytest.raises(RulesError) as caught:
        await _typed(table, REFEREE, "1,1,1,1,1,1", game=1)
    assert caught.value.key == "error.campaign.aftermath_typed_side"
    await _typed(table, ANNA, "6,6,6", game=1)
    await table(CAMPAIGN, REFEREE, "campaign.aftermath", game=1)  # every side still to roll
    _, banda = await _units(table)
    assert (banda.strength, banda.casualties) == (17 + 1, 0)  # the bot's 3s: none back; 1 replaced
    event = (await table.campaign_events())[-1].args["campaign"]
    assert event["side"] is None and set(event["sides"]) == {"predoni"}


async def test_a_dispute_rolls_a_typed_side_again_with_the_bots_dice(any_store: Any) -> None:
    table = await _campaign(any_store)
    await _both_hurt_and_won_by_the_legion(table)
    await _typed(table, ANNA, "6,6,6", game=1)  # every casualty back
    await table.refused(
        CAMPAIGN, ANNA, "campaign.dispute", "error.campaign.own_aftermath", game=1, side="legione"
    )
    await table.refused(
        CAMPAIGN,
        REFEREE,
        "campaign.dispute",
        "error.campaign.not_disputable",
        game=1,
        side="predoni",
    )
    disputed = reply_text(await table(CAMPAIGN, BRUNO, "campaign.dispute", game=1))
    assert "Raiders disputed the dice typed for Astral Legion" in disputed
    assert f"D6 {BOT_FACE} {BOT_FACE} {BOT_FACE}: 0 back, 3 lost" in disputed
    event = (await table.campaign_events())[-1].args["campaign"]
    assert (event["side"], event["disputed"], event["by"], event["by_hand"]) == (
        "legione",
        True,
        "predoni",
        False,
    )
    squad, banda = await _units(table)
    assert squad.strength == 7 + 2  # none back; a winner's 2 replacements
    assert banda.casualties == 3  # Bruno's own part still to roll
    # Rolled again by the bot: nothing more to dispute.
    await table.refused(
        CAMPAIGN, BRUNO, "campaign.dispute", "error.campaign.nothing_disputable", game=1
    )
    log = reply_text(await table(CAMPAIGN, REFEREE, "campaign.log", count=1))
    assert "Raiders disputed the dice typed for Astral Legion" in log
    _assert_log_is_the_state(
        await table.campaign_events(), (await any_store.load(CAMPAIGN)).document
    )


async def test_confirmations_wait_until_both_sides_rolled(any_store: Any) -> None:
    table = await _campaign(any_store)
    await _both_hurt_and_won_by_the_legion(table)
    await _typed(table, ANNA, "6,6,6", game=1)
    for user in (ANNA, REFEREE):
        await table.refused(
            CAMPAIGN, user, "campaign.confirm", "error.campaign.aftermath_unrolled", game=1
        )
    await table.refused(
        CAMPAIGN,
        REFEREE,
        "campaign.game",
        "error.campaign.aftermath_unrolled",
        scenario="fuga",
        channel=SECOND,
    )
    status = reply_text(await table(CAMPAIGN, ANNA, "campaign.status"))
    assert "Game 1: aftermath still to roll for Raiders" in status
    assert "Game 1: the dice typed for Astral Legion may be disputed" in status
    await table(CAMPAIGN, BRUNO, "campaign.aftermath", game=1)
    await table(CAMPAIGN, BRUNO, "campaign.confirm", game=1)
    status = reply_text(await table(CAMPAIGN, ANNA, "campaign.status"))
    assert "Game 1: aftermath awaiting the confirmation of Astral Legion." in status
    # Bruno confirmed: the dice Anna typed are no longer his to dispute.
    await table.refused(
        CAMPAIGN, BRUNO, "campaign.dispute", "error.campaign.already_confirmed", game=1
    )
    settled = await table(CAMPAIGN, ANNA, "campaign.confirm", game=1)
    assert "bot.campaign.aftermath_settled" in [n.key for n in settled.notices]
    await table.refused(
        CAMPAIGN, REFEREE, "campaign.dispute", "error.campaign.aftermath_settled", game=1
    )
    await table(CAMPAIGN, REFEREE, "campaign.game", scenario="fuga", channel=SECOND)
