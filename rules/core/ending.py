"""How a game ends, shared by every ruleset: the victory record a state keeps, the checks
a ruleset runs after each command and at the end of each turn, the random extension of
the last turn, a side's concession and the referee's decision.

A ruleset's state carries a :class:`VictoryRecord` (field ``victory``: the scenario's
conditions, objectives held at stated turns, the result once the game is over) and a
``battle`` function that describes it as a :class:`Battle`; its turn sequence calls
:func:`turn_over` and :func:`last_turn` where a turn ends, and :func:`settle` after each
command. Nothing here knows a ruleset.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

from rules.core.dice import Die
from rules.core.errors import IllegalAction, InvalidInput
from rules.core.game import Applied
from rules.core.procedures import Procedure
from rules.core.resolution import (
    Comparison,
    Outcome,
    Resolution,
    ResolutionBuilder,
    Threshold,
)
from rules.core.score import (
    Battle,
    Ending,
    EndingKind,
    GameResult,
    Level,
    Score,
    compute_score,
    holder,
    result_of,
)
from rules.core.victory import ObjectiveSpec, VictoryConditions
from rules.core.words import is_named

MAX_REASON = 200
#: The reader of a score who sits at no side: the spectator, and the channel (no side id
#: takes it: ids start with a letter or a digit).
PUBLIC_READER = "@public"
#: Who held each objective at a stated turn: objective id → [turn, side or None].
Held = dict[str, list[tuple[int, str | None]]]


class VictoryRecord(BaseModel):
    """What a game keeps of victory: the scenario's conditions (None: a scenario without,
    or a game saved before victory conditions existed), who held each objective scored
    at stated turns (objective id → [turn, side or None] at the end of each), the turns
    the random extension added, and the result once the game is over.

    ``seen_held`` keeps, for a reader (a side, or ``PUBLIC_READER``) who did not see a
    stated turn's holder because a unit hidden from it made the difference, who held the
    objective as that reader saw it then: its score reads that while the game goes on (the
    result, once it is over, reveals the truth). Left out of the document while empty, so
    a game no hidden unit ever scored in keeps the documents it always had."""

    model_config = ConfigDict(extra="forbid", validate_assignment=False)

    conditions: VictoryConditions | None = None
    held: Held = Field(default_factory=dict)
    extra_turns: int = 0
    result: GameResult | None = None
    seen_held: dict[str, Held] = Field(default_factory=dict)

    @model_serializer(mode="wrap")
    def _without_empty_seen_held(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict) and not data.get("seen_held"):
            data.pop("seen_held", None)
        return data

    def held_for(self, reader: str | None) -> Held:
        """Who held each objective at its stated turns as ``reader`` (a side id,
        ``PUBLIC_READER``; None: the referee) saw it."""
        seen = self.seen_held.get(reader, {}) if reader is not None else {}
        if not seen:
            return self.held
        return {
            objective: [
                (turn, dict(seen.get(objective, ())).get(turn, side)) for turn, side in turns
            ]
            for objective, turns in self.held.items()
        }


class VictoryState(Protocol):
    """The fields of a ruleset's state that victory reads and writes."""

    turn: int
    max_turns: int
    ended: bool
    victory: VictoryRecord

    @property
    def sides(self) -> Mapping[str, str]:
        """Side id → name (read only here)."""
        ...


BattleOf = Callable[[Any], Battle]


def score_of(state: VictoryState, battle: Battle, reader: str | None = None) -> Score:
    """The score if the game ended now, as ``reader`` (a side id, ``PUBLIC_READER``;
    None: the referee) knows it, ``battle`` being what it sees; once the game has ended,
    the result's (frozen then, and everyone's: the end reveals every hidden unit)."""
    record = state.victory
    if record.result is not None:
        return record.result.score
    return compute_score(record.conditions, battle, record.held_for(reader))


def conclude(
    state: VictoryState,
    battle: Battle,
    ending: Ending,
    result: Applied[Any] | None = None,
    *,
    winner: str | None = None,
    level: Level | None = None,
) -> GameResult:
    """End the game with ``ending``: the state is marked ended and keeps its result."""
    record = state.victory
    score = compute_score(record.conditions, battle, record.held)
    names = {o.id: o.name for o in (record.conditions.objectives if record.conditions else ())}
    outcome = result_of(ending, score, battle.sides, winner=winner, level=level, objectives=names)
    state.ended = True
    record.result = outcome
    if result is not None:
        result.notices.append(outcome.summary)
    return outcome


