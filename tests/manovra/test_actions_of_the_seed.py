"""The simple and complex actions as seed 000 lists them (lines 9 and 10), played through the
game logic: fire with all the unit's weapons, fire then move, fire and conceal, and the
transports (hook, unhook, embark, disembark, and their complex actions with fire)."""

from __future__ import annotations

import pytest

from rules.core.battlefield import Point
from rules.core.dice import SystemDice
from rules.core.errors import RulesError
from rules.manovra import turn as g
from rules.manovra.legal import legal_actions
from rules.manovra.scenario import bundled_scenarios, load_bundled, parse_scenario

TRANSPORTS = "normandia_trasporti"


def at_step_3(scenario: str) -> g.ManovraState:
    state = g.new_game(load_bundled(scenario))
    state.step = g.TurnStep.MANOEUVRE
    return state


def act(state, unit, command, side, dice=None):
    state.queue = [unit]
    return g.apply(state, command, dice or SystemDice(), actor_side=side)


def refused(state, unit, command, side, key):
    state.queue = [unit]
    with pytest.raises(RulesError) as caught:
        g.apply(state, command, SystemDice(), actor_side=side)
    assert caught.value.key == key, (caught.value.key, caught.value.params)


def shots(volley) -> int:
    return int(dict(volley.steps[0].params)["shots"])


def procedures(applied) -> list[str]:
    return [r.procedure for r in applied.resolutions]


# -- Line 9: "Sparare - con tutte le armi dell'unità" -----------------------------------------


@pytest.fixture()
def plain() -> g.ManovraState:
    """esempio_normandia at step 3, Gruppe 1 in the open (seen at 60 cm)."""
    state = at_step_3("esempio_normandia")
    state.units["gruppe_1"].terrain = "piano_scoperto"
    return state


def test_fire_uses_every_weapon_of_the_unit_each_through_its_own_procedure(plain):
    """Seed line 9: the Sherman fires its gun (TIRO ARMI PESANTI, one roll per round) and its
    machine gun (FUOCO ARMI LEGGERE), in one action and one reply."""
    applied = act(
        plain, "sherman_1", g.Fire(unit="sherman_1", target="gruppe_1", distance_cm=30), "alleati"
    )
    done = procedures(applied)
    gun = plain.weapons["cannone_75"]
    assert done[0] == "observation"
    assert done.count("small_arms") == 1
    assert done.count("heavy_fire") == gun.rof_stationary  # the "Appostata" column
    volley = next(r for r in applied.resolutions if r.procedure == "small_arms")
    assert shots(volley) == plain.weapons["mg_carro"].rof_stationary
    assert applied.state.units["sherman_1"].acted


def test_naming_a_weapon_fires_that_weapon_alone(plain):
    applied = act(
        plain,
        "sherman_1",
        g.Fire(unit="sherman_1", target="gruppe_1", distance_cm=30, weapon="mg_carro"),
        "alleati",
    )
    assert "heavy_fire" not in procedures(applied)
    assert procedures(applied).count("small_arms") == 1


def test_weapons_that_cannot_hurt_the_target_hold_their_fire(plain):
    """Against armour the light weapons have no table: the gun alone fires."""
    applied = act(
        plain, "sherman_1", g.Fire(unit="sherman_1", target="panzer_iv", distance_cm=30), "alleati"
    )
    assert "small_arms" not in procedures(applied)
    assert "heavy_fire" in procedures(applied)


# -- Line 10: "Muovere e sparare (o viceversa)" and "Sparare ed occultarsi" ------------------


def test_fire_then_move_fires_from_where_it_stood_then_moves_breve(plain):
    command = g.Fire(
        unit="sherman_1",
        target="gruppe_1",
        distance_cm=30,
        weapon="mg_carro",
        move_terrain="piano_scoperto",
        move_cm=8,
        fire_first=True,
    )
    applied = act(plain, "sherman_1", command, "alleati")
    done = procedures(applied)
    assert done.index("small_arms") < done.index("move")
    volley = next(r for r in applied.resolutions if r.procedure == "small_arms")
    assert shots(volley) == plain.weapons["mg_carro"].rof_moving
    assert applied.state.units["sherman_1"].moved
    # Breve is half the Sherman's 20 cm: 12 cm is too far, in either order.
    refused(
        plain,
        "sherman_1",
        command.model_copy(update={"move_cm": 12}),
        "alleati",
        "manovra.move.too_far",
    )
    refused(
        plain,
        "sherman_1",
        command.model_copy(update={"move_cm": 12, "fire_first": False}),
        "alleati",
        "manovra.move.too_far",
    )
    refused(
        plain,
        "sherman_1",
        g.Fire(unit="sherman_1", target="gruppe_1", distance_cm=30, fire_first=True),
        "alleati",
        "error.manovra.fire_first_needs_move",
    )


