"""Rule defects found in play (issue 11), each reproduced as it was seen."""

from __future__ import annotations

from rules.core.resolution import EffectKind
from rules.pzgren import turn as g
from rules.render import render_resolution_text
from tests.pzgren.test_game import fire, small

HALFTRACK = (
    "{id: b_251, name: SdKfz 251,"
    " type: afv, top: open,"
    " hex: '3,0', armour: 1, fire: 3, range: 2, movement: 5, steps: 1, morale: 7}"
)
PANTHER = (
    "{id: b_panther, name: Panther,"
    " type: afv, top: closed,"
    " hex: '3,0', armour: 6, fire: 4, range: 10, movement: 5, steps: 2, morale: 8}"
)
RIFLES = (
    "{id: b_inf, name: Grenadiere,"
    " type: infantry, hex: '3,0', fire: 7, range: 3, movement: 2, steps: 2, morale: 8}"
)
SHOOTER = (
    "{id: a_inf, name: Rifles,"
    " type: infantry, hex: '1,0', fire: 7, range: 3, movement: 2, steps: 2, morale: 7}"
)


def test_an_m_result_is_not_announced_for_an_armoured_unit():
    """'Résultat M2 pour de_sdkfz251': the M legend is for units without an armour value."""
    table = small(SHOOTER, HALFTRACK)
    # fire 7 at 2 hexes, clear ground: column 7, no shift; 1+2 = 3 reads M2.
    applied = table(fire("a_inf", hex="3,0"), "a", [1, 2])
    resolution = applied.resolutions[0]
    assert dict(resolution.outcome.params)["result"] == "-"
    assert not [e for e in resolution.effects if e.kind is EffectKind.TEST_OWED]
    assert table.state.pending_morale == []
    text = render_resolution_text(resolution, "fr")
    assert "M2 pour SdKfz 251" not in text
    # The units by their names, as players read them (their ids were shown).
    assert "Résultat M2\u202f: sans effet sur SdKfz 251 (valeur de blindage)" in text


def test_an_m_result_names_only_the_unarmoured_units_it_reaches():
    table = small(SHOOTER, f"{HALFTRACK}, {PANTHER}, {RIFLES}")
    applied = table(fire("a_inf", hex="3,0"), "a", [1, 2])
    resolution = applied.resolutions[0]
    assert [p.unit for p in table.state.pending_morale] == ["b_inf"]
    assert table.state.pending_morale[0].n == 2
    text = render_resolution_text(resolution, "fr")
    assert "Résultat M2 pour Grenadiere\u202f; sans effet sur SdKfz 251, Panther" in text


def test_an_x_result_still_owes_the_open_top_afv_its_step_and_m2():
    """Step losses stay as the seed says: the X legend's M2 reaches every other unit."""
    table = small(SHOOTER, HALFTRACK.replace("steps: 1", "steps: 2"))
    table(fire("a_inf", hex="3,0"), "a", [1, 1])  # 2 on column 7: X
    assert table.state.units["b_251"].steps == 1  # the only unit of category a)
    assert [(p.unit, p.n) for p in table.state.pending_morale] == [("b_251", 2)]
    assert g.awaiting(table.state) == "b"


def test_a_negative_column_shift_is_written_with_a_minus_sign():
    """'3 hexes or more away = -1': the total after '−1 …' modifiers was a hyphen."""
    far = RIFLES.replace("'3,0'", "'4,0'")
    table = small(SHOOTER, far)
    applied = table(fire("a_inf", hex="4,0"), "a", [3, 3])
    text = render_resolution_text(applied.resolutions[0], "en")
    assert "= −1" in text
    assert "= -1" not in text
