"""linea_gotica: the rule defects found in play, each reproduced as reported."""

from __future__ import annotations

import pytest

from rules.core.dice import D10, DiceTray, ScriptedDice
from rules.core.seatview import REFEREE, SPECTATOR, Seat
from rules.linea_gotica import turn as g
from rules.linea_gotica.commands import build_command
from rules.linea_gotica.procedures import fire
from rules.linea_gotica.scenario import load_bundled  # noqa: F401
from rules.linea_gotica.state import Phase
from tests.linea_gotica.conftest import gotica_without_field
from tests.linea_gotica.test_game import Game
from tests.linea_gotica.test_procedures import run, tank_shot


@pytest.fixture()
def esempio() -> Game:
    return Game(g.new_game(gotica_without_field()))


def test_an_aimed_volley_goes_on_after_its_man_falls(esempio):
    """`/fire unit:cecchino target:osservatori distance:50 man:1 dice:3,2,9,9`: the sniper's
    shot kills soldier 1; the spotter's shot falls on the next man instead of cancelling."""
    esempio.to_phase(Phase.FIRE, first="alleati")
    assert esempio.state.fire_class == 0  # Elite: the sniper's class
    applied = esempio(
        "fire", "tedeschi", [3, 2, 9, 9], unit="cecchino", target="osservatori", distance=50, man=1
    )
    observers = esempio.unit("osservatori")
    assert observers.figure(1).dead
    assert all(f.alive for f in observers.figures[1:])
    shots = [r for r in applied.resolutions if r.procedure == "direct_fire"]
    assert len(shots) == 2  # the second shot was made, at the next man
    assert shots[1].outcome.key == "linea_gotica.fire.miss"
    assert esempio.unit("cecchino").activity == "fired"


def test_an_aimed_volley_at_a_man_already_down_is_refused(esempio):
    esempio.to_phase(Phase.FIRE, first="alleati")
    esempio.state.units["osservatori"].figures[0].dead = True
    esempio.refused(
        "error.linea_gotica.figure_out",
        "fire",
        "tedeschi",
        [3, 2, 9, 9],
        unit="cecchino",
        target="osservatori",
        distance=50,
        man=1,
    )


