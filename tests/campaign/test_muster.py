"""Mustering a campaign game from the sides' rosters, ruleset by ruleset (pure): a unit at
reduced strength fields that strength and the weapons that go with it; entries dead,
recovering, left behind or at 0 are absent; units without an entry are fielded as the
scenario gives them; a side with no unit is refused; losses are read from a document."""

from __future__ import annotations

from typing import Any

import pytest

from rules.campaign.muster import ScenarioMuster, fielding
from rules.campaign.roster import Roster, RosterEntry, Status
from rules.campaign.roster_file import MAX_ROSTER_BYTES, parse_roster
from rules.core.errors import IllegalAction, InvalidInput
from rules.core.ruleset import get_ruleset
from rules.core.seatview import REFEREE, SPECTATOR
from rules.linea_gotica.muster import reduced
from rules.linea_gotica.scenario import FigureSpec


def _muster(key: str) -> ScenarioMuster:
    muster = get_ruleset(key).muster
    assert isinstance(muster, ScenarioMuster)
    return muster


def _rosters(muster: ScenarioMuster, scenario: str) -> dict[str, Roster]:
    return {side: muster.roster_of(scenario, side) for side in muster.units(scenario)}


def _with(roster: Roster, unit: str, **changes: Any) -> Roster:
    entry = roster.entry(unit)
    assert entry is not None
    return roster.replaced(entry.model_copy(update=changes))


