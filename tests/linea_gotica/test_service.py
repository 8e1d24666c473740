"""Linea gotica through the application service on a real SQLite file, with scripted dice:
initiative, covering fire, movement with opportunity fire, a morale failure, observation,
fire by quality class (Elite → Veterani → Regolari), a call for fire, then in the next turns
the ranging shot and fire for effect; and the console table."""

from __future__ import annotations

import io

import pytest

from bot.console.table import Console
from bot.service import Request
from rules.core.errors import UnknownName
from rules.core.seatview import SPECTATOR, Seat
from tests.bot.service_table import ServiceTable
from tests.linea_gotica.conftest import gotica_text_without_field

CHANNEL = 4004
REFEREE, ANNA, BRUNO, STRANGER = 1, 2, 3, 99


@pytest.fixture()
def table(service, dice) -> ServiceTable:
    return ServiceTable(service, dice, CHANNEL)


def codes(reply) -> list[str]:
    return [r.outcome.code for r in reply.resolutions]


async def setup(table: ServiceTable) -> None:
    """The bundled scenario without its battlefield: typed distances, as before issue 16."""
    reply = await table.service.handle(
        Request(
            channel_id=CHANNEL,
            guild_id=7,
            user_id=REFEREE,
            verb="game.new",
            options={"ruleset": "linea_gotica"},
            interaction_id=f"{CHANNEL}-new",
            attachment=gotica_text_without_field(),
        )
    )
    assert reply.status is not None, reply
    await table(ANNA, "game.join", side="alleati")
    await table(BRUNO, "game.join", side="Tedeschi")


async def pass_steps(table: ServiceTable, *users: int) -> None:
    for user in users:
        await table(user, "turn.next")


