"""Manovra procedures without fire: the TEST table, scatter, communications, observation."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from rules.core.dice import D6, DiceTray, Die, parse_die
from rules.core.errors import InvalidInput
from rules.core.formula import parse_formula
from rules.core.resolution import (
    Comparison,
    Modifier,
    Outcome,
    Resolution,
    ResolutionBuilder,
    TableRead,
    Threshold,
)
from rules.manovra.model import RULESET_KEY
from rules.manovra.tables import load_tables


class Frozen(BaseModel):
    """Base of procedure inputs: strict about unknown fields, immutable, hashable."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class TestKind(enum.StrEnum):
    """The eight tests of the TEST table."""

    IT = "IT"
    DFR = "DFR"
    IFR = "IFR"
    SF = "SF"
    CT = "CT"
    PT = "PT"
    ET = "ET"
    CC = "CC"


class TestInput(Frozen):
    """A test of the TEST table for one unit (and its opponent, for IT and CC)."""

    kind: TestKind
    ad: int = Field(ge=0, le=3, description="AD of the unit (0 recruits … 3 elite)")
    cv: int = Field(0, ge=0, le=3, description="CV of the unit's leader")
    opponent_ad: int = Field(0, ge=0, le=3, description="IT/CC: the opponent's AD")
    opponent_cv: int = Field(0, ge=0, le=3, description="IT: the opponent's CV")
    precision_die: Literal["D10", "D12"] = Field(
        "D10", description="PT only: D10 or D12 as the target demands"
    )
    crew_losses: bool = Field(
        False, description="IT of a vehicle, gun or mortar crew with 1+ dead (PERDITE EQUIPAGGI)"
    )
    opponent_crew_losses: bool = False
    opponent_side: str | None = Field(
        None, max_length=64, description="IT/CC: the side rolling the opponent's D6"
    )
    modifier: int = Field(0, ge=-6, le=6, description="a modifier granted by the referee")


def _fixed_face() -> int:
    row = load_tables()["perdite_equipaggi"].row_by_id("almeno_un_morto")
    return int(row.data["fixed_die_face"])


def _test_side(
    adds: list[str], values: dict[str, int], fixed: bool
) -> tuple[tuple[Modifier, ...], int, int | None]:
    """One side's named values: its modifiers, what they add, and the fixed face of a crew
    with losses (None: the side rolls its D6)."""
    modifiers: list[Modifier] = []
    base: int | None = None
    if fixed:
        base = _fixed_face()
        modifiers.append(Modifier("manovra.mod.crew_fixed_die", base))
    extra = [Modifier(f"manovra.mod.{name.lower()}", values[name]) for name in adds]
    return (*modifiers, *extra), sum(m.value for m in extra), base


@dataclass(frozen=True, slots=True)
class _TestRule:
    """What the TEST table says of one test, read once."""

    adds: tuple[str, ...]
    comparison: Comparison
    read: TableRead
    opposed: bool
    choice: bool  # the die to beat is chosen among ``dice`` (PT)
    dice: tuple[str, ...]


@lru_cache(maxsize=32)
def _test_rule(kind: TestKind) -> _TestRule:
    table = load_tables()["test"]
    row = table.row_by_id(kind.value)
    rule: dict[str, Any] = row.data
    read = TableRead(
        table.id, table.title, row.label or kind.value, "esito", table.cell(row, "esito")
    )
    opposed = rule.get("against") == "opposed"
    choice = "against_choice" in rule
    dice = rule["against_choice"] if choice else () if opposed else rule["against"][:1]
    return _TestRule(
        tuple(str(name) for name in rule["add"]),
        Comparison(str(rule["comparison"])),
        read,
        opposed,
        choice,
        tuple(str(die) for die in dice),
    )


@lru_cache(maxsize=64)
def _die(name: str) -> Die:
    # A test's die is named on every odds path: parsed once per name.
    return parse_die(name)


