"""pzgren games through the game logic with scripted dice: the turn sequence, movement and
stacking, fire with the modifiers the state implies, owed step choices and morale checks,
opportunity fire, and refusals that leave the state unchanged."""

from __future__ import annotations

import pytest

from rules.core.dice import ScriptedDice
from rules.core.errors import IllegalAction, InvalidInput, RulesError
from rules.pzgren import turn as g
from rules.pzgren.model import MoraleState
from rules.pzgren.scenario import load_bundled, parse_scenario


class Table:
    """Applies commands, checking that refusals change nothing and every face is used."""

    def __init__(self, state: g.PzgrenState) -> None:
        self.state = state

    def __call__(self, command, side, faces=()):
        dice = ScriptedDice(faces)
        before = self.state.model_dump(mode="json")
        try:
            applied = g.apply(self.state, command, dice, actor_side=side)
        except RulesError:
            assert self.state.model_dump(mode="json") == before, "a refusal changed the state"
            raise
        dice.ensure_consumed()
        self.state = applied.state
        return applied

    def refused(self, command, side, key, faces=()):
        with pytest.raises(RulesError) as caught:
            self(command, side, faces)
        assert caught.value.key == key, caught.value.key
        return caught.value

    def unit(self, unit_id: str) -> g.UnitState:
        return self.state.units[unit_id]


@pytest.fixture()
def table() -> Table:
    return Table(g.new_game(load_bundled("exemple_ardennes")))


def fire(units: str, **options) -> g.Fire:
    return g.Fire(units=tuple(units.split(",")), **options)


def small(units_a: str, units_b: str, hexes: str = "{}", extra: str = "") -> Table:
    """A small scenario: side a and side b with the given unit lines (YAML flow maps)."""
    text = f"""
id: test
ruleset: pzgren
title: Test
turns: 2
first_side: a
{extra}
map: {{columns: 12, rows: 12, hexes: {hexes}}}
sides:
  - id: a
    name: A
    units: [{units_a}]
  - id: b
    name: B
    units: [{units_b}]
"""
    return Table(g.new_game(parse_scenario(text)))


