"""Linea gotica procedures at the boundaries of their formulas, with scripted dice."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from rules.core.dice import ScriptedDice
from rules.core.errors import InvalidInput, RulesError, UnknownName
from rules.linea_gotica import PROCEDURES


def run(name: str, data: dict, faces: list[int]):
    procedure = PROCEDURES[name]
    return procedure.resolve(procedure.parse_input(data), ScriptedDice(faces))


def odds(name: str, data: dict) -> dict[str, float]:
    procedure = PROCEDURES[name]
    result = procedure.odds(procedure.parse_input(data))
    assert result.exact
    return result.as_mapping()


def chance_of(resolution) -> int:  # type: ignore[no-untyped-def]
    """The chance a roll had to meet (the threshold of the step that rolled)."""
    rolled = [s for s in resolution.steps if s.threshold is not None and s.rolls]
    return rolled[0].threshold.value


# -- AZIONI ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("quality", "level", "chance"),
    [
        ("elite", "facile", 12),
        ("veterani", "facile", 10),
        ("marmaglia", "facile", 4),
        ("elite", "normale", 6),
        ("reclute", "normale", 3),
        ("elite", "difficile", 3),
        ("veterani", "difficile", 3),
        ("regolari", "difficile", 2),
        ("reclute", "difficile", 2),
        ("marmaglia", "difficile", 1),
    ],
)
def test_action_chances_round_up(quality, level, chance):
    resolution = run("action", {"quality": quality, "level": level}, [min(chance, 10)])
    assert chance_of(resolution) == chance
    assert resolution.outcome.key == "linea_gotica.action.passed"
    if chance < 10:
        failed = run("action", {"quality": quality, "level": level}, [chance + 1])
        assert failed.outcome.key == "linea_gotica.action.failed"


def test_very_easy_is_automatic_and_no_is_impossible():
    assert run("action", {"quality": "marmaglia", "level": "molto_facile"}, []).outcome.key == (
        "linea_gotica.action.automatic"
    )
    assert run("action", {"quality": "elite", "level": "no"}, []).outcome.key == (
        "linea_gotica.action.impossible"
    )
    # a wounded actor: one level worse (Facile → Normale; Difficile → impossible)
    assert chance_of(run("action", {"quality": "elite", "level": "facile", "shift": -1}, [1])) == 6
    assert run(
        "action", {"quality": "elite", "level": "difficile", "shift": -1}, []
    ).outcome.key == ("linea_gotica.action.impossible")


def test_radio_and_coordination_are_named_apart_from_the_referee():
    """Seed 004 lines 466-469: a portable radio gives +1 to quality, poor coordination -1 or
    -2; neither is the referee's modifier, and each is labelled as what it is."""
    steps = run("action", {"quality": "regolari", "radio": True, "coordination": -2}, [1]).steps
    named = [(m.key.rsplit(".", 1)[1], m.value) for m in steps[0].modifiers]
    assert named == [("quality", 4), ("radio", 1), ("coordination", -2)]
    assert steps[0].total == 3
    ranging = run("ranging", {"quality": "regolari", "coordination": -1}, [1, 1])
    assert [m.key.rsplit(".", 1)[1] for m in ranging.steps[0].modifiers] == [
        "quality",
        "coordination",
    ]


def test_quality_modifier_adds_before_the_formula():
    # radio +1 on a Normal contact: Regolari 4 → 5; on a Difficult one 5 → ½ = 3
    assert chance_of(run("action", {"quality": "regolari", "quality_modifier": 1}, [1])) == 5
    data = {"quality": "regolari", "quality_modifier": 1, "level": "difficile"}
    assert chance_of(run("action", data, [1])) == 3
    assert odds("action", {"quality": "regolari", "level": "normale"}) == {
        "linea_gotica.action.passed(purpose=azione)": 0.4,
        "linea_gotica.action.failed(purpose=azione)": 0.6,
    }


