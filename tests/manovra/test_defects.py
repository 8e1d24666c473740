"""The manovra rule defects found in play (issue 11), each reproduced from its report."""

from __future__ import annotations

import pytest

from rules.core.dice import ScriptedDice
from rules.core.errors import RulesError
from rules.manovra import turn as g
from rules.manovra.legal import legal_actions
from rules.manovra.scenario import load_bundled


@pytest.fixture()
def state() -> g.ManovraState:
    return g.new_game(load_bundled("esempio_normandia"))


def acting(state: g.ManovraState, unit: str) -> g.ManovraState:
    """Step 3 with ``unit`` the last to act in the turn (every other unit has acted)."""
    state.step = g.TurnStep.MANOEUVRE
    state.manoeuvred = list(state.platoons)
    for other in state.units.values():
        other.acted = other.id != unit
    state.declarations = {"alleati": "-", "asse": "-"}
    state.queue = [unit]
    return state


def apply(state, command, side, faces=(), other=None):
    dice = ScriptedDice(faces)
    others = ScriptedDice(other) if other is not None else None
    before = state.model_dump(mode="json")
    try:
        applied = g.apply(state, command, dice, actor_side=side, other_dice=others)
    except RulesError:
        assert state.model_dump(mode="json") == before, "a refusal changed the state"
        raise
    dice.ensure_consumed()
    if others is not None:
        others.ensure_consumed()
    return applied


def refused(state, command, side, key, faces=()):
    with pytest.raises(RulesError) as caught:
        apply(state, command, side, faces)
    assert caught.value.key == key, caught.value.key


def test_1_the_other_side_cannot_end_the_requests_of_the_side_to_move(state):
    # Turn 2 step 2, "to move: Alleati": the Axis /turn next was accepted and skipped them.
    state.turn, state.step = 2, g.TurnStep.REQUESTS
    assert g.awaiting(state) == "alleati"
    refused(state, g.Next(), "asse", "error.manovra.not_your_move")
    assert [a.side for a in legal_actions(state) if a.verb == "turn.next"] == ["alleati"]
    # At step 1 the same command is refused too.
    state.step = g.TurnStep.TOKENS
    refused(state, g.Next(), "asse", "error.manovra.not_your_move")


def test_1_each_side_ends_its_own_requests(state):
    state.step = g.TurnStep.REQUESTS
    # Give the Axis a battery: the PaK's platoon becomes one, so both sides may request.
    state.platoons["panzer"].kind = "battery"
    assert g.awaiting(state) == "alleati"
    after = apply(state, g.Next(), "alleati").state
    assert after.step is g.TurnStep.REQUESTS and after.requests_done == ["alleati"]
    assert g.awaiting(after) == "asse"
    refused(
        after,
        g.RequestFire(unit="squadra_1", battery="batteria_105", target="x", distance_cm=5),
        "alleati",
        "error.manovra.requests_closed",
    )
    assert apply(after, g.Next(), "asse").state.step is g.TurnStep.MANOEUVRE


def test_1_a_unit_relays_one_request_a_turn(state):
    state.step = g.TurnStep.REQUESTS
    request = g.RequestFire(unit="squadra_1", battery="batteria_105", target="x", distance_cm=90)
    after = apply(state, request, "alleati").state  # out of range: no roll, no marker
    assert after.markers == [] and after.requested == ["squadra_1"]
    refused(after, request, "alleati", "error.manovra.unit_cannot")