def test_a_whole_turn(table):
    state = table.state
    assert g.awaiting(state) == "us" and state.turn == 1
    table.refused(g.Move(unit="de_pzgren_1", hex="5,3"), "de", "error.pzgren.not_your_activation")
    table.refused(g.Move(unit="de_pzgren_1", hex="5,3"), "us", "error.pzgren.not_your_unit")
    table.refused(g.Move(unit="us_rifle_1", hex="5,3"), "us", "error.pzgren.too_far")
    table.refused(g.Move(unit="us_rifle_1", hex="2,3"), "us", "error.pzgren.already_there")
    table.refused(g.Move(unit="us_rifle_1", hex="x"), "us", "error.pzgren.bad_hex")

    # US 1: a move; the Germans may now fire at the mover out of turn.
    applied = table(g.Move(unit="us_rifle_1", hex="4,3"), "us")
    assert (
        applied.notices[0].code
        == "pzgren.action.moved(unit=1° plotone fucilieri,hex=4,3,distance=2)"
    )
    assert table.state.active_side == "de" and table.state.moved_last == ["us_rifle_1"]
    table.refused(fire("us_m10", target="de_panther"), "us", "error.pzgren.not_your_activation")
    table.refused(
        fire("de_pzgren_1", hex="5,4", opportunity=True), "de", "error.pzgren.opportunity_target"
    )

    # Opportunity fire: 7 → column 7, +1 → 11; 2D6 = 2: X on the lone platoon (no choice).
    applied = table(fire("de_pzgren_1", hex="4,3", opportunity=True), "de", [1, 1])
    shot = applied.resolutions[0]
    assert [(m.key, m.value) for m in shot.steps[1].modifiers] == [("pzgren.mod.opportunity", 1)]
    assert shot.steps[1].table.column == "11" and shot.steps[1].table.cell == "X"
    assert table.unit("us_rifle_1").steps == 1 and table.unit("de_pzgren_1").acted
    assert table.state.pending_morale == [g.PendingMorale(unit="us_rifle_1", n=2)]
    assert g.awaiting(table.state) == "us"
    table.refused(g.Hold(unit="de_hmg"), "de", "error.pzgren.morale_owed")
    table.refused(g.Next(), None, "error.pzgren.morale_owed")
    table.refused(g.Morale(unit="us_rifle_1"), "de", "error.pzgren.not_your_unit")
    table.refused(g.Morale(unit="us_rifle_2"), "us", "error.pzgren.no_morale_owed")
    applied = table(g.Morale(unit="us_rifle_1"), "us", [3, 3])  # 6 + 2 = 8 > 7
    assert applied.resolutions[0].outcome.code == "pzgren.morale.failed(status=disrupted)"
    assert table.unit("us_rifle_1").status is MoraleState.DISRUPTED
    assert g.awaiting(table.state) == "de"

    # DE 1: the Panther's anti-tank fire at the M10 (3 hexes): 2 + 12 - 3 = 11.
    applied = table(fire("de_panther", target="us_m10"), "de", [1, 1])
    assert applied.resolutions[0].outcome.code == "pzgren.at.step_lost(left=1)"
    assert table.state.at_entries == {"us_m10": [0]}
    table(g.Morale(unit="us_m10"), "us", [1, 1])
    assert table.unit("us_m10").status is MoraleState.GOOD_ORDER
    assert table.state.active_side == "us" and table.state.moved_last == []

    # US 2: combined fire of a dug-in platoon and the mortar at the stack in 6,3: 6 + 5 = 11,
    # the mortar is 5 hexes away (-1): column 7; 2D6 = 2: X — the Germans choose the step.
    applied = table(fire("us_rifle_2,us_mortar", hex="6,3"), "us", [1, 1])
    assert applied.resolutions[0].steps[1].table.column == "7"
    assert table.unit("de_truck").steps == 0  # the only transport: no choice
    assert [p.units for p in table.state.pending_steps] == [["de_pzgren_1", "de_hmg"]]
    assert g.awaiting(table.state) == "de"
    table.refused(g.Step(unit="de_hmg"), "us", "error.pzgren.not_your_choice")
    table.refused(g.Step(unit="de_truck"), "de", "error.pzgren.not_a_step_choice")
    table.refused(g.Morale(unit="de_hmg"), "de", "error.pzgren.steps_owed")
    table(g.Step(unit="de_hmg"), "de")
    assert table.unit("de_hmg").steps == 0 and table.state.pending_steps == []
    assert [p.unit for p in table.state.pending_morale] == ["de_pzgren_1"]  # the others are gone
    table(g.Morale(unit="de_pzgren_1"), "de", [4, 2])  # 6 + 2 = 8 ≤ 8
    assert table.unit("de_pzgren_1").status is MoraleState.GOOD_ORDER

    # Passing: both sides pass in a row and the turn ends.
    table.refused(g.Next(), "us", "error.pzgren.not_your_activation")
    applied = table(g.Next(), "de")
    assert table.state.active_side == "us"
    applied = table(g.Next(), "us")
    assert [n.key for n in applied.notices] == ["pzgren.turn.passed", "pzgren.turn.new"]
    assert table.state.turn == 2 and table.state.active_side == "us"
    assert not any(u.acted for u in table.state.units.values())
    assert table.state.at_entries == {}


def test_each_unit_acts_once_and_a_side_without_units_is_skipped():
    table = small(
        '{id: a1, name: A1, type: infantry, hex: "0,0", fire: 2, movement: 2}, '
        '{id: a2, name: A2, type: infantry, hex: "0,1", fire: 2}',
        '{id: b1, name: B1, type: infantry, hex: "5,5", fire: 2}',
    )
    table(g.Hold(unit="a1"), "a")
    table.refused(g.Hold(unit="a1"), "a", "error.pzgren.not_your_activation")
    table(g.Hold(unit="b1"), "b")
    assert table.state.active_side == "a"
    table.refused(g.Hold(unit="a1"), "a", "error.pzgren.already_acted")
    applied = table(g.Move(unit="a2", hex="1,1"), "a")
    # nobody left: the turn ends by itself
    assert applied.notices[-1].code == "pzgren.turn.new(turn=2,side=A)"
    table(g.Hold(unit="a1"), "a")
    assert table.state.turn == 2 and table.state.active_side == "b"
    table(g.Hold(unit="b1"), "b")
    applied = table(g.Hold(unit="a2"), "a")
    assert applied.notices[-1].code == "pzgren.turn.game_over(turn=2)"
    assert table.state.ended and g.awaiting(table.state) is None
    table.refused(g.Next(), None, "error.pzgren.game_over")


