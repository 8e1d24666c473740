"""Seeded whole campaigns in the default test command, in every ruleset, on both store
backends: random legal campaign actions to the campaign's end, the invariants checked after
every step (tests/fuzz/campaign.py; ``bench/fuzz.py --campaign`` runs more seeds). Then the
fuzzer's own checks: with a bug put back it fails, and its oracles catch a bad log."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import Any
from unittest.mock import patch

import pytest

import bot.service.campaign.follow  # noqa: F401 - the module the check patches
from rules.campaign.aftermath import EntryAftermath, FateRoll, Snapshot
from rules.campaign.events import (
    CampaignAdjust,
    CampaignAftermath,
    CampaignConfirm,
    CampaignCreated,
    CampaignGame,
    CampaignJoined,
    CampaignResult,
    CampaignReversal,
    CampaignRoster,
)
from rules.campaign.roster import Roster, RosterEntry, rosters_hash
from rules.campaign.rules import Replacements, campaign_rules
from rules.campaign.state import CampaignState, apply, replay
from rules.core.errors import RulesError
from rules.core.ruleset import KNOWN_RULESETS
from tests.fuzz import campaign_checks
from tests.fuzz.campaign import CampaignRun, CampaignSizes, play_campaign
from tests.fuzz.campaign_checks import held_twice, link_problems, log_problems, roster_problems
from tests.fuzz.campaign_race import race_campaign
from tests.fuzz.campaign_refusals import BAD_COMMANDS

#: Every bundled ruleset with campaign rules: a fifth is fuzzed by its folder alone.
RULESETS = tuple(key for key in KNOWN_RULESETS if campaign_rules(key) is not None)
#: Seeds per ruleset on SQLite, tried first: between them they took every action of
#: EXERCISED when chosen (`bench/fuzz.py --campaign` runs any number); one on PostgreSQL.
SQLITE_SEEDS = {"manovra": (4, 6), "linea_gotica": (1, 5), "pzgren": (4, 10), "w40k4": (1, 6)}
PG_SEED = 2
#: A change of the rules or of the table of actions changes what a seed plays: further seeds
#: are tried, in order, until every action of EXERCISED was taken, at most this many runs.
MAX_RUNS = 5
FURTHER_SEEDS = range(1, 40)
#: Actions every ruleset's runs must have taken, else they tested less than they say.
EXERCISED = (
    "join",
    "link a game",
    "play",
    "view",
    "undo a game's end",
    "rewind to a game's end",
    "an unlinked game",
    "retry",
    "end the campaign",
    "ended by end",
    "ended by concede",
    "ended by decide",
)
#: Actions between games (tests/fuzz/campaign_between.py) some ruleset's runs must take,
#: and a refusal that needs a campaign ended on a game whose aftermath was never rolled.
EXERCISED_SOMEWHERE = (
    "refused: a game's end undone after the end",
    "aftermath bot dice",
    "aftermath typed",
    "dispute an aftermath",
    "confirm by a player",
    "confirm by the referee",
    "refused: a game's end undone once built on",
    "adjust",
    "show a roster",
    "set a roster from a file",
    "export",
    "days pass",
    "overdue extend",
    # "overdue forfeit" or "overdue draw": both end the game by the referee's decision.
    "overdue forfeit|overdue draw",
    "a campaign from a book",
    "link leaving a unit",
    # A game linked while another holds some units: parallel games stay possible.
    "link beside a game holding units",
    # The notices of the campaign's kinds, judged after every step (tests/fuzz/notices.py).
    "notice: owed",
    "notice: roster",
    "notice: linked",
)
#: Every row of the table of bad commands (``bench/fuzz.py --campaign`` reaches them all).
ALL_REFUSED = frozenset(f"refused: {bad.name}" for bad in BAD_COMMANDS)


def assert_clean(run: CampaignRun) -> None:
    """No failure; the campaign linked its games, entered their results and ended."""
    assert not run.failures, "\n".join(run.failures)
    assert run.ended, run.describe()
    assert run.results >= run.sizes.games, run.describe()
    assert run.results == run.sizes.games + run.reversals, run.describe()
    assert run.actions["link a game"] == run.sizes.games, run.describe()
    assert sum(n for a, n in run.actions.items() if a.startswith("refused: ")), run.describe()


#: What each ruleset's runs did (once every ruleset ran, the union is checked).
DONE: dict[str, set[str]] = {}


@pytest.mark.parametrize("ruleset", RULESETS)
async def test_whole_campaigns_hold_their_invariants(ruleset: str, tmp_path: Path) -> None:
    done: Counter[str] = Counter()
    preferred = SQLITE_SEEDS.get(ruleset, (1, 2))  # a new ruleset starts from the first seeds
    seeds = [*preferred, *(seed for seed in FURTHER_SEEDS if seed not in preferred)]
    runs = 0
    for seed in seeds:
        missing = [action for action in EXERCISED if not done[action]]
        if (runs >= len(preferred) and not missing) or runs == MAX_RUNS:
            break
        run = await play_campaign(str(tmp_path / f"campaign-{seed}.db"), ruleset, seed)
        assert_clean(run)
        done.update(run.actions)
        runs += 1
    missing = [action for action in EXERCISED if not done[action]]
    # Past MAX_RUNS: pick SQLITE_SEEDS again so that the first runs do it all.
    assert not missing, f"{ruleset}: never done in {runs} runs: {missing}"
    DONE[ruleset] = set(done)
    if set(DONE) == set(RULESETS):  # every ruleset ran (not a -k selection of one)
        everywhere = set().union(*DONE.values())
        never = [
            action
            for action in EXERCISED_SOMEWHERE
            if not any(name in everywhere for name in action.split("|"))
        ]
        assert not never, f"never done in any ruleset: {never}"
        refused = len(ALL_REFUSED & everywhere)
        # Half the table at least in the suite's few runs (53 rows after this stop);
        # bench/fuzz.py --campaign reaches every row.
        assert refused >= len(ALL_REFUSED) // 2, f"only {refused} bad commands tried"


@pytest.mark.parametrize("ruleset", RULESETS)
async def test_whole_campaigns_on_postgresql(ruleset: str, pg_url: str) -> None:
    run = await play_campaign(pg_url, ruleset, PG_SEED, backend="postgres")
    assert_clean(run)


async def test_a_result_not_reversed_is_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fuzzer's own check: with the campaign blind to an undone end (it never reverses
    a result), the run fails on the undo that announced none, or on the game in play whose
    result the campaign still holds."""
    follow_module = sys.modules["bot.service.campaign.follow"]
    real = follow_module._settle

    async def never_reverse(
        services: Any, record: Any, state: Any, number: int, *a: Any, **k: Any
    ) -> Any:
        game = await services.store.load(a[0])
        if game.status != "ended":
            return record, state, []
        return await real(services, record, state, number, *a, **k)

    monkeypatch.setattr(follow_module, "_settle", never_reverse)
    run = await play_campaign(str(tmp_path / "blind.db"), "pzgren", 1, CampaignSizes())
    assert run.failures, run.describe()
    first = run.failures[0].split("\n")[0]
    assert "no reversal announced" in first or "its result still held" in first, first


