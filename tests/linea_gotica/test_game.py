"""The linea_gotica turn machine and its rules, through ``game.apply`` with scripted dice.

Every refusal must leave the state exactly as it was.
"""

from __future__ import annotations

import pytest

from rules.core.dice import ScriptedDice
from rules.core.errors import RulesError
from rules.linea_gotica import turn as g
from rules.linea_gotica.commands import build_command
from rules.linea_gotica.scenario import load_bundled, parse_scenario
from rules.linea_gotica.state import GameState, Phase

SCENARIO = """
id: prova
title: "Prova"
turns: 3
passengers_on_tanks: true
weapons:
  fucile: {name: Fucile, row: fucile}
  mitra: {name: Mitra, row: pistola_mitragliatrice}
  mg: {name: MG, row: mitragliatrice}
  lmg: {name: LMG, row: mitragliatrice_leggera}
  fiamme: {name: Lanciafiamme, row: lanciafiamme}
  bazooka: {name: Bazooka, row: bazooka, reusable: true}
  pf: {name: Panzerfaust, row: panzerfaust}
  cannone: {name: Cannone 75, row: cannone_77, calibre_mm: 75}
  flak: {name: Flak 38, row: cannoncino, calibre_mm: 20, anti_aircraft: cannoncino_aa}
  fumo: {name: Lanciafumogeni, smoke: true}
minefields:
  - {id: mine_ap, name: Mine AP, kind: antiuomo, owner: rossi}
  - {id: mine_at, name: Mine AT, kind: anticarro, owner: rossi}
sides:
  - id: blu
    name: Blu
    supports:
      - {id: aereo, name: Aereo, kind: aereo, contact: dedicata, bombs: anti_carro,
         strafing: true, quality: elite}
      - {id: batteria, name: Batteria, kind: artiglieria, contact: generale, calibre_mm: 155}
    units:
      - id: squadra
        name: Squadra
        quality: regolari
        figures:
          - {role: leader, weapon: mitra}
          - {role: soldato, weapon: fucile, count: 3}
          - {role: soldato, weapon: fiamme}
          - {role: soldato, weapon: lmg}
      - id: genieri
        name: Genieri
        quality: veterani
        engineers: true
        figures:
          - {role: leader, weapon: fucile}
          - {role: soldato, weapon: bazooka}
          - {role: portamunizioni, weapon: fucile}
      - id: osservatore
        name: Osservatore
        quality: elite
        observer: true
        radio: true
        figures:
          - {role: osservatore, weapon: fucile}
      - id: carro
        name: Carro
        quality: veterani
        vehicle: {type: carri, weight: medio}
        weapons: [cannone, mg, fumo]
  - id: rossi
    name: Rossi
    coordination: -1
    units:
      - id: nemici
        name: Nemici
        quality: reclute
        figures:
          - {role: leader, weapon: fucile}
          - {role: soldato, weapon: fucile, count: 4}
      - id: flak
        name: Flak
        quality: regolari
        figures:
          - {role: servente, weapon: flak}
      - id: camion
        name: Camion
        quality: reclute
        vehicle: {type: ruotati_4x4, armoured: false}
        weapons: [mg]
      - id: semicingolato
        name: Semicingolato
        quality: marmaglia
        vehicle: {type: cingolati, armour: leggera, transport: true, open: true}
        weapons: [mg]
"""