# -- OSSERVAZIONE -------------------------------------------------------------------------------


def observe(**fields):  # type: ignore[no-untyped-def]
    data = {"quality": "regolari", "target": "infantry", **fields}
    return PROCEDURES["observation"].parse_input(data)


def test_observation_shifts():
    from rules.linea_gotica.procedures.checks import observation_level

    assert observation_level(observe(target_in_cover=True))[0].value == "difficile"
    assert observation_level(observe(target_in_cover=True, target_fired=True))[0].value == "normale"
    closed = {"observer": "veicolo_chiuso", "target_in_cover": True}
    assert observation_level(observe(**closed))[0].value == "no"
    # "da NO a Difficile" when the target fired
    assert observation_level(observe(**closed, target_fired=True))[0].value == "difficile"
    # "da Normale a Difficile" at night
    assert observation_level(observe(night=True))[0].value == "difficile"
    assert observation_level(observe(night=True, target_in_cover=True))[0].value == "no"
    assert observation_level(observe(target_moving=True, scout=True))[0].value == "molto_facile"
    assert observation_level(observe(hidden_sniper=True))[0].value == "no"
    # at night sight reaches the fire limits: 50 cm with moon, 20 without
    assert observation_level(observe(night=True, distance_cm=50))[0].value == "difficile"
    assert observation_level(observe(night=True, distance_cm=51))[0].value == "no"
    assert observation_level(observe(night=True, moonless=True, distance_cm=21))[0].value == "no"
    fired_sniper = observe(hidden_sniper=True, target_fired=True, night=True)
    assert observation_level(fired_sniper)[0].value == "difficile"


def test_observation_rolls_like_an_action():
    data = {"quality": "veterani", "target": "vehicle", "target_moving": True}
    assert run("observation", data, []).outcome.key == "linea_gotica.observe.seen"
    data = {"quality": "veterani", "target": "infantry", "target_in_cover": True}
    assert chance_of(run("observation", data, [3])) == 3
    data["observer"] = "veicolo_aperto"
    assert run("observation", data, []).outcome.key == "linea_gotica.observe.impossible"


# -- INIZIATIVA, COMANDO ------------------------------------------------------------------------


def test_initiative():
    data = {"first": "a", "second": "b"}
    assert run("initiative", data, [10, 9]).outcome.code == "linea_gotica.initiative.won(side=a)"
    assert run("initiative", data, [1, 2]).outcome.code == "linea_gotica.initiative.won(side=b)"
    assert run("initiative", data, [5, 5]).outcome.code == "linea_gotica.initiative.tie"
    assert odds("initiative", data)["linea_gotica.initiative.tie"] == pytest.approx(0.1)


@pytest.mark.parametrize(
    ("fields", "distance", "outcome"),
    [
        ({"leader": "elite"}, 16, "within(limit=16)"),
        ({"leader": "elite"}, 16.5, "isolated(limit=16)"),
        ({"leader": "elite", "section": True}, 8, "within(limit=8)"),
        ({"leader": "veterani", "section": True}, 12, "within(limit=12)"),  # no section: squad
        ({"leader": "marmaglia"}, 5, "isolated(limit=4)"),
        ({"leader": "regolari", "scout": True}, 16, "within(limit=16)"),
        ({"leader": "reclute", "sniper_quality": "regolari"}, 500, "free"),
        ({"leader": "reclute", "sniper_quality": "reclute"}, 7, "isolated(limit=6)"),
    ],
)
def test_command_distances(fields, distance, outcome):
    result = run("command", {**fields, "distance_cm": distance}, [])
    assert result.outcome.code == f"linea_gotica.command.{outcome}"


# -- MORALE ----------------------------------------------------------------------------------------


