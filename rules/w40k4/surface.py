"""The w40k4 rules over its pydantic state (a ``DocumentRules``)."""

from __future__ import annotations

from typing import Any

from rules.core.battlefield import Counter, MapView, Overlay, table_view
from rules.core.i18n import DEFAULT_LANGUAGE, LANGUAGES, colon, translate
from rules.core.legal import LegalAction
from rules.core.play import DocumentRules, StatusView, UnitLine
from rules.core.resolution import Outcome
from rules.core.words import Words, in_language, joined, named_again
from rules.render import value_text
from rules.w40k4 import commands as commands_module
from rules.w40k4 import field, legal, lookups
from rules.w40k4 import scenario as scenario_module
from rules.w40k4 import turn as g
from rules.w40k4 import victory as victory_module
from rules.w40k4.model import Facing, Phase, Terrain
from rules.w40k4.tables import load_tables

MAX_CHOICES = 25


def _statuses(state: g.W40kState, unit: g.UnitState) -> tuple[str, ...]:
    shown = [s for s in unit.statuses if s != "destroyed" or not unit.vehicle]
    shown += [s for s in ("shaken", "stunned") if g.timed_active(state, unit, s)]
    shown += [_weapon_destroyed(state, w) for w in unit.destroyed_weapons]
    if unit.locked_with:
        shown.append("locked")
    if unit.wounds_taken:
        shown.append(f"wounds_taken:{unit.wounds_taken}")
    return tuple(shown)


def _weapon_destroyed(state: g.W40kState, weapon_id: str) -> str:
    """A destroyed weapon's status, the weapon named in each language ("weapon destroyed:
    Laser cannon"), as a status word the front ends read in the reader's language."""
    name = state.weapons[weapon_id].name
    texts = {
        language: f"{translate('w40k4.values.weapon_destroyed', language)}{colon(language)} "
        f"{in_language(name, language)}"
        for language in LANGUAGES
    }
    # The word and its detail as every status is (what the rules and the tests compare),
    # carrying what each reader reads.
    return Words(f"weapon_destroyed:{weapon_id}", texts)


def _place(state: g.W40kState, unit: g.UnitState) -> str:
    """Where a unit is: off the table, else its cover; on a battlefield the terrain class it
    stands in and its point (``rovine:18, 9``: front ends localize the word before the colon)."""
    if unit.location != "table":
        return unit.location
    if unit.at is None or state.battlefield is None:
        return unit.cover or "-"
    terrain = field.terrain_of(state.battlefield, unit.at)[0]
    return f"{terrain}:{unit.at.x:g}, {unit.at.y:g}"


def _acted(state: g.W40kState, unit: g.UnitState) -> bool:
    if state.phase is Phase.MOVEMENT:
        return unit.moved or unit.entered
    if state.phase is Phase.SHOOTING:
        return unit.fired
    return unit.assaulted


