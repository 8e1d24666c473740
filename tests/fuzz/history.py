"""What a history command promises, told from the event log alone (the sequence fuzzer's oracle).

Each function reads the log as a player or the docs describe it, not the service's code:

* ``/takeback``: a player takes back their own last command, while it is the game's latest
  event and rolled no die; the state is then the one before it.
* ``/game undo``: undoes the latest event that is not an undo, nor the creation, nor a seat
  change, nor already undone; the state (document and status) is the one before it. When
  that event is the store's end (``game.ended``) of a game whose result the event before
  it recorded (``game_result``), that event is undone too: the game is in play again.
* ``/game rewind seq:N``: N is an earlier event (1 to the version before the latest); the
  document is then the one event N left.
* the result: a game that has ended has exactly one result event (``game_result``) not
  undone, the last event before the store's end, and its result is the one the rules give
  of the final state; a game in play has none.
* ``/reroll seq:N``: event N is a command of the rules that rolled dice (a free ``/roll`` is
  rolled again with ``/roll``), someone disputed them, and history has not been changed since
  (no undo, rewind, re-roll or adoption after N).

A prediction is the catalogue key of the refusal expected, or None when the command must
be accepted.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from bot.service.events import RESULT_ARG
from db.models import VERB_CREATED, VERB_ENDED, VERB_UNDO, EventRecord
from rules.core.score import GameResult

TAKEBACK_NOT_YOURS = "error.service.takeback.not_yours"
TAKEBACK_ROLLS_STAND = "error.service.takeback.rolls_stand"
NOTHING_TO_UNDO = "error.store.nothing_to_undo"
OUT_OF_BOUNDS = "error.service.out_of_bounds"
NOT_DISPUTED = "error.service.reroll.not_disputed"
FREE_ROLL = "error.service.reroll.free_roll"
HISTORY_CHANGED = "error.service.reroll.history"
GAME_ENDED = "error.service.game_ended"
GAME_EXISTS = "error.store.game_exists"
OWN_DICE = "error.service.own_dice"

VERB_REWIND = "game.rewind"
VERB_REROLL = "dice.reroll"
VERB_DISPUTE = "dice.dispute"
#: Events after which a re-roll of an earlier event cannot re-run the later commands.
CHANGES_HISTORY = frozenset({VERB_UNDO, VERB_REWIND, VERB_REROLL, "game.replayed"})


def takeback_refusal(latest: EventRecord, user: int, play_verbs: Collection[str]) -> str | None:
    """Why ``user``'s ``/takeback`` is refused when ``latest`` is the game's latest event
    (None: it takes that event back)."""
    is_command = latest.verb in play_verbs and latest.verb != "odds"
    own = latest.actor_id == user
    if own and (latest.verb == "roll" or (is_command and latest.dice)):
        return TAKEBACK_ROLLS_STAND  # a free roll or a command that rolled: rolls stand
    if not is_command or not own:
        return TAKEBACK_NOT_YOURS
    return None


def undo_target(events: Sequence[EventRecord]) -> int | None:
    """The event ``/game undo`` undoes now, or None when there is nothing to undo."""
    undone = {event.undoes_seq for event in events if event.undoes_seq is not None}
    for event in reversed(events):
        if event.verb in (VERB_UNDO, VERB_CREATED) or event.verb.startswith("seat."):
            continue
        if event.seq not in undone:
            return event.seq
    return None


def undo_targets(events: Sequence[EventRecord]) -> tuple[int, ...]:
    """The events ``/game undo`` undoes now, in order (empty: nothing to undo): the target,
    and after the end of a game that has its result, the event that recorded it."""
    target = undo_target(events)
    if target is None:
        return ()
    before = events[target - 2] if target >= 2 else None
    if (
        events[target - 1].verb == VERB_ENDED
        and before is not None
        and RESULT_ARG in before.args
        and undo_target(events[: target - 1]) == before.seq
    ):
        return (target, before.seq)
    return (target,)


def live_results(events: Sequence[EventRecord]) -> list[EventRecord]:
    """The events that recorded the game's result and were not undone since."""
    undone = {event.undoes_seq for event in events if event.undoes_seq is not None}
    return [e for e in events if RESULT_ARG in e.args and e.seq not in undone]


def result_problem(
    events: Sequence[EventRecord], ended: bool, final: GameResult | None
) -> str | None:
    """What is wrong with the log's result events (None: nothing) for a game that has
    ``ended`` (its store status) and whose final state gives the result ``final``."""
    live = live_results(events)
    seqs = [event.seq for event in live]
    if not ended:
        return f"a game in play has result events {seqs}" if live else None
    if len(live) != 1:
        return f"an ended game has {len(live)} result events {seqs}, not one"
    after = [event.verb for event in events if event.seq > live[0].seq]
    if after != [VERB_ENDED]:
        return f"the result event {live[0].seq} is followed by {after}, not the end alone"
    recorded = GameResult.from_json(live[0].args[RESULT_ARG])
    if recorded != final:
        return f"the result event {live[0].seq} says {recorded}, the final state {final}"
    return None


def rewind_refusal(version: int, seq: int) -> str | None:
    """Why ``/game rewind seq:N`` is refused at ``version`` (None: it is accepted)."""
    return None if 1 <= seq <= max(1, version - 1) else OUT_OF_BOUNDS


def reroll_refusal(
    events: Sequence[EventRecord], seq: int, play_verbs: Collection[str]
) -> str | None:
    """Why ``/reroll seq:N`` is refused now (None: it is accepted)."""
    if not 1 <= seq <= len(events):
        return OUT_OF_BOUNDS
    target = events[seq - 1]
    disputed = any(e.verb == VERB_DISPUTE and e.args.get("seq") == seq for e in events)
    if not target.dice or not disputed:
        return NOT_DISPUTED
    if target.verb not in play_verbs:
        return FREE_ROLL
    if any(e.seq > seq and e.verb in CHANGES_HISTORY for e in events):
        return HISTORY_CHANGED
    return None