def test_morale_chance_and_every_modifier():
    data = {"quality": "regolari"}
    assert chance_of(run("morale", data, [8])) == 8
    full = {
        "quality": "veterani",
        "wounded": True,
        "isolated": True,
        "cover": "pesante",
        "under_fire": True,
        "leader_killed": True,
        "badly_wounded_near": 2,
        "fanatic": 3,
        "result_modifier": -2,
    }
    # 5 + 4 − 4 − 3 + 3 − 3 − 2 − 2 + 3 − 2 = −1: cannot pass
    resolution = run("morale", full, [1, 5])
    assert chance_of(resolution) == -1
    assert resolution.outcome.key == "linea_gotica.morale.shocked"
    assert chance_of(run("morale", {"quality": "reclute", "cover": "leggera"}, [1])) == 9
    assert chance_of(run("morale", {"quality": "reclute", "cover": "trincerati"}, [1])) == 10


@pytest.mark.parametrize(
    ("fields", "effect_die", "reaction"),
    [
        ({}, 6, "shocked"),
        ({}, 7, "panic"),
        ({}, 9, "panic"),
        ({}, 10, "panic_no_enemy"),
        ({"enemy_near": True}, 10, "surrender"),
        ({"vehicle": True}, 10, "abandon"),
        ({"already_shocked": True}, 1, "panic"),
        ({"air_attack": True}, 3, "panic"),
        ({"air_attack": True, "enemy_near": True}, 10, "panic"),
        ({"vehicle": True, "armoured_undamaged": True}, 9, "shocked"),  # 9 − 3 = 6
        ({"vehicle": True, "armoured_undamaged": True}, 10, "panic"),  # 10 − 3 = 7
    ],
)
def test_morale_effects(fields, effect_die, reaction):
    data = {"quality": "marmaglia", **fields}
    result = run("morale", data, [10, effect_die])
    assert result.outcome.key == f"linea_gotica.morale.{reaction}"


def test_elite_die_modifier():
    # an Elite soldier never surrenders (10 − 2 = 8) and an Elite undamaged crew: 10 − 5 = 5
    data = {"quality": "elite", "result_modifier": -6, "wounded": True, "enemy_near": True}
    assert run("morale", data, [10, 10]).outcome.key == "linea_gotica.morale.panic"
    crew = {
        "quality": "elite",
        "result_modifier": -6,
        "isolated": True,
        "vehicle": True,
        "armoured_undamaged": True,
        "under_fire": True,
    }
    assert run("morale", crew, [10, 10]).outcome.key == "linea_gotica.morale.shocked"


def test_morale_odds_sum_to_one():
    result = PROCEDURES["morale"].odds(PROCEDURES["morale"].parse_input({"quality": "reclute"}))
    assert sum(Fraction(e.numerator, e.denominator) for e in result.entries) == 1
    assert result.probability("linea_gotica.morale.passed") == pytest.approx(0.7)


# -- SNIPERS, SMOKE, AIRCRAFT ---------------------------------------------------------------------


@pytest.mark.parametrize(("quality", "limit"), [("elite", 5), ("veterani", 4), ("regolari", 3)])
def test_sniper_thresholds(quality, limit):
    assert run("sniper", {"quality": quality}, [limit]).outcome.key == "linea_gotica.sniper.fires"
    assert run("sniper", {"quality": quality}, [limit + 1]).outcome.key == (
        "linea_gotica.sniper.holds"
    )


def test_smoke_lasts_four_turns_plus_a_d10():
    assert run("smoke", {"source": "bomba_mano"}, [1]).outcome.code == (
        "linea_gotica.smoke.lasts(turns=5)"
    )
    assert run("smoke", {"source": "proiettili"}, [10]).outcome.code == (
        "linea_gotica.smoke.lasts(turns=14)"
    )


