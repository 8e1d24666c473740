"""Odds benchmark: every procedure's cold odds over searched inputs, and icepool side by side.

Run: ``.venv/bin/python bench/bench_odds.py`` (``--inputs 60`` inputs drawn per procedure;
``pip install icepool`` first for the comparison column — it is not a dependency).
``--ruleset manovra`` (and ``--procedure thrown``) restrict part (1), ``--no-shared`` skips
part (2), ``--clock cpu`` times this process's CPU instead of the wall clock, ``--repeat 3``
keeps each input's least of 3 cold runs; the exit status is 1 when a procedure misses a
target.

(1) For every procedure of every ruleset, inputs are drawn from the property tests'
    strategies (the first ``--inputs`` the schema accepts) plus the known worst cases, and
    each input's odds are computed COLD (every odds cache and composed part forgotten
    first; best of 3 cold runs, the garbage collector paused while timed). Printed: the median
    and the worst per procedure, the worst input, and the targets (median ≤ 1 ms, worst ≤ 5 ms).
(2) Shared cases computed by Arbitro (through its resolvers) and by icepool in the same run:
    12 opposed duels, a 4d10 sum, a 300-attack hit/wound/save chain. Medians of repeated
    runs; Arbitro cold and warm, icepool on new dice (cold) and on the same dice again.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.core.errors import RulesError
from rules.core.procedures import clear_odds_cache
from rules.core.ruleset import all_rulesets

WORST_CASES: dict[tuple[str, str], list[dict[str, Any]]] = {
    ("manovra", "close_combat"): [
        {"duels": [{"ad": i % 4, "opponent_ad": (i * 7) % 4} for i in range(12)]},
        # Twelve kinds of duel: twelve parts to enumerate, (won, lost) in 91 ways.
        {"duels": [{"ad": i // 4, "opponent_ad": i % 4} for i in range(12)]},
    ],
    # Found by searching each procedure's inputs for the most dice paths (issue 12): an HE
    # miss from indirect fire scatters D10 + D8 - AD - CV, then the tank's locations,
    # penetration and effects; a grenade at a tank's crew; a hand grenade into a wall.
    ("manovra", "heavy_fire"): [
        {"ad": 1, "target": "carro", "calibre_mm": 75, "tracked": True, "open_topped": False,
         "cover": "scoperto", "wall": "B", "building": "legno", "models_present": 4,
         "band": "breve", "fragments": False, "target_moving": True, "ammo": "HE",
         "gun_class": "17-25p", "impact": "gt75", "delivery": "indirect"},
        {"ad": 1, "target": "carro_alto", "calibre_mm": 120,
         "armour": {"scafo": 15, "affusto": 12, "scudo": 3, "cingolo": 12, "superiore": 2},
         "turret": True, "tracked": True, "cover": "medio", "models_present": 5,
         "band": "breve", "ammo": "HE", "impact": "gt75", "delivery": "mortar"},
        {"band": "breve", "ad": 0, "target": "edificio_muro", "calibre_mm": 150, "ammo": "HE",
         "wall": "M", "building": "casa"},
        {"band": "breve", "ad": 0, "target": "bunker_muro", "calibre_mm": 139, "ammo": "HE",
         "wall": "B", "building": "bunker", "delivery": "indirect"},
        {"ad": 1, "target": "carro_alto", "calibre_mm": 20,
         "armour": {"scudo": 40, "ruota": 20, "superiore": 2, "apertura": 40, "affusto": 20},
         "turret": False, "target_has_manoeuvred": True, "cover": "leggero", "band": "breve",
         "ammo": "HE", "gun_class": "75L", "impact": "gt75", "delivery": "mortar"},
        {"ad": 1, "target": "carro", "calibre_mm": 203,
         "armour": {"casamatta": 40, "scudo": 2, "scafo": 8, "superiore": 15},
         "open_topped": True, "cover": "medio", "models_present": 7, "band": "breve",
         "target_moving": True, "ammo": "HE", "gun_class": "Mm", "impact": "gt75",
         "delivery": "indirect"},
    ],
    ("manovra", "thrown"): [
        {"ad": 0, "target": "carro", "calibre_mm": 1000,
         "armour": {"casamatta": 5, "apertura": 8, "scudo": 8, "scafo": 2, "affusto": 5,
                    "ruota": 40},
         "cover": "pesante", "models_present": 5, "vehicle": False, "band": "efficace"},
        {"ad": 2, "target": "basso_profilo", "calibre_mm": 20, "armour": {"scafo": 0},
         "vehicle": True},
        {"ad": 2, "target": "edificio_muro", "calibre_mm": 147, "wall": "M",
         "building": "casa"},
        {"ad": 1, "target": "basso_profilo", "calibre_mm": 31,
         "armour": {"cingolo": 2, "superiore": 2, "casamatta": 8, "torretta": 0},
         "cover": "pesante", "vehicle": False, "band": "utile"},
    ],
    ("manovra", "he_fragments"): [
        {"ad": 1, "target": "carro_alto", "calibre_mm": 20, "armour": {"torretta": 2, "scafo": 1},
         "wall": "B", "building": "bunker", "models_present": 9},
    ],
    ("manovra", "scatter"): [{"kind": "indiretto_fuori_campo", "ad": 0, "cv": 0}],
    ("manovra", "small_arms"): [
        {"target_kind": "fanteria", "band": "breve", "ad": 2, "shots": 90, "target_moving": True,
         "models_present": 19, "initial_models": 39},
    ],
    ("manovra", "incendiary"): [
        {"target": "fanteria", "models_touched": 20, "cover": "scoperto"}
    ],
    ("manovra", "panic_recovery"): [{"ad": 0, "commanders_cv": [0, 1, 2, 3, 0, 1]}],
    ("w40k4", "shooting"): [
        {"attacks": a, "auto_hits": h, "bs": 4, "strength": 4, "ap": 5, "toughness": 4,
         "save": 4, "models": 1000, "wounds": w}
        for a, h, w in ((300, 300, 1), (2000, 0, 1), (1000, 1000, 1), (2000, 2000, 1),
                        (2000, 2000, 10), (40, 40, 1))
    ],
    ("w40k4", "close_combat"): [
        {"attacks": 2000, "auto_hits": 2000, "ws": 4, "target_ws": 4, "strength": 4, "ap": 5,
         "toughness": 4, "save": 4, "models": 1000, "wounds": 10},
        {"attacks": 40, "auto_hits": 40, "ws": 4, "target_ws": 4, "strength": 4, "ap": 5,
         "toughness": 4, "save": 4, "invulnerable": 5, "models": 1000, "wounds": 3},
    ],
    ("w40k4", "vehicle_hits"): [
        {"attacks": a, "auto_hits": a, "bs": 4, "strength": 8, "armour": 10, "ap": 1}
        for a in (40, 2000)
    ],
    ("w40k4", "dangerous_terrain"): [{"dice": 2000, "kind": "models"}],
    ("w40k4", "blast_scatter"): [{"template": "artiglieria", "bs": 1, "barrage": False}],
    ("w40k4", "deep_strike"): [{}],
    ("w40k4", "leadership"): [{"leadership": 10, "modifier": 0, "reason": "losses"}],
    ("w40k4", "difficult_terrain"): [{"distance": 6, "limit": 6}],
    ("linea_gotica", "scatter_distance"): [{"dice": 4, "direction": "lungo"}],
    ("linea_gotica", "damage"): [
        {"spec": {"penetration": "cannone_40"}, "target": {"kind": "carro_armato", "weapons": 6}},
    ],
    ("linea_gotica", "direct_fire"): [
        {"quality": "elite", "weapon": w, "distance_cm": 5.0, "calibre_mm": 120,
         "target": {"kind": "carro_armato", "weapons": 6}}
        for w in ("fucilone_controcarro", "mitragliatrice_area", "cannone_77", "cannoncino_area")
    ],
    ("linea_gotica", "he_effect"): [
        {"zone": "breve", "spec": {"penetration": "cannone_60"},
         "target": {"kind": "carro_armato", "weapons": 6}},
    ],
    ("linea_gotica", "initiative"): [{"first": "a", "second": "b"}],
    ("pzgren", "direct_fire"): [
        {"fire_value": 999, "modifiers": ["night", "hill"], "hex": "1,1",
         "units": [{"id": f"u{i}", "category": ("combat", "transport")[i % 2],
                    "armour": ("none", "closed", "open")[i % 3], "modifiers": mods}
                   for i, mods in enumerate(
                       [[], ["dug_in"], ["mortar_aa_at"], ["cavalry"], ["artillery"],
                        ["dug_in", "mortar_aa_at"], ["dug_in", "cavalry"],
                        ["dug_in", "artillery"], ["mortar_aa_at", "cavalry"],
                        ["mortar_aa_at", "artillery"], ["cavalry", "artillery"],
                        ["dug_in", "mortar_aa_at", "cavalry"]])]},
    ],
}


def _strategies(ruleset: str) -> dict[str, Any]:
    module = {
        "manovra": "tests.manovra.test_procedures_properties",
        "linea_gotica": "tests.linea_gotica.test_properties",
        "pzgren": "tests.pzgren.test_properties",
        "w40k4": "tests.w40k4.test_properties",
    }[ruleset]
    imported = __import__(module, fromlist=["STRATEGIES"])
    if ruleset == "pzgren":  # its property tests name one strategy per procedure
        return {
            "direct_fire": imported.direct_inputs,
            "anti_tank": imported.at_inputs,
            "morale": imported.morale_inputs,
        }
    strategies: dict[str, Any] = imported.STRATEGIES
    return strategies


def _draw(strategy: Any, count: int) -> list[dict[str, Any]]:
    if not isinstance(strategy, st.SearchStrategy):
        strategy = strategy(False)  # linea_gotica builds a strategy per "junk" flag
    drawn: list[dict[str, Any]] = []

    @settings(max_examples=count, database=None, deadline=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(value: dict[str, Any]) -> None:
        drawn.append(value)

    collect()
    return drawn


def _valid(procedure: Any, drawn: list[dict[str, Any]], count: int) -> list[dict[str, Any]]:
    """The first ``count`` drawn inputs the schema accepts (strategies also draw junk)."""
    kept = []
    for raw in drawn:
        try:
            procedure.parse_input(raw)
        except RulesError:
            continue
        kept.append(raw)
        if len(kept) == count:
            break
    return kept


def _load_once(procedure: Any, raw_inputs: list[dict[str, Any]]) -> None:
    """One untimed run first: loading a ruleset's tables is not part of an input's odds."""
    for raw in raw_inputs:
        try:
            procedure.odds(procedure.parse_input(raw))
        except RulesError:
            continue
        return


CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}
_clock = time.perf_counter


def _cold(procedure: Any, parsed: Any, repeat: int) -> tuple[float, bool]:
    """Milliseconds for this input's odds with every cache forgotten (the least of ``repeat``
    cold runs with the garbage collector paused, as timeit does: the cores are shared with
    other jobs, and their pauses and earlier inputs' garbage are not this input's cost),
    and whether they came out (False: "odds not computed", past the path limit)."""
    best = float("inf")
    exact = True
    for _ in range(repeat):
        clear_odds_cache()
        gc.disable()
        try:
            started = _clock()
            odds = procedure.odds(parsed)
            best = min(best, (_clock() - started) * 1000)
        finally:
            gc.enable()
        exact = exact and bool(odds.exact)
    return best, exact


def search(inputs: int, rulesets: list[str] | None = None,
           procedures: list[str] | None = None, repeat: int = 3) -> int:
    """Part (1): cold odds over searched inputs; returns how many procedures miss a target.

    ``rulesets`` and ``procedures`` (names, None for all) restrict the search; each input is
    timed cold ``repeat`` times and its least time kept.
    """
    print(f"{'procedure':34} {'inputs':>6} {'median ms':>10} {'worst ms':>9}  worst input")
    misses = 0
    without_odds = 0
    everything: list[float] = []
    for ruleset in all_rulesets():
        if rulesets and ruleset.key not in rulesets:
            continue
        strategies = _strategies(ruleset.key)
        for name, procedure in ruleset.procedures.items():
            if procedures and name not in procedures:
                continue
            raw_inputs = [*WORST_CASES.get((ruleset.key, name), [])]
            raw_inputs += _valid(procedure, _draw(strategies[name], inputs * 8), inputs)
            timings: list[tuple[float, str]] = []
            _load_once(procedure, raw_inputs)
            gc.collect()
            for raw in raw_inputs:
                try:
                    parsed = procedure.parse_input(raw)
                    elapsed, exact = _cold(procedure, parsed, repeat)
                except RulesError:  # an input the rules refuse (no table row): no odds to time
                    continue
                timings.append((elapsed, parsed.model_dump_json()))
                if not exact:
                    without_odds += 1
                    print(f"  no odds for {ruleset.key}.{name}: {timings[-1][1][:90]}")
            if not timings:
                continue
            values = [t for t, _ in timings]
            everything += values
            worst, worst_input = max(timings)
            median = statistics.median(values)
            flag = "" if median <= 1.0 and worst <= 5.0 else "  <-- over target"
            misses += bool(flag)
            print(f"{ruleset.key + '.' + name:34} {len(values):6} {median:10.2f} {worst:9.2f}"
                  f"  {worst_input[:70]}{flag}")
    print(f"\nall inputs: median {statistics.median(everything):.2f} ms, "
          f"worst {max(everything):.2f} ms (targets: median ≤ 1 ms, worst ≤ 5 ms); "
          f"{misses} procedures over target; {without_odds} inputs without odds")
    return misses + without_odds


def _median_ms(run: Callable[[], object], repetitions: int, before: Callable[[], None]) -> float:
    samples = []
    for _ in range(repetitions):
        before()
        started = time.perf_counter()
        run()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def shared_cases(repetitions: int) -> None:
    """Part (2): the same distributions by Arbitro and by icepool, in one run."""
    from rules.core.ruleset import get_ruleset

    manovra = get_ruleset("manovra")
    w40k4 = get_ruleset("w40k4")
    gotica = get_ruleset("linea_gotica")
    duels = manovra.procedure("close_combat")
    duels_in = duels.parse_input({"duels": [{"ad": 1, "opponent_ad": 1}] * 12})
    shooting = w40k4.procedure("shooting")
    chain_in = shooting.parse_input(
        {"attacks": 300, "bs": 4, "strength": 4, "ap": 5, "toughness": 4, "save": 4,
         "models": 1000, "wounds": 1}
    )
    scatter = gotica.procedure("scatter_distance")
    scatter_in = scatter.parse_input({"dice": 4, "direction": "lungo"})
    cases: list[tuple[str, Callable[[], object], Callable[[bool], object]]] = [
        ("12 opposed duels (D6+1 vs D6+1)", lambda: duels.odds(duels_in), _icepool_duels),
        ("300 attacks: hit, wound, save", lambda: shooting.odds(chain_in), _icepool_chain),
        ("linea_gotica 4d10 deviation", lambda: scatter.odds(scatter_in), _icepool_4d10),
    ]
    icepool = _has_icepool()
    print(f"\n{'shared case':34} {'arbitro cold':>12} {'warm':>8} {'icepool new':>11} "
          f"{'icepool again':>13} {'ratio':>7}")
    for label, ours, theirs in cases:
        cold = _median_ms(ours, repetitions, clear_odds_cache)
        warm = _median_ms(ours, repetitions, lambda: None)
        # icepool keeps what it computed on its dice: "new" builds new dice each time (cold,
        # as Arbitro's cold column), "again" reuses the same dice (its caches warm).
        fresh = _median_ms(partial(theirs, True), repetitions, lambda: None) if icepool else None
        again = _median_ms(partial(theirs, False), repetitions, lambda: None) if icepool else None
        ratio = f"{fresh / cold:6.1f}×" if fresh else "     -"
        shown = f"{fresh:11.3f} {again:13.3f}" if fresh and again else f"{'-':>11} {'-':>13}"
        print(f"{label:34} {cold:12.3f} {warm:8.3f} {shown} {ratio}")
    print("(ratio = icepool new / Arbitro cold: above 1, Arbitro is faster)")


def _has_icepool() -> bool:
    try:
        import icepool  # noqa: F401
    except ImportError:
        return False
    return True


def _die(sides: int, new: bool) -> Any:
    import icepool

    return icepool.Die(range(1, sides + 1)) if new else icepool.d(sides)


def _icepool_duels(new: bool) -> object:
    import icepool

    d6 = _die(6, new)
    duel = icepool.map(lambda a, b: 100 if a > b else (1 if b > a else 0), d6 + 1, d6 + 1)
    return 12 @ duel


def _icepool_4d10(new: bool) -> object:
    return 4 @ _die(10, new)


def _icepool_chain(new: bool) -> object:
    import icepool

    d6 = _die(6, new)
    one = icepool.map(lambda h, w, s: int(h >= 4 and w >= 4 and s < 4), d6, d6, d6)
    return 300 @ one


def main() -> int:
    """Run both parts."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=int, default=60, help="inputs drawn per procedure")
    parser.add_argument("--repetitions", type=int, default=7)
    parser.add_argument("--ruleset", action="append",
                        help="only this ruleset (repeatable; default: all)")
    parser.add_argument("--procedure", action="append",
                        help="only this procedure (repeatable; default: all)")
    parser.add_argument("--no-shared", action="store_true",
                        help="skip part (2), the shared cases against icepool")
    parser.add_argument("--repeat", type=int, default=3,
                        help="part (1): time each input cold this many times, keep the least")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall",
                        help="part (1): wall-clock time (default), or this process's CPU "
                             "time (steadier on a machine other jobs share)")
    args = parser.parse_args()
    global _clock
    _clock = CLOCKS[args.clock]
    warnings.simplefilter("ignore")
    misses = search(args.inputs, args.ruleset, args.procedure, max(1, args.repeat))
    if not args.no_shared:
        shared_cases(args.repetitions)
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main())
