"""The campaign commands that must be refused: rows of the campaign fuzzer's table of bad
commands (tests/fuzz/campaign.py). Each row says when it applies and makes the command
with the catalogue key of the refusal expected; the fuzzer checks the refusal changed
nothing anywhere. Adding one is adding a row to :data:`BAD_COMMANDS`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rules.campaign.postbattle import aftermath_dice
from tests.fuzz import campaign_between as between
from tests.fuzz.campaign_between import ELSEWHERE, PLAYERS, REFEREE
from tests.fuzz.harness import OUTSIDER

if TYPE_CHECKING:
    from tests.fuzz.campaign import CampaignFuzzer, Lane


@dataclass(frozen=True)
class BadCommand:
    """A command that must be refused with ``key`` (from ``make``) and change nothing."""

    name: str
    ready: Callable[[CampaignFuzzer], bool]
    #: (channel, user, verb, options, key of the refusal expected)
    make: Callable[[CampaignFuzzer], tuple[int, int, str, dict[str, Any], str]]
    # (``@dice`` and ``@file`` in the options: the dice typed and the file attached)


# -- the commands that must be refused --------------------------------------------------------


def _player(fuzzer: CampaignFuzzer) -> int:
    return fuzzer.rng.choice(list(fuzzer.players))


def _scenario(fuzzer: CampaignFuzzer) -> str:
    assert fuzzer.rules is not None
    return fuzzer.rng.choice(fuzzer.rules.scenarios())


def _lane_in_play(fuzzer: CampaignFuzzer) -> Lane:
    return fuzzer.rng.choice(fuzzer.in_play())


def _open(fuzzer: CampaignFuzzer) -> bool:
    return not fuzzer.ended


def _playing(fuzzer: CampaignFuzzer) -> bool:
    return not fuzzer.ended and bool(fuzzer.in_play())


def unconfirmed(fuzzer: CampaignFuzzer) -> list[int]:
    """The games whose aftermath awaits confirmation."""
    state = fuzzer.state
    if state is None:
        return []
    sides = list(state.sides)
    return [n for n, record in state.aftermaths.items() if not record.settled(sides)]


def _end_key(fuzzer: CampaignFuzzer) -> str:
    assert fuzzer.state is not None
    return between.end_key(fuzzer.state)


def _joined(fuzzer: CampaignFuzzer) -> bool:
    return not fuzzer.ended and bool(fuzzer.players)


def _checkable(fuzzer: CampaignFuzzer) -> list[Lane]:
    """Ended linked games with dice typed by hand."""
    return [lane for lane in fuzzer.lanes.values() if lane.over and lane.fuzzer.hand_rolls]


def _over(fuzzer: CampaignFuzzer) -> bool:
    return fuzzer.ended


def _built_on(fuzzer: CampaignFuzzer) -> list[Lane]:
    """Ended games of an open campaign whose result it has built on: their end stands."""
    state = fuzzer.state
    if fuzzer.ended or state is None:
        return []
    return [
        lane for lane in fuzzer.lanes.values() if lane.over and between.built_on(state, lane.number)
    ]


def _linkable(fuzzer: CampaignFuzzer) -> bool:
    """Open, and no game owes its aftermath (else a new game is refused for that first)."""
    return not fuzzer.ended and fuzzer.state is not None and not between.owes(fuzzer.state)


def _owing(fuzzer: CampaignFuzzer) -> bool:
    """A linked game owes its aftermath and a free channel could take the next game."""
    return (
        not fuzzer.ended
        and fuzzer.state is not None
        and between.owes(fuzzer.state)
        and len(fuzzer.where) < fuzzer.run.sizes.games
    )


def _rolled(fuzzer: CampaignFuzzer) -> list[int]:
    """Games whose aftermath was rolled (and whose result still holds)."""
    if fuzzer.ended or fuzzer.state is None:
        return []
    return sorted(fuzzer.state.aftermaths)


def _rolled_by_all(fuzzer: CampaignFuzzer) -> list[int]:
    """Games whose aftermath every side rolled."""
    state = fuzzer.state
    return [n for n in _rolled(fuzzer) if state and not state.aftermaths[n].unrolled(state.sides)]


def _rolled_in_part(fuzzer: CampaignFuzzer) -> list[int]:
    """Games whose aftermath some side rolled and another has still to."""
    state = fuzzer.state
    return [n for n in _rolled(fuzzer) if state and state.aftermaths[n].unrolled(state.sides)]


def _to_roll_by_side(fuzzer: CampaignFuzzer, least: int = 0) -> list[tuple[int, str]]:
    """(game, side) for a side still to roll its part, whose part rolls at least ``least``
    dice whatever falls (a destroyed unit's die, each casualty of the others)."""
    state = fuzzer.state
    if fuzzer.ended or state is None:
        return []
    found: list[tuple[int, str]] = []
    for number in between.to_roll(state):
        for side in between.sides_to_roll(state, number):
            roster = state.rosters.get(side)
            dice = sum(
                (1 if entry.strength == 0 else entry.casualties)
                for entry in (roster.entries if roster is not None else ())
                if entry.status.value != "dead" and entry.casualties > 0
            )
            if dice >= least:
                found.append((number, side))
    return found


def _other_side(fuzzer: CampaignFuzzer) -> tuple[int, int, str]:
    """A linked game, a seated player and a side that is not theirs."""
    assert fuzzer.state is not None
    user = _player(fuzzer)
    side = fuzzer.rng.choice([s for s in fuzzer.sides if s != fuzzer.players[user]])
    return fuzzer.rng.choice(fuzzer.state.games).number, user, side


def _own_typed(fuzzer: CampaignFuzzer) -> list[tuple[int, str, int]]:
    """(game, typed side, its seated player) for a typed part that may be disputed."""
    state = fuzzer.state
    if fuzzer.ended or state is None:
        return []
    return [
        (number, side, seat)
        for number, side in between.disputable(state)
        if (seat := fuzzer.seat_of(side)) is not None
    ]


def _confirmed_sides(fuzzer: CampaignFuzzer) -> list[tuple[int, int]]:
    """(game, player) for a side that confirmed a game's aftermath not settled yet."""
    state = fuzzer.state
    if fuzzer.ended or state is None:
        return []
    return [
        (number, seat)
        for number, record in sorted(state.aftermaths.items())
        if not record.settled(list(state.sides))
        for side in record.confirmed
        if (seat := fuzzer.seat_of(side)) is not None
    ]


def _settled(fuzzer: CampaignFuzzer) -> list[int]:
    state = fuzzer.state
    if fuzzer.ended or state is None:
        return []
    return [n for n, r in sorted(state.aftermaths.items()) if r.settled(list(state.sides))]


def _rosters(fuzzer: CampaignFuzzer) -> bool:
    return not fuzzer.ended and fuzzer.state is not None and bool(fuzzer.state.rosters)


def _players_of_rosters(fuzzer: CampaignFuzzer) -> list[tuple[str, int]]:
    """(side, its player) for each side with a roster and a player who is not the referee,
    once the campaign has linked a game."""
    if not _rosters(fuzzer) or fuzzer.state is None or not fuzzer.state.games:
        return []
    return [
        (side, seat)
        for side in fuzzer.state.rosters
        if (seat := fuzzer.seat_of(side)) is not None and seat != REFEREE
    ]


def _entry(fuzzer: CampaignFuzzer) -> tuple[str, str, int]:
    """A side, one of its entries and its full strength."""
    assert fuzzer.state is not None
    side = fuzzer.rng.choice(list(fuzzer.state.rosters))
    entry = fuzzer.rng.choice(fuzzer.state.rosters[side].entries)
    return side, entry.id, entry.full


def _roster_text(fuzzer: CampaignFuzzer, values: str) -> str:
    """A roster file of one of the campaign's sides whose one entry writes ``values``
    (its name, and its strength unless ``values`` gives it)."""
    assert fuzzer.state is not None
    side = fuzzer.rng.choice(list(fuzzer.state.sides))
    strength = "" if "strength" in values else ", strength: 1"
    return f"side: {side}\nentries:\n  - {{id: u1, {values}{strength}, full: 1}}\n"


def _adjust(fuzzer: CampaignFuzzer, **changed: Any) -> dict[str, Any]:
    side, unit, _ = _entry(fuzzer)
    return {
        "side": side,
        "unit": unit,
        "field": "experience",
        "value": "1",
        "reason": "fuzz",
        **changed,
    }


def _not_overdue(fuzzer: CampaignFuzzer) -> list[int]:
    """Games in play with a date not passed yet on the fuzzer's clock."""
    state = fuzzer.state
    if fuzzer.ended or state is None:
        return []
    playing = {lane.number for lane in fuzzer.in_play()}
    return [n for n, by in state.calendar.due.items() if n in playing and by >= fuzzer.today]


ERROR = "error.campaign."
BAD_COMMANDS: tuple[BadCommand, ...] = (
    BadCommand(
        "join an unknown side",
        _open,
        lambda f: (
            f.channel,
            OUTSIDER,
            "campaign.join",
            {"side": "nessuno"},
            ERROR + "unknown_side",
        ),
    ),
    BadCommand(
        "join twice",
        _joined,
        lambda f: (
            f.channel,
            _player(f),
            "campaign.join",
            {"side": f.rng.choice(list(f.sides))},
            ERROR + "already_joined",
        ),
    ),
    BadCommand(
        "a game linked by a player",
        _joined,
        lambda f: (
            f.channel,
            _player(f),
            "campaign.game",
            {"scenario": _scenario(f), "channel": f.game_channels[0]},
            ERROR + "referee_only",
        ),
    ),
    BadCommand(
        "a game in the campaign's channel",
        _linkable,
        lambda f: (
            f.channel,
            REFEREE,
            "campaign.game",
            {"scenario": _scenario(f), "channel": f.channel},
            ERROR + "same_channel",
        ),
    ),
    BadCommand(
        "a game in no channel",
        _linkable,
        lambda f: (
            f.channel,
            REFEREE,
            "campaign.game",
            {"scenario": _scenario(f), "channel": f.rng.choice(("x", -3, 0, True, 1.5))},
            ERROR + "bad_channel",
        ),
    ),
    BadCommand(
        "a game of an unknown scenario",
        _linkable,
        lambda f: (
            f.channel,
            REFEREE,
            "campaign.game",
            {"scenario": "nessuno", "channel": f.game_channels[0]},
            "error.unknown_scenario",
        ),
    ),
    BadCommand(
        "a game where one is in play",
        lambda f: _playing(f) and _linkable(f),
        lambda f: (
            f.channel,
            REFEREE,
            "campaign.game",
            {"scenario": _scenario(f), "channel": _lane_in_play(f).channel},
            ERROR + "game_in_play",
        ),
    ),
    BadCommand(
        "a game where an unlinked one is in play",
        lambda f: _linkable(f) and not all(f.strangers.values()),
        lambda f: (
            f.channel,
            REFEREE,
            "campaign.game",
            {
                "scenario": _scenario(f),
                "channel": f.rng.choice([c for c, over in f.strangers.items() if not over]),
            },
            ERROR + "channel_taken",
        ),
    ),
    BadCommand(
        "the end with a game in play",
        _playing,
        lambda f: (f.channel, REFEREE, "campaign.end", {}, ERROR + "games_unsettled"),
    ),
    BadCommand(
        "the end with an aftermath unconfirmed",
        lambda f: not f.ended and not f.in_play() and bool(unconfirmed(f)),
        lambda f: (f.channel, REFEREE, "campaign.end", {}, ERROR + _end_key(f)),
    ),
    BadCommand(
        "the end by a player",
        _joined,
        lambda f: (f.channel, _player(f), "campaign.end", {}, ERROR + "referee_only"),
    ),
    BadCommand(
        "a campaign over the campaign",
        _open,
        lambda f: (
            f.channel,
            f.rng.choice([REFEREE, OUTSIDER]),
            "campaign.new",
            {"ruleset": f.ruleset, "name": "Again"},
            ERROR + "channel_taken",
        ),
    ),
    BadCommand(
        "a campaign over a game in play",
        _playing,
        lambda f: (
            _lane_in_play(f).channel,
            REFEREE,
            "campaign.new",
            {"ruleset": f.ruleset, "name": "Again"},
            ERROR + "channel_taken",
        ),
    ),
    BadCommand(
        "a campaign with too long a name",
        _open,
        lambda f: (
            ELSEWHERE,
            REFEREE,
            "campaign.new",
            {"ruleset": f.ruleset, "name": "x" * 81},
            ERROR + "bad_name",
        ),
    ),
    BadCommand(
        "a join where no campaign is",
        _open,
        lambda f: (
            ELSEWHERE,
            OUTSIDER,
            "campaign.join",
            {"side": f.rng.choice(list(f.sides))},
            ERROR + "none",
        ),
    ),
    BadCommand(
        "a game command in the campaign's channel",
        _open,
        lambda f: (f.channel, REFEREE, "game.end", {}, ERROR + "here"),
    ),
    BadCommand(
        "a join after the end",
        _over,
        lambda f: (
            f.channel,
            f.rng.choice([*PLAYERS, OUTSIDER]),
            "campaign.join",
            {"side": f.rng.choice(list(f.sides))},
            ERROR + "ended",
        ),
    ),
    BadCommand(
        "a game after the end",
        _over,
        lambda f: (
            f.channel,
            REFEREE,
            "campaign.game",
            {"scenario": _scenario(f), "channel": f.rng.choice(f.game_channels)},
            ERROR + "ended",
        ),
    ),
    BadCommand(
        "a game's end undone after the end",
        lambda f: f.ended and bool(f.lanes),
        lambda f: (
            f.rng.choice(list(f.lanes)),
            REFEREE,
            "game.undo",
            {},
            ERROR + "ended_reopen",
        ),
    ),
    BadCommand(
        "a game's end undone once built on",
        lambda f: bool(_built_on(f)),
        lambda f: (
            f.rng.choice(_built_on(f)).channel,
            REFEREE,
            "game.undo",
            {},
            ERROR + "built_on_reopen",
        ),
    ),
    BadCommand(
        "the end while an aftermath awaits confirmation",
        lambda f: (
            not f.ended
            and not f.in_play()
            and f.state is not None
            and bool(between.unsettled(f.state))
        ),
        lambda f: (f.channel, REFEREE, "campaign.end", {}, ERROR + _end_key(f)),
    ),
    BadCommand(
        "dice checked after a game's end",
        lambda f: bool(_checkable(f)),
        lambda f: (
            (lane := f.rng.choice(_checkable(f))).channel,
            REFEREE,
            f.rng.choice(("dice.confirm", "dice.dispute")),
            {"seq": f.rng.choice(lane.fuzzer.hand_rolls)},
            "error.store.game_ended",
        ),
    ),
    BadCommand(
        "a game while one owes its aftermath",
        _owing,
        lambda f: (
            f.channel,
            REFEREE,
            "campaign.game",
            {"scenario": _scenario(f), "channel": f.game_channels[-1]},
            ERROR + between.owed_key(f.state),  # type: ignore[arg-type]
        ),
    ),
    BadCommand(
        "an aftermath by an outsider",
        lambda f: bool(f.state and between.to_roll(f.state)) and not f.ended,
        lambda f: (
            f.channel,
            OUTSIDER,
            "campaign.aftermath",
            {"game": between.to_roll(f.state)[0]},  # type: ignore[arg-type]
            ERROR + "players_only",
        ),
    ),
    BadCommand(
        "an aftermath of a game not linked",
        _rosters,
        lambda f: (
            f.channel,
            REFEREE,
            "campaign.aftermath",
            {"game": len(f.where) + 1},
            ERROR + "not_linked",
        ),
    ),
    BadCommand(
        "an aftermath of a game in play",
        lambda f: _rosters(f) and bool(f.in_play()),
        lambda f: (
            f.channel,
            REFEREE,
            "campaign.aftermath",
            {"game": _lane_in_play(f).number},
            ERROR + "no_result",
        ),
    ),
    BadCommand(
        "an aftermath rolled twice",
        lambda f: bool(_rolled_by_all(f)),
        lambda f: (
            f.channel,
            REFEREE,
            "campaign.aftermath",
            {"game": f.rng.choice(_rolled_by_all(f))},
            ERROR + "aftermath_done",
        ),
    ),
    BadCommand(
        "a side's part rolled twice",
        lambda f: bool(_rolled(f)),
        lambda f: (
            f.channel,
            REFEREE,
            "campaign.aftermath",
            {
                "game": (number := f.rng.choice(_rolled(f))),
                "side": f.rng.choice(
                    [s for s in f.sides if s not in between.sides_to_roll(f.state, number)]  # type: ignore[arg-type]
                ),
            },
            ERROR + "side_rolled",
        ),
    ),
    BadCommand(
        "an aftermath rolled for the other side",
        lambda f: not f.ended and bool(f.players and f.state and f.state.games),
        lambda f: (
            f.channel,
            (chosen := _other_side(f))[1],
            "campaign.aftermath",
            {"game": chosen[0], "side": chosen[2]},
            ERROR + "aftermath_not_your_side",
        ),
    ),
    BadCommand(
        "dice typed by the referee for every side",
        lambda f: bool(_to_roll_by_side(f, 1)),
        lambda f: (
            f.channel,
            REFEREE,
            "campaign.aftermath",
            {"game": _to_roll_by_side(f, 1)[0][0], "@dice": "1"},
            ERROR + "aftermath_typed_side",
        ),
    ),
    BadCommand(
        "a dispute of one's own side's dice",
        lambda f: bool(_own_typed(f)),
        lambda f: (
            f.channel,
            (chosen := f.rng.choice(_own_typed(f)))[2],
            "campaign.dispute",
            {"game": chosen[0], "side": chosen[1]},
            ERROR + "own_aftermath",
        ),
    ),
    BadCommand(
        "a confirmation before every side rolled",
        lambda f: bool(_rolled_in_part(f)),
        lambda f: (
            f.channel,
            REFEREE,
            "campaign.confirm",
            {"game": f.rng.choice(_rolled_in_part(f))},
            ERROR + "aftermath_unrolled",
        ),
    ),
    BadCommand(
        "an aftermath with one die too many typed",
        lambda f: bool(_to_roll_by_side(f)),
        lambda f: (
            f.channel,
            REFEREE,
            "campaign.aftermath",
            {
                "game": (part := _to_roll_by_side(f)[0])[0],
                "side": part[1],
                "@dice": ",".join(
                    map(str, [*(faces := between.typed_faces(f, f.state, part[1])), 1])  # type: ignore[arg-type]
                ),
            },
            # A part that rolls no die refuses typed dice as such.
            "error.dice.unused" if faces else "error.dice.none_rolled",
        ),
    ),
    BadCommand(
        "an aftermath with too few dice typed",
        lambda f: bool(_to_roll_by_side(f, 2)),
        lambda f: (
            f.channel,
            REFEREE,
            "campaign.aftermath",
            {
                "game": (part := _to_roll_by_side(f, 2)[0])[0],
                "side": part[1],
                "@dice": ",".join(map(str, between.typed_faces(f, f.state, part[1])[:-1])),  # type: ignore[arg-type]
            },
            # told how many the side's part rolls, and why it is at most that many
            ERROR
            + "aftermath_dice_short"
            + ("_destroyed" if aftermath_dice(f.state, part[1]).destroyed else ""),  # type: ignore[arg-type]
        ),
    ),
    BadCommand(
        "a confirmation by an outsider",
        lambda f: bool(_rolled(f)),
        lambda f: (
            f.channel,
            OUTSIDER,
            "campaign.confirm",
            {"game": f.rng.choice(_rolled(f))},
            ERROR + "players_only",
        ),
    ),
    BadCommand(
        "a confirmation twice",
        lambda f: bool(_confirmed_sides(f)),
        lambda f: (
            f.channel,
            (chosen := f.rng.choice(_confirmed_sides(f)))[1],
            "campaign.confirm",
            {"game": chosen[0]},
            ERROR + "already_confirmed",
        ),
    ),
    BadCommand(
        "a confirmation of a settled aftermath",
        lambda f: bool(f.state and _settled(f)),
        lambda f: (
            f.channel,
            f.rng.choice([REFEREE, *f.players]),
            "campaign.confirm",
            {"game": f.rng.choice(_settled(f))},
            ERROR + "aftermath_settled",
        ),
    ),
    BadCommand(
        "a confirmation with no aftermath",
        lambda f: _rosters(f) and bool(f.in_play()),
        lambda f: (
            f.channel,
            REFEREE,
            "campaign.confirm",
            {"game": _lane_in_play(f).number},
            ERROR + "no_aftermath",
        ),
    ),
    BadCommand(
        "an adjustment by a player",
        lambda f: _rosters(f) and bool(f.players),
        lambda f: (f.channel, _player(f), "campaign.adjust", _adjust(f), ERROR + "referee_only"),
    ),
    BadCommand(
        "an adjustment of an unknown unit",
        _rosters,
        lambda f: (
            f.channel,
            REFEREE,
            "campaign.adjust",
            _adjust(f, unit="nessuno"),
            ERROR + "no_entry",
        ),
    ),
    BadCommand(
        "an adjustment of an unknown field",
        _rosters,
        lambda f: (
            f.channel,
            REFEREE,
            "campaign.adjust",
            _adjust(f, field="morale"),
            ERROR + "bad_field",
        ),
    ),
    BadCommand(
        "an adjustment past the largest strength",
        _rosters,
        lambda f: (
            f.channel,
            REFEREE,
            "campaign.adjust",
            _adjust(f, field="strength", value=str(_entry(f)[2] + 1000)),
            ERROR + "adjust_range",
        ),
    ),
    BadCommand(
        "an adjustment back from a game past any the campaign holds",
        _rosters,
        lambda f: (
            f.channel,
            REFEREE,
            "campaign.adjust",
            _adjust(f, field="until", value="99999999999999999999"),
            ERROR + "adjust_range",
        ),
    ),
    BadCommand(
        "a roster file whose name prints a bot line",
        _rosters,
        lambda f: (
            f.channel,
            REFEREE,
            "campaign.roster",
            {"@file": _roster_text(f, 'name: "U\\n» Game 1: settled."')},
            "error.scenario.invalid_line",
        ),
    ),
    BadCommand(
        "a roster file whose strength is a bool",
        _rosters,
        lambda f: (
            f.channel,
            REFEREE,
            "campaign.roster",
            {"@file": _roster_text(f, "name: U, strength: true")},
            "error.scenario.invalid_line",
        ),
    ),
    BadCommand(
        "a roster file that is no roster",
        _rosters,
        lambda f: (
            f.channel,
            REFEREE,
            "campaign.roster",
            {"@file": "entries: 3\n" if f.rng.random() < 0.5 else "side: x\nentries: []\n"},
            "error.scenario.invalid_line",
        ),
    ),
    BadCommand(
        "a player's roster file once the campaign has linked a game",
        lambda f: bool(_players_of_rosters(f)),
        lambda f: (
            f.channel,
            (seat := f.rng.choice(_players_of_rosters(f)))[1],
            "campaign.roster",
            {"@file": between.roster_file(f, seat[0])},
            ERROR + "roster_after_games",
        ),
    ),
    BadCommand(
        "a roster file while a game is in play",
        lambda f: _rosters(f) and bool(f.in_play()),
        lambda f: (
            f.channel,
            REFEREE,
            "campaign.roster",
            {"@file": between.roster_file(f, f.rng.choice(list(f.state.rosters)))},  # type: ignore[union-attr]
            ERROR + "roster_in_play",
        ),
    ),
    BadCommand(
        "an overdue decision before the date",
        lambda f: bool(_not_overdue(f)),
        lambda f: (
            f.channel,
            REFEREE,
            "campaign.overdue",
            {"game": f.rng.choice(_not_overdue(f)), "decision": "draw"},
            ERROR + "not_overdue",
        ),
    ),
    BadCommand(
        "an overdue decision that is none",
        lambda f: bool(_not_overdue(f)),
        lambda f: (
            f.channel,
            REFEREE,
            "campaign.overdue",
            {"game": f.rng.choice(_not_overdue(f)), "decision": "surrender"},
            ERROR + "bad_decision",
        ),
    ),
    BadCommand(
        "an overdue decision by a player",
        lambda f: bool(_not_overdue(f)) and bool(f.players),
        lambda f: (
            f.channel,
            _player(f),
            "campaign.overdue",
            {"game": f.rng.choice(_not_overdue(f)), "decision": "draw"},
            ERROR + "referee_only",
        ),
    ),
    BadCommand(
        "a game leaving a unit its scenario lacks",
        _linkable,
        lambda f: (
            f.channel,
            REFEREE,
            "campaign.game",
            {"scenario": _scenario(f), "channel": f.game_channels[0], "leave": "nessuno"},
            ERROR + "leave_unknown",
        ),
    ),
    BadCommand(
        "a campaign from an unknown book",
        _open,
        lambda f: (
            ELSEWHERE,
            REFEREE,
            "campaign.new",
            {"ruleset": f.ruleset, "name": "Altro", "book": "nessuno"},
            ERROR + "unknown_book",
        ),
    ),
    BadCommand(
        "the end after the end",
        _over,
        lambda f: (f.channel, REFEREE, "campaign.end", {}, ERROR + "ended"),
    ),
)