class Game:
    def __init__(self, state: GameState) -> None:
        self.state = state

    def __call__(self, verb: str, side: str | None, faces=(), **options):  # type: ignore[no-untyped-def]
        command = build_command(verb, options)
        dice = ScriptedDice(list(faces))
        before = self.state.model_dump(mode="json")
        try:
            applied = g.apply(self.state, command, dice, actor_side=side)
        except RulesError:
            assert self.state.model_dump(mode="json") == before, "a refusal changed the state"
            raise
        dice.ensure_consumed()
        self.state = applied.state
        return applied

    def refused(self, key: str, verb: str, side: str | None, faces=(), **options) -> RulesError:  # type: ignore[no-untyped-def]
        with pytest.raises(RulesError) as caught:
            self(verb, side, faces, **options)
        assert caught.value.key == key, caught.value.key
        return caught.value

    def unit(self, unit_id: str):  # type: ignore[no-untyped-def]
        return self.state.units[unit_id]

    def to_phase(self, phase: Phase, first: str = "blu") -> None:
        """Referee advances to ``phase`` of the current turn (initiative: ``first`` wins)."""
        while self.state.phase is not phase:
            if self.state.phase is Phase.INITIATIVE:
                faces = (9, 1) if first == next(iter(self.state.sides)) else (1, 9)
                replacing = [u for u in self.state.units.values() if u.alive and u.leaderless]
                self("turn.next", None, (10,) * len(replacing) + faces)
            elif self.state.phase is Phase.CHOICE:
                self("turn.next", None, order="first")
            else:
                self("turn.next", None)


@pytest.fixture()
def game() -> Game:
    return Game(g.new_game(parse_scenario(SCENARIO)))


def codes(applied) -> list[str]:  # type: ignore[no-untyped-def]
    return [r.outcome.code for r in applied.resolutions]


def test_the_bundled_scenario_says_its_values_are_examples():
    scenario = load_bundled("esempio_gotica")
    assert scenario.values_are_examples
    assert "esempi" in scenario.description


def test_initiative_tie_rolls_again(game):
    applied = game("turn.next", "rossi", [4, 4])
    assert codes(applied) == ["linea_gotica.initiative.tie"]
    assert game.state.phase is Phase.INITIATIVE
    game("turn.next", "blu", [2, 5])
    assert game.state.winner == "rossi" and game.state.phase is Phase.CHOICE
    game.refused("error.linea_gotica.not_your_move", "turn.next", "blu", order="first")
    game("turn.next", "rossi", order="second")
    assert game.state.order == ["blu", "rossi"]


def test_one_activity_per_turn_and_run_not_twice(game):
    game.to_phase(Phase.MOVEMENT)
    game("move", "blu", unit="squadra", kind="corsa", distance=24)
    game.refused("error.linea_gotica.already_acted", "move", "blu", unit="squadra", distance=1)
    game.refused("error.linea_gotica.not_your_unit", "move", "blu", unit="nemici", distance=1)
    game.to_phase(Phase.INITIATIVE)
    game.to_phase(Phase.MOVEMENT)
    game.refused(
        "linea_gotica.move.no_run_twice", "move", "blu", unit="squadra", kind="corsa", distance=5
    )
    game("move", "blu", unit="squadra", kind="normale", distance=16)


def test_vehicles_move_by_road_and_crush_obstacles(game):
    game.to_phase(Phase.MOVEMENT)
    game.refused(
        "error.linea_gotica.vehicle_kinds_only",
        "move",
        "blu",
        unit="carro",
        kind="normale",
        distance=5,
    )
    game.refused(
        "linea_gotica.move.impassable",
        "move",
        "blu",
        unit="carro",
        kind="fuori_strada",
        distance=1,
        mods="invalicabile",
    )
    applied = game(
        "move", "blu", [7], unit="carro", kind="fuori_strada", distance=5, mods="travolgere_piccolo"
    )
    assert codes(applied) == ["linea_gotica.move.ok_damaged(allowance=18,cm=5)"]
    assert game.unit("carro").vehicle.mobility_damaged


def test_opportunity_fire_only_at_movers_and_only_by_the_other_side(game):
    game.to_phase(Phase.MOVEMENT)
    game.refused(
        "error.linea_gotica.mover_cannot_fire",
        "fire",
        "blu",
        unit="squadra",
        target="nemici",
        distance=20,
    )
    game.refused(
        "error.linea_gotica.not_moving",
        "fire",
        "rossi",
        unit="nemici",
        target="squadra",
        distance=20,
    )
    game("move", "blu", unit="squadra", kind="cauto", distance=8)
    # five rifles (recruits, 3): cautious target −1, opportunity ½ → 1
    applied = game("fire", "rossi", [2, 2, 2, 2, 2], unit="nemici", target="squadra", distance=30)
    assert {r.steps[0].total for r in applied.resolutions} == {1}
    assert game.unit("nemici").activity == "opportunity"
    game.refused(
        "error.linea_gotica.already_acted",
        "fire",
        "rossi",
        unit="nemici",
        target="squadra",
        distance=30,
    )