def test_stacking_and_enemy_hexes():
    table = small(
        '{id: a1, name: A1, type: infantry, hex: "1,1"}, '
        '{id: a2, name: A2, type: infantry, hex: "1,1"}, '
        '{id: a3, name: A3, type: infantry, hex: "1,1"}, '
        '{id: a4, name: A4, type: infantry, hex: "2,1"}, '
        '{id: at, name: Truck, type: truck, hex: "2,2", movement: 3}',
        '{id: b1, name: B1, type: infantry, hex: "3,1"}',
    )
    table.refused(g.Move(unit="a4", hex="1,1"), "a", "error.pzgren.stacking")
    table.refused(g.Move(unit="a4", hex="3,1"), "a", "error.pzgren.enemy_hex")
    table.refused(g.Move(unit="at", hex="-1,1"), "a", "error.pzgren.off_map")
    table(g.Move(unit="at", hex="1,1"), "a")  # transport does not count
    assert table.unit("at").hex == "1,1"


def test_state_modifiers_of_direct_fire(table):
    # Turn 6 is a night turn; 7,3 is a town with an entrenchment.
    table.state.turn = 6
    table.state.active_side = "us"
    table.unit("us_rifle_2").hex = "6,4"
    table.state.units["us_rifle_2"].dug_in = False
    applied = table(fire("us_rifle_2", hex="7,3"), "us", [6, 6])
    step = applied.resolutions[0].steps[1]
    keys = [m.key.rsplit(".", 1)[1] for m in step.modifiers]
    assert keys == ["entrenchment_town_woods", "town_woods", "night", "adjacent_all"]
    assert step.total == -2  # -1 -2 -1 +2: the cap is not needed


def test_minefield_marsh_hill_three_stacked_and_unit_columns():
    table = small(
        '{id: a1, name: A1, type: infantry, hex: "1,1", fire: 7, range: 6}, '
        '{id: a2, name: A2, type: infantry, hex: "4,1", fire: 7, range: 6}',
        '{id: b1, name: B1, type: infantry, hex: "4,4"}, '
        '{id: b2, name: Guns, type: artillery, hex: "4,4"}, '
        '{id: b3, name: Horse, type: cavalry, hex: "4,4", dug_in: true}, '
        '{id: b4, name: Cart, type: wagon, hex: "4,4"}',
        '{"4,4": {terrain: marsh, minefield: a}}',
    )
    applied = table(fire("a1,a2", hex="4,4"), "a", [3, 4])
    steps = applied.resolutions[0].steps[1:]
    assert [s.outcome.param("units") for s in steps] == ["B1, Cart", "Guns", "Horse"]  # by name
    common = [
        "pzgren.mod.range_3",
        "pzgren.mod.own_minefield",
        "pzgren.mod.marsh",
        "pzgren.mod.three_stacked",
    ]
    assert [m.key for m in steps[0].modifiers] == common
    assert [m.key for m in steps[1].modifiers] == [
        *common[:3],
        "pzgren.mod.three_stacked",
        "pzgren.mod.artillery",
        "pzgren.mod.cap",
    ]
    assert "pzgren.mod.dug_in" in [m.key for m in steps[2].modifiers]
    assert "pzgren.mod.cavalry" in [m.key for m in steps[2].modifiers]


def test_declared_modifiers_players_and_referee():
    table = small(
        '{id: a1, name: A1, type: infantry, hex: "1,1", fire: 1, range: 5}',
        '{id: b1, name: B1, type: infantry, hex: "2,1", fire: 1}',
    )
    table.refused(fire("a1", hex="2,1", modifiers=("night",)), "a", "error.pzgren.not_declarable")
    table.refused(fire("a1", hex="2,1", modifiers=("zzz",)), "a", "error.pzgren.unknown_modifier")
    table.refused(
        fire("a1", hex="2,1", modifiers=("artillery",)), None, "error.pzgren.unit_modifier"
    )
    applied = table(fire("a1", hex="2,1", modifiers=("river_engineers",)), "a", [3, 4])
    keys = [m.key for m in applied.resolutions[0].steps[1].modifiers]
    assert keys == ["pzgren.mod.river_engineers", "pzgren.mod.adjacent_all"]
    assert applied.resolutions[0].steps[1].table.cell == "-"
    applied = table(fire("b1", hex="1,1", modifiers=("night",)), None, [1, 2])  # the referee
    keys = [m.key for m in applied.resolutions[0].steps[1].modifiers]
    assert keys == ["pzgren.mod.night", "pzgren.mod.adjacent_all"]


