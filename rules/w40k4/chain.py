"""The attack chains: to hit → to wound → saves → casualties, and to hit → penetration → damage.

One resolution per weapon group (or per unit striking in close combat), its steps the
seed's SEQUENZA DI TIRO. A group rolls many dice (ten shots, then the hits, then the
wounds), so enumerating every dice path would explode (6^30 paths for ten shots). The odds
stay exact another way, still through the very same resolver:

1. the resolver is run over every dice path of ONE attack (``attacks=1``), by the core
   enumerator: at most 6 × 6 × 6 paths give the exact chance ``p`` that one attack ends in
   an unsaved wound (or, against a vehicle, the exact distribution of its worst damage);
2. attacks are independent, so the unsaved wounds of the group follow the binomial law
   ``Bin(attacks, p)`` (template hits add a second binomial, convolved), and a vehicle's
   worst result has ``P(worst ≤ k) = F(k)^attacks``; each is computed with fractions;
3. every count is mapped to the outcome by the same function the resolver uses
   (casualties from unsaved wounds, capped by the models present, wounds per model and
   instant death).

So each step stays exact and the bound is the number of attacks, not 6^dice.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import nullcontext
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from math import comb, exp, lgamma, log, log1p
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from rules.core.dice import D6, DiceTray, Roll
from rules.core.errors import InvalidInput
from rules.core.odds import EXACT_PARTS_LIMIT, BoundedCache, Weight, enumerate_odds
from rules.core.procedures import ODDS_CACHE_CLEARERS, InputT, Procedure
from rules.core.resolution import (
    Comparison,
    EffectKind,
    Modifier,
    Odds,
    OddsEntry,
    Outcome,
    Resolution,
    ResolutionBuilder,
    TableRead,
    Threshold,
)
from rules.w40k4 import lookups
from rules.w40k4.model import RULESET_KEY, Damage, Facing
from rules.w40k4.tables import load_tables

MAX_DICE = 2_000  # 100 models × (10 attacks + 2): every scenario fits


class Frozen(BaseModel):
    """Base of procedure inputs: strict about unknown fields, immutable, hashable."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class _Hits(Frozen):
    """How the attacks hit: rolled dice (by BS, WS or a fixed score) plus automatic hits."""

    weapon: str | None = Field(None, max_length=60, description="a label for the group")
    attacks: int = Field(0, ge=0, le=MAX_DICE, description="attacks rolled to hit")
    auto_hits: int = Field(0, ge=0, le=MAX_DICE, description="hits scored without a roll")
    bs: int | None = Field(None, ge=1, le=10, description="the firer's Ballistic Skill")
    ws: int | None = Field(None, ge=1, le=10, description="the attacker's Weapon Skill")
    target_ws: int | None = Field(None, ge=1, le=10, description="the defender's Weapon Skill")
    hit_on: int | None = Field(None, ge=2, le=6, description="a fixed score to hit")
    strength: int = Field(ge=1, le=10)
    ap: int | None = Field(None, ge=1, le=6, description="VP (AP); none for VP -")
    target: str | None = Field(None, max_length=64, description="target unit id, for effects")

    @model_validator(mode="after")
    def _one_way_to_hit(self) -> _Hits:
        if self.attacks + self.auto_hits < 1:
            raise ValueError("at least one attack or automatic hit")
        if (self.ws is None) != (self.target_ws is None):
            raise ValueError("ws and target_ws go together")
        ways = sum(x is not None for x in (self.bs, self.ws, self.hit_on))
        if self.attacks and ways != 1:
            raise ValueError("rolled attacks need exactly one of bs, ws+target_ws, hit_on")
        return self

    def hit_source(self) -> str:
        """Which roll to hit the attacks make: bs, ws or fixed."""
        if self.bs is not None:
            return "bs"
        return "ws" if self.ws is not None else "fixed"