def test_fire_phase_goes_by_quality_class_and_is_simultaneous_within_one(game):
    game.to_phase(Phase.FIRE)
    # Elite: only the observer; the Reds have no Elite (done at once)
    assert game.state.fire_class == 0 and game.state.done == ["rossi"]
    out_of_class = game.refused(
        "error.linea_gotica.not_this_class",
        "fire",
        "blu",
        unit="squadra",
        target="nemici",
        distance=30,
    )
    # The class by its name in the reader's language ("Class elite acts now": its id).
    assert out_of_class.localized("en").startswith("Class Elite acts now, not ")
    assert out_of_class.localized("it").startswith("Ora agisce la classe Elite, non ")
    assert out_of_class.localized("fr").startswith("C'est à la classe Élite d'agir, pas à ")
    game("turn.next", "blu")
    assert game.state.fire_class == 1  # Veterani: sappers and tank
    game("turn.next", "blu")
    assert game.state.fire_class == 2  # Regolari: the squad and the flak
    # the Reds' flak gunner kills the squad leader... (autocannon, 2 shots at one man)
    applied = game("fire", "rossi", [1, 10], unit="flak", target="squadra", distance=40, man=1)
    assert codes(applied) == ["linea_gotica.damage.dead(figure=1)"]
    # ...who still fires in this class: results within a class are simultaneous
    leader = game.unit("squadra").figure(1)
    assert leader.dead
    applied = game(
        "fire", "blu", [10, 10], unit="squadra", target="flak", distance=10, weapon="mitra"
    )
    assert len(applied.resolutions) == 2  # two SMG shots from the dead leader
    assert not game.unit("squadra").leader()


def test_a_side_that_hid_a_unit_is_awaited_in_every_class(game):
    """Seed lines 85-86 say nothing of hidden units: the class steps are decided from what
    the enemy can see (docs/linea_gotica.md). The Reds have no Elite; once they hid a unit,
    every class waits for them, even after it is seen again (or a class would tell it)."""
    game.to_phase(Phase.MOVEMENT, first="rossi")
    game("move", "rossi", unit="nemici", kind="cauto", distance=4, hidden="true")
    assert game.state.concealing == ["rossi"]
    game.unit("nemici").hidden = False  # observed: seen again
    game.to_phase(Phase.FIRE)
    for quality in range(5):
        assert game.state.fire_class == quality and "rossi" not in game.state.done
        game("turn.next", "rossi")
        if "blu" not in game.state.done:
            game("turn.next", "blu")
    assert game.state.phase is Phase.OBSERVE_FIRE


def test_a_class_whose_only_actor_is_hidden_opens_for_its_side(game):
    """The Blues' only Elite is their observer: hidden, it still has its Elite step, and the
    Reds (who hide nothing) are not waited for there."""
    game.unit("osservatore").hidden = True
    game.to_phase(Phase.FIRE)
    assert game.state.fire_class == 0 and game.state.done == ["rossi"]
    assert g.awaiting(game.state) == "blu"


def test_leader_replacement_at_turn_start(game):
    squad = game.unit("squadra")
    squad.figures[0].dead = True
    game.state.phase = Phase.INITIATIVE
    applied = game("turn.next", None, [5, 9, 1])  # replacement fails (4), then initiative
    assert codes(applied)[0] == "linea_gotica.action.failed(purpose=rimpiazzo)"
    game.to_phase(Phase.INITIATIVE)
    game.state.replaced_turn = 0
    applied = game("turn.next", None, [4, 9, 1])
    assert codes(applied)[0] == "linea_gotica.action.passed(purpose=rimpiazzo)"
    squad = game.unit("squadra")
    assert squad.figure(2).role == "leader" and squad.leader_ability.value == "reclute"