@pytest.mark.parametrize(
    ("weapon", "quality", "opportunity", "chance"),
    [
        ("mitragliatrice_aa", "regolari", False, 1),
        ("mitragliatrice_aa", "elite", False, 3),
        ("mitragliatrice_aa", "elite", True, 2),
        ("cannoncino_aa", "veterani", True, 2),
        ("cannoncino_aa", "reclute", False, 0),
        ("cannoncino_aa", "marmaglia", True, -2),
    ],
)
def test_anti_aircraft_chances(weapon, quality, opportunity, chance):
    data = {"weapon": weapon, "quality": quality, "opportunity": opportunity}
    assert chance_of(run("anti_aircraft", data, [10])) == chance


def test_anti_aircraft_fates():
    data = {"weapon": "cannoncino_aa", "quality": "elite"}
    assert run("anti_aircraft", data, [4, 5]).outcome.key == "linea_gotica.aa.shot_down"
    assert run("anti_aircraft", data, [4, 6]).outcome.key == "linea_gotica.aa.damaged"
    assert odds("anti_aircraft", data) == {
        "linea_gotica.aa.miss": pytest.approx(0.6),
        "linea_gotica.aa.shot_down": pytest.approx(0.2),
        "linea_gotica.aa.damaged": pytest.approx(0.2),
    }


def test_aircraft_return():
    assert run("aircraft_return", {"attempt": 1}, [9]).outcome.key == "linea_gotica.aa.returns"
    assert run("aircraft_return", {"attempt": 2}, [8]).outcome.code == (
        "linea_gotica.aa.not_yet(attempt=2)"
    )
    assert run("aircraft_return", {"attempt": 3}, [8]).outcome.key == (
        "linea_gotica.aa.back_to_base"
    )


# -- TIRO DIRETTO ---------------------------------------------------------------------------


def shot(**fields):  # type: ignore[no-untyped-def]
    return {"quality": "regolari", "weapon": "fucile", "distance_cm": 30, **fields}


@pytest.mark.parametrize(
    ("fields", "chance"),
    [
        ({"distance_cm": 20}, 5),  # breve +1 (≤ 20)
        ({"distance_cm": 20.5}, 4),  # normale
        ({"distance_cm": 41}, 3),  # lunga −1
        ({"aimed": True}, 5),
        ({"sniper": True, "aimed": True}, 5),  # +1 once
        ({"target_movement": "cauto"}, 3),
        ({"target_movement": "corsa"}, 5),
        ({"target_movement": "normale"}, 4),
        ({"prone": True, "cover": "pesante"}, 1),
        ({"cover": "leggera", "behind_armour": True}, 2),
        ({"semiautomatic": False}, 3),
        ({"wounded": True}, 2),
        ({"wounded": True, "opportunity": True}, 1),  # 4 → 2 → 1
        ({"distance_cm": 15, "opportunity": True}, 3),  # (4 + 1) / 2 → 3
        ({"night": "luna", "distance_cm": 20}, 4),  # +1 breve −1 moon
        ({"night": "luna", "distance_cm": 30, "target_fired": "automatico"}, 4),
        ({"night": "senza_luna", "distance_cm": 20, "target_fired": "singolo"}, 4),
        ({"target_fired": "automatico"}, 4),  # only at night
        ({"modifier": -2}, 2),
    ],
)
def test_to_hit_modifiers(fields, chance):
    assert chance_of(run("direct_fire", shot(**fields), [10])) == chance


def test_non_semiautomatic_only_for_the_rifle_row():
    data = shot(weapon="carabina", semiautomatic=False, distance_cm=15)
    assert chance_of(run("direct_fire", data, [10])) == 4


def test_assault_rifle_area_is_halved():
    data = shot(weapon="fucile_assalto_area", quality="elite", distance_cm=20)
    assert chance_of(run("direct_fire", data, [10])) == 3  # 6 → ½ = 3 (normale band)
    assert run(
        "direct_fire", shot(weapon="fucile_assalto_area", distance_cm=61), []
    ).outcome.key == ("linea_gotica.fire.out_of_range")


