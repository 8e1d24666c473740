"""The ``linea_gotica`` ruleset (seed 004): WWII skirmish on d10 (adapted from *Bassa
Intensità*): quality, command distances, initiative, movement, opportunity and covering
fire, direct and indirect fire, damage, morale, observation, aircraft, snipers and mines."""

from __future__ import annotations

from rules.core.ruleset import Ruleset, register
from rules.core.sequence import Tracked
from rules.linea_gotica.model import RULESET_KEY
from rules.linea_gotica.muster import MUSTER
from rules.linea_gotica.procedures import PROCEDURES
from rules.linea_gotica.surface import PLAY
from rules.linea_gotica.tables import load_tables
from rules.linea_gotica.turn.steps import declaration, document_position

RULESET = register(
    Ruleset(
        key=RULESET_KEY,
        title="Linea Gotica — WWII skirmish on d10",
        seed="004_c23c797ff42c0b66.txt",
        dice="d10 (0 = 10); d6 for grave wounds",
        load_tables=load_tables,
        procedures=PROCEDURES,
        rules=PLAY,
        muster=MUSTER,
        zero_reads_as_ten=True,
        sequence=Tracked(declaration(), document_position),
        hides_units=True,
    )
)

__all__ = ["PROCEDURES", "RULESET"]