async def test_a_whole_turn_then_ranging_and_fire_for_effect(table, store):
    await setup(table)
    await table.refused(STRANGER, "turn.next", "error.service.join_first")

    # 1. Initiative: both roll 1d10; the Allies (8) beat the Germans (3) and choose.
    reply = await table(ANNA, "turn.next", [8, 3])
    assert codes(reply) == ["linea_gotica.initiative.won(side=Alleati)"]  # the name: Words
    assert [(f.verb, dict(f.options)) for f in reply.follow_ups] == [
        ("turn.next", {"order": "first"}),
        ("turn.next", {"order": "second"}),
    ]
    await table.refused(BRUNO, "turn.next", "error.linea_gotica.not_your_move")
    reply = await table(ANNA, "turn.next", order="first")
    assert reply.ping == []  # still the Allies: covering fire is declared first

    # 2. Covering fire: the Sherman's MG covers the farmhouse (automatic weapons only).
    await table.refused(
        ANNA,
        "fire",
        "error.linea_gotica.covering_automatic_only",
        unit="bazooka",
        target="casolare",
        kind="copertura",
    )
    reply = await table(
        ANNA, "fire", unit="sherman", target="casolare", kind="copertura", weapon="browning_30"
    )
    assert reply.notices[0].code == "linea_gotica.covering.declared(unit=Sherman,place=casolare)"
    reply = await table(ANNA, "turn.next")
    assert reply.ping == [BRUNO]
    await table(BRUNO, "turn.next")

    # 3. Movement: the Allies move; the Germans fire at the movers (opportunity, ½).
    await table.refused(
        BRUNO,
        "move",
        "error.linea_gotica.not_your_move",
        unit="stug",
        kind="fuori_strada",
        distance=10,
    )
    await table.refused(
        BRUNO,
        "fire",
        "error.linea_gotica.not_moving",
        unit="gruppe",
        target="squadra_1",
        distance=30,
    )
    await table.refused(
        ANNA, "move", "linea_gotica.move.too_far", unit="squadra_1", kind="normale", distance=17
    )
    reply = await table(ANNA, "move", unit="squadra_1", kind="normale", distance=14)
    assert codes(reply) == ["linea_gotica.move.ok(allowance=16,cm=14)"]
    await table.refused(
        ANNA, "move", "error.linea_gotica.already_acted", unit="squadra_1", kind="cauto", distance=2
    )
    # The bipod MG 42 is not emplaced: it fires as an assault rifle, 2 shots at one soldier.
    reply = await table(
        BRUNO, "fire", [2, 7, 9], unit="gruppe", target="squadra_1", distance=30, weapon="mg42"
    )
    first, second = reply.resolutions
    chance = first.steps[0]
    assert [m.key.rsplit(".", 1)[1] for m in chance.modifiers] == ["quality", "opportunita"]
    assert chance.total == 3 and chance.table.row == "Fucile d'assalto (2)"
    assert first.outcome.code == "linea_gotica.damage.wounded(figure=2)"
    assert second.outcome.code == "linea_gotica.fire.miss(band=normale)"
    assert first.odds is not None and first.odds.exact
    assert [(f.verb, dict(f.options)) for f in reply.follow_ups] == [
        ("morale", {"unit": "squadra_1"})
    ]
    await table.refused(ANNA, "turn.next", "error.linea_gotica.morale_owed")
    # The wounded scout fails his morale (5 + 4 − 4 wounded − 3 under automatic fire = 2).
    reply = await table(ANNA, "morale", [7, 8], unit="squadra_1")
    morale = reply.resolutions[0]
    assert morale.steps[0].total == 2
    assert morale.outcome.code == "linea_gotica.morale.panic"
    await table(ANNA, "turn.next")
    reply = await table(BRUNO, "move", unit="stug", kind="fuori_strada", distance=10)
    assert codes(reply) == ["linea_gotica.move.ok(allowance=25,cm=10)"]
    await table.refused(
        ANNA, "fire", "error.linea_gotica.already_acted", unit="sherman", target="stug", distance=40
    )
    # The bazooka misses at long range (4 − 1, halved: 2); the round is a dud.
    reply = await table(
        ANNA, "fire", [6, 1], unit="bazooka", target="stug", distance=25, weapon="bazooka"
    )
    assert codes(reply) == ["linea_gotica.fire.dud"]
    await table(BRUNO, "turn.next")

    # 4. Observation at the end of movement: the MG nest (in cover, still) is Difficult.
    await table.refused(
        ANNA,
        "fire",
        "error.linea_gotica.step_closed",
        unit="osservatori",
        target="gruppe",
        distance=30,
    )
    # The Allies cannot name a unit hidden from them: they observe the farmhouse.
    reply = await table(ANNA, "test", [2], unit="squadra_1", kind="osservare", place="casolare")
    assert reply.resolutions[0].outcome.code == "linea_gotica.observe.seen(purpose=osservazione)"
    await table.refused(
        ANNA,
        "test",
        "error.linea_gotica.already_seen",
        unit="osservatori",
        kind="osservare",
        target="mg_casolare",
    )
    await pass_steps(table, ANNA, BRUNO)

    # 5. Fire by quality class. Elite first: only the German sniper (hidden: 1–5 to fire).
    status = await table(BRUNO, "game.status")
    assert status.status.phase.code == "linea_gotica.phase.tiro(quality=elite)"
    assert status.status.awaiting == "tedeschi"
    await table.refused(
        ANNA,
        "callarty",
        "error.linea_gotica.not_this_class",
        unit="osservatori",
        battery="mortai_81",
        target="casolare",
    )
    reply = await table(
        BRUNO,
        "fire",
        [4, 3, 3],
        unit="cecchino",
        target="squadra_1",
        distance=50,
        weapon="k98_zf",
        man=3,
    )
    assert codes(reply) == [
        "linea_gotica.sniper.fires",
        "linea_gotica.damage.shocked(figure=3)",
    ]
    shot = reply.resolutions[1]
    assert shot.steps[0].total == 7  # 6 + 1 aimed (a sniper)
    assert shot.steps[2].total == 4  # 3 + 1 sniper damage
    reply = await table(BRUNO, "turn.next")
    assert reply.notices[-1].code == "linea_gotica.turn.fire_class(quality=veterani)"

    # Veterani: the observers call the company mortars (Normal, +1 radio: 6).
    reply = await table(
        ANNA, "callarty", [5], unit="osservatori", battery="mortai_81", target="casolare"
    )
    assert codes(reply) == ["linea_gotica.action.passed(purpose=contatto)"]
    assert reply.resolutions[0].steps[0].total == 6
    # Seed 004 line 469: the radio's +1 is shown as the radio's, not as the referee's.
    named = [(m.key, m.value) for m in reply.resolutions[0].steps[0].modifiers]
    assert ("linea_gotica.mod.radio", 1) in named
    assert all(key != "linea_gotica.mod.quality_modifier" for key, _ in named)
    assert reply.notices[0].code.startswith("linea_gotica.mission.contacted(marker=m1")
    await table(ANNA, "turn.next")
    # The Germans hide units: every class step waits for them too (docs/linea_gotica.md).
    reply = await table(BRUNO, "turn.next")
    assert reply.notices[-1].code == "linea_gotica.turn.fire_class(quality=regolari)"

    # Regolari: the MG nest fires from the farmhouse, which the Sherman covers: the covering
    # fire comes first, at every soldier there (5 − 2 heavy cover, halved: 2) and misses;
    # then the emplaced MG 42 (crew of two: 3 shots at one man) kills a rifleman.
    reply = await table(
        BRUNO,
        "fire",
        [9, 9, 9, 2, 10],
        unit="mg_casolare",
        target="squadra_1",
        distance=40,
        weapon="mg42_lafette",
        man=4,
    )
    assert reply.notices[0].code == (
        "linea_gotica.covering.triggered(unit=MG 42 del casolare,place=casolare)"
    )
    assert codes(reply) == ["linea_gotica.fire.miss(band=normale)"] * 3 + [
        "linea_gotica.damage.dead(figure=4)"
    ]
    assert reply.resolutions[0].steps[0].total == 2
    assert len(reply.follow_ups) == 1
    await table(BRUNO, "turn.next")  # Bruno is done; the class waits for Anna's morale
    status = await table(ANNA, "turn.status")
    assert status.status.awaiting == "alleati"
    reply = await table(ANNA, "morale", [1] * 7, unit="squadra_1")
    assert codes(reply) == ["linea_gotica.morale.passed"] * 7
    assert reply.notices[-1].code == "linea_gotica.turn.fire_class(quality=reclute)"
    reply = await table(BRUNO, "turn.next")  # the Germans pass the classes of nobody in sight
    assert reply.notices[-1].code == "linea_gotica.turn.fire_class(quality=marmaglia)"
    reply = await table(BRUNO, "turn.next")
    assert reply.notices[-1].code == "linea_gotica.turn.phase(turn=1,phase=osservazione_tiro)"
    reply = await table(ANNA, "turn.next")
    reply = await table(BRUNO, "turn.next")
    assert reply.notices[-1].code == "linea_gotica.turn.phase(turn=2,phase=iniziativa)"

    # Turn 2: the ranging shot (precise, long and right by 1d10 + 1d10).
    await table(BRUNO, "turn.next", [3, 7])
    await table(BRUNO, "turn.next", order="second")
    await pass_steps(table, ANNA, BRUNO, ANNA, BRUNO, ANNA, BRUNO)  # covering, move, observe
    await table(BRUNO, "turn.next")  # the sniper does nothing
    status = await table(ANNA, "turn.status")
    assert [(f.verb, dict(f.options)) for f in status.follow_ups] == [
        ("execute", {"marker": "m1", "order": "tiro"})
    ]
    await table.refused(ANNA, "turn.next", "error.linea_gotica.mission_due")
    reply = await table(ANNA, "execute", [3, 5, 4, 6], marker="m1")
    assert codes(reply) == [
        "linea_gotica.ranging.deviated_across(kind=precise,along=lungo,along_dice=1,"
        "across=destra,across_dice=1)",
        "linea_gotica.ranging.distance(direction=lungo,cm=4)",
        "linea_gotica.ranging.distance(direction=destra,cm=6)",
    ]
    assert reply.notices[0].code == (
        "linea_gotica.mission.ranged(marker=m1,point=casolare (4 cm lungo + 6 cm destra))"
    )
    # Veterani and Regolari, then Reclute and Marmaglia for the Germans (who hide units),
    # then the observation.
    await pass_steps(table, ANNA, BRUNO, ANNA, BRUNO, BRUNO, BRUNO, ANNA, BRUNO)

    # Turn 3: fire for effect, then the blast on the MG nest (in cover, 81 mm: 4 at short).
    await table(ANNA, "turn.next", [9, 2])
    await table(ANNA, "turn.next", order="first")
    await pass_steps(table, ANNA, BRUNO, ANNA, BRUNO, ANNA, BRUNO, BRUNO)
    reply = await table(ANNA, "execute", marker="m1", order="effetto")
    assert reply.notices[0].code.startswith("linea_gotica.mission.effect(marker=m1")
    reply = await table(ANNA, "fragments", [2, 10, 8, 9], target="mg_casolare", marker="m1")
    assert codes(reply) == [
        "linea_gotica.damage.dead(figure=1)",
        "linea_gotica.he.spared(figure=2)",
        "linea_gotica.he.spared(figure=3)",
    ]
    assert reply.resolutions[0].steps[0].threshold.value == 4
    # The leaderless crew tests: 4 + 4 + 3 heavy cover − 3 HE − 3 isolated − 2 leader = 3.
    reply = await table(BRUNO, "morale", [9, 10, 1], unit="mg_casolare")
    assert codes(reply) == ["linea_gotica.morale.panic_no_enemy", "linea_gotica.morale.passed"]
    assert reply.resolutions[0].steps[0].total == 3

    status = await table(BRUNO, "game.status")
    nest = next(u for u in status.status.units if u.id == "mg_casolare")
    assert nest.models == 2 and {"leaderless", "panic"} <= set(nest.statuses)
    squad = next(u for u in status.status.units if u.id == "squadra_1")
    assert squad.models == 7 and {"wounded", "panic"} <= set(squad.statuses)
    log = await table(BRUNO, "game.log", count=50)
    assert len(log.lines) >= 30


