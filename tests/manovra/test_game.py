"""A whole manovra turn through the game logic with scripted dice, and its refusals."""

from __future__ import annotations

import pytest

from rules.core.dice import ScriptedDice
from rules.core.errors import IllegalAction, RulesError, UnknownName
from rules.manovra import turn as g
from rules.manovra.scenario import load_bundled, parse_scenario
from rules.manovra.turn.assault import _assault_weapon


@pytest.fixture()
def table() -> dict[str, g.ManovraState]:
    return {"state": g.new_game(load_bundled("esempio_normandia"))}


def play(table, command, side, faces=()):
    """Apply a command with exactly ``faces``; every face must be used."""
    dice = ScriptedDice(faces)
    before = table["state"].model_dump(mode="json")
    try:
        applied = g.apply(table["state"], command, dice, actor_side=side)
    except RulesError:
        assert table["state"].model_dump(mode="json") == before, "a refusal changed the state"
        raise
    dice.ensure_consumed()
    table["state"] = applied.state
    return applied


def refused(table, command, side, key, faces=()):
    with pytest.raises(RulesError) as caught:
        play(table, command, side, faces)
    assert caught.value.key == key, caught.value.key
    return caught.value


def test_a_whole_turn(table):
    state = table["state"]
    # Step 1: the Allies field three platoons/batteries (the 105 battery is off the table),
    # the Axis two: the Axis takes one manoeuvre token.
    assert state.step is g.TurnStep.TOKENS
    assert state.tokens == {"alleati": 0, "asse": 1}
    refused(table, g.Declare(platoon="zug_1"), "asse", "error.manovra.wrong_step")
    play(table, g.Next(), "alleati")

    # Step 2: an IFR for the off-table battery, over the platoon radio.
    refused(
        table,
        g.RequestFire(unit="gruppe_1", battery="batteria_105", target="x", distance_cm=10),
        "alleati",
        "error.manovra.not_your_unit",
    )
    refused(
        table,
        g.RequestFire(unit="squadra_1", battery="plotone_carri", target="x", distance_cm=10),
        "alleati",
        "error.manovra.not_a_battery",
    )
    applied = play(
        table,
        g.RequestFire(
            unit="comando_plotone",
            battery="batteria_105",
            target="bosco nord",
            distance_cm=20,
            link="stesso_plotone_radio",
        ),
        "alleati",
        [6, 3],
    )
    assert [r.procedure for r in applied.resolutions] == ["communication", "test"]
    assert applied.resolutions[1].outcome.code == "manovra.test.passed(test=IFR)"
    assert [m.target for m in table["state"].markers] == ["bosco nord"]
    play(table, g.Next(), "alleati")

    # Step 3, first phase: the Allies declare first; the Axis hands over its token.
    assert g.awaiting(table["state"]) == "alleati"
    refused(table, g.Declare(platoon="zug_1"), "asse", "error.manovra.not_your_declaration")
    refused(table, g.Declare(platoon="zug_1"), "alleati", "error.manovra.not_your_platoon")
    play(table, g.Declare(platoon="plotone_fucilieri"), "alleati")
    assert g.awaiting(table["state"]) == "asse"
    applied = play(table, g.PassToken(), "asse", [6, 1, 1])  # IT: squadra_1, squadra_2, comando
    assert table["state"].tokens["asse"] == 0
    # Totals 6+1+1=8, 1+1+0=2, 1+2+2=5: the IT order.
    assert table["state"].queue == ["squadra_1", "comando_plotone", "squadra_2"]
    assert applied.resolutions[0].procedure == "initiative"

    refused(
        table,
        g.Move(unit="squadra_1", terrain="piano_scoperto", distance_cm=5),
        "asse",
        "error.manovra.not_your_unit",
    )
    refused(
        table,
        g.Move(unit="squadra_2", terrain="piano_scoperto", distance_cm=5),
        "alleati",
        "error.manovra.not_this_units_turn",
    )
    refused(
        table,
        g.Fire(unit="squadra_1", target="gruppe_1", distance_cm=30),
        "alleati",
        "error.manovra.not_spotted",
    )  # stationary infantry in a building: 15 cm

    # Small arms: 9 rifles + 1 BAR × 3 = 12 shots, D12 at short range, medium cover.
    applied = play(
        table, g.Fire(unit="squadra_1", target="gruppe_1", distance_cm=12), "alleati", [10]
    )
    fire = applied.resolutions[-1]
    assert fire.procedure == "small_arms"
    assert fire.steps[0].table.column == "8-12 M" and fire.steps[0].table.cell == "1"
    assert table["state"].units["gruppe_1"].models == 8

    refused(
        table,
        g.Move(unit="comando_plotone", terrain="fluviale_acqua", distance_cm=2),
        "alleati",
        "manovra.move.impassable",
    )
    play(table, g.Move(unit="comando_plotone", terrain="piano_boscoso", distance_cm=6), "alleati")
    assert table["state"].units["comando_plotone"].terrain == "piano_boscoso"
    refused(
        table,
        g.Move(unit="squadra_2", terrain="campi_minati", distance_cm=4, kind="cauto"),
        "alleati",
        "manovra.move.too_far",
    )
    play(
        table,
        g.Move(unit="squadra_2", terrain="campi_minati", distance_cm=2, kind="cauto"),
        "alleati",
    )
    state = table["state"]
    assert [(p.unit, p.kind, p.reason) for p in state.pending] == [("squadra_2", "ET", "mine")]

    # The owed ET fails: EFFETTI CAMPO MINATO row 3 for infantry, "2 morti + CT".
    applied = play(table, g.TakeTest(unit="squadra_2", kind="ET"), "alleati", [1, 10, 3])
    assert applied.resolutions[0].steps[-1].table.cell == "2 morti + CT"
    assert table["state"].units["squadra_2"].models == 8
    assert [(p.unit, p.kind) for p in table["state"].pending] == [("squadra_2", "CT")]
    play(table, g.TakeTest(unit="squadra_2", kind="CT"), "alleati", [1, 8])
    assert "panic" in table["state"].units["squadra_2"].statuses
    assert table["state"].pending == []

    # Second phase: tanks. The Panzer wins the IT.
    play(table, g.Declare(platoon="plotone_carri"), "alleati")
    play(table, g.Declare(platoon="panzer"), "asse", [1, 1, 6])
    assert table["state"].queue == ["panzer_iv", "sherman_1", "sherman_2"]
    lacking = refused(
        table,
        g.Fire(unit="panzer_iv", target="sherman_1", distance_cm=80, weapon="mg42"),
        "asse",
        "error.manovra.no_such_weapon",
    )
    # An unknown name, offered back among the Panzer's own weapons ("did you mean …?").
    assert isinstance(lacking, UnknownName)
    assert lacking.among == tuple(table["state"].units["panzer_iv"].weapons)
    # 8+2 = 10 → "a scelta": top armour 2 cm; 75L AP needs 2 on lt_2; D10 5 pierces;
    # effects D10 10 on the hull column: "esplode + tutti morti".
    applied = play(
        table,
        g.Fire(unit="panzer_iv", target="sherman_1", distance_cm=80, ammo="AP"),
        "asse",
        [8, 5, 10],
    )
    shot = applied.resolutions[-1]
    assert [s.key for s in shot.steps] == [
        "manovra.step.to_hit",
        "manovra.step.penetration",
        "manovra.step.effects",
    ]
    assert shot.steps[0].table.cell == "a scelta"
    assert shot.steps[1].table.cell == "2" and shot.steps[1].table.column == "2"
    assert shot.steps[2].table.cell == "esplode + tutti morti"
    sherman = table["state"].units["sherman_1"]
    assert sherman.models == 0 and "destroyed" in sherman.statuses
    assert table["state"].queue == ["sherman_2"]  # the destroyed tank is skipped
    applied = play(
        table, g.Fire(unit="sherman_2", target="panzer_iv", distance_cm=50), "alleati", [1]
    )
    assert applied.resolutions[-1].outcome.code == "manovra.heavy.miss"

    # Third phase: the mortars and the Zug; everyone holds.
    play(table, g.Declare(platoon="sezione_mortai"), "alleati")
    play(table, g.Declare(platoon="zug_1"), "asse", [1, 1, 1, 1])
    assert table["state"].queue == ["gruppe_1", "mg_team", "pak", "mortai"]
    for unit in ["gruppe_1", "mg_team", "pak"]:
        play(table, g.Hold(unit=unit), "asse")
    # The last activation closes step 3; one battery fired: no IT orders it (no die).
    applied = play(table, g.Hold(unit="mortai"), "alleati")
    assert table["state"].step is g.TurnStep.INDIRECT
    assert table["state"].marker_order == ["if1-1"]

    # Step 4: off-table scatter D10 + 2D8 − AD − CV = 1+1+1−1−2 ≤ 0: on the point.
    applied = play(table, g.ExecuteFire(marker="if1-1"), "alleati", [1, 1, 1])
    assert applied.resolutions[0].outcome.code == "manovra.scatter.on_point"
    refused(table, g.ExecuteFire(marker="if1-1"), "alleati", "error.manovra.marker_done")
    # Fragments on the Gruppe: D10 9 + AD 1 = 10 → "morto -P"; medium cover does not save.
    applied = play(table, g.Fragments(target="gruppe_1", marker="if1-1"), "alleati", [9])
    assert applied.resolutions[0].steps[0].table.cell == "morto -P"
    assert table["state"].units["gruppe_1"].models == 7

    play(table, g.Next(), "alleati")
    assert table["state"].step is g.TurnStep.END
    play(table, g.Next(), "alleati")
    state = table["state"]
    assert (state.turn, state.step) == (2, g.TurnStep.TOKENS)
    assert state.tokens == {"alleati": 0, "asse": 1}
    assert not any(u.acted for u in state.units.values())


