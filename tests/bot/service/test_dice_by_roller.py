"""Dice belong to their roller, and physical dice are asked for roll by roll.

Through the application service on a real SQLite file: a player's typed faces feed only
the acting side's rolls (another side's rolls come from the bot and are marked so); when
they run out the command is kept and its roller asked for the next die, the answer runs it
again one die further, and it is committed once; only the roller may answer; a prompt dies
when the game moves on; refusals name the rules' reason, not a dice count.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import pytest
from pydantic import BaseModel

import bot.service.handlers as service_module
from bot.service import GameService, Reply
from bot.service.replay import replay_bundle, replay_game
from rules.core.battlefield import MapView, Overlay
from rules.core.dice import D6, DiceSource, DiceTray
from rules.core.errors import IllegalAction, UnknownName
from rules.core.game import Applied, run_command
from rules.core.legal import LegalAction
from rules.core.migrations import DocumentFormat
from rules.core.play import Played, StatusView
from rules.core.resolution import Outcome
from rules.core.score import GameResult, Score
from rules.core.seatview import Seat, SeatView
from rules.core.surface import Reread
from tests.bot.service_table import ServiceTable

CHANNEL = 77
REFEREE, ANNA, BRUNO = 1, 2, 3


@pytest.fixture()
def table(service, dice) -> ServiceTable:
    return ServiceTable(service, dice, CHANNEL)


async def _tank_phase(table: ServiceTable) -> None:
    """manovra, turn 1 step 3: the Allied tanks act, the Axis has declared its Panzer."""
    await table(REFEREE, "game.new", scenario="esempio_normandia", language="en")
    await table(ANNA, "game.join", side="alleati")
    await table(BRUNO, "game.join", side="asse")
    await table(ANNA, "turn.next")
    await table(ANNA, "turn.next")
    await table(ANNA, "manoeuvre.declare", platoon="plotone_carri")
    await table(BRUNO, "manoeuvre.declare", [6, 1, 1], platoon="panzer")


SHOT = {"unit": "sherman_1", "target": "panzer_iv", "distance": 40, "ammo": "AP"}


async def _answer(table: ServiceTable, user: int, reply: Reply, face: int | str) -> Reply:
    prompt = reply.dice_prompt
    assert prompt is not None
    return await table(user, "dice.roll", prompt=prompt.prompt_id, n=prompt.position, face=face)


async def test_a_hit_at_a_tank_asks_for_the_penetration_die_then_commits_once(table, store):
    await _tank_phase(table)
    version = (await store.load(CHANNEL)).version

    # The player rolled the hit only: a penetration roll only follows a hit.
    reply = await table(ANNA, "fire", dice="7", **SHOT)
    prompt = reply.dice_prompt
    assert prompt is not None and not reply.resolutions and reply.seq is None
    assert (prompt.die.name, prompt.faces, prompt.user_id, prompt.side) == (
        "D12",
        (7,),
        ANNA,
        "alleati",
    )
    assert "penetration" in prompt.label
    # The command is not committed yet; the faces typed for it are on the record.
    record = await store.load(CHANNEL)
    assert record.version == version + 1
    typed = (await store.events(CHANNEL, after_seq=version, limit=1))[0]
    assert (typed.verb, typed.args["faces"], typed.args["die"]) == ("dice.typed", "7", "D12")

    # Only the roller answers; a face the die cannot show is refused and the prompt stays.
    await table.refused(
        BRUNO, "dice.roll", "error.service.not_your_roll", prompt=prompt.prompt_id, n=2, face=5
    )
    await table.refused(
        ANNA, "dice.roll", "error.dice.impossible_face", prompt=prompt.prompt_id, n=2, face=13
    )

    # A bot restart: a new service on the same store still knows the waiting command.
    restarted = ServiceTable(GameService(store, dice=table.dice), table.dice, CHANNEL)
    restarted.counter = 100
    reply = await _answer(restarted, ANNA, reply, 12)
    effects = reply.dice_prompt
    assert effects is not None and (effects.die.name, effects.faces) == ("D10", (7, 12))
    # The answered prompt's buttons are spent: pressing one again is refused.
    await table.refused(
        ANNA, "dice.roll", "error.service.roll_gone", prompt=prompt.prompt_id, n=2, face=12
    )
    await table.refused(
        ANNA, "dice.roll", "error.service.roll_gone", prompt=effects.prompt_id, n=2, face=3
    )

    reply = await _answer(table, ANNA, reply, 3)
    assert reply.dice_prompt is None and reply.by_hand
    assert [s.table.cell for s in reply.resolutions[-1].steps] == [
        "scafo",
        "10",
        "arma distrutta + 1 morto + CT",
    ]
    # Committed once, after the record of the faces typed first.
    assert (await store.load(CHANNEL)).version == version + 2
    (event,) = await store.events(CHANNEL, after_seq=version + 1)
    assert event.verb == "fire" and event.args["by_hand"] and event.actor_id == ANNA
    assert [(d["face"], d["by_hand"], d["side"]) for d in event.dice] == [
        (7, True, "alleati"),
        (12, True, "alleati"),
        (3, True, "alleati"),
    ]
    log = await table(BRUNO, "game.log", count=1)
    assert log.lines and "fire" in log.lines[-1]
    # The log replays to the stored state: the event holds every die in the order rolled.
    report = await replay_game(store, CHANNEL)
    assert report.matches, report.describe()


async def test_a_prompt_expires_when_the_game_moves_on(table, store):
    await _tank_phase(table)
    reply = await table(ANNA, "fire", dice="7", **SHOT)
    assert reply.dice_prompt is not None
    await table(ANNA, "move", unit="sherman_1", kind="hold")  # the game moves on meanwhile
    version = (await store.load(CHANNEL)).version
    error = await table.refused(
        ANNA,
        "dice.roll",
        "error.service.roll_expired",
        prompt=reply.dice_prompt.prompt_id,
        n=2,
        face=12,
    )
    assert "/fire" in error.localized("en")
    assert (await store.load(CHANNEL)).version == version
    # Expired means gone: the waiting command was dropped.
    await table.refused(
        ANNA, "dice.roll", "error.service.roll_gone", prompt=reply.dice_prompt.prompt_id, face=12
    )


async def test_a_waiting_command_is_not_given_again_with_other_dice(table, store):
    """Issue 26 item 2: typed dice stand from the moment they are given — the log and the
    other seats read them — and the command waiting for a die cannot be typed again with
    better dice; the die it waits for is owed, and answering it still works."""
    await _tank_phase(table)
    first = await table(ANNA, "fire", dice="7", **SHOT)
    assert first.dice_prompt is not None
    for dice in ("12", "7"):
        refusal = await table.refused(ANNA, "fire", "error.service.die_owed", dice=dice, **SHOT)
        assert refusal.localized("en").startswith(
            "/fire waits for your D12: the dice typed for it (7) stand."
        )
    log = await table(BRUNO, "game.log", count=3)
    assert "typed 7 for /fire, which waits for one more D12" in log.lines[-1]
    reply = await _answer(table, ANNA, first, 12)
    assert reply.dice_prompt is not None and reply.dice_prompt.faces == (7, 12)


async def test_too_many_typed_dice_are_still_refused_with_their_count(table, store):
    await _tank_phase(table)
    version = (await store.load(CHANNEL)).version
    error = await table.refused(ANNA, "fire", "error.dice.unused", dice="7,12,3,5", **SHOT)
    assert error.params == {"unused": 1, "used": 3}
    assert (await store.load(CHANNEL)).version == version


async def test_a_rules_refusal_with_typed_dice_names_the_rules_reason(table):
    await _tank_phase(table)
    shot = {**SHOT, "target": "tiger_9"}
    await table.refused(ANNA, "fire", "error.manovra.unknown_unit", dice="7", **shot)


# -- a two-sided duel: the defender's save is the defender's roll --------------------------------


class DuelState(BaseModel):
    """Two sides shooting at each other; the defender rolls its own save."""

    title: str = "Duel"
    sides: dict[str, str] = {"rossi": "Rossi", "blu": "Blu"}
    wounds: dict[str, int] = {"rossi": 0, "blu": 0}
    to_move: str = "rossi"


@dataclass(frozen=True)
class Shoot:
    target: str


def shoot(
    state: DuelState, command: Shoot, tray: DiceTray, actor: str | None, result: Applied[Any]
) -> None:
    """To hit (the shooter), then the target's save (the target's roll), then damage."""
    shooter = actor or state.to_move
    if shooter != state.to_move:
        raise IllegalAction("error.illegal_action")
    hit = tray.roll(D6, "to hit")
    # Checked after a roll on purpose: a refusal that no die can avoid, found late.
    if command.target not in state.sides or command.target == shooter:
        raise UnknownName("error.unknown_name")
    if hit.face >= 4:
        with tray.rolled_by(command.target):
            save = tray.roll(D6, "save")
        if save.face < 4:
            state.wounds[command.target] += tray.roll(D6, "damage").face
    state.to_move = command.target
    result.notices.append(Outcome.of("bot.game.ended"))


@dataclass(frozen=True)
class DuelSource:
    """The duel's answers for its seat views: no unit, nothing owed, no picture."""

    sides: Mapping[str, str]
    document: Mapping[str, Any]

    def status(self, seat: Seat) -> StatusView:
        return StatusView("Duel", 1, Outcome.of("bot.game.ended"), None, self.sides, {}, ())

    def map(self, seat: Seat, language: str) -> MapView | None:
        return None

    def legal(self) -> list[LegalAction]:
        return []

    def prompts(self) -> list[LegalAction]:
        return []

    def turn(self) -> str | None:
        return str(self.document["to_move"])

    def names(self, kind: str, side: str | None) -> list[str]:
        return []

    def named(self, kind: str) -> Mapping[str, str]:
        return {}

    def score(self, seat: Seat) -> Score:
        return Score(tuple(self.sides))

    def result(self) -> GameResult | None:
        return None  # a duel never ends by itself

    def marks(self, verb: str, options: Mapping[str, Any]) -> tuple[Overlay, ...]:
        return ()


