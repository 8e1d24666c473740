"""A mistyped unit, target, weapon or marker gets "did you mean …?", as a command does."""

from __future__ import annotations

import random

import pytest

from bot.service import GameService, Request
from bot.service.suggest import closest_ids, offered, typed_option
from rules.core.errors import RulesError, UnknownName
from rules.core.words import Words, in_language
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
    # What the reader reads and types: the unit's name, in the refusal's language.
    assert isinstance(unit, UnknownName) and unit.suggested == ("Squadra tattica",)
    assert unit.localized("en").endswith("The closest name: Tactical Squad. Did you mean it?")
    assert "Il nome più vicino: Squadra tattica. Intendevi questo?" in unit.localized("it")
    assert "Le nom le plus proche\u202f: Escouade tactique. Vouliez-vous dire celui-ci\u202f?" in (
        unit.localized("fr")
    )
    await send(ANNA, "turn.next")
    target = await _refusal(
        send, ANNA, "fire", unit="devastatori", target="carro_predon", distance=24
    )
    assert isinstance(target, UnknownName) and target.suggested[0] == "Carro predone"
    assert "Raider Tank" in target.localized("en")

    async def devastators_fire(weapon: str) -> RulesError:
        return await _refusal(
            send,
            ANNA,
            "fire",
            unit="devastatori",
            target="carro_predone",
            distance=24,
            weapon=weapon,
        )

    weapon = await devastators_fire("cannone_lasr")
    assert isinstance(weapon, UnknownName) and weapon.suggested[0] == "Cannone laser"
    assert "Laser cannon" in weapon.localized("en")
    assert "Canon laser" in weapon.localized("fr")
    # A name mistyped in another language finds it as well as its id does.
    english = await _refusal(
        send,
        ANNA,
        "fire",
        unit="devastatori",
        target="Raider Tnk",
        distance=24,
    )
    assert isinstance(english, UnknownName) and english.suggested[0] == "Carro predone"
    # A weapon another unit carries is not offered: the Devastators have no missile
    # launcher, so "lanciamissili" is refused without one ("Lance-missiles" was offered).
    other = await devastators_fire("lanciamissili")
    assert isinstance(other, UnknownName) and other.key == "error.w40k4.no_such_weapon"
    assert set(other.suggested) <= {"Cannone laser", "Fucile requiem"}, other.suggested
    assert "missil" not in other.localized("fr").partition("(")[2].casefold()
    # An enemy's unit is not offered as the asker's own: the names are the seat's.
    far = await _refusal(send, ANNA, "fire", unit="banda_x", target="carro_predone", distance=24)
    assert not {"banda", "Banda di predoni"} & set(getattr(far, "suggested", ()))


async def test_no_suggestion_names_a_unit_hidden_from_the_seat(store) -> None:
    # gotica_retroguardia's sniper and roadman's-house MG are hidden from the Allies: typed
    # close to their names (in any language) or ids, the Allies are offered neither.
    send = await _game(store, "linea_gotica", "gotica_retroguardia", ("alleati", "tedeschi"))
    hidden = {"cecchino", "Cecchino", "Sniper", "Tireur d'élite", "mg_casolare"}
    hidden |= {"MG 42 della cantoniera", "Roadman's house MG 42", "MG 42 de la maison cantonnière"}
    for typed in ("Snipr", "cecchin", "Tireur d'elite", "mg_casolar", "Roadmans house MG 42"):
        refused = await _refusal(send, ANNA, "odds", unit="squadra_1", target=typed, distance=40)
        offered = set(getattr(refused, "suggested", ()))
        assert not offered & hidden, (typed, offered)
        for language in ("it", "en", "fr"):
            text = refused.localized(language)
            assert not any(name in text for name in hidden - {typed}), (typed, text)
    # Their own side is offered them, by name.
    mine = await _refusal(send, BRUNO, "odds", unit="cecchino", target="Bazoka Team", distance=40)
    assert isinstance(mine, UnknownName) and "Bazooka Team" in mine.localized("en")
    seen = await _refusal(send, ANNA, "odds", unit="squadra_1", target="Grupe Müller", distance=40)
    assert isinstance(seen, UnknownName) and seen.suggested == ("Gruppe Müller",)


def test_a_name_shared_by_two_units_is_offered_with_its_id() -> None:
    labels = {
        "sherman_1": Words("Carro", {"it": "Carro", "en": "Tank", "fr": "Char"}),
        "sherman_2": Words("Carro", {"it": "Carro", "en": "Tank", "fr": "Char"}),
        "jeep": Words("Jeep"),
    }
    names = ["sherman_1", "sherman_2", "jeep", "mortai"]
    shown = offered(closest_ids("Tnk", names, labels), names, labels)
    assert [in_language(name, "en") for name in shown] == ["Tank (sherman_1)", "Tank (sherman_2)"]
    assert in_language(shown[0], "fr") == "Char (sherman_1)"
    # A name nobody else has is offered alone; an id with no name as the id.
    assert offered(["jeep", "mortai"], names, labels) == ("Jeep", "mortai")
    # What another seat may see (not among ``names``) makes no collision.
    assert offered(["sherman_1"], ["sherman_1", "jeep"], labels) == (labels["sherman_1"],)


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
    assert isinstance(unit, UnknownName) and unit.suggested == ("Comando di plotone",)
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


async def test_a_name_close_to_none_lists_the_few_the_seat_may_type(store) -> None:
    # manovra's Allies have four platoons: "xx" is close to none, so all four are offered.
    send = await _game(store, "manovra", "esempio_normandia", ("alleati", "asse"))
    await send(ANNA, "turn.next")
    await send(ANNA, "turn.next")
    refused = await _refusal(send, ANNA, "manoeuvre.declare", platoon="xx")
    assert isinstance(refused, UnknownName)
    assert len(refused.suggested) == 4, refused.suggested
    assert "1st Rifle Platoon" in refused.localized("en")
    assert "1re section de fusiliers" in refused.localized("fr")
    # The Axis's platoons are the Axis's to type, not the Allies'.
    assert "Zug" not in refused.localized("en")


async def test_a_name_typed_where_the_seat_knows_none_of_its_kind_is_refused_plainly(
    store,
) -> None:
    # No blast on the table yet: the Allies know no marker, so there is nothing to offer;
    # the refusal says the marker is unknown (it failed with an unexpected error instead).
    send = await _game(store, "linea_gotica", "esempio_gotica_campo", ("alleati", "tedeschi"))
    refused = await _refusal(send, ANNA, "fragments", target="gruppe", marker="m1")
    assert isinstance(refused, UnknownName) and refused.key == "error.linea_gotica.unknown_marker"
    assert refused.suggested == ()
    assert refused.localized("en") == "Unknown marker: m1."
