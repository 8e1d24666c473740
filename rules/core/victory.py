"""Victory conditions: the ``victory:`` section a scenario of any ruleset may carry.

A small shared vocabulary, checked at load like the rest of the scenario (every refusal
names its line through :class:`ScenarioReferenceError`)::

    victory:
      objectives:                 # held at the end (or at the end of stated turns)
        - {id: fattoria, name: "La fattoria", area: fattoria, points: 3}
        - {id: crocevia, name: "Il crocevia", point: crocevia, radius: 10, points: 2}
        - {id: ponte, name: "Le pont", hexes: ["4,3"], points: 2, turns: [3, 6]}
      losses:                     # the enemy of ``side`` scores for ``side``'s losses
        - {side: asse, destroyed: 2, below_half: 1}
        - {side: alleati, share: 50, share_points: 3}
      exits:                      # units of ``side`` that reach an edge
        - {side: alleati, edge: north, points: 2}
      sudden_death:               # the game ends at once, won by the other side (or the taker)
        - {kind: wiped_out}
        - {kind: broken, side: asse}
        - {kind: objective, objective: fattoria, side: alleati}
      end:                        # the scenario's ``turns``, maybe extended by a die
        extension: {die: D6, at_least: 4, turns: 1}
      levels: {marginal: 1, decisive: 5}   # the points' difference

What each ruleset means by a unit that "may score", a unit "destroyed" or "broken", and
the strength losses are counted in (figures, models, steps), it says in its
:class:`Dialect` and its ``victory`` module; the scoring itself is :mod:`rules.core.score`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from rules.core.battlefield import Battlefield
from rules.core.dice import parse_die
from rules.core.errors import DiceError
from rules.core.scenario import Location, ScenarioReferenceError
from rules.core.words import LocalizedName

_ID = r"^[a-z0-9][a-z0-9_\-]{0,39}$"
#: The most objectives, loss, exit and sudden-death entries a scenario may list: each is
#: measured against every unit whenever the score is asked for (every status view).
MAX_OBJECTIVES = 20
MAX_ENTRIES = 10
Points = Annotated[int, Field(ge=0, le=1000)]
Edge = Literal["north", "south", "east", "west"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ObjectiveSpec(_Model):
    """A place worth points to the side holding it: a unit there and no enemy.

    The place is one of: a named ``point`` of the battlefield (held within ``radius`` of
    it; the ruleset's default radius when not given), a terrain ``area`` (held inside
    it), or ``hexes`` of a hex map. Scored at the end of the game, or, when ``turns`` are
    given, at the end of each of those turns (points each time).
    """

    id: str = Field(pattern=_ID)
    #: A plain string, or ``{it: …, en: …, fr: …}`` (a bundled scenario's, read in the
    #: game's language).
    name: LocalizedName
    point: str | None = Field(None, max_length=40)
    area: str | None = Field(None, max_length=40)
    hexes: tuple[str, ...] = Field((), max_length=20)
    radius: float | None = Field(None, gt=0, le=1000, allow_inf_nan=False)
    points: Points = 1
    turns: tuple[Annotated[int, Field(ge=1, le=100)], ...] = Field((), max_length=20)
    sides: tuple[str, ...] = Field((), max_length=2, description="who may score it (all)")
    scoring_only: bool = Field(True, description="only units that may score hold it")

    @model_validator(mode="after")
    def _one_place(self) -> ObjectiveSpec:
        given = [name for name in ("point", "area") if getattr(self, name) is not None]
        given += ["hexes"] if self.hexes else []
        if len(given) != 1:
            raise ValueError(
                f"objective {self.id}: give exactly one of point, area or hexes "
                f"(found {', '.join(given) or 'none'})"
            )
        if self.radius is not None and self.point is None:
            raise ValueError(f"objective {self.id}: a radius goes with a point")
        if len(set(self.turns)) != len(self.turns) or list(self.turns) != sorted(self.turns):
            raise ValueError(f"objective {self.id}: turns must be distinct and in order")
        return self

    @property
    def times(self) -> int:
        """How many times it is scored in a whole game."""
        return len(self.turns) or 1


class LossesSpec(_Model):
    """Points to the enemy of ``side`` for ``side``'s losses: per unit destroyed, per unit
    below half its strength (not destroyed), and once for a ``share`` (%) of its whole
    force lost, counted in the ruleset's strength (figures, models, steps)."""

    side: str
    destroyed: Points = 0
    below_half: Points = 0
    share: int | None = Field(None, ge=1, le=100)
    share_points: Points = 0

    @model_validator(mode="after")
    def _share(self) -> LossesSpec:
        if (self.share is None) != (self.share_points == 0):
            raise ValueError("share and share_points go together")
        return self


