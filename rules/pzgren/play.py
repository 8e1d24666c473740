"""The pzgren implementation of :class:`rules.core.play.GamePlay`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from rules.core.dice import DiceSource
from rules.core.errors import InvalidInput
from rules.core.play import FollowUp, Played, StatusView, UnitLine
from rules.core.resolution import Outcome
from rules.pzgren import game as g
from rules.pzgren.commands import VERBS, build_command
from rules.pzgren.model import MoraleState
from rules.pzgren.scenario import bundled_scenarios, load_bundled, parse_scenario
from rules.pzgren.tables import load_tables

MAX_CHOICES = 25


class PzgrenPlay:
    """Play pzgren through documents (plain JSON dicts) for the application service."""

    ruleset = "pzgren"

    def scenarios(self) -> list[str]:
        """Ids of the bundled scenarios."""
        return list(bundled_scenarios())

    def new_game(self, scenario_id: str | None, scenario_text: str | None) -> dict[str, Any]:
        """A new game from a bundled scenario id or uploaded YAML."""
        if scenario_text is not None:
            scenario = parse_scenario(scenario_text, "scenario.yaml")
        else:
            scenario = load_bundled(scenario_id or next(iter(bundled_scenarios())))
        return g.new_game(scenario).model_dump(mode="json")

    @staticmethod
    def _state(document: Mapping[str, Any]) -> g.PzgrenState:
        try:
            return g.load_state(dict(document))
        except ValidationError as error:
            raise InvalidInput("error.corrupt_state", detail=str(error)[:200]) from None

    def sides(self, document: Mapping[str, Any]) -> Mapping[str, str]:
        """Side id → name."""
        return dict(document.get("sides", {}))

    def apply(
        self,
        document: Mapping[str, Any],
        verb: str,
        options: Mapping[str, Any],
        dice: DiceSource,
        actor_side: str | None,
    ) -> Played:
        """Apply a verb; for ``odds`` the result is computed but must not be committed."""
        command = build_command(verb, options)
        applied = g.apply(
            self._state(document), command, dice, actor_side=actor_side, preview=verb == "odds"
        )
        return Played(applied.state.model_dump(mode="json"), applied.resolutions, applied.notices)

    def awaiting(self, document: Mapping[str, Any]) -> str | None:
        """The side whose move it is."""
        return g.awaiting(self._state(document))

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

    def verbs(self) -> tuple[str, ...]:
        """The verbs pzgren accepts."""
        return VERBS


PLAY = PzgrenPlay()
