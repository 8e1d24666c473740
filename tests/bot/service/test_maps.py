"""The channel's picture (bot/service/maps.py): its words in the game's language."""

from __future__ import annotations

from bot.service import maps
from rules.core.battlefield import HexGrid, MapHex, MapView


def _hex_map(labels: list[str]) -> MapView:
    hexes = tuple(
        MapHex(col=index % 60, row=index // 60, terrain=label or "clear", label=label)
        for index, label in enumerate(labels)
    )
    grid = HexGrid(cols=60, rows=len(labels) // 60 + 1, hexes=hexes, layout="axial")
    return MapView(title="t", sides={}, unit="hex", open_terrain="clear", grid=grid)


def test_a_hex_map_localizes_each_label_once_and_every_hex_reads_it(monkeypatch) -> None:
    # pzgren's largest map has 3,600 hexes of a few labels: localizing each hex's anew took
    # a third of a /game status there.
    labels = ["woods", "", "woods+entrenchment", "woods", "hill", "woods+entrenchment"] * 50
    asked: list[str] = []
    word = maps._word

    def counted(ruleset: str, label: str, language: str) -> str:
        asked.append(label)
        return word(ruleset, label, language)

    monkeypatch.setattr(maps, "_word", counted)
    view = maps.localized_map(_hex_map(labels), "pzgren", "fr")
    assert sorted(asked) == ["hill", "woods", "woods+entrenchment"]
    assert view.grid is not None
    assert [h.label for h in view.grid.hexes] == [
        word("pzgren", label, "fr") if label else "" for label in labels
    ]
    assert view.grid.hexes[0].label != "woods"  # in French, not the value word