class DuelPlay:
    """A minimal ruleset (the three calls its replay asks) with a roll made for another
    side."""

    ruleset = "duel"
    document_format = DocumentFormat("duel", version=1)

    def scenarios(self) -> list[str]:
        return ["duel"]

    def verbs(self) -> tuple[str, ...]:
        return ("shoot",)

    def options_of(self, verb: str) -> tuple[str, ...]:
        return ("target",) if verb == "shoot" else ()

    def setup(
        self, scenario_id: str | None = None, scenario_text: str | None = None
    ) -> dict[str, Any]:
        return DuelState().model_dump()

    def sides(self, document: Mapping[str, Any]) -> Mapping[str, str]:
        return dict(document["sides"])

    def canonical(self, document: Mapping[str, Any]) -> dict[str, Any]:
        return DuelState.model_validate(dict(document)).model_dump()

    def act(
        self,
        document: Mapping[str, Any],
        seat: Seat,
        verb: str,
        options: Mapping[str, Any],
        dice: DiceSource,
        other_dice: DiceSource | None = None,
    ) -> Played:
        applied = run_command(
            DuelState.model_validate(dict(document)),
            Shoot(str(options.get("target", ""))),
            dice,
            {Shoot: shoot},
            actor_side=seat.side,
            preview=verb == "odds",
            other_dice=other_dice,
        )
        assert applied.tray is not None
        return Played(applied.state.model_dump(), [], applied.notices, list(applied.tray.rolls))

    def load(self, document: Mapping[str, Any]) -> Reread:
        return Reread(self, document)

    def view(self, document: Mapping[str, Any], seat: Seat) -> SeatView:
        return SeatView(self.ruleset, seat, DuelSource(self.sides(document), document))


