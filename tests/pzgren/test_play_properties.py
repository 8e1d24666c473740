"""Hypothesis over every pzgren verb and its options, through setup, view and act: a new
document or a clear RulesError, never a crash, and never a changed document."""

from __future__ import annotations

import copy

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.core.dice import SystemDice
from rules.core.errors import RulesError
from rules.core.seatview import REFEREE, Seat
from rules.pzgren.surface import PLAY

START = PLAY.setup("exemple_ardennes")

names = st.sampled_from(
    [
        "us_rifle_1",
        "us_rifle_1,us_mortar",
        "us_m10",
        "us_p47",
        "de_panther",
        "de_pzgren_1",
        "de_truck",
        "4,3",
        "6,3",
        "7,1",
        "99,99",
        "-1,0",
        "direct",
        "at",
        "hold",
        "true",
        "river_engineers",
        "night,artillery",
    ]
)
value = st.one_of(
    names,
    st.text(max_size=60),
    st.integers(-(10**6), 10**6),
    st.booleans(),
    st.none(),
    st.lists(names, max_size=3),
)
options = st.dictionaries(
    st.sampled_from(
        ["unit", "hex", "target", "mode", "opportunity", "modifiers", "kind", "distance"]
    ),
    value,
    max_size=5,
)
verbs = st.sampled_from([*PLAY.verbs(), "nope"])
sides = st.sampled_from(["us", "de", None])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(verbs, options, sides), min_size=1, max_size=4))
def test_any_command_gives_a_state_or_a_clear_error(commands):
    document = copy.deepcopy(START)
    for verb, opts, side in commands:
        before = copy.deepcopy(document)
        try:
            played = PLAY.act(document, Seat.of(side), verb, opts, SystemDice())
        except RulesError as error:
            assert error.localized("en")
            assert document == before
            continue
        assert document == before  # apply never mutates its input
        _ = PLAY.view(played.document, REFEREE).status
        _ = PLAY.view(played.document, REFEREE).follow_ups
        if verb != "odds":
            document = played.document


def test_unset_options_are_ignored_and_unknown_ones_refused():
    from rules.pzgren.commands import build_command

    command = build_command("fire", {"unit": "a, b", "hex": "3,4", "target": None, "mode": ""})
    assert command.units == ("a", "b") and command.target is None
    assert build_command("move", {"unit": "a", "kind": "hold", "hex": None}).verb == "hold"
    for verb, opts, key in [
        ("fire", {"unit": "a", "distance": 3}, "error.unknown_option"),
        ("move", {"unit": "a", "hex": "1,1", "kind": "crawl"}, "error.option.not_a_choice"),
        ("nope", {}, "error.unknown_command"),
        ("fire", {"hex": "1,1"}, "error.option.missing"),
    ]:
        try:
            build_command(verb, opts)
        except RulesError as error:
            assert error.key == key
        else:
            raise AssertionError(verb)
