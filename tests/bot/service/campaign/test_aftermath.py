"""After a campaign's battle, through the service on both store backends: the post-battle
sequence rolled side by side (a player's typed dice for their side) and shown die by die,
each side confirming once both rolled, the next game refused until then, the referee's
adjustments logged, a game's end standing once an aftermath is rolled on its result, and the
state always the replay of the log."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from bot.console.render_text import reply_text
from bot.service import Request
from bot.service.campaign.ledger import load_campaign, log_event
from rules.campaign.events import CampaignRoster
from rules.campaign.roster import Roster, RosterEntry, Status
from rules.campaign.text import history_text
from rules.core.errors import RulesError
from tests.bot.service.campaign.test_commands import (
    ANNA,
    BRUNO,
    CAMPAIGN,
    FIRST,
    GUILD,
    OUTSIDER,
    REFEREE,
    SECOND,
    Table,
    _assert_log_is_the_state,
    _campaign,
)


async def _typed(table: Table, user: int, dice: str, /, **options: Any) -> Any:
    """``/campaign aftermath`` with the player's physical dice typed in ``dice:``."""
    table.count += 1
    return await table.service.handle(
        Request(
            CAMPAIGN,
            user,
            "campaign.aftermath",
            options,
            guild_id=GUILD,
            interaction_id=f"i{table.count}",
            user_name=f"user{user}",
            locale="en",
            dice=dice,
        )
    )


async def _adjust_banda(table: Table, field: str, value: str, reason: str) -> Any:
    """The referee's ``/campaign adjust`` of the raiders' band."""
    return await table(
        CAMPAIGN,
        REFEREE,
        "campaign.adjust",
        side="predoni",
        unit="banda",
        field=field,
        value=value,
        reason=reason,
    )


async def _rosters(table: Table) -> None:
    """Rosters as the rosters part leaves them; the Legion's squad holds 3 casualties
    from an earlier fight (a roster file may carry them)."""
    legion = Roster(
        side="legione",
        entries=(
            RosterEntry(
                id="squadra_tattica", name="Squadra tattica", strength=7, full=10, casualties=3
            ),
            RosterEntry(id="devastatori", name="Devastatori", strength=5, full=5),
            RosterEntry(id="riserva", name="Riserva", strength=5, full=5),  # not in the scenario
        ),
    )
    raiders = Roster(
        side="predoni",
        entries=(RosterEntry(id="banda", name="Banda", strength=20, full=20),),
    )
    services: Any = SimpleNamespace(store=table.store)  # the ledger needs only the store
    for roster in (legion, raiders):
        record, state = await load_campaign(services, CAMPAIGN)
        await log_event(
            services,
            record,
            state,
            CampaignRoster(side=roster.side, roster=roster, source="file"),
            actor_id=REFEREE,
            interaction_id=None,
        )


async def _game_one_won_by_the_legion(table: Table) -> None:
    await _rosters(table)
    await table(CAMPAIGN, REFEREE, "campaign.game", scenario="avamposto", channel=FIRST)
    await table(FIRST, REFEREE, "game.decide", result="legione", reason="held the outpost")