def resolve_test(data: TestInput, tray: DiceTray) -> Resolution:
    """Resolve one test: D6 + AD (+ CV) against a die (≥) or against the opponent (>).

    Both dice of a test are rolled together (the unit's D6 first). Whether the test passes
    (or is won, tied, lost) depends on the difference of the two faces alone, so the odds
    branch on the distinct results, not on every pair of faces.
    """
    rule = _test_rule(data.kind)
    comparison = rule.comparison
    builder = ResolutionBuilder(RULESET_KEY, "test", tray)
    fixed_own = data.crew_losses and data.kind is TestKind.IT
    own_mods, own_add, own_base = _test_side(
        list(rule.adds), {"AD": data.ad, "CV": data.cv}, fixed_own
    )
    if data.modifier:
        own_mods = (*own_mods, Modifier("manovra.mod.referee", data.modifier))
        own_add += data.modifier
    own_total = own_add if own_base is None else own_add + own_base
    # The unit's die adds to its total, the other die to what it must beat: their signed
    # sum, with the fixed parts, is all the comparison reads.
    dice: list[Die] = []
    labels: list[str] = []
    signs: list[int] = []
    owners: list[str | None] = []
    if own_base is None:
        dice.append(D6)
        labels.append(f"{data.kind.value} — D6")
        signs.append(1)
        owners.append(None)

    if rule.opposed:
        fixed_opp = data.opponent_crew_losses and data.kind is TestKind.IT
        opp_mods, opp_add, opp_base = _test_side(
            list(rule.adds), {"AD": data.opponent_ad, "CV": data.opponent_cv}, fixed_opp
        )
        opp_total = opp_add if opp_base is None else opp_add + opp_base
        if opp_base is None:
            # "Ogni giocatore lancia un D6": the opponent's die is rolled by its side.
            dice.append(D6)
            labels.append(f"{data.kind.value} — D6 enemy")
            signs.append(-1)
            owners.append(data.opponent_side or None)

        def verdict(margin: int) -> str:
            if comparison.holds(margin, 0):
                return "manovra.test.won"
            return "manovra.test.tie" if margin == 0 else "manovra.test.lost"

        before = own_total - opp_total
        rolls = tray.roll_sum_grouped(
            dice, labels, lambda rolled: verdict(before + rolled), signs, owners
        )
        own_rolls = rolls[: 1 if own_base is None else 0]
        opp_rolls = rolls[len(own_rolls) :]
        own_total += sum(roll.face for roll in own_rolls)
        opp_total += sum(roll.face for roll in opp_rolls)
        threshold = Threshold(comparison, opp_total, "manovra.threshold.opponent")
        outcome = Outcome.of(verdict(own_total - opp_total), test=data.kind.value)
        builder.step(
            "manovra.step.test_roll",
            rolls=own_rolls,
            modifiers=own_mods,
            total=own_total,
            threshold=threshold,
            table=rule.read,
            outcome=outcome,
            test=data.kind.value,
        )
        builder.step(
            "manovra.step.opponent_roll", rolls=opp_rolls, modifiers=opp_mods, total=opp_total
        )
        return builder.finish(outcome)

    if rule.choice:
        die = _die(data.precision_die)
        if die.name not in rule.dice:
            raise InvalidInput("error.manovra.bad_precision_die", die=die.name)
    else:
        die = _die(rule.dice[0])
    dice.append(die)
    labels.append(f"{data.kind.value} — {die.name}")
    signs.append(-1)

    before = own_total
    rolls = tray.roll_sum_grouped(
        dice, labels, lambda rolled: comparison.holds(before + rolled, 0), signs
    )
    target = rolls[-1]
    own_total += sum(roll.face for roll in rolls[:-1])
    threshold = Threshold(comparison, target.face, "manovra.threshold.die", (("die", die.name),))
    passed = comparison.holds(own_total, target.face)
    outcome = Outcome.of(
        "manovra.test.passed" if passed else "manovra.test.failed", test=data.kind.value
    )
    builder.step(
        "manovra.step.test_roll",
        rolls=rolls[:-1],
        modifiers=own_mods,
        total=own_total,
        threshold=threshold,
        table=rule.read,
        outcome=outcome,
        test=data.kind.value,
    )
    builder.step("manovra.step.threshold_roll", rolls=(target,), total=target.face, die=die.name)
    return builder.finish(outcome)


# -- IMPRECISIONE E DISPERSIONE TIRO --------------------------------------------------------


class ScatterKind(enum.StrEnum):
    """The rows of the scatter table."""

    DIRETTO_HE = "diretto_he"
    LANCIO_ORDIGNI = "lancio_ordigni"
    MORTAI_DIRETTO = "mortai_diretto"
    INDIRETTO_IN_CAMPO = "indiretto_in_campo"
    INDIRETTO_FUORI_CAMPO = "indiretto_fuori_campo"