async def test_a_unit_fielded_by_two_games_at_once_is_caught(tmp_path: Path) -> None:
    """The fuzzer's own check: with the campaign blind to the units its games hold (every
    unit free for the muster and the fold), a game linked beside another fields one of its
    units and the run fails, read from the games' documents."""
    with patch.object(CampaignState, "held_units", lambda _: {}):
        run = await play_campaign(str(tmp_path / "twice.db"), "w40k4", 1, CampaignSizes())
    assert run.failures, run.describe()
    first = run.failures[0].split("\n")[0]
    assert "is fielded by games" in first and "at once" in first, first


def test_the_held_oracle_reads_the_games_not_the_campaigns_record() -> None:
    """Two games in play fielding one entry are caught; once the first game's result is in
    and its aftermath confirmed, the second may field it."""
    log = [
        CREATED,
        CampaignRoster(side="x", roster=_roster("x", 4)),
        CampaignGame(number=1, channel=5, scenario="s"),
        CampaignGame(number=2, channel=6, scenario="s"),
    ]
    fielded = {1: {"x": {"a"}}, 2: {"x": {"a"}}}
    assert held_twice(replay(log), fielded) == ["x's a is fielded by games 1 and 2 at once"]
    settled = [
        *log,
        CampaignResult(number=1, winner="x", scores={}, ending="decision", final_hash="h"),
        CampaignAftermath(number=1, sides={"x": ()}),
        CampaignConfirm(number=1, side=None),
    ]
    assert held_twice(replay(settled), fielded) == []


