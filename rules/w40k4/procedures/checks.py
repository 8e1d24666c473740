"""w40k4 procedures other than the attack chains: tests, reserves, scatter, terrain, moves."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from contextlib import nullcontext
from typing import Literal

from pydantic import Field

from rules.core.dice import D6, D12, DiceTray, Roll
from rules.core.resolution import (
    Comparison,
    EffectKind,
    Modifier,
    Outcome,
    Resolution,
    ResolutionBuilder,
    Threshold,
)
from rules.core.words import LocalizedName
from rules.w40k4 import lookups
from rules.w40k4.model import RULESET_KEY, DangerRule, Speed, Terrain, unit_types
from rules.w40k4.procedures.chain import MAX_DICE, Frozen, damage_roll, penetration_of
from rules.w40k4.tables import load_tables

TestReason = Literal["losses", "tank_shock", "combat", "regroup", "test"]


# -- Leadership ---------------------------------------------------------------------------------


class LeadershipInput(Frozen):
    """A morale check or any Leadership test: 2D6 against the modified Disciplina."""

    leadership: int = Field(ge=1, le=10, description="the unit's Disciplina (Ld)")
    modifier: int = Field(0, ge=-10, le=10, description="e.g. -1 per casualty in a lost combat")
    reason: TestReason = "test"
    target: str | None = Field(None, max_length=64)


def resolve_leadership(data: LeadershipInput, tray: DiceTray) -> Resolution:
    """2D6 equal to or under the modified Leadership passes; double 1 always passes."""
    rule = lookups.standard("disciplina")
    builder = ResolutionBuilder(RULESET_KEY, "leadership", tray)
    needed = data.leadership + data.modifier
    # Read: the sum against Ld, and a double 1 — the only pair summing to 2 — so the odds
    # branch on (passed, double 1) of the sum.
    first, second = tray.roll_sum(
        D6,
        (f"{data.reason} Ld #1", f"{data.reason} Ld #2"),
        lambda total: (total <= needed, total == 2),
    )
    total = first.face + second.face
    double_one = bool(rule["double_one_passes"]) and first.face == second.face == 1
    passed = total <= needed or double_one
    key = "w40k4.test.passed" if passed else "w40k4.test.failed"
    if passed and total > needed:
        key = "w40k4.test.passed_double_one"
    outcome = Outcome.of(key, reason=data.reason)
    trigger = {"losses": "losses", "tank_shock": "tank_shock", "combat": "combat"}.get(data.reason)
    builder.step(
        "w40k4.step.leadership",
        rolls=(first, second),
        total=total,
        threshold=Threshold(Comparison.AT_MOST, needed, "w40k4.threshold.leadership"),
        modifiers=(Modifier("w40k4.mod.leadership", data.modifier),) if data.modifier else (),
        # A test with no row of its own in CONTROLLI DI MORALE reads the standard rule.
        table=lookups.cite("controlli_morale", trigger)
        if trigger
        else lookups.cite("meccaniche_standard", "disciplina"),
        outcome=outcome,
    )
    return builder.finish(outcome)


class EscapeInput(Frozen):
    """A unit falling back from a lost combat tries to escape its enemies."""

    initiative: int = Field(ge=1, le=10, description="the fleeing unit's Initiative")
    winners_initiative: int = Field(ge=1, le=10, description="the winners' highest Initiative")
    target: str | None = Field(None, max_length=64)
    winners_side: str | None = Field(
        None, max_length=64, description="the side rolling the winners' die; none: the same"
    )


def _holding(total: int, other: int) -> Comparison:
    """The comparison of two totals that is true (a step prints ``3 > 0``, never ``3 < 0``):
    these steps compare two scores rather than a score with what it had to reach."""
    if total > other:
        return Comparison.GREATER
    return Comparison.LESS if total < other else Comparison.AT_MOST


def _caught(data: EscapeInput, own: int, theirs: int) -> bool:
    mine, winners = own + data.initiative, theirs + data.winners_initiative
    return winners >= mine if lookups.standard("fuga")["caught_if"] == ">=" else winners > mine


def resolve_escape(data: EscapeInput, tray: DiceTray) -> Resolution:
    """D6 + I of the unit against D6 + I of the winners: caught if they score as much or more."""
    builder = ResolutionBuilder(RULESET_KEY, "escape", tray)
    own = tray.roll(D6, "escape D6")
    with tray.rolled_by(data.winners_side) if data.winners_side else nullcontext():
        # Only whether they catch the unit is read: the odds branch on caught or not.
        theirs = tray.roll_grouped(
            D6, "escape D6 winners", lambda face: _caught(data, own.face, face)
        )
    mine, winners = own.face + data.initiative, theirs.face + data.winners_initiative
    caught = _caught(data, own.face, theirs.face)
    outcome = Outcome.of("w40k4.escape.caught" if caught else "w40k4.escape.escaped")
    if caught:
        builder.effect(EffectKind.CASUALTIES, "caught", target=data.target)
    builder.step(
        "w40k4.step.escape",
        rolls=(own,),
        modifiers=(Modifier("w40k4.mod.initiative", data.initiative),),
        total=mine,
        threshold=Threshold(_holding(mine, winners), winners, "w40k4.threshold.winners"),
        table=lookups.cite("fase_combattimento", "escape"),
        outcome=outcome,
    )
    builder.step(
        "w40k4.step.escape_winners",
        rolls=(theirs,),
        modifiers=(Modifier("w40k4.mod.initiative", data.winners_initiative),),
        total=winners,
        table=lookups.cite("meccaniche_standard", "fuga"),
    )
    return builder.finish(outcome)


# -- distances rolled ---------------------------------------------------------------------------


class FallBackInput(Frozen):
    """A unit falls back (2D6")."""

    target: str | None = Field(None, max_length=64)


def resolve_fall_back(data: FallBackInput, tray: DiceTray) -> Resolution:
    """The unit falls back 2D6 inches towards its table edge."""
    builder = ResolutionBuilder(RULESET_KEY, "fall_back", tray)
    rolls = tray.roll_sum(D6, ("fall back #1", "fall back #2"))
    inches = sum(roll.face for roll in rolls)
    outcome = Outcome.of("w40k4.fall_back.moved", inches=inches)
    builder.effect(EffectKind.STATUS, "falling_back", target=data.target)
    builder.step(
        "w40k4.step.fall_back",
        rolls=rolls,
        total=inches,
        table=lookups.cite("meccaniche_standard", "ripiegamento"),
        outcome=outcome,
    )
    return builder.finish(outcome)


class ConsolidateInput(Frozen):
    """Winners no longer locked consolidate (D6")."""

    target: str | None = Field(None, max_length=64)


def resolve_consolidate(data: ConsolidateInput, tray: DiceTray) -> Resolution:
    """The winners may move up to D6 inches."""
    builder = ResolutionBuilder(RULESET_KEY, "consolidate", tray)
    roll = tray.roll(D6, "consolidate")
    outcome = Outcome.of("w40k4.consolidate.moved", inches=roll.face)
    builder.step(
        "w40k4.step.consolidate",
        rolls=(roll,),
        total=roll.face,
        table=lookups.cite("meccaniche_standard", "consolidamento"),
        outcome=outcome,
    )
    return builder.finish(outcome)


def _highest_of_two(
    tray: DiceTray, label: str, read: Callable[[int], Hashable]
) -> tuple[tuple[Roll, Roll], int]:
    """2D6 keep the highest, read only through ``read(highest)``: the second die's odds
    branch on that reading, given the first."""
    first = tray.roll(D6, f"{label} #1")
    second = tray.roll_grouped(D6, f"{label} #2", lambda face: read(max(first.face, face)))
    return (first, second), max(first.face, second.face)


class DifficultTerrainInput(Frozen):
    """A slowed unit moving through difficult terrain: 2D6, the highest is the limit."""

    distance: float = Field(ge=0, le=100, description="inches the player wants to move")
    limit: int = Field(6, ge=1, le=24, description="the unit's normal move")


def resolve_difficult_terrain(data: DifficultTerrainInput, tray: DiceTray) -> Resolution:
    """2D6 keep the highest (at most the unit's move): does the unit get that far?"""
    builder = ResolutionBuilder(RULESET_KEY, "difficult_terrain", tray)
    rolls, highest = _highest_of_two(
        tray,
        "difficult terrain",
        lambda high: (min(high, data.limit), data.distance <= min(high, data.limit)),
    )
    allowed = min(highest, data.limit)
    reached = data.distance <= allowed
    outcome = (
        Outcome.of("w40k4.difficult.reached", inches=allowed)
        if reached
        else Outcome.of("w40k4.difficult.short", inches=allowed)
    )
    builder.step(
        "w40k4.step.difficult",
        rolls=rolls,
        total=allowed,
        threshold=Threshold(Comparison.AT_LEAST, _ceil(data.distance), "w40k4.threshold.inches"),
        table=lookups.cite("meccaniche_standard", "terreno_accidentato"),
        outcome=outcome,
    )
    return builder.finish(outcome)


def _ceil(value: float) -> int:
    whole = int(value)
    return whole if whole == value else whole + 1


class AssaultMoveInput(Frozen):
    """An assault move: the distance to the enemy against the unit's assault range."""

    distance: float = Field(ge=0, le=100, description="inches to the nearest enemy model")
    assault_range: int = Field(6, ge=1, le=24)
    slowed: bool = Field(False, description="a slowed unit assaulting through difficult terrain")


def resolve_assault_move(data: AssaultMoveInput, tray: DiceTray) -> Resolution:
    """The assault reaches if the distance is within range (2D6 highest when slowed)."""
    builder = ResolutionBuilder(RULESET_KEY, "assault_move", tray)
    read = lookups.cite("fase_assalto", "move")
    rolls: tuple[Roll, ...] = ()
    allowed = data.assault_range
    if data.slowed:
        reach = data.assault_range
        rolls, highest = _highest_of_two(
            tray,
            "assault difficult terrain",
            lambda high: (min(high, reach), data.distance <= min(high, reach)),
        )
        allowed = min(highest, data.assault_range)
    reached = data.distance <= allowed
    outcome = (
        Outcome.of("w40k4.assault.charged", inches=allowed)
        if reached
        else Outcome.of("w40k4.assault.failed", inches=allowed)
    )
    builder.step(
        "w40k4.step.assault_move",
        rolls=rolls,
        total=allowed,
        threshold=Threshold(Comparison.AT_LEAST, _ceil(data.distance), "w40k4.threshold.inches"),
        table=read,
        outcome=outcome,
    )
    return builder.finish(outcome)


# -- dangerous terrain ----------------------------------------------------------------------------


class DangerousTerrainInput(Frozen):
    """Dangerous-terrain tests: one D6 per model (or gun, or vehicle); a 1 fails."""

    dice: int = Field(ge=1, le=MAX_DICE)
    kind: Literal["models", "vehicles", "guns"] = "models"
    target: str | None = Field(None, max_length=64)


def dangerous_outcome(kind: str, failed: int) -> Outcome:
    """The outcome for a number of failed dice."""
    if not failed:
        return Outcome.of("w40k4.dangerous.passed")
    return Outcome.of(f"w40k4.dangerous.failed_{kind}", n=failed)


def resolve_dangerous_terrain(data: DangerousTerrainInput, tray: DiceTray) -> Resolution:
    """A D6 per model, vehicle or gun: a 1 wounds (no armour save), immobilises or destroys.

    Each failed model takes a wound with no armour save; a vehicle is immobilised; an
    artillery gun is destroyed.
    """
    rule = lookups.standard("terreno_pericoloso")
    fails_on = int(rule["fails_on"])
    builder = ResolutionBuilder(RULESET_KEY, "dangerous_terrain", tray)
    rolls = tuple(tray.roll(D6, f"dangerous terrain #{i + 1}") for i in range(data.dice))
    failed = sum(1 for roll in rolls if roll.face <= fails_on)
    outcome = dangerous_outcome(data.kind, failed)
    if failed:
        builder.effect(
            EffectKind.DAMAGE, f"dangerous_{data.kind}", target=data.target, amount=failed
        )
    builder.step(
        "w40k4.step.dangerous",
        rolls=rolls,
        threshold=Threshold(Comparison.GREATER, fails_on, "w40k4.threshold.each"),
        table=lookups.cite("meccaniche_standard", "terreno_pericoloso"),
        outcome=outcome,
    )
    return builder.finish(outcome)


# -- reserves, deep strike, scatter ----------------------------------------------------------------


class ReservesInput(Frozen):
    """A unit in reserve rolls to arrive at the start of its player turn."""

    turn: int = Field(ge=1, le=100, description="the game turn")
    target: str | None = Field(None, max_length=64)


def resolve_reserves(data: ReservesInput, tray: DiceTray) -> Resolution:
    """TIRI PER LE RISERVE: no roll on turn 1, D6 against the turn's score, automatic at 5+."""
    tables = load_tables()
    table = tables["tiri_riserve"]
    row = table.row_for("turno", data.turn)
    read = lookups.read(table, row, "d6")
    builder = ResolutionBuilder(RULESET_KEY, "reserves", tray)
    rule = str(row.data["arrives"])
    if rule == "never":
        outcome = Outcome.of("w40k4.reserves.cannot")
        builder.step("w40k4.step.reserves", table=read, outcome=outcome)
        return builder.finish(outcome)
    if rule == "automatic":
        outcome = Outcome.of("w40k4.reserves.arrives")
        builder.effect(EffectKind.STATUS, "arriving", target=data.target)
        builder.step("w40k4.step.reserves", table=read, outcome=outcome)
        return builder.finish(outcome)
    score = int(row.data["score"])
    roll = tray.roll_grouped(D6, "reserves", lambda face: face >= score)
    arrives = roll.face >= score
    outcome = Outcome.of("w40k4.reserves.arrives" if arrives else "w40k4.reserves.stays")
    if arrives:
        builder.effect(EffectKind.STATUS, "arriving", target=data.target)
    builder.step(
        "w40k4.step.reserves",
        rolls=(roll,),
        total=roll.face,
        threshold=Threshold(Comparison.AT_LEAST, score, "w40k4.threshold.die"),
        table=read,
        outcome=outcome,
    )
    return builder.finish(outcome)


def _scatter(
    builder: ResolutionBuilder, tray: DiceTray, subtract: int, label: str, prefix: str
) -> Outcome:
    """The scatter die; on an arrow a D12 direction and 2D6 minus ``subtract``."""
    table = load_tables()["dado_deviazione"]
    # Only "hit or arrow" is read from the scatter die, and only the 2D6's sum: the odds
    # branch on those (a direction is shown, never read), play rolls every die as before.
    die = tray.roll_grouped(
        D6, f"{label} scatter die", lambda face: bool(table.row_for("d6", face).data["hit"])
    )
    row = table.row_for("d6", die.face)
    on_target = Outcome.of(f"{prefix}.on_target")
    if bool(row.data["hit"]):
        builder.step(
            "w40k4.step.scatter_die",
            rolls=(die,),
            table=lookups.read(table, row, "faccia"),
            outcome=on_target,
        )
        return on_target
    builder.step(
        "w40k4.step.scatter_die",
        rolls=(die,),
        table=lookups.read(table, row, "faccia"),
        outcome=Outcome.of("w40k4.scatter.arrow"),
    )
    direction = tray.roll_unread(D12, f"{label} direction")
    rolls = tray.roll_sum(D6, (f"{label} distance #1", f"{label} distance #2"))
    total = max(sum(roll.face for roll in rolls) - subtract, 0)
    outcome = Outcome.of(f"{prefix}.scattered", inches=total) if total else on_target
    builder.step(
        "w40k4.step.scatter_distance",
        rolls=(direction, *rolls),
        modifiers=(Modifier("w40k4.mod.bs", -subtract),) if subtract else (),
        total=total,
        outcome=outcome,
        clock=direction.face,
    )
    return outcome


class BlastScatterInput(Frozen):
    """Where a blast (3") or ordnance (5") template lands."""

    template: Literal["area", "artiglieria"] = "area"
    bs: int = Field(ge=1, le=10, description="the firer's Ballistic Skill")
    barrage: bool = Field(False, description="Bombardamento: the BS is not used")


def resolve_blast_scatter(data: BlastScatterInput, tray: DiceTray) -> Resolution:
    """Scatter die and 2D6 − BS (barrage: full 2D6); ≤ 0 or the hit symbol: on target."""
    builder = ResolutionBuilder(RULESET_KEY, "blast_scatter", tray)
    rule = lookups.template_rules(data.template)
    ignores_bs = data.barrage and bool(rule.get("barrage_ignores_bs"))
    builder.step(
        "w40k4.step.template_barrage" if ignores_bs else "w40k4.step.template",
        table=lookups.cite("altri_tipi_armi", data.template, "regola"),
        template=data.template,
    )
    outcome = _scatter(builder, tray, 0 if ignores_bs else data.bs, "blast", "w40k4.scatter")
    return builder.finish(outcome)


class DeepStrikeInput(Frozen):
    """A unit arriving by deep strike scatters (scatter die and 2D6")."""

    target: str | None = Field(None, max_length=64)


def resolve_deep_strike(data: DeepStrikeInput, tray: DiceTray) -> Resolution:
    """Scatter die and 2D6 inches: with the hit symbol the unit lands where it was aimed."""
    builder = ResolutionBuilder(RULESET_KEY, "deep_strike", tray)
    builder.step(
        "w40k4.step.deep_strike", table=lookups.cite("meccaniche_standard", "attacco_profondita")
    )
    outcome = _scatter(builder, tray, 0, "deep strike", "w40k4.deep_strike")
    builder.effect(EffectKind.STATUS, "deep_struck", target=data.target)
    return builder.finish(outcome)


class MishapInput(Frozen):
    """A deep strike gone wrong: a D6 on the mishap table."""

    target: str | None = Field(None, max_length=64)


def resolve_mishap(data: MishapInput, tray: DiceTray) -> Resolution:
    """INCIDENTI - ATTACCO IN PROFONDITÀ: destroyed, misplaced by the opponent, or delayed."""
    table = load_tables()["incidenti_attacco_profondita"]
    builder = ResolutionBuilder(RULESET_KEY, "mishap", tray)
    roll = tray.roll_grouped(D6, "mishap", lambda face: table.rows.index(table.row_for("d6", face)))
    row = table.row_for("d6", roll.face)
    effect = str(row.data["effect"])
    outcome = Outcome.of(f"w40k4.mishap.{effect}")
    builder.effect(EffectKind.STATUS, f"mishap_{effect}", target=data.target)
    builder.step(
        "w40k4.step.mishap",
        rolls=(roll,),
        total=roll.face,
        table=lookups.read(table, row, "effetto"),
        outcome=outcome,
    )
    return builder.finish(outcome)


# -- vehicles: single rolls ------------------------------------------------------------------------


class PenetrationInput(Frozen):
    """One armour penetration roll: D6 + Strength against an armour value."""

    strength: int = Field(ge=1, le=10)
    armour: int = Field(ge=1, le=20)


def resolve_penetration(data: PenetrationInput, tray: DiceTray) -> Resolution:
    """D6 + S: above the armour penetrates, equal glances, below does nothing."""
    table = load_tables()["penetrazione_corazza"]
    builder = ResolutionBuilder(RULESET_KEY, "penetration", tray)
    roll = tray.roll_grouped(
        D6, "penetration", lambda face: penetration_of(data.strength, data.armour, face)
    )
    kind = penetration_of(data.strength, data.armour, roll.face)
    row = table.row_by_id(kind)
    outcome = Outcome.of(f"w40k4.penetration.{kind}")
    builder.step(
        "w40k4.step.penetration",
        rolls=(roll,),
        modifiers=(Modifier("w40k4.mod.strength", data.strength),),
        total=roll.face + data.strength,
        threshold=Threshold(Comparison.AT_LEAST, data.armour, "w40k4.threshold.armour"),
        table=lookups.read(table, row, "confronto"),
        outcome=outcome,
    )
    return builder.finish(outcome)


class VehicleDamageInput(Frozen):
    """One roll on TABELLA DEI DANNI AI VEICOLI."""

    glancing: bool = False
    ap: int | None = Field(None, ge=1, le=6)
    open_topped: bool = False
    squadron: bool = False
    target: str | None = Field(None, max_length=64)


def resolve_vehicle_damage(data: VehicleDamageInput, tray: DiceTray) -> Resolution:
    """D6 with the modifiers (glancing −2, VP- −1, VP1 +1, open-topped +1)."""
    builder = ResolutionBuilder(RULESET_KEY, "vehicle_damage", tray)
    result = damage_roll(
        builder,
        tray,
        glancing=data.glancing,
        ap=data.ap,
        open_topped=data.open_topped,
        squadron=data.squadron,
        label="vehicle",
    )
    builder.effect(EffectKind.DAMAGE, result.value, target=data.target)
    return builder.finish(Outcome.of("w40k4.vehicle.result", status=result.value))


# -- movement and combat result (no dice) -------------------------------------------------


class MovementInput(Frozen):
    """A move: what TERRENI ACCIDENTATI and the vehicle speeds say about it."""

    unit_type: str = Field(max_length=40)
    distance: float = Field(ge=0, le=100)
    terrain: Terrain = Terrain.OPEN
    inside: bool = Field(False, description="the move starts or ends inside the terrain")
    fast: bool = False


class MovePlan(Frozen):
    """What a move owes: the difficult-terrain roll, dangerous tests, the vehicle's speed."""

    slowed: bool
    dangerous: Literal["none", "models", "vehicles", "guns", "guns_and_models"]
    speed: Speed | None = None
    too_fast: bool = False


def plan_move(data: MovementInput) -> MovePlan:
    """Read TERRENI ACCIDENTATI (and the vehicle speeds) for a move."""
    slowed, rule, _ = lookups.terrain_rules(data.unit_type)
    kind = unit_types().get(data.unit_type, {})
    vehicle = bool(kind.get("vehicle"))
    rough = data.terrain is not Terrain.OPEN
    dangerous = data.terrain is Terrain.DANGEROUS
    tests = {
        DangerRule.ALWAYS: rough,
        DangerRule.IF_DANGEROUS: dangerous,
        DangerRule.START_END: rough and data.inside,
        DangerRule.WEAPON_ONLY: rough,
    }[rule]
    owed: Literal["none", "models", "vehicles", "guns", "guns_and_models"] = "none"
    if tests:
        if rule is DangerRule.WEAPON_ONLY:
            owed = "guns_and_models" if dangerous else "guns"
        else:
            owed = "vehicles" if vehicle else "models"
    speed: Speed | None = None
    too_fast = False
    if vehicle:
        row = lookups.vehicle_row(data.fast, bool(kind.get("walker")))
        speed = lookups.vehicle_speed(data.distance, row)
        too_fast = speed is None
    return MovePlan(
        slowed=slowed and rough and data.distance > 0,
        dangerous=owed,
        speed=speed,
        too_fast=too_fast,
    )


def resolve_movement(data: MovementInput, tray: DiceTray) -> Resolution:
    """The effects of the terrain on a unit type's move (no dice)."""
    tables = load_tables()
    table = tables["terreni_accidentati"]
    _, _, row = lookups.terrain_rules(data.unit_type)
    plan = plan_move(data)
    builder = ResolutionBuilder(RULESET_KEY, "movement", tray)
    if plan.too_fast:
        outcome = Outcome.of("w40k4.move.too_fast")
    else:
        outcome = Outcome.of(
            "w40k4.move.planned_vehicle" if plan.speed else "w40k4.move.planned",
            slowed="slowed" if plan.slowed else "not_slowed",
            dangerous=plan.dangerous,
            speed=plan.speed.value if plan.speed else None,
        )
    column = "pericoloso" if data.terrain is not Terrain.OPEN else "rallentate"
    builder.step(
        "w40k4.step.movement",
        total=_ceil(data.distance),
        table=lookups.read(table, row, column),
        outcome=outcome,
        terrain=data.terrain.value,
    )
    return builder.finish(outcome)


class CombatResultInput(Frozen):
    """The wounds each side suffered in one combat."""

    #: The sides' names, with their languages (the outcome names them in the reader's).
    side_a: LocalizedName
    side_b: LocalizedName
    suffered_a: int = Field(ge=0, le=10_000)
    suffered_b: int = Field(ge=0, le=10_000)


def resolve_combat_result(data: CombatResultInput, tray: DiceTray) -> Resolution:
    """The side that suffered fewer wounds wins; equal wounds are a draw."""
    builder = ResolutionBuilder(RULESET_KEY, "combat_result", tray)
    if data.suffered_a == data.suffered_b:
        outcome = Outcome.of("w40k4.combat.draw", n=data.suffered_a)
    elif data.suffered_a < data.suffered_b:
        outcome = Outcome.of("w40k4.combat.won", side=data.side_a, lost_by=data.side_b)
    else:
        outcome = Outcome.of("w40k4.combat.won", side=data.side_b, lost_by=data.side_a)
    builder.step(
        "w40k4.step.combat_result",
        total=data.suffered_a,
        threshold=Threshold(
            _holding(data.suffered_a, data.suffered_b),
            data.suffered_b,
            "w40k4.threshold.enemy_wounds",
        ),
        table=lookups.cite("fase_combattimento", "result"),
        outcome=outcome,
        side=data.side_a,
    )
    return builder.finish(outcome)


# -- the battlefield (no dice) ---------------------------------------------------------------


class MeasureInput(Frozen):
    """What the bot measured on the battlefield for a move, a shot or an assault."""

    what: Literal["move", "fire", "assault", "deep_strike"] = "fire"
    inches: float = Field(ge=0, le=1000, description="the distance measured")
    typed: float | None = Field(
        None, ge=0, le=1000, description="a different distance the referee gave instead"
    )
    terrain: str | None = Field(None, max_length=40, description="terrain class at the target")
    cover: str | None = Field(None, max_length=40, description="TIRI COPERTURA row it gives")
    crossed: str = Field("", max_length=400, description="areas the line or path crosses")
    blocked: str = Field(
        "", max_length=400, description="sight-blocking areas the referee let the line cross"
    )


def resolve_measure(data: MeasureInput, tray: DiceTray) -> Resolution:
    """The distance measured between points on the battlefield (a referee may override it)."""
    builder = ResolutionBuilder(RULESET_KEY, "measure", tray)
    measured = _inches_text(data.inches)
    if data.typed is not None:
        outcome = Outcome.of(
            "w40k4.measure.override", inches=_inches_text(data.typed), measured=measured
        )
    else:
        outcome = Outcome.of("w40k4.measure.measured", inches=measured)
    builder.step("w40k4.step.measured", outcome=outcome, what=data.what)
    if data.terrain is not None:
        builder.step(
            "w40k4.step.field_terrain",
            table=lookups.cite("tiri_copertura", data.cover) if data.cover else None,
            outcome=Outcome.of(
                "w40k4.measure.path" if data.what == "move" else "w40k4.measure.terrain",
                terrain=data.terrain,
                cover=data.cover or "nessuna",
                crossed=data.crossed or "-",
            ),
        )
    if data.blocked:
        builder.step(
            "w40k4.step.sight",
            outcome=Outcome.of("w40k4.measure.sight_override", area=data.blocked),
        )
    return builder.finish(outcome)


def _inches_text(value: float) -> str:
    return f"{round(value, 1):g}"
