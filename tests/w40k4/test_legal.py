"""Legal actions of w40k4: listed actions are accepted, owed ones block, games reach their end."""

from __future__ import annotations

import pytest

from rules.core.dice import ScriptedDice, SystemDice
from rules.core.errors import RulesError
from rules.core.legal import OptionSpec, for_seat, owed, values_of, verbs_of
from rules.core.seatview import Seat
from rules.w40k4 import legal
from rules.w40k4 import turn as g
from rules.w40k4.scenario import load_bundled
from rules.w40k4.surface import PLAY
from tests.core.legal_loop import play_random_game

LEGIONE, PREDONI = "legione", "predoni"


@pytest.mark.parametrize("seed", range(4))
def test_random_legal_games_reach_the_scenarios_end(seed: int) -> None:
    log = play_random_game(PLAY, "avamposto", seed)
    assert log.ended
    assert log.verbs.get("fire", 0) > 0 and log.verbs.get("move", 0) > 0


def _state_after(commands):
    """The bundled game after some commands, each (command, side, faces)."""
    state = g.new_game(load_bundled("avamposto"))
    for command, side, faces in commands:
        dice = ScriptedDice(faces)
        state = g.apply(state, command, dice, actor_side=side).state
        dice.ensure_consumed()
    return state


TO_PREDONI_SHOOTING = [(g.Next(), LEGIONE, [])] * 3 + [(g.Next(), PREDONI, [])]
TO_PREDONI_ASSAULT = [*TO_PREDONI_SHOOTING, (g.Next(), PREDONI, [])]


def test_a_blast_owes_its_template_to_the_firer_side():
    """'Carro predone deve prima piazzare la sagoma': owed, listed, /turn next refused."""
    state = _state_after(TO_PREDONI_SHOOTING)
    fire = g.Fire(unit="banda", target="squadra_tattica", distance=6, weapon="razzi")
    state = g.apply(state, fire, ScriptedDice([1]), actor_side=PREDONI).state
    actions = legal.legal_actions(state)
    owed_now = owed(actions)
    assert [(a.verb, a.side, a.unit) for a in owed_now] == [("template", PREDONI, "banda")]
    assert "turn.next" not in verbs_of(actions)
    assert values_of(owed_now, "target") == [u.id for u in state.ordered() if u.on_table]
    for side in (PREDONI, None):
        with pytest.raises(RulesError) as caught:
            g.apply(state, g.Next(), ScriptedDice([]), actor_side=side)
        assert caught.value.key == "error.w40k4.template_owed"
        assert caught.value.localized("it") == (
            "Non ora: lo schieramento Predoni deve prima piazzare la sagoma di Banda di predoni"
            " (/template)."
        )
    # the referee may place it too
    place = g.PlaceTemplate(unit="banda", target="squadra_tattica", models=0)
    state = g.apply(state, place, ScriptedDice([]), actor_side=None).state
    assert state.templates == [] and "turn.next" in verbs_of(legal.legal_actions(state))


def test_a_successful_assault_owes_its_combat_to_the_active_player():
    """'Restano combattimenti da risolvere': owed by the player whose turn it is."""
    state = _state_after(TO_PREDONI_ASSAULT)
    assault = g.Assault(unit="camminatore", target="devastatori", distance=5)
    state = g.apply(state, assault, ScriptedDice([]), actor_side=PREDONI).state
    actions = legal.legal_actions(state)
    assert [(a.verb, a.side, a.unit) for a in owed(actions)] == [("combat", PREDONI, "camminatore")]
    assert "turn.next" not in verbs_of(actions)
    assert for_seat(owed(actions), LEGIONE) == []
    with pytest.raises(RulesError) as caught:
        g.apply(state, g.Next(), ScriptedDice([]), actor_side=PREDONI)
    assert caught.value.localized("en") == (
        "Not now: Raiders must first resolve the combats: Devastators, Raider Walker (/combat)."
    )
    # the referee may resolve it
    applied = g.apply(state, g.Combat(unit="camminatore"), SystemDice(), actor_side=None)
    assert "devastatori" in applied.state.resolved_combats


