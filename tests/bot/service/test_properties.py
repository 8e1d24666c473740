"""Hypothesis over every ruleset's commands, `game.new` with uploaded files and `game.end`:
a result or a clear error, never a crash, and never a changed game after a refusal."""

from __future__ import annotations

import asyncio
import random
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.app import loop as app_loop
from bot.service import GAME_VERBS, GameService, Request
from bot.service.stored import deadlines as stored_deadlines
from db.drivers.sqlite import SqliteStore
from db.errors import GameNotFound
from rules.core.errors import RulesError
from rules.core.legal import LegalAction
from rules.core.ruleset import get_ruleset
from rules.core.seatview import REFEREE as REFEREE_SEAT
from rules.core.surface import Rules
from tests.core.test_scenario_hostile import HOSTILE
from tests.fuzz.harness import SeededDice, bundled_games, fill_options

CHANNEL = 77
REFEREE, STRANGER, FIRST_PLAYER = 1, 2, 100
LANGUAGES = ("it", "en", "fr")

# One bundled scenario per ruleset: every ruleset is explored.
GAMES = sorted(dict(bundled_games()).items())
RULES_ROOT = Path(__file__).resolve().parents[3] / "rules"

odd_text = st.text(min_size=0, max_size=300)
numbers = st.one_of(
    st.integers(-(10**9), 10**9),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["12", "-3", "1e9", "nan", "∞", "٣", "9" * 400]),
)
COMMON_OPTIONS = [
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
    "expression",
    "reason",
    "bogus",
]
dice_text = st.one_of(
    st.none(), st.sampled_from(["1", "6,3", "9,9,9", "0", "x", "", "1 2 3 4"]), st.text(max_size=40)
)
SETTINGS = settings(
    max_examples=250,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@contextmanager
def service_on_a_file(seed: int) -> Iterator[tuple[asyncio.AbstractEventLoop, Any, GameService]]:
    """A service on a real SQLite file, with seeded dice, driven from synchronous tests."""
    loop = app_loop.new_event_loop()
    folder = tempfile.TemporaryDirectory()
    store = loop.run_until_complete(SqliteStore.open(str(Path(folder.name) / "p.db")))
    try:
        yield loop, store, GameService(store, dice=SeededDice(random.Random(seed)))
    finally:
        loop.run_until_complete(store.close())
        loop.close()
        folder.cleanup()


async def snapshot(store: Any, channel: int) -> tuple[Any, ...]:
    """Everything a refused command must leave as it was."""
    record = await store.load(channel)
    members = [(m.user_id, m.role, m.side) for m in await store.members(channel)]
    deadlines = [(d.side, d.due_at) for d in await stored_deadlines.deadlines(store, channel)]
    return record.version, record.status, record.document, members, deadlines


def vocabulary(play: Rules, document: dict[str, Any]) -> list[str]:
    """Names the game knows (sides, units, option values) plus a few it does not."""
    names: dict[str, None] = dict.fromkeys(play.sides(document))
    for action in play.view(document, REFEREE_SEAT).every_legal:
        for value in action.options.values():
            names[str(value)] = None
        for spec in action.free:
            names.update(dict.fromkeys(spec.choices))
    names.update(dict.fromkeys(["nessuno", "AP", "HE", "front", "🎲", ""]))
    return list(names)


def assert_clear(error: RulesError) -> None:
    for language in LANGUAGES:
        text = error.localized(language)
        assert text and "Traceback" not in text


@pytest.mark.parametrize(("ruleset", "scenario"), GAMES)
def test_every_command_of_every_ruleset_gives_a_result_or_a_clear_error(
    ruleset: str, scenario: str
) -> None:
    play = get_ruleset(ruleset).rules
    assert play is not None
    with service_on_a_file(seed=len(ruleset)) as (loop, store, service):
        counter = iter(range(10**9))

        def send(user: int, verb: str, options: dict[str, Any], dice: str | None = None) -> Any:
            request = Request(
                CHANNEL, user, verb, options, dice=dice, interaction_id=f"h{next(counter)}"
            )
            return loop.run_until_complete(service.handle(request))

        send(REFEREE, "game.new", {"ruleset": ruleset, "scenario": scenario})
        document = loop.run_until_complete(store.load(CHANNEL)).document
        seats = {side: FIRST_PLAYER + i for i, side in enumerate(play.sides(document))}
        for side, user in seats.items():
            send(user, "game.join", {"side": side})
        users = [REFEREE, STRANGER, *seats.values()]
        names = vocabulary(play, document)
        option_names = sorted(
            {*COMMON_OPTIONS}
            | {key for a in play.view(document, REFEREE_SEAT).every_legal for key in a.options}
            | {spec.name for a in play.view(document, REFEREE_SEAT).every_legal for spec in a.free}
        )
        values = st.one_of(st.sampled_from(names), odd_text, numbers, st.booleans(), st.none())
        verbs = [*GAME_VERBS, *play.verbs(), "bogus.verb"]
        outcomes = {"ok": 0, "refused": 0, "ended": 0}

        # Every draw is made whatever the game's state, so Hypothesis sees one consistent
        # data stream while the game (shared across examples) evolves.
        cases = st.tuples(
            st.booleans(),
            st.integers(0, 10**6),
            st.integers(0, 2**32),
            st.sampled_from(users),
            st.sampled_from(verbs),
            st.dictionaries(st.sampled_from(option_names), values, max_size=6),
            dice_text,
        )

        @SETTINGS
        @given(cases)
        def run(case: tuple[Any, ...]) -> None:
            use_legal, index, seed, user, verb, options, dice = case
            record = loop.run_until_complete(store.load(CHANNEL))
            legal = play.view(
                play.document_format.upgrade(record.document), REFEREE_SEAT
            ).every_legal
            if legal and use_legal:
                # A listed action with random free options: reaches deep states.
                action: LegalAction = legal[index % len(legal)]
                verb = action.verb
                user = REFEREE if action.side is None else seats.get(action.side, REFEREE)
                options = fill_options(action, random.Random(seed))
                dice = None
            elif index % 20 == 0:
                user, verb = REFEREE, "game.end"  # now and then the referee ends the game
            before = loop.run_until_complete(snapshot(store, CHANNEL))
            try:
                send(user, verb, options, dice)
                outcomes["ok"] += 1
            except RulesError as error:
                outcomes["refused"] += 1
                assert_clear(error)
                after = loop.run_until_complete(snapshot(store, CHANNEL))
                assert after == before, (verb, options, error.key)
            if loop.run_until_complete(store.load(CHANNEL)).status == "ended":
                # game.end took: its state is ended; reopen it so exploration goes on.
                outcomes["ended"] += 1
                send(REFEREE, "game.undo", {})
                assert loop.run_until_complete(store.load(CHANNEL)).status != "ended"

        run()
        # The exploration must reach accepted commands too, not only refusals.
        assert outcomes["ok"] >= 10 and outcomes["refused"] >= 10, outcomes
        assert outcomes["ended"] >= 1, outcomes
        assert loop.run_until_complete(store.check()) == []


def _bundled_text(ruleset: str, scenario: str) -> str:
    return (RULES_ROOT / ruleset / "scenarios" / f"{scenario}.yaml").read_text(encoding="utf-8")


def uploads(text: str) -> st.SearchStrategy[tuple[str, str]]:
    """(kind, file text): the valid file, mutations of it, hostile files, random bytes."""
    lines = text.splitlines()

    @st.composite
    def mutated(draw: st.DrawFn) -> str:
        edited = list(lines)
        for _ in range(draw(st.integers(1, 3))):
            index = draw(st.integers(0, len(edited) - 1))
            how = draw(st.sampled_from(["replace", "delete", "duplicate", "indent", "truncate"]))
            if how == "replace":
                edited[index] = draw(st.text(max_size=40))
            elif how == "delete":
                del edited[index]
            elif how == "duplicate":
                edited.insert(index, edited[index])
            elif how == "indent":
                edited[index] = "  " + edited[index]
            else:
                edited = edited[: index + 1]
            if not edited:
                break
        return "\n".join(edited)

    random_bytes = st.binary(max_size=600).map(lambda b: b.decode("utf-8", errors="replace"))
    return st.one_of(
        st.just(("valid", text)),
        mutated().map(lambda t: ("mutated", t)),
        st.sampled_from(sorted(HOSTILE)).map(lambda case: ("hostile", HOSTILE[case][0])),
        random_bytes.map(lambda t: ("bytes", t)),
    )


@pytest.mark.parametrize(("ruleset", "scenario"), GAMES)
def test_game_new_with_uploaded_files_and_game_end(ruleset: str, scenario: str) -> None:
    with service_on_a_file(seed=7) as (loop, store, service):
        channels = iter(range(1000, 10**9))
        kinds: dict[str, int] = {}
        created = {"ok": 0}

        def send(channel: int, user: int, verb: str, **extra: Any) -> Any:
            options = extra.pop("options", {})
            return loop.run_until_complete(
                service.handle(Request(channel, user, verb, options, **extra))
            )

        @settings(
            max_examples=150,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        )
        @given(uploads(_bundled_text(ruleset, scenario)), st.sampled_from(LANGUAGES))
        def run(upload: tuple[str, str], language: str) -> None:
            kind, text = upload
            kinds[kind] = kinds.get(kind, 0) + 1
            channel = next(channels)
            options = {"ruleset": ruleset, "language": language}
            try:
                reply = send(channel, REFEREE, "game.new", options=options, attachment=text)
            except RulesError as error:
                assert kind != "valid", error.key
                assert_clear(error)
                with pytest.raises(GameNotFound):  # nothing half-created
                    loop.run_until_complete(store.load(channel))
                return
            created["ok"] += 1
            assert reply.status is not None and reply.head_hash
            assert loop.run_until_complete(store.load(channel)).ruleset == ruleset
            send(channel, REFEREE, "game.status")
            # game.end: refused to anyone but the referee, with nothing changed; then it ends.
            before = loop.run_until_complete(snapshot(store, channel))
            with pytest.raises(RulesError) as caught:
                send(channel, STRANGER, "game.end")
            assert_clear(caught.value)
            assert loop.run_until_complete(snapshot(store, channel)) == before
            send(channel, REFEREE, "game.end", options={"reason": "fine"})
            assert loop.run_until_complete(store.load(channel)).status == "ended"
            with pytest.raises(RulesError) as caught:
                send(channel, REFEREE, "game.end")
            assert_clear(caught.value)

        run()
        assert created["ok"] >= 1 and kinds.get("hostile", 0) >= 1, (created, kinds)
        assert loop.run_until_complete(store.check()) == []