class ScatterInput(Frozen):
    """Where an HE round lands: the kind of fire and the firer's AD and CV."""

    kind: ScatterKind
    ad: int = Field(ge=0, le=3)
    cv: int = Field(0, ge=0, le=3)


@dataclass(frozen=True, slots=True)
class _ScatterRule:
    """A scatter row's formula, read once: its dice in order and its named terms."""

    dice: tuple[Die, ...]
    labels: tuple[str, ...]
    signs: tuple[int, ...]
    named: tuple[tuple[str, int], ...]  # (AD or CV, sign) in the formula's order
    constant: int
    direction_die: Die
    read: TableRead
    zero_hits_point: bool


@lru_cache(maxsize=32)
def _scatter_rule(kind: ScatterKind) -> _ScatterRule:
    table = load_tables()["dispersione"]
    row = table.row_by_id(kind.value)
    formula = str(row.data["distance"])
    dice: list[Die] = []
    labels: list[str] = []
    signs: list[int] = []
    named: list[tuple[str, int]] = []
    constant = 0
    for term in parse_formula(formula):
        if term.die is not None:
            for index in range(term.count):
                suffix = f" #{index + 1}" if term.count > 1 else ""
                dice.append(term.die)
                labels.append(f"{kind.value} — {term.die.name}{suffix}")
                signs.append(term.sign)
        elif term.name is not None:
            named.append((term.name, term.sign))
        else:
            constant += term.sign * term.constant
    return _ScatterRule(
        tuple(dice),
        tuple(labels),
        tuple(signs),
        tuple(named),
        constant,
        parse_die(str(row.data["direction_die"])),
        TableRead(table.id, table.title, row.label or row.id or "", "descrizione", formula),
        bool(row.data.get("zero_hits_point")),
    )


def resolve_scatter(data: ScatterInput, tray: DiceTray) -> Resolution:
    """Roll the scatter formula of the row; ≤ 0 on the point where the row says so.

    The dice are rolled together, in the formula's order: the result reads only their
    distance (the direction die is shown), so the odds branch on the distinct distances.
    """
    rule = _scatter_rule(data.kind)
    values = {"AD": data.ad, "CV": data.cv}
    modifiers = tuple(
        Modifier(f"manovra.mod.{name.lower()}", sign * values[name]) for name, sign in rule.named
    )
    fixed = rule.constant + sum(sign * values[name] for name, sign in rule.named)
    signs = rule.signs
    # Every total ≤ 0 reads the same (on the point, or 0 cm): one group.
    rolls = list(
        tray.roll_sum_grouped(rule.dice, rule.labels, lambda rolled: max(rolled + fixed, 0), signs)
    )
    total = sum(sign * roll.face for sign, roll in zip(signs, rolls, strict=True)) + fixed
    direction = next(roll.face for roll in rolls if roll.die == rule.direction_die)
    read = rule.read
    if total <= 0 and rule.zero_hits_point:
        outcome = Outcome.of("manovra.scatter.on_point")
    else:
        outcome = Outcome.of("manovra.scatter.landed", cm=max(total, 0))
    builder = ResolutionBuilder(RULESET_KEY, "scatter", tray)
    builder.step(
        "manovra.step.scatter",
        rolls=tuple(rolls),
        modifiers=tuple(modifiers),
        total=total,
        table=read,
        outcome=outcome,
        direction=direction,
    )
    return builder.finish(outcome)


# -- COMUNICAZIONI --------------------------------------------------------------------------


class Link(enum.StrEnum):
    """Who talks to whom: the rows of COMUNICAZIONI, plus different platoons."""

    STESSA_SQUADRA = "stessa_squadra"
    STESSO_PLOTONE = "stesso_plotone"
    STESSO_PLOTONE_RADIO = "stesso_plotone_radio"
    ALTRO_PLOTONE = "altro_plotone"


class CommunicationInput(Frozen):
    """A communication attempt over a measured distance."""

    link: Link
    distance_cm: float = Field(ge=0, le=10_000)
    line_of_sight: Literal["diretta", "interrotta"] = "diretta"
    both_entrenched: bool = False