def test_a_hidden_squads_new_leader_is_its_sides_to_read(game):
    """Both squads roll, in the order of the units; the hidden one's roll and notice are
    kept for its side (and the referee), the visible one's are everyone's."""
    game.unit("squadra").figures[0].dead = True
    game.unit("nemici").figures[0].dead = True
    game.unit("nemici").hidden = True
    game.state.phase = Phase.INITIATIVE
    applied = game("turn.next", None, [4, 3, 9, 1])  # both pass, then the initiative
    assert codes(applied)[:2] == ["linea_gotica.action.passed(purpose=rimpiazzo)"] * 2
    assert [r.secret_for for r in applied.resolutions] == [None, "rossi", None]
    assert [(n.key, n.secret_for) for n in applied.notices[:2]] == [
        ("linea_gotica.turn.new_leader", None),
        ("linea_gotica.turn.new_leader", "rossi"),
    ]
    assert game.unit("nemici").figure(2).role == "leader"  # it happened all the same


def test_isolated_soldiers_roll_before_acting(game):
    game.to_phase(Phase.FIRE)
    game("turn.next", "blu")
    game("turn.next", "blu")
    command = game("test", "blu", unit="squadra", kind="comando", man=4, distance=9)
    assert codes(command) == ["linea_gotica.command.isolated(limit=8)"]
    assert game.unit("squadra").figure(4).isolated
    applied = game(
        "fire", "blu", [5, 10, 10], unit="squadra", target="nemici", distance=30, weapon="fucile"
    )
    assert codes(applied)[0] == "linea_gotica.action.failed(purpose=isolato)"
    assert len(applied.resolutions) == 3  # two shots: the isolated one did not fire


def test_machine_guns_emplacement_and_reloading(game):
    game.to_phase(Phase.FIRE)
    game("turn.next", "blu")
    game("turn.next", "blu")
    # the unemplaced light MG fires as an assault rifle at an area (½)
    applied = game(
        "fire",
        "blu",
        [10] * 5,
        unit="squadra",
        target="nemici",
        distance=20,
        weapon="lmg",
        mode="area",
    )
    first = applied.resolutions[0]
    assert first.steps[0].table.row == "Fucile d'assalto (2) — area"
    assert first.steps[0].total == 2  # regolari 4, ½
    assert len(applied.resolutions) == 5  # every soldier in the template
    assert game.unit("squadra").needs_reload == []  # an assault rifle does not reload
    # emplaced (a Very Easy action), it is a light MG: a one-man crew firing at an area
    # must change barrel before firing again (note 4)
    game.to_phase(Phase.INITIATIVE)
    game.to_phase(Phase.FIRE)
    game("turn.next", "blu")
    game("turn.next", "blu")
    # Its one weapon that must be emplaced needs no naming (weapon:lmg is implied).
    game("test", "blu", unit="squadra", kind="piazzare")
    assert game.unit("squadra").emplaced == ["lmg"]
    game.to_phase(Phase.INITIATIVE)
    game.to_phase(Phase.FIRE)
    game("turn.next", "blu")
    game("turn.next", "blu")
    applied = game(
        "fire",
        "blu",
        [10] * 5,
        unit="squadra",
        target="nemici",
        distance=20,
        weapon="lmg",
        mode="area",
    )
    assert applied.resolutions[0].steps[0].table.row == "Mitragliatrice Legg. (3)(4) — area"
    assert game.unit("squadra").needs_reload == ["lmg"]


def test_actions_emplace_reload_medic_dig(game):
    game.to_phase(Phase.FIRE)
    game("turn.next", "blu")
    # The engineers carry nothing to emplace: said so, rather than "give the weapon".
    nothing = game.refused(
        "error.linea_gotica.nothing_to_piazzare", "test", "blu", unit="genieri", kind="piazzare"
    )
    assert nothing.localized("en").endswith("has no weapon to emplace.")
    applied = game("test", "blu", unit="genieri", kind="mirare")
    assert codes(applied) == ["linea_gotica.action.automatic(purpose=azione)"]
    assert game.unit("genieri").aimed_turn == 1
    game.refused("error.linea_gotica.already_acted", "test", "blu", unit="genieri", kind="scavare")
    applied = game("test", "blu", [10], unit="carro", kind="azione", difficulty="facile")
    assert codes(applied) == ["linea_gotica.action.passed(purpose=azione)"]  # 2 × 5 = 10


