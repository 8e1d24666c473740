"""Hypothesis over every command's options: a result or a clear error, never a crash,
and never a changed state after an error."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.service import GAME_VERBS, GameService, Request
from db.sqlite import SqliteStore
from rules.core.dice import SystemDice
from rules.core.errors import RulesError
from rules.manovra.commands import VERBS

CHANNEL = 77
USERS = [1, 2, 3, 4]  # referee, Allies, Axis, stranger

names = st.sampled_from(
    [
        "squadra_1",
        "gruppe_1",
        "panzer_iv",
        "sherman_1",
        "plotone_fucilieri",
        "zug_1",
        "batteria_105",
        "if1-1",
        "piano_boscoso",
        "campi_minati",
        "alleati",
        "asse",
        "AP",
        "HE",
        "CT",
        "SF",
        "tattico",
        "hold",
        "cauto",
        "front",
    ]
)
odd_text = st.text(min_size=0, max_size=300)
numbers = st.one_of(
    st.integers(-(10**9), 10**9),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["12", "-3", "1e9", "nan", "∞", "٣"]),
)
value = st.one_of(names, odd_text, numbers, st.booleans(), st.none())
option_names = st.sampled_from(
    [
        "unit",
        "target",
        "distance",
        "weapon",
        "ammo",
        "facing",
        "terrain",
        "kind",
        "via",
        "platoon",
        "battery",
        "link",
        "sight",
        "marker",
        "side",
        "count",
        "hours",
        "seq",
        "scenario",
        "language",
        "ruleset",
        "models",
        "location",
        "move_terrain",
        "move_distance",
        "opponent",
        "conceal",
        "bogus",
    ]
)
dice_text = st.one_of(
    st.none(), st.sampled_from(["1", "6,3", "9,9,9", "0", "x", "", "1 2 3 4"]), st.text(max_size=40)
)
requests = st.builds(
    lambda user, verb, options, dice: (user, verb, options, dice),
    st.sampled_from(USERS),
    st.sampled_from([*GAME_VERBS, *VERBS, "turn.next", "bogus.verb"]),
    st.dictionaries(option_names, value, max_size=6),
    dice_text,
)


def test_every_command_gives_a_result_or_a_clear_error():
    loop = asyncio.new_event_loop()
    folder = tempfile.TemporaryDirectory()
    store = loop.run_until_complete(SqliteStore.open(str(Path(folder.name) / "p.db")))
    service = GameService(store, dice=SystemDice())

    async def setup() -> None:
        await service.handle(Request(CHANNEL, 1, "game.new", {"scenario": "esempio_normandia"}))
        await service.handle(Request(CHANNEL, 2, "game.join", {"side": "alleati"}))
        await service.handle(Request(CHANNEL, 3, "game.join", {"side": "asse"}))

    loop.run_until_complete(setup())
    counter = iter(range(10**9))
    outcomes = {"ok": 0, "refused": 0}

    @settings(
        max_examples=400,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )
    @given(requests)
    def run(case):
        user, verb, options, dice = case
        if verb in ("game.end", "game.new"):
            return  # ending or recreating the game would stop the exploration early
        before = loop.run_until_complete(store.load(CHANNEL))
        request = Request(
            CHANNEL, user, verb, options, dice=dice, interaction_id=f"h{next(counter)}"
        )
        try:
            loop.run_until_complete(service.handle(request))
            outcomes["ok"] += 1
        except RulesError as error:
            outcomes["refused"] += 1
            for language in ("it", "en", "fr"):
                assert error.localized(language)
            after = loop.run_until_complete(store.load(CHANNEL))
            assert (after.version, after.document) == (before.version, before.document)

    try:
        run()
        # The exploration must reach accepted commands too, not only refusals.
        assert outcomes["ok"] >= 10, outcomes
    finally:
        loop.run_until_complete(store.close())
        loop.close()
        folder.cleanup()