def test_range_hex_and_target_checks(table):
    table.refused(fire("us_rifle_1", hex="6,3"), "us", "error.pzgren.out_of_range")
    table.refused(fire("us_rifle_1", hex="3,3"), "us", "error.pzgren.no_enemy_in_hex")
    table.refused(fire("us_rifle_1", target="us_m10"), "us", "error.pzgren.friendly_target")
    table.refused(fire("us_rifle_1"), "us", "error.pzgren.fire_needs_target")
    table.refused(fire("us_rifle_1", hex="6,3", mode="at"), "us", "error.pzgren.at_needs_target")
    table.refused(fire("us_rifle_1", target="de_panther"), "us", "error.pzgren.no_at_value")
    table.refused(fire("us_at57,us_m10", target="de_panther"), "us", "error.pzgren.at_one_unit")
    table.refused(
        fire("us_at57", target="de_pzgren_1", mode="at"), "us", "error.pzgren.at_needs_armour"
    )
    table.refused(fire("us_at57", target="us_p47"), "us", "error.pzgren.friendly_target")
    table.refused(fire("us_at57,de_panther", target="de_panther"), None, "error.pzgren.mixed_sides")
    table.refused(fire("us_at57,us_at57", hex="6,3"), "us", "error.pzgren.unit_twice")
    table.refused(
        fire("us_at57", target="de_panther", hex="1,1"), "us", "error.pzgren.hex_and_target"
    )
    table.refused(fire("nobody", hex="6,3"), "us", "error.pzgren.unknown_unit")


def test_anti_tank_modifiers_from_the_state():
    table = small(
        '{id: gun, name: Gun, type: at, hex: "0,3", at: 6, range: 8}, '
        '{id: gun2, name: Gun2, type: at, hex: "6,3", at: 6, range: 8}, '
        '{id: gun3, name: Gun3, type: at, hex: "3,6", at: 6, range: 8}, '
        '{id: gun4, name: Gun4, type: at, hex: "9,3", at: 6, range: 8}',
        '{id: tank, name: Tank, type: afv, hex: "3,3", armour: 2, steps: 4, dug_in: true}, '
        '{id: spare, name: Spare, type: infantry, hex: "11,11"}',
        '{"3,3": {terrain: hill, elevation: 2}}',
    )
    # gun from the west, 3 hexes: dug in, higher hill
    applied = table(fire("gun", target="tank"), "a", [1, 1])
    keys = [m.key for m in applied.resolutions[0].steps[0].modifiers]
    assert keys == [
        "pzgren.mod.at_value",
        "pzgren.mod.armour",
        "pzgren.atmod.dug_in_or_town_woods",
        "pzgren.atmod.higher_hill",
    ]
    table(g.Hold(unit="spare"), "b")
    # gun2 from the east: a non-adjacent entry hex after the first attack: +2
    applied = table(fire("gun2", target="tank"), "a", [1, 1])
    assert "pzgren.atmod.flank" in [m.key for m in applied.resolutions[0].steps[0].modifiers]
    assert len(table.state.at_entries["tank"]) == 2


def test_the_flank_bonus_needs_a_non_adjacent_entry():
    table = small(
        '{id: g1, name: G1, type: at, hex: "5,3", at: 6, range: 8}, '
        '{id: g2, name: G2, type: at, hex: "5,1", at: 6, range: 8}, '
        '{id: g3, name: G3, type: at, hex: "1,3", at: 6, range: 8}',
        '{id: tank, name: Tank, type: afv, hex: "3,3", armour: 9, steps: 4}, '
        '{id: s1, name: S1, type: infantry, hex: "11,11"}, '
        '{id: s2, name: S2, type: infantry, hex: "11,10"}',
    )
    directions = []
    for gun, idle in (("g1", "s1"), ("g2", "s2"), ("g3", None)):
        applied = table(fire(gun, target="tank"), "a", [1, 1])
        directions.append(
            "pzgren.atmod.flank" in [m.key for m in applied.resolutions[0].steps[0].modifiers]
        )
        if idle:
            table(g.Hold(unit=idle), "b")
    assert directions == [False, False, True]
    assert table.state.at_entries["tank"] == [0, 1, 3]