class AttackInput(_Hits):
    """A weapon group firing, or a unit striking in close combat, at a unit of models."""

    toughness: int = Field(ge=1, le=10)
    save: int | None = Field(
        None, ge=2, le=6, description="armour save; none if the model has none"
    )
    invulnerable: int | None = Field(None, ge=2, le=6)
    cover: str | None = Field(None, max_length=40, description="TIRI COPERTURA row or alias")
    ignores_cover: bool = Field(False, description="flamer templates (Negano i Tiri Copertura)")
    wounds: int = Field(1, ge=1, le=10, description="wounds per model")
    wounds_taken: int = Field(0, ge=0, le=9, description="wounds already on the current model")
    models: int = Field(1, ge=1, le=1000, description="models in the target unit")
    saved_by: str | None = Field(
        None,
        max_length=64,
        description="the side that rolls the saves (the target's owner); none: the attacker",
    )

    @model_validator(mode="after")
    def _wounds(self) -> AttackInput:
        if self.wounds_taken >= self.wounds:
            raise ValueError("wounds_taken must be below wounds")
        return self


class VehicleAttackInput(_Hits):
    """A weapon group firing, or a unit striking in close combat, at a vehicle."""

    armour: int = Field(ge=1, le=20, description="armour value of the side struck")
    facing: Facing = Facing.FRONT
    open_topped: bool = False
    squadron: bool = False
    models: int = Field(1, ge=1, le=20, description="vehicles in the unit")


# -- to hit -------------------------------------------------------------------------------------


def _roll_many(tray: DiceTray, count: int, label: str) -> tuple[Roll, ...]:
    return tuple(tray.roll(D6, f"{label} #{index + 1}") for index in range(count))


def _to_hit(data: _Hits, builder: ResolutionBuilder, tray: DiceTray, label: str) -> int:
    """Roll the attacks to hit; record the automatic hits. Returns the hits."""
    hits = 0
    if data.attacks:
        source = data.hit_source()
        table: TableRead | None
        if source == "bs":
            score, table = lookups.to_hit_score(data.bs or 1)
        elif source == "ws":
            score, table = lookups.ws_score(data.ws or 1, data.target_ws or 1)
        else:
            score = data.hit_on or 6
            table = lookups.cite("meccaniche_standard", "sagoma_parziale")
        rolls = _roll_many(tray, data.attacks, f"{label} to hit")
        scored = sum(1 for roll in rolls if roll.face >= score)
        builder.step(
            "w40k4.step.to_hit",
            rolls=rolls,
            threshold=Threshold(Comparison.AT_LEAST, score, "w40k4.threshold.each"),
            table=table,
            outcome=Outcome.of("w40k4.chain.hits", n=scored),
            dice=data.attacks,
            source=source,
        )
        hits += scored
    if data.auto_hits:
        builder.step(
            "w40k4.step.auto_hits",
            total=data.auto_hits,
            table=lookups.cite("altri_tipi_armi", "sagoma", "regola")
            if isinstance(data, AttackInput) and data.ignores_cover
            else None,
            outcome=Outcome.of("w40k4.chain.hits", n=data.auto_hits),
        )
        hits += data.auto_hits
    return hits


# -- against models ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Allocation:
    """What ``unsaved`` wounds do to the target unit."""

    killed: int
    wounds_taken: int
    inflicted: int