def test_every_listed_action_of_a_blast_and_a_combat_is_accepted():
    """Each listed action at the extremes of its free options, from two states."""
    blast = g.Fire(unit="banda", target="squadra_tattica", distance=6, weapon="razzi")
    states = [
        _state_after([*TO_PREDONI_SHOOTING, (blast, PREDONI, [1])]),
        _state_after(TO_PREDONI_ASSAULT),
        _state_after([]),
        _state_after([(g.Next(), LEGIONE, [])]),
    ]
    for state in states:
        for action in legal.legal_actions(state):
            for pick in (0, -1):
                options = dict(action.options)
                for spec in action.free:
                    if spec.choices:
                        options[spec.name] = spec.choices[pick]
                    else:
                        options[spec.name] = spec.low if pick == 0 else spec.high
                PLAY.act(
                    state.model_dump(mode="json"),
                    Seat.of(action.side),
                    action.verb,
                    options,
                    SystemDice(),
                )


def test_moves_list_their_distance_range_and_nothing_beyond():
    state = _state_after([])
    actions = legal.legal_actions(state)
    moves = {a.unit: a for a in actions if a.verb == "move" and "target" not in a.options}
    assert set(moves) == {"squadra_tattica", "devastatori", "mezzo_corazzato"}  # not reserves
    assert moves["squadra_tattica"].free[0] == OptionSpec("distance", low=1, high=6)
    with pytest.raises(RulesError):
        g.apply(state, g.Move(unit="squadra_tattica", distance=7), SystemDice(), actor_side=LEGIONE)


def test_fire_lists_each_weapon_in_its_band():
    state = _state_after([(g.Next(), LEGIONE, [])])
    actions = [a for a in legal.legal_actions(state) if a.verb == "fire"]
    bands = {
        (a.unit, a.options["weapon"]): (a.free[0].low, a.free[0].high)
        for a in actions
        if a.target == "banda"
    }
    assert bands[("squadra_tattica", "fucile")] == (1, 24)  # did not move: full range
    assert bands[("devastatori", "cannone_laser")] == (1, 48)
    assert bands[("squadra_tattica", "pistola")] == (1, 12)


def test_reserve_rolls_belong_to_the_reserves_side():
    """The other player's /turn next starts Legione's turn 2: its reserve die is not theirs."""
    state = _state_after([*TO_PREDONI_ASSAULT])
    typed = ScriptedDice([], by_hand=True)  # Predoni typed no die: the roll is not theirs
    bot = ScriptedDice([4])
    applied = g.apply(state, g.Next(), typed, actor_side=PREDONI, other_dice=bot)
    assert applied.state.active == LEGIONE and applied.state.turn == 2
    assert applied.state.units["veterani"].location == "arriving"
    assert bot.consumed == 1
    assert [(r.face, r.side, r.by_hand) for r in applied.tray.rolls] == [(4, LEGIONE, False)]


def test_saves_are_rolled_by_the_target_side():
    """SEQUENZA DI TIRO step 5 (and 'Gli avversari effettuano i tiri protezione')."""
    state = _state_after([(g.Next(), LEGIONE, [])])
    typed = ScriptedDice([6, 6, 6, 6, 6, 6], by_hand=True)  # 3 to hit (3+), 3 to wound (5+)
    bot = ScriptedDice([1, 1, 1])  # the bikes' three 4+ saves, rolled for Predoni
    fire = g.Fire(unit="devastatori", target="motopredoni", distance=20, weapon="fucile")
    applied = g.apply(state, fire, typed, actor_side=LEGIONE, other_dice=bot)
    assert typed.consumed == 6 and bot.consumed == 3
    sides = [r.side for r in applied.tray.rolls]
    assert sides == [LEGIONE] * 6 + [PREDONI] * 3
    assert not applied.state.units["motopredoni"].alive


def test_in_close_combat_each_side_rolls_its_own_blows_and_saves():
    state = _state_after(TO_PREDONI_ASSAULT)
    assault = g.Assault(unit="camminatore", target="devastatori", distance=5)
    state = g.apply(state, assault, ScriptedDice([]), actor_side=PREDONI).state
    # Predoni type the walker's 4 attacks (4+) and 3 wounds (2+) only.
    typed = ScriptedDice([4, 4, 4, 1, 2, 2, 2], by_hand=True)
    # Legione's dice: the devastators' 5 attacks (3+), 2 penetration rolls, then 3 saves.
    bot = ScriptedDice([3, 3, 1, 1, 1, 6, 6, 1, 1, 6])
    applied = g.apply(
        state, g.Combat(unit="camminatore"), typed, actor_side=PREDONI, other_dice=bot
    )
    typed.ensure_consumed()
    bot.ensure_consumed()
    assert applied.state.units["devastatori"].models == 3
