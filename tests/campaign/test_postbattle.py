"""The post-battle sequence: rolled with scripted dice, folded, replayed, corrected, unwound."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.campaign.aftermath import EntryAftermath, FateRoll, settled_entry
from rules.campaign.events import (
    CampaignAdjust,
    CampaignAftermath,
    CampaignAftermathReversal,
    CampaignConfirm,
    CampaignCreated,
    CampaignEvent,
    CampaignGame,
    CampaignResult,
    CampaignReversal,
    CampaignRoster,
    event_json,
    event_of,
)
from rules.campaign.postbattle import roll_aftermath
from rules.campaign.roster import Roster, RosterEntry, Status
from rules.campaign.rules import campaign_rules
from rules.campaign.state import CampaignState, apply, replay
from rules.core.dice import ScriptedDice
from rules.core.errors import RulesError
from rules.core.ruleset import KNOWN_RULESETS

SIDES = {"alleati": "Alleati", "asse": "Asse"}
RULES = campaign_rules("manovra")
assert RULES is not None


def _log(losses: dict[str, dict[str, int]], winner: str | None = "alleati") -> list[CampaignEvent]:
    allies = Roster(
        side="alleati",
        entries=(
            RosterEntry(id="squadra_1", name="1ª squadra", strength=10, full=10, rank="reclute"),
            RosterEntry(id="sherman_1", name="Sherman", strength=5, full=5, experience=3),
        ),
    )
    axis = Roster(
        side="asse",
        entries=(RosterEntry(id="gruppo_1", name="Gruppo", strength=9, full=10),),
    )
    return [
        CampaignCreated(ruleset="manovra", name="Normandia", sides=SIDES, referee=1),
        CampaignRoster(side="alleati", roster=allies),
        CampaignRoster(side="asse", roster=axis),
        CampaignGame(number=1, channel=20, scenario="esempio_normandia"),
        CampaignResult(
            number=1,
            winner=winner,
            scores={"alleati": 3, "asse": 1},
            ending="turn_limit",
            final_hash="h1",
            losses=losses,
        ),
    ]


def _entry(state: CampaignState, side: str, unit: str) -> RosterEntry:
    found = state.rosters[side].entry(unit)
    assert found is not None
    return found


def test_the_sequence_rolls_each_casualty_and_settles_it() -> None:
    log = _log({"alleati": {"squadra_1": 3, "sherman_1": 5}, "asse": {"gruppo_1": 4}})
    state = replay(log)
    # in roster order: squadra_1 (1 back, 6 6 dead); sherman_1 destroyed (D6 5: returns),
    # its 5 crew (1 2 3 back, 4 5 dead); gruppo_1 (1 2 back, 5 6 dead)
    dice = ScriptedDice([1, 6, 6, 5, 1, 2, 3, 4, 5, 1, 2, 5, 6])
    event = roll_aftermath(state, 1, RULES, dice)
    dice.ensure_consumed()
    after = apply(state, event)
    squad = _entry(after, "alleati", "squadra_1")
    # 7 left + 1 back = 8, fought + won + survived = 3 experience, +1 +1 replacements
    assert (squad.strength, squad.casualties, squad.experience) == (10, 0, 3)
    tank = _entry(after, "alleati", "sherman_1")
    assert tank.status is Status.FIT and tank.strength == 5  # 3 back, 2 replaced
    assert tank.experience == 3 + 2  # fought and won; not standing at the end
    assert tank.rank == "operativi"  # 5 >= 4: one rung up from no rank
    group = _entry(after, "asse", "gruppo_1")
    assert (group.strength, group.casualties) == (8, 0)  # 5 + 2 back + 1 replaced (loser)
    change = {c.unit: c for c in event.sides["alleati"]}["sherman_1"]
    assert change.destroyed == FateRoll(face=5, fate="returns")
    assert [roll.face for roll in change.fates] == [1, 2, 3, 4, 5]
    assert squad.history[-1].what == "bot.campaign.history.aftermath"
    assert replay([*log, event]) == after
    assert event_of(event_json(event)) == event


def test_a_destroyed_unit_may_die_or_recover_for_some_games() -> None:
    log = _log({"alleati": {"sherman_1": 5}})
    state = replay(log)
    dead = roll_aftermath(state, 1, RULES, ScriptedDice([1]))  # D6 1: dead, nothing more
    tank = _entry(apply(state, dead), "alleati", "sherman_1")
    assert tank.status is Status.DEAD and tank.strength == 0 and tank.casualties == 0
    recovering = roll_aftermath(state, 1, RULES, ScriptedDice([3, 1, 1, 1, 1, 1]))
    tank = _entry(apply(state, recovering), "alleati", "sherman_1")
    assert tank.status is Status.RECOVERING and tank.until == 3  # misses game 2
    assert not tank.available(2) and tank.available(3)


def test_an_aftermath_is_rolled_once_and_only_after_a_result() -> None:
    log = _log({})
    state = replay(log)
    with pytest.raises(RulesError):
        roll_aftermath(replay(log[:-1]), 1, RULES, ScriptedDice([]))
    event = roll_aftermath(state, 1, RULES, ScriptedDice([]))
    after = apply(state, event)
    with pytest.raises(RulesError):
        apply(after, event)
    with pytest.raises(RulesError):
        roll_aftermath(after, 1, RULES, ScriptedDice([]))


def _tampered(event: CampaignAftermath, **changes: object) -> CampaignAftermath:
    first = event.sides["alleati"][0]
    changed = first.model_copy(update=changes)
    return event.model_copy(
        update={"sides": {**event.sides, "alleati": (changed, *event.sides["alleati"][1:])}}
    )


def test_a_log_that_says_more_than_the_rules_give_is_refused() -> None:
    state = replay(_log({"alleati": {"squadra_1": 3}}))
    event = roll_aftermath(state, 1, RULES, ScriptedDice([6, 6, 6]))
    first = event.sides["alleati"][0]
    dead_is_back = (FateRoll(face=6, fate="returns"), *first.fates[1:])
    for bad in (
        _tampered(event, fates=dead_is_back),  # a dead point said to return
        _tampered(event, fates=first.fates[:2]),  # a casualty without its die
        _tampered(event, replaced=first.replaced + 5),  # past full strength
        _tampered(event, after=first.after.model_copy(update={"strength": 10})),
        _tampered(event, before=first.before.model_copy(update={"strength": 9})),
        event.model_copy(update={"sides": {"asse": ()}}),  # the casualties left unsettled
    ):
        with pytest.raises(RulesError):
            apply(state, bad)


def test_a_die_whose_fate_is_not_its_band_is_refused_even_when_the_rest_agrees() -> None:
    """A log whose die says "returns" on a face the rules' table makes dead, with the
    strength after it worked out to match, is refused: the fold reads each face's band."""
    state = replay(_log({"alleati": {"squadra_1": 3}}, winner="asse"))
    event = roll_aftermath(state, 1, RULES, ScriptedDice([6, 6, 6]))  # 4-6: dead
    first = event.sides["alleati"][0]
    lie = first.model_copy(update={"fates": (FateRoll(face=6, fate="returns"), *first.fates[1:])})
    after = settled_entry(first.before, 10, 1, lie)
    assert after is not None and after.strength == first.after.strength + 1
    with pytest.raises(RulesError):
        apply(state, _tampered(event, fates=lie.fates, after=after))
    apply(state, event)  # the true one holds