def test_fire_and_conceal_is_for_infantry_and_anti_tank_artillery(plain):
    applied = act(
        plain,
        "squadra_1",
        g.Fire(unit="squadra_1", target="gruppe_1", distance_cm=30, conceal=True),
        "alleati",
    )
    assert applied.state.units["squadra_1"].has("concealed")
    assert applied.state.units["squadra_1"].fired
    moved = act(
        plain,
        "squadra_1",
        g.Fire(
            unit="squadra_1",
            target="gruppe_1",
            distance_cm=30,
            conceal=True,
            move_terrain="piano_coltivato",
            move_cm=3,
        ),
        "alleati",
    )
    assert moved.state.units["squadra_1"].has("concealed")
    assert procedures(moved)[-1] == "move"  # the Cauto move comes after the fire
    refused(
        plain,
        "squadra_1",
        g.Fire(
            unit="squadra_1",
            target="gruppe_1",
            distance_cm=30,
            conceal=True,
            move_terrain="piano_scoperto",
            move_cm=4,  # Cauto is 12 / 4 = 3 cm
        ),
        "alleati",
        "manovra.move.too_far",
    )
    refused(
        plain,
        "sherman_1",
        g.Fire(unit="sherman_1", target="gruppe_1", distance_cm=30, conceal=True),
        "alleati",
        "error.manovra.cannot_fire_conceal",
    )
    plain.units["sherman_1"].terrain = "piano_scoperto"
    pak = act(
        plain,
        "pak",
        g.Fire(unit="pak", target="sherman_1", distance_cm=40, conceal=True),
        "asse",
    )
    assert pak.state.units["pak"].has("concealed")


def test_a_crew_with_half_its_men_dead_makes_no_complex_action(plain):
    plain.units["pak"].models = 2
    refused(
        plain,
        "pak",
        g.Fire(unit="pak", target="sherman_1", distance_cm=40, conceal=True),
        "asse",
        "error.manovra.simple_only",
    )


# -- Line 9 and 10: transports -------------------------------------------------------------


@pytest.fixture()
def column() -> g.ManovraState:
    return at_step_3(TRANSPORTS)


def test_what_a_transport_carries_goes_where_it_goes(column):
    assert column.units["squadra_1"].aboard == "halftrack_1"
    applied = act(
        column, "halftrack_1", g.Move(unit="halftrack_1", to="60,30", kind="tattico"), "alleati"
    )
    rider = applied.state.units["squadra_1"]
    assert rider.position == Point(x=60, y=30) and rider.terrain == "strade"
    refused(
        column,
        "squadra_1",
        g.Move(unit="squadra_1", to="50,10"),
        "alleati",
        "error.manovra.aboard_moves",
    )
    refused(
        column,
        "squadra_1",
        g.Fire(unit="squadra_1", target="sdkfz_251"),
        "alleati",
        "error.manovra.aboard",
    )
    refused(
        column,
        "halftrack_1",
        g.Fire(unit="halftrack_1", target="gruppe_1"),
        "alleati",
        "error.manovra.aboard_target",
    )


def test_disembark_moves_tactical_when_the_transport_stays_still_else_breve(column):
    """Sbarcare: "Movimento breve" cm, or "Movimento tattico" if the vehicle stays still."""
    off = act(column, "squadra_1", g.Disembark(unit="squadra_1", to="60,18"), "alleati")
    assert off.state.units["squadra_1"].aboard is None
    assert off.state.units["squadra_1"].position == Point(x=60, y=18)
    column.units["halftrack_1"].moved = True
    refused(
        column,
        "squadra_1",
        g.Disembark(unit="squadra_1", to="60,18"),
        "alleati",
        "error.manovra.beyond_reach",
    )
    act(column, "squadra_1", g.Disembark(unit="squadra_1", to="60,12"), "alleati")


def test_embark_needs_a_still_transport_within_a_tactical_move_and_room(column):
    column.units["squadra_1"].aboard = None
    column.units["squadra_1"].position = Point(x=60, y=16)
    on = act(column, "squadra_1", g.Embark(unit="squadra_1", vehicle="halftrack_1"), "alleati")
    assert on.state.units["squadra_1"].aboard == "halftrack_1"
    assert on.state.units["squadra_1"].position == column.units["halftrack_1"].position
    column.units["halftrack_1"].moved = True
    refused(
        column,
        "squadra_1",
        g.Embark(unit="squadra_1", vehicle="halftrack_1"),
        "alleati",
        "error.manovra.transport_moved",
    )
    column.units["halftrack_1"].moved = False
    column.units["halftrack_1"].carries = 6
    refused(
        column,
        "squadra_1",
        g.Embark(unit="squadra_1", vehicle="halftrack_1"),
        "alleati",
        "error.manovra.no_room",
    )
    refused(
        column,
        "squadra_1",
        g.Embark(unit="squadra_1", vehicle="camion_1"),
        "alleati",
        "error.manovra.no_room",
    )


