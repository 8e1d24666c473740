"""A mistyped unit, target, weapon or marker gets "did you mean …?", as a command does."""

from __future__ import annotations

import random

import pytest

from bot.service import GameService, Request
from bot.service.suggest import typed_option
from rules.core.errors import RulesError, UnknownName
from tests.fuzz.harness import SeededDice

REFEREE, ANNA, BRUNO = 1, 2, 3
CHANNEL = 41


async def _game(store, ruleset: str, scenario: str, sides: tuple[str, str]):
    service = GameService(store, dice=SeededDice(random.Random(3)))

    async def send(user: int, verb: str, dice: str | None = None, **options):
        return await service.handle(Request(CHANNEL, user, verb, options, dice=dice))

    await send(REFEREE, "game.new", ruleset=ruleset, scenario=scenario, language="en")
    await send(ANNA, "game.join", side=sides[0])
    await send(BRUNO, "game.join", side=sides[1])
    return send


async def _refusal(send, user: int, verb: str, **options) -> RulesError:
    with pytest.raises(RulesError) as refused:
        await send(user, verb, **options)
    return refused.value


async def test_a_mistyped_unit_target_and_weapon_get_the_closest_names(store) -> None:
    send = await _game(store, "w40k4", "avamposto", ("legione", "predoni"))
    unit = await _refusal(send, ANNA, "move", unit="squadra_tatica", distance=6)
    assert isinstance(unit, UnknownName) and unit.suggested == ("squadra_tattica",)
    assert unit.localized("en").endswith("The closest name: squadra_tattica. Did you mean it?")
    assert "Il nome più vicino: squadra_tattica. Intendevi questo?" in unit.localized("it")
    assert "Le nom le plus proche\u202f: squadra_tattica. Vouliez-vous dire celui-ci\u202f?" in (
        unit.localized("fr")
    )
    await send(ANNA, "turn.next")
    target = await _refusal(
        send, ANNA, "fire", unit="devastatori", target="carro_predon", distance=24
    )
    assert isinstance(target, UnknownName) and target.suggested[0] == "carro_predone"
    assert "Did you mean one of them?" in target.localized("en") or len(target.suggested) == 1
    weapon = await _refusal(
        send,
        ANNA,
        "fire",
        unit="devastatori",
        target="carro_predone",
        distance=24,
        weapon="cannone_lasr",
    )
    assert isinstance(weapon, UnknownName) and weapon.suggested[0] == "cannone_laser"
    # An enemy's unit is not offered as the asker's own: the names are the seat's.
    far = await _refusal(send, ANNA, "fire", unit="banda_x", target="carro_predone", distance=24)
    assert "banda" not in getattr(far, "suggested", ())


async def test_a_mistyped_marker_gets_the_closest_marker(store) -> None:
    send = await _game(store, "manovra", "esempio_normandia", ("alleati", "asse"))
    await send(ANNA, "turn.next")
    await send(
        ANNA,
        "callarty",
        dice="6,3",
        unit="comando_plotone",
        battery="batteria_105",
        target="north wood",
        distance=20,
        link="stesso_plotone_radio",
    )
    unit = await _refusal(
        send,
        ANNA,
        "callarty",
        unit="comando_plotne",
        battery="batteria_105",
        target="north wood",
        distance=20,
        link="stesso_plotone_radio",
    )
    assert isinstance(unit, UnknownName) and unit.suggested == ("comando_plotone",)
    await send(ANNA, "turn.next")
    await send(ANNA, "manoeuvre.declare", platoon="plotone_fucilieri")
    await send(BRUNO, "manoeuvre.pass")
    await send(REFEREE, "turn.next")  # step 4: the IF markers are executed
    marker = await _refusal(send, REFEREE, "execute", marker="if1-l")
    assert isinstance(marker, UnknownName), marker.localized("en")
    assert marker.suggested == ("if1-1",)


def test_the_option_typed_is_found_in_the_refusal() -> None:
    error = UnknownName("error.w40k4.no_such_weapon", unit="Devastatori", weapon="cannone_lasr")
    options = {"unit": "devastatori", "weapon": "lanciamissili, cannone_lasr"}
    assert typed_option(error, options) == "weapon"
    long_name = "x" * 60
    cut = UnknownName("error.w40k4.unknown_unit", name=long_name[:40])
    assert typed_option(cut, {"unit": long_name}) == "unit"
    assert typed_option(cut, {"unit": "other"}) is None
