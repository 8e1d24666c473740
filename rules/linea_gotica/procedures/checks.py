"""Linea gotica procedures without fire: actions, observation, initiative, command distance,
morale, snipers, smoke, anti-aircraft fire and a damaged aircraft's return.

Every roll is 1d10 (0 reads as 10), a success when it is at most the chance.
"""

from __future__ import annotations

import enum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from rules.core.dice import D10, DiceTray, Roll
from rules.core.resolution import (
    Comparison,
    Modifier,
    Outcome,
    Resolution,
    ResolutionBuilder,
    TableRead,
    Threshold,
)
from rules.core.tables import Column, Row, Table
from rules.linea_gotica.model import (
    RULESET_KEY,
    ActionChance,
    ChanceModifier,
    Level,
    Quality,
    half_up,
    shift_level,
)
from rules.linea_gotica.tables import load_tables

K = RULESET_KEY


class Frozen(BaseModel):
    """Base of procedure inputs: strict about unknown fields, immutable, hashable."""

    model_config = ConfigDict(extra="forbid", frozen=True)


QualityModifier = Field(0, ge=-6, le=6, description="referee's or rules' modifier to quality")


def read(table: Table, row: Row, column: Column | str) -> TableRead:
    """The table cell a step cites."""
    col = table.column(column) if isinstance(column, str) else column
    return TableRead(table.id, table.title, table.row_label(row), col.label, table.cell(row, col))


#: Seed 004 line 469: "E' possibile utilizzare un +1 sulla qualità [...] il contatto con
#: l'artiglieria di appoggio a livello di compagnia" (portable radios).
Radio = Field(False, description="a portable radio: +1 to quality (line 469)")
#: Seed 004 lines 466-468: poor coordination worsens combined operations by -1 or -2.
Coordination = Field(0, ge=-2, le=0, description="poor coordination: -1 or -2 (lines 466-468)")


def quality_chance(
    quality: Quality, modifier: int, *, radio: bool = False, coordination: int = 0
) -> tuple[int, tuple[Modifier, ...]]:
    """QUALITA': the base chance of a quality, plus the referee's modifier, a portable
    radio's +1 and poor coordination, each shown under its own name."""
    tables = load_tables()
    table = tables["qualita"]
    row = table.row_by_id(quality.value)
    base: int = tables.parsed(table, row, table.column("possibilita"))
    mods = [Modifier(f"{K}.mod.quality", base, (("quality", quality.value),))]
    named = (("quality_modifier", modifier), ("radio", int(radio)), ("coordination", coordination))
    mods += [Modifier(f"{K}.mod.{name}", value) for name, value in named if value]
    return base + sum(value for _, value in named), tuple(mods)


def roll_under(
    builder: ResolutionBuilder,
    tray: DiceTray,
    label: str,
    chance: int,
    *,
    step: str,
    modifiers: tuple[Modifier, ...] = (),
    table: TableRead | None = None,
    passed: Outcome,
    failed: Outcome,
    **params: Any,
) -> tuple[bool, Roll]:
    """Record how the chance is made (if it has modifiers), roll 1d10 ≤ chance."""
    if modifiers:
        builder.step(f"{K}.step.chance", modifiers=modifiers, total=chance, table=table)
        table = None
    roll = tray.roll_against(D10, label, chance)
    success = roll.face <= chance
    builder.step(
        step,
        rolls=(roll,),
        total=roll.face,
        threshold=Threshold(Comparison.AT_MOST, chance, f"{K}.threshold.chance"),
        table=table,
        outcome=passed if success else failed,
        **params,
    )
    return success, roll


# -- AZIONI ---------------------------------------------------------------------------------


class Purpose(enum.StrEnum):
    """What an action-like roll is for (its label; the rules are the same)."""

    AZIONE = "azione"
    ISOLATO = "isolato"
    RIMPIAZZO = "rimpiazzo"
    CONTATTO = "contatto"
    MINE = "mine"
    MEDICARE = "medicare"
    SCAVARE = "scavare"


class ActionInput(Frozen):
    """An action (or a roll made like one): quality, difficulty, and how it shifts."""

    quality: Quality
    quality_modifier: int = QualityModifier
    radio: bool = Radio
    coordination: int = Coordination
    level: Level = Level.NORMALE
    shift: int = Field(0, ge=-4, le=4, description="levels easier (+) or harder (−)")
    purpose: Purpose = Purpose.AZIONE


