"""Ranks and the promotion ladder agree, and a promotion is fielded: an entry made from a
scenario starts on its unit's rung (linea_gotica quality, manovra AD, the first rung where
units have neither), the muster writes an entry's rank back into its unit, and a ladder
naming a rank the muster cannot field is refused when its file is read."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

import rules.campaign.rules as campaign_rules_module
from rules.campaign.events import (
    CampaignAdjust,
    CampaignCreated,
    CampaignEvent,
    CampaignGame,
    CampaignResult,
    CampaignRoster,
)
from rules.campaign.postbattle import roll_aftermath
from rules.campaign.roster import RosterEntry
from rules.campaign.rules import (
    CampaignRules,
    campaign_rules,
    check_ladder,
    parse_campaign_rules,
    rank_words,
)
from rules.campaign.state import CampaignState, apply, replay
from rules.core.dice import ScriptedDice
from rules.core.errors import InvalidInput
from rules.core.ruleset import KNOWN_RULESETS, get_ruleset
from rules.linea_gotica.model import Quality
from rules.linea_gotica.muster import muster
from rules.linea_gotica.scenario import load_bundled
from tests.campaign.test_rules import _text

CASES = {
    "linea_gotica": ("esempio_gotica", {"alleati": "Alleati", "tedeschi": "Tedeschi"}),
    "manovra": ("esempio_normandia", {"alleati": "Alleati", "asse": "Asse"}),
}
#: The unit field a rank is written into.
FIELD = {"linea_gotica": "quality", "manovra": "ad"}


def _rules(key: str) -> CampaignRules:
    rules = campaign_rules(key)
    assert rules is not None
    return rules


def _first_game_won(key: str) -> list[CampaignEvent]:
    """A campaign whose rosters are the scenario's sides and whose game 1 the first side
    won without losses."""
    scenario, sides = CASES[key]
    muster = get_ruleset(key).muster
    winner = next(iter(sides))
    return [
        CampaignCreated(ruleset=key, name="Ranks", sides=sides, referee=1),
        *(CampaignRoster(side=side, roster=muster.roster_of(scenario, side)) for side in sides),
        CampaignGame(number=1, channel=20, scenario=scenario),
        CampaignResult(
            number=1,
            winner=winner,
            scores={side: int(side == winner) for side in sides},
            ending="turn_limit",
            final_hash="h1",
            losses={},
        ),
    ]


def _entry(state: CampaignState, unit: str) -> RosterEntry:
    found = next(
        (e for roster in state.rosters.values() for e in roster.entries if e.id == unit), None
    )
    assert found is not None
    return found


def _fielded(key: str, state: CampaignState, unit: str) -> Any:
    """The value of the unit's rank field in game 2 mustered from the campaign's rosters."""
    document = get_ruleset(key).muster.muster(CASES[key][0], state.rosters, 2)
    return document["units"][unit][FIELD[key]]


@pytest.mark.parametrize("key", sorted(KNOWN_RULESETS))
def test_every_bundled_ladder_is_fieldable_and_every_scenario_unit_starts_on_it(key: str) -> None:
    rules = _rules(key)
    muster = get_ruleset(key).muster
    ranks = {rung.rank for rung in rules.promotion}
    scenarios = sorted(get_ruleset(key).play.scenario.bundled_scenarios())
    for scenario in scenarios:
        for side in muster.units(scenario):
            for entry in muster.roster_of(scenario, side).entries:
                assert entry.rank in ranks, (scenario, entry.id, entry.rank)
    assert scenarios
    if not muster.rank_fields:  # no field to read a rank from: every unit starts at the bottom
        first = muster.roster_of(scenarios[0], next(iter(muster.units(scenarios[0]))))
        assert {entry.rank for entry in first.entries} == {rules.promotion[0].rank}


@pytest.mark.parametrize(
    ("key", "unit", "before", "promoted", "after"),
    [
        # squadra_1 is veterani (12 experience): 9 more and a won game (+3) reach elite (20)
        ("linea_gotica", "squadra_1", "veterani", "elite", "elite"),
        # squadra_1 is AD 1, operativi (4): 7 more and a won game (+3) reach veterani (10)
        ("manovra", "squadra_1", 1, "veterani", 2),
    ],
)
def test_a_unit_promoted_by_its_aftermath_is_fielded_at_its_new_rank(
    key: str, unit: str, before: Any, promoted: str, after: Any
) -> None:
    log = _first_game_won(key)
    state = replay(log)
    side = next(s for s, r in state.rosters.items() if r.entry(unit) is not None)
    assert _fielded(key, state, unit) == before  # unpromoted, the scenario's own value
    needed = next(r.experience for r in _rules(key).promotion if r.rank == promoted)
    state = apply(
        state,
        CampaignAdjust(
            side=side, unit=unit, field="experience", value=str(needed - 3), reason="xp"
        ),
    )
    state = apply(state, roll_aftermath(state, 1, _rules(key), ScriptedDice([])))
    assert _entry(state, unit).rank == promoted
    assert _fielded(key, state, unit) == after


@pytest.mark.parametrize(
    ("key", "unit", "rank", "after"),
    [("linea_gotica", "bazooka", "reclute", "reclute"), ("manovra", "gruppe_1", "elite", 3)],
)
def test_a_rank_set_by_the_referee_is_fielded(key: str, unit: str, rank: str, after: Any) -> None:
    state = replay(_first_game_won(key)[:-2])
    side = next(s for s, r in state.rosters.items() if r.entry(unit) is not None)
    state = apply(state, CampaignAdjust(side=side, unit=unit, field="rank", value=rank, reason="r"))
    assert _fielded(key, state, unit) == after


def test_a_rank_off_the_ladder_keeps_the_scenarios_value() -> None:
    state = replay(_first_game_won("manovra")[:-2])
    state = apply(
        state,
        CampaignAdjust(
            side="alleati", unit="squadra_1", field="rank", value="sergente", reason="r"
        ),
    )
    assert _fielded("manovra", state, "squadra_1") == 1


@pytest.mark.parametrize(
    ("old", "new", "needle"),
    [
        # a rank the muster cannot field: AD 7 does not exist
        (
            "{rank: elite, experience: 18, unit: {ad: 3},",
            "{rank: elite, experience: 18, unit: {ad: 7},",
            "'elite' is not one the muster can field",
        ),
        # a rank with no unit values: a leader's rank is not a training class
        (
            "{rank: elite, experience: 18, unit: {ad: 3},",
            "{rank: sergente, experience: 18,",
            "'sergente' is not one the muster can field",
        ),
        # a field the muster does not write
        (
            "{rank: elite, experience: 18, unit: {ad: 3},",
            "{rank: elite, experience: 18, unit: {ad: 3, morale: 1},",
            "sets morale, which the muster does not field",
        ),
        # AD 3 left without a rank: a scenario's elite unit would start off the ladder
        (
            "  - {rank: elite, experience: 18, unit: {ad: 3},"
            " name: {it: elite, en: elite, fr: élite}}\n",
            "",
            "no rank for ad 3",
        ),
    ],
)
def test_a_ladder_naming_a_rank_the_muster_cannot_field_is_refused(
    old: str, new: str, needle: str
) -> None:
    text = _text()
    assert old in text
    rules = parse_campaign_rules(text.replace(old, new), "manovra/campaign.yaml")
    with pytest.raises(ValueError) as caught:
        check_ladder(rules, get_ruleset("manovra").muster.rank_fields, "manovra/campaign.yaml")
    assert str(caught.value).startswith("manovra/campaign.yaml: promotion:")
    assert needle in str(caught.value)


def test_a_ladder_without_unit_values_is_refused_where_units_have_none() -> None:
    text = _text("w40k4").replace(
        "{rank: pronti, experience: 0,", "{rank: pronti, experience: 0, unit: {ad: 0},"
    )
    assert "unit: {ad: 0}" in text
    rules = parse_campaign_rules(text, "w40k4/campaign.yaml")
    with pytest.raises(ValueError, match="which the muster does not field"):
        check_ladder(rules, get_ruleset("w40k4").muster.rank_fields, "w40k4/campaign.yaml")


def test_every_rank_has_its_words_in_each_language() -> None:
    """A rank is read in the campaign's language (an English campaign of pzgren shows
    'recruits', not the id 'recrues'); a rank off the ladder is shown as written."""
    campaigned = [key for key in KNOWN_RULESETS if campaign_rules(key) is not None]
    assert campaigned, "the bundled rulesets have campaign rules"
    for ruleset in campaigned:
        rules = campaign_rules(ruleset)
        assert rules is not None
        for rung in rules.promotion:
            assert sorted(rung.name) == ["en", "fr", "it"], (ruleset, rung.rank)
    pzgren = campaign_rules("pzgren")
    assert pzgren is not None
    assert pzgren.rank_name("recrues", "en") == "recruits"
    assert pzgren.rank_name("recrues", "it") == "reclute"
    manovra = campaign_rules("manovra")
    assert manovra is not None and manovra.rank_name("veterani", "fr") == "vétérans"
    assert pzgren.rank_name("sergent", "en") == "sergent"
    assert rank_words("pzgren", None, "en") == "—"


def test_a_rank_named_in_an_unknown_language_is_refused() -> None:
    text = _text("w40k4").replace("en: ready,", "de: bereit,")
    with pytest.raises(InvalidInput) as caught:
        parse_campaign_rules(text, "w40k4/campaign.yaml")
    assert "unknown language de" in caught.value.localized("en")


def test_the_ladder_is_checked_against_the_muster_when_the_file_is_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A manovra whose units could hold AD 4: its ladder has no rank for it.
    wider = SimpleNamespace(muster=SimpleNamespace(rank_fields={"ad": (0, 1, 2, 3, 4)}))
    monkeypatch.setattr(campaign_rules_module, "get_ruleset", lambda key: wider)
    campaign_rules.cache_clear()
    try:
        with pytest.raises(ValueError, match="no rank for ad 4"):
            campaign_rules("manovra")
    finally:
        campaign_rules.cache_clear()


def test_a_linea_gotica_section_keeps_its_elite_leader_whatever_its_rank() -> None:
    scenario = load_bundled("esempio_gotica")
    side = scenario.sides[0]
    squad = side.units[0].model_copy(update={"section": True, "quality": Quality.ELITE})
    scenario = scenario.model_copy(
        update={"sides": (side.model_copy(update={"units": (squad,)}), *scenario.sides[1:])}
    )
    ranked = muster(scenario, {squad.id: 10}, {squad.id: {"quality": "reclute"}})
    fielded = ranked.sides[0].units[0]
    assert (fielded.quality, fielded.leader) == (Quality.RECLUTE, Quality.ELITE)
