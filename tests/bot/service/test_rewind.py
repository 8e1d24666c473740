"""Take-back, rewind and re-roll: history only grows, and a replay still verifies it."""

from __future__ import annotations

import random

import pytest

from bot.service import GameService, Request, ServiceError
from bot.service.replay import replay_bundle
from db.chain.hashing import canonical_json
from rules.core.ruleset import get_ruleset
from rules.core.seatview import REFEREE as REFEREE_SEAT
from tests.fuzz.harness import SeededDice, fill_options

REFEREE, ANNA, BRUNO = 1, 2, 3
CHANNEL = 31
#: A call for artillery in esempio_normandia's first turn: one roll, typed or not.
CALL_ARTILLERY = {
    "unit": "comando_plotone",
    "battery": "batteria_105",
    "target": "north wood",
    "distance": 20,
    "link": "stesso_plotone_radio",
}


async def _manovra(store, language: str = "en"):
    service = GameService(store, dice=SeededDice(random.Random(5)))
    counter = iter(range(10**6))

    async def send(user: int, verb: str, dice: str | None = None, **options):
        return await service.handle(
            Request(CHANNEL, user, verb, options, dice=dice, interaction_id=f"i{next(counter)}")
        )

    await send(REFEREE, "game.new", scenario="esempio_normandia", language=language)
    await send(ANNA, "game.join", side="alleati")
    await send(BRUNO, "game.join", side="asse")
    return service, send


async def _replays_clean(store) -> None:
    report = replay_bundle(await store.export(CHANNEL))
    assert report.divergence is None, report.divergence


async def test_a_player_takes_back_a_command_that_rolled_nothing(store) -> None:
    service = GameService(store, dice=SeededDice(random.Random(2)))
    play = get_ruleset("w40k4").rules

    async def send(user, verb, **options):
        return await service.handle(Request(CHANNEL, user, verb, options))

    await send(REFEREE, "game.new", ruleset="w40k4", language="fr")
    sides = list(play.sides((await store.load(CHANNEL)).document))
    seats = {sides[0]: ANNA, sides[1]: BRUNO}
    await send(ANNA, "game.join", side=sides[0])
    await send(BRUNO, "game.join", side=sides[1])
    rng = random.Random(4)
    found = None
    for _ in range(300):
        document = (await store.load(CHANNEL)).document
        actions = [
            a for a in play.view(document, REFEREE_SEAT).every_legal if a.side and a.verb != "odds"
        ]
        action = rng.choice([a for a in actions if a.owed] or actions)
        before = (await store.load(CHANNEL)).version
        reply = await send(seats[action.side], action.verb, **fill_options(action, rng))
        latest = (await store.events(CHANNEL, after_seq=before, limit=1))[0]
        if reply.seq and not latest.dice and found is None:
            found = (seats[action.side], before, latest)
            break
    assert found is not None, "no command without dice in 300 tries"
    user, version_before, latest = found
    other = BRUNO if user == ANNA else ANNA
    with pytest.raises(ServiceError) as not_yours:
        await send(other, "takeback")
    assert not_yours.value.key == "error.service.takeback.not_yours"
    reply = await send(user, "takeback")
    assert any(n.key == "bot.game.taken_back" for n in reply.notices)
    restored = (await store.load(CHANNEL)).document
    assert canonical_json(restored) == canonical_json(
        (await store.state_at(CHANNEL, version_before)).document
    )
    with pytest.raises(ServiceError):  # the take-back is the latest event now, not a command
        await send(user, "takeback")
    await _replays_clean(store)


async def test_a_free_roll_cannot_be_taken_back_and_says_so(store) -> None:
    _, send = await _manovra(store)
    await send(ANNA, "roll", expression="2d6")
    with pytest.raises(ServiceError) as rolled:
        await send(ANNA, "takeback")
    # Not "only your own command": the roll is hers, and rolls stand.
    assert rolled.value.key == "error.service.takeback.rolls_stand"
    texts = {language: rolled.value.localized(language) for language in ("it", "en", "fr")}
    assert texts["en"].startswith("Rolls cannot be taken back") and "/game undo" in texts["en"]
    assert "/game undo" in texts["it"] and "\u202f:" in texts["fr"]
    with pytest.raises(ServiceError) as other:  # another player's roll is not theirs
        await send(BRUNO, "takeback")
    assert other.value.key == "error.service.takeback.not_yours"


async def test_rewind_and_reroll_of_a_disputed_roll(store) -> None:
    _, send = await _manovra(store)
    await send(ANNA, "turn.next")
    call = await send(ANNA, "callarty", dice="6,3", **CALL_ARTILLERY)
    called = call.seq
    with pytest.raises(ServiceError) as rolled:
        await send(ANNA, "takeback")
    assert rolled.value.key == "error.service.takeback.rolls_stand"
    assert "/game undo" in rolled.value.localized("en")
    with pytest.raises(ServiceError) as undisputed:
        await send(REFEREE, "dice.reroll", seq=called)
    assert undisputed.value.key == "error.service.reroll.not_disputed"
    await send(BRUNO, "dice.dispute", seq=called)
    await send(ANNA, "turn.next")
    with pytest.raises(ServiceError) as referee_only:
        await send(ANNA, "dice.reroll", seq=called)
    assert referee_only.value.key == "error.service.referee_only"

    rerolled = await send(REFEREE, "dice.reroll", seq=called)
    keys = [n.key for n in rerolled.notices]
    assert "bot.dice.rerolled" in keys and rerolled.resolutions
    event = (await store.events(CHANNEL, after_seq=rerolled.seq - 1, limit=1))[0]
    assert event.verb == "dice.reroll" and event.dice and event.args["seq"] == called
    await _replays_clean(store)

    version = (await store.load(CHANNEL)).version
    rewound = await send(REFEREE, "game.rewind", seq=called - 1)
    assert any(n.key == "bot.game.rewound" for n in rewound.notices)
    assert canonical_json((await store.load(CHANNEL)).document) == canonical_json(
        (await store.state_at(CHANNEL, called - 1)).document
    )
    assert (await store.load(CHANNEL)).version == version + 1  # nothing deleted
    await _replays_clean(store)
    with pytest.raises(ServiceError) as after_rewind:
        await send(REFEREE, "dice.reroll", seq=called)
    assert after_rewind.value.key == "error.service.reroll.history"
    log = await send(ANNA, "game.log", count=3)
    assert any("rewound to event" in line for line in log.lines)


async def test_a_disputed_free_roll_is_not_rerolled_and_says_why(store) -> None:
    """A free /roll typed by hand can be disputed, but it is no command of the rules: the
    re-roll is refused with that reason (it was refused as "unknown command 'roll'")."""
    _, send = await _manovra(store, language="fr")
    rolled = await send(ANNA, "roll", dice="3,4", expression="2d6")
    await send(BRUNO, "dice.dispute", seq=rolled.seq)
    version = (await store.load(CHANNEL)).version
    with pytest.raises(ServiceError) as refused:
        await send(REFEREE, "dice.reroll", seq=rolled.seq)
    assert refused.value.key == "error.service.reroll.free_roll"
    assert refused.value.localized("fr").startswith(f"L'événement n°{rolled.seq} est un jet libre")
    assert (await store.load(CHANNEL)).version == version
    await _replays_clean(store)