def resolve_communication(data: CommunicationInput, tray: DiceTray) -> Resolution:
    """Whether the two can communicate (no dice): the table, the 6 cm and 96 cm rules."""
    table = load_tables()["comunicazioni"]
    always = float(table.data["always_possible_cm"])
    entrenched = float(table.data["entrenched_max_cm"])
    builder = ResolutionBuilder(RULESET_KEY, "communication", tray)
    column = "linea_diretta" if data.line_of_sight == "diretta" else "linea_interrotta"
    if data.link is Link.ALTRO_PLOTONE:
        limit = always
        read = None
    else:
        row = table.row_by_id(data.link.value)
        key = "direct_cm" if column == "linea_diretta" else "interrupted_cm"
        limit = float(row.data[key])
        read = TableRead(
            table.id, table.title, row.label or row.id or "", column, table.cell(row, column)
        )
    rule = "table"
    if data.both_entrenched:
        limit, rule = entrenched, "entrenched"
    if data.distance_cm <= always and limit < always:
        limit, rule = always, "always"
    ok = data.distance_cm <= limit
    outcome = Outcome.of(
        "manovra.comms.ok" if ok else "manovra.comms.out_of_range",
        limit=int(limit) if limit.is_integer() else str(limit),
    )
    builder.step(
        "manovra.step.communication",
        table=read,
        total=round(data.distance_cm),
        threshold=Threshold(Comparison.AT_MOST, int(limit), "manovra.threshold.cm"),
        outcome=outcome,
        rule=rule,
    )
    return builder.finish(outcome)


# -- OSSERVAZIONE E INDIVIDUAZIONE -----------------------------------------------------------


class ObservedClass(enum.StrEnum):
    """The three groups of observed units."""

    CARRI = "carri"
    BASSI = "bassi"
    FANTERIA = "fanteria"


class ObservedTerrain(enum.StrEnum):
    """Terrain groups of the observed unit."""

    APERTO = "aperto"
    COPERTURA = "copertura"
    ALTRO = "altro"


class ObservedState(enum.StrEnum):
    """What the observed unit is doing."""

    APPOSTATA = "appostata"
    IN_MOVIMENTO = "in_movimento"
    HA_SPARATO = "ha_sparato"


class ObservationInput(Frozen):
    """Can an observer see a unit at this distance?"""

    observed: ObservedClass
    terrain: ObservedTerrain
    state: ObservedState
    distance_cm: float = Field(ge=0, le=10_000)
    from_loophole: bool = Field(False, description="observer behind a loophole (feritoia)")
    from_inside_area: bool = Field(False, description="observer inside the same terrain area")
    terrain_detail: str | None = Field(
        None, description="for split cells: e.g. 'edifici' or 'trincee' picks the second value"
    )
    shared_by_infantry: bool = Field(
        False, description="within 3 cm of friendly, non-panicked infantry that sees the target"
    )


def resolve_observation(data: ObservationInput, tray: DiceTray) -> Resolution:
    """Whether the target is seen (no dice): OSSERVAZIONE E INDIVIDUAZIONE."""
    tables = load_tables()
    table = tables["osservazione"]
    row = table.row_where(
        unita=data.observed.value, terreno=data.terrain.value, stato=data.state.value
    )
    kind = "feritoia" if data.from_loophole else "ordinaria"
    place = "interno" if data.from_inside_area else "esterno"
    column = table.column(f"{kind}_{place}")
    values: tuple[int, ...] = tables.parsed(table, row, column)
    limit = values[0]
    if len(values) > 1:
        split = row.data.get("split", {})
        second = [str(word) for word in split.get("second", [])]
        if data.terrain_detail is not None and data.terrain_detail.lower() in second:
            limit = values[1]
    builder = ResolutionBuilder(RULESET_KEY, "observation", tray)
    read = TableRead(
        table.id, table.title, table.row_label(row), column.label, table.cell(row, column)
    )
    seen = data.distance_cm <= limit or data.shared_by_infantry
    outcome = Outcome.of("manovra.observe.seen" if seen else "manovra.observe.unseen", limit=limit)
    builder.step(
        "manovra.step.observation",
        table=read,
        total=round(data.distance_cm),
        threshold=Threshold(Comparison.AT_MOST, limit, "manovra.threshold.cm"),
        outcome=outcome,
        shared=1 if data.shared_by_infantry else None,
    )
    return builder.finish(outcome)