def test_ranges_and_night_limits():
    assert run("direct_fire", shot(weapon="pistola", distance_cm=11), []).outcome.key == (
        "linea_gotica.fire.out_of_range"
    )
    assert run("direct_fire", shot(distance_cm=121), []).outcome.code == (
        "linea_gotica.fire.out_of_range(distance=121)"
    )
    assert run("direct_fire", shot(night="senza_luna", distance_cm=21), []).outcome.key == (
        "linea_gotica.fire.out_of_range"
    )
    assert run("direct_fire", shot(night="luna", distance_cm=51), []).outcome.key == (
        "linea_gotica.fire.out_of_range"
    )
    # the SMG has no normal band: 11–40 cm is long
    resolution = run("direct_fire", shot(weapon="pistola_mitragliatrice", distance_cm=11), [10])
    assert resolution.steps[1].outcome.code == "linea_gotica.fire.miss(band=lunga)"


def test_infantry_damage_chain():
    assert run("direct_fire", shot(), [4, 1]).outcome.key == "linea_gotica.damage.near_miss"
    assert run("direct_fire", shot(), [4, 5]).outcome.key == "linea_gotica.damage.shocked"
    assert run("direct_fire", shot(), [4, 8]).outcome.key == "linea_gotica.damage.wounded"
    grave = run("direct_fire", shot(), [4, 9, 3])
    assert grave.outcome.code == "linea_gotica.damage.badly_wounded(turns=3)"
    assert run("direct_fire", shot(), [4, 10]).outcome.key == "linea_gotica.damage.dead"
    # +1 for a sniper; a 10 is never modified; a second wound kills
    sniper = run("direct_fire", shot(sniper=True), [4, 9])
    assert sniper.outcome.key == "linea_gotica.damage.dead"
    assert (
        run("direct_fire", shot(sniper=True), [4, 1]).outcome.key == "linea_gotica.damage.shocked"
    )
    assert run("direct_fire", shot(target={"wounded": True}), [4, 6]).outcome.key == (
        "linea_gotica.damage.dead"
    )
    wounded = run("direct_fire", shot(target={"unit": "u", "figure": 3}), [4, 7])
    assert [(e.kind.value, e.key) for e in wounded.effects] == [
        ("damage", "wounded"),
        ("test_owed", "morale"),
    ]


def test_he_miss_deviates_by_a_share_of_the_range():
    data = shot(weapon="granata_fucile", distance_cm=23)
    assert run("direct_fire", data, [9, 2]).outcome.key == "linea_gotica.fire.dud"
    assert run("direct_fire", data, [9, 3]).outcome.code == (
        "linea_gotica.fire.deviated(direction=lungo,cm=5)"
    )
    assert run("direct_fire", data, [9, 10]).outcome.code == (
        "linea_gotica.fire.deviated(direction=sinistra,cm=12)"
    )
    hit = run("direct_fire", data, [1])
    assert hit.outcome.key == "linea_gotica.fire.blast" and hit.effects[0].key == "blast"


def test_anti_tank_rifle_hits_a_single_soldier():
    data = shot(weapon="fucilone_controcarro", distance_cm=25)
    assert run("direct_fire", data, [1, 10]).outcome.key == "linea_gotica.damage.dead"


def test_guns_need_a_calibre():
    with pytest.raises(InvalidInput):
        run("direct_fire", shot(weapon="cannone_77", target={"kind": "carro_armato"}), [1])
    with pytest.raises(UnknownName):
        run("direct_fire", shot(weapon="balestra"), [1])


def tank_shot(**fields):  # type: ignore[no-untyped-def]
    target = {"kind": "carro_armato", "weapons": 2, **fields.pop("target", {})}
    return shot(weapon="cannone_77", calibre_mm=75, distance_cm=60, target=target, **fields)