def action_level_chance(
    quality: Quality,
    quality_modifier: int,
    level: Level,
    *,
    radio: bool = False,
    coordination: int = 0,
) -> tuple[int, tuple[Modifier, ...], TableRead | None]:
    """The chance of an action of ``level`` (10 for automatic, 0 for impossible)."""
    tables = load_tables()
    base, mods = quality_chance(quality, quality_modifier, radio=radio, coordination=coordination)
    if level is Level.NO:
        return 0, mods, None
    table = tables["azioni"]
    row = table.row_by_id(level.value)
    formula: ActionChance = tables.parsed(table, row, table.column("possibilita"))
    return formula.chance(max(base, 0)), mods, read(table, row, "possibilita")


def resolve_level_roll(
    builder: ResolutionBuilder,
    tray: DiceTray,
    quality: Quality,
    quality_modifier: int,
    level: Level,
    purpose: str,
    *,
    passed_key: str,
    failed_key: str,
    extra_mods: tuple[Modifier, ...] = (),
    radio: bool = False,
    coordination: int = 0,
) -> Outcome:
    """Roll an action of ``level`` (no die when automatic or impossible)."""
    chance, mods, table_read = action_level_chance(
        quality, quality_modifier, level, radio=radio, coordination=coordination
    )
    if level is Level.NO:
        outcome = Outcome.of(f"{K}.action.impossible", purpose=purpose)
        builder.step(
            f"{K}.step.action",
            modifiers=mods + extra_mods,
            outcome=outcome,
            level=level.value,
            purpose=purpose,
        )
        return outcome
    if level is Level.MOLTO_FACILE:
        outcome = Outcome.of(f"{K}.action.automatic", purpose=purpose)
        builder.step(
            f"{K}.step.action",
            table=table_read,
            outcome=outcome,
            level=level.value,
            purpose=purpose,
        )
        return outcome
    roll_under(
        builder,
        tray,
        f"{purpose} — d10",
        chance,
        step=f"{K}.step.action",
        modifiers=mods + extra_mods,
        table=table_read,
        passed=Outcome.of(passed_key, purpose=purpose),
        failed=Outcome.of(failed_key, purpose=purpose),
        level=level.value,
        purpose=purpose,
    )
    last = builder.steps[-1].outcome
    assert last is not None
    return last


def resolve_action(data: ActionInput, tray: DiceTray) -> Resolution:
    """AZIONI: automatic, 2×Q, Q or ½Q (rounded up) by difficulty, shifted by levels."""
    builder = ResolutionBuilder(K, "action", tray)
    level = shift_level(data.level, data.shift)
    extra = (Modifier(f"{K}.mod.level_shift", data.shift),) if data.shift else ()
    outcome = resolve_level_roll(
        builder,
        tray,
        data.quality,
        data.quality_modifier,
        level,
        data.purpose.value,
        passed_key=f"{K}.action.passed",
        failed_key=f"{K}.action.failed",
        extra_mods=extra,
        radio=data.radio,
        coordination=data.coordination,
    )
    return builder.finish(outcome)


# -- OSSERVAZIONE ---------------------------------------------------------------------------


class Observer(enum.StrEnum):
    """The observer columns."""

    FANTERIA = "fanteria"
    VEICOLO_APERTO = "veicolo_aperto"
    VEICOLO_CHIUSO = "veicolo_chiuso"


class ObservationInput(Frozen):
    """An attempt to spot an enemy unit not yet seen."""

    quality: Quality
    quality_modifier: int = QualityModifier
    target: Literal["infantry", "vehicle"]
    target_moving: bool = False
    target_in_cover: bool = False
    observer: Observer = Observer.FANTERIA
    target_fired: bool = False
    night: bool = False
    scout: bool = Field(False, description="a scout standing still or moving cautiously")
    wounded: bool = False
    hidden_sniper: bool = Field(False, description="the target is a hidden sniper")
    moonless: bool = Field(False, description="at night: no moon (sight 20 cm, else 50 cm)")
    distance_cm: float | None = Field(None, ge=0, le=10_000, description="matters at night")


