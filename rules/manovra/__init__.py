"""The ``manovra`` ruleset (seed 000): WWII platoon-level rules with manoeuvre tokens."""

from __future__ import annotations

from rules.core.ruleset import Ruleset, register
from rules.core.sequence import Tracked
from rules.manovra.model import RULESET_KEY
from rules.manovra.muster import MUSTER
from rules.manovra.procedures import PROCEDURES
from rules.manovra.surface import PLAY
from rules.manovra.tables import load_tables
from rules.manovra.turn.steps import declaration, document_position

RULESET = register(
    Ruleset(
        key=RULESET_KEY,
        title="Manovra — WWII platoon rules",
        seed="000_28771903b3591280.txt",
        dice="D6 D8 D10 D12",
        load_tables=load_tables,
        procedures=PROCEDURES,
        rules=PLAY,
        muster=MUSTER,
        hides_units=True,
        sequence=Tracked(declaration(), document_position),
    )
)

__all__ = ["PROCEDURES", "RULESET"]
