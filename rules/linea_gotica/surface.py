"""The linea_gotica rules over its pydantic state (a ``DocumentRules``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules.core.battlefield import Counter, MapArea, MapView, table_view
from rules.core.legal import LegalAction
from rules.core.play import DocumentRules, StatusView, UnitLine
from rules.core.resolution import Outcome
from rules.core.seatview import Seat
from rules.core.words import joined, worded
from rules.linea_gotica import commands as commands_module
from rules.linea_gotica import field
from rules.linea_gotica import legal as legal_module
from rules.linea_gotica import scenario as scenario_module
from rules.linea_gotica import turn as g
from rules.linea_gotica import victory as victory_module
from rules.linea_gotica.model import QUALITY_ORDER, RULESET_KEY
from rules.linea_gotica.state import GameState, Phase, UnitState
from rules.linea_gotica.tables import load_tables
from rules.render import value_text

K = RULESET_KEY
MAX_CHOICES = 25
PUBLIC = "*public*"
"""The viewer of a status shown to every seat: hidden units appear to nobody."""


def visible_to(unit: UnitState, viewer: str | None) -> bool:
    """Whether ``viewer`` (a side, None for the referee, PUBLIC) may know of ``unit``.

    A hidden unit is invisible to the enemy (OSSERVAZIONE: "sono invisibili"): neither its
    place nor its existence is shown to the other side, nor in a view every seat shares.
    """
    return not unit.hidden or viewer is None or viewer == unit.side


def unit_statuses(state: GameState, unit: UnitState) -> tuple[str, ...]:
    """The catalogue keys of what is notable about a unit now."""
    found: list[str] = []
    turn = state.turn
    if unit.hidden:
        found.append("hidden")
    if unit.prone:
        found.append("prone")
    if unit.leaderless:
        found.append("leaderless")
    if unit.riding:
        found.append("riding")
    if unit.task is not None:
        found.append("task")
    for figure in unit.figures:
        for flag, key in (
            (figure.dead, "dead"),
            (figure.surrendered, "surrendered"),
            (figure.alive and figure.badly_wounded, "badly_wounded"),
            (figure.alive and figure.wounded, "wounded"),
            (figure.alive and figure.shocked(turn), "shocked"),
            (figure.alive and figure.panic, "panic"),
            (figure.alive and figure.isolated, "isolated"),
        ):
            if flag and key not in found:
                found.append(key)
    vehicle = unit.vehicle
    if vehicle is not None:
        for flag, key in (
            (vehicle.destroyed, "destroyed"),
            (vehicle.abandoned, "abandoned"),
            (vehicle.immobilised, "immobilised"),
            (vehicle.mobility_damaged and not vehicle.immobilised, "mobility_damaged"),
            (vehicle.radio_destroyed, "radio_destroyed"),
            (vehicle.turret_jammed, "turret_jammed"),
            (bool(unit.weapons_destroyed), "weapon_destroyed"),
            (unit.crew_panic, "panic"),
            (unit.crew_shocked_until is not None and unit.crew_shocked_until >= turn, "shocked"),
        ):
            if flag:
                found.append(key)
    if unit.needs_reload:
        found.append("reload")
    return tuple(found)


def place_of(state: GameState, unit: UnitState) -> str:
    """Where a unit stands, as its reader reads it: the area's name (the scenario's, in
    each language) or the named terrain element's word, then its cover ("Trench at the
    hairpin, entrenched"); "" in the open with no cover."""
    parts: list[str] = []
    if unit.place:
        parts.append(field.place_name(state.field, unit.place))
    if unit.cover.value != "nessuna":
        parts.append(worded(f"{K}.values.{unit.cover.value}"))
    return joined(parts)


