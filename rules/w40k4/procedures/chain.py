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

from collections.abc import Callable, Hashable, Mapping
from contextlib import nullcontext
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from math import comb, exp, gcd, lgamma, log, log1p
from typing import Any, cast

from pydantic import BaseModel, ConfigDict, Field, model_validator

from rules.core.caches import BoundedCache
from rules.core.dice import D6, DiceTray, Roll
from rules.core.errors import InvalidInput
from rules.core.odds import EXACT_PARTS_LIMIT, enumerate_odds
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
from rules.core.tables import Row
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


def _roll_many(
    tray: DiceTray, count: int, label: str, read: Callable[[int], Hashable]
) -> tuple[Roll, ...]:
    """``count`` D6, each read by the rules only through ``read(face)`` (a pass against a
    score, a row of a table): the odds then branch per reading, not per face."""
    return tuple(tray.roll_grouped(D6, f"{label} #{index + 1}", read) for index in range(count))


def _at_least(score: int) -> Callable[[int], Hashable]:
    return lambda face: face >= score


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
        rolls = _roll_many(tray, data.attacks, f"{label} to hit", _at_least(score))
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


def allocate(data: AttackInput, unsaved: int, instant: bool | None = None) -> Allocation:
    """Casualties from unsaved wounds: instant death, wounds per model, capped by the models.

    ``instant`` is whether the attacks cause instant death, when the caller knows it (the
    odds allocate hundreds of counts for one input).
    """
    if instant is None:
        instant = lookups.instant_death(data.strength, data.toughness)
    if instant and data.wounds > 1:
        killed = min(data.models, unsaved)
        taken = 0 if killed else data.wounds_taken
        return Allocation(killed, taken if killed < data.models else 0, killed)
    total = data.wounds_taken + unsaved
    killed = min(data.models, total // data.wounds)
    remaining = data.models * data.wounds - data.wounds_taken
    taken = total % data.wounds if killed < data.models else 0
    return Allocation(killed, taken, min(unsaved, remaining))


def attack_outcome(data: AttackInput, unsaved: int, instant: bool | None = None) -> Outcome:
    """The outcome for a number of unsaved wounds (shared by the resolver and the odds)."""
    result = allocate(data, unsaved, instant)
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
    rolls = _roll_many(tray, hits, f"{label} to wound", _at_least(score))
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
        saves = _roll_many(tray, wounds, f"{label} save", _at_least(save))
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
        # The step of the sequence that removes the casualties: shooting's or close combat's.
        table=lookups.cite("sequenza_tiro", "casualties")
        if procedure == "shooting"
        else lookups.cite("fase_combattimento", "resolve"),
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
    first, last = table.rows[0], table.rows[-1]

    def row_of(face: int) -> Row:
        total = face + sum(m.value for m in modifiers)
        return first if total <= 1 else last if total >= 6 else table.row_for("d6", total)

    def applied_of(face: int) -> Damage:
        effect: Damage = tables.parsed(table, row_of(face), table.column("effetto"))
        return Damage.WRECKED if squadron and effect is Damage.IMMOBILISED else effect

    # Only the damage applied is read: the odds branch per damage, not per face.
    roll = tray.roll_grouped(D6, f"{label} damage", applied_of)
    total = roll.face + sum(m.value for m in modifiers)
    row = row_of(roll.face)
    applied = applied_of(roll.face)
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
        rolls = _roll_many(
            tray,
            hits,
            f"{label} penetration",
            lambda face: penetration_of(data.strength, data.armour, face),
        )
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


@dataclass(frozen=True, slots=True)
class _Counts:
    """A distribution over 0, 1, 2, … successes: ``terms[k] / denominator`` is P(offset + k).

    Exact (integer terms) up to EXACT_PARTS_LIMIT dice; beyond, floating-point terms with a
    denominator of 1, the negligible tails (below 1e-18, far under the 0.1 % shown) cut off.
    """

    offset: int
    terms: list[int] | list[float]
    denominator: int = 1

    def items(self) -> list[tuple[int, int | float]]:
        """(successes, term) for every term that is not zero."""
        return [(self.offset + k, term) for k, term in enumerate(self.terms) if term]


_NEGLIGIBLE = 1e-18


def _binomial(n: int, p: Fraction, exact: bool) -> _Counts:
    """Bin(n, p), exact (integer terms over pᵈᵉⁿ to the n) or floating point.

    Past EXACT_PARTS_LIMIT dice exact fractions grow huge (a 2,000-attack volley took
    minutes); log-space floats keep every kept term accurate to ~1e-15.
    """
    if exact:
        a, b = p.numerator, p.denominator
        c = b - a
        powers_c = [1] * (n + 1)
        for k in range(1, n + 1):
            powers_c[k] = powers_c[k - 1] * c
        terms: list[int] = []
        power_a = 1
        for k in range(n + 1):
            terms.append(comb(n, k) * power_a * powers_c[n - k])
            power_a *= a
        return _Counts(0, terms, b**n)
    chance = float(p)
    if chance <= 0.0 or chance >= 1.0:
        return _Counts(n if chance >= 1.0 else 0, [1.0])
    odds_ratio = chance / (1.0 - chance)
    # The mode's term in log space, then its neighbours by the ratio of consecutive terms,
    # outwards while they matter: only those are computed.
    mode = min(n, int((n + 1) * chance))
    peak = exp(
        lgamma(n + 1)
        - lgamma(mode + 1)
        - lgamma(n - mode + 1)
        + mode * log(chance)
        + (n - mode) * log1p(-chance)
    )
    below: list[float] = []
    term, k = peak, mode
    while k > 0:
        term *= k / (n - k + 1) / odds_ratio
        if term <= _NEGLIGIBLE:
            break
        below.append(term)
        k -= 1
    above: list[float] = []
    term, k = peak, mode
    while k < n:
        term *= (n - k) / (k + 1) * odds_ratio
        if term <= _NEGLIGIBLE:
            break
        above.append(term)
        k += 1
    below.reverse()
    kept = [*below, peak, *above]
    # The peak's rounding in log space scales every term alike: the sum puts it right.
    total = sum(kept)
    return _Counts(mode - len(below), [term / total for term in kept])


# Fixed-point bits for the floating-point convolution below: each term is rounded to 2⁻⁵⁶
# (1.4e-17), so a result term is off by less than 3e-17 (each side's error weighs at most
# the other side's total, 1) — under the 1e-15 kept in the odds.
_FIXED_BITS = 56


def _convolve(a: _Counts, b: _Counts) -> _Counts:
    """The distribution of the sum of two independent counts.

    Exact terms multiply as integers. Floating-point terms (hundreds by hundreds for big
    volleys) go through one big-integer product: each list becomes the digits of an integer
    in base 2^slot (Kronecker substitution), so the O(n·m) sums run inside the integer
    multiplication instead of in Python loops.
    """
    offset = a.offset + b.offset
    if isinstance(a.terms[0], int) and isinstance(b.terms[0], int):
        exact_b = cast(list[int], b.terms)
        out = [0] * (len(a.terms) + len(b.terms) - 1)
        for i, x in enumerate(cast(list[int], a.terms)):
            if x:
                for j, y in enumerate(exact_b):
                    out[i + j] += x * y
        return _Counts(offset, out, a.denominator * b.denominator)
    scale = 1 << _FIXED_BITS
    left = [round(x / a.denominator * scale) for x in a.terms]
    right = [round(y / b.denominator * scale) for y in b.terms]
    shortest = min(len(left), len(right))
    slot = (2 * _FIXED_BITS + shortest.bit_length() + 7) // 8  # bytes: no carry between
    packed_left = int.from_bytes(b"".join(x.to_bytes(slot, "little") for x in left), "little")
    packed_right = int.from_bytes(b"".join(y.to_bytes(slot, "little") for y in right), "little")
    length = len(left) + len(right) - 1
    raw = (packed_left * packed_right).to_bytes(length * slot, "little")
    square = float(scale) * float(scale)
    terms = [
        int.from_bytes(raw[k * slot : (k + 1) * slot], "little") / square for k in range(length)
    ]
    return _Counts(offset, [term if term > _NEGLIGIBLE else 0.0 for term in terms])


_DECIMALS = 10**15


def _fraction(value: Fraction | int | float, denominator: int) -> tuple[int, int]:
    """(numerator, denominator) in lowest terms."""
    if isinstance(value, float):
        # Floating point only past EXACT_PARTS_LIMIT: 15 decimals keep far more than is shown.
        numerator = round(value / denominator * _DECIMALS)
        common = gcd(numerator, _DECIMALS)
        return numerator // common, _DECIMALS // common
    exact = Fraction(value, denominator)
    return exact.numerator, exact.denominator


def _entries(
    weights: Mapping[Outcome, Fraction | int | float], denominator: int = 1
) -> tuple[OddsEntry, ...]:
    entries = []
    for outcome, value in weights.items():
        if not value:
            continue
        numerator, lowest = _fraction(value, denominator)
        if numerator:
            entries.append(OddsEntry(outcome, numerator, lowest))
    return _most_likely_first(entries)


def _most_likely_first(entries: list[OddsEntry]) -> tuple[OddsEntry, ...]:
    """Most likely first, ties by outcome code: the core's order, the codes (slow strings)
    formatted only where chances tie (a big volley has hundreds of entries, few ties)."""
    keyed = sorted(((-e.numerator / e.denominator, index) for index, e in enumerate(entries)))
    ordered: list[OddsEntry] = []
    start = 0
    while start < len(keyed):
        end = start + 1
        while end < len(keyed) and keyed[end][0] == keyed[start][0]:
            end += 1
        run = [entries[index] for _, index in keyed[start:end]]
        if len(run) > 1:
            run.sort(key=lambda entry: entry.outcome.code)
        ordered += run
        start = end
    return tuple(ordered)


def _by_outcome(counts: _Counts, outcome_of: Callable[[int], Outcome]) -> tuple[OddsEntry, ...]:
    weights: dict[Outcome, int | float] = {}
    for k, chance in counts.items():
        outcome = outcome_of(k)
        weights[outcome] = weights.get(outcome, 0) + chance
    return _entries(weights, counts.denominator)


@lru_cache(maxsize=1024)  # one attack's chain by its input: ~1 KB each
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
    exact = max(data.attacks, data.auto_hits) <= EXACT_PARTS_LIMIT
    dist: _Counts | None = None
    for rolled, count in ((True, data.attacks), (False, data.auto_hits)):
        if not count:
            continue
        # One attack on a one-model, one-wound unit: an unsaved wound kills it.
        single, used = _single_attack(
            "attack", _one(data, rolled, models=1, wounds=1, wounds_taken=0)
        )
        paths += used
        p = sum((v for code, v in single.items() if code != "w40k4.chain.no_effect"), Fraction(0))
        part = _binomial(count, p, exact)
        dist = part if dist is None else _convolve(dist, part)
    assert dist is not None  # the input has an attack or an automatic hit
    instant = lookups.instant_death(data.strength, data.toughness)
    entries = _by_outcome(dist, lambda unsaved: attack_outcome(data, unsaved, instant))
    return Odds(entries, paths, exact=True)


def vehicle_odds(data: VehicleAttackInput) -> Odds:
    """Exact odds of the worst damage: P(worst ≤ k) = Π F_i(k)^n_i over the attack kinds.

    Exact fractions up to EXACT_PARTS_LIMIT dice of a kind; beyond, floating point (the
    powers of exact fractions grow to thousands of digits).
    """
    paths = 0
    exact = max(data.attacks, data.auto_hits) <= EXACT_PARTS_LIMIT
    order: list[Damage | None] = [None, *Damage]
    cumulative: list[Fraction | float] = [Fraction(1) if exact else 1.0] * len(order)
    for rolled, count in ((True, data.attacks), (False, data.auto_hits)):
        if not count:
            continue
        single, used = _single_attack("vehicle", _one(data, rolled, models=1))
        paths += used
        running = Fraction(0)
        for index, level in enumerate(order):
            running += single.get(vehicle_outcome(level).code, Fraction(0))
            cumulative[index] *= running**count if exact else float(running) ** count
    weights: dict[Outcome, Fraction | float] = {}
    previous: Fraction | float = 0
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
    counts = _binomial(count, p, count <= EXACT_PARTS_LIMIT)
    return Odds(_by_outcome(counts, outcome_of), one.paths, exact=True)


# -- a procedure whose odds are composed ------------------------------------------------------

_COMPOSED_CACHE: BoundedCache[tuple[str, str], Odds] = BoundedCache(
    4096,
    name="w40k4 composed odds",
    max_weight=1024 * 1024,
    weigh=lambda key, odds: 300 + len(key[0]) + len(key[1]) + 450 * len(odds.entries),
)


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