def test_both_sides_confirm_or_the_referee_validates() -> None:
    state = replay(_log({}))
    state = apply(state, roll_aftermath(state, 1, RULES, ScriptedDice([])))
    with pytest.raises(RulesError):
        apply(state, CampaignConfirm(number=2, side="asse"))
    once = apply(state, CampaignConfirm(number=1, side="asse"))
    assert not once.aftermaths[1].settled(list(SIDES))
    with pytest.raises(RulesError):
        apply(once, CampaignConfirm(number=1, side="asse"))
    both = apply(once, CampaignConfirm(number=1, side="alleati"))
    assert both.aftermaths[1].settled(list(SIDES))
    with pytest.raises(RulesError):
        apply(both, CampaignConfirm(number=1, side=None))
    assert apply(state, CampaignConfirm(number=1)).aftermaths[1].settled(list(SIDES))


def test_an_adjustment_is_logged_in_the_entrys_history_and_checked() -> None:
    state = replay(_log({}))
    fixed = apply(
        state,
        CampaignAdjust(
            side="alleati", unit="squadra_1", field="strength", value="6", reason="typo"
        ),
    )
    squad = _entry(fixed, "alleati", "squadra_1")
    assert squad.strength == 6
    assert squad.history[-1].params == {
        "field": "strength",
        "before": "10",
        "after": "6",
        "reason": "typo",
    }
    recovering = apply(
        fixed,
        CampaignAdjust(side="alleati", unit="squadra_1", field="until", value="4", reason="x"),
    )
    assert _entry(recovering, "alleati", "squadra_1").status is Status.RECOVERING
    for field, value in (("strength", "11"), ("status", "recovering"), ("experience", "many")):
        with pytest.raises(RulesError):
            apply(
                state,
                CampaignAdjust(
                    side="alleati", unit="squadra_1", field=field, value=value, reason="x"
                ),  # type: ignore[arg-type]
            )
    with pytest.raises(RulesError):
        apply(
            state, CampaignAdjust(side="alleati", unit="ghost", field="rank", value="x", reason="x")
        )