async def test_odds_preview_commits_nothing(table, store):
    await setup(table)
    before = (await store.load(CHANNEL)).version
    reply = await table(ANNA, "odds", unit="sherman", target="stug", distance=40)
    assert reply.odds_only and reply.resolutions[-1].odds.exact
    assert (await store.load(CHANNEL)).version == before
    await table.refused(
        BRUNO,
        "odds",
        "error.linea_gotica.not_your_unit",
        unit="sherman",
        target="stug",
        distance=40,
    )


async def test_typed_zero_reads_as_ten(table):
    await setup(table)
    table.dice.push(3)  # the Germans' initiative die is the bot's, not anna's typed dice
    reply = await table(ANNA, "turn.next", dice="0")
    assert reply.by_hand
    rolls = reply.resolutions[0].rolls
    assert [(roll.face, roll.by_hand) for roll in rolls] == [(10, True), (3, False)]


async def test_autocomplete(table):
    await setup(table)
    service = table.service
    assert sorted(await service.choices(CHANNEL, ANNA, "unit", "")) == [
        "bazooka",
        "osservatori",
        "sherman",
        "squadra_1",
    ]
    assert "stug" in await service.choices(CHANNEL, ANNA, "target", "")
    assert sorted(await service.choices(CHANNEL, ANNA, "battery", "")) == [
        "batteria_105",
        "mortai_81",
        "p47",
    ]
    assert "sotto_fuoco" not in await service.choices(CHANNEL, ANNA, "mods", "")
    assert await service.choices(CHANNEL, ANNA, "scenario", "esempio_gotica") == [
        "esempio_gotica",
        "esempio_gotica_campo",
    ]