def test_a_2x_result_gives_a_step_to_the_open_top_afv():
    table = small(
        '{id: a1, name: A1, type: infantry, hex: "1,1", fire: 16, range: 5}',
        '{id: b1, name: Inf, type: infantry, hex: "3,1", steps: 3}, '
        '{id: b2, name: Halftrack, type: afv, top: open, hex: "3,1", armour: 1, steps: 2}, '
        '{id: b3, name: Tiger, type: afv, hex: "3,1", armour: 8, steps: 2}',
    )
    table(fire("a1", hex="3,1"), "a", [1, 1])  # 16 → column 16, row 2: 2X
    entry = table.state.pending_steps[0]
    assert entry.units == ["b1", "b2"] and entry.open_top == ["b2"] and entry.owed == 2
    assert g.step_choices(table.state, entry) == ["b1", "b2"]
    table(g.Step(unit="b1"), "b")
    # the last step must go to the open-top AFV: no choice left, applied at once
    assert table.state.pending_steps == []
    assert (table.unit("b1").steps, table.unit("b2").steps, table.unit("b3").steps) == (2, 1, 2)
    assert {p.unit: p.n for p in table.state.pending_morale} == {"b1": 2, "b2": 2, "b3": 0}


def test_steps_to_the_same_unit_and_elimination():
    table = small(
        '{id: a1, name: A1, type: infantry, hex: "1,1", fire: 45, range: 5}',
        '{id: b1, name: B1, type: infantry, hex: "3,1", steps: 3}, '
        '{id: b2, name: B2, type: infantry, hex: "3,1", steps: 1}',
    )
    table(fire("a1", hex="3,1"), "a", [1, 1])  # 3X
    table(g.Step(unit="b1"), "b")
    table(g.Step(unit="b1"), "b")
    assert table.state.pending_steps[0].owed == 1
    applied = table(g.Step(unit="b2"), "b")
    assert applied.notices[-1].code == "pzgren.unit.eliminated(unit=B2)"
    assert [p.unit for p in table.state.pending_morale] == ["b1"]
    table.refused(g.Step(unit="b1"), "b", "error.pzgren.morale_owed")  # what is owed now
    table(g.Morale(unit="b1"), "b", [1, 1])
    table.refused(g.Step(unit="b1"), "b", "error.pzgren.no_steps_owed")


def test_demoralized_units_may_not_fire_and_may_rally():
    table = small(
        '{id: a1, name: A1, type: infantry, hex: "1,1", fire: 4, range: 5, morale: 7}, '
        '{id: a2, name: A2, type: infantry, hex: "1,2", fire: 4, range: 5}',
        '{id: b1, name: B1, type: infantry, hex: "3,1"}',
    )
    table.state.units["a1"].status = MoraleState.DEMORALIZED
    table.refused(fire("a1", hex="3,1"), "a", "error.pzgren.may_not_fire")
    table.refused(g.Recover(unit="a2"), "a", "error.pzgren.not_shaken")
    applied = table(g.Recover(unit="a1"), "a", [3, 4])
    assert applied.resolutions[0].outcome.code == "pzgren.morale.rallied(status=disrupted)"
    assert table.unit("a1").status is MoraleState.DISRUPTED and table.unit("a1").acted


def test_aircraft_and_enemy_aa():
    table = small(
        '{id: p47, name: P-47, type: aircraft, hex: "0,0", fire: 8, at: 4}',
        '{id: b1, name: B1, type: infantry, hex: "6,6"}, '
        '{id: flak, name: Flak, type: aa, hex: "6,8"}',
    )
    applied = table(fire("p47", hex="6,6"), "a", [6, 6])
    keys = [m.key for m in applied.resolutions[0].steps[1].modifiers]
    assert keys == ["pzgren.mod.enemy_aa"]  # the Flak is 2 hexes from the target
    assert not table.state.pending_steps


