"""The score of a game "if it ended now", and the result of a game that has ended.

Both are typed values carrying no text: each line is a catalogue key with its parameters
(:class:`Outcome`), rendered by the front ends in the game's language, and both round-trip
through JSON (``to_json``/``from_json``) so the bot can keep a result in an event.

A ruleset describes its state as a :class:`Battle` (each unit as a :class:`Piece`: where
it is, whether it may score, its strength now and at the start, destroyed or broken, as
that ruleset counts them); :func:`compute_score` reads the scenario's
:class:`VictoryConditions` over it.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pydantic import TypeAdapter

from rules.core.battlefield import Battlefield, CircleShape, ObjectiveMark, Point
from rules.core.geometry import contains, distance
from rules.core.i18n import translate
from rules.core.resolution import Outcome
from rules.core.victory import (
    Dialect,
    ExitSpec,
    LevelsSpec,
    LossesSpec,
    ObjectiveSpec,
    VictoryConditions,
)
from rules.core.words import in_language, named_again


class Level(enum.StrEnum):
    """How a game was won: decisively, marginally, or not at all."""

    DECISIVE = "decisive"
    MARGINAL = "marginal"
    DRAW = "draw"


class EndingKind(enum.StrEnum):
    """How a game ended."""

    TURN_LIMIT = "turn_limit"
    SUDDEN_DEATH = "sudden_death"
    CONCESSION = "concession"
    DECISION = "decision"


class LineKind(enum.StrEnum):
    """What a score line counts."""

    OBJECTIVE = "objective"
    LOSSES = "losses"
    EXITS = "exits"


# --- what a ruleset says of its state ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class Piece:
    """A unit as victory sees it.

    ``at`` (a measured table) or ``hex`` (a hex map, "q,r") is where it stands, None when
    it is off the table; ``in_play``: alive (on the table or off it); ``fighting``: counts
    for a side wiped out or broken (off-table batteries and aircraft do not); ``broken``:
    routed, fled, in panic as the ruleset says; ``strength``/``initial``: figures, models
    or steps now and at the start (0 when destroyed).
    """

    id: str
    side: str
    in_play: bool
    may_score: bool
    strength: int
    initial: int
    at: Point | None = None
    hex: str | None = None
    fighting: bool = True
    broken: bool = False
    hidden: bool = False  # hidden from the enemy: a map for others does not count it

    @property
    def on_table(self) -> bool:
        """In play and somewhere on the table or map."""
        return self.in_play and (self.at is not None or self.hex is not None)


@dataclass(frozen=True, slots=True)
class Battle:
    """A ruleset's state as victory reads it."""

    dialect: Dialect
    sides: Mapping[str, str]  # side id → name, in the scenario's order
    turn: int
    pieces: tuple[Piece, ...]
    battlefield: Battlefield | None = None
    map_size: tuple[int, int] | None = None  # a hex map's columns and rows

    def enemy(self, side: str) -> str:
        """The other side (every ruleset plays two)."""
        return next(s for s in self.sides if s != side)

    def seen_by(self, side: str | None, *, referee: bool = False) -> Battle:
        """The battle as a reader knows it: a piece hidden from the enemy counts only for
        its own side (``side``) and the referee, so nothing computed from it (who holds an
        objective, a side's losses, its exits) reads differently with the piece gone."""
        if referee or not any(p.hidden for p in self.pieces):
            return self
        return replace(self, pieces=tuple(p for p in self.pieces if not p.hidden or p.side == side))


# --- the values ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ScoreLine:
    """One line of a score: an objective and who holds it, one side's losses, one side's
    exits; ``side`` is who scores it (None: nobody), ``points`` what it is worth to them."""

    kind: LineKind
    subject: str  # the objective's id, or the side whose losses or exits these are
    side: str | None
    points: int
    text: Outcome
    turn: int | None = None  # an objective scored at the end of a stated turn