def allocate(data: AttackInput, unsaved: int) -> Allocation:
    """Casualties from unsaved wounds: instant death, wounds per model, capped by the models."""
    if lookups.instant_death(data.strength, data.toughness) and data.wounds > 1:
        killed = min(data.models, unsaved)
        taken = 0 if killed else data.wounds_taken
        return Allocation(killed, taken if killed < data.models else 0, killed)
    total = data.wounds_taken + unsaved
    killed = min(data.models, total // data.wounds)
    remaining = data.models * data.wounds - data.wounds_taken
    taken = total % data.wounds if killed < data.models else 0
    return Allocation(killed, taken, min(unsaved, remaining))


def attack_outcome(data: AttackInput, unsaved: int) -> Outcome:
    """The outcome for a number of unsaved wounds (shared by the resolver and the odds)."""
    result = allocate(data, unsaved)
    multi = data.wounds > 1
    if result.killed and multi:
        return Outcome.of("w40k4.chain.casualties_wounds", n=result.killed, wounds=result.inflicted)
    if result.killed:
        return Outcome.of("w40k4.chain.casualties", n=result.killed)
    if result.inflicted:
        return Outcome.of("w40k4.chain.wounded", wounds=result.inflicted)
    return Outcome.of("w40k4.chain.no_effect")


def best_save(data: AttackInput) -> tuple[int | None, str | None, TableRead | None]:
    """The one save a model takes: the best of armour (unless denied), cover, invulnerable."""
    options: list[tuple[int, str, TableRead | None]] = []
    if data.save is not None:
        armour, read = lookups.armour_save(data.ap, data.save)
        if armour is not None:
            options.append((armour, "armour", read))
    if not data.ignores_cover:
        cover, read_cover, _ = lookups.cover_save(data.cover)
        if cover is not None:
            options.append((cover, "cover", read_cover))
    if data.invulnerable is not None:
        options.append((data.invulnerable, "invulnerable", None))
    if not options:
        armour_read: TableRead | None = None
        if data.save is not None:
            armour_read = lookups.armour_save(data.ap, data.save)[1]
        return None, None, armour_read
    best = min(options, key=lambda option: option[0])
    return best[0], best[1], best[2]


def _wound_and_save(
    data: AttackInput, builder: ResolutionBuilder, tray: DiceTray, hits: int, label: str
) -> int:
    """Roll to wound and the saves; returns the unsaved wounds."""
    if not hits:
        return 0
    score, table = lookups.wound_score(data.strength, data.toughness)
    if score is None:
        builder.step(
            "w40k4.step.to_wound",
            table=table,
            outcome=Outcome.of("w40k4.chain.cannot_wound"),
            dice=0,
        )
        return 0
    rolls = _roll_many(tray, hits, f"{label} to wound")
    wounds = sum(1 for roll in rolls if roll.face >= score)
    builder.step(
        "w40k4.step.to_wound",
        rolls=rolls,
        threshold=Threshold(Comparison.AT_LEAST, score, "w40k4.threshold.each"),
        table=table,
        outcome=Outcome.of("w40k4.chain.wounds", n=wounds),
        dice=hits,
    )
    if not wounds:
        return 0
    save, kind, read = best_save(data)
    if save is None:
        builder.step(
            "w40k4.step.no_save",
            table=read,
            outcome=Outcome.of("w40k4.chain.unsaved", n=wounds),
        )
        return wounds
    with tray.rolled_by(data.saved_by) if data.saved_by is not None else nullcontext():
        saves = _roll_many(tray, wounds, f"{label} save")
    saved = sum(1 for roll in saves if roll.face >= save)
    builder.step(
        "w40k4.step.saves",
        rolls=saves,
        threshold=Threshold(Comparison.AT_LEAST, save, f"w40k4.threshold.save_{kind}"),
        table=read,
        outcome=Outcome.of("w40k4.chain.unsaved", n=wounds - saved),
        dice=wounds,
        save=kind,
    )
    return wounds - saved


def resolve_attacks(data: AttackInput, tray: DiceTray, procedure: str) -> Resolution:
    """The whole chain against a unit of models."""
    if procedure == "close_combat" and data.attacks and data.hit_source() != "ws":
        raise InvalidInput("error.w40k4.close_combat_needs_ws")
    builder = ResolutionBuilder(RULESET_KEY, procedure, tray)
    label = data.weapon or procedure
    hits = _to_hit(data, builder, tray, label)
    unsaved = _wound_and_save(data, builder, tray, hits, label)
    result = allocate(data, unsaved)
    outcome = attack_outcome(data, unsaved)
    if result.killed:
        builder.effect(EffectKind.CASUALTIES, "killed", target=data.target, amount=result.killed)
    builder.step(
        "w40k4.step.casualties",
        total=result.killed,
        table=lookups.cite("sequenza_tiro", "casualties") if procedure == "shooting" else None,
        outcome=outcome,
        unsaved=unsaved,
        inflicted=result.inflicted,
        wounds_taken=result.wounds_taken,
    )
    return builder.finish(outcome)


def resolve_shooting(data: AttackInput, tray: DiceTray) -> Resolution:
    """A weapon group's shooting at a unit: to hit by BS, to wound, saves, casualties."""
    return resolve_attacks(data, tray, "shooting")


def resolve_close_combat(data: AttackInput, tray: DiceTray) -> Resolution:
    """One unit's close-combat attacks: to hit by WS, to wound, saves, casualties."""
    return resolve_attacks(data, tray, "close_combat")


# -- against vehicles --------------------------------------------------------------------------


def damage_roll(
    builder: ResolutionBuilder,
    tray: DiceTray,
    *,
    glancing: bool,
    ap: int | None,
    open_topped: bool,
    squadron: bool,
    label: str,
) -> Damage:
    """One roll on TABELLA DEI DANNI AI VEICOLI with its modifiers; records a step."""
    tables = load_tables()
    table = tables["danni_veicoli"]
    wanted = {
        "glancing": glancing,
        "ap_none": ap is None,
        "ap1": ap == 1,
        "open_topped": open_topped,
    }
    modifiers = tuple(
        Modifier(f"w40k4.mod.{row.data['modifier']['key']}", int(row.data["modifier"]["value"]))
        for row in table.rows
        if "modifier" in row.data and wanted[str(row.data["modifier"]["key"])]
    )
    roll = tray.roll(D6, f"{label} damage")
    total = roll.face + sum(m.value for m in modifiers)
    first, last = table.rows[0], table.rows[-1]
    band = max(1, min(total, 6))
    row = first if total <= 1 else last if total >= 6 else table.row_for("d6", band)
    effect: Damage = tables.parsed(table, row, table.column("effetto"))
    applied = Damage.WRECKED if squadron and effect is Damage.IMMOBILISED else effect
    builder.step(
        "w40k4.step.damage",
        rolls=(roll,),
        modifiers=modifiers,
        total=total,
        table=lookups.read(table, row, "effetto"),
        outcome=Outcome.of("w40k4.vehicle.result", status=applied.value),
        hit="glancing" if glancing else "penetrating",
    )
    return applied


def penetration_of(strength: int, armour: int, face: int) -> str:
    """Which row of penetrazione_corazza a D6 face gives: penetrating, glancing or none."""
    total = face + strength
    for row in load_tables()["penetrazione_corazza"].rows:
        comparison = str(row.data["comparison"])
        if (
            (comparison == ">" and total > armour)
            or (comparison == "=" and total == armour)
            or (comparison == "<" and total < armour)
        ):
            return row.id or ""
    raise ValueError("no penetration row")  # pragma: no cover - the rows cover <, =, >


def resolve_vehicle_hits(data: VehicleAttackInput, tray: DiceTray) -> Resolution:
    """Attacks at a vehicle: to hit, D6 + S against the armour, then damage for each hit."""
    builder = ResolutionBuilder(RULESET_KEY, "vehicle_hits", tray)
    label = data.weapon or "vehicle"
    hits = _to_hit(data, builder, tray, label)
    table = load_tables()["penetrazione_corazza"]
    damaging: list[bool] = []  # True for glancing
    if hits:
        rolls = _roll_many(tray, hits, f"{label} penetration")
        kinds = [penetration_of(data.strength, data.armour, roll.face) for roll in rolls]
        damaging = [kind == "glancing" for kind in kinds if kind != "none"]
        penetrating = kinds.count("penetrating")
        glancing = kinds.count("glancing")
        builder.step(
            "w40k4.step.penetration_facing",
            rolls=rolls,
            modifiers=(Modifier("w40k4.mod.strength", data.strength),),
            threshold=Threshold(Comparison.AT_LEAST, data.armour, "w40k4.threshold.armour"),
            table=lookups.read(table, table.row_by_id("glancing"), "confronto"),
            outcome=Outcome.of("w40k4.vehicle.penetration", pen=penetrating, glance=glancing),
            facing=data.facing.value,
        )
    results = [
        damage_roll(
            builder,
            tray,
            glancing=glance,
            ap=data.ap,
            open_topped=data.open_topped,
            squadron=data.squadron,
            label=f"{label} #{index + 1}",
        )
        for index, glance in enumerate(damaging)
    ]
    for result in results:
        builder.effect(EffectKind.DAMAGE, result.value, target=data.target)
    outcome = vehicle_outcome(max(results, key=lambda d: d.severity) if results else None)
    return builder.finish(outcome)


def vehicle_outcome(worst: Damage | None) -> Outcome:
    """The outcome for the worst damage result (None: no damage)."""
    if worst is None:
        return Outcome.of("w40k4.vehicle.no_effect")
    return Outcome.of("w40k4.vehicle.damage", status=worst.value)


# -- composed odds ----------------------------------------------------------------------------


def _binomial(n: int, p: Fraction) -> list[Weight]:
    """Bin(n, p): exact fractions for small volleys, floating point beyond.

    Past EXACT_PARTS_LIMIT attacks the exact fractions grow huge (a 2,000-attack volley took
    minutes); log-space floats keep every term accurate to ~1e-15, and terms below 1e-18 —
    far under the 0.1 % shown — are dropped so that convolving two volleys stays cheap.
    """
    if n <= EXACT_PARTS_LIMIT:
        q = 1 - p
        return [comb(n, k) * p**k * q ** (n - k) for k in range(n + 1)]
    chance = float(p)
    if chance <= 0.0 or chance >= 1.0:
        certain: list[Weight] = [0.0] * (n + 1)
        certain[n if chance >= 1.0 else 0] = 1.0
        return certain
    log_p, log_q = log(chance), log1p(-chance)
    terms = [
        exp(lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1) + k * log_p + (n - k) * log_q)
        for k in range(n + 1)
    ]
    kept: list[Weight] = [term if term > 1e-18 else 0.0 for term in terms]
    return kept