def test_2_mortar_direct_fire_scatters_d8_plus_d6_minus_ad(state):
    acting(state, "mortai")
    fire = g.Fire(unit="mortai", target="gruppe_1", distance_cm=10, weapon="mortaio_60")
    # Two mortars, one round each (seed line 9: every piece fires; issue 26).
    applied = apply(state, fire, "alleati", [5, 3, 1, 1])
    shot, second = [r for r in applied.resolutions if r.procedure == "scatter"]
    assert shot.steps[0].table.row == "Dispersione fuoco diretto mortai"
    assert [r.die.name for r in shot.rolls] == ["D8", "D6"]
    assert shot.outcome.code == "manovra.scatter.landed(cm=7)"  # 5 + 3 − AD 1
    assert second.outcome.code == "manovra.scatter.landed(cm=1)"  # 1 + 1 − AD 1
    assert [(b.id, b.shots) for b in applied.state.bursts] == [("he1-1", 2)]
    # The blast's fragments are resolved by the mortars' side on the units within it.
    hit = apply(applied.state, g.Fragments(target="gruppe_1", marker="he1-1"), "alleati", [9])
    assert hit.resolutions[0].procedure == "he_fragments"


def test_3_hand_grenades_roll_a_pt(state):
    acting(state, "squadra_1")
    fire = g.Fire(unit="squadra_1", target="gruppe_1", distance_cm=4, weapon="granate")
    applied = apply(state, fire, "alleati", [6, 3, 9])
    throw = applied.resolutions[-1]
    assert throw.procedure == "thrown"
    assert throw.steps[0].table.row == "Test di precisione"
    assert [r.die.name for r in throw.rolls] == ["D6", "D10", "D10"]
    # PT 6 + 1 ≥ 3; the blast on the Gruppe: D10 9 + 1 = 10, "morto -P", medium cover.
    assert applied.state.units["gruppe_1"].models == 8
    # A failed PT lands D8 − AD cm from the model aimed at.
    missed = apply(state, fire, "alleati", [1, 10, 4]).resolutions[-1]
    assert missed.outcome.code == "manovra.heavy.miss_scatter(cm=3)"


def test_3_a_grenade_at_a_vehicle_rolls_pt_against_d12(state):
    acting(state, "squadra_1")
    fire = g.Fire(unit="squadra_1", target="panzer_iv", distance_cm=4, weapon="granate")
    applied = apply(state, fire, "alleati", [1, 12, 4])
    assert [r.die.name for r in applied.resolutions[-1].rolls][:2] == ["D6", "D12"]


def test_4_losses_in_an_assault_owe_a_ct_at_half_strength(state):
    acting(state, "gruppe_1")
    state.units["squadra_1"].models = 5  # 50 % of 10
    assault = g.Assault(unit="gruppe_1", target="squadra_1")
    # The Axis rolls its CT and its models' CC dice; the Allies' CC dice are theirs.
    applied = apply(state, assault, "asse", [6, 1, 6, 1, 1, 1, 1], other=[1, 2, 2, 2, 2])
    after = applied.state
    assert after.units["squadra_1"].models == 4
    assert [(p.unit, p.kind, p.reason) for p in after.pending] == [
        ("squadra_1", "CT", "half_strength")
    ]
    cc_rolls = [r for r in applied.tray.rolls if r.label.startswith("CC — D6 enemy")]
    assert cc_rolls and all(r.side == "alleati" for r in cc_rolls)


def test_5_a_direct_he_miss_opens_fragments(state):
    acting(state, "panzer_iv")
    fire = g.Fire(unit="panzer_iv", target="squadra_1", distance_cm=20, weapon="kwk40", ammo="HE")
    applied = apply(state, fire, "asse", [1, 4])  # D12 1 + 2 = 3: miss; D8 4 − 2 = 2 cm
    assert applied.resolutions[-1].outcome.code == "manovra.heavy.miss_scatter(cm=2)"
    after = applied.state
    [burst] = after.bursts
    assert (burst.unit, burst.calibre_mm, burst.ad, burst.shots) == ("panzer_iv", 75, 2, 1)
    refused(
        after,
        g.Fragments(target="squadra_1", marker=burst.id),
        "alleati",
        "error.manovra.not_your_marker",
    )
    hit = apply(after, g.Fragments(target="squadra_1", marker=burst.id), "asse", [10])
    assert hit.state.units["squadra_1"].models == 9  # ☼: 10 + 2 → "morto"
    refused(
        hit.state,
        g.Fragments(target="squadra_1", marker=burst.id),
        "asse",
        "error.manovra.fragments_done",
    )