def _to_manoeuvre(table):
    play(table, g.Next(), "alleati")
    play(table, g.Next(), "alleati")


def test_panicked_unit_must_recover_then_may_only_move_tactically(table):
    table["state"].units["squadra_1"].statuses.append("panic")
    _to_manoeuvre(table)
    play(table, g.Declare(platoon="plotone_fucilieri"), "alleati")
    play(table, g.PassToken(), "asse", [6, 1, 1])
    # Panicked, it must retreat or recover (issue 26): no hold, no fire.
    refused(table, g.Hold(unit="squadra_1"), "alleati", "error.manovra.must_retreat")
    refused(
        table,
        g.Fire(unit="squadra_1", target="gruppe_1", distance_cm=12),
        "alleati",
        "error.manovra.panicked",
    )
    # Own leader CV 1, then the platoon's lieutenant CV 2: first CT fails, second passes.
    applied = play(table, g.RecoverPanic(unit="squadra_1"), "alleati", [1, 8, 6, 2])
    assert applied.resolutions[0].outcome.code == "manovra.panic.recovered"
    assert "panic" not in table["state"].units["squadra_1"].statuses
    refused(
        table,
        g.Move(unit="squadra_1", terrain="piano_scoperto", distance_cm=3, kind="breve"),
        "alleati",
        "error.manovra.recovered_tactical_only",
    )
    play(table, g.Move(unit="squadra_1", terrain="piano_scoperto", distance_cm=12), "alleati")