def observation_level(data: ObservationInput) -> tuple[Level, TableRead | None, list[Modifier]]:
    """The difficulty after every shift (and the cell it starts from)."""
    tables = load_tables()
    table = tables["osservazione"]
    shifts: list[Modifier] = []
    if data.night and data.distance_cm is not None:
        fire_mods = tables["modificatori_tiro"]
        limit = int(
            fire_mods.row_by_id("senza_luna" if data.moonless else "luna_50").data["max_cm"]
        )
        if data.distance_cm > limit:
            return Level.NO, None, [Modifier(f"{K}.mod.night_limit", limit)]
    if data.hidden_sniper:
        if data.observer is not Observer.FANTERIA or not data.target_fired:
            return Level.NO, None, shifts
        fixed = Level(str(table.data["sniper_level"]).lower().replace(" ", "_"))
        return shift_level(fixed, -1 if data.wounded else 0), None, shifts
    row = next(
        r
        for r in table.rows
        if r.data["target"] == data.target
        and bool(r.data["moving"]) == data.target_moving
        and bool(r.data["cover"]) == data.target_in_cover
    )
    column = table.column(data.observer.value)
    level: Level = tables.parsed(table, row, column)
    steps = 0
    for flag, key, name in (
        (data.target_fired, "fired_shift", "fired"),
        (data.night, "night_shift", "night"),
        (data.scout, "scout_shift", "scout"),
    ):
        if flag:
            shift = int(table.data[key])
            steps += shift
            shifts.append(Modifier(f"{K}.mod.obs_{name}", shift))
    if data.wounded:
        steps -= 1
        shifts.append(Modifier(f"{K}.mod.obs_wounded", -1))
    return shift_level(level, steps), read(table, row, column), shifts


def resolve_observation(data: ObservationInput, tray: DiceTray) -> Resolution:
    """OSSERVAZIONE: the cell's difficulty, shifted, rolled as an action."""
    builder = ResolutionBuilder(K, "observation", tray)
    level, table_read, shifts = observation_level(data)
    if table_read is not None or shifts:
        builder.step(
            f"{K}.step.observation_level",
            table=table_read,
            modifiers=tuple(shifts),
            level=level.value,
        )
    outcome = resolve_level_roll(
        builder,
        tray,
        data.quality,
        data.quality_modifier,
        level,
        "osservazione",
        passed_key=f"{K}.observe.seen",
        failed_key=f"{K}.observe.unseen",
    )
    if outcome.key == f"{K}.action.automatic":
        outcome = Outcome.of(f"{K}.observe.seen", purpose="osservazione")
    elif outcome.key == f"{K}.action.impossible":
        outcome = Outcome.of(f"{K}.observe.impossible")
    return builder.finish(outcome)


# -- INIZIATIVA -----------------------------------------------------------------------------


class InitiativeInput(Frozen):
    """Both players roll 1d10; the higher chooses who moves first."""

    first: str = Field(min_length=1, max_length=40, description="the first side's id")
    second: str = Field(min_length=1, max_length=40, description="the second side's id")


def resolve_initiative(data: InitiativeInput, tray: DiceTray) -> Resolution:
    """SEQUENZA DI GIOCO 1: two d10; a tie rolls again (a new resolution)."""
    table = load_tables()["sequenza"]
    row = table.row_by_id("iniziativa")
    builder = ResolutionBuilder(K, "initiative", tray)
    # Each side rolls its own die (dice belong to their roller): typed dice feed only the
    # die of the side that gave the command.
    with tray.rolled_by(data.first):
        a = tray.roll(D10, f"initiative — {data.first}")
    with tray.rolled_by(data.second):
        # Only which die is higher is read: the odds branch on lower, equal, higher.
        b = tray.roll_grouped(
            D10, f"initiative — {data.second}", lambda face: (face > a.face) - (face < a.face)
        )
    if a.face > b.face:
        outcome = Outcome.of(f"{K}.initiative.won", side=data.first)
    elif b.face > a.face:
        outcome = Outcome.of(f"{K}.initiative.won", side=data.second)
    else:
        outcome = Outcome.of(f"{K}.initiative.tie")
    builder.step(
        f"{K}.step.initiative",
        rolls=(a,),
        total=a.face,
        table=read(table, row, "fase"),
        side=data.first,
    )
    builder.step(
        f"{K}.step.initiative", rolls=(b,), total=b.face, outcome=outcome, side=data.second
    )
    return builder.finish(outcome)


# -- DISTANZE DI COMANDO --------------------------------------------------------------------


class CommandInput(Frozen):
    """Is a soldier within his leader's command distance?"""

    leader: Quality = Field(description="the leader's ability")
    section: bool = Field(False, description="a section under a capo-sezione")
    scout: bool = False
    sniper_quality: Quality | None = Field(None, description="the soldier is a sniper")
    distance_cm: float = Field(ge=0, le=10_000)