def _convolve(a: list[Weight], b: list[Weight]) -> list[Weight]:
    out: list[Weight] = [0] * (len(a) + len(b) - 1)
    nonzero_b = [(j, y) for j, y in enumerate(b) if y]
    for i, x in enumerate(a):
        if x:
            for j, y in nonzero_b:
                out[i + j] += x * y
    return out


def _entries(weights: Mapping[Outcome, Weight]) -> tuple[OddsEntry, ...]:
    entries = []
    for outcome, value in weights.items():
        if not value:
            continue
        exact = value if isinstance(value, Fraction) else Fraction(value).limit_denominator(10**15)
        if exact:
            entries.append(OddsEntry(outcome, exact.numerator, exact.denominator))
    entries.sort(key=lambda entry: (-entry.numerator / entry.denominator, entry.outcome.code))
    return tuple(entries)


@lru_cache(maxsize=4096)
def _single_attack(kind: str, payload: str) -> tuple[dict[str, Fraction], int]:
    """Outcome code → exact probability for ONE attack, by the core enumerator."""
    model: type[AttackInput] | type[VehicleAttackInput] = (
        AttackInput if kind == "attack" else VehicleAttackInput
    )
    data = model.model_validate_json(payload)

    def run(source: Any) -> Outcome:
        if isinstance(data, AttackInput):
            return resolve_attacks(data, DiceTray(source), "odds").outcome
        return resolve_vehicle_hits(data, DiceTray(source)).outcome

    odds = enumerate_odds(run, 10_000)
    return {e.outcome.code: Fraction(e.numerator, e.denominator) for e in odds.entries}, odds.paths


