"""The console's text of a status: columns that stay columns in every language."""

from __future__ import annotations

from bot.console.render_text import status_text
from rules.core.resolution import Outcome
from rules.core.seatview import StatusView, UnitLine


def _unit(unit_id: str, name: str) -> UnitLine:
    return UnitLine(unit_id, name, "a", "", 4, 4, (), "", False)


def test_a_long_name_widens_its_column_instead_of_running_into_the_next() -> None:
    view = StatusView(
        title="Test",
        turn=1,
        phase=Outcome.of("bot.referee"),
        awaiting=None,
        sides={"a": "Alliés"},
        tokens={},
        units=(
            _unit("squadra_1", "1re escouade"),
            _unit("comando_plotone_di_compagnia", "Commandement de section de la compagnie"),
        ),
    )
    lines = [line for line in status_text(view, "manovra", "fr").splitlines() if "4/4" in line]
    assert len(lines) == 2
    assert len({line.index("4/4") for line in lines}) == 1, lines
    assert "compagnie 4/4" in lines[1] and "comando_plotone_di_compagnia " in lines[1]


def test_short_names_keep_the_usual_columns() -> None:
    view = StatusView(
        "Test", 1, Outcome.of("bot.referee"), None, {"a": "A"}, {}, (_unit("u", "U"),)
    )
    line = next(line for line in status_text(view, "manovra", "en").splitlines() if "4/4" in line)
    assert line == f"  {'u':<16} {'U':<22} 4/4  "
