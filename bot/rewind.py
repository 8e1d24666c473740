"""Taking back, rewinding and re-rolling: history is never rewritten, only added to.

* ``/takeback``: a player takes back their own last command, while it is the game's latest
  event and rolled no die (once a die is rolled or someone else has acted, it stands);
  the store's undo does it.
* ``/game rewind seq:N`` (referee): one new event that restores the state event N left;
  everything after it is undone at once, and stays in the log.
* ``/dice reroll seq:N`` (referee, for a roll a player disputed): from the state before
  event N, its command runs again with fresh dice, then the commands given after it run
  again with their recorded dice; where one no longer applies the re-run stops and says
  so. The result is one new event carrying the fresh dice, which a replay re-runs the same
  way (:func:`rerun`), so ``arbitro db replay`` still verifies the game.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from db.models import VERB_UNDO, EventRecord, Member
from rules.core.dice import DiceSource, Roll
from rules.core.errors import RulesError
from rules.core.play import GamePlay
from rules.core.resolution import Resolution

VERB_REWIND = "game.rewind"
VERB_REROLL = "dice.reroll"
#: Events that change history rather than play: a re-roll cannot reach across them.
HISTORY_VERBS = frozenset({VERB_UNDO, VERB_REWIND, VERB_REROLL, "game.replayed"})


def is_play_event(event: EventRecord, play: GamePlay) -> bool:
    """Whether ``event`` is a command of the game's rules (not a game, dice or seat event)."""
    return event.verb in play.verbs() and event.verb != "odds"


def takeback_refusal(
    latest: EventRecord, user_id: int, play: GamePlay
) -> str | None:
    """Why the asker may not take back the game's latest event (None: they may)."""
    if not is_play_event(latest, play) or latest.actor_id != user_id:
        return "error.service.takeback.not_yours"
    if latest.dice:
        return "error.service.takeback.dice_rolled"
    return None


@dataclass
class Rerun:
    """What a re-roll made of the log: the new state and how far it got."""

    document: dict[str, Any]
    resolutions: list[Resolution] = field(default_factory=list)
    rolls: list[Roll] = field(default_factory=list)
    replayed: int = 0
    stopped_at: int | None = None
    reason: str = ""


def later_commands(
    events: Sequence[EventRecord], seq: int, play: GamePlay, until: int | None = None
) -> list[EventRecord]:
    """The play events after ``seq`` (and before ``until``), to run again after a re-roll.

    Raises ValueError when history was changed after ``seq`` (an undo, a rewind, another
    re-roll): the referee rewinds first.
    """
    later = [e for e in events if e.seq > seq and (until is None or e.seq < until)]
    if any(event.verb in HISTORY_VERBS for event in later):
        raise ValueError("history changed after this event")
    return [event for event in later if is_play_event(event, play)]


def rerun(
    play: GamePlay,
    before: dict[str, Any],
    target: EventRecord,
    dice: DiceSource,
    later: Sequence[EventRecord],
    members: Sequence[Member],
    *,
    stop_at: int | None = None,
) -> Rerun:
    """Run ``target``'s command again on ``before`` with ``dice``, then ``later`` with their
    recorded dice, stopping at the first that no longer applies (or at ``stop_at``, when a
    replay re-does a re-roll the log recorded)."""
    from bot.replay import ReplayMismatch, replay_command  # bot.replay imports the service
    from bot.service import ACTOR_SIDE_ARG, EVENT_ARGS

    args = target.args
    options = {key: value for key, value in args.items() if key not in EVENT_ARGS}
    played = play.apply(before, target.verb, options, dice, args.get(ACTOR_SIDE_ARG))
    result = Rerun(played.document, played.resolutions, played.rolls)
    for event in later:
        if stop_at is not None and event.seq >= stop_at:
            result.stopped_at = event.seq
            break
        try:
            result.document = replay_command(play, result.document, event, members)
        except (RulesError, ReplayMismatch, KeyError, ValueError, TypeError) as error:
            result.stopped_at = event.seq
            result.reason = error.localized("en") if isinstance(error, RulesError) else str(error)
            break
        result.replayed += 1
    return result