def test_crew_losses_limit_actions(table):
    pak = table["state"].units["pak"]
    pak.models = 1  # a single survivor of four: light weapons only, simple actions only
    _to_manoeuvre(table)
    play(table, g.Declare(platoon="plotone_carri"), "alleati")
    # The PaK crew has losses: its IT uses the fixed face 1 (no die for it).
    play(table, g.Declare(platoon="zug_1"), "asse", [1, 1, 1, 1])
    state = table["state"]
    initiative_units = {"gruppe_1", "mg_team", "pak", "sherman_1", "sherman_2"}
    assert set(state.queue) == initiative_units
    while state.queue[0] != "pak":
        unit = state.units[state.queue[0]]
        play(table, g.Hold(unit=unit.id), unit.side)
        state = table["state"]
    refused(
        table,
        g.Fire(unit="pak", target="sherman_1", distance_cm=40),
        "asse",
        "error.manovra.light_only",
    )
    refused(
        table,
        g.Fire(
            unit="pak", target="sherman_1", distance_cm=40, move_terrain="piano_boscoso", move_cm=1
        ),
        "asse",
        "error.manovra.simple_only",
    )


def test_unknown_names_are_clear_errors(table):
    _to_manoeuvre(table)
    with pytest.raises(UnknownName) as caught:
        play(table, g.Declare(platoon="nope"), "alleati")
    assert "nope" in caught.value.localized("en")
    with pytest.raises(IllegalAction):
        play(table, g.Hold(unit="squadra_1"), "alleati")


def test_scenario_errors_name_the_line():
    text = load_bundled("esempio_normandia").model_dump_json()
    bad = (
        "id: x\ntitle: t\nfirst_side: a\nweapons: {}\n"
        "sides:\n  - id: a\n    name: A\n    platoons: []\n"
    )
    with pytest.raises(RulesError) as caught:
        parse_scenario(bad, "upload.yaml")
    assert "upload.yaml, line" in caught.value.localized("en")
    with pytest.raises(RulesError):
        parse_scenario("id: [unclosed", "upload.yaml")
    assert text


def test_state_round_trips_through_json(table):
    document = table["state"].model_dump(mode="json")
    assert g.load_state(document) == table["state"]


def test_a_squad_with_no_weapon_for_a_tank_is_told_its_weapons_by_name(table):
    """'Choose the weapon: fucile, bar, granate' listed ids; players read the names."""
    state = table["state"]
    with pytest.raises(IllegalAction) as caught:  # a rifle is no weapon against a tank
        _assault_weapon(state, state.units["squadra_1"], "fucile")
    assert caught.value.key == "error.manovra.choose_weapon"
    assert caught.value.localized("en") == "Choose the weapon: Rifle, BAR, Hand grenades."