def test_armour_chain():
    # 75 mm reads "Cannone <86mm": 6 against a tank
    resolution = run("direct_fire", tank_shot(), [1, 7])
    assert resolution.outcome.key == "linea_gotica.damage.not_penetrated"
    assert resolution.steps[-1].threshold.value == 6
    assert run("direct_fire", tank_shot(), [1, 6, 2]).outcome.key == (
        "linea_gotica.damage.radio_destroyed"
    )
    flank = run("direct_fire", tank_shot(flank=True, short_gun=True), [1, 6, 9])
    assert flank.steps[-2].threshold.value == 6  # +2 − 2
    weapon = run("direct_fire", tank_shot(), [1, 1, 7, 1])
    assert weapon.outcome.code == "linea_gotica.damage.weapon_destroyed(weapon=1)"
    assert dict(weapon.effects[-1].params)["modifier"] == -2  # the main armament
    second = run("direct_fire", tank_shot(), [1, 1, 8, 2])
    assert dict(second.effects[-1].params).get("modifier") is None
    no_turret = run("direct_fire", tank_shot(target={"turret": False, "weapons": 1}), [1, 1, 6])
    assert no_turret.outcome.code == "linea_gotica.damage.weapon_destroyed(weapon=1)"


@pytest.mark.parametrize(
    ("armour", "kind", "chance"),
    [
        ("leggera", "blindato", 10),
        ("pesante", "carro_armato", 4),
        ("super_pesante", "carro_armato", 2),
    ],
)
def test_penetration_by_armour_class(armour, kind, chance):
    data = {"spec": {"penetration": "cannone_86"}, "target": {"kind": kind, "armour": armour}}
    resolution = run("damage", data, [10, 1] if chance >= 10 else [10])
    penetration = [s for s in resolution.steps if s.key.endswith(".penetration")]
    assert penetration[0].threshold.value == chance


def test_armour_damage_modifiers():
    indirect = {
        "spec": {"penetration": "mortaio_oltre_106", "indirect": True},
        "target": {"kind": "carro_armato"},
    }
    assert run("damage", indirect, [1, 10]).outcome.key == "linea_gotica.damage.turret_jammed"
    assert run("damage", indirect, [1, 5]).outcome.key == "linea_gotica.damage.near_miss"
    assert run("damage", indirect, [1, 9]).outcome.key == "linea_gotica.damage.immobilised"
    flame = {"spec": {"flame": True}, "target": {"kind": "carro_armato"}}
    assert run("damage", flame, [1]).outcome.key == "linea_gotica.damage.flame_no_damage"  # 3
    assert run("damage", flame, [7]).outcome.key == "linea_gotica.damage.destroyed"  # 7 + 2
    assert run("damage", flame, [3]).outcome.key == "linea_gotica.damage.flame_no_damage"  # 5
    assert run("damage", flame, [4]).outcome.key == "linea_gotica.damage.turret_jammed"  # 6
    rifle = {"target": {"kind": "blindato"}}
    assert run("damage", rifle, []).outcome.key == "linea_gotica.damage.cannot_penetrate"


@pytest.mark.parametrize(
    ("soft_class", "face", "result"),
    [
        ("none", 1, "near_miss"),
        ("cannon", 1, "near_miss"),  # a 1 is never modified
        ("mg", 1, "near_miss"),
        ("mg", 3, "mobility_damaged"),
        ("mg", 7, "destroyed"),
        ("explosive", 3, "immobilised"),
        ("cannon", 4, "destroyed"),
        ("none", 8, "destroyed"),
    ],
)
def test_unarmoured_damage(soft_class, face, result):
    data = {"spec": {"soft_class": soft_class}, "target": {"kind": "non_blindato"}}
    assert run("damage", data, [face]).outcome.key == f"linea_gotica.damage.{result}"


def test_flamethrower_on_unarmoured_vehicles():
    data = {"spec": {"flame": True}, "target": {"kind": "non_blindato"}}
    for face in (2, 3, 4):
        assert run("damage", data, [face]).outcome.key == "linea_gotica.damage.flame_no_damage"
    assert run("damage", data, [5]).outcome.key == "linea_gotica.damage.immobilised"  # 7
    assert run("damage", data, [6]).outcome.key == "linea_gotica.damage.destroyed"
    immobilised = run("damage", data, [5])
    assert dict(immobilised.effects[-1].params)["modifier"] == -2


