"""High explosive on the figures inside a blast: a direct HE hit, a fire-for-effect, bombs and
strafing (``/fragments``).
"""

from __future__ import annotations

from rules.core import geometry
from rules.core.battlefield import Point
from rules.core.dice import DiceTray
from rules.core.errors import IllegalAction, UnknownName
from rules.core.game import Applied as CoreApplied
from rules.core.game import is_preview
from rules.core.resolution import Outcome
from rules.core.words import followed, joined
from rules.linea_gotica import field
from rules.linea_gotica.model import RULESET_KEY
from rules.linea_gotica.orders import Fragments
from rules.linea_gotica.procedures import fire
from rules.linea_gotica.procedures.checks import Cover
from rules.linea_gotica.procedures.fire import DamageSpec
from rules.linea_gotica.state import Blast, Figure, GameState, UnitState
from rules.linea_gotica.tables import load_tables
from rules.linea_gotica.turn.common import alive_figures, require_alive, resolve, target_spec
from rules.linea_gotica.turn.effects import apply_effects

K = RULESET_KEY
Applied = CoreApplied[GameState]


def blast_from_direct(state: GameState, data: fire.DirectFireInput, side: str) -> Blast:
    row = fire.weapon_row(data.weapon)
    calibre = data.calibre_mm or 0
    if row.data.get("blast_by_calibre"):
        blast_row: str | None = fire.blast_row_for_calibre(calibre)
    else:
        blast_row = row.data.get("blast")
    spec = fire.weapon_damage(data, row)
    heavy = bool(row.data.get("blast_by_calibre")) and calibre >= int(
        load_tables()["probabilita_he"].data["heavy_calibre_from_mm"]
    )
    blast = Blast(
        id=state.next_id("b"),
        label=str(row.label),
        side=side,
        spec=spec.model_dump(mode="json"),
        blast_row=blast_row,
        heavy_calibre=heavy,
        serial=state.serial,
    )
    state.blasts.append(blast)
    return blast


def radii_of(blast_row: str | None) -> dict[str, int]:
    """The two radii (cm) of an HE area row, for the players to measure."""
    if blast_row is None:
        return {"breve": 0, "lunga": 0}
    tables = load_tables()
    table = tables["area_he"]
    row = table.row_by_id(blast_row)
    return {
        zone: int(tables.parsed(table, row, table.column(zone)) or 0) for zone in ("breve", "lunga")
    }


def _terrain_for_he(unit: UnitState) -> str:
    if unit.cover is Cover.ENTRENCHED:
        return "trincerati"
    if unit.cover is Cover.NONE:
        return "aperto"
    return "copertura"


def he_on(
    state: GameState,
    unit: UnitState,
    figure: Figure | None,
    zone: str,
    spec: DamageSpec,
    bombs: str,
    heavy: bool,
    tray: DiceTray,
    result: Applied,
) -> None:
    resolution = resolve(
        "he_effect",
        fire.HeEffectInput(
            zone=zone,
            terrain=_terrain_for_he(unit),
            heavy_calibre=heavy,
            bombs=bombs,
            spec=spec,
            target=target_spec(state, unit, figure),
        ),
        tray,
    )
    result.resolutions.append(resolution)
    if not is_preview():
        unit.under_fire_serial = state.serial
        apply_effects(state, resolution, result)


def he_on_blast(
    state: GameState,
    blast: Blast,
    unit: UnitState,
    figure: Figure | None,
    zone: str,
    tray: DiceTray,
    result: Applied,
) -> None:
    spec = DamageSpec.model_validate(blast.spec)
    if (
        unit.vehicle is not None
        and unit.vehicle.armoured
        and spec.penetration is None
        and not spec.flame
    ):
        result.notices.append(Outcome.of(f"{K}.he.armour_unharmed", unit=unit.name))
        return
    he_on(state, unit, figure, zone, spec, blast.bombs, blast.heavy_calibre, tray, result)


def burst_at(
    state: GameState,
    blast: Blast,
    center: Point | None,
    tray: DiceTray,
    result: Applied,
    exclude: tuple[str, ...] = (),
) -> None:
    """HE on the battlefield: the bot finds every unit (either side) whose counter lies
    within the blast's long radius of ``center`` and resolves it, short zone within the short
    radius; a squad's living soldiers are all in its counter's zone (terrain.yaml
    ``squad_in_zone``, not in the seed). ``center`` None: it came down off the table."""
    assert state.field is not None
    radii = radii_of(blast.blast_row)
    blast.center = center
    if center is None:
        result.notices.append(Outcome.of(f"{K}.field.off_table", marker=blast.id))
        return
    for zone in ("lunga", "breve"):
        if radii[zone]:
            label = f"{blast.id} {radii[zone]} cm"
            state.marks.append(field.circle_mark(center, radii[zone], label))
    found = []
    for unit in state.units.values():
        at = state.positions.get(unit.id)
        if unit.id in exclude or at is None or not unit.alive or unit.riding is not None:
            continue
        if field.within(center, radii["lunga"], at):
            zone = "breve" if field.within(center, radii["breve"], at) else "lunga"
            found.append((unit, zone, geometry.distance(center, at)))

    hits = [(u, zone, f" ({zone}, {field.cm(d)} cm)") for u, zone, d in found]
    resolve_under(state, blast, center, hits, tray, result)