def test_multi_turn_action(game):
    game.to_phase(Phase.FIRE)
    game("turn.next", "blu")
    applied = game(
        "test",
        "blu",
        unit="genieri",
        kind="azione",
        difficulty="difficile",
        turns=2,
        task="cariche",
    )
    assert applied.notices[0].code.startswith("linea_gotica.action.progress(")
    game.to_phase(Phase.INITIATIVE)
    game.to_phase(Phase.FIRE)
    game("turn.next", "blu")
    applied = game("test", "blu", [3], unit="genieri", kind="azione", task="cariche")
    assert codes(applied) == ["linea_gotica.action.passed(purpose=azione)"]  # ½ × 5 = 3


def test_wounds_medic_and_bleeding(game):
    squad = game.unit("squadra")
    squad.figures[1].badly_wounded = True
    squad.figures[1].bleed_until = 1
    squad.figures[2].badly_wounded = True
    squad.figures[2].bleed_until = 1
    game.to_phase(Phase.FIRE)
    game("turn.next", "blu")
    game("turn.next", "blu")
    applied = game("test", "blu", [4], unit="squadra", kind="medicare", man=2)
    assert codes(applied) == ["linea_gotica.action.passed(purpose=medicare)"]
    assert game.unit("squadra").figure(2).wounded
    game.to_phase(Phase.INITIATIVE)
    squad = game.unit("squadra")
    assert not squad.figure(2).dead and squad.figure(3).dead
    assert {p.figure for p in game.state.pending if p.unit == "squadra"} == {1, 2, 4, 5, 6}


def test_flamethrower_uses_and_morale(game):
    game.to_phase(Phase.FIRE)
    game("turn.next", "blu")
    game("turn.next", "blu")
    applied = game(
        "fire", "blu", [10, 1], unit="squadra", target="nemici", distance=9, weapon="fiamme"
    )
    assert codes(applied) == ["linea_gotica.fire.dud"]
    # within its normal range (10 cm) the target tests morale, every soldier
    assert {p.figure for p in game.state.pending if p.unit == "nemici"} == {1, 2, 3, 4, 5}
    assert game.unit("squadra").figure(5).uses == 1


def test_indirect_fire_needs_contact_then_ranging(game):
    game.to_phase(Phase.FIRE)
    # general support: Difficult (Elite 6 → 3)
    applied = game("callarty", "blu", [3], unit="osservatore", battery="batteria", target="bosco")
    assert applied.resolutions[0].steps[0].total == 3
    mission = game.state.missions[0]
    assert (mission.stage, mission.due_turn) == ("ranging", 2)
    game.refused("error.linea_gotica.mission_not_due", "execute", "blu", marker=mission.id)
    game("turn.next", "blu")
    game.refused(
        "error.linea_gotica.not_an_observer",
        "callarty",
        "blu",
        unit="carro",
        battery="aereo",
        target="x",
    )


