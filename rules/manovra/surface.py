"""The manovra rules over its pydantic state (a ``DocumentRules``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules.core.battlefield import Counter, MapView, Overlay, table_view
from rules.core.i18n import has_key, translate
from rules.core.legal import LegalAction
from rules.core.play import DocumentRules, StatusView, UnitLine
from rules.core.resolution import Outcome
from rules.core.seatview import REFEREE, Seat
from rules.core.words import followed, joined, named_again, worded
from rules.manovra import commands as commands_module
from rules.manovra import legal
from rules.manovra import scenario as scenario_module
from rules.manovra import turn as g
from rules.manovra import victory as victory_module
from rules.manovra.tables import load_tables
from rules.render import value_text

MAX_CHOICES = 25


def _place(unit: g.UnitState) -> str:
    """Where a unit stands: its terrain type's word (in each language), and its point on a
    battlefield ("open flat ground (12, 30)")."""
    key = f"manovra.values.{unit.terrain}"
    terrain = worded(key) if has_key(key) else unit.terrain
    if unit.position is None:
        return terrain
    return followed(terrain, f" ({unit.position.x:g}, {unit.position.y:g})")


class ManovraPlay(DocumentRules):
    """Play manovra through documents (plain JSON dicts) for the application service."""

    ruleset = "manovra"
    game = g
    commands = commands_module
    scenario = scenario_module
    victory = victory_module

    def secret_side(self, state: Any, command: Any) -> str | None:
        """A move that leaves its unit concealed on the table (Occultarsi): where it went,
        and how, is its side's alone (the status and the map hide the unit too); so is a
        concealed unit's holding, which keeps it concealed (seed line 10: only a move
        without concealing or a plain fire shows it)."""
        unit = state.units.get(getattr(command, "unit", None) or "")
        if command.verb not in ("move", "hold") or unit is None or not _concealed(unit):
            return None
        side: str = unit.side
        return side

    def status(self, state: Any) -> StatusView:
        """Turn, step, whose move, tokens, units with their state, owed rolls and markers."""
        return self.seat_status(state, REFEREE)

    def seat_status(self, state: Any, seat: Seat) -> StatusView:
        """The status ``seat`` may see: its notes (the order of manoeuvre, the owed tests)
        name no unit concealed from it, and do not count one (the core leaves the unit's
        own line out)."""

        def named(unit_id: str) -> bool:
            unit = state.units[unit_id]
            return seat.referee or unit.side == seat.side or not _concealed(unit)

        units = tuple(
            UnitLine(
                u.id,
                u.name,
                u.side,
                state.platoons[u.platoon].name,
                u.models,
                u.full_strength or u.initial_models,
                tuple(u.statuses),
                _place(u),
                u.acted,
                hidden=u.has("concealed") and u.position is not None,
            )
            for platoon in state.platoons.values()
            for u in (state.units[unit_id] for unit_id in platoon.units)
        )
        notes: list[Outcome] = [
            Outcome.of("manovra.status.pending", unit=state.units[p.unit].name, test=p.kind)
            for p in state.pending
            if named(p.unit)
        ]
        notes += [
            Outcome.of(
                "manovra.status.marker", marker=m.id, target=m.target, done=1 if m.executed else 0
            )
            for m in state.markers
        ]
        queue = [state.units[u].name for u in state.queue if named(u)]
        if queue:
            notes.append(Outcome.of("manovra.status.queue", order=joined(queue)))
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

    def map_view(
        self,
        state: Any,
        viewer_side: str | None,
        *,
        public: bool,
        language: str = "it",
    ) -> MapView | None:
        """The table for one viewer: areas, counters, the last fire's overlays, a caption.

        A concealed unit (Occultarsi) is hidden from the enemy: left out of the public
        picture and of the other side's view; its own side and the referee see it, marked
        hidden. A destroyed unit stays where it fell, drawn as destroyed.
        """
        field = state.battlefield
        if field is None:
            return None
        hidden_ids: set[str] = set()
        counters: list[Counter] = []
        for unit in state.units.values():
            if unit.position is None:
                continue
            hidden = unit.has("concealed") and unit.alive
            if hidden:
                hidden_ids.add(unit.id)
                if public or (viewer_side is not None and viewer_side != unit.side):
                    continue
            counters.append(
                Counter(
                    unit_id=unit.id,
                    label=unit.id,
                    side=unit.side,
                    x=unit.position.x,
                    y=unit.position.y,
                    models=unit.models,
                    initial_models=unit.full_strength or unit.initial_models,
                    statuses=tuple(value_text(self.ruleset, s, language) for s in unit.statuses),
                    destroyed=not unit.alive,
                    hidden=hidden,
                )
            )
        shown_hidden = {c.unit_id for c in counters if c.hidden}
        secret = hidden_ids - shown_hidden
        overlays: tuple[Overlay, ...] = ()
        caption = ""
        last = state.last_action
        secret_names = {state.units[u].name for u in secret}
        if last is not None:
            # A hidden unit's own move arrow (labelled with its id) would give it away.
            overlays = tuple(o for o in last.overlays if o.label not in secret)
            if last.caption and last.params.get("unit") not in secret_names:
                # The state keeps a unit's name as plain text: read in ``language`` again.
                names = [unit.name for unit in state.units.values()]
                params = {
                    key: named_again(value, names) if isinstance(value, str) else value
                    for key, value in last.params.items()
                }
                caption = translate(last.caption, language, **params)
        # The turn and step are the caption's first line, written by the front ends in the
        # same style for every ruleset: the title is the scenario's.
        return table_view(
            field,
            title=state.title,
            sides=dict(state.sides),
            counters=tuple(counters),
            overlays=overlays,
            caption=caption,
            objectives=self._objective_marks(state, language, viewer_side, public=public),
            language=language,
        )

    def legal_actions(self, state: Any) -> list[LegalAction]:
        """Everything any seat may do now (see :mod:`rules.manovra.legal`)."""
        return legal.legal_actions(state)

    def prompts(self, state: Any) -> list[LegalAction]:
        """The owed actions: tests (CT, SF, ET) and the next IF marker at step 4."""
        return legal.owed_actions(state)

    def named(self, state: Any, kind: str) -> Mapping[str, str]:
        """A platoon or a battery is typed by its name too, as a unit is."""
        if kind in ("platoon", "battery"):
            return {key: platoon.name for key, platoon in state.platoons.items()}
        return super().named(state, kind)

    def choices(self, state: Any, kind: str, side: str | None) -> list[str]:
        """Names for autocomplete, own units first for 'unit', enemies for 'target'."""
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
            names = [m.id for m in state.markers] + [b.id for b in state.bursts]
        elif kind == "destination":
            names = self._destinations(state, side)
        elif kind == "terrain":
            names = [row.id or "" for row in load_tables()["tipi_terreno"].rows]
        else:
            names = []
        return names[:MAX_CHOICES]

    @staticmethod
    def _destinations(state: g.ManovraState, side: str | None) -> list[str]:
        """``to:`` values: for the unit due to act, what legal actions offer; then the
        named points and areas of the battlefield."""
        field = state.battlefield
        if field is None:
            return []
        names: list[str] = []
        if state.queue:
            unit = state.units[state.queue[0]]
            if side is None or unit.side == side:
                names += [
                    str(action.options["to"])
                    for action in legal.legal_actions(state)
                    if action.verb == "move" and "to" in action.options
                ]
        names += list(field.points) + [area.id for area in field.areas]
        return list(dict.fromkeys(names))


PLAY = ManovraPlay()


def _concealed(unit: Any) -> bool:
    """A unit hidden from the enemy: concealed (Occultarsi) where the table shows units."""
    return bool(unit.alive and unit.has("concealed") and unit.position is not None)