def test_opportunity_fire_rules():
    table = small(
        '{id: a1, name: A1, type: infantry, hex: "1,1", fire: 4, range: 5, movement: 2}, '
        '{id: a2, name: A2, type: infantry, hex: "1,2", fire: 4, range: 5}',
        '{id: b1, name: B1, type: infantry, hex: "4,1", fire: 4, range: 5}, '
        '{id: b2, name: B2, type: infantry, hex: "4,2", fire: 4, range: 5}',
    )
    table.refused(fire("b1", hex="1,1", opportunity=True), "b", "error.pzgren.no_opportunity")
    table(g.Move(unit="a1", hex="2,1"), "a")
    table.refused(fire("a2", hex="4,1", opportunity=True), "a", "error.pzgren.no_opportunity")
    table(fire("b1", hex="2,1", opportunity=True), "b", [3, 4])  # 4 → column 4, +1: "-"
    table(fire("b2", hex="2,1", opportunity=True), "b", [3, 4])  # a second one
    # b has no unit left: the activation goes back to a
    assert table.state.active_side == "a"
    table(g.Hold(unit="a2"), "a")
    assert table.state.turn == 2


def test_preview_changes_nothing_and_skips_turn_order(table):
    before = table.state.model_dump(mode="json")
    applied = g.apply(
        table.state,
        fire("de_panther", target="us_m10"),
        ScriptedDice([1, 1]),
        actor_side="de",
        preview=True,
    )
    assert applied.resolutions[0].odds is not None and applied.resolutions[0].odds.exact
    assert applied.state.units["us_m10"].steps == 2 and applied.state.pending_morale == []
    assert table.state.model_dump(mode="json") == before
    with pytest.raises(IllegalAction):
        g.apply(
            table.state,
            fire("de_panther", target="us_m10"),
            ScriptedDice([1, 1]),
            actor_side="us",
            preview=True,
        )


def test_scenario_errors_name_the_line():
    text = load_bundled("exemple_ardennes").model_dump_json()
    assert "exemple_ardennes" in text
    with pytest.raises(InvalidInput) as caught:
        parse_scenario(
            "id: x\nruleset: pzgren\ntitle: t\nfirst_side: a\nmap: {columns: 0, rows: 2}\n"
        )
    assert caught.value.key == "error.scenario.invalid_line"
    assert caught.value.params["line"] == 5
    bad_units = [
        ('{id: a1, name: A, type: tank, hex: "1,1"}', "unknown unit type"),
        ('{id: a1, name: A, type: afv, hex: "1,1"}', "armour"),
        ('{id: a1, name: A, type: infantry, hex: "1,1", armour: 2}', "only AFVs"),
        ('{id: a1, name: A, type: infantry, hex: "99,1"}', "off the map"),
        ('{id: a1, name: A, type: infantry, hex: "2,2"}', "both sides"),
    ]
    for line, detail in bad_units:
        with pytest.raises(InvalidInput) as caught:
            small(line, '{id: b1, name: B, type: infantry, hex: "2,2"}')
        assert detail in str(caught.value.params["detail"]), detail
        # The offending unit's line, not the document's first.
        assert caught.value.params["line"] > 1, detail
    with pytest.raises(InvalidInput) as caught:
        small(
            ", ".join(f'{{id: a{i}, name: A, type: infantry, hex: "1,1"}}' for i in range(4)),
            '{id: b1, name: B, type: infantry, hex: "2,2"}',
        )
    assert "more than 3" in str(caught.value.params["detail"])


def test_a_side_without_units_ends_the_game_and_owed_checks_can_still_be_taken():
    table = small(
        '{id: a1, name: A1, type: infantry, hex: "1,1", fire: 45, range: 5}',
        '{id: b1, name: B1, type: infantry, hex: "3,1", steps: 1}, '
        '{id: b2, name: Cart, type: wagon, hex: "3,1", steps: 2}',
    )
    applied = table(fire("a1", hex="3,1"), "a", [6, 6])  # 45+, row 12: 3X
    assert applied.notices[-1].code == "pzgren.turn.side_destroyed(side=B)"
    assert table.state.ended and table.unit("b2").alive is False
    table.refused(g.Next(), None, "error.pzgren.game_over")


def test_owed_morale_survives_the_end_of_the_game():
    table = small(
        '{id: a1, name: A1, type: infantry, hex: "1,1", fire: 1, range: 5}',
        '{id: b1, name: B1, type: infantry, hex: "3,1"}',
    )
    table.state.max_turns = 1
    table(g.Next(), "a")  # a passes; b holds next
    table(g.Hold(unit="b1"), "b")
    applied = table(fire("a1", hex="3,1"), "a", [1, 1])  # column 1, row 2: M
    assert table.state.ended and applied.notices[-1].code == "pzgren.turn.game_over(turn=1)"
    assert g.awaiting(table.state) == "b"
    table(g.Morale(unit="b1"), "b", [1, 1])
    assert g.awaiting(table.state) is None