class W40kPlay(DocumentRules):
    """Play w40k4 through documents (plain JSON dicts) for the application service."""

    ruleset = "w40k4"
    game = g
    commands = commands_module
    scenario = scenario_module
    victory = victory_module

    def legal_actions(self, state: Any) -> list[LegalAction]:
        """Owed tests, templates, arrivals and combats; the active player's phase actions."""
        return legal.legal_actions(state)

    def status(self, state: Any) -> StatusView:
        """Turn, phase, whose turn, units with their state, owed tests, templates, combats."""
        terrain = load_tables()["terreni_accidentati"]
        units = tuple(
            UnitLine(
                u.id,
                u.name,
                u.side,
                terrain.row_label(terrain.row_by_id(u.type)),
                u.models,
                u.full_strength or u.initial_models,
                _statuses(state, u),
                _place(state, u),
                _acted(state, u),
            )
            for u in state.ordered()
        )
        notes: list[Outcome] = [
            Outcome.of(
                f"w40k4.status.pending_{p.reason}",
                unit=state.units[p.unit].name,
                modifier=p.modifier,
            )
            for p in state.pending
        ]
        notes += [
            Outcome.of(
                "w40k4.status.template",
                unit=state.units[t.unit].name,
                weapon=state.weapons[t.weapon].name,
            )
            for t in state.templates
        ]
        notes += [
            Outcome.of("w40k4.status.arriving", unit=u.name)
            for u in state.ordered()
            if u.alive and u.location == "arriving"
        ]
        if state.phase is Phase.ASSAULT:
            notes += [
                Outcome.of(
                    "w40k4.status.combat",
                    units=joined(state.units[m].name for m in members),
                )
                for members in g.open_combats(state)
            ]
        if state.closing:
            notes.append(Outcome.of("w40k4.turn.closing", phase=state.phase.value))
        return StatusView(
            title=state.title,
            turn=state.turn,
            phase=Outcome.of(
                "w40k4.phase.current", phase=state.phase.value, side=state.sides[state.active]
            ),
            awaiting=g.awaiting(state),
            sides=dict(state.sides),
            tokens={},
            units=units,
            notes=tuple(notes),
            ended=state.ended,
        )

    def prompts(self, state: Any) -> list[LegalAction]:
        """Owed morale checks and regroup tests, templates; in the assault phase, the
        combats to resolve (an arriving unit's owed move is typed: never first, never a
        button)."""
        return legal.prompted_actions(state)

    def choices(self, state: Any, kind: str, side: str | None) -> list[str]:
        """Names for autocomplete: own units first for 'unit', enemies for 'target'."""
        alive = [u for u in state.ordered() if u.alive]
        if kind == "unit":
            names = [u.id for u in alive if side is None or u.side == side]
        elif kind == "target":
            names = [u.id for u in alive if u.on_table and (side is None or u.side != side)]
        elif kind == "weapon":
            names = sorted({w for u in alive if side is None or u.side == side for w in u.weapons})
        elif kind == "cover":
            names = lookups.cover_names()
        elif kind == "terrain":
            names = [t.value for t in Terrain]
        elif kind == "facing":
            names = [f.value for f in Facing]
        elif kind == "kind":
            names = ["normal", "deepstrike", "mishap"]
        elif kind == "destination":
            names = self._destinations(state, side)
        else:
            names = []
        return names[:MAX_CHOICES]

    @staticmethod
    def _destinations(state: g.W40kState, side: str | None) -> list[str]:
        """Named places of the battlefield, then a step towards the nearest enemies."""
        if state.battlefield is None:
            return []
        names = field.named_places(state)
        if side is not None:
            own = [u for u in state.ordered() if u.side == side and u.on_table and u.at]
            enemies = [u for u in state.ordered() if u.side != side and u.on_table and u.at]
            for unit in own[:3]:
                assert unit.at is not None
                at = unit.at
                near = min(
                    enemies,
                    key=lambda e: (e.at.x - at.x) ** 2 + (e.at.y - at.y) ** 2 if e.at else 0.0,
                    default=None,
                )
                if near is not None and f"toward {near.id} {unit.move}" not in names:
                    names.append(f"toward {near.id} {unit.move}")
        return names

    def map_view(
        self,
        state: Any,
        viewer_side: str | None,
        *,
        public: bool,
        language: str = DEFAULT_LANGUAGE,
    ) -> MapView | None:
        """The table, every unit on it and the last action's marks; None without a battlefield.

        w40k4 hides nothing from the enemy (the seed has no hidden units): every view shows
        the same counters; units in reserve are off the table and have no counter. Status
        words and the caption are in ``language`` (the game's; Italian by default).
        """
        battlefield = state.battlefield
        if battlefield is None:
            return None
        counters = tuple(
            Counter(
                unit_id=u.id,
                label=u.id,
                side=u.side,
                x=u.at.x,
                y=u.at.y,
                models=u.models,
                initial_models=u.full_strength or u.initial_models,
                statuses=tuple(
                    value_text(self.ruleset, word, language) for word in _statuses(state, u)
                ),
                destroyed=not u.alive,
            )
            for u in state.ordered()
            if u.at is not None and (u.alive or u.location == "table")
        )
        caption = ""
        overlays: tuple[Overlay, ...] = ()
        if state.last is not None:
            # unit names and inches: no value word to localize (a unit may be called
            # "Assault"); a unit's name, kept as plain text, reads in ``language`` again
            names = [unit.name for unit in state.units.values()]
            params = {k: named_again(str(v), names) for k, v in state.last.params.items()}
            caption = translate(state.last.key, language, **params)
            overlays = tuple(state.last.overlays)
        return table_view(
            battlefield,
            title=state.title,
            sides=dict(state.sides),
            objectives=self._objective_marks(state, language, viewer_side, public=public),
            language=language,
            counters=counters,
            overlays=overlays,
            # The last action only: the front ends put the state of the game (turn, phase,
            # whose move) above it, in the same style for every ruleset.
            caption=caption,
        )


PLAY = W40kPlay()
