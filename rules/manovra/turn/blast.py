"""HE rounds bursting: SCHEGGE MUNIZIONI HE on the units within the blast.

Without a battlefield the players name the units within a blast (``/fragments``); on a
battlefield the bot finds them (:func:`burst_at`).
"""

from __future__ import annotations

from rules.core.battlefield import Point
from rules.core.dice import DiceTray
from rules.core.resolution import Outcome, Resolution
from rules.core.words import joined
from rules.manovra import field
from rules.manovra.procedures import fire
from rules.manovra.state import Applied, ManovraState, UnitState
from rules.manovra.turn.common import _apply_effects, _resolve, _target_cover


def burst_at(
    state: ManovraState,
    firer: UnitState,
    calibre_mm: int,
    aim: Point,
    scatter: Resolution | None,
    spared: tuple[str, ...],
    tray: DiceTray,
    result: Applied,
    *,
    ad: int | None = None,
) -> Point:
    """An HE round bursts on a battlefield: where it lands, and fragments on every unit within.

    ``scatter`` (a resolution with a scatter step) moves the burst from ``aim`` by the rolled
    cm in the D8's direction; ``spared`` units are not hit by this round's fragments (the
    firer, and a unit hit directly by it). The bot finds the units within the blast
    radius (data, not in the seed) and resolves SCHEGGE MUNIZIONI HE on each.
    """
    point, off = field.land(state, aim, scatter) if scatter is not None else (aim, False)
    radius = field.blast_radius(calibre_mm)
    overlays = [field.arrow(aim, point)] if point != aim else []
    overlays.append(field.circle(point, radius, f"{calibre_mm} mm"))
    field.remember(state, overlays, None if state.last_action is not None else "manovra.map.burst")
    hit = [] if off else [u for u in field.in_blast(state, point, radius) if u.id not in spared]
    where = {"x": f"{round(point.x, 1):g}", "y": f"{round(point.y, 1):g}"}
    if off:
        result.notices.append(Outcome.of("manovra.field.burst_off", **where))
    else:
        seen = [u for u in hit if not _concealed(u)]
        result.notices.append(
            Outcome.of(
                "manovra.field.burst",
                radius=f"{radius:g}",
                units=joined(u.name for u in seen) or "-",
                **where,
            )
        )
    for unit in hit:
        # A concealed unit (Occultarsi) takes the fragments all the same, but its side alone
        # reads them, rolled by the bot (dice the firer typed would be used only where it
        # hides): naming it, or rolling for it, told the enemy where it hid.
        keep = unit.side if _concealed(unit) else None
        # The bot's dice even under the firer's own hidden unit (`rolled_unseen`).
        with tray.rolled_by(None) if keep is None else tray.rolled_unseen(keep):
            resolution = _resolve(
                "he_fragments",
                fragments_input(unit, firer.ad if ad is None else ad, calibre_mm),
                tray,
            )
        if keep is not None:
            burst = Outcome.of(
                "manovra.field.burst", radius=f"{radius:g}", units=unit.name, **where
            )
            result.notices.append(burst.kept_for(keep))
            resolution = resolution.kept_for(keep)
        result.resolutions.append(resolution)
        _apply_effects(state, resolution)
    return point


def _concealed(unit: UnitState) -> bool:
    """A unit hidden from the enemy (Occultarsi), as the seat views hide it."""
    return unit.alive and unit.has("concealed") and unit.position is not None


def fragments_input(target: UnitState, ad: int, calibre_mm: int) -> fire.HeFragmentsInput:
    """SCHEGGE MUNIZIONI HE on a unit in the blast (side armour: the blast is beside it)."""
    return fire.HeFragmentsInput(
        ad=ad,
        target=fire.HeavyTarget(target.kind["heavy_target"]),
        calibre_mm=calibre_mm,
        armour=target.armour.get("side", {}),
        turret=target.turret,
        tracked=target.tracked,
        open_topped=target.open_topped,
        cover=_target_cover(target),
        models_present=target.models,
        target_has_manoeuvred=target.acted,
        target_id=target.id,
    )