CONSOLE_SCRIPT = [
    "/game new ruleset:linea_gotica scenario:esempio_gotica language:en",
    "/as anna",
    "/game join side:alleati",
    "/as bruno",
    "/game join side:tedeschi",
    "/as anna",
    "/turn next dice:8",  # anna's die; the Germans' die is the bot's (3)
    "/turn next order:first",
    "/turn next",
    "/as bruno",
    "/turn next",
    "/as anna",
    "/move unit:squadra_1 kind:corsa distance:20 mods:alzarsi_sdraiarsi",
    "/move unit:squadra_1 kind:corsa distance:18 mods:alzarsi_sdraiarsi",
    "/move unit:sherman kind:strada distance:30",
    "/turn status",
]


async def test_the_console_plays_linea_gotica(service, dice):
    dice.push(3)
    out = io.StringIO()
    console = Console(service, out, channel_id=CHANNEL)
    errors = await console.run(CONSOLE_SCRIPT, interactive=False)
    text = out.getvalue()
    assert errors == 1, text  # running 20 cm while lying down: too far
    assert "Game created: Gothic Line, September 1944 (example)" in text
    assert "Initiative won by Allies: the choice of who moves first" in text
    assert "! Too far: 20 cm, 18 allowed" in text  # a run of 24 cm, −25% to stand up
    assert "Move allowed (18 of 18 cm)" in text
    assert "Move allowed (30 of 60 cm)" in text
    assert "» Turn 1: Covering fire" in text
    assert "squadra_1" in text and "[prone]" in text
    assert "Turn 1" in text and "(dice entered by hand)" in text