def test_5_a_long_gun_firing_he_reads_its_calibre_row(state):
    # Found by the fuzzer: the 75L class is on the AP rows only.
    acting(state, "panzer_iv")
    fire = g.Fire(unit="panzer_iv", target="sherman_1", distance_cm=20, ammo="HE")
    applied = apply(state, fire, "asse", [6, 12, 10])  # hull hit, pierced, effects
    penetration = applied.resolutions[-1].steps[1]
    assert "71-80" in penetration.table.row  # the HE/AA column's 71-80 row


def test_6_an_overrun_approaches_within_the_allowed_move(state):
    acting(state, "sherman_1")
    state.units["sherman_1"].statuses.append("cautious")
    far = g.Assault(unit="sherman_1", target="mg_team", distance_cm=30)
    refused(state, far, "alleati", "manovra.move.too_far")
    refused(
        state,
        g.Assault(unit="sherman_1", target="mg_team"),
        "alleati",
        "error.manovra.overrun_needs_move",
    )
    refused(
        state,
        g.Assault(unit="sherman_1", target="panzer_iv", distance_cm=3),
        "alleati",
        "error.manovra.cannot_overrun",
    )
    # Cautious through sandbags: 20 / 4 = 5 cm. The MG team rolls its own ET.
    near = g.Assault(unit="sherman_1", target="mg_team", distance_cm=5)
    applied = apply(state, near, "alleati", [], other=[6, 1])
    assert applied.resolutions[-1].procedure == "overrun"
    assert all(r.side == "asse" for r in applied.tray.rolls)
    assert applied.state.units["sherman_1"].terrain == "postazione_sacchi"
    [assault] = [a for a in legal_actions(state) if a.verb == "assault" and a.target == "mg_team"]
    assert (assault.free[0].low, assault.free[0].high) == (1, 5)


def test_7_owed_tests_block_the_end_of_every_step(state):
    state.step = g.TurnStep.INDIRECT
    state.pending.append(g.PendingTest(unit="squadra_1", kind="CT", reason="x"))
    refused(state, g.Next(), "alleati", "error.manovra.test_owed")
    refused(state, g.Next(), None, "error.manovra.test_owed")  # the referee too
    actions = legal_actions(state)
    assert [(a.verb, a.side, a.owed) for a in actions] == [("test", "alleati", True)]
    after = apply(state, g.TakeTest(unit="squadra_1", kind="CT"), "alleati", [6, 1]).state
    assert after.pending == []
    assert apply(after, g.Next(), "alleati").state.step is g.TurnStep.END


def test_8_a_fire_command_never_rolls_the_other_sides_it(state):
    # Step 3's last unit fires; step 4 opens with the Allies' two markers. Each battery is
    # alone in its group (on the field, off it): no IT, so the Axis's typed dice suffice.
    acting(state, "panzer_iv")
    state.markers = [
        g.FireMarker(id="if1-1", battery="sezione_mortai", requested_by="squadra_1", target="a"),
        g.FireMarker(
            id="if1-2", battery="batteria_105", requested_by="comando_plotone", target="b"
        ),
    ]
    fire = g.Fire(unit="panzer_iv", target="sherman_1", distance_cm=40, ammo="AP")
    after = apply(state, fire, "asse", [8, 5, 6]).state
    # The hit owes the Sherman a CT: step 4 opens once it is taken (seed lines 5, 190).
    assert after.step is g.TurnStep.MANOEUVRE
    after = apply(after, g.TakeTest(unit="sherman_1", kind="CT"), "alleati", [6, 1]).state
    assert after.step is g.TurnStep.INDIRECT and after.marker_order == ["if1-1", "if1-2"]