class ExitSpec(_Model):
    """Points to ``side`` for each of its units (or of ``units``) that reaches an edge.

    A unit counts as having left by the edge while it stands within ``depth`` of it (the
    ruleset's default when not given); on a hex map, in a hex of the edge's row or column.
    """

    side: str
    edge: Edge
    points: Points = 1
    depth: float | None = Field(None, gt=0, le=1000, allow_inf_nan=False)
    units: tuple[str, ...] = Field((), max_length=60)


class SuddenDeathSpec(_Model):
    """What ends the game at once.

    ``wiped_out``: ``side`` (either, when not given) has no unit left in play;
    ``broken``: every platoon of ``side`` (either) is broken or routed, as the ruleset
    says; ``objective``: ``side`` holds ``objective`` at the end of a turn. The other side
    (the taker, for an objective) wins at ``level``.
    """

    kind: Literal["wiped_out", "broken", "objective"]
    side: str | None = None
    objective: str | None = None
    level: Literal["decisive", "marginal"] = "decisive"

    @model_validator(mode="after")
    def _fields(self) -> SuddenDeathSpec:
        if self.kind == "objective" and (self.objective is None or self.side is None):
            raise ValueError("an objective sudden death names its objective and side")
        if self.kind != "objective" and self.objective is not None:
            raise ValueError(f"a {self.kind} sudden death names no objective")
        return self


class ExtensionSpec(_Model):
    """A random extension: at the end of the last turn a ``die`` is rolled, and on
    ``at_least`` or more another turn is played, at most ``turns`` times."""

    die: str = Field("D6", max_length=8)
    at_least: int = Field(ge=1, le=100)
    turns: int = Field(1, ge=1, le=10)

    @property
    def sides(self) -> int:
        """The faces of the die (checked at load)."""
        return parse_die(self.die).sides


class EndSpec(_Model):
    """How the game ends besides sudden death: the scenario's ``turns``, maybe extended."""

    extension: ExtensionSpec | None = None


class LevelsSpec(_Model):
    """The win levels by the points' difference: ``decisive`` or more, ``marginal`` or
    more; less is a draw."""

    marginal: int = Field(1, ge=1, le=10_000)
    decisive: int = Field(ge=1, le=10_000)


class VictoryConditions(_Model):
    """The ``victory:`` section of a scenario."""

    objectives: tuple[ObjectiveSpec, ...] = Field((), max_length=MAX_OBJECTIVES)
    losses: tuple[LossesSpec, ...] = Field((), max_length=MAX_ENTRIES)
    exits: tuple[ExitSpec, ...] = Field((), max_length=MAX_ENTRIES)
    sudden_death: tuple[SuddenDeathSpec, ...] = Field((), max_length=MAX_ENTRIES)
    end: EndSpec = EndSpec()
    # None: any lead wins marginally (decisive wins come from sudden death only).
    levels: LevelsSpec | None = None

    def objective(self, objective_id: str) -> ObjectiveSpec | None:
        """An objective by id."""
        return next((o for o in self.objectives if o.id == objective_id), None)


@dataclass(frozen=True, slots=True)
class Dialect:
    """What a ruleset means by the shared words (its extension of the vocabulary).

    ``strength``: what losses are counted in (a ``victory.strength.*`` catalogue word);
    ``radius`` and ``depth``: the default reach of a point objective and of an exit edge,
    in the table's unit; ``sudden_death``: the kinds it can tell (a ruleset without
    platoons has no ``broken``); ``hexes``: whether its places are hexes.
    """

    ruleset: str
    strength: Literal["models", "figures", "steps"]
    radius: float = 0.0
    depth: float = 0.0
    sudden_death: frozenset[str] = frozenset({"wiped_out", "broken", "objective"})
    hexes: bool = False


@dataclass(frozen=True, slots=True)
class VictoryContext:
    """What the victory section is checked against: the scenario's sides and their units
    (in order), its table (None: none), and, on a hex map, which hexes exist."""

    dialect: Dialect
    units: Mapping[str, Sequence[str]]  # side id → unit ids
    battlefield: Battlefield | None = None
    on_map: Callable[[str], bool] | None = None


