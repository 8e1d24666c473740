"""The pzgren rules over its pydantic state (a ``DocumentRules``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules.core.battlefield import Counter, HexGrid, MapHex, MapView, Overlay, Point
from rules.core.errors import RulesError
from rules.core.legal import LegalAction
from rules.core.play import DocumentRules, StatusView, UnitLine
from rules.core.resolution import Outcome
from rules.core.words import in_language, joined, names_in
from rules.pzgren import commands as commands_module
from rules.pzgren import legal
from rules.pzgren import scenario as scenario_module
from rules.pzgren import turn as g
from rules.pzgren import victory as victory_module
from rules.pzgren.field import parse_hex
from rules.pzgren.model import MoraleState
from rules.pzgren.tables import load_tables

MAX_CHOICES = 25


class PzgrenPlay(DocumentRules):
    """Play pzgren through documents (plain JSON dicts) for the application service."""

    ruleset = "pzgren"
    game = g
    commands = commands_module
    scenario = scenario_module
    victory = victory_module

    def legal_actions(self, state: Any) -> list[LegalAction]:
        """Owed step choices and morale checks first; else the activation's moves and fires."""
        return legal.legal_actions(state)

    def status(self, state: Any) -> StatusView:
        """Turn, whose activation, units with steps, hex and state, owed choices and checks."""
        units = tuple(
            UnitLine(
                u.id,
                u.name,
                u.side,
                u.type,
                u.steps,
                u.full_strength or u.initial_steps,
                self._statuses(u),
                "-" if u.air else u.hex,
                u.acted,
            )
            for u in state.units.values()
        )
        notes: list[Outcome] = [
            Outcome.of(
                "pzgren.status.steps",
                side=state.sides[entry.side],
                n=entry.owed,
                hex=entry.hex,
                units=joined(state.units[u].name for u in g.step_choices(state, entry)),
            )
            for entry in state.pending_steps
        ]
        notes += [
            Outcome.of(
                "pzgren.status.morale",
                unit=state.units[p.unit].name,
                check="M" if p.n == 0 else f"M{p.n}",
            )
            for p in state.pending_morale
        ]
        if state.moved_last:
            notes.append(
                Outcome.of(
                    "pzgren.status.opportunity",
                    units=joined(state.units[u].name for u in state.moved_last),
                )
            )
        night = state.turn in state.night_turns
        return StatusView(
            title=state.title,
            turn=state.turn,
            phase=Outcome.of(
                "pzgren.phase.night" if night else "pzgren.phase.activations",
                side=state.sides[state.active_side],
            ),
            awaiting=g.awaiting(state),
            sides=dict(state.sides),
            tokens={},
            units=units,
            notes=tuple(notes),
            ended=state.ended,
        )

    @staticmethod
    def _statuses(unit: g.UnitState) -> tuple[str, ...]:
        found: list[str] = []
        if not unit.alive:
            found.append("eliminated")
        elif unit.status is not MoraleState.GOOD_ORDER:
            found.append(unit.status.value)
        if unit.dug_in:
            found.append("dug_in")
        return tuple(found)

    def map_view(
        self,
        state: Any,
        viewer_side: str | None,
        *,
        public: bool,
        language: str = "it",
    ) -> MapView | None:
        """The hex map: terrain per hex, a counter per unit on the map (aircraft are never
        in a hex). pzgren hides no unit, so every viewer sees the same map. Statuses and
        hex labels are value words (``eliminated``, ``woods``): front ends localize them.
        """
        hexes = []
        placed = sorted(
            ((parse_hex(key), spot) for key, spot in state.hexes.items()), key=lambda p: p[0]
        )
        for where, spot in placed:
            words = [] if spot.terrain == "clear" else [spot.terrain]
            if spot.entrenchment:
                words.append("entrenchment")
            if spot.minefield is not None:
                words.append("minefield")
            hexes.append(
                MapHex(col=where.q, row=where.r, terrain=spot.terrain, label="+".join(words))
            )
        counters = []
        for unit in state.units.values():
            if unit.air:
                continue
            where = parse_hex(unit.hex)
            counters.append(
                Counter(
                    unit_id=unit.id,
                    label=self._short(unit.id, unit.side),
                    side=unit.side,
                    x=where.q,
                    y=where.r,
                    models=unit.steps,
                    initial_models=unit.full_strength or unit.initial_steps,
                    statuses=tuple(s for s in self._statuses(unit) if s != "eliminated"),
                    destroyed=not unit.alive,
                )
            )
        return MapView(
            title=in_language(state.title, language),
            sides=names_in(state.sides, language),
            unit="hex",
            open_terrain="clear",
            grid=HexGrid(cols=state.columns, rows=state.rows, hexes=tuple(hexes), layout="axial"),
            counters=tuple(counters),
            objectives=self._objective_marks(state, language, viewer_side, public=public),
        )

    @staticmethod
    def _short(unit_id: str, side: str) -> str:
        """A counter's label: the unit's id (what players type) without its side's prefix."""
        prefix = f"{side}_"
        if unit_id.startswith(prefix) and unit_id != prefix:
            return unit_id[len(prefix) :]
        return unit_id

    def action_overlays(
        self, state: Any, verb: str, options: Mapping[str, Any]
    ) -> tuple[Overlay, ...]:
        """A fire's lines of fire, from each firing unit's hex to the hex fired at (the
        state before the fire: where they stood). Anything else draws nothing."""
        if verb != "fire":
            return ()
        try:
            command = self.commands.build_command(verb, options)
            target = command.hex
            if command.target is not None:
                target = state.unit(command.target).hex
            if target is None:
                return ()
            aim = parse_hex(target)
            firers = [state.unit(unit_id) for unit_id in command.units]
        except RulesError:
            return ()
        return tuple(
            Overlay(
                kind="line_of_fire",
                points=(
                    Point(x=unit.position.q, y=unit.position.r),
                    Point(x=aim.q, y=aim.r),
                ),
            )
            for unit in firers
            if not unit.air and unit.position != aim
        )

    def prompts(self, state: Any) -> list[LegalAction]:
        """Owed step choices (a button per unit that may take the step), then morale checks:
        while one is owed, the legal list holds nothing else."""
        if state.pending_steps or state.pending_morale:
            return legal.legal_actions(state)
        return []

    def choices(self, state: Any, kind: str, side: str | None) -> list[str]:
        """Names for autocomplete: own units (unacted first), targets, hexes, modifiers."""
        alive = [u for u in state.units.values() if u.alive]
        names: list[str]
        if kind == "unit":
            own = [u for u in alive if side is None or u.side == side]
            names = [u.id for u in sorted(own, key=lambda u: u.acted)]
        elif kind == "target":
            names = [u.id for u in alive if not u.air and (side is None or u.side != side)]
        elif kind == "hex":
            names = list(
                dict.fromkeys(
                    u.hex for u in alive if not u.air and (side is None or u.side != side)
                )
            )
        elif kind == "modifiers":
            tables = load_tables()
            names = list(
                dict.fromkeys(
                    row.id or ""
                    for table in ("modificateurs_colonne", "modificateurs_antichars")
                    for row in tables[table].rows
                    if row.data.get("declarable")
                    or (side is None and row.data.get("scope") != "unit")
                )
            )
        elif kind == "mode":
            names = ["direct", "at"]
        else:
            names = []
        return names[:MAX_CHOICES]


PLAY = PzgrenPlay()