@pytest.fixture()
def duel(table, monkeypatch) -> ServiceTable:
    real = service_module.get_ruleset
    duel_play = DuelPlay()
    ruleset = SimpleNamespace(
        key="duel", rules=duel_play, zero_reads_as_ten=False, hides_units=False
    )
    monkeypatch.setattr(
        service_module, "get_ruleset", lambda key: ruleset if key == "duel" else real(key)
    )
    return table


async def _duel(table: ServiceTable) -> None:
    await table(REFEREE, "game.new", ruleset="duel")
    await table(ANNA, "game.join", side="rossi")
    await table(BRUNO, "game.join", side="blu")


async def test_another_sides_roll_is_the_bots_and_marked_so(duel, store):
    await _duel(duel)
    # Anna typed her hit; Blu's save is Blu's roll: the bot makes it (2, a failed save),
    # so Anna's second die is asked for the damage, not spent on Blu's save.
    reply = await duel(ANNA, "shoot", [2], dice="5", target="blu")
    assert reply.dice_prompt is not None and reply.dice_prompt.label == "damage"
    # The re-run replays the bot's save (no new face is drawn: the queue is empty).
    reply = await _answer(duel, ANNA, reply, 6)
    assert reply.dice_prompt is None and reply.by_hand
    record = await store.load(CHANNEL)
    assert record.document["wounds"]["blu"] == 6
    (event,) = await store.events(CHANNEL, after_seq=record.version - 1)
    assert [(d["label"], d["face"], d["by_hand"], d["side"]) for d in event.dice] == [
        ("to hit", 5, True, "rossi"),
        ("save", 2, False, "blu"),
        ("damage", 6, True, "rossi"),
    ]
    report = replay_bundle(await store.export(CHANNEL), DuelPlay())
    assert report.matches, report.describe()


async def test_typed_dice_are_never_spent_on_the_other_sides_roll(duel, store):
    await _duel(duel)
    # Two faces typed, one hit and one damage: the save between them is the bot's.
    await duel(ANNA, "shoot", [1], dice="4,3", target="blu")
    record = await store.load(CHANNEL)
    assert record.document["wounds"]["blu"] == 3


async def test_asking_for_every_die_and_a_late_refusal_named_at_once(duel, store):
    await _duel(duel)
    version = (await store.load(CHANNEL)).version
    # "?" asks for each die; a command the rules refuse whatever the dice is refused now,
    # with the rules' reason, before the player rolls anything.
    await duel.refused(ANNA, "shoot", "error.unknown_name", dice="?", target="verdi")
    assert (await store.load(CHANNEL)).version == version
    reply = await duel(ANNA, "shoot", dice="?", target="blu")
    assert reply.dice_prompt is not None and reply.dice_prompt.faces == ()
    assert reply.dice_prompt.label == "to hit"
    reply = await _answer(duel, ANNA, reply, "2")  # a miss: no save, no damage
    assert reply.dice_prompt is None and reply.seq == version + 1


async def test_a_face_that_does_not_fit_a_refused_command_gives_the_rules_reason(duel):
    await _duel(duel)
    # A 9 is on no D6; but the shot at an unknown side is refused whatever the dice.
    await duel.refused(ANNA, "shoot", "error.unknown_name", dice="9", target="verdi")
    error = await duel.refused(ANNA, "shoot", "error.dice.impossible_face", dice="9", target="blu")
    assert error.params["face"] == 9 and error.params["die"] == "D6"
