"""Replay a game's event log through the current rules and compare with what was stored.

:func:`replay_game` starts from the game's first document (migrated to the current
format), re-runs every play event with the dice it recorded and for the seat it was played
for, re-does undo, dice checks and the end, and compares each replayed document with the
stored state of the same version (both migrated, as canonical JSON). The report says
whether the whole log replays to the stored states, or names the first event where it
does not, with the differing keys.

After a rules fix, :func:`adopt_replayed` stores the replayed final state as a new logged
event (``game.replayed``): history stays append-only and the hash chain covers it.

The whole-game fuzzer calls :func:`replay_game` to check a finished game; the
``arbitro db replay`` command (:mod:`bot.app.replay_cli`) calls it for stored games.

A re-roll (``/dice reroll seq:N``, :mod:`bot.service.history`) runs a disputed command again
with fresh dice, then the commands given after it with their recorded dice
(:func:`rerun`); a replay re-does it the same way, so both live here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.service.events import (
    ACTOR_SIDE_ARG,
    BY_HAND_ARG,
    EVENT_ARGS,
    HISTORY_VERBS,
    RESULT_ARG,
    SAME_DOCUMENT_VERBS,
    VERB_REPLAYED,
    VERB_REROLL,
    VERB_REWIND,
    result_of,
    secret_of,
    with_result,
)
from db.chain.hashing import canonical_json
from db.models import (
    VERB_CREATED,
    VERB_ENDED,
    VERB_UNDO,
    CommitResult,
    EventRecord,
    ExportBundle,
    GameStatus,
    Member,
    NewEvent,
)
from db.protocol import GameStore
from rules.core.dice import DiceSource, Die, Roll, ScriptedDice, parse_die
from rules.core.errors import DiceError, RulesError
from rules.core.play import Played
from rules.core.resolution import Resolution
from rules.core.ruleset import get_ruleset
from rules.core.score import GameResult
from rules.core.seatview import REFEREE, Seat
from rules.core.surface import Rules
from rules.render import outcome_text

MAX_DIFFERENCES = 5
MAX_VALUE_TEXT = 60


@dataclass(frozen=True, slots=True)
class Divergence:
    """The first event whose replay differs from the log."""

    seq: int
    verb: str
    reason: str
    differences: tuple[str, ...] = ()

    def describe(self) -> str:
        """One line: where, why and which keys differ."""
        text = f"event {self.seq} ({self.verb}): {self.reason}"
        if self.differences:
            text += " — " + "; ".join(self.differences)
        return text


@dataclass(frozen=True, slots=True)
class ReplayReport:
    """How a game's log replays through the current rules.

    ``final_document``/``final_status`` are the replayed state after the last event (the
    state to adopt); None when the replay could not get there (a command the current rules
    refuse, a game whose first document cannot be read). ``final_result`` is the result
    that state gives (None while the game goes on). ``adopted`` lists the divergences
    settled by a later ``game.replayed`` event, as (diverging seq, adopting seq): the log
    then replays to the adopted state, so the game matches again from there.
    """

    channel_id: int
    ruleset: str
    version: int
    status: GameStatus
    divergence: Divergence | None
    final_document: dict[str, Any] | None
    final_status: GameStatus | None
    adopted: tuple[tuple[int, int], ...] = ()
    final_result: GameResult | None = None

    @property
    def matches(self) -> bool:
        """Whether every replayed state equals the stored one."""
        return self.divergence is None

    @property
    def adoptable(self) -> bool:
        """Whether the replayed final state can replace the stored one."""
        return (
            self.divergence is not None
            and self.final_document is not None
            and self.status != "ended"
            and self.final_status == self.status
        )

    def __str__(self) -> str:
        return self.describe()

    def describe(self) -> str:
        """One line for the command line."""
        head = f"channel {self.channel_id} ({self.ruleset}, {self.version} events)"
        if self.divergence is None:
            settled = ", ".join(f"event {seq} adopted at {by}" for seq, by in self.adopted)
            text = f"{head}: ok" + (f" (diverged at {settled})" if settled else "")
            if self.final_result is not None:
                text += f" — {_summary(self.ruleset, self.final_result)}"
            return text
        return f"{head}: diverges at {self.divergence.describe()}"


class RecordedDice:
    """The faces a play event recorded, served in order, each checked against its die.

    A replay that asks for another die than the log has, or for more dice, diverges there;
    ``by_hand`` follows the recorded roll being served, so replayed rolls are marked as
    the originals were.
    """

    def __init__(self, rolls: Sequence[Mapping[str, Any]], *, by_hand: bool) -> None:
        self._dice: list[Die | None] = []
        self._hands: list[bool] = []
        faces: list[int] = []
        for roll in rolls:
            faces.append(int(roll["face"]))
            self._dice.append(_die_or_none(roll.get("die")))
            self._hands.append(bool(roll.get("by_hand", by_hand)))
        self._faces = ScriptedDice(faces)
        self._current_by_hand = by_hand

    @property
    def by_hand(self) -> bool:
        """Whether the roll just served was typed by hand in the original command."""
        return self._current_by_hand

    @property
    def unused(self) -> int:
        """Recorded faces the replay did not roll."""
        return len(self._faces.remaining)

    def face(self, die: Die, label: str) -> int:
        """The next recorded face; a different die than recorded is a divergence."""
        position = self._faces.consumed
        if position < len(self._dice):
            recorded = self._dice[position]
            if recorded is not None and recorded != die:
                raise ReplayMismatch(
                    f"roll {position + 1} ({label}) is a {die.name}, the log has a {recorded.name}"
                )
            self._current_by_hand = self._hands[position]
        return self._faces.face(die, label)


class ReplayMismatch(Exception):
    """The replayed command does not roll what the log recorded."""


def _die_or_none(text: object) -> Die | None:
    if not isinstance(text, str):
        return None
    try:
        return parse_die(text)
    except DiceError:
        return None


def _seat_side(members: Iterable[Member], actor_id: int | None) -> str | None:
    """The side a 0.1.0 event was played for, read from the members table (referee: None)."""
    for member in members:
        if member.user_id == actor_id:
            return None if member.role == "referee" else member.side
    return None


def differences(stored: Any, replayed: Any, limit: int = MAX_DIFFERENCES) -> list[str]:
    """Up to ``limit`` paths where two JSON values differ, as ``path: stored X, replayed Y``."""
    found: list[str] = []

    def short(value: Any) -> str:
        text = "(missing)" if value is _MISSING else canonical_json(value)
        return text if len(text) <= MAX_VALUE_TEXT else text[: MAX_VALUE_TEXT - 1] + "…"

    def walk(path: str, left: Any, right: Any) -> None:
        if len(found) >= limit:
            return
        if isinstance(left, dict) and isinstance(right, dict):
            for key in sorted(set(left) | set(right), key=str):
                walk(
                    f"{path}.{key}" if path else str(key),
                    left.get(key, _MISSING),
                    right.get(key, _MISSING),
                )
            return
        if isinstance(left, list) and isinstance(right, list) and len(left) == len(right):
            for index, (a, b) in enumerate(zip(left, right, strict=True)):
                walk(f"{path}[{index}]", a, b)
            return
        if left is _MISSING or right is _MISSING or canonical_json(left) != canonical_json(right):
            found.append(f"{path or '(document)'}: stored {short(left)}, replayed {short(right)}")

    walk("", stored, replayed)
    return found


_MISSING: Any = object()


def replay_bundle(bundle: ExportBundle, rules: Rules | None = None) -> ReplayReport:
    """Replay an exported game (synchronous: the rules do all the work)."""
    game = bundle.game
    channel_id = game.channel_id
    states = {state.version: state for state in bundle.states}
    adopted: list[tuple[int, int]] = []
    if game.is_campaign:
        # A campaign's log holds campaign events, which no game's rules replay: the campaign
        # feature folds it (bot.service.campaign.audit.replay_campaign).
        raise ValueError(f"channel {channel_id} holds a campaign, not a game")

    def report(
        divergence: Divergence | None,
        final: dict[str, Any] | None = None,
        final_status: GameStatus | None = None,
    ) -> ReplayReport:
        return ReplayReport(
            channel_id,
            game.ruleset,
            game.version,
            game.status,
            divergence,
            final,
            final_status,
            tuple(adopted),
            _final_result(rules, final),
        )

    try:
        rules = rules or get_ruleset(game.ruleset).rules
    except RulesError as error:
        return report(Divergence(1, VERB_CREATED, f"cannot replay: {error.localized('en')}"))
    if 1 not in states:
        return report(Divergence(1, VERB_CREATED, "cannot replay: no playable first state"))
    try:
        first = rules.document_format.upgrade(states[1].document)
    except RulesError as error:
        return report(Divergence(1, VERB_CREATED, f"unreadable: {error.localized('en')}"))
    replayed: dict[int, tuple[dict[str, Any], GameStatus]] = {1: (first, states[1].status)}
    divergence: Divergence | None = None
    for event in bundle.events:
        if event.seq == 1:
            continue
        previous, previous_status = replayed[event.seq - 1]
        try:
            if event.verb == VERB_UNDO and event.undoes_seq is not None:
                replayed[event.seq] = replayed[event.undoes_seq - 1]
            elif event.verb == VERB_ENDED:
                replayed[event.seq] = (previous, "ended")
            elif event.verb in SAME_DOCUMENT_VERBS or event.verb.startswith("seat."):
                replayed[event.seq] = (previous, previous_status)
            elif event.verb == VERB_REWIND:
                replayed[event.seq] = (replayed[int(event.args["seq"])][0], previous_status)
            elif event.verb == VERB_REROLL:
                replayed[event.seq] = (
                    _replay_reroll(rules, replayed, bundle, event),
                    previous_status,
                )
            else:
                document = replay_command(rules, previous, event, bundle.members)
                replayed[event.seq] = (document, previous_status)
        except (RulesError, ReplayMismatch, KeyError, ValueError, TypeError) as error:
            reason = error.localized("en") if isinstance(error, RulesError) else str(error)
            # The replay cannot go on past a command it cannot run: nothing to adopt.
            return report(divergence or Divergence(event.seq, event.verb, f"refused: {reason}"))
        if divergence is None or event.verb == VERB_REPLAYED:
            found = _compare(
                rules, event.seq, event.verb, states.get(event.seq), *replayed[event.seq]
            ) or _compare_result(rules, event, replayed[event.seq][0])
            if divergence is not None and found is None:
                # The state adopted then is what the current rules make of the log: the
                # earlier divergence was settled by that adoption.
                adopted.append((divergence.seq, event.seq))
            divergence = found
    final, final_status = replayed[max(replayed)]
    return report(divergence, final, final_status)


def _replay_reroll(
    rules: Rules,
    replayed: Mapping[int, tuple[dict[str, Any], GameStatus]],
    bundle: ExportBundle,
    event: EventRecord,
) -> dict[str, Any]:
    """A re-roll again: its command with the fresh dice it recorded, then the later
    commands with theirs, stopping where the re-roll stopped."""
    target_seq = int(event.args["seq"])
    target = next(e for e in bundle.events if e.seq == target_seq)
    later = later_commands(bundle.events, target_seq, rules, until=event.seq)
    dice = RecordedDice(
        [roll for roll in event.dice if isinstance(roll, Mapping)],
        by_hand=False,
    )
    stop = event.args.get("stopped_at")
    result = rerun(
        rules,
        replayed[target_seq - 1][0],
        target,
        dice,
        later,
        bundle.members,
        stop_at=None if stop is None else int(stop),
    )
    return result.document


def replay_command(
    rules: Rules, document: dict[str, Any], event: EventRecord, members: Sequence[Member]
) -> dict[str, Any]:
    """Re-run one play event; raises when the current rules refuse it or roll otherwise."""
    return replay_played(rules, document, event, members).document


def replay_played(
    rules: Rules, document: dict[str, Any], event: EventRecord, members: Sequence[Member]
) -> Played:
    """:func:`replay_command`, with all the rules made of it (a re-roll needs to know
    whether the command, run again, is still a hidden unit's secret)."""
    args = event.args
    options = {key: value for key, value in args.items() if key not in EVENT_ARGS}
    # Events written since formats exist carry the seat; 0.1.0's are read from the members.
    if ACTOR_SIDE_ARG in args:
        actor_side = args[ACTOR_SIDE_ARG]
    else:
        actor_side = _seat_side(members, event.actor_id)
    rolls = [roll for roll in event.dice if isinstance(roll, Mapping)]
    dice = RecordedDice(rolls, by_hand=bool(args.get(BY_HAND_ARG)))
    played = rules.act(document, Seat.of(actor_side), event.verb, options, dice)
    if dice.unused:
        raise ReplayMismatch(f"{dice.unused} recorded dice were not rolled")
    return played


def _compare(
    rules: Rules,
    seq: int,
    verb: str,
    stored: Any,
    document: dict[str, Any],
    status: GameStatus,
) -> Divergence | None:
    """None if the replayed state equals the stored one (both in the current format)."""
    if stored is None:
        return Divergence(seq, verb, "its stored state is missing")
    if stored.status != status:
        return Divergence(seq, verb, f"status: stored {stored.status}, replayed {status}")
    try:
        current = rules.document_format.upgrade(stored.document)
        if canonical_json(current) == canonical_json(document):
            return None
        # A migration may leave defaults to the model: compare as the model dumps both.
        normalized = rules.canonical(current)
    except RulesError as error:
        return Divergence(seq, verb, f"stored state unreadable: {error.localized('en')}")
    if canonical_json(normalized) == canonical_json(document):
        return None
    return Divergence(seq, verb, "state differs", tuple(differences(normalized, document)))


def _compare_result(
    rules: Rules, event: EventRecord, document: dict[str, Any]
) -> Divergence | None:
    """None unless ``event`` recorded a result the replayed state does not give (the log's
    result and the rules' result of the same game must be one)."""
    if RESULT_ARG not in event.args:
        return None
    recorded = result_of(event)
    try:
        replayed = rules.view(document, REFEREE).result
    except RulesError as error:
        return Divergence(event.seq, event.verb, f"result unreadable: {error.localized('en')}")
    if recorded is not None and recorded == replayed:
        return None
    ruleset = rules.ruleset
    return Divergence(
        event.seq,
        event.verb,
        "result differs",
        (
            "stored " + (_summary(ruleset, recorded) if recorded else "(unreadable)"),
            "replayed " + (_summary(ruleset, replayed) if replayed else "(none)"),
        ),
    )


def _summary(ruleset: str, result: GameResult) -> str:
    """A result's one-line summary, in English (the command line's language)."""
    return outcome_text(ruleset, result.summary, "en")


def _final_result(rules: Rules | None, document: dict[str, Any] | None) -> GameResult | None:
    """The result of the replayed final state (None while the game goes on)."""
    if rules is None or document is None:
        return None
    try:
        return rules.view(document, REFEREE).result
    except RulesError:
        return None


async def replay_game(store: GameStore, channel_id: int, *, verify: bool = True) -> ReplayReport:
    """Replay the channel's game through the current rules (see :func:`replay_bundle`).

    ``verify`` checks the hash chain first (``ChainBroken`` if it is broken); a caller that
    has just written the log itself (the fuzzer) may skip it.
    """
    bundle = await store.export(channel_id, verify=verify)
    return replay_bundle(bundle)


async def adopt_replayed(
    store: GameStore, report: ReplayReport, *, actor_id: int | None = None
) -> CommitResult:
    """Store the replayed final state as a new ``game.replayed`` event.

    Guarded by the version the replay read (``VersionConflict`` if the game moved on).
    Raises ``ValueError`` when the report has nothing adoptable (it matched, the replay
    stopped at a refused command, or the game has ended).
    """
    if not report.adoptable or report.final_document is None or report.divergence is None:
        raise ValueError(f"channel {report.channel_id}: nothing to adopt")
    event = NewEvent(
        verb=VERB_REPLAYED,
        args={
            "diverged_at": report.divergence.seq,
            "replayed_version": report.version,
            "reason": report.divergence.reason[:200],
        },
        actor_id=actor_id,
    )
    # A replayed state that ends the game (the fixed rules end it): the adoption is its
    # result event, and the game's end follows it.
    result = report.final_result
    adopted = await store.commit(
        report.channel_id, report.version, report.final_document, with_result(event, result)
    )
    if result is not None:
        await store.end_game(report.channel_id, expected_version=adopted.version, actor_id=actor_id)
    return adopted


# -- re-rolls ---------------------------------------------------------------------------------


def is_play_event(event: EventRecord, rules: Rules) -> bool:
    """Whether ``event`` is a command of the game's rules (not a game, dice or seat event)."""
    return event.verb in rules.verbs() and event.verb != "odds"


@dataclass
class Rerun:
    """What a re-roll made of the log: the new state and how far it got."""

    document: dict[str, Any]
    resolutions: list[Resolution] = field(default_factory=list)
    rolls: list[Roll] = field(default_factory=list)
    replayed: int = 0
    stopped_at: int | None = None
    reason: str = ""
    #: The sides whose hidden units' commands it ran again (as logged, or as run now): what
    #: it tells of them is theirs and the referee's alone.
    secret_sides: set[str] = field(default_factory=set)


def later_commands(
    events: Sequence[EventRecord], seq: int, rules: Rules, until: int | None = None
) -> list[EventRecord]:
    """The play events after ``seq`` (and before ``until``), to run again after a re-roll.

    Raises ValueError when history was changed after ``seq`` (an undo, a rewind, another
    re-roll): the referee rewinds first.
    """
    later = [e for e in events if e.seq > seq and (until is None or e.seq < until)]
    if any(event.verb in HISTORY_VERBS for event in later):
        raise ValueError("history changed after this event")
    return [event for event in later if is_play_event(event, rules)]


def rerun(
    rules: Rules,
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
    args = target.args
    options = {key: value for key, value in args.items() if key not in EVENT_ARGS}
    played = rules.act(before, Seat.of(args.get(ACTOR_SIDE_ARG)), target.verb, options, dice)
    result = Rerun(played.document, played.resolutions, played.rolls)
    result.secret_sides.update(_secrets(target, played))
    for event in later:
        if stop_at is not None and event.seq >= stop_at:
            result.stopped_at = event.seq
            break
        # A secret command is the secret of its side even where it no longer applies: the
        # reason it stopped may name the hidden unit or where it went.
        result.secret_sides.update(_secrets(event, None))
        try:
            replayed = replay_played(rules, result.document, event, members)
        except (RulesError, ReplayMismatch, KeyError, ValueError, TypeError) as error:
            result.stopped_at = event.seq
            result.reason = error.localized("en") if isinstance(error, RulesError) else str(error)
            break
        result.document = replayed.document
        result.secret_sides.update(_secrets(event, replayed))
        result.replayed += 1
    return result


def _secrets(event: EventRecord, played: Played | None) -> set[str]:
    """The sides a command is secret for: as it was logged, and as it ran again."""
    sides = {secret_of(event.args), played.secret_for if played is not None else None}
    return {side for side in sides if side}


__all__ = [
    "VERB_REPLAYED",
    "Divergence",
    "RecordedDice",
    "ReplayReport",
    "Rerun",
    "adopt_replayed",
    "differences",
    "is_play_event",
    "later_commands",
    "replay_bundle",
    "replay_command",
    "replay_game",
    "replay_played",
    "rerun",
]