def settle(state: VictoryState, battle_of: BattleOf, result: Applied[Any]) -> bool:
    """After a command: a side wiped out or broken ends the game at once. True if it did."""
    record = state.victory
    if state.ended or record.conditions is None:
        return False
    rules = [s for s in record.conditions.sudden_death if s.kind != "objective"]
    if not rules:
        return False
    battle = battle_of(state)
    fallen: list[tuple[str, str, Level]] = []
    for rule in rules:
        for side in [rule.side] if rule.side is not None else list(battle.sides):
            if _fallen(battle, side, rule.kind) and side not in [f[0] for f in fallen]:
                fallen.append((side, rule.kind, Level(rule.level)))
    if not fallen:
        return False
    side, kind, level = fallen[0]
    if len(fallen) > 1:  # both sides at once: nobody wins
        conclude(state, battle, Ending(EndingKind.SUDDEN_DEATH, state.turn, None, kind), result)
    else:
        ending = Ending(EndingKind.SUDDEN_DEATH, state.turn, side, kind)
        conclude(state, battle, ending, result, winner=battle.enemy(side), level=level)
    return True


def _fallen(battle: Battle, side: str, kind: str) -> bool:
    fighting = [p for p in battle.pieces if p.side == side and p.fighting]
    if kind == "wiped_out":
        return not any(p.in_play for p in fighting)
    return all(p.broken or not p.in_play for p in fighting)


def turn_over(state: VictoryState, battle_of: BattleOf, result: Applied[Any]) -> bool:
    """At the end of a turn: record the objectives scored at this turn, and end the game
    if a side has taken an objective that ends it. True if the game is over."""
    record = state.victory
    conditions = record.conditions
    if state.ended or conditions is None:
        return state.ended
    battle = battle_of(state)
    for objective in conditions.objectives:
        if state.turn in objective.turns:
            side, _ = holder(objective, battle)
            record.held.setdefault(objective.id, []).append((state.turn, side))
            _record_seen_holders(record, objective, battle, state.turn, side)
    for rule in conditions.sudden_death:
        if rule.kind != "objective" or rule.objective is None:
            continue
        taken = conditions.objective(rule.objective)
        if taken is not None and holder(taken, battle)[0] == rule.side:
            ending = Ending(EndingKind.SUDDEN_DEATH, state.turn, rule.side, f"objective:{taken.id}")
            conclude(state, battle, ending, result, winner=rule.side, level=Level(rule.level))
            return True
    return False


def _record_seen_holders(
    record: VictoryRecord, objective: ObjectiveSpec, battle: Battle, turn: int, side: str | None
) -> None:
    """Who each reader saw hold ``objective`` at the end of ``turn``, where a unit hidden
    from it made the holder ``side`` one it could not know."""
    if not any(piece.hidden for piece in battle.pieces):
        return
    for reader in (PUBLIC_READER, *battle.sides):
        seen, _ = holder(objective, battle.seen_by(None if reader == PUBLIC_READER else reader))
        if seen != side:
            held = record.seen_held.setdefault(reader, {}).setdefault(objective.id, [])
            held.append((turn, seen))


def last_turn(state: VictoryState, result: Applied[Any]) -> bool:
    """Whether the turn just over was the last: at the turn limit, unless the random
    extension (rolled here, its resolution shown with its odds) adds a turn."""
    if state.turn < state.max_turns:
        return False
    record = state.victory
    extension = None if record.conditions is None else record.conditions.end.extension
    if extension is None or record.extra_turns >= extension.turns or result.tray is None:
        return True
    ruleset = str(getattr(state, "ruleset", "victory"))
    data = ExtensionInput(sides=extension.sides, at_least=extension.at_least, turn=state.turn)
    resolution = extension_procedure(ruleset).resolve_on(data, result.tray)
    result.resolutions.append(resolution)
    if resolution.outcome.key != "victory.extension.continues":
        return True
    record.extra_turns += 1
    state.max_turns += 1
    return False


def finish(state: VictoryState, battle_of: BattleOf, result: Applied[Any]) -> GameResult:
    """The game has reached its turn limit: its result by the score."""
    return conclude(state, battle_of(state), Ending(EndingKind.TURN_LIMIT, state.turn), result)


# --- the random extension ----------------------------------------------------------------


