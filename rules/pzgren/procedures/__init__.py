"""The pzgren procedures: pure resolutions of the seed's tables (``fire``: the direct-fire
table with its column shifts, anti-tank fire; ``morale``: the morale check of rule 14.1)."""

from __future__ import annotations

from typing import Any

from rules.core.procedures import Procedure
from rules.pzgren.model import RULESET_KEY
from rules.pzgren.procedures import fire, morale


def _procedure(name: str, model: Any, resolver: Any, dice: str) -> Procedure[Any]:
    summary = (resolver.__doc__ or "").strip().splitlines()[0]
    return Procedure(RULESET_KEY, name, model, resolver, summary, dice)


PROCEDURES: dict[str, Procedure[Any]] = {
    p.name: p
    for p in (
        _procedure(
            "direct_fire",
            fire.DirectFireInput,
            fire.resolve_direct_fire,
            "two D6 (the row of TABLE DE TIR DIRECT), read on every column the units need",
        ),
        _procedure(
            "anti_tank",
            fire.AntiTankInput,
            fire.resolve_anti_tank,
            "two D6, plus the AT value, minus the armour, plus the modifiers",
        ),
        _procedure(
            "morale",
            morale.MoraleInput,
            morale.resolve_morale,
            "two D6, plus the # of M# (not in the seed: rule 14.1)",
        ),
    )
}
