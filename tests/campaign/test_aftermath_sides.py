"""Each side rolls its own part of the post-battle sequence: typed dice feed only that part,
a typed part another side disputes is rolled again by the bot and replaces it, the
confirmations wait for every part; an older log's single event for every side replays."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from rules.campaign.events import (
    CampaignAftermath,
    CampaignAftermathReversal,
    CampaignConfirm,
    event_json,
    event_of,
)
from rules.campaign.postbattle import reroll_disputed, roll_aftermath
from rules.campaign.rules import campaign_rules
from rules.campaign.state import CampaignState, apply, replay
from rules.core.dice import ScriptedDice
from rules.core.errors import DiceError, RulesError
from tests.campaign.test_postbattle import SIDES, _entry, _log

RULES = campaign_rules("manovra")  # a casualty's D6: 1-3 returns, 4-6 dead
assert RULES is not None
LOSSES = {"alleati": {"squadra_1": 3}, "asse": {"gruppo_1": 4}}


def _typed(state: CampaignState, side: str, faces: list[int]) -> CampaignAftermath:
    return roll_aftermath(state, 1, RULES, ScriptedDice(faces, by_hand=True), side=side)


def test_typed_dice_feed_only_the_typing_sides_part() -> None:
    state = replay(_log(LOSSES))
    # The Allies' three casualties take three dice: a fourth is for nobody.
    with pytest.raises(DiceError):
        dice = ScriptedDice([1, 1, 1, 6], by_hand=True)
        roll_aftermath(state, 1, RULES, dice, side="alleati")
        dice.ensure_consumed()
    allies = _typed(state, "alleati", [1, 1, 1])
    assert set(allies.sides) == {"alleati"} and allies.side == "alleati" and allies.by_hand
    after = apply(state, allies)
    assert _entry(after, "alleati", "squadra_1").casualties == 0
    assert _entry(after, "asse", "gruppo_1").casualties == 4  # the Axis rolls its own
    assert after.aftermaths[1].unrolled(SIDES) == ["asse"]
    with pytest.raises(RulesError):
        _typed(after, "alleati", [1, 1, 1])  # a part is rolled once
    with pytest.raises(RulesError):
        apply(after, allies)
    # Too few typed dice are told the count of that side's part alone.
    with pytest.raises(DiceError) as short:
        _typed(after, "asse", [6])
    assert short.value.params["n"] == 4
    axis = roll_aftermath(after, 1, RULES, ScriptedDice([6, 6, 6, 6]), side="asse")
    both = apply(after, axis)
    assert _entry(both, "asse", "gruppo_1").casualties == 0
    assert both.aftermaths[1].unrolled(SIDES) == [] and both.aftermaths[1].typed == ("alleati",)
    assert replay([*_log(LOSSES), allies, axis]) == both
    assert event_of(event_json(allies)) == allies


def test_a_part_holds_only_its_sides_entries() -> None:
    state = replay(_log(LOSSES))
    axis = roll_aftermath(state, 1, RULES, ScriptedDice([6, 6, 6, 6]), side="asse")
    with pytest.raises(ValidationError):
        CampaignAftermath.model_validate({**axis.model_dump(), "side": "alleati"})
    with pytest.raises(ValidationError):  # a re-roll is the bot's, of one side
        CampaignAftermath.model_validate({**axis.model_dump(), "disputed": True, "by_hand": True})


def test_confirmations_wait_until_every_side_rolled() -> None:
    state = replay(_log(LOSSES))
    state = apply(state, _typed(state, "alleati", [1, 1, 1]))
    for confirmation in (
        CampaignConfirm(number=1, side="alleati"),
        CampaignConfirm(number=1),
    ):
        with pytest.raises(RulesError) as refused:
            apply(state, confirmation)
        assert refused.value.key == "error.campaign.aftermath_unrolled"
    assert not state.aftermaths[1].settled(list(SIDES))
    # The referee's roll without a side rolls every side still to roll: the Axis here.
    rest = roll_aftermath(state, 1, RULES, ScriptedDice([6, 6, 6, 6]))
    assert set(rest.sides) == {"asse"} and rest.side is None
    rolled = apply(state, rest)
    validated = apply(rolled, CampaignConfirm(number=1))
    assert validated.aftermaths[1].settled(list(SIDES))


def test_a_disputed_typed_part_is_rolled_again_by_the_bot_and_replaces_it() -> None:
    log = _log(LOSSES)
    state = replay(log)
    allies = _typed(state, "alleati", [1, 1, 1])  # every casualty back
    axis = roll_aftermath(state, 1, RULES, ScriptedDice([6, 6, 6, 6]), side="asse")
    rolled = apply(apply(state, allies), axis)
    with pytest.raises(RulesError):  # the bot's dice are nobody's to dispute
        reroll_disputed(rolled, 1, RULES, ScriptedDice([1] * 4), None, "asse", "alleati")
    confirmed = apply(rolled, CampaignConfirm(number=1, side="alleati"))
    again = reroll_disputed(confirmed, 1, RULES, ScriptedDice([6, 6, 6]), None, "alleati", "asse")
    assert (again.side, again.disputed, again.by, again.by_hand) == ("alleati", True, "asse", False)
    assert [roll.face for roll in again.sides["alleati"][0].fates] == [6, 6, 6]
    after = apply(confirmed, again)
    squad = _entry(after, "alleati", "squadra_1")
    assert squad.strength == 7 + again.sides["alleati"][0].replaced  # none came back
    assert [line.what for line in squad.history[-2:]] == [
        "bot.campaign.history.aftermath_reversed",
        "bot.campaign.history.aftermath",
    ]
    record = after.aftermaths[1]
    assert record.typed == () and record.confirmed == ()  # every side confirms anew
    assert record.event.sides["alleati"] == again.sides["alleati"]
    assert replay([*log, allies, axis, CampaignConfirm(number=1, side="alleati"), again]) == after
    with pytest.raises(RulesError):  # disputed once: the bot's dice stand
        apply(after, again)
    # A side that confirmed the dice may not dispute them.
    accepted = apply(rolled, CampaignConfirm(number=1, side="asse"))
    late = reroll_disputed(accepted, 1, RULES, ScriptedDice([6, 6, 6]), None, "alleati", "asse")
    with pytest.raises(RulesError) as refused:
        apply(accepted, late)
    assert refused.value.key == "error.campaign.already_confirmed"
    # The whole aftermath still unwinds, the re-rolled part with it.
    unwound = apply(after, CampaignAftermathReversal(number=1))
    assert _entry(unwound, "alleati", "squadra_1").casualties == 3


def test_an_older_single_event_log_replays_unchanged() -> None:
    """A log recorded before sides rolled their own parts: one event for every side, no
    ``side`` in it, typed by one player. It replays as it did: every side rolled, the
    confirmations accepted, and its dice no part's to dispute."""
    log = _log(LOSSES)
    state = replay(log)
    whole = roll_aftermath(state, 1, RULES, ScriptedDice([1, 1, 1, 6, 6, 6, 6], by_hand=True))
    recorded = {
        key: value
        for key, value in event_json(whole).items()
        if key not in ("side", "disputed", "by")
    }
    old = event_of(recorded)
    assert set(old.sides) == set(SIDES) and old.side is None
    after = replay(
        [
            *log,
            old,
            CampaignConfirm(number=1, side="alleati"),
            CampaignConfirm(number=1, side="asse"),
        ]
    )
    record = after.aftermaths[1]
    assert record.settled(list(SIDES)) and record.unrolled(SIDES) == []
    assert _entry(after, "alleati", "squadra_1").strength == 10
    assert _entry(after, "asse", "gruppo_1").strength == 6  # 5 + 1 replacement, none back
    rolled = apply(state, old)
    with pytest.raises(RulesError):
        reroll_disputed(rolled, 1, RULES, ScriptedDice([1] * 4), None, "alleati", "asse")
    # A state stored by that code (its record without the parts' fields) reads the same.
    stored = rolled.to_json()
    for held in stored["aftermaths"].values():
        for key in ("rolled", "typed"):
            del held[key]
        for key in ("side", "disputed", "by"):
            del held["event"][key]
    assert CampaignState.from_json(stored) == rolled
