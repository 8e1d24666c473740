"""The campaign commands that must be refused: rows of the campaign fuzzer's table of bad
commands (tests/fuzz/campaign.py). Each row says when it applies and makes the command
with the catalogue key of the refusal expected; the fuzzer checks the refusal changed
nothing anywhere. Adding one is adding a row to :data:`BAD_COMMANDS`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tests.fuzz.harness import OUTSIDER

if TYPE_CHECKING:
    from tests.fuzz.campaign import CampaignFuzzer, Lane

#: The campaign's referee and the channel where no campaign is (tests/fuzz/campaign.py).
REFEREE = 1
ELSEWHERE = 6999
PLAYERS = tuple(range(10, 16))


@dataclass(frozen=True)
class BadCommand:
    """A command that must be refused with ``key`` (from ``make``) and change nothing."""

    name: str
    ready: Callable[[CampaignFuzzer], bool]
    #: (channel, user, verb, options, key of the refusal expected)
    make: Callable[[CampaignFuzzer], tuple[int, int, str, dict[str, Any], str]]


# -- the commands that must be refused --------------------------------------------------------


def _player(fuzzer: CampaignFuzzer) -> int:
    return fuzzer.rng.choice(list(fuzzer.players))


def _scenario(fuzzer: CampaignFuzzer) -> str:
    assert fuzzer.play is not None
    return fuzzer.rng.choice(fuzzer.play.scenarios())


def _lane_in_play(fuzzer: CampaignFuzzer) -> Lane:
    return fuzzer.rng.choice(fuzzer.in_play())


def _open(fuzzer: CampaignFuzzer) -> bool:
    return not fuzzer.ended


def _playing(fuzzer: CampaignFuzzer) -> bool:
    return not fuzzer.ended and bool(fuzzer.in_play())


def _joined(fuzzer: CampaignFuzzer) -> bool:
    return not fuzzer.ended and bool(fuzzer.players)


def _checkable(fuzzer: CampaignFuzzer) -> list[Lane]:
    """Ended linked games with dice typed by hand."""
    return [lane for lane in fuzzer.lanes.values() if lane.over and lane.fuzzer.hand_rolls]


def _over(fuzzer: CampaignFuzzer) -> bool:
    return fuzzer.ended


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
        _open,
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
        _open,
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
        _open,
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
        _playing,
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
        lambda f: not f.ended and not all(f.strangers.values()),
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
        "the end after the end",
        _over,
        lambda f: (f.channel, REFEREE, "campaign.end", {}, ERROR + "ended"),
    ),
)