async def test_the_aftermath_is_rolled_shown_confirmed_and_adjusted(any_store: Any) -> None:
    table = await _campaign(any_store)
    await _game_one_won_by_the_legion(table)
    await table.refused(
        CAMPAIGN,
        REFEREE,
        "campaign.game",
        "error.campaign.aftermath_owed",
        scenario="fuga",
        channel=SECOND,
    )
    status = reply_text(await table(CAMPAIGN, BRUNO, "campaign.status"))
    assert "Game 1: aftermath to roll (/campaign aftermath game:1)." in status
    await table.refused(
        CAMPAIGN, OUTSIDER, "campaign.aftermath", "error.campaign.players_only", game=1
    )
    await table.refused(CAMPAIGN, ANNA, "campaign.aftermath", "error.campaign.not_linked", game=2)
    # Anna types her dice: the squad's three casualties on a D6 (1-3 dead, 4-6 returns).
    versions = await table._versions()
    for faces, key in (
        ("4,1,6,6", "error.dice.unused"),
        ("4,1", "error.campaign.aftermath_dice_short"),
        ("4,1,7", "error.dice.impossible_face"),
    ):
        with pytest.raises(RulesError) as caught:
            await _typed(table, ANNA, faces, game=1)
        assert caught.value.key == key
    assert await table._versions() == versions
    rolled = await _typed(table, ANNA, "4,1,6", game=1)
    text = reply_text(rolled)
    assert "After game 1 of «Orbita» (dice typed by the player):" in text
    # 7 + 2 back + 1 replacement (of the 2 a winner gets: full at 10); fought, won, standing
    assert (
        "Astral Legion, Squadra tattica: strength 7 → 10 of 10 (3 casualties, D6 4 1 6: 2 back, "
        "1 lost; +3 experience (3); promoted to proven; +1 replacement)" in text
    )
    assert "Riserva" not in text  # not in the scenario: it stayed behind, earned nothing
    state = await table.campaign()
    squad = state.rosters["legione"].entry("squadra_tattica")
    assert squad is not None and (squad.strength, squad.casualties, squad.rank) == (
        10,
        0,
        "provati",
    )
    banda = state.rosters["predoni"].entry("banda")
    assert banda is not None and banda.experience == 0  # Anna's dice rolled her side only
    event = (await table.campaign_events())[-1]
    assert event.verb == "campaign.aftermath"
    assert event.args["campaign"]["by_hand"] is True
    assert event.args["campaign"]["side"] == "legione"
    # Bruno rolls his own side, with the bot's dice (what waits for it:
    # tests/bot/service/campaign/test_aftermath_sides.py).
    await table(CAMPAIGN, BRUNO, "campaign.aftermath", game=1)
    banda = (await table.campaign()).rosters["predoni"].entry("banda")
    assert banda is not None and banda.experience == 2  # fought, still standing; lost
    # Each side confirms; the next game waits for both.
    confirmed = await table(CAMPAIGN, ANNA, "campaign.confirm", game=1)
    assert [n.key for n in confirmed.notices] == ["bot.campaign.confirmed"]
    await table.refused(
        CAMPAIGN, ANNA, "campaign.confirm", "error.campaign.already_confirmed", game=1
    )
    await table.refused(
        CAMPAIGN,
        REFEREE,
        "campaign.game",
        "error.campaign.aftermath_unconfirmed",
        scenario="fuga",
        channel=SECOND,
    )
    status = reply_text(await table(CAMPAIGN, BRUNO, "campaign.status"))
    assert "Game 1: aftermath awaiting the confirmation of Raiders." in status
    settled = await table(CAMPAIGN, BRUNO, "campaign.confirm", game=1)
    status = reply_text(await table(CAMPAIGN, BRUNO, "campaign.status"))
    assert "aftermath" not in status
    assert "bot.campaign.aftermath_settled" in [n.key for n in settled.notices]
    # The referee's correction: refused past full strength, logged with its reason.
    await table.refused(
        CAMPAIGN,
        ANNA,
        "campaign.adjust",
        "error.campaign.referee_only",
        side="legione",
        unit="banda",
        field="strength",
        value="1",
        reason="x",
    )
    await table.refused(
        CAMPAIGN,
        REFEREE,
        "campaign.adjust",
        "error.campaign.adjust_range",  # past full strength, said with the range it has
        side="legione",
        unit="devastatori",
        field="strength",
        value="6",
        reason="x",
    )
    await table.refused(
        CAMPAIGN,
        REFEREE,
        "campaign.adjust",
        "error.campaign.no_entry",
        side="predoni",
        unit="devastatori",
        field="strength",
        value="1",
        reason="x",
    )
    adjusted = await table(
        CAMPAIGN,
        REFEREE,
        "campaign.adjust",
        side="Predoni",
        unit="banda",
        field="experience",
        value="9",
        reason="forgot a bonus",
    )
    assert "Raiders, Banda: experience 2 → 9 (forgot a bonus)" in reply_text(adjusted)
    banda = (await table.campaign()).rosters["predoni"].entry("banda")
    assert banda is not None and banda.experience == 9
    assert banda.history[-1].params["reason"] == "forgot a bonus"
    versions = await table._versions()
    for field, value in (("experience", "9"), ("rank", banda.rank or "-"), ("status", "fit")):
        with pytest.raises(RulesError) as caught:  # a restatement: nothing to log
            await _adjust_banda(table, field, value, "again")
        assert caught.value.key == "error.campaign.adjust_unchanged"
        assert "would change nothing" in caught.value.localized("en")
    assert await table._versions() == versions
    await _adjust_banda(table, "experience", "10", "bonus")
    # The field is said in the reader's language, in the entry's history and in the log.
    banda = (await table.campaign()).rosters["predoni"].entry("banda")
    assert banda is not None
    assert history_text(banda.history[-1], "fr") == "arbitre\u202f: expérience 9 → 10 (bonus)"
    assert history_text(banda.history[-1], "it") == "arbitro: esperienza 9 → 10 (bonus)"
    adjusted = await _adjust_banda(table, "rank", "temprati", "valour")
    assert "Raiders, Banda: rank - → hardened (valour)" in reply_text(adjusted)
    banda = (await table.campaign()).rosters["predoni"].entry("banda")
    assert banda is not None
    assert history_text(banda.history[-1], "fr", "w40k4") == (
        "arbitre\u202f: grade - → endurcis (valour)"
    )
    await _adjust_banda(table, "experience", "9", "back")
    log = reply_text(await table(CAMPAIGN, REFEREE, "campaign.log", count=9))
    assert (
        "Astral Legion: aftermath of game 1: 2 entries changed, 3 dice rolled "
        "(dice typed by the player)" in log
    )
    assert "Raiders: aftermath of game 1: 1 entry changed, 0 dice rolled" in log
    assert "the aftermath of game 1 confirmed for Astral Legion" in log
    assert "adjustment: Raiders, banda: experience = 9 (forgot a bonus)" in log
    await table(CAMPAIGN, REFEREE, "campaign.game", scenario="fuga", channel=SECOND)
    _assert_log_is_the_state(
        await table.campaign_events(), (await any_store.load(CAMPAIGN)).document
    )