def test_a_result_with_an_aftermath_is_unwound_first_then_reversed() -> None:
    log = _log({"alleati": {"squadra_1": 3}})
    state = replay(log)
    event = roll_aftermath(state, 1, RULES, ScriptedDice([1, 1, 6]))
    after = apply(state, event)
    reversal = CampaignReversal(number=1, final_hash="h1")
    with pytest.raises(RulesError):
        apply(after, reversal)  # the aftermath first
    unwound = apply(after, CampaignAftermathReversal(number=1))
    assert unwound.rosters["alleati"].entry("squadra_1").strength == 7  # type: ignore[union-attr]
    assert 1 not in unwound.aftermaths
    back = apply(unwound, reversal)
    assert _entry(back, "alleati", "squadra_1").strength == 10
    # once an entry changed after the aftermath, unwinding is refused
    adjusted = apply(
        after,
        CampaignAdjust(side="alleati", unit="squadra_1", field="experience", value="9", reason="x"),
    )
    with pytest.raises(RulesError):
        apply(adjusted, CampaignAftermathReversal(number=1))
    # and so once a later game is linked
    later = apply(after, CampaignGame(number=2, channel=21, scenario="x"))
    with pytest.raises(RulesError):
        apply(later, CampaignAftermathReversal(number=1))


# -- properties -------------------------------------------------------------------------------

_units = st.lists(
    st.tuples(
        st.integers(1, 12),  # full
        st.integers(0, 12),  # strength before the game (clamped to full)
        st.integers(0, 12),  # lost
        st.integers(0, 30),  # experience
        st.sampled_from([None, "reclute", "operativi", "veterani", "elite"]),
    ),
    min_size=1,
    max_size=5,
)