# -- HE -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "chance"),
    [
        ({"zone": "breve"}, 7),
        ({"zone": "lunga"}, 4),
        ({"zone": "breve", "terrain": "copertura"}, 4),
        ({"zone": "lunga", "terrain": "trincerati"}, 2),
        ({"zone": "breve", "heavy_calibre": True}, 8),
        ({"zone": "breve", "bombs": "anti_carro"}, 4),  # ½ of 7 against infantry
        ({"zone": "breve", "bombs": "anti_fanteria"}, 7),
        ({"zone": "breve", "bombs": "napalm"}, 7),
        ({"zone": "lunga", "bombs": "anti_fanteria", "target": {"kind": "carro_armato"}}, 2),
        ({"zone": "breve", "terrain": "trincerati", "target": {"kind": "non_blindato"}}, 4),
    ],
)
def test_he_hit_chances(fields, chance):
    assert run("he_effect", fields, [10]).steps[-1].threshold.value == chance


def test_he_effect_rolls_damage_on_a_hit():
    data = {"zone": "breve", "spec": {"flame": True}}
    assert run("he_effect", data, [1, 9]).outcome.key == "linea_gotica.damage.dead"  # 9 + 1
    assert run("he_effect", data, [8]).outcome.key == "linea_gotica.he.spared"


# -- RANGING ---------------------------------------------------------------------------------------


def test_ranging_precise_and_imprecise():
    assert run("ranging", {"quality": "regolari"}, [4, 1]).outcome.code == (
        "linea_gotica.ranging.on_target(kind=precise)"
    )
    assert run("ranging", {"quality": "regolari"}, [5, 2]).outcome.code == (
        "linea_gotica.ranging.lost(kind=imprecise)"
    )
    assert run("ranging", {"quality": "regolari"}, [5, 6]).outcome.code == (
        "linea_gotica.ranging.deviated_across(kind=imprecise,along=lungo,along_dice=4,"
        "across=sinistra,across_dice=4)"
    )
    assert run("ranging", {"quality": "regolari"}, [4, 7]).outcome.code == (
        "linea_gotica.ranging.deviated(kind=precise,along=corto,along_dice=1)"
    )
    table = odds("ranging", {"quality": "reclute"})
    assert table["linea_gotica.ranging.on_target(kind=precise)"] == pytest.approx(0.3 * 0.2)
    assert table["linea_gotica.ranging.lost(kind=imprecise)"] == pytest.approx(0.7 * 0.2)


def test_scatter_distance():
    assert run("scatter_distance", {"dice": 4}, [1, 2, 3, 10]).outcome.code == (
        "linea_gotica.ranging.distance(direction=lungo,cm=16)"
    )
    four = PROCEDURES["scatter_distance"].odds(
        PROCEDURES["scatter_distance"].parse_input({"dice": 4})
    )
    assert four.exact and four.paths == 37  # one branch per sum (4..40), not per face tuple
    assert four.probability("linea_gotica.ranging.distance(direction=lungo,cm=4)") == 1e-4


# -- MOVIMENTO ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "allowance"),
    [
        ({"pace": "cauto"}, 8),
        ({"pace": "normale"}, 16),
        ({"pace": "corsa"}, 24),
        ({"pace": "normale", "modifiers": ["sotto_fuoco"]}, 12),
        ({"pace": "corsa", "modifiers": ["ferito", "finestra"]}, 6),
        ({"pace": "cauto", "modifiers": ["porta", "alzarsi_sdraiarsi"]}, 5),  # 8 × ¾ × ¾ = 4.5
        ({"pace": "normale", "modifiers": ["grandi_ostacoli"]}, 0),
    ],
)
def test_foot_allowance(fields, allowance):
    ok = run("foot_move", {**fields, "distance_cm": allowance}, [])
    assert ok.steps[-1].threshold.value == allowance
    assert ok.outcome.key in ("linea_gotica.move.ok", "linea_gotica.move.whole_turn")
    too_far = run("foot_move", {**fields, "distance_cm": allowance + 0.5}, [])
    # A task of the whole turn says so rather than "0 cm allowed".
    expected = "whole_turn_only" if allowance == 0 else "too_far"
    assert too_far.outcome.key == f"linea_gotica.move.{expected}"


