"""The ``w40k4`` ruleset (seed 001): the sci-fi miniatures quick reference (Italian, D6)."""

from __future__ import annotations

from rules.core.ruleset import Ruleset, register
from rules.core.sequence import Tracked
from rules.w40k4.model import RULESET_KEY
from rules.w40k4.muster import MUSTER
from rules.w40k4.procedures import PROCEDURES
from rules.w40k4.surface import PLAY
from rules.w40k4.tables import load_tables
from rules.w40k4.turn.steps import declaration, document_position

RULESET = register(
    Ruleset(
        key=RULESET_KEY,
        title="W40K4 — quick reference di fantascienza (D6)",
        seed="001_772b98ed090d40a6.txt",
        dice="D6 (D12 for scatter directions)",
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