class LineaGoticaPlay(DocumentRules):
    """Play linea_gotica through documents (plain JSON dicts) for the application service."""

    ruleset = RULESET_KEY
    # The mover keeps the move while the other side owes a morale test (and the initiative
    # winner while choosing): the turn sequence says whose move it is.
    owed_first = False
    # It owes morale tests, the initiative roll and choice and the missions' next orders
    # only: the verbs its prompts list (a fire or a move is never owed).
    owed_in_prompts = True
    game = g
    commands = commands_module
    scenario = scenario_module
    victory = victory_module

    def secret_side(self, state: Any, command: Any) -> str | None:
        """A command of a unit still hidden once it is played (OSSERVAZIONE: "sono
        invisibili"): a move that leaves it hidden, a shot that did not give it away (a
        sniper's), its morale test — what it did, where and how, is its side's alone, as the
        status and the map leave it out; the channel reads what it may see of the effect."""
        unit = state.units.get(getattr(command, "unit", None) or "")
        if unit is None or not unit.hidden or not unit.alive:
            return None
        side: str = unit.side
        return side

    def status(self, state: Any, viewer: str | None = PUBLIC) -> StatusView:
        """Turn, phase, whose move, units with their soldiers' state, owed rolls, missions.

        ``viewer`` is the side the view is for (None: the referee). The default is the view
        every seat may share: hidden units are left out of it; a side also sees its own
        hidden units (marked ``hidden``), the referee sees all.
        """
        units = tuple(
            UnitLine(
                u.id,
                u.name,
                u.side,
                u.quality.value,
                (1 if u.alive else 0)
                if u.vehicle is not None
                else sum(1 for f in u.figures if f.alive),
                1 if u.vehicle is not None else u.full_strength or len(u.figures),
                unit_statuses(state, u),
                place_of(state, u),
                u.activity is not None,
                u.hidden,
            )
            for u in state.units.values()
            if visible_to(u, viewer)
        )
        notes: list[Outcome] = []
        if state.order:
            notes.append(Outcome.of(f"{K}.status.order", side=state.sides[state.order[0]]))
        for pending in state.pending:
            unit = state.units[pending.unit]
            if not visible_to(unit, viewer):
                continue
            notes.append(
                Outcome.of(
                    f"{K}.status.morale",
                    unit=unit.name,
                    figure=pending.figure if pending.figure is not None else "-",
                )
            )
        for mission in state.missions:
            if mission.stage != "done" and (viewer is None or viewer == mission.side):
                notes.append(
                    Outcome.of(
                        f"{K}.status.mission",
                        marker=mission.id,
                        battery=state.supports[mission.support].name,
                        stage=mission.stage,
                        turn=mission.due_turn,
                        point=mission.point,
                    )
                )
        for blast in state.blasts:
            notes.append(Outcome.of(f"{K}.status.blast", marker=blast.id, label=blast.label))
        for screen in state.smoke:
            notes.append(
                Outcome.of(
                    f"{K}.status.smoke",
                    place=field.place_name(state.field, screen.place) if screen.place else "-",
                    turn=screen.expires_after if screen.expires_after is not None else "-",
                )
            )
        phase = Outcome.of(f"{K}.phase.{state.phase.value}")
        if state.phase is Phase.FIRE:
            phase = Outcome.of(f"{K}.phase.tiro", quality=QUALITY_ORDER[state.fire_class].value)
        return StatusView(
            title=state.title,
            turn=state.turn,
            phase=phase,
            awaiting=g.awaiting(state),
            sides=dict(state.sides),
            tokens={},
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
        """The table for one viewer: areas, the counters it may see, the last action's marks.

        Hidden units (OSSERVAZIONE: "sono invisibili") are left out of the public picture;
        a side's own view shows its hidden units (``hidden``), the referee's shows all.
        Status words are in ``language`` (the game's).
        """
        if state.field is None:
            return None
        viewer = PUBLIC if public else viewer_side
        counters = []
        for unit in state.units.values():
            at = state.positions.get(unit.id)
            if at is None or not visible_to(unit, viewer):
                continue
            if unit.vehicle is not None:
                models, initial = (1 if unit.alive else 0), 1
            else:
                models = sum(1 for f in unit.figures if f.alive)
                initial = unit.full_strength or len(unit.figures)
            counters.append(
                Counter(
                    unit_id=unit.id,
                    label=unit.id,
                    side=unit.side,
                    x=at.x,
                    y=at.y,
                    models=models,
                    initial_models=initial,
                    statuses=tuple(
                        value_text(self.ruleset, word, language)
                        for word in unit_statuses(state, unit)
                    ),
                    destroyed=not unit.alive,
                    hidden=unit.hidden,
                )
            )
        battlefield = state.field
        marks = self._visible_marks(state, viewer)
        caption = " · ".join(mark.label for mark in marks if mark.label)
        return table_view(
            battlefield,
            title=state.title,
            sides=dict(state.sides),
            objectives=self._objective_marks(state, language, viewer_side, public=public),
            language=language,
            # A minefield is drawn only for those who know it (its layer, the referee).
            extra_areas=(
                MapArea(shape=mines.shape, terrain="campo_minato", label=mines.name)
                for mines in state.minefields.values()
                if mines.shape is not None
                and not mines.cleared
                and (
                    (viewer is None)
                    or (viewer == PUBLIC and set(state.sides) <= set(mines.known_to))
                    or viewer in mines.known_to
                )
            ),
            counters=tuple(counters),
            overlays=tuple(marks),
            # The last action's marks only: the front ends put the state of the game (turn,
            # phase, whose move) above it, in the same style for every ruleset.
            caption=caption,
        )

    @staticmethod
    def _visible_marks(state: GameState, viewer: str | None) -> list[Any]:
        """The last action's marks, less its lines and arrows when they are of a unit the
        viewer may not see (a hidden sniper's shot, a hidden unit's move give away nothing
        but their effects). A visible unit's line or arrow is shown even when it ends where
        a hidden unit stands: hiding it would tell that one stands there."""
        secret = any(
            unit_id in state.units and not visible_to(state.units[unit_id], viewer)
            for unit_id in state.marks_of
        )
        return [m for m in state.marks if not secret or m.kind not in ("line_of_fire", "arrow")]

    def legal_actions(self, state: Any) -> list[LegalAction]:
        """Everything any seat may do now (rules.core.legal's contract)."""
        return legal_module.legal_actions(state)

    def prompts(self, state: Any) -> list[LegalAction]:
        """Owed morale tests, the initiative roll and the winner's choice, the missions due
        (their observer's next orders are buttons), from the legal list of those verbs."""
        listed = legal_module.legal_of_verbs(state, ("morale", "turn.next", "execute"))
        return [action for action in listed if action.owed or action.button]

    def seat_status(self, state: Any, seat: Seat) -> StatusView:
        """The status ``seat`` may see: its notes too leave out what is hidden from it."""
        viewer = PUBLIC if seat.public else seat.side
        return self.status(state, viewer)

    def named(self, state: Any, kind: str) -> Mapping[str, str]:
        """A battery (a mortar group, an aircraft) is typed by its name too, as a unit is."""
        if kind == "battery":
            return {key: support.name for key, support in state.supports.items()}
        return super().named(state, kind)

    def choices(self, state: Any, kind: str, side: str | None) -> list[str]:
        """Names for autocomplete: own units first for 'unit', enemies for 'target'."""
        alive = [u for u in state.units.values() if u.alive]
        names: list[str]
        if kind == "unit":
            names = [u.id for u in alive if side is None or u.side == side]
        elif kind == "target":
            names = [
                u.id
                for u in alive
                if (side is None or u.side != side) and (side is None or visible_to(u, side))
            ]
            names += [
                m.id
                for m in state.missions
                if m.stage == "aircraft" and (side is None or m.side != side)
            ]
        elif kind == "weapon":
            names = sorted(
                {
                    w
                    for u in alive
                    if side is None or u.side == side
                    for w in [*(f.weapon for f in u.figures if f.weapon), *u.weapons]
                    if w
                }
            )
        elif kind == "battery":
            names = [s.id for s in state.supports.values() if side is None or s.side == side]
        elif kind == "marker":
            names = [m.id for m in state.missions if m.stage != "done"]
            names += [b.id for b in state.blasts if b.id not in names]
        elif kind == "minefield":
            names = [
                m.id
                for m in state.minefields.values()
                if not m.cleared and (side is None or side in m.known_to)
            ]
        elif kind == "reason":
            names = [str(row.id) for row in load_tables()["cause_morale"].rows]
        elif kind == "mods":
            tables = load_tables()
            names = [
                str(row.id)
                for table_id in (
                    "modificatori_movimento_fanteria",
                    "modificatori_movimento_veicoli",
                )
                for row in tables[table_id].rows
                if not row.data.get("automatic")
            ]
        elif kind == "place":
            names = legal_module.known_places(state, side)
        elif kind == "destination":
            names = legal_module.destinations(state, side)
        elif kind in ("terrain", "cover"):
            names = ["nessuna", "leggera", "pesante", "trincerati"]
        else:
            names = []
        return list(dict.fromkeys(names))[:MAX_CHOICES]


PLAY = LineaGoticaPlay()
