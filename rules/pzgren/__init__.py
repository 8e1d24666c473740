"""The ``pzgren`` ruleset (seed 003): hex fire tables — direct fire, anti-tank fire, morale."""

from __future__ import annotations

from rules.core.ruleset import Ruleset, register
from rules.core.sequence import Tracked
from rules.pzgren.model import RULESET_KEY
from rules.pzgren.muster import MUSTER
from rules.pzgren.procedures import PROCEDURES
from rules.pzgren.surface import PLAY
from rules.pzgren.tables import load_tables
from rules.pzgren.turn.steps import declaration, document_position

RULESET = register(
    Ruleset(
        key=RULESET_KEY,
        title="Panzer Grenadier hex fire tables (French seed)",
        seed="003_ddebe590e42383a5.txt",
        dice="2D6",
        load_tables=load_tables,
        procedures=PROCEDURES,
        rules=PLAY,
        muster=MUSTER,
        sequence=Tracked(declaration(), document_position),
        # No unit is ever hidden from a side: every seat sees every unit.
        hides_units=False,
    )
)

__all__ = ["PROCEDURES", "RULESET"]