async def test_a_whole_turn_on_the_battlefield(table, store):
    """The bundled scenario with its table: moves to destinations, measured fire, a hidden
    unit kept off the public map, through the service."""
    from rules.linea_gotica.surface import PLAY

    await table(REFEREE, "game.new", ruleset="linea_gotica", scenario="esempio_gotica_campo")
    await table(ANNA, "game.join", side="alleati")
    await table(BRUNO, "game.join", side="Tedeschi")
    await table(ANNA, "turn.next", [8, 3])
    await table(ANNA, "turn.next", order="first")
    await pass_steps(table, ANNA, BRUNO)  # no covering fire

    # Movement: the bot keeps the positions; a move says where it goes.
    await table.refused(
        ANNA, "move", "error.linea_gotica.field.to_needed", unit="squadra_1", distance=14
    )
    await table.refused(ANNA, "move", "linea_gotica.move.too_far", unit="squadra_1", to="N 17")
    reply = await table(ANNA, "move", unit="squadra_1", to="N 14")
    assert codes(reply) == ["linea_gotica.move.ok(allowance=16,cm=14)"]
    assert reply.notices[0].code.startswith(
        "linea_gotica.field.path(unit=1ª squadra fucilieri,x=60,y=34,cm=14"
    )
    reply = await table(ANNA, "move", unit="sherman", to="ponte_sud")
    assert codes(reply) == ["linea_gotica.move.ok(allowance=60,cm=30)"]
    # Opportunity fire at the squad: the distance is measured, a typed one must agree.
    await table.refused(
        BRUNO,
        "fire",
        "error.linea_gotica.field.distance_differs",
        unit="gruppe",
        target="squadra_1",
        distance=30,
        weapon="mg42",
    )
    reply = await table(BRUNO, "fire", [10, 10], unit="gruppe", target="squadra_1", weapon="mg42")
    assert reply.notices[0].code == "linea_gotica.field.measured(cm=38.3)"
    assert [r.outcome.key for r in reply.resolutions] == ["linea_gotica.fire.miss"] * 2
    await table(ANNA, "turn.next")
    await table.refused(BRUNO, "move", "linea_gotica.move.too_far", unit="stug", to="S 61")

    document = (await store.load(CHANNEL)).document
    public = PLAY.view(document, SPECTATOR).map()
    assert public is not None
    shown = {c.unit_id: (c.x, c.y) for c in public.counters}
    assert shown["squadra_1"] == (60, 34) and shown["stug"] == (90, 110)
    assert "mg_casolare" not in shown and "cecchino" not in shown
    own = PLAY.view(document, Seat.of("tedeschi")).map()
    assert own is not None and {"mg_casolare", "cecchino"} <= {c.unit_id for c in own.counters}

    # Observation at the end of the movement: the squad sees the farmhouse (measured).
    await pass_steps(table, BRUNO)
    reply = await table(ANNA, "test", [1], unit="squadra_1", kind="osservare", place="casolare")
    assert reply.notices[0].code == "linea_gotica.field.measured(cm=76.6)"
    assert reply.resolutions[0].outcome.key == "linea_gotica.observe.seen"
    await pass_steps(table, ANNA, BRUNO)
    # Fire by class: Elite (the sniper keeps quiet; the referee ends it), then Veterani.
    await table(REFEREE, "turn.next")
    assert (await store.load(CHANNEL)).document["fire_class"] == 1
    # The wood stands between the observers and the hedge.
    error = await table.refused(
        ANNA, "fire", "error.linea_gotica.field.blocked", unit="osservatori", target="gruppe"
    )
    assert error.params["area"] == "Bosco dei castagni"
    # The StuG fires down the road at the Sherman on the bridge: a miss, a dud.
    reply = await table(BRUNO, "fire", [10, 1], unit="stug", target="sherman", weapon="stuk40")
    assert reply.notices[0].code == "linea_gotica.field.measured(cm=65)"
    assert codes(reply) == ["linea_gotica.fire.dud"]
    document = (await store.load(CHANNEL)).document
    line = PLAY.view(document, SPECTATOR).map().overlays[0]
    assert line.kind == "line_of_fire" and line.label == "stug → sherman 65 cm"
    # The other classes and the last observation (the referee ends each step): the turn ends.
    while (await store.load(CHANNEL)).document["turn"] == 1:
        await table(REFEREE, "turn.next")
    assert (await store.load(CHANNEL)).document["phase"] == "iniziativa"