async def test_an_end_whose_aftermath_is_rolled_stands(any_store: Any) -> None:
    """The aftermath rolled on game 1's result (and confirmed) rests on its losses:
    ``/game undo`` of its end is refused, saying why and what to do instead, and nothing
    is written to the game or the campaign."""
    table = await _campaign(any_store)
    await _game_one_won_by_the_legion(table)
    await table(CAMPAIGN, REFEREE, "campaign.aftermath", game=1)  # the bot's dice
    await table(CAMPAIGN, REFEREE, "campaign.confirm", game=1)
    await table.refused(FIRST, REFEREE, "game.undo", "error.campaign.built_on_reopen")
    with pytest.raises(RulesError) as caught:
        await table(FIRST, REFEREE, "game.undo")
    english = caught.value.localized("en")
    assert "has built on the result of game 1" in english and "/campaign adjust" in english
    assert "ha già costruito sul risultato della partita 1" in caught.value.localized("it")
    assert "s'appuie déjà sur le résultat de la partie 1" in caught.value.localized("fr")
    game = await any_store.load(FIRST)
    held = (await table.campaign()).game(1)
    assert held is not None and held.result is not None
    assert game.status == "ended" and game.head_hash == held.result.final_hash


async def test_an_aftermath_adjusted_keeps_the_game_ended_and_the_campaign_true(
    any_store: Any,
) -> None:
    """An aftermath and an adjustment built on game 1's result: ``/game undo`` in the
    game's channel is refused (before, it reopened the game while the campaign kept its
    result, and a second end the other way left the campaign showing the first result
    with a final hash no longer the game's end, ``db check`` saying ok). The referee's
    decision the other way is then refused too: the game is over, the campaign is true."""
    table = await _campaign(any_store)
    await _game_one_won_by_the_legion(table)
    await _typed(table, ANNA, "1,1,1", game=1)
    await table(
        CAMPAIGN,
        REFEREE,
        "campaign.adjust",
        side="legione",
        unit="squadra_tattica",
        field="until",
        value="3",
        reason="wounded sergeant",
    )
    await table.refused(FIRST, REFEREE, "game.undo", "error.campaign.built_on_reopen")
    await table.refused(
        FIRST,
        REFEREE,
        "game.decide",
        "error.service.game_ended",
        result="predoni",
        level="decisive",
        reason="x",
    )
    state = await table.campaign()
    held = state.game(1)
    assert held is not None and held.result is not None and held.result.winner == "legione"
    assert (await any_store.load(FIRST)).head_hash == held.result.final_hash
    squad = state.rosters["legione"].entry("squadra_tattica")
    assert squad is not None and squad.status is Status.RECOVERING and squad.until == 3
    assert await any_store.check() == []
    _assert_log_is_the_state(
        await table.campaign_events(), (await any_store.load(CAMPAIGN)).document
    )


async def test_an_ended_campaign_owes_nothing_and_says_it_is_over(any_store: Any) -> None:
    """A campaign ended while a game's aftermath was owed: nothing more can be logged, so
    a new game is refused because the campaign is over (not for the aftermath it can no
    longer roll), and its status lists no aftermath owed."""
    table = await _campaign(any_store)
    await _game_one_won_by_the_legion(table)
    await table(CAMPAIGN, REFEREE, "campaign.end")
    await table.refused(
        CAMPAIGN, REFEREE, "campaign.game", "error.campaign.ended", scenario="fuga", channel=SECOND
    )
    status = reply_text(await table(CAMPAIGN, BRUNO, "campaign.status"))
    assert "aftermath to roll" not in status


async def test_the_campaign_does_not_end_while_an_aftermath_awaits_confirmation(
    any_store: Any,
) -> None:
    """An aftermath rolled and not yet confirmed: ``/campaign end`` is refused, naming the
    game and the sides it awaits (before, the campaign ended and the pending line vanished
    from its status and report); once confirmed, the campaign ends."""
    table = await _campaign(any_store)
    await _game_one_won_by_the_legion(table)
    await table(CAMPAIGN, BRUNO, "campaign.aftermath", game=1)
    # Half rolled (the Legion's part still to roll): no end either.
    await table.refused(CAMPAIGN, REFEREE, "campaign.end", "error.campaign.aftermath_unrolled")
    await table(CAMPAIGN, ANNA, "campaign.aftermath", game=1)
    await table.refused(CAMPAIGN, REFEREE, "campaign.end", "error.campaign.aftermath_unconfirmed")
    with pytest.raises(RulesError) as caught:
        await table(CAMPAIGN, REFEREE, "campaign.end")
    assert "The aftermath of game 1 awaits the confirmation of" in caught.value.localized("en")
    assert "attend la confirmation" in caught.value.localized("fr")
    assert "attende la conferma" in caught.value.localized("it")
    await table(CAMPAIGN, REFEREE, "campaign.confirm", game=1)
    await table(CAMPAIGN, REFEREE, "campaign.end")
    assert (await table.campaign()).ended