def check_victory(
    conditions: VictoryConditions, context: VictoryContext, at: Location = ("victory",)
) -> None:
    """Refuse victory conditions that do not fit the scenario, naming the offending line:
    a side or unit that does not exist, an objective off the table or on no hex, levels
    that overlap or cannot be reached, points that cannot add up, a die that is not one."""
    sides = set(context.units)
    _check_objectives(conditions, context, at)
    for index, losses in enumerate(conditions.losses):
        _known_side(losses.side, sides, (*at, "losses", index, "side"))
    units = {unit: side for side, ids in context.units.items() for unit in ids}
    for index, exit_spec in enumerate(conditions.exits):
        where = (*at, "exits", index)
        _known_side(exit_spec.side, sides, (*where, "side"))
        if context.battlefield is None and not context.dialect.hexes:
            raise ScenarioReferenceError(
                "an exit needs a battlefield: this scenario has none", where
            )
        for position, unit in enumerate(exit_spec.units):
            if units.get(unit) != exit_spec.side:
                raise ScenarioReferenceError(
                    f"exit: {unit!r} is not a unit of {exit_spec.side}",
                    (*where, "units", position),
                )
    for index, sudden in enumerate(conditions.sudden_death):
        where = (*at, "sudden_death", index)
        if sudden.kind not in context.dialect.sudden_death:
            raise ScenarioReferenceError(
                f"{context.dialect.ruleset} cannot tell a {sudden.kind} sudden death; known: "
                + ", ".join(sorted(context.dialect.sudden_death)),
                (*where, "kind"),
            )
        if sudden.side is not None:
            _known_side(sudden.side, sides, (*where, "side"))
        if sudden.objective is not None and conditions.objective(sudden.objective) is None:
            raise ScenarioReferenceError(
                f"sudden death: unknown objective {sudden.objective!r}", (*where, "objective")
            )
    extension = conditions.end.extension
    if extension is not None:
        where = (*at, "end", "extension")
        try:
            faces = extension.sides
        except DiceError:
            raise ScenarioReferenceError(
                f"{extension.die!r} is not a die (write D6, D10…)", (*where, "die")
            ) from None
        if not 2 <= extension.at_least <= faces:
            raise ScenarioReferenceError(
                f"at_least {extension.at_least} on a {extension.die.upper()}: the roll must be "
                f"able both to extend the game and to end it (2 to {faces})",
                (*where, "at_least"),
            )
    _check_levels(conditions, context, at)


def _known_side(side: str, sides: set[str], where: Location) -> None:
    if side not in sides:
        raise ScenarioReferenceError(
            f"unknown side {side!r}; the sides are {', '.join(sorted(sides))}", where
        )


def _check_objectives(conditions: VictoryConditions, context: VictoryContext, at: Location) -> None:
    seen: set[str] = set()
    field = context.battlefield
    for index, objective in enumerate(conditions.objectives):
        where = (*at, "objectives", index)
        if objective.id in seen:
            raise ScenarioReferenceError(f"objective id {objective.id!r} is used twice", where)
        seen.add(objective.id)
        for position, side in enumerate(objective.sides):
            _known_side(side, set(context.units), (*where, "sides", position))
        if context.dialect.hexes:
            if not objective.hexes:
                raise ScenarioReferenceError(
                    f"objective {objective.id}: on a hex map an objective is hexes", where
                )
            for position, hex_id in enumerate(objective.hexes):
                if context.on_map is None or not context.on_map(hex_id):
                    raise ScenarioReferenceError(
                        f"objective {objective.id}: hex {hex_id!r} is not on the map",
                        (*where, "hexes", position),
                    )
            continue
        if objective.hexes:
            raise ScenarioReferenceError(
                f"objective {objective.id}: this table has no hexes (give a point or an area)",
                (*where, "hexes"),
            )
        if field is None:
            raise ScenarioReferenceError(
                f"objective {objective.id} needs a battlefield: this scenario has none", where
            )
        if objective.point is not None and objective.point not in field.points:
            raise ScenarioReferenceError(
                f"objective {objective.id}: {objective.point!r} is not a named point of the "
                f"battlefield (known: {', '.join(field.points) or 'none'})",
                (*where, "point"),
            )
        if objective.area is not None and objective.area not in {a.id for a in field.areas}:
            raise ScenarioReferenceError(
                f"objective {objective.id}: {objective.area!r} is not a terrain area of the "
                "battlefield",
                (*where, "area"),
            )


def most_points(conditions: VictoryConditions, units: Mapping[str, Sequence[str]]) -> int:
    """The most points one side can score in a whole game: every objective it may hold,
    every enemy unit destroyed and the enemy's whole share, every unit of its own out."""
    best = 0
    for side, own in units.items():
        enemies = sum(len(ids) for other, ids in units.items() if other != side)
        total = sum(
            o.points * o.times for o in conditions.objectives if side in (o.sides or (side,))
        )
        for losses in conditions.losses:
            if losses.side != side:
                total += max(losses.destroyed, losses.below_half) * enemies + losses.share_points
        for exit_spec in conditions.exits:
            if exit_spec.side == side:
                total += exit_spec.points * len(exit_spec.units or own)
        best = max(best, total)
    return best


def _check_levels(conditions: VictoryConditions, context: VictoryContext, at: Location) -> None:
    levels = conditions.levels
    if levels is None:
        return
    where = (*at, "levels")
    if levels.marginal >= levels.decisive:
        raise ScenarioReferenceError(
            f"levels overlap: a marginal win from {levels.marginal} and a decisive one from "
            f"{levels.decisive} (decisive must be more)",
            (*where, "marginal"),
        )
    available = most_points(conditions, context.units)
    if levels.decisive > available:
        raise ScenarioReferenceError(
            f"a decisive win needs a difference of {levels.decisive} points, but a side can "
            f"score at most {available}: the points cannot add up",
            (*where, "decisive"),
        )