def test_8_the_batteries_it_is_rolled_by_their_side(state):
    acting(state, "panzer_iv")
    state.platoons["batteria_105"].off_table = False  # two batteries on the field: IT
    state.markers = [
        g.FireMarker(id="if1-1", battery="sezione_mortai", requested_by="squadra_1", target="a"),
        g.FireMarker(
            id="if1-2", battery="batteria_105", requested_by="comando_plotone", target="b"
        ),
    ]
    fire = g.Fire(unit="panzer_iv", target="sherman_1", distance_cm=40, ammo="AP")
    applied = apply(state, fire, "asse", [1], other=[1, 6])  # a miss: nothing owed
    it_rolls = [r for r in applied.tray.rolls if r.label.startswith("IT")]
    assert [(r.side, r.face) for r in it_rolls] == [("alleati", 1), ("alleati", 6)]
    assert applied.state.marker_order == ["if1-2", "if1-1"]


def test_8_it_after_a_declaration_is_rolled_by_each_side(state):
    state.step = g.TurnStep.MANOEUVRE
    state = apply(state, g.Declare(platoon="plotone_fucilieri"), "alleati").state
    # The Axis hands over its token: the three Allied squads' IT dice are the Allies'.
    applied = apply(state, g.PassToken(), "asse", [], other=[6, 1, 1])
    assert applied.state.queue == ["squadra_1", "comando_plotone", "squadra_2"]


def test_a_unit_due_to_act_killed_out_of_turn_gives_its_place(state):
    # Found by the fuzzer: fragments killed the unit first in the IT order, which stayed
    # listed as the unit to act.
    acting(state, "squadra_1")
    state.queue.append("squadra_2")
    state.units["squadra_1"].models = 1
    state.bursts = [g.Burst(id="he1-1", unit="panzer_iv", side="asse", calibre_mm=75, ad=2)]
    after = apply(state, g.Fragments(target="squadra_1", marker="he1-1"), "asse", [10]).state
    assert not after.units["squadra_1"].alive
    assert after.queue == ["squadra_2"]
    assert {a.unit for a in legal_actions(after) if a.verb == "move"} == {"squadra_2"}


def test_a_platoon_wiped_out_before_its_declaration_lets_its_side_pass(state):
    # Found by the fuzzer (seed 1034): fragments killed the Allies' last platoon left to
    # declare; the Allies, due to declare with nothing and no token, were a dead end.
    state.step = g.TurnStep.MANOEUVRE
    state.tokens = {"alleati": 0, "asse": 0}
    state.manoeuvred = ["plotone_fucilieri", "plotone_carri", "zug_1"]
    state.units["mortai"].models = 1
    state.bursts = [g.Burst(id="he1-1", unit="sherman_1", side="alleati", calibre_mm=75, ad=1)]
    assert g.awaiting(state) == "alleati"
    after = apply(state, g.Fragments(target="mortai", marker="he1-1"), "alleati", [10]).state
    assert not after.units["mortai"].alive
    assert g.awaiting(after) == "asse"
    assert legal_actions(after)[0].verb == "manoeuvre.declare"
    assert legal_actions(after)[0].side == "asse"


def test_turn_next_does_not_skip_a_declared_phase(state):
    # Found by the whole-game fuzzer (seed 5000): the Allies declared their last platoon,
    # the Axis (nothing left to declare, a token in hand) ended step 3 with /turn next.
    state.step = g.TurnStep.MANOEUVRE
    state.tokens = {"alleati": 0, "asse": 1}
    state.manoeuvred = ["plotone_fucilieri", "sezione_mortai", "zug_1", "panzer"]
    state = apply(state, g.Declare(platoon="plotone_carri"), "alleati").state
    assert g.awaiting(state) == "asse"
    refused(state, g.Next(), "asse", "error.manovra.declaration_owed")
    assert [a.verb for a in legal_actions(state)] == ["manoeuvre.pass"]