def command_limit(leader: Quality, section: bool, scout: bool) -> tuple[int, TableRead]:
    """The command distance in cm (a section falls back to the squad column)."""
    tables = load_tables()
    table = tables["distanze_comando"]
    row = table.row_by_id(leader.value)
    column = table.column("capo_sezione" if section else "capo_squadra")
    limit: int | None = tables.parsed(table, row, column)
    if limit is None:
        column = table.column("capo_squadra")
        limit = tables.parsed(table, row, column)
    assert limit is not None
    if scout:
        limit *= int(table.data["scout_multiplier"])
    return limit, read(table, row, column)


def resolve_command(data: CommandInput, tray: DiceTray) -> Resolution:
    """UNITA' e DISTANZE DI COMANDO: within the distance, isolated, or a free sniper."""
    builder = ResolutionBuilder(K, "command", tray)
    table = load_tables()["distanze_comando"]
    free = [Quality(q) for q in table.data["sniper_free_qualities"]]
    if data.sniper_quality is not None and data.sniper_quality in free:
        outcome = Outcome.of(f"{K}.command.free")
        builder.step(f"{K}.step.command", outcome=outcome)
        return builder.finish(outcome)
    limit, table_read = command_limit(data.leader, data.section, data.scout)
    within = data.distance_cm <= limit
    outcome = Outcome.of(f"{K}.command.within" if within else f"{K}.command.isolated", limit=limit)
    builder.step(
        f"{K}.step.command",
        total=round(data.distance_cm),
        threshold=Threshold(Comparison.AT_MOST, limit, f"{K}.threshold.cm"),
        table=table_read,
        outcome=outcome,
        scout=1 if data.scout else None,
    )
    return builder.finish(outcome)


# -- MORALE ---------------------------------------------------------------------------------


class Cover(enum.StrEnum):
    """Cover of a unit: none, light, heavy (and entrenched, heavy for morale and fire)."""

    NONE = "nessuna"
    LIGHT = "leggera"
    HEAVY = "pesante"
    ENTRENCHED = "trincerati"


class MoraleInput(Frozen):
    """A morale test of one soldier, or of a vehicle's crew."""

    quality: Quality
    quality_modifier: int = QualityModifier
    wounded: bool = False
    isolated: bool = False
    cover: Cover = Cover.NONE
    under_fire: bool = Field(False, description="under HE, flamethrower or automatic fire")
    leader_killed: bool = False
    badly_wounded_near: int = Field(0, ge=0, le=12)
    fanatic: int = Field(0, ge=0, le=3)
    result_modifier: int = Field(0, ge=-6, le=0, description="−2 from a result that says so")
    vehicle: bool = False
    armoured_undamaged: bool = False
    already_shocked: bool = False
    enemy_near: bool = Field(False, description="visible enemies within 30 cm (surrender)")
    air_attack: bool = False


def _morale_modifiers(data: MoraleInput) -> list[Modifier]:
    tables = load_tables()
    table = tables["modificatori_morale"]

    def value(row_id: str) -> int:
        parsed: ChanceModifier = tables.parsed(
            table, table.row_by_id(row_id), table.column("modifica")
        )
        return parsed.add

    mods = [Modifier(f"{K}.mod.morale_base", int(table.data["base_bonus"]))]
    checks = (
        (data.wounded, "ferito"),
        (data.isolated, "isolato"),
        (data.cover in (Cover.HEAVY, Cover.ENTRENCHED), "copertura_pesante"),
        (data.cover is Cover.LIGHT, "copertura_leggera"),
        (data.under_fire, "sotto_tiro"),
        (data.leader_killed, "comandante_ucciso"),
    )
    for flag, row_id in checks:
        if flag:
            mods.append(Modifier(f"{K}.mod.morale_{row_id}", value(row_id)))
    if data.badly_wounded_near:
        mods.append(
            Modifier(
                f"{K}.mod.morale_ferito_grave_vicino",
                value("ferito_grave_vicino") * data.badly_wounded_near,
            )
        )
    if data.fanatic:
        choices: ChanceModifier = tables.parsed(
            table, table.row_by_id("fanatici"), table.column("modifica")
        )
        if data.fanatic in choices.choices:
            mods.append(Modifier(f"{K}.mod.morale_fanatici", data.fanatic))
    if data.result_modifier:
        mods.append(Modifier(f"{K}.mod.result", data.result_modifier))
    return mods