def test_aircraft_anti_aircraft_and_bombs(game):
    game.to_phase(Phase.FIRE)
    game("callarty", "blu", [6], unit="osservatore", battery="aereo", target="strada")
    marker = game.state.missions[0].id
    game.to_phase(Phase.INITIATIVE)
    game.to_phase(Phase.MOVEMENT)
    game("turn.next", "blu")  # the Blues end their move; the Reds move
    # AA as opportunity fire in the movement phase: 2 → ½ = 1; hit, 6–10 damaged
    applied = game("fire", "rossi", [1, 7], unit="flak", target=marker, distance=0)
    assert codes(applied) == ["linea_gotica.aa.damaged"]
    assert applied.resolutions[0].steps[0].total == 1
    mission = game.state.missions[0]
    assert (mission.stage, mission.due_turn) == ("returning", 3)
    game.to_phase(Phase.INITIATIVE)
    game.to_phase(Phase.FIRE)
    applied = game("execute", "blu", [9], marker=marker)
    assert codes(applied) == ["linea_gotica.aa.returns"]
    applied = game("execute", "blu", [1, 2], marker=marker)
    assert codes(applied)[0].startswith("linea_gotica.ranging.on_target")
    assert game.state.missions[0].stage == "strafe"
    # anti-tank bombs halve the chance against infantry: 7 → 4
    applied = game("fragments", "blu", [4, 1, 5], target="nemici", marker=marker, models=2)
    hit_steps = [s for r in applied.resolutions for s in r.steps if s.key.endswith("he_hit")]
    assert [s.threshold.value for s in hit_steps] == [4, 4]
    assert codes(applied) == [
        "linea_gotica.damage.near_miss(figure=1)",
        "linea_gotica.he.spared(figure=2)",
    ]
    # the strafing pass: the autocannon's area line, with the aircraft's (Elite) quality
    applied = game("execute", "blu", [1, 1], marker=marker, order="mitraglia")
    assert game.state.missions[0].stage == "done"
    applied = game("fragments", "blu", [10], target="nemici", marker=marker, models=1)
    assert applied.resolutions[0].steps[0].table.row == "Cannoncini automatici 20/35 mm — area"
    assert applied.resolutions[0].steps[0].total == 6


def test_observation_rules(game):
    game.unit("nemici").hidden = True
    game.unit("nemici").cover = game.unit("nemici").cover.__class__("leggera")
    game.to_phase(Phase.MOVEMENT)
    game.refused(
        "error.linea_gotica.not_observation_time",
        "test",
        "blu",
        unit="squadra",
        kind="osservare",
        target="nemici",
    )
    game.to_phase(Phase.OBSERVE_MOVE)
    # infantry standing in cover, seen by infantry: Difficult (regolari 4 → 2)
    applied = game("test", "blu", [3], unit="squadra", kind="osservare", target="nemici")
    assert codes(applied) == ["linea_gotica.observe.unseen(purpose=osservazione)"]
    game.refused(
        "error.linea_gotica.observed_already",
        "test",
        "blu",
        unit="genieri",
        kind="osservare",
        target="nemici",
    )
    game.to_phase(Phase.FIRE)
    # Rossi hides a unit: every class step waits for it too (docs/linea_gotica.md).
    while game.state.fire_class != game.unit("squadra").class_index:
        for side in [s for s in game.state.sides if s not in game.state.done]:
            game("turn.next", side)
    game.refused(
        "error.linea_gotica.not_spotted",
        "fire",
        "blu",
        unit="squadra",
        target="nemici",
        distance=10,
    )


def test_minefields(game):
    game.to_phase(Phase.MOVEMENT)
    # Without a battlefield the referee says which minefield a move crosses: blu cannot
    # name one it does not know of (docs/linea_gotica.md, "Minefields a side cannot see").
    crossing = {"unit": "squadra", "kind": "cauto", "distance": 2, "minefield": "mine_ap"}
    game.refused("error.linea_gotica.unknown_minefield", "move", "blu", **crossing)
    # the first soldier is in the short zone (7 in the open), one more in the long (4)
    applied = game(
        "move",
        None,
        [8, 4, 5],
        unit="squadra",
        kind="cauto",
        distance=2,
        minefield="mine_ap",
        models=1,
    )
    assert codes(applied)[1:] == [
        "linea_gotica.he.spared(figure=1)",
        "linea_gotica.damage.shocked(figure=2)",
    ]
    assert "blu" in game.state.minefields["mine_ap"].known_to
    applied = game(
        "move", None, [5], unit="carro", kind="fuori_strada", distance=2, minefield="mine_at"
    )
    assert codes(applied)[-1] == "linea_gotica.damage.not_penetrated"


def test_mine_spotting_and_clearing(game):
    game.to_phase(Phase.OBSERVE_MOVE)
    # Without a battlefield the referee checks a minefield blu cannot name, at its distance.
    game.refused(
        "error.linea_gotica.mines_too_far",
        "test",
        None,
        unit="genieri",
        kind="mine",
        minefield="mine_ap",
        distance=11,
    )
    applied = game(
        "test", None, [10], unit="genieri", kind="mine", minefield="mine_ap", distance=10
    )
    assert codes(applied) == ["linea_gotica.action.passed(purpose=mine)"]  # easy: 2 × 5
    assert "blu" in game.state.minefields["mine_ap"].known_to