def test_hill_entrenchment_and_mortar_columns():
    table = small(
        '{id: a1, name: A1, type: infantry, hex: "1,1", fire: 7, range: 5}',
        '{id: b1, name: B1, type: infantry, hex: "3,1"}, '
        '{id: b2, name: Mortar, type: mortar, hex: "3,1"}',
        '{"3,1": {terrain: hill, elevation: 1, entrenchment: true}}',
    )
    applied = table(fire("a1", hex="3,1"), "a", [4, 4])
    base, mortar = applied.resolutions[0].steps[1:]
    assert [m.key for m in base.modifiers] == [
        "pzgren.mod.entrenchment",
        "pzgren.mod.hill",
        "pzgren.mod.cap",
    ]
    assert [m.key for m in mortar.modifiers] == [
        "pzgren.mod.entrenchment",
        "pzgren.mod.hill",
        "pzgren.mod.mortar_aa_at",
    ]
    assert (base.total, mortar.total) == (-2, -2)  # -3 capped; -3 + 1


def test_anti_tank_fire_in_the_next_segment_takes_the_moved_modifier_alone():
    """Seed 003 line 163: "-1 : cible qui s'est déplacée dans le segment d'action
    précédent" — the ordinary fire of the next activation, not opportunity fire (line 165)."""
    table = small(
        '{id: tank, name: Tank, type: afv, hex: "5,1", armour: 3, movement: 3, steps: 2}',
        '{id: gun, name: Gun, type: at, hex: "1,1", at: 6, range: 8}',
    )
    table(g.Move(unit="tank", hex="3,1"), "a")
    applied = table(fire("gun", target="tank"), "b", [3, 2])
    keys = [m.key.rsplit(".", 1)[1] for m in applied.resolutions[0].steps[0].modifiers]
    assert keys == ["at_value", "armour", "moved"]


def test_anti_tank_opportunity_fire_at_a_mover():
    table = small(
        '{id: tank, name: Tank, type: afv, hex: "5,1", armour: 3, movement: 3, steps: 2}, '
        '{id: tank2, name: Tank2, type: afv, hex: "5,5", armour: 3, steps: 2}',
        '{id: gun, name: Gun, type: at, hex: "1,1", at: 6, range: 8}, '
        '{id: gun2, name: Gun2, type: at, hex: "11,5", at: 6, range: 8}',
    )
    table(g.Move(unit="tank", hex="2,1"), "a")
    applied = table(
        fire("gun", target="tank", opportunity=True, modifiers=("river_engineers",)), "b", [3, 2]
    )
    keys = [m.key.rsplit(".", 1)[1] for m in applied.resolutions[0].steps[0].modifiers]
    # Seed 003 lines 163, 165: the mover is fired at in its own segment, not the previous
    # one, so opportunity fire takes its own -1 without the "moved" -1.
    assert keys == ["at_value", "armour", "opportunity", "adjacent", "river_engineers"]
    assert applied.resolutions[0].steps[0].total == 5 + 6 - 3 - 1 + 1 + 1
    applied = table(fire("gun2", target="tank2"), "b", [3, 3])  # 6 hexes away
    keys = [m.key.rsplit(".", 1)[1] for m in applied.resolutions[0].steps[0].modifiers]
    assert keys == ["at_value", "armour", "range_over_5"]


def test_only_afvs_and_trucks_are_anti_tank_targets():
    """Line 148: the roll subtracts the target's armour value, and trucks count -1; wagons
    and sledges have none: they are fired at directly, never with anti-tank fire."""
    table = small(
        '{id: gun, name: Gun, type: at, hex: "1,1", at: 6, range: 8}',
        '{id: cart, name: Cart, type: wagon, hex: "3,1"}, '
        '{id: sled, name: Sled, type: sledge, hex: "3,2"}, '
        '{id: lorry, name: Lorry, type: truck, hex: "4,1"}',
    )
    for target in ("cart", "sled"):
        table.refused(fire("gun", target=target, mode="at"), "a", "error.pzgren.at_needs_armour")
    applied = table(fire("gun", target="lorry", mode="at"), "a", [3, 3])
    assert [(m.key, m.value) for m in applied.resolutions[0].steps[0].modifiers] == [
        ("pzgren.mod.at_value", 6),
        ("pzgren.mod.truck_armour", 1),
    ]