def resolve_under(
    state: GameState,
    blast: Blast,
    center: Point,
    found: list[tuple[UnitState, str, str]],
    tray: DiceTray,
    result: Applied,
) -> None:
    """The units ``found`` under a blast that came down at ``center`` (each with its zone
    and what the notice says after its name), resolved.

    A hidden unit under it is hit all the same, but its side alone reads it: named in the
    channel's notice, or rolled for there, it was told to the enemy (and the bot rolls for
    it: dice the firer typed would be used only where it hides)."""

    def found_notice(units: list[tuple[UnitState, str, str]]) -> Outcome:
        return Outcome.of(
            f"{K}.field.blast_found",
            marker=blast.id,
            x=field.cm(center.x),
            y=field.cm(center.y),
            units=joined(followed(u.name, said) for u, _, said in units) or "-",
        )

    result.notices.append(found_notice([hit for hit in found if not hit[0].hidden]))
    for unit, zone, said in found:
        blast.resolved.append(unit.id)
        keep = unit.side if unit.hidden else None
        into = (
            result if keep is None else Applied(state, notices=[found_notice([(unit, zone, said)])])
        )
        # The bot's dice even under the firer's own hidden unit (`rolled_unseen`).
        with tray.rolled_by(None) if keep is None else tray.rolled_unseen(keep):
            if blast.strafe_quality is not None:
                strafe_unit(state, blast, unit, None, tray, into)
            elif unit.vehicle is not None:
                he_on_blast(state, blast, unit, None, zone, tray, into)
            else:
                for figure in [f for f in unit.figures if f.alive]:
                    if unit.alive:
                        he_on_blast(state, blast, unit, figure, zone, tray, into)
        if keep is not None:
            result.resolutions += [r.kept_for(keep) for r in into.resolutions]
            result.notices += [n.kept_for(keep) for n in into.notices]


def do_fragments(
    state: GameState, command: Fragments, tray: DiceTray, actor: str | None, result: Applied
) -> None:
    blast = next((b for b in state.blasts if b.id == command.marker), None)
    if blast is None:
        raise UnknownName("error.linea_gotica.unknown_marker", name=command.marker[:40])
    if actor is not None and blast.side != actor:
        raise IllegalAction("error.linea_gotica.not_your_blast", marker=blast.id)
    target = state.unit(command.target)
    require_alive(target)
    if target.id in blast.resolved:
        raise IllegalAction(
            "error.linea_gotica.field.blast_resolved", marker=blast.id, unit=target.name
        )
    if blast.strafe_quality is not None:
        strafe_unit(state, blast, target, command.models, tray, result)
        return
    if target.vehicle is not None:
        he_on_blast(state, blast, target, None, command.ring, tray, result)
    else:
        alive = [f for f in target.figures if f.alive]
        for figure in alive[: command.models or len(alive)]:
            he_on_blast(state, blast, target, figure, command.ring, tray, result)


def strafe_unit(
    state: GameState,
    blast: Blast,
    target: UnitState,
    models: int | None,
    tray: DiceTray,
    result: Applied,
) -> None:
    """Strafing on one unit inside the strip: the autocannon's area line, each soldier."""
    aerei = load_tables()["aerei"]
    row_id = str(aerei.row_by_id("mitragliamento").data["weapon"])
    ranges = fire.weapon_ranges(row_id)
    distance = float((ranges[0] or 0) + 1)
    victims: list[Figure | None] = [None]
    if target.vehicle is None:
        victims = list(alive_figures(target)[: models or 30])
    assert blast.strafe_quality is not None
    for victim in victims:
        data = fire.DirectFireInput(
            quality=blast.strafe_quality,
            weapon=row_id,
            distance_cm=distance,
            cover=target.cover,
            prone=target.vehicle is None and target.prone,
            target=target_spec(state, target, victim),
        )
        resolution = resolve("direct_fire", data, tray)
        result.resolutions.append(resolution)
        if not is_preview():
            target.under_fire_serial = state.serial
            apply_effects(state, resolution, result)