@settings(max_examples=60, deadline=None)
@given(
    units=_units,
    key=st.sampled_from(KNOWN_RULESETS),
    faces=st.lists(st.integers(1, 100), min_size=200, max_size=200),
    winner=st.sampled_from(["alleati", "asse", None]),
)
def test_properties_of_the_sequence(
    units: list[tuple[int, int, int, int, str | None]],
    key: str,
    faces: list[int],
    winner: str | None,
) -> None:
    rules = campaign_rules(key)
    assert rules is not None
    entries = tuple(
        RosterEntry(
            id=f"u{i}",
            name=f"U{i}",
            full=full,
            strength=min(strength, full),
            experience=xp,
            rank=rank,
        )
        for i, (full, strength, _, xp, rank) in enumerate(units)
    )
    losses = {f"u{i}": lost for i, (_, _, lost, _, _) in enumerate(units)}
    log: list[CampaignEvent] = [
        CampaignCreated(ruleset=key, name="P", sides=SIDES, referee=1),
        CampaignRoster(side="alleati", roster=Roster(side="alleati", entries=entries)),
        CampaignGame(number=1, channel=5, scenario="s"),
        CampaignResult(
            number=1,
            winner=winner,
            scores={},
            ending="x",
            final_hash="h",
            losses={"alleati": losses},
        ),
    ]
    state = replay(log)
    die = max(rules.casualties.die, rules.destroyed.die)
    dice = ScriptedDice([1 + face % die for face in faces])
    event = roll_aftermath(state, 1, rules, dice)
    after = apply(state, event)
    assert after == replay([*log, event])  # the fold equals the replay
    changes = {change.unit: change for change in event.sides.get("alleati", ())}
    for before in state.rosters["alleati"].entries:
        now = after.rosters["alleati"].entry(before.id)
        assert now is not None
        assert now.casualties == 0 and now.strength <= now.full
        change = changes.get(before.id)
        if change is None:
            assert now == before
            continue
        returned = sum(1 for roll in change.fates if roll.fate == "returns")
        # no casualty returns without a band that returns it
        assert now.strength - before.strength == returned + change.replaced
        assert returned <= before.casualties
        if change.destroyed is not None and change.destroyed.fate == "dead":
            assert now.status is Status.DEAD
    # a dead entry never comes back: no later aftermath touches it
    for dead in (e for e in after.rosters["alleati"].entries if e.status is Status.DEAD):
        sneaky = EntryAftermath(
            unit=dead.id,
            fates=(),
            experience=1,
            before=changes[dead.id].after,
            after=changes[dead.id].after.model_copy(update={"status": Status.FIT, "strength": 1}),
        )
        again = apply(after, CampaignGame(number=2, channel=6, scenario="s"))
        again = apply(
            again,
            CampaignResult(number=2, winner=None, scores={}, ending="x", final_hash="h2"),
        )
        with pytest.raises(RulesError):
            apply(again, CampaignAftermath(number=2, sides={"alleati": (sneaky,)}))
        rolled = roll_aftermath(again, 2, rules, ScriptedDice([]))
        assert dead.id not in {c.unit for c in rolled.sides["alleati"]}


def test_an_aftermath_past_its_dice_budget_is_refused_in_one_line() -> None:
    huge = Roster(
        side="asse",
        entries=tuple(
            RosterEntry(id=f"u{i}", name="U", strength=0, full=1000, casualties=1000)
            for i in range(3)
        ),
    )
    log = _log({})
    log.insert(3, CampaignRoster(side="asse", roster=huge))
    state = replay(log)
    with pytest.raises(RulesError) as caught:
        roll_aftermath(state, 1, RULES, ScriptedDice([]))
    assert caught.value.key == "error.campaign.aftermath_too_large"
    assert "3003 dice" in caught.value.localized("en")


@pytest.mark.parametrize("field", ["replaced", "experience"])
def test_more_replacements_or_experience_than_the_rules_give_is_refused(field: str) -> None:
    """A log that refills a unit (or raises its experience) past what the sequence gives any
    unit, with its values after worked out to match, is refused: the fold bounds both."""
    state = replay(_log({"alleati": {"squadra_1": 5}}, winner="asse"))
    event = roll_aftermath(state, 1, RULES, ScriptedDice([6, 6, 6, 6, 6]))  # all dead
    first = event.sides["alleati"][0]
    most = {
        "replaced": RULES.replacements.per_game
        + max(RULES.replacements.won, RULES.replacements.drawn),
        "experience": RULES.experience.fought + RULES.experience.won + RULES.experience.survived,
    }[field]
    lie = first.model_copy(update={field: most + 1})
    after = settled_entry(first.before, 10, 1, lie)
    assert after is not None and after.strength <= 10
    with pytest.raises(RulesError):
        apply(state, _tampered(event, **{field: most + 1, "after": after}))
    apply(state, event)  # the true one holds