def test_no_two_runs_in_a_row():
    data = {"pace": "corsa", "distance_cm": 10, "ran_last_turn": True}
    assert run("foot_move", data, []).outcome.key == "linea_gotica.move.no_run_twice"
    with pytest.raises(UnknownName):
        run("foot_move", {"modifiers": ["volare"]}, [])


def test_vehicle_movement():
    assert run(
        "vehicle_move", {"vehicle": "civili", "road": True, "distance_cm": 120}, []
    ).outcome.key == ("linea_gotica.move.ok")
    data = {"vehicle": "carri", "distance_cm": 7, "modifiers": ["travolgere_grande"]}
    assert run("vehicle_move", data, [3]).outcome.code == "linea_gotica.move.ok(allowance=7,cm=7)"
    damaged = run("vehicle_move", data, [4])
    assert damaged.outcome.key == "linea_gotica.move.ok_damaged"
    assert damaged.effects[0].key == "mobility_damaged"
    light = {**data, "tank_weight": "leggero"}
    assert run("vehicle_move", light, []).outcome.key == "linea_gotica.move.not_for_this_vehicle"
    truck = {"vehicle": "ruotati_4x4", "distance_cm": 5, "modifiers": ["travolgere_piccolo"]}
    assert run("vehicle_move", truck, []).outcome.key == "linea_gotica.move.not_for_this_vehicle"
    wall = {"vehicle": "cingolati", "distance_cm": 1, "modifiers": ["invalicabile"]}
    assert run("vehicle_move", wall, []).outcome.key == "linea_gotica.move.impassable"
    assert odds("vehicle_move", data)["linea_gotica.move.ok_damaged(allowance=7,cm=7)"] == (
        pytest.approx(0.7)
    )


def test_mine_under_a_soft_vehicle():
    assert run("mine_vehicle", {}, [5]).outcome.key == "linea_gotica.damage.destroyed"
    assert run("mine_vehicle", {}, [6]).outcome.key == "linea_gotica.damage.no_effect"


# -- odds against a Monte-Carlo estimate -----------------------------------------------------


def test_odds_agree_with_monte_carlo_for_the_main_chain():
    procedure = PROCEDURES["direct_fire"]
    data = procedure.parse_input(
        shot(weapon="bazooka", distance_cm=15, target={"kind": "carro_armato", "weapons": 3})
    )
    exact = procedure.odds(data)
    assert exact.exact
    assert sum(Fraction(e.numerator, e.denominator) for e in exact.entries) == 1
    generator = random.Random(404)

    class Random:
        by_hand = False

        def face(self, die, label):  # type: ignore[no-untyped-def]
            return generator.randint(1, die.sides)

    runs = 20_000
    counts: dict[str, int] = {}
    for _ in range(runs):
        code = procedure.resolve(data, Random(), with_odds=False).outcome.code
        counts[code] = counts.get(code, 0) + 1
    for entry in exact.entries:
        observed = counts.get(entry.outcome.code, 0) / runs
        assert abs(observed - entry.probability) < 0.015, entry.outcome.code


def test_bad_inputs_are_rules_errors():
    with pytest.raises(RulesError):
        PROCEDURES["direct_fire"].parse_input({"quality": "eroi"})
    with pytest.raises(RulesError):
        PROCEDURES["action"].parse_input('{"quality": "elite", "shift": 9}')
