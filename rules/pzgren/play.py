"""The pzgren implementation of :class:`rules.core.play.GamePlay`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules.core.legal import LegalAction
from rules.core.play import DocumentPlay, FollowUp, StatusView, UnitLine
from rules.core.resolution import Outcome
from rules.pzgren import commands as commands_module
from rules.pzgren import game as g
from rules.pzgren import legal
from rules.pzgren import scenario as scenario_module
from rules.pzgren.model import MoraleState
from rules.pzgren.tables import load_tables

MAX_CHOICES = 25


class PzgrenPlay(DocumentPlay):
    """Play pzgren through documents (plain JSON dicts) for the application service."""

    ruleset = "pzgren"
    game = g
    commands = commands_module
    scenario = scenario_module

    def legal_actions(self, document: Mapping[str, Any]) -> list[LegalAction]:
        """Owed step choices and morale checks first; else the activation's moves and fires."""
        return legal.legal_actions(self._state(document))

    def status(self, document: Mapping[str, Any]) -> StatusView:
        """Turn, whose activation, units with steps, hex and state, owed choices and checks."""
        state = self._state(document)
        units = tuple(
            UnitLine(
                u.id,
                u.name,
                u.side,
                u.type,
                u.steps,
                u.initial_steps,
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
                units=", ".join(state.units[u].name for u in g.step_choices(state, entry)),
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
                    units=", ".join(state.units[u].name for u in state.moved_last),
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

    def follow_ups(self, document: Mapping[str, Any]) -> list[FollowUp]:
        """Owed step choices (one button per unit that may take the step), then morale checks."""
        state = self._state(document)
        if state.pending_steps:
            entry = state.pending_steps[0]
            return [
                FollowUp(
                    "step",
                    {"unit": unit_id},
                    Outcome.of(
                        "pzgren.follow.step",
                        unit=state.units[unit_id].name,
                        n=entry.owed,
                        hex=entry.hex,
                    ),
                    entry.side,
                )
                for unit_id in g.step_choices(state, entry)
            ][:MAX_CHOICES]
        return [
            FollowUp(
                "morale",
                {"unit": p.unit},
                Outcome.of(
                    "pzgren.follow.morale",
                    unit=state.units[p.unit].name,
                    check="M" if p.n == 0 else f"M{p.n}",
                ),
                state.units[p.unit].side,
            )
            for p in state.pending_morale
        ][:MAX_CHOICES]

    def choices(self, document: Mapping[str, Any], kind: str, side: str | None) -> list[str]:
        """Names for autocomplete: own units (unacted first), targets, hexes, modifiers."""
        state = self._state(document)
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
