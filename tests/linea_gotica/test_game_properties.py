"""Random command sequences through the game: only RulesError may escape, a refusal never
changes the state, and every state reached survives a JSON round trip."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.core.dice import DiceSource, Die
from rules.core.errors import RulesError
from rules.linea_gotica import turn as g
from rules.linea_gotica.commands import build_command
from rules.linea_gotica.scenario import load_bundled

STATE = g.new_game(load_bundled("esempio_gotica"))
UNITS = list(STATE.units)
WORDS = ["casolare", "siepe", "m1", "m2", "b3", "campo_minato", "x"]
WEAPONS = list(STATE.weapons)


class Seeded:
    """Dice from a seeded generator (the sequence is part of the example)."""

    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)

    @property
    def by_hand(self) -> bool:
        return False

    def face(self, die: Die, label: str) -> int:
        return self.random.randint(1, die.sides)


def options(verb: str) -> st.SearchStrategy[dict[str, object]]:
    unit = st.sampled_from(UNITS)
    anything = st.sampled_from(UNITS + WORDS)
    common = {
        "turn.next": st.fixed_dictionaries(
            {}, optional={"order": st.sampled_from(["first", "second"])}
        ),
        "move": st.fixed_dictionaries(
            {"unit": unit},
            optional={
                "kind": st.sampled_from(
                    ["cauto", "normale", "corsa", "strada", "fuori_strada", "sali", "scendi"]
                ),
                "distance": st.integers(0, 40),
                "mods": st.sampled_from(["", "ferito", "alzarsi_sdraiarsi", "porta,finestra"]),
                "cover": st.sampled_from(["nessuna", "leggera", "pesante"]),
                "hidden": st.booleans(),
                "vehicle": st.sampled_from(["sherman", "stug"]),
                "minefield": st.sampled_from(["campo_minato"]),
            },
        ),
        "fire": st.fixed_dictionaries(
            {"unit": unit, "target": anything, "distance": st.integers(0, 120)},
            optional={
                "weapon": st.sampled_from(WEAPONS),
                "mode": st.sampled_from(["singolo", "area"]),
                "kind": st.sampled_from(["normale", "copertura"]),
                "man": st.integers(1, 9),
                "models": st.integers(1, 8),
                "models_long": st.integers(0, 3),
                "facing": st.sampled_from(["fronte", "fianco"]),
            },
        ),
        "test": st.fixed_dictionaries(
            {"unit": unit},
            optional={
                "kind": st.sampled_from(
                    [
                        "azione",
                        "mirare",
                        "piazzare",
                        "ricaricare",
                        "medicare",
                        "scavare",
                        "osservare",
                        "mine",
                        "comando",
                        "fumo",
                    ]
                ),
                "difficulty": st.sampled_from(["facile", "difficile"]),
                "target": anything,
                "man": st.integers(1, 9),
                "distance": st.integers(0, 20),
                "minefield": st.just("campo_minato"),
                "weapon": st.sampled_from(WEAPONS),
                "turns": st.integers(1, 3),
            },
        ),
        "morale": st.fixed_dictionaries(
            {"unit": unit},
            optional={
                "reason": st.sampled_from(["avanzare", "tabelle", "boh"]),
                "enemy_near": st.booleans(),
                "air": st.booleans(),
            },
        ),
        "callarty": st.fixed_dictionaries(
            {
                "unit": unit,
                "battery": st.sampled_from(["mortai_81", "p47", "batteria_105"]),
                "target": st.sampled_from(WORDS),
            }
        ),
        "execute": st.fixed_dictionaries(
            {"marker": st.sampled_from(["m1", "m2", "m3"])},
            optional={
                "order": st.sampled_from(["tiro", "effetto", "aggiusta", "fine", "mitraglia"]),
                "ammo": st.sampled_from(["he", "fumo"]),
            },
        ),
        "fragments": st.fixed_dictionaries(
            {"target": unit, "marker": st.sampled_from(["m1", "m2", "b1", "b2", "b3"])},
            optional={"ring": st.sampled_from(["breve", "lunga"]), "models": st.integers(1, 4)},
        ),
    }
    return common[verb]


VERBS = ["turn.next"] * 4 + ["move", "fire", "test", "morale", "callarty", "execute", "fragments"]
step = st.sampled_from(VERBS).flatmap(
    lambda verb: st.tuples(
        st.just(verb), options(verb), st.sampled_from([None, "alleati", "tedeschi"])
    )
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=st.lists(step, min_size=10, max_size=60), seed=st.integers(0, 10_000))
def test_random_play_never_crashes(steps, seed):
    state = STATE
    dice: DiceSource = Seeded(seed)
    for verb, opts, side in steps:
        before = state.model_dump(mode="json")
        try:
            command = build_command(verb, opts)
            applied = g.apply(state, command, dice, actor_side=side)
        except RulesError:
            assert state.model_dump(mode="json") == before
            continue
        state = applied.state
        assert g.load_state(state.model_dump(mode="json")) == state
        for resolution in applied.resolutions:
            resolution.to_json()