async def test_a_weapon_the_unit_does_not_carry_is_refused_with_its_own_weapons(table) -> None:
    """A typo in ``weapon:`` (or another unit's weapon) was refused as "no one able to do
    it", with nothing to go on: it is an unknown weapon, offered among the unit's own."""
    await setup(table)
    await table(ANNA, "turn.next", [8, 3])
    await table(ANNA, "turn.next", order="first")
    typo = await table.refused(
        ANNA,
        "fire",
        "error.linea_gotica.no_such_weapon",
        unit="sherman",
        target="casolare",
        kind="copertura",
        weapon="brownin",
    )
    assert isinstance(typo, UnknownName)
    assert set(typo.suggested) == {"Browning .30", "Browning .50 (contraerea)"}, typo.suggested
    await table(ANNA, "turn.next")
    await table(BRUNO, "turn.next")
    await table(ANNA, "move", unit="squadra_1", kind="normale", distance=14)

    async def gruppe_fires(weapon: str) -> UnknownName:
        refusal = await table.refused(
            BRUNO,
            "fire",
            "error.linea_gotica.no_such_weapon",
            unit="gruppe",
            target="squadra_1",
            distance=30,
            weapon=weapon,
        )
        assert isinstance(refusal, UnknownName)
        return refusal

    typo = await gruppe_fires("mg24")
    assert typo.suggested[0] == "MG 42 (bipiede)"
    english = typo.localized("en")
    assert english.startswith(
        "Unit Gruppe Müller has no weapon «mg24» (it has: MP 40, MG 42 (bipod)"
    )
    assert english.endswith("The closest name: MG 42 (bipod). Did you mean it?"), english
    # The farmhouse's tripod MG 42 is another unit's: never offered for the Gruppe.
    other = await gruppe_fires("mg42_lafette")
    assert "MG 42 (treppiede)" not in other.suggested and "tripod" not in other.localized("en")