def resolve_morale(data: MoraleInput, tray: DiceTray) -> Resolution:
    """MORALE: 1d10 ≤ quality + 4 + modifiers; a failure rolls EFFETTI DEL MORALE."""
    tables = load_tables()
    builder = ResolutionBuilder(K, "morale", tray)
    base, quality_mods = quality_chance(data.quality, data.quality_modifier)
    mods = _morale_modifiers(data)
    chance = base + sum(m.value for m in mods)
    passed, _ = roll_under(
        builder,
        tray,
        "Morale — d10",
        chance,
        step=f"{K}.step.morale",
        modifiers=quality_mods + tuple(mods),
        passed=Outcome.of(f"{K}.morale.passed"),
        failed=Outcome.of(f"{K}.morale.failed"),
    )
    if passed:
        return builder.finish(Outcome.of(f"{K}.morale.passed"))
    table = tables["effetti_morale"]
    die_mods: list[Modifier] = []
    if data.vehicle and data.armoured_undamaged:
        die_mods.append(
            Modifier(
                f"{K}.mod.armoured_undamaged",
                int(table.data["die_modifiers"]["armoured_undamaged"]),
            )
        )
    if data.quality is Quality.ELITE:
        die_mods.append(Modifier(f"{K}.mod.elite", int(table.data["die_modifiers"]["elite"])))
    shift = sum(m.value for m in die_mods)
    # Only the row is read: the odds branch per row, not per face.
    roll = tray.roll_grouped(
        D10,
        "Morale effects — d10",
        lambda face: table.rows.index(table.row_for("d10", face + shift)),
    )
    total = roll.face + shift
    row = table.row_for("d10", total)
    result = str(row.data["result"])
    reaction = result
    if result == "shocked" and data.already_shocked:
        reaction = str(table.data["shocked_twice"])
    if data.air_attack and result in table.data["air_attack"]:
        reaction = str(table.data["air_attack"][result])
    if reaction == "surrender":
        if data.vehicle:
            reaction = "abandon"
        elif not data.enemy_near:
            reaction = "panic_no_enemy"
    outcome = Outcome.of(f"{K}.morale.{reaction}")
    builder.step(
        f"{K}.step.morale_effects",
        rolls=(roll,),
        modifiers=tuple(die_mods),
        total=total,
        table=read(table, row, "effetto"),
        outcome=outcome,
    )
    return builder.finish(outcome)


# -- TIRATORI SCELTI ------------------------------------------------------------------------


class SniperInput(Frozen):
    """A hidden sniper decides whether to fire."""

    quality: Quality


def sniper_threshold(quality: Quality) -> tuple[int, tuple[Modifier, ...], TableRead]:
    """1,2,3 (+1 Veterani, +2 Elite)."""
    tables = load_tables()
    table = tables["cecchini"]
    column = table.column("soglia")
    base_row = table.row_by_id("base")
    base: ChanceModifier = tables.parsed(table, base_row, column)
    mods: tuple[Modifier, ...] = ()
    for row in table.rows:
        if row.data.get("quality") == quality.value:
            bonus: ChanceModifier = tables.parsed(table, row, column)
            mods = (Modifier(f"{K}.mod.sniper_{quality.value}", bonus.add),)
    if mods:
        mods = (Modifier(f"{K}.mod.table_value", base.add), *mods)
    return sum(m.value for m in mods) or base.add, mods, read(table, base_row, column)


def resolve_sniper(data: SniperInput, tray: DiceTray) -> Resolution:
    """TIRATORI SCELTI: fire only on 1–3 (+1/+2); otherwise he keeps hidden."""
    builder = ResolutionBuilder(K, "sniper", tray)
    limit, mods, table_read = sniper_threshold(data.quality)
    fires, _ = roll_under(
        builder,
        tray,
        "Sniper — d10",
        limit,
        step=f"{K}.step.sniper",
        modifiers=mods,
        table=table_read,
        passed=Outcome.of(f"{K}.sniper.fires"),
        failed=Outcome.of(f"{K}.sniper.holds"),
    )
    return builder.finish(Outcome.of(f"{K}.sniper.fires" if fires else f"{K}.sniper.holds"))


# -- FUMOGENI -------------------------------------------------------------------------------


class SmokeInput(Frozen):
    """Smoke thrown or fired: its source (a row of the smoke table)."""

    source: Literal["bomba_mano", "lanciafumogeni_veicolo", "proiettili"]