@dataclass(frozen=True, slots=True)
class Score:
    """Every side's points and the lines they come from."""

    sides: tuple[str, ...]
    lines: tuple[ScoreLine, ...] = ()
    totals: tuple[tuple[str, int], ...] = ()
    level: Level = Level.DRAW  # what the difference alone is worth
    leader: str | None = None

    def total(self, side: str) -> int:
        """One side's points."""
        return dict(self.totals).get(side, 0)

    @property
    def margin(self) -> int:
        """The leader's lead over the other side (0: level)."""
        values = sorted((points for _, points in self.totals), reverse=True)
        return values[0] - values[1] if len(values) > 1 else (values[0] if values else 0)

    @property
    def empty(self) -> bool:
        """No victory conditions to score."""
        return not self.lines

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        data: dict[str, Any] = _SCORE.dump_python(self, mode="json")
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Score:
        """Rebuild a score stored with :meth:`to_json`."""
        return _SCORE.validate_python(dict(data))


@dataclass(frozen=True, slots=True)
class Ending:
    """How the game ended: the turn limit, a sudden death (``condition``: its kind, and
    the objective's id for a taken objective; ``side``: the side that fell or took it),
    a side's concession (``side``), or the referee's decision (with its ``reason``)."""

    kind: EndingKind
    turn: int
    side: str | None = None
    condition: str | None = None
    reason: str = ""