def _one(data: _Hits, rolled: bool, **extra: Any) -> str:
    update = {"attacks": 1 if rolled else 0, "auto_hits": 0 if rolled else 1, "target": None}
    if isinstance(data, AttackInput):
        update["saved_by"] = None  # who rolls does not change the odds
    return data.model_copy(update={**update, **extra}).model_dump_json()


def attack_odds(data: AttackInput) -> Odds:
    """Exact odds of a group against models: Bin(attacks, p) ⊕ Bin(auto_hits, p_auto)."""
    paths = 0
    dist: list[Weight] = [Fraction(1)]
    for rolled, count in ((True, data.attacks), (False, data.auto_hits)):
        if not count:
            continue
        # One attack on a one-model, one-wound unit: an unsaved wound kills it.
        single, used = _single_attack(
            "attack", _one(data, rolled, models=1, wounds=1, wounds_taken=0)
        )
        paths += used
        p = sum((v for code, v in single.items() if code != "w40k4.chain.no_effect"), Fraction(0))
        dist = _convolve(dist, _binomial(count, p))
    weights: dict[Outcome, Weight] = {}
    for unsaved, chance in enumerate(dist):
        if not chance:
            continue
        outcome = attack_outcome(data, unsaved)
        weights[outcome] = weights.get(outcome, Fraction(0)) + chance
    return Odds(_entries(weights), paths, exact=True)