def resolve_smoke(data: SmokeInput, tray: DiceTray) -> Resolution:
    """FUMOGENI: the area by source, lasting 4 turns + 1d10."""
    table = load_tables()["fumogeni"]
    row = table.row_by_id(data.source)
    duration = table.data["duration"]
    base = int(duration["base_turns"])
    builder = ResolutionBuilder(K, "smoke", tray)
    roll = tray.roll(D10, "Smoke duration — d10")
    turns = base + roll.face
    outcome = Outcome.of(f"{K}.smoke.lasts", turns=turns)
    builder.step(
        f"{K}.step.smoke",
        rolls=(roll,),
        modifiers=(Modifier(f"{K}.mod.smoke_base", base),),
        total=turns,
        table=read(table, row, "effetto"),
        outcome=outcome,
    )
    return builder.finish(outcome)


# -- TIRO ANTIAEREO ---------------------------------------------------------------------------


class AntiAircraftInput(Frozen):
    """Anti-aircraft fire at an aircraft over the table."""

    weapon: Literal["mitragliatrice_aa", "cannoncino_aa"]
    quality: Quality
    opportunity: bool = Field(False, description="fired in the movement phase")


def resolve_anti_aircraft(data: AntiAircraftInput, tray: DiceTray) -> Resolution:
    """TIRO ANTIAEREO: 1d10 ≤ chance (quality modifier, halved as opportunity fire); a hit
    is shot down on 1–5 and damaged on 6–10."""
    tables = load_tables()
    table = tables["antiaereo"]
    row = table.row_by_id(data.weapon)
    base: int = tables.parsed(table, row, table.column("possibilita"))
    mods = [
        Modifier(f"{K}.mod.table_value", base),
        Modifier(f"{K}.mod.aa_quality", int(table.data["quality_modifiers"][data.quality.value])),
    ]
    chance = base + mods[1].value
    if data.opportunity:
        halved = half_up(chance) if chance > 0 else chance
        mods.append(Modifier(f"{K}.mod.opportunita", halved - chance))
        chance = halved
    builder = ResolutionBuilder(K, "anti_aircraft", tray)
    hit, _ = roll_under(
        builder,
        tray,
        "Anti-aircraft — d10",
        chance,
        step=f"{K}.step.anti_aircraft",
        modifiers=tuple(mods),
        table=read(table, row, "possibilita"),
        passed=Outcome.of(f"{K}.aa.hit"),
        failed=Outcome.of(f"{K}.aa.miss"),
    )
    if not hit:
        return builder.finish(Outcome.of(f"{K}.aa.miss"))
    limit = int(table.data["shot_down_at_most"])
    fate = tray.roll_against(D10, "Aircraft hit — d10", limit)
    outcome = Outcome.of(f"{K}.aa.shot_down" if fate.face <= limit else f"{K}.aa.damaged")
    builder.step(
        f"{K}.step.aircraft_fate",
        rolls=(fate,),
        total=fate.face,
        threshold=Threshold(Comparison.AT_MOST, limit, f"{K}.threshold.shot_down"),
        outcome=outcome,
    )
    return builder.finish(outcome)


class AircraftReturnInput(Frozen):
    """A damaged aircraft tries to come back."""

    attempt: int = Field(1, ge=1, le=3)


def resolve_aircraft_return(data: AircraftReturnInput, tray: DiceTray) -> Resolution:
    """A damaged aircraft returns on 9 or 10, for 3 consecutive turns at most."""
    table = load_tables()["antiaereo"]
    back = table.data["return"]
    at_least = int(back["at_least"])
    builder = ResolutionBuilder(K, "aircraft_return", tray)
    roll = tray.roll_grouped(D10, "Aircraft return — d10", lambda face: face >= at_least)
    returns = roll.face >= at_least
    last = data.attempt >= int(back["turns"])
    if returns:
        outcome = Outcome.of(f"{K}.aa.returns")
    elif last:
        outcome = Outcome.of(f"{K}.aa.back_to_base")
    else:
        outcome = Outcome.of(f"{K}.aa.not_yet", attempt=data.attempt)
    builder.step(
        f"{K}.step.aircraft_return",
        rolls=(roll,),
        total=roll.face,
        threshold=Threshold(Comparison.AT_LEAST, at_least, f"{K}.threshold.return"),
        outcome=outcome,
        attempt=data.attempt,
    )
    return builder.finish(outcome)