@dataclass(frozen=True, slots=True)
class GameResult:
    """The result of an ended game: how it ended, who won (None: nobody), how, the score's
    breakdown at the end, and a one-line summary to render."""

    ending: Ending
    winner: str | None
    level: Level
    score: Score
    summary: Outcome = field(default_factory=lambda: Outcome("victory.result.draw.turn_limit"))

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (for an event of the game's chain)."""
        data: dict[str, Any] = _RESULT.dump_python(self, mode="json")
        return data

    def named(self, names: Sequence[str]) -> GameResult:
        """The same result with every parameter that spells one of ``names`` (the
        scenario's objectives, in every language) given that name again: a result kept in
        a document or an event keeps them as plain (Italian) text, and a French reader of
        the final score should read "La chapelle" as the map does, not "La chiesetta"."""

        def again(outcome: Outcome) -> Outcome:
            return Outcome(
                outcome.key,
                tuple(
                    (key, named_again(value, names) if isinstance(value, str) else value)
                    for key, value in outcome.params
                ),
            )

        lines = tuple(replace(line, text=again(line.text)) for line in self.score.lines)
        return replace(self, score=replace(self.score, lines=lines), summary=again(self.summary))

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GameResult:
        """Rebuild a result stored with :meth:`to_json`."""
        return _RESULT.validate_python(dict(data))


_SCORE: TypeAdapter[Score] = TypeAdapter(Score)
_RESULT: TypeAdapter[GameResult] = TypeAdapter(GameResult)


# --- computing -------------------------------------------------------------------------


def holder(objective: ObjectiveSpec, battle: Battle) -> tuple[str | None, bool]:
    """Who holds an objective now, and whether it is contested.

    Held by a side with a unit there (one that may score, unless the objective says any
    unit will do; of a side allowed to score it) and no enemy unit there at all.
    """
    present: set[str] = set()
    holding: set[str] = set()
    allowed = set(objective.sides or battle.sides)
    for piece in battle.pieces:
        if not piece.on_table or not _inside(objective, piece, battle):
            continue
        present.add(piece.side)
        if piece.side in allowed and (piece.may_score or not objective.scoring_only):
            holding.add(piece.side)
    if len(present) > 1:
        return None, True
    return (next(iter(holding)) if holding else None), False


def _inside(objective: ObjectiveSpec, piece: Piece, battle: Battle) -> bool:
    if objective.hexes:
        return piece.hex in objective.hexes
    field = battle.battlefield
    if field is None or piece.at is None:
        return False
    if objective.point is not None:
        centre = field.points[objective.point]
        return distance(piece.at, centre) <= (objective.radius or battle.dialect.radius)
    area = next(a for a in field.areas if a.id == objective.area)
    return contains(area.shape, piece.at)


def objective_lines(
    conditions: VictoryConditions,
    battle: Battle,
    held: Mapping[str, Sequence[tuple[int, str | None]]],
) -> list[ScoreLine]:
    """One line per objective: held now (scored at the end), or one per stated turn
    recorded in ``held`` (objective id → (turn, holder) at the end of each stated turn)."""
    lines: list[ScoreLine] = []
    for objective in conditions.objectives:
        if objective.turns:
            for turn, side in held.get(objective.id, ()):
                lines.append(_objective_line(objective, battle, side, contested=False, turn=turn))
            continue
        side, contested = holder(objective, battle)
        lines.append(_objective_line(objective, battle, side, contested=contested))
    return lines


def _objective_line(
    objective: ObjectiveSpec,
    battle: Battle,
    side: str | None,
    *,
    contested: bool,
    turn: int | None = None,
) -> ScoreLine:
    points = objective.points if side is not None else 0
    state = "held" if side is not None else ("contested" if contested else "empty")
    text = Outcome.of(
        f"victory.line.objective.{state}" + ("_at" if turn is not None else ""),
        objective=objective.name,
        side=battle.sides[side] if side is not None else None,
        points=points,
        turn=turn,
    )
    return ScoreLine(LineKind.OBJECTIVE, objective.id, side, points, text, turn)


def loss_line(losses: LossesSpec, battle: Battle) -> ScoreLine:
    """The points the enemy of ``losses.side`` scores for that side's losses."""
    own = [p for p in battle.pieces if p.side == losses.side]
    destroyed = sum(1 for p in own if not p.in_play)
    below_half = sum(1 for p in own if p.in_play and p.strength * 2 < p.initial)
    start = sum(p.initial for p in own)
    lost = sum(p.initial - (p.strength if p.in_play else 0) for p in own)
    percent = (100 * lost) // start if start else 0
    points = destroyed * losses.destroyed + below_half * losses.below_half
    if losses.share is not None and percent >= losses.share:
        points += losses.share_points
    scorer = battle.enemy(losses.side)
    text = Outcome.of(
        f"victory.line.losses.{battle.dialect.strength}",
        side=battle.sides[losses.side],
        scorer=battle.sides[scorer],
        destroyed=destroyed,
        below_half=below_half,
        lost=lost,
        start=start,
        percent=percent,
        points=points,
    )
    return ScoreLine(LineKind.LOSSES, losses.side, scorer, points, text)


def exited(spec: ExitSpec, battle: Battle) -> list[Piece]:
    """The units of ``spec.side`` that have reached its edge."""
    found = []
    for piece in battle.pieces:
        if piece.side != spec.side or not piece.on_table:
            continue
        if spec.units and piece.id not in spec.units:
            continue
        if _at_edge(spec, piece, battle):
            found.append(piece)
    return found


def _at_edge(spec: ExitSpec, piece: Piece, battle: Battle) -> bool:
    if piece.hex is not None and battle.map_size is not None:
        columns, rows = battle.map_size
        q, _, r = piece.hex.partition(",")
        col, row = int(q), int(r)
        return {
            "north": row == 0,
            "south": row == rows - 1,
            "west": col == 0,
            "east": col == columns - 1,
        }[spec.edge]
    field = battle.battlefield
    if field is None or piece.at is None:
        return False
    depth = spec.depth or battle.dialect.depth
    return {
        "north": piece.at.y >= field.height_cm - depth,
        "south": piece.at.y <= depth,
        "west": piece.at.x <= depth,
        "east": piece.at.x >= field.width_cm - depth,
    }[spec.edge]


def exit_line(spec: ExitSpec, battle: Battle) -> ScoreLine:
    """The points ``spec.side`` scores for its units at the edge."""
    count = len(exited(spec, battle))
    points = count * spec.points
    text = Outcome.of(
        f"victory.line.exits.{spec.edge}",
        side=battle.sides[spec.side],
        units=count,
        points=points,
    )
    return ScoreLine(LineKind.EXITS, spec.side, spec.side, points, text)


def level_of(margin: int, levels: LevelsSpec | None) -> Level:
    """What a lead of ``margin`` points is worth."""
    if margin <= 0:
        return Level.DRAW
    if levels is None:
        return Level.MARGINAL
    if margin >= levels.decisive:
        return Level.DECISIVE
    return Level.MARGINAL if margin >= levels.marginal else Level.DRAW


def compute_score(
    conditions: VictoryConditions | None,
    battle: Battle,
    held: Mapping[str, Sequence[tuple[int, str | None]]] | None = None,
) -> Score:
    """The score if the game ended now (empty without victory conditions)."""
    sides = tuple(battle.sides)
    if conditions is None:
        return Score(sides, totals=tuple((side, 0) for side in sides))
    lines = objective_lines(conditions, battle, held or {})
    lines += [loss_line(losses, battle) for losses in conditions.losses]
    lines += [exit_line(spec, battle) for spec in conditions.exits]
    totals = {side: 0 for side in sides}
    for line in lines:
        if line.side is not None:
            totals[line.side] += line.points
    ranked = sorted(totals.items(), key=lambda item: -item[1])
    margin = ranked[0][1] - ranked[1][1] if len(ranked) > 1 else 0
    level = level_of(margin, conditions.levels)
    leader = ranked[0][0] if level is not Level.DRAW else None
    return Score(sides, tuple(lines), tuple(totals.items()), level, leader)


def result_of(
    ending: Ending,
    score: Score,
    names: Mapping[str, str],
    *,
    winner: str | None = None,
    level: Level | None = None,
    objectives: Mapping[str, str] | None = None,
) -> GameResult:
    """The result of a game that ended with ``ending`` on ``score``.

    The turn limit goes by the score; a sudden death, a concession and the referee's
    decision name their winner and level (``winner``/``level``), the score still shown.
    ``objectives`` (id → name) names a taken objective in the summary.
    """
    if ending.kind is EndingKind.TURN_LIMIT:
        winner, level = score.leader, score.level
    level = Level.DRAW if winner is None else (level or Level.MARGINAL)
    summary = Outcome.of(
        f"victory.result.{level.value}.{_ending_word(ending)}",
        winner=None if winner is None else names[winner],
        side=None if ending.side is None else names[ending.side],
        objective=_objective_name(ending, objectives),
        reason=ending.reason or None,
        turn=ending.turn,
    )
    return GameResult(ending, winner, level, score, summary)


def _ending_word(ending: Ending) -> str:
    """The catalogue word of an ending: its kind, and for a sudden death its condition."""
    if ending.kind is EndingKind.SUDDEN_DEATH and ending.condition:
        return f"sudden_death_{ending.condition.partition(':')[0]}"
    return ending.kind.value


def _objective_name(ending: Ending, objectives: Mapping[str, str] | None) -> str | None:
    if ending.condition is None or not ending.condition.startswith("objective:"):
        return None
    objective = ending.condition.partition(":")[2]
    return (objectives or {}).get(objective, objective)


def objective_marks(
    conditions: VictoryConditions | None,
    battle: Battle,
    language: str,
    viewer: str | None = None,
    *,
    public: bool = False,
) -> tuple[ObjectiveMark, ...]:
    """The objectives as a map draws them, with who holds each now (labels in
    ``language``), as far as the viewer sees: units hidden from the enemy count only in
    their own side's view (``viewer``) and the referee's (None, not ``public``)."""
    if conditions is None:
        return ()
    if public or viewer is not None:
        battle = battle.seen_by(None if public else viewer)
    marks = []
    for objective in conditions.objectives:
        side, contested = holder(objective, battle)
        named = in_language(objective.name, language)
        if side is not None:
            label = translate(
                "victory.map.held", language, objective=named, side=battle.sides[side]
            )
        elif contested:
            label = translate("victory.map.contested", language, objective=named)
        else:
            label = named
        marks.append(
            ObjectiveMark(
                label=label,
                shape=_objective_shape(objective, battle),
                hexes=tuple(_hex_cell(text) for text in objective.hexes),
                holder=side,
                contested=contested,
            )
        )
    return tuple(marks)


def _objective_shape(objective: ObjectiveSpec, battle: Battle) -> Any:
    field = battle.battlefield
    if field is None or objective.hexes:
        return None
    if objective.point is not None:
        radius = objective.radius or battle.dialect.radius
        return CircleShape(center=field.points[objective.point], radius=radius)
    return next(a.shape for a in field.areas if a.id == objective.area)


def _hex_cell(text: str) -> tuple[int, int]:
    q, _, r = text.partition(",")
    return int(q), int(r)
