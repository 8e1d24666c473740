"""Weapons in the game's language through the service: typed by their name in any language,
offered by autocomplete by name (the id the value), listed by name in a refusal."""

from __future__ import annotations

import random

import pytest

from bot.service import GameService, Request
from bot.service.replies import Suggestion
from rules.core.errors import RulesError
from tests.fuzz.harness import SeededDice

CHANNEL = 47
REFEREE_ID, ANNA, BRUNO = 1, 2, 3


async def _game(store, ruleset: str, scenario: str, sides: tuple[str, str], language: str):
    service = GameService(store, dice=SeededDice(random.Random(3)))

    async def send(user: int, verb: str, dice: str | None = None, **options):
        return await service.handle(Request(CHANNEL, user, verb, options, dice=dice))

    await send(REFEREE_ID, "game.new", ruleset=ruleset, scenario=scenario, language=language)
    await send(ANNA, "game.join", side=sides[0])
    await send(BRUNO, "game.join", side=sides[1])
    return service, send


async def test_w40k4_fire_reads_its_weapons_in_the_games_language(store) -> None:
    service, send = await _game(store, "w40k4", "avamposto", ("legione", "predoni"), "en")
    await send(ANNA, "turn.next")
    # Typed by its English or French name, as by its id: the same shot.
    odds = []
    for typed in ("cannone_laser", "Laser cannon", "Canon laser"):
        reply = await send(
            ANNA, "odds", unit="devastatori", target="carro_predone", distance=24, weapon=typed
        )
        odds.append([resolution.odds for resolution in reply.resolutions])
    assert odds[0] and odds[0] == odds[1] == odds[2]
    # Autocomplete offers the asker's weapons by name, the id the value typed.
    offered = await service.choices(CHANNEL, ANNA, "weapon", "")
    labelled = {str(s): s.label for s in offered if isinstance(s, Suggestion)}
    assert labelled["cannone_laser"] == "Laser cannon"
    assert labelled["lanciamissili"] == "Missile launcher"
    # A refusal lists the unit's weapons by name, in the reader's language.
    with pytest.raises(RulesError) as refused:
        await send(
            ANNA, "fire", unit="devastatori", target="carro_predone", distance=24, weapon="x"
        )
    english, french = refused.value.localized("en"), refused.value.localized("fr")
    assert "(it has: Laser cannon, Requiem rifle)" in english, english
    assert "Canon laser, Fusil requiem" in french, french
    assert "Cannone laser, Fucile requiem" in refused.value.localized("it")


async def test_manovra_refusal_lists_a_units_weapons_by_name(store) -> None:
    _, send = await _game(store, "manovra", "esempio_normandia", ("alleati", "asse"), "fr")
    await send(ANNA, "turn.next")
    with pytest.raises(RulesError) as refused:
        await send(
            ANNA, "odds", unit="squadra_1", target="gruppe_1", distance=30, weapon="Hand grenads"
        )
    assert "BAR, Fusil, Grenades à main" in refused.value.localized("fr")
    assert "BAR, Rifle, Hand grenades" in refused.value.localized("en")
