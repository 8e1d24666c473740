"""The manovra implementation of :class:`rules.core.play.GamePlay`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from rules.core.dice import DiceSource
from rules.core.errors import InvalidInput
from rules.core.play import FollowUp, Played, StatusView, UnitLine
from rules.core.resolution import Outcome
from rules.manovra import game as g
from rules.manovra.commands import VERBS, build_command
from rules.manovra.scenario import bundled_scenarios, load_bundled, parse_scenario
from rules.manovra.tables import load_tables

MAX_CHOICES = 25


class ManovraPlay:
    """Play manovra through documents (plain JSON dicts) for the application service."""

    ruleset = "manovra"

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
    def _state(document: Mapping[str, Any]) -> g.ManovraState:
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
        """Turn, step, whose move, tokens, units with their state, owed rolls and markers."""
        state = self._state(document)
        units = tuple(
            UnitLine(
                u.id,
                u.name,
                u.side,
                state.platoons[u.platoon].name,
                u.models,
                u.initial_models,
                tuple(u.statuses),
                u.terrain,
                u.acted,
            )
            for platoon in state.platoons.values()
            for u in (state.units[unit_id] for unit_id in platoon.units)
        )
        notes: list[Outcome] = [
            Outcome.of("manovra.status.pending", unit=state.units[p.unit].name, test=p.kind)
            for p in state.pending
        ]
        notes += [
            Outcome.of(
                "manovra.status.marker", marker=m.id, target=m.target, done=1 if m.executed else 0
            )
            for m in state.markers
        ]
        if state.queue:
            notes.append(
                Outcome.of(
                    "manovra.status.queue",
                    order=", ".join(state.units[u].name for u in state.queue),
                )
            )
        for side, platoon in state.declarations.items():
            if platoon in state.platoons:
                notes.append(
                    Outcome.of(
                        "manovra.turn.declared",
                        side=state.sides[side],
                        platoon=state.platoons[platoon].name,
                    )
                )
        return StatusView(
            title=state.title,
            turn=state.turn,
            phase=Outcome.of(f"manovra.phase.{int(state.step)}"),
            awaiting=g.awaiting(state),
            sides=dict(state.sides),
            tokens=dict(state.tokens),
            units=units,
            notes=tuple(notes),
            ended=state.ended,
        )

    def follow_ups(self, document: Mapping[str, Any]) -> list[FollowUp]:
        """Owed tests (CT after losses, SF after a hit, ET) and the next IF marker at step 4."""
        state = self._state(document)
        owed = [
            FollowUp(
                "test",
                {"unit": p.unit, "kind": p.kind},
                Outcome.of("manovra.follow.test", test=p.kind, unit=state.units[p.unit].name),
                state.units[p.unit].side,
            )
            for p in state.pending
        ]
        if state.step is g.TurnStep.INDIRECT:
            for marker_id in state.marker_order:
                marker = next(m for m in state.markers if m.id == marker_id)
                if not marker.executed:
                    owed.append(
                        FollowUp(
                            "execute",
                            {"marker": marker.id},
                            Outcome.of("manovra.follow.execute", marker=marker.id),
                            state.platoons[marker.battery].side,
                        )
                    )
                    break
        return owed[:MAX_CHOICES]

    def choices(self, document: Mapping[str, Any], kind: str, side: str | None) -> list[str]:
        """Names for autocomplete, own units first for 'unit', enemies for 'target'."""
        state = self._state(document)
        alive = [u for u in state.units.values() if u.alive]
        if kind == "unit":
            names = [u.id for u in alive if side is None or u.side == side]
            if state.queue:
                names.sort(key=lambda n: n != state.queue[0])
        elif kind == "target":
            names = [u.id for u in alive if side is None or u.side != side]
        elif kind == "platoon":
            names = [p.id for p in state.platoons.values() if side is None or p.side == side]
        elif kind == "battery":
            names = [
                p.id
                for p in state.platoons.values()
                if p.kind == "battery" and (side is None or p.side == side)
            ]
        elif kind == "weapon":
            names = sorted({w for u in alive if side is None or u.side == side for w in u.weapons})
        elif kind == "marker":
            names = [m.id for m in state.markers]
        elif kind == "terrain":
            names = [row.id or "" for row in load_tables()["tipi_terreno"].rows]
        else:
            names = []
        return names[:MAX_CHOICES]

    def verbs(self) -> tuple[str, ...]:
        """The verbs manovra accepts."""
        return VERBS


PLAY = ManovraPlay()