def test_passengers_ride_and_dismount(game):
    game.to_phase(Phase.MOVEMENT)
    game.refused(
        "error.linea_gotica.no_passengers",
        "move",
        "blu",
        unit="squadra",
        kind="sali",
        vehicle="carro",
    )  # a flamethrower is not a light weapon
    game.refused(
        "error.linea_gotica.no_passengers",
        "move",
        "blu",
        unit="genieri",
        kind="sali",
        vehicle="carro",
    )  # a bazooka is not a light weapon
    game.refused(
        "error.linea_gotica.cannot_ride",
        "move",
        "blu",
        unit="osservatore",
        kind="sali",
        vehicle="camion",
    )  # not their vehicle
    game("move", "blu", unit="osservatore", kind="sali", vehicle="carro", distance=2)
    assert game.unit("osservatore").riding == "carro"
    game("move", "blu", unit="carro", kind="strada", distance=20)
    # the tank is fired at (an autocannon, opportunity fire): its passengers dismount
    game("fire", "rossi", [10, 10], unit="flak", target="carro", distance=30)
    assert game.unit("osservatore").riding is None


def test_smoke(game):
    game.to_phase(Phase.MOVEMENT)
    applied = game(
        "test",
        "blu",
        [3],
        unit="carro",
        kind="fumo",
        source="lanciafumogeni_veicolo",
        place="strada",
    )
    assert codes(applied) == ["linea_gotica.smoke.lasts(turns=7)"]
    assert not game.state.smoke[0].effective
    game.to_phase(Phase.FIRE)
    screen = game.state.smoke[0]
    assert screen.effective and screen.expires_after == 8


def test_covering_fire_on_a_visible_unit_is_halved(game):
    game.to_phase(Phase.COVERING)
    applied = game(
        "fire",
        "blu",
        [10, 10, 10],
        unit="carro",
        target="nemici",
        distance=50,
        kind="copertura",
        weapon="mg",
    )
    assert applied.resolutions[0].steps[0].total == 3  # 5 at normal range, ½
    assert game.unit("carro").activity == "covering"


def test_weapons_that_cannot_pierce_armour_are_refused(game):
    game.to_phase(Phase.FIRE)
    game("turn.next", "blu")
    game("turn.next", "blu")
    game.refused(
        "error.linea_gotica.cannot_penetrate",
        "fire",
        "blu",
        unit="squadra",
        target="semicingolato",
        distance=20,
        weapon="fucile",
    )


def test_referee_modifiers_only(game):
    game.to_phase(Phase.FIRE)
    game.refused(
        "error.linea_gotica.referee_modifier",
        "fire",
        "blu",
        unit="osservatore",
        target="nemici",
        distance=20,
        modifier=1,
    )
    applied = game("fire", None, [10], unit="osservatore", target="nemici", distance=20, modifier=2)
    assert applied.resolutions[0].steps[0].total == 9  # 6 + 1 short range + 2 referee


def test_game_ends_after_the_last_turn(game):
    for _ in range(3):
        game.to_phase(Phase.OBSERVE_FIRE)
        game("turn.next", None)
    assert game.state.ended
    game.refused("error.linea_gotica.game_over", "turn.next", None)


def test_commands_ignore_unset_options_of_shared_slash_commands():
    command = build_command(
        "fire",
        {"unit": "a", "target": "b", "distance": 5, "ammo": None, "impact": "", "facing": "side"},
    )
    assert command.facing == "fianco"
    with pytest.raises(RulesError) as caught:
        build_command("fire", {"unit": "a", "target": "b", "ammo": "AP"})
    assert caught.value.key == "error.unknown_option"
    with pytest.raises(RulesError) as caught:
        build_command("assault", {"unit": "a"})
    assert caught.value.key == "error.unknown_command"