def _units(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    units: dict[str, dict[str, Any]] = document["units"]
    return units


def test_w40k4_roster_and_a_reduced_squad_with_its_weapons() -> None:
    muster = _muster("w40k4")
    rosters = _rosters(muster, "avamposto")
    squad = rosters["legione"].entry("squadra_tattica")
    assert squad is not None
    assert (squad.strength, squad.full, squad.rank) == (10, 10, "pronti")  # the first rung
    assert squad.weapons == {"fucile": 9, "lanciamissili": 1, "pistola": 1}
    legion = _with(rosters["legione"], "squadra_tattica", strength=4)
    legion = _with(legion, "devastatori", strength=0)  # wiped out: stays behind
    legion = _with(legion, "veterani", status=Status.RECOVERING, until=3)
    raiders = _with(rosters["predoni"], "banda", status=Status.DEAD)
    mustered = {"legione": legion, "predoni": raiders}
    units = _units(muster.muster("avamposto", mustered, 2, frozenset({"mortai"})))
    tactical = units["squadra_tattica"]
    # The plainest models go first: the rifles with them, the launcher and pistol stay.
    assert (tactical["models"], tactical["initial_models"]) == (4, 4)
    assert tactical["weapons"] == {"fucile": 4, "lanciamissili": 1, "pistola": 1}
    for absent in ("devastatori", "veterani", "banda", "mortai"):
        assert absent not in units
    assert units["motopredoni"]["models"] == 3  # untouched
    # Game 3: the veterans are back.
    assert "veterani" in _units(muster.muster("avamposto", mustered, 3))


def test_a_unit_without_an_entry_musters_as_the_scenario_gives_it_and_none_above_it() -> None:
    muster = _muster("w40k4")
    rosters = _rosters(muster, "avamposto")
    legion = Roster(side="legione", entries=rosters["legione"].entries[1:])  # no squadra_tattica
    legion = _with(legion, "devastatori", strength=9, full=9)  # more than the scenario's 5
    units = _units(muster.muster("avamposto", {"legione": legion}, 1))
    assert units["squadra_tattica"]["models"] == 10
    assert units["devastatori"]["models"] == 5


def test_a_side_left_with_no_unit_is_refused() -> None:
    muster = _muster("w40k4")
    rosters = _rosters(muster, "avamposto")
    legion = rosters["legione"]
    for entry in legion.entries:
        legion = legion.replaced(entry.model_copy(update={"status": Status.DEAD}))
    with pytest.raises(IllegalAction) as caught:
        muster.muster("avamposto", {**rosters, "legione": legion}, 2)
    assert caught.value.key == "error.campaign.side_empty"
    assert caught.value.params["side"] == "legione"


def test_linea_gotica_loses_riflemen_first_and_its_leader_last() -> None:
    muster = _muster("linea_gotica")
    rosters = _rosters(muster, "esempio_gotica")
    squad = rosters["alleati"].entry("squadra_1")
    assert squad is not None
    assert (squad.strength, squad.full, squad.rank) == (8, 8, "veterani")
    assert squad.weapons == {"thompson": 1, "garand": 6, "bar": 1}
    allies = _with(rosters["alleati"], "squadra_1", strength=2)
    allies = _with(allies, "sherman", status=Status.DEAD)
    units = _units(muster.muster("esempio_gotica", {**rosters, "alleati": allies}, 2))
    figures = units["squadra_1"]["figures"]
    assert [(f["role"], f["weapon"]) for f in figures] == [
        ("leader", "thompson"),
        ("esploratore", "garand"),
    ]
    assert "sherman" not in units
    assert len(units["bazooka"]["figures"]) == 2
    # One man left: the leader.
    alone = reduced(
        (FigureSpec(role="soldato", count=3), FigureSpec(role="leader"), FigureSpec(role="sniper")),
        1,
    )
    assert alone == (FigureSpec(role="leader"),)
    # Within a role the last listed go first.
    pair = (FigureSpec(role="soldato", weapon="a"), FigureSpec(role="soldato", weapon="b"))
    two = reduced(pair, 1)
    assert two == (FigureSpec(role="soldato", weapon="a"),)


def test_manovra_drops_a_platoon_left_empty_and_ranks_by_training() -> None:
    muster = _muster("manovra")
    rosters = _rosters(muster, "esempio_normandia")
    squad = rosters["alleati"].entry("squadra_1")
    assert squad is not None and squad.rank == "operativi"  # AD 1 in the scenario
    allies = _with(rosters["alleati"], "squadra_1", strength=3)
    document = muster.muster(
        "esempio_normandia", {**rosters, "alleati": allies}, 2, frozenset({"mortai"})
    )
    units = _units(document)
    assert units["squadra_1"]["models"] == 3
    assert units["squadra_1"]["weapons"] == {"fucile": 3, "bar": 1, "granate": 1}
    assert "mortai" not in units
    assert "sezione_mortai" not in document["platoons"]


def test_pzgren_fields_a_reduced_unit_by_its_steps() -> None:
    muster = _muster("pzgren")
    rosters = _rosters(muster, "exemple_ardennes")
    us = _with(rosters["us"], "us_rifle_1", strength=1)
    us = _with(us, "us_m10", strength=0)
    units = _units(muster.muster("exemple_ardennes", {**rosters, "us": us}, 2))
    # It starts the game at its carried step, and its document records the counter's two.
    assert (units["us_rifle_1"]["steps"], units["us_rifle_1"]["initial_steps"]) == (1, 1)
    assert units["us_rifle_1"]["full_strength"] == 2
    assert "us_m10" not in units


@pytest.mark.parametrize(
    ("key", "scenario", "unit"),
    [
        ("pzgren", "exemple_ardennes", "us_rifle_1"),
        ("linea_gotica", "esempio_gotica_campo", "squadra_1"),
        ("manovra", "esempio_normandia_campo", "squadra_1"),
        ("w40k4", "avamposto_campo", "squadra_tattica"),
    ],
)
def test_a_unit_mustered_reduced_shows_its_strength_out_of_its_full(
    key: str, scenario: str, unit: str
) -> None:
    """ "1st Rifle Platoon 1/1" while the roster said 1/2: the status and the map showed a
    unit carried with losses as whole. They show its strength out of the scenario's, and
    the game's losses still count from the strength it mustered at (none yet)."""
    muster = _muster(key)
    rosters = _rosters(muster, scenario)
    side = next(side for side, roster in rosters.items() if roster.entry(unit) is not None)
    entry = rosters[side].entry(unit)
    assert entry is not None and entry.full > 1
    carried = {**rosters, side: _with(rosters[side], unit, strength=entry.full - 1)}
    document = muster.muster(scenario, carried, 2)
    play = get_ruleset(key).rules
    [line] = [line for line in play.view(document, REFEREE).status.units if line.id == unit]
    assert (line.models, line.initial_models) == (entry.full - 1, entry.full)
    picture = play.view(document, SPECTATOR).map("en")
    assert picture is not None
    [counter] = [c for c in picture.counters if c.unit_id == unit]
    assert (counter.models, counter.initial_models) == (entry.full - 1, entry.full)
    assert muster.losses(document) == {}
    # A unit mustered whole records no full strength of its own.
    whole = next(u for u, spec in _units(document).items() if u != unit)
    assert _units(document)[whole]["full_strength"] is None


@pytest.mark.parametrize(
    ("key", "scenario", "unit", "field"),
    [
        ("w40k4", "avamposto", "squadra_tattica", "models"),
        ("manovra", "esempio_normandia", "squadra_1", "models"),
        ("pzgren", "exemple_ardennes", "us_rifle_1", "steps"),
    ],
)
def test_losses_are_read_from_a_document(key: str, scenario: str, unit: str, field: str) -> None:
    muster = _muster(key)
    document = muster.muster(scenario, _rosters(muster, scenario), 1)
    assert muster.losses(document) == {}
    _units(document)[unit][field] -= 1
    side = _units(document)[unit]["side"]
    assert muster.losses(document) == {side: {unit: 1}}


def test_linea_gotica_losses_count_figures_killed() -> None:
    muster = _muster("linea_gotica")
    document = muster.muster("esempio_gotica", _rosters(muster, "esempio_gotica"), 1)
    figures = _units(document)["squadra_1"]["figures"]
    figures[-1]["dead"] = True
    figures[-2]["dead"] = True
    assert muster.losses(document) == {"alleati": {"squadra_1": 2}}


def test_fielding_is_shared_by_every_ruleset() -> None:
    roster = Roster(
        side="a",
        entries=(
            RosterEntry(id="x", name="X", strength=2, full=4),
            RosterEntry(id="ghost", name="In no scenario", strength=4, full=4),
        ),
    )
    assert fielding({"a": {"x": 4, "y": 3}, "b": {"z": 1}}, {"a": roster}, 1) == {
        "a": {"x": 2, "y": 3},
        "b": {"z": 1},
    }


GOOD = """\
side: legione
entries:
  - id: squadra_tattica
    name: Squadra tattica
    strength: 7
    full: 10
    experience: 3
  - {id: ghost, name: Not in any scenario, strength: 2, full: 2}
"""


def test_a_roster_file_is_read() -> None:
    roster = parse_roster(GOOD)
    assert roster.side == "legione"
    assert [(e.id, e.strength, e.full, e.experience) for e in roster.entries] == [
        ("squadra_tattica", 7, 10, 3),
        ("ghost", 2, 2, 0),
    ]


@pytest.mark.parametrize(
    ("text", "line", "what"),
    [
        (GOOD.replace("strength: 7", "strength: 11"), 3, "more than full"),  # the entry's line
        (GOOD.replace("id: ghost", "id: squadra_tattica"), 8, "listed twice"),
        (GOOD.replace("    experience: 3", "    experience: 3\n    colour: red"), 8, "colour"),
        (GOOD.replace("id: ghost", "id: 'bad id'"), 8, "entries.1.id"),
        (GOOD.replace("strength: 7", "strength: 7\n    status: recovering"), 3, "until"),
        (GOOD.replace("strength: 7", "strength: [7"), 6, "YAML"),
        (GOOD.replace("side: legione", "side: legione\nside: predoni"), 2, "twice"),
        (GOOD.replace("side: legione", "side: &s legione"), 1, "write every value out"),
    ],
)
def test_a_bad_roster_file_is_refused_with_its_line(text: str, line: int, what: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        parse_roster(text)
    message = caught.value.localized("en")
    assert caught.value.params.get("line") == line, message
    assert what in message, message


def test_a_roster_file_too_big_or_too_long_is_refused() -> None:
    with pytest.raises(InvalidInput) as caught:
        parse_roster(GOOD + "#" * MAX_ROSTER_BYTES)
    assert caught.value.key == "error.scenario.too_big"
    many = "side: a\nentries:\n" + "".join(
        f"  - {{id: u{n}, name: U, strength: 1, full: 1}}\n" for n in range(61)
    )
    with pytest.raises(InvalidInput) as caught:
        parse_roster(many)
    assert "60" in str(caught.value.params)


def test_the_toy_ruleset_has_no_muster() -> None:
    from tests.toy_ruleset import RULESET

    assert RULESET.muster is None


def test_the_documented_roster_file_is_read() -> None:
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "campaigns.md").read_text("utf-8")
    example = doc.split("```yaml\n", 1)[1].split("```", 1)[0]
    roster = parse_roster(example)
    assert roster.side == "alleati"
    assert [e.status for e in roster.entries] == [Status.FIT, Status.DEAD, Status.RECOVERING]


@pytest.mark.parametrize(
    ("key", "scenario", "left"),
    [
        ("linea_gotica", "esempio_gotica_campo", "bazooka"),
        ("manovra", "esempio_normandia_campo", "sherman_1"),
        ("w40k4", "avamposto_campo", "devastatori"),
    ],
)
def test_a_unit_left_behind_has_no_place_on_the_map(key: str, scenario: str, left: str) -> None:
    """`/map` of a mustered linea_gotica game failed with KeyError: 'bazooka': the muster
    dropped the unit and kept its deployment."""
    muster = _muster(key)
    document = muster.muster(scenario, _rosters(muster, scenario), 1, frozenset({left}))
    assert left not in _units(document)
    picture = get_ruleset(key).rules.view(document, SPECTATOR).map("en")
    assert picture is not None


@pytest.mark.parametrize(
    ("key", "scenario"),
    [
        ("w40k4", "avamposto"),
        ("pzgren", "exemple_ardennes"),
        ("linea_gotica", "esempio_gotica"),
        ("manovra", "esempio_normandia"),
    ],
)
def test_a_unit_another_game_holds_stays_behind_in_every_ruleset(key: str, scenario: str) -> None:
    """The shared muster leaves behind the entries another game of the campaign holds, as
    it leaves those named in ``leave:``; a side whose units are all held is refused,
    naming them and the game holding each."""
    muster = _muster(key)
    rosters = _rosters(muster, scenario)
    units = muster.units(scenario)
    side, other = sorted(units)
    first, *rest = units[side]
    held = {side: {first: 1}}
    fielded = fielding(units, rosters, 2, frozenset(), held)
    assert first not in fielded[side] and set(rest) <= set(fielded[side])
    assert fielded[other] == fielding(units, rosters, 2)[other]
    document = muster.rules.battle(muster.muster(scenario, rosters, 2, frozenset(), held))
    assert first not in {piece.id for piece in document.pieces}
    every = {side: dict.fromkeys(units[side], 1)}
    with pytest.raises(IllegalAction) as caught:
        muster.muster(scenario, rosters, 2, frozenset(), every)
    assert caught.value.key == "error.campaign.side_held"
    assert caught.value.params["units"] == ", ".join(f"{unit} (1)" for unit in units[side])