class ExtensionInput(BaseModel):
    """The extension roll: a die of ``sides`` faces, another turn on ``at_least`` or more."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    sides: int = Field(ge=2, le=100)
    at_least: int = Field(ge=1, le=100)
    turn: int = Field(ge=1, le=1000)


def _resolve_extension(ruleset: str) -> Callable[[ExtensionInput, Any], Resolution]:
    def resolve(data: ExtensionInput, tray: Any) -> Resolution:
        builder = ResolutionBuilder(ruleset, "extension", tray)
        roll = tray.roll_grouped(Die(data.sides), "extension", lambda face: face >= data.at_least)
        goes_on = roll.face >= data.at_least
        outcome = Outcome.of(
            "victory.extension.continues" if goes_on else "victory.extension.ends",
            turn=data.turn + 1 if goes_on else data.turn,
        )
        builder.step(
            "victory.step.extension",
            rolls=(roll,),
            total=roll.face,
            threshold=Threshold(Comparison.AT_LEAST, data.at_least, "victory.threshold.extension"),
            outcome=outcome,
            turn=data.turn,
        )
        return builder.finish(outcome)

    return resolve


@lru_cache(maxsize=16)  # one per ruleset
def extension_procedure(ruleset: str) -> Procedure[ExtensionInput]:
    """The roll that may add a turn to a game of ``ruleset`` (its odds exact, cached)."""
    return Procedure(
        ruleset=ruleset,
        name="extension",
        input_model=ExtensionInput,
        resolver=_resolve_extension(ruleset),
        summary="At the last turn's end, a die: on at_least or more another turn is played.",
        dice_order="one die of the scenario's kind",
    )


# --- the two verbs every ruleset takes -------------------------------------------------

CONCEDE = "game.concede"
DECIDE = "game.decide"
VERBS = (CONCEDE, DECIDE)
VERB_OPTIONS: Mapping[str, tuple[str, ...]] = {
    CONCEDE: ("side",),
    DECIDE: ("winner", "level", "reason"),
}
NO_WINNER = "none"


def apply_verb(
    state: VictoryState,
    battle_of: BattleOf,
    verb: str,
    options: Mapping[str, Any],
    actor_side: str | None,
    result: Applied[Any],
) -> GameResult:
    """``game.concede`` (options: ``side``) or ``game.decide`` (options: ``winner`` — a
    side or ``none`` —, ``level``, ``reason``): end the game that way.

    A side concedes only for itself (the referee for either); only the referee decides.
    """
    unknown = sorted(set(options) - set(VERB_OPTIONS[verb]))
    if unknown:
        raise InvalidInput(
            "error.unknown_option", option=unknown[0][:40], known=", ".join(VERB_OPTIONS[verb])
        )
    if state.ended:
        raise IllegalAction("error.victory.game_over")
    battle = battle_of(state)
    if verb == CONCEDE:
        side = _side_option(state, options, "side", actor_side)
        if actor_side is not None and side != actor_side:
            raise IllegalAction("error.victory.concede_own", side=state.sides[side])
        ending = Ending(EndingKind.CONCESSION, state.turn, side)
        return conclude(
            state, battle, ending, result, winner=battle.enemy(side), level=Level.DECISIVE
        )
    if actor_side is not None:
        raise IllegalAction("error.victory.referee_only")
    winner_text = str(options.get("winner") or "").strip()
    winner = (
        None if winner_text.lower() == NO_WINNER else _side_option(state, options, "winner", None)
    )
    level = _level_option(options, winner)
    reason = str(options.get("reason") or "").strip()
    if not reason:
        raise InvalidInput("error.option.missing", option="reason")
    if len(reason) > MAX_REASON:
        raise InvalidInput("error.option.too_long", option="reason", limit=str(MAX_REASON))
    ending = Ending(EndingKind.DECISION, state.turn, None, None, reason)
    return conclude(state, battle, ending, result, winner=winner, level=level)


def _side_option(
    state: VictoryState, options: Mapping[str, Any], name: str, default: str | None
) -> str:
    value = str(options.get(name) or "").strip() or default
    if value is None:
        raise InvalidInput("error.option.missing", option=name)
    for side, side_name in state.sides.items():
        if value.lower() == side.lower() or is_named(side_name, value):
            return side
    raise InvalidInput("error.victory.unknown_side", name=value[:40], known=", ".join(state.sides))


def _level_option(options: Mapping[str, Any], winner: str | None) -> Level:
    text = str(options.get("level") or "").strip().lower()
    if winner is None:
        if text not in ("", Level.DRAW.value):
            raise InvalidInput("error.victory.draw_has_no_level")
        return Level.DRAW
    if not text:
        return Level.MARGINAL
    if text not in (Level.DECISIVE.value, Level.MARGINAL.value):
        raise InvalidInput("error.option.not_a_choice", option="level", known="decisive, marginal")
    return Level(text)