def vehicle_odds(data: VehicleAttackInput) -> Odds:
    """Exact odds of the worst damage: P(worst ≤ k) = Π F_i(k)^n_i over the attack kinds."""
    paths = 0
    order: list[Damage | None] = [None, *Damage]
    cumulative = [Fraction(1)] * len(order)
    for rolled, count in ((True, data.attacks), (False, data.auto_hits)):
        if not count:
            continue
        single, used = _single_attack("vehicle", _one(data, rolled, models=1))
        paths += used
        running = Fraction(0)
        for index, level in enumerate(order):
            running += single.get(vehicle_outcome(level).code, Fraction(0))
            cumulative[index] *= running**count
    weights: dict[Outcome, Fraction] = {}
    previous = Fraction(0)
    for level, at_most in zip(order, cumulative, strict=True):
        weights[vehicle_outcome(level)] = at_most - previous
        previous = at_most
    return Odds(_entries(weights), paths, exact=True)


def counted_odds(
    single: Callable[[], Odds], count: int, outcome_of: Callable[[int], Outcome]
) -> Odds:
    """Exact odds of ``count`` independent identical dice: Bin(count, p) of one die's success.

    ``single`` enumerates ONE die through the resolver; a success is any outcome other
    than ``outcome_of(0)``.
    """
    one = single()
    failure = outcome_of(0).code
    p = sum(
        (Fraction(e.numerator, e.denominator) for e in one.entries if e.outcome.code != failure),
        Fraction(0),
    )
    weights: dict[Outcome, Weight] = {}
    for k, chance in enumerate(_binomial(count, p)):
        if not chance:
            continue
        outcome = outcome_of(k)
        weights[outcome] = weights.get(outcome, Fraction(0)) + chance
    return Odds(_entries(weights), one.paths, exact=True)


# -- a procedure whose odds are composed ------------------------------------------------------

_COMPOSED_CACHE: BoundedCache[tuple[str, str], Odds] = BoundedCache(4096)


@dataclass(frozen=True)
class ComposedProcedure(Procedure[InputT]):
    """A procedure whose exact odds are composed from single-die enumerations (see above)."""

    composer: Callable[[InputT], Odds] | None = field(default=None)

    def odds(self, data: InputT) -> Odds:
        """The exact composed odds (cached)."""
        if self.composer is None:  # pragma: no cover - every composed procedure has one
            return super().odds(data)
        key = (self.name, data.model_dump_json())
        cached = _COMPOSED_CACHE.get(key)
        if cached is None:
            cached = self.composer(data)
            _COMPOSED_CACHE.put(key, cached)
        return cached


def clear_composed_cache() -> None:
    """Forget composed odds and single-attack enumerations (benchmarks, cold runs)."""
    _COMPOSED_CACHE.clear()
    _single_attack.cache_clear()


ODDS_CACHE_CLEARERS.append(clear_composed_cache)