def test_unhook_then_hook_again_a_gun_in_contact(column):
    free = act(column, "camion_1", g.Unhook(unit="camion_1"), "alleati")
    assert free.state.units["cannone_1"].aboard is None
    refused(
        free.state, "camion_1", g.Unhook(unit="camion_1"), "alleati", "error.manovra.nothing_towed"
    )
    again = act(free.state, "camion_1", g.Hook(unit="camion_1", gun="cannone_1"), "alleati")
    assert again.state.units["cannone_1"].aboard == "camion_1"
    free.state.units["cannone_1"].position = Point(x=40, y=20)
    refused(
        free.state,
        "camion_1",
        g.Hook(unit="camion_1", gun="cannone_1"),
        "alleati",
        "error.manovra.not_in_contact",
    )
    refused(
        column,
        "halftrack_1",
        g.Hook(unit="halftrack_1", gun="squadra_1"),
        "alleati",
        "error.manovra.aboard",
    )


def test_unload_and_fire_then_move_breve(column):
    """Scaricare e sparare: the infantry gets off, the vehicle moves Breve and fires."""
    command = g.Fire(unit="halftrack_1", target="sdkfz_251", unload=True, move_to="60,14")
    applied = act(column, "halftrack_1", command, "alleati")
    after = applied.state
    assert after.units["squadra_1"].aboard is None
    assert after.units["squadra_1"].position == Point(x=60, y=6)
    assert after.units["halftrack_1"].position == Point(x=60, y=14)
    volley = next(r for r in applied.resolutions if r.procedure == "small_arms")
    assert shots(volley) == column.weapons["mg_50"].rof_moving


def test_hook_load_and_unhook_with_fire_keep_the_vehicle_still(column):
    refused(
        column,
        "camion_1",
        g.Fire(unit="halftrack_1", target="sdkfz_251", unhook=True, move_to="60,14"),
        "alleati",
        "error.manovra.not_this_units_turn",
    )
    refused(
        column,
        "halftrack_1",
        g.Fire(unit="halftrack_1", target="sdkfz_251", load="cannone_1", move_to="60,14"),
        "alleati",
        "error.manovra.transport_still",
    )
    refused(
        column,
        "halftrack_1",
        g.Fire(unit="halftrack_1", target="sdkfz_251", unload=True, conceal=True),
        "alleati",
        "error.manovra.one_complex_action",
    )
    column.units["squadra_1"].aboard = None
    column.units["squadra_1"].position = Point(x=60, y=12)
    loaded = act(
        column,
        "halftrack_1",
        g.Fire(unit="halftrack_1", target="sdkfz_251", load="squadra_1"),
        "alleati",
    )
    assert loaded.state.units["squadra_1"].aboard == "halftrack_1"
    assert "small_arms" in procedures(loaded)


def test_legal_actions_offer_the_transport_actions(column):
    column.queue = ["halftrack_1"]
    verbs = {
        (a.verb, tuple(sorted(k for k in a.options if k not in ("unit", "target", "weapon"))))
        for a in legal_actions(column)
    }
    assert ("fire", ("unload",)) in verbs
    column.queue = ["camion_1"]
    assert ("unhook", ()) in {(a.verb, ()) for a in legal_actions(column)}
    column.queue = ["squadra_1"]
    assert {a.verb for a in legal_actions(column)} == {"move", "disembark"}


def test_a_scenario_refuses_a_load_its_transport_cannot_take():
    text = (
        bundled_scenarios()[TRANSPORTS]
        .read_text("utf-8")
        .replace("carries: 12, weapons: {mg_50", "carries: 8, weapons: {mg_50")
    )
    with pytest.raises(RulesError, match="carries 8 models"):
        parse_scenario(text)


def test_a_unit_that_fires_without_concealing_shows_itself(plain):
    """Seed 000 line 10 has a complex action of its own, "Sparare ed occultarsi", to fire
    and stay hidden: a concealed unit's plain fire shows it again."""
    hidden = act(
        plain,
        "squadra_1",
        g.Fire(unit="squadra_1", target="gruppe_1", distance_cm=30, conceal=True),
        "alleati",
    ).state
    assert hidden.units["squadra_1"].has("concealed")
    again = hidden.model_copy(deep=True)
    for unit in again.units.values():
        unit.acted = unit.fired = False
    shown = act(
        again, "squadra_1", g.Fire(unit="squadra_1", target="gruppe_1", distance_cm=30), "alleati"
    )
    assert not shown.state.units["squadra_1"].has("concealed")


def test_no_legal_action_names_a_concealed_enemy(column):
    """A concealed unit (Occultarsi, line 9) is out of the enemy's view, so no legal action
    of the enemy names it as a target (the service answers its name as unknown)."""
    column.queue = ["halftrack_1"]
    targets = {a.options.get("target") for a in legal_actions(column) if a.verb == "fire"}
    assert targets, "the half-track has something to fire at"
    for target in targets - {None}:
        column.units[str(target)].add("concealed")
    after = {a.options.get("target") for a in legal_actions(column) if a.verb == "fire"}
    assert not (after & targets - {None}), after