def _roster(side: str, strength: int, status: str = "fit") -> Roster:
    entry = RosterEntry(id="a", name="A", strength=strength, full=4, status=status)
    return Roster(side=side, entries=(entry,))


CREATED = CampaignCreated(ruleset="w40k4", name="C", sides={"x": "X", "y": "Y"}, referee=1)


def _entered(final_hash: str) -> CampaignResult:
    return CampaignResult(
        number=1,
        winner="x",
        scores={},
        ending="decision",
        final_hash=final_hash,
        losses={"x": {"a": 2}},
    )


def test_the_roster_oracle_catches_strength_that_returns_and_the_dead(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Losses carried by a result, taken back by its reversal, carried again: clean. With
    the reversal no longer allowed to raise strength, it is caught; a dead entry set back
    to fit is caught."""
    carried = [
        CREATED,
        CampaignRoster(side="x", roster=_roster("x", 4)),
        CampaignGame(number=1, channel=5, scenario="s"),
        _entered("h"),
        CampaignReversal(number=1, final_hash="h"),
        _entered("h2"),
    ]
    assert roster_problems(carried) == []
    monkeypatch.setattr(campaign_checks, "RAISES_STRENGTH", frozenset({"campaign.roster"}))
    problems = roster_problems(carried)
    assert problems and "event 5 (campaign.reversal): x/a: strength 2 -> 4" in problems[0]
    monkeypatch.undo()
    dead_again = [
        CREATED,
        CampaignRoster(side="x", roster=_roster("x", 0, "dead")),
        CampaignRoster(side="x", roster=_roster("x", 4)),
    ]
    problems = roster_problems(dead_again)
    assert problems and "dead, then fit" in problems[0], problems


def test_the_log_oracle_catches_a_result_entered_twice_and_a_stray_reversal() -> None:
    def result(final_hash: str) -> CampaignResult:
        return CampaignResult(
            number=1, winner=None, scores={}, ending="decision", final_hash=final_hash
        )

    joined = CampaignJoined(side="x", user=2)
    linked = CampaignGame(number=1, channel=5, scenario="s")
    twice = [
        CREATED,
        joined,
        linked,
        result("h"),
        CampaignReversal(number=1, final_hash="h"),
        result("h"),
    ]
    assert "twice" in log_problems(twice)[0]
    stray = [CREATED, linked, result("h"), CampaignReversal(number=1, final_hash="other")]
    assert "not held" in log_problems(stray)[0]
    assert (
        log_problems(
            [CREATED, linked, result("h"), CampaignReversal(number=1, final_hash="h"), result("h2")]
        )
        == []
    )


def test_the_roster_oracle_holds_an_aftermath_to_its_dice_and_replacements() -> None:
    """An aftermath raises an entry by the dice that fell in a band that returns (read
    from the rules file) and the replacements the rules give the side: an honest one is
    clean; one replacing more than the rules give (still within full strength, which the
    fold allows) is caught."""
    losses = [
        CREATED,
        CampaignRoster(side="x", roster=_roster("x", 4)),
        CampaignGame(number=1, channel=5, scenario="s"),
        _entered("h"),  # x won; a lost 2: strength 2, casualties 2
    ]

    def aftermath(faces: tuple[int, ...], replaced: int) -> CampaignAftermath:
        fates = tuple(
            FateRoll(face=face, fate="returns" if face >= 4 else "dead") for face in faces
        )
        before = Snapshot(strength=2, casualties=2, experience=0, status="fit")
        back = sum(1 for face in faces if face >= 4)
        after = before.model_copy(update={"strength": 2 + back + replaced, "casualties": 0})
        entry = EntryAftermath(unit="a", fates=fates, replaced=replaced, before=before, after=after)
        return CampaignAftermath(number=1, sides={"x": (entry,)})

    # w40k4: 1-3 dead, 4-6 returns; the winner gets 1 + 1 replacements
    assert roster_problems([*losses, aftermath((1, 5), 1)]) == []
    assert roster_problems([*losses, aftermath((1, 2), 2)]) == []
    problems = roster_problems([*losses, aftermath((1, 1), 2)])
    assert problems == [], problems  # 2 replaced: what the winner gets
    rules = campaign_rules("w40k4")
    assert rules is not None
    stingy = rules.model_copy(update={"replacements": Replacements(per_game=0, won=0)})
    with patch.object(campaign_checks, "campaign_rules", lambda _: stingy):
        problems = roster_problems([*losses, aftermath((1, 5), 1)])
    assert problems and "the event allows +1" in problems[0], problems


def test_the_link_oracle_catches_a_game_mustered_from_other_rosters() -> None:
    """Each campaign.game carries the hash of the rosters as the log stood when it was
    linked: the true hash is clean, another is caught."""
    rosters = [CREATED, CampaignRoster(side="x", roster=_roster("x", 4))]
    true_hash = rosters_hash(replay(rosters).rosters)
    assert (
        link_problems(
            [*rosters, CampaignGame(number=1, channel=5, scenario="s", rosters_hash=true_hash)]
        )
        == []
    )
    stale = rosters_hash(
        replay([CREATED, CampaignRoster(side="x", roster=_roster("x", 3))]).rosters
    )
    problems = link_problems(
        [*rosters, CampaignGame(number=1, channel=5, scenario="s", rosters_hash=stale)]
    )
    assert problems and "game 1 linked with rosters hash" in problems[0]


def test_a_reversal_never_lifts_an_entry_above_a_full_strength_corrected_since() -> None:
    """Losses carried, then the entry's full strength corrected below what they would give
    back: the result's reversal is refused (the campaign keeps it and says so), never an
    entry above its full strength (found by the campaign fuzzer, manovra seed 1006)."""
    log = [
        CREATED,
        CampaignRoster(side="x", roster=_roster("x", 4)),
        CampaignGame(number=1, channel=5, scenario="s"),
        _entered("h"),  # a: strength 2, casualties 2
        CampaignAdjust(side="x", unit="a", field="full", value="3", reason="fix"),
    ]
    state = replay(log)
    with pytest.raises(RulesError):
        apply(state, CampaignReversal(number=1, final_hash="h"))


#: The race's seed and rounds in the default test command (under 20 s per backend);
#: ``race_campaign`` takes any seed and any number of rounds.
RACE_SEED, RACE_ROUNDS = 5, 60
#: Moves the race's processes must have had accepted, else it raced less than it says.
RACED = ("link ok", "decide ok", "undo ok", "aftermath ok", "confirm ok", "status ok")


@pytest.mark.parametrize("backend", ("sqlite", "postgres"))
async def test_two_processes_racing_campaign_commands_hold_the_invariants(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """Two services on two store connections to one database run the campaign's commands
    at once, round after round: every invariant holds after each round (tests/fuzz/
    campaign_race.py)."""
    url = request.getfixturevalue("pg_url") if backend == "postgres" else str(tmp_path / "r.db")
    run = await race_campaign(url, RACE_SEED, RACE_ROUNDS, backend=backend)
    assert not run.failures, "\n".join(run.failures)
    assert run.rounds >= RACE_ROUNDS // 2, run.describe()
    assert all(run.outcomes.get(move) for move in RACED), run.describe()


async def test_the_race_oracle_catches_a_campaign_that_never_follows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race's own check: with the campaign blind to its games' ends (it never enters a
    result, not even on ``/campaign status``), the run fails once a game has ended."""
    follow_module = sys.modules["bot.service.campaign.follow"]

    async def blind(services: Any, record: Any, state: Any, *a: Any, **k: Any) -> Any:
        return record, state, []

    monkeypatch.setattr(follow_module, "_settle", blind)
    run = await race_campaign(str(tmp_path / "blind.db"), RACE_SEED, RACE_ROUNDS)
    assert run.failures, run.describe()
    assert "ended, after a catch-up the campaign holds None" in run.failures[0], run.failures