def test_the_weapon_destroyed_is_drawn_with_the_d10():
    """A d10 game: no D4 for four weapons; faces above 4×2 = 8 are rolled again."""
    hit = run("direct_fire", tank_shot(target={"weapons": 4}), [1, 1, 7, 10, 3])
    assert hit.outcome.code == "linea_gotica.damage.weapon_destroyed(weapon=3)"
    rolls = [roll for step in hit.steps for roll in step.rolls]
    assert {roll.die for roll in rolls} == {D10}
    tray = DiceTray(ScriptedDice([9, 10, 9, 10]))
    picks, weapon = fire.which_weapon(4, tray)
    assert len(picks) == 1 + fire.WEAPON_REROLLS and weapon == 2  # (10 − 1) mod 4 + 1
    for weapons in range(2, 7):
        counts = {n: 0 for n in range(1, weapons + 1)}
        for face in range(1, 11):
            if face <= weapons * (10 // weapons):
                counts[fire.which_weapon(weapons, DiceTray(ScriptedDice([face])))[1]] += 1
        assert len(set(counts.values())) == 1  # every weapon equally likely


def test_the_smoke_discharger_is_not_a_weapon_on_board(esempio):
    sherman = esempio.unit("sherman")
    from rules.linea_gotica.turn.common import armament, target_spec

    assert armament(esempio.state, sherman) == ["m3_75", "browning_30", "browning_50"]
    assert target_spec(esempio.state, sherman, None).weapons == 3


class _Forbidden:
    """Typed dice that must not be touched."""

    by_hand = True

    def face(self, die, label):  # type: ignore[no-untyped-def]
        raise AssertionError(f"a player's typed dice fed another side's roll: {label}")


def test_the_opponents_initiative_die_is_not_the_players(esempio):
    command = build_command("turn.next", {})
    applied = g.apply(
        esempio.state,
        command,
        ScriptedDice([7], by_hand=True),
        actor_side="alleati",
        other_dice=ScriptedDice([3]),
    )
    rolls = applied.tray.rolls
    assert [(r.side, r.face, r.by_hand) for r in rolls] == [
        ("alleati", 7, True),
        ("tedeschi", 3, False),
    ]
    assert applied.state.winner == "alleati"


def test_a_covering_fire_triggered_by_the_target_is_rolled_by_the_coverer(esempio):
    esempio.to_phase(Phase.COVERING, first="alleati")
    esempio("fire", "alleati", unit="squadra_1", target="casolare", kind="copertura", weapon="bar")
    esempio.to_phase(Phase.FIRE, first="alleati")
    while esempio.state.fire_class != 2:  # Regolari: the hidden MG's class
        for side in list(esempio.state.sides):
            if side not in esempio.state.done:
                esempio("turn.next", side)
    esempio.state.units["mg_casolare"].hidden = False
    command = build_command(
        "fire",
        {"unit": "mg_casolare", "target": "squadra_1", "distance": 30, "weapon": "mg42_lafette"},
    )
    # The bot's dice (other_dice) serve the BAR's shot at half chance; the German player's
    # typed dice serve only the MG 42's own shots.
    applied = g.apply(
        esempio.state,
        command,
        ScriptedDice([10, 10, 10], by_hand=True),
        actor_side="tedeschi",
        other_dice=ScriptedDice([10]),
    )
    sides = [r.side for r in applied.tray.rolls]
    assert sides[0] == "alleati" and set(sides[1:]) == {"tedeschi"}


def test_hidden_units_are_not_shown_to_the_opponent():
    from rules.linea_gotica.surface import PLAY

    document = PLAY.setup("esempio_gotica")
    shared = {line.id for line in PLAY.view(document, SPECTATOR).status.units}
    allies = {line.id for line in PLAY.view(document, Seat.of("alleati")).status.units}
    germans = {line.id: line for line in PLAY.view(document, Seat.of("tedeschi")).status.units}
    referee = {line.id for line in PLAY.view(document, REFEREE).status.units}
    hidden = {"mg_casolare", "cecchino"}
    assert not hidden & shared and not hidden & allies
    assert hidden <= set(germans) and hidden <= referee
    assert germans["cecchino"].hidden and not germans["gruppe"].hidden
    assert not hidden & set(
        PLAY.view(document, Seat.of("alleati")).names("target", legal_first=False)
    )
    assert hidden <= set(PLAY.view(document, REFEREE).names("target", legal_first=False))
    text = repr(PLAY.view(document, Seat.of("alleati")).status)
    assert "campanile" not in text and "casolare" not in text


def test_a_winner_who_owes_morale_gets_no_choice_button(esempio):
    """Found by tests/fuzz: a soldier bled to death at the end of the turn, so his squad owes
    morale when its side wins the initiative; /turn next is refused until it is rolled."""
    from rules.linea_gotica.state import PendingMorale
    from rules.linea_gotica.surface import PLAY

    esempio.to_phase(Phase.CHOICE, first="alleati")
    esempio.state.pending.append(PendingMorale(unit="squadra_1", figure=2, reasons=["x"]))
    document = esempio.state.model_dump(mode="json")
    assert not [f for f in PLAY.view(document, REFEREE).follow_ups if f.verb == "turn.next"]
    legal = PLAY.view(document, REFEREE).every_legal
    assert [(a.verb, a.side, a.owed) for a in legal] == [("morale", "alleati", True)]
    esempio.refused("error.linea_gotica.morale_owed", "turn.next", "alleati", order="first")


def test_a_gun_without_its_calibre_is_refused_whatever_the_dice() -> None:
    """Found by the property tests: the refusal came only on a hit, so a miss resolved and
    the odds' enumeration then failed; now it comes before any die is rolled."""
    import pytest as _pytest

    from rules.core.dice import ScriptedDice
    from rules.core.errors import InvalidInput
    from rules.linea_gotica import PROCEDURES

    procedure = PROCEDURES["direct_fire"]
    data = procedure.parse_input(
        {
            "quality": "regolari",
            "weapon": "cannone_77",
            "distance_cm": 20,
            "target": {"kind": "carro_armato", "armour": "media"},
        }
    )
    for faces in ([10], [1, 1, 1, 1, 1, 1]):
        with _pytest.raises(InvalidInput) as caught:
            procedure.resolve(data, ScriptedDice(faces), with_odds=False)
        assert caught.value.key == "error.linea_gotica.calibre_needed"


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", 'Not allowed in the phase "Covering fire".'),
        ("fr", "Impossible dans la phase «\u202fTirs de couverture\u202f»."),
        ("it", "Non si può fare nella fase «Tiri di copertura»."),
    ],
)
def test_a_refusal_names_the_phase_in_its_readers_language(esempio, language, expected):
    """`/fire` in the covering-fire phase answered 'Not allowed in the phase "copertura"'
    in every language: the phase's id, not its name."""
    esempio.to_phase(Phase.COVERING, first="alleati")
    refusal = esempio.refused(
        "error.linea_gotica.wrong_phase",
        "fire",
        "tedeschi",
        [3, 2, 9, 9],
        unit="cecchino",
        target="osservatori",
        distance=50,
    )
    assert refusal.localized(language) == expected
