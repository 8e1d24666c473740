"""Hidden stays hidden, through the service and a real SQLite store: for every bundled
scenario with units hidden from the start, what the other side and a spectator receive —
the status with its score, the picture, the log, the export files, the refusal of a command
naming a unit and its suggestions, autocomplete — is the same when the hidden units are
removed or moved (tests/core/hidden_worlds.py); and the reported leaks, each pinned."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.commands import DIE_ANSWER
from bot.console.render_text import reply_text
from bot.service import GameService, PlayReply, Request, pages
from bot.service.events import VERB_REPLAYED
from bot.service.export import read_file
from db.chain.hashing import canonical_json, compute_event_hash, verify_links
from db.drivers.sqlite import SqliteStore
from db.models import EventRecord, NewEvent
from rules.core.errors import RulesError
from rules.core.ruleset import get_ruleset
from rules.core.seatview import REFEREE as REFEREE_SEAT
from rules.core.seatview import SPECTATOR as SPECTATOR_SEAT
from rules.core.seatview import Seat, SeatView
from tests.bot.conftest import QueuedDice
from tests.bot.service.test_hidden import concealed_move
from tests.bot.service_table import ServiceTable
from tests.core.hidden_worlds import hidden_scenarios, hidden_units, owners, worlds

CHANNEL = 3201
REFEREE, ANNA, BRUNO, SPECTATOR = 1, 2, 3, 99
CAMPO = next(path for _, path in hidden_scenarios() if path.stem == "esempio_gotica_campo")
#: Kinds of names a command may be offered (autocomplete).
KINDS = ("unit", "target", "place", "destination", "weapon", "marker")
#: What changes from one world to another whatever anyone sees: the chain's hashes (each
#: covers its state's hash: docs/integrity.md, "A seat's export") and the time of an export.
VOLATILE = re.compile(r"[0-9a-f]{8,}|\d{4}-\d\d-\d\dT[0-9:.+]+")


async def _table(tmp_path: Path, name: str) -> tuple[ServiceTable, SqliteStore]:
    store = await SqliteStore.open(str(tmp_path / f"{name}.db"))
    dice = QueuedDice()
    return ServiceTable(GameService(store, dice=dice), dice, CHANNEL), store


async def _game(table: ServiceTable, text: str, hiding: set[str]) -> tuple[str, str]:
    """A game of the scenario ``text``; ANNA sits at a side that hides nothing, BRUNO at
    the side whose units are hidden. Their sides."""
    await table.service.handle(
        Request(
            channel_id=CHANNEL,
            guild_id=7,
            user_id=REFEREE,
            verb="game.new",
            options={"ruleset": "linea_gotica", "language": "en"},
            attachment=text,
            interaction_id="new",
        )
    )
    sides = ["alleati", "tedeschi"]
    (hider,) = hiding
    other = next(side for side in sides if side != hider)
    await table(ANNA, "game.join", side=other)
    await table(BRUNO, "game.join", side=hider)
    return other, hider


def _plain(text: str) -> str:
    return VOLATILE.sub("…", text)


async def _received(table: ServiceTable, user: int, hidden_ids: list[str]) -> dict[str, Any]:
    """Everything ``user`` reads of the game now, its volatile parts blanked."""
    seen: dict[str, Any] = {}
    status = await table(user, "game.status")
    seen["status"] = _plain(reply_text(status, str))
    seen["score"] = status.score
    shown = await table(user, "game.map")
    seen["map"] = shown.map_view
    seen["log"] = _plain("\n".join((await table(user, "game.log", count=50)).lines))
    export = await table(user, "game.export")
    for name, content in sorted(export.files.items()):
        seen[f"export:{name}"] = _plain(read_file(content).decode())
    bundle = json.loads(read_file(export.files["arbitro-log.json"]))
    # No state and no salt: the states' hashes, kept, test no guess; the chain still links.
    assert bundle["states"] == [] and verify_links(bundle) == bundle["head_hash"]
    assert "state_salt" not in bundle["game"]
    assert all("state_hash" in event for event in bundle["events"])
    seen["export:notices"] = [n.key for n in export.notices]
    for unit in hidden_ids:
        for verb, options in (
            ("move", {"unit": unit, "distance": 1}),
            ("fire", {"unit": unit, "target": unit}),
        ):
            try:
                await table(user, verb, **options)
                seen[f"{verb}:{unit}"] = "played"
            except RulesError as refusal:
                seen[f"{verb}:{unit}"] = (
                    refusal.key,
                    dict(refusal.params),
                    refusal.localized("en"),
                )
    for kind in KINDS:
        seen[f"names:{kind}"] = await table.service.choices(CHANNEL, user, kind, "")
    return seen


@pytest.mark.parametrize("path", [path for _, path in hidden_scenarios()], ids=lambda p: p.stem)
async def test_the_other_side_and_a_spectator_cannot_tell_hidden_units_from_none(
    tmp_path: Path, path: Path
) -> None:
    hiding = owners(path)
    hidden_ids = ["mg_casolare", "cecchino"]
    received: dict[str, dict[int, dict[str, Any]]] = {}
    for world, text in worlds(path).items():
        table, store = await _table(tmp_path, world)
        try:
            await _game(table, text, hiding)
            received[world] = {}
            for user in (ANNA, SPECTATOR):
                received[world][user] = await _received(table, user, hidden_ids)
            # The initiative, rolled: the game goes on, and still nothing tells them apart.
            await table(ANNA, "turn.next", (8, 3))
            for user in (ANNA, SPECTATOR):
                received[world][-user] = await _received(table, user, hidden_ids)
        finally:
            await store.close()
    for world in ("removed", "moved"):
        for user, seen in received["as_written"].items():
            for part, value in seen.items():
                assert received[world][user][part] == value, (world, user, part)


@pytest.fixture()
async def campo(tmp_path: Path) -> AsyncIterator[ServiceTable]:
    """esempio_gotica_campo, ANNA at the Allies, BRUNO at the Germans (who hide two units)."""
    table, store = await _table(tmp_path, "campo")
    await table(
        REFEREE, "game.new", ruleset="linea_gotica", language="en", scenario="esempio_gotica_campo"
    )
    await table(ANNA, "game.join", side="alleati")
    await table(BRUNO, "game.join", side="tedeschi")
    yield table
    await store.close()


async def test_the_score_tells_the_enemy_nothing_of_a_hidden_unit(campo: ServiceTable) -> None:
    table = campo
    for user in (ANNA, SPECTATOR):
        text = reply_text(await table(user, "game.status"), str)
        assert "The farmhouse: not held" in text and "held by Tedeschi" not in text
        assert (
            "0 of 9 figures lost" in text
            and "0 of 14 figures lost (0%): 0 points to Alleati" not in text
        )
        assert "hidden" not in text.lower()


async def test_the_enemy_export_carries_no_hidden_position_from_the_first_event(
    campo: ServiceTable,
) -> None:
    table = campo
    for user in (ANNA, SPECTATOR):
        reply = await table(user, "game.export")
        files = {name: read_file(content).decode() for name, content in reply.files.items()}
        bundle = json.loads(files["arbitro-log.json"])
        assert bundle["states"] == [] and bundle["redacted_for"]
        assert not any("cecchino" in text or "mg_casolare" in text for text in files.values())
    referee = await table(REFEREE, "game.export")
    whole = json.loads(read_file(referee.files["arbitro-log.json"]))
    assert "cecchino" in json.dumps(whole) and len(whole["states"]) == 2


async def test_naming_a_hidden_unit_is_refused_as_naming_none(campo: ServiceTable) -> None:
    table = campo
    hidden = await table.refused(
        ANNA, "move", "error.linea_gotica.unknown_unit", unit="cecchino", distance=1
    )
    none = await table.refused(
        ANNA, "move", "error.linea_gotica.unknown_unit", unit="nonexist", distance=1
    )
    # The same refusal, offering the same few names: the Allies' own units (none is close).
    assert hidden.localized("en").startswith("Unknown unit: cecchino. The closest names: ")
    assert hidden.localized("en") == none.localized("en").replace("nonexist", "cecchino")
    assert "Sniper" not in hidden.localized("en") and "1st Rifle Squad" in hidden.localized("en")
    # Their own side is told it is not the Allies' to move.
    with pytest.raises(RulesError) as own:
        await table(BRUNO, "move", unit="squadra_1", distance=1)
    assert own.value.key != "error.linea_gotica.unknown_unit"


async def test_a_refusal_for_another_reason_reads_the_same_with_a_hidden_unit_named(
    campo: ServiceTable,
) -> None:
    """A hidden unit named in an option the rules read after the phase (``vehicle:``): the
    refusal is the phase's, and its words (the phase's name) are in the reader's language
    whatever was typed (naming the sniper turned them Italian, telling it from none)."""
    table = campo
    answers = []
    for typed in ("cecchino", "nonexist"):
        refused = await table.refused(
            ANNA,
            "move",
            "error.linea_gotica.wrong_phase",
            unit="squadra_1",
            vehicle=typed,
            distance=1,
        )
        answers.append({language: refused.localized(language) for language in ("en", "fr")})
    hidden, none = answers
    assert hidden == none
    assert 'phase "Initiative"' in hidden["en"]


def _sniper_in_sight() -> str:
    """esempio_gotica_campo with its hidden sniper out of the bell tower, in the open
    north-east of the farm, where it sees the Allies' first squad (bundled, the barn stands
    in every line from the tower to them)."""
    scenario = yaml.safe_load(CAMPO.read_text(encoding="utf-8"))
    scenario["battlefield"]["deployment"]["cecchino"] = {"x": 150, "y": 30}
    (sniper,) = [
        unit for side in scenario["sides"] for unit in side["units"] if unit["id"] == "cecchino"
    ]
    del sniper["place"]
    sniper["cover"] = "nessuna"
    return yaml.safe_dump(scenario, allow_unicode=True, sort_keys=False)


#: What would tell of the sniper: its id, name, weapons, its own rolls.
SNIPER_WORDS = ("cecchino", "Cecchino", "k98_zf", "Sniper", "sniper", "osservatore")


async def test_a_hidden_snipers_shot_through_the_service_names_it_to_its_side_alone(
    tmp_path: Path,
) -> None:
    table, store = await _table(tmp_path, "sniper")
    try:
        await _game(table, _sniper_in_sight(), {"tedeschi"})
        await table(ANNA, "turn.next", (3, 8))  # the Germans win the initiative
        await table(BRUNO, "turn.next", order="first")
        for user in (BRUNO, ANNA) * 3:  # covering fire, movement, its observation: passed
            await table(user, "turn.next")
        # Elite fire: the sniper decides to fire, hits, wounds; its observer misses.
        shot = await table(BRUNO, "fire", (5, 5, 5, 5), unit="cecchino", target="squadra_1")
        assert isinstance(shot, PlayReply) and shot.private
        own = reply_text(shot, str)
        assert "The sniper fires" in own and "Wounded" in own
        public = shot.public
        assert public is not None and not public.private
        assert [n.key for n in public.notices] == ["bot.log.hidden_played_on"]
        channel = reply_text(public, str)
        assert "1ª squadra fucilieri" in channel and "[wounded]" in channel
        assert public.map_view is not None
        assert "cecchino" not in {c.unit_id for c in public.map_view.counters}
        said = [channel, public.map_view.caption or ""]
        for user in (ANNA, SPECTATOR):
            seen = await _received(table, user, [])
            said += [json.dumps(value, ensure_ascii=False, default=str) for value in seen.values()]
        for text in said:
            assert not any(word in text for word in SNIPER_WORDS), text
    finally:
        await store.close()


class _SteadyDice(QueuedDice):
    """A die showing the same faces in the same order in every world (5, then 6, then
    5…), so a command played the same way rolls the same."""

    def __init__(self) -> None:
        super().__init__()
        self.rolled = 0

    def face(self, die: Any, label: str) -> int:
        if self.faces:
            return super().face(die, label)
        self.rolled += 1
        return min(die.sides, 5 + self.rolled % 2)


def _places_near_hidden(text: str) -> list[str]:
    """What a command could name near the hidden units of a scenario: their places, their
    coordinates and a point beside each."""
    scenario = yaml.safe_load(text)
    deployment = (scenario.get("battlefield") or {}).get("deployment") or {}
    named: list[str] = []
    for unit in hidden_units(scenario):
        if unit.get("place"):
            named.append(str(unit["place"]))
        at = deployment.get(unit["id"])
        if at:
            named += [f"{at['x']},{at['y']}", f"{at['x'] - 3},{at['y'] - 3}"]
    return named


def _probes(legal: list[Any], near: list[str], hidden_ids: list[str]) -> list[dict[str, Any]]:
    """Commands for the non-owner: its legal actions (a few of each verb and unit), and
    the same naming what is near the hidden units, or the hidden units themselves."""
    probes: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()
    for action in legal:
        options = {k: v for k, v in action.options.items()}
        key = (action.verb, str(options.get("unit")))
        if key in seen or action.verb in ("turn.next", "odds"):
            continue
        seen.add(key)
        probes.append({"verb": action.verb, **options})
        for option, names in (("target", [*near, *hidden_ids]), ("to", near)):
            if option in options:
                probes += [{"verb": action.verb, **options, option: name} for name in names]
    return probes


async def _answers(table: ServiceTable, probes: list[dict[str, Any]]) -> list[Any]:
    """What ANNA is answered for each probe (each one played is undone by the referee)."""
    answers: list[Any] = []
    for probe in probes:
        options = {k: v for k, v in probe.items() if k != "verb"}
        try:
            reply = await table(ANNA, probe["verb"], **options)
        except RulesError as refusal:
            answers.append((refusal.key, dict(refusal.params), refusal.localized("en")))
            continue
        answers.append(("played", _plain(reply_text(reply, str))))
        await table(REFEREE, "game.undo")
    return answers


async def _view(store: SqliteStore, side: str) -> SeatView:
    record = await store.load(CHANNEL)
    return get_ruleset("linea_gotica").rules.view(record.document, Seat(side))


async def _next_phase_of(table: ServiceTable, store: SqliteStore, side: str) -> None:
    """Everyone passes until ``side`` is to act in another phase."""
    phase = (await _view(store, side)).status.phase
    for _ in range(12):
        status = (await _view(store, side)).status
        if status.awaiting == side and status.phase != phase:
            return
        await table(ANNA if status.awaiting == side else BRUNO, "turn.next")
    raise AssertionError(f"{side} is never to act after {phase}")


@pytest.mark.parametrize("path", [path for _, path in hidden_scenarios()], ids=lambda p: p.stem)
async def test_no_refusal_to_the_enemy_tells_a_hidden_unit_from_none(
    tmp_path: Path, path: Path
) -> None:
    """The enemy's commands — its legal ones, and the same naming the places and points
    near the hidden units — in covering fire, movement and fire: every answer is the same
    whether the hidden units are there, elsewhere or nowhere."""
    texts = worlds(path)
    hiding = owners(path)
    near = _places_near_hidden(texts["as_written"])
    hidden_ids = [unit["id"] for unit in hidden_units(yaml.safe_load(texts["as_written"]))]
    answered: dict[str, list[Any]] = {}
    probes: list[list[dict[str, Any]]] = []
    for world, text in texts.items():
        store = await SqliteStore.open(str(tmp_path / f"{world}.db"))
        dice = _SteadyDice()
        table = ServiceTable(GameService(store, dice=dice), dice, CHANNEL)
        try:
            enemy, _ = await _game(table, text, hiding)
            await table(ANNA, "turn.next", (8, 3))  # the enemy of the hidden units chooses
            await table(ANNA, "turn.next", order="first")
            answered[world] = []
            for phase in range(3):  # covering fire, movement, fire (the enemy's turn in each)
                if world == "as_written":
                    legal = (await _view(store, enemy)).legal
                    probes.append(_probes(list(legal), near, hidden_ids))
                answered[world] += await _answers(table, probes[phase])
                await _next_phase_of(table, store, enemy)
        finally:
            await store.close()
    assert sum(map(len, probes)) > 20
    for world in ("removed", "moved"):
        for probe, real, other in zip(
            [p for phase in probes for p in phase],
            answered["as_written"],
            answered[world],
            strict=True,
        ):
            assert other == real, (world, probe)


#: Where manovra's second squad goes, concealed (Occultarsi), in each world; and what the
#: Axis could name near it.
CONCEALED_AT = {"there": "61,27", "elsewhere": "W 1", "further": "toward gruppe_1 3"}
NEAR_SQUAD = ("squadra_2", "61,27", "58,27", "campi_sud")


async def _manovra_probes(table: ServiceTable) -> list[Any]:
    """The Axis's commands naming the concealed squad, the points near it, and its own
    units out of their turn: what it is answered."""
    probes: list[dict[str, Any]] = []
    for unit in ("gruppe_1", "mg_team", "panzer_iv"):
        probes.append({"verb": "move", "unit": unit, "kind": "hold"})
        probes += [{"verb": "fire", "unit": unit, "target": name} for name in NEAR_SQUAD]
        probes.append({"verb": "move", "unit": unit, "kind": "tattico", "to": "61,27"})
    probes.append({"verb": "move", "unit": "squadra_2", "kind": "hold"})
    answers = []
    for probe in probes:
        options = {k: v for k, v in probe.items() if k != "verb"}
        try:
            await table(BRUNO, probe["verb"], **options)
            answers.append(("played", probe))
        except RulesError as refusal:
            answers.append((refusal.key, dict(refusal.params), refusal.localized("en")))
    return answers


async def test_a_concealed_manovra_squad_is_to_the_enemy_the_same_wherever_it_went(
    tmp_path: Path,
) -> None:
    """Manovra hides a unit in play: a squad moving concealed (Occultarsi). Wherever it
    went, the Axis and a spectator receive the same — status, score, picture, log, export,
    names, the answers to commands naming it or the places near it — and none names it."""
    received: dict[str, dict[Any, Any]] = {}
    for world, destination in CONCEALED_AT.items():
        table, store = await _table(tmp_path, world)
        try:
            await concealed_move(table, destination)
            received[world] = {
                user: await _received(table, user, []) for user in (BRUNO, SPECTATOR)
            }
            received[world]["refusals"] = await _manovra_probes(table)
        finally:
            await store.close()
    for world in ("elsewhere", "further"):
        assert received[world] == received["there"], world
    # What it reads now names the squad nowhere (the log and the export keep what was
    # public before it hid: the initiative it rolled).
    now = {
        part: value
        for seen in received["there"].values()
        if isinstance(seen, dict)
        for part, value in seen.items()
        if not part.startswith(("log", "export"))
    }
    told = json.dumps([now, received["there"]["refusals"]], ensure_ascii=False, default=str)
    assert "2ª squadra" not in told and "Unknown unit: squadra_2" in told


def _state_guess(document: Any, status: str, salt: str | None) -> str:
    """A state's hash as anyone can compute it by the documented recipe (docs/storage.md),
    with the record's salt if one knows it."""
    salted = {} if salt is None else {"salt": salt}
    text = canonical_json({"document": document, "status": status, **salted})
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _matches(event: dict[str, Any], guess: str, head_digits: str, salt: str | None) -> bool:
    """Whether a guessed state's hash agrees with what the file and the replies show of an
    event all of whose other fields the reader holds: its state's hash, its own hash (with
    the record's salt if one knows it), the chain head's first digits."""
    if event.get("state_hash", guess) != guess:
        return False
    fields = {**event, "state_hash": guess}
    computed = compute_event_hash(EventRecord.from_json_dict(fields), event["prev_hash"], salt=salt)
    return computed == event["hash"] and computed.startswith(head_digits)


async def test_the_enemy_cannot_test_where_a_hidden_unit_is_against_the_chain(
    tmp_path: Path,
) -> None:
    """The other side knows every field of the state but where the hidden units are, and
    the few places they could be (the scenario's worlds). Hashing each candidate state, the
    real one among them, finds none that agrees with its export or the head under its
    replies; with the record's salt (the referee's export) only the real one agrees."""
    path = CAMPO
    candidates: dict[str, tuple[Any, str]] = {}
    for world, text in worlds(path).items():
        table, store = await _table(tmp_path, world)
        try:
            await _game(table, text, owners(path))
            record = await store.load(CHANNEL)
            candidates[world] = (record.document, record.status)
            if world == "as_written":
                reply = await table(ANNA, "game.export")
                shown = {name: read_file(content).decode() for name, content in reply.files.items()}
                seat = json.loads(shown["arbitro-log.json"])
                referee = await table(REFEREE, "game.export")
                whole = json.loads(read_file(referee.files["arbitro-log.json"]))
                head_digits = (reply.head_hash or "")[:8]
        finally:
            await store.close()
    salt = whole["game"].get("state_salt")
    assert salt is not None and not any(salt in text for text in shown.values())
    head = seat["events"][-1]
    assert "redacted" not in head and head["hash"] == seat["head_hash"]  # all of it public
    assert len({json.dumps(doc, sort_keys=True) for doc, _ in candidates.values()}) == 3
    known = [
        world
        for world, (document, status) in candidates.items()
        if _matches(head, _state_guess(document, status, salt), head_digits, salt)
    ]
    assert known == ["as_written"]
    guessed = [
        world
        for world, (document, status) in candidates.items()
        if _matches(head, _state_guess(document, status, None), head_digits, None)
    ]
    assert guessed == []


def _move_guesses(
    seat_event: dict[str, Any], real: dict[str, Any], salt: str | None
) -> dict[str, str]:
    """The hash of the hidden move event for each destination the enemy may guess: every
    field as its own export shows it, the options the real ones but ``to``, the dice and the
    outcome the real ones (copied from the referee's export: more than the enemy holds)."""
    shown = {k: v for k, v in seat_event.items() if k != "redacted"}
    guesses = {}
    for destination in {*CONCEALED_AT.values(), *NEAR_SQUAD[1:3]}:
        fields = {
            **shown,
            "args": {**real["args"], "to": destination},
            "dice": real["dice"],
            "resolution": real["resolution"],
        }
        event = EventRecord.from_json_dict(fields)
        guesses[destination] = compute_event_hash(event, shown["prev_hash"], salt=salt)
    return guesses


async def test_the_enemy_cannot_test_where_a_hidden_unit_moved_against_its_event(
    tmp_path: Path,
) -> None:
    """The Axis knows every field of the squad's concealed move but its destination, and is
    even given its dice and outcome: hashing the event for each place it could have gone,
    the real one among them, finds none that agrees with the event's hash in its own export
    (the head under its replies); with the record's salt (the referee's export) exactly the
    real one does."""
    table, store = await _table(tmp_path, "there")
    try:
        await concealed_move(table, CONCEALED_AT["there"])
        reply = await table(BRUNO, "game.export")
        shown = {name: read_file(content).decode() for name, content in reply.files.items()}
        seat = json.loads(shown["arbitro-log.json"])
        referee = await table(REFEREE, "game.export")
        whole = json.loads(read_file(referee.files["arbitro-log.json"]))
    finally:
        await store.close()
    salt = whole["game"]["state_salt"]
    assert not any(salt in text for text in shown.values())
    assert seat["game"]["salt_withheld"] is True and verify_links(seat) == seat["head_hash"]
    hidden = seat["events"][-1]
    real = whole["events"][-1]
    assert hidden["redacted"] and hidden["hash"] == real["hash"] == seat["head_hash"]
    assert real["args"]["to"] == CONCEALED_AT["there"] and "to" not in hidden["args"]
    assert (reply.head_hash or "").startswith(hidden["hash"][:8])
    unsalted = _move_guesses(hidden, real, None)
    assert len(set(unsalted.values())) == len(unsalted) >= 4
    assert [place for place, guess in unsalted.items() if guess == hidden["hash"]] == []
    salted = _move_guesses(hidden, real, salt)
    found = [place for place, guess in salted.items() if guess == hidden["hash"]]
    assert found == [CONCEALED_AT["there"]]


class _Ones(QueuedDice):
    """Every die the bot rolls shows 1 (past the faces a test queues)."""

    def face(self, die: Any, label: str) -> int:
        return super().face(die, label) if self.faces else 1


async def _sniper_near_missed(store: SqliteStore) -> tuple[ServiceTable, Any]:
    """gotica_retroguardia, every die a 1: the Allies' covering fire on the bell tower
    near-misses the hidden sniper as it shoots, and it owes a morale test. The table and
    the reply to the shot."""
    dice = _Ones()
    table = ServiceTable(GameService(store, dice=dice), dice, CHANNEL)
    await table(REFEREE, "game.new", scenario="gotica_retroguardia", language="en")
    await table(ANNA, "game.join", side="alleati")
    await table(BRUNO, "game.join", side="tedeschi")
    await table(ANNA, "turn.next", dice="8")  # the Allies win the initiative
    await table(ANNA, "turn.next", order="first")
    cover = {"unit": "sherman", "kind": "copertura", "target": "campanile"}
    await table(ANNA, "fire", weapon="browning_30", **cover)
    for user in (ANNA, BRUNO) * 3:  # covering fire, movement, observation: passed
        await table(user, "turn.next")
    shot = await table(BRUNO, "fire", unit="cecchino", target="squadra_1", weapon="k98_zf")
    return table, shot


async def test_a_hidden_units_owed_morale_is_in_nothing_the_enemy_reads(tmp_path: Path) -> None:
    """gotica_retroguardia: the Allies' covering fire on the bell tower near-misses the
    hidden sniper as it shoots (it stays hidden: a sniper's shot is secret). It now owes a
    morale test: neither the channel's reply to its shot (its buttons), nor the Allies' or
    the channel's /game status (what is owed, the buttons) may name it; its side is told."""
    store = await SqliteStore.open(str(tmp_path / "owed.db"))
    try:
        table, shot = await _sniper_near_missed(store)
        assert isinstance(shot, PlayReply) and shot.private and shot.public is not None
        assert [f.options for f in shot.follow_ups] == [{"unit": "cecchino"}]  # its side's
        said = [reply_text(shot.public, str), repr(shot.public.follow_ups)]
        for user in (ANNA, SPECTATOR):
            status = await table(user, "game.status")
            said += [reply_text(status, str), repr(status.follow_ups), repr(status.owed)]
        for text in said:
            assert not any(word in text for word in SNIPER_WORDS), text
    finally:
        await store.close()


async def test_a_history_commands_reply_shows_the_channel_its_own_status(tmp_path: Path) -> None:
    """The reply to ``/game undo`` (and take-back, rewind, re-roll) is the channel's: its
    status is the one the channel reads in ``/game status``. It was the referee's without
    the hidden units' lines, so its notes named the hidden sniper owing a morale test once
    the referee undid that test (and every side's artillery missions, by a take-back)."""
    store = await SqliteStore.open(str(tmp_path / "undo.db"))
    try:
        table, _ = await _sniper_near_missed(store)
        await table(BRUNO, "morale", unit="cecchino")
        undone = await table(REFEREE, "game.undo")
        assert not undone.private
        said = reply_text(undone, str)
        assert not any(word in said for word in SNIPER_WORDS), said
        channel = await table(SPECTATOR, "game.status")
        assert undone.status == channel.status
        # The morale test is owed again: the referee's view names it.
        record = await store.load(CHANNEL)
        referee = get_ruleset("linea_gotica").rules.view(record.document, REFEREE_SEAT)
        assert any(note.param("unit") == "Cecchino" for note in referee.status.notes)
    finally:
        await store.close()


async def test_dice_typed_for_a_hidden_units_command_are_its_sides_to_read(
    tmp_path: Path,
) -> None:
    """The Germans type one die for the hidden sniper's shot, which waits for one more: the
    prompt asking for it was posted in the channel ("roll a D10 for To hit
    (fucile_precisione)") and the typed dice's record named the sniper in the Allies'
    export. Both are now its side's: the prompt its giver's alone, the record withheld."""
    store = await SqliteStore.open(str(tmp_path / "typed.db"))
    dice = _Ones()
    table = ServiceTable(GameService(store, dice=dice), dice, CHANNEL)
    try:
        await table(REFEREE, "game.new", scenario="gotica_retroguardia", language="en")
        await table(ANNA, "game.join", side="alleati")
        await table(BRUNO, "game.join", side="tedeschi")
        await table(ANNA, "turn.next", dice="8")  # the Allies win the initiative
        await table(ANNA, "turn.next", order="first")
        for user in (ANNA, BRUNO) * 3:  # covering fire, movement, observation: passed
            await table(user, "turn.next")
        shot = {"unit": "cecchino", "target": "squadra_1", "weapon": "k98_zf"}
        asked = await table(BRUNO, "fire", dice="5", **shot)
        assert asked.dice_prompt is not None and asked.private and asked.public is None
        said = [reply_text(await table(user, "game.log", count=50), str) for user in (ANNA,)]
        export = await table(ANNA, "game.export")
        said += [read_file(content).decode() for content in export.files.values()]
        for text in said:
            assert not any(word in text for word in (*SNIPER_WORDS, "precisione")), text
        # Its side reads its record (its export); the shot then runs as any hidden unit's.
        own = await table(BRUNO, "game.export")
        bundle = json.loads(read_file(own.files["arbitro-log.json"]))
        typed = [e["args"] for e in bundle["events"] if e["verb"] == "dice.typed"]
        assert [(args["unit"], args["faces"]) for args in typed] == [("cecchino", "5")]
        fired = asked
        for _ in range(10):  # each die it waits for asked of its giver alone
            assert fired.dice_prompt is not None and fired.private and fired.public is None
            prompt = fired.dice_prompt.prompt_id
            fired = await table(BRUNO, DIE_ANSWER, prompt=prompt, face="3")
            if fired.dice_prompt is None:
                break
        assert isinstance(fired, PlayReply) and fired.private and fired.public is not None
    finally:
        await store.close()


class _Tens(QueuedDice):
    """Every die the bot rolls shows 10 (past the faces a test queues): no observation
    succeeds."""

    def face(self, die: Any, label: str) -> int:
        return super().face(die, label) if self.faces else 10


async def test_observing_an_element_tells_the_enemy_nothing_of_what_hides_there(
    tmp_path: Path,
) -> None:
    """gotica_retroguardia: the Allies observe the bell tower (the hidden sniper, out of
    reach), the roadman's house (the hidden MG) and a wood (nothing). Where a unit hid, the
    reply showed a roll and the distance measured to it, where none did "no enemy spotted"
    alone, and a die typed for it was used only where a unit hid: now every unspotted
    element reads the same, the bot's roll its hidden unit's side's."""
    retroguardia = next(p for _, p in hidden_scenarios() if p.stem == "gotica_retroguardia")
    answered: dict[str, list[Any]] = {}
    for world, text in worlds(retroguardia).items():
        store = await SqliteStore.open(str(tmp_path / f"{world}.db"))
        dice = _Tens()
        table = ServiceTable(GameService(store, dice=dice), dice, CHANNEL)
        try:
            await _game(table, text, owners(retroguardia))
            await table(ANNA, "turn.next", (8, 3))  # the Allies win the initiative
            await table(ANNA, "turn.next", order="first")
            for user in (ANNA, BRUNO) * 2:  # covering fire, movement: passed
                await table(user, "turn.next")
            answered[world] = []
            for place in ("campanile", "cantoniera", "bosco_ovest"):
                observe = {"kind": "osservare", "place": place, "unit": "squadra_1"}
                # A die typed for it is the observer's: the bot rolls at a hidden unit (the
                # die was used where one hid, refused as one too many where none did).
                with pytest.raises(RulesError) as typed:
                    await table(ANNA, "test", dice="9", **observe)
                answered[world].append(typed.value.localized("en"))
                seen = await table(ANNA, "test", **observe)
                answered[world].append(_plain(reply_text(seen, str)))
            own = await table(BRUNO, "game.export")
            answered[world + ":own"] = [read_file(own.files["arbitro-log.json"]).decode()]
        finally:
            await store.close()
    assert answered["as_written"] == answered["removed"] == answered["moved"]
    assert all("no enemy spotted" in text for text in answered["as_written"][1::2])
    # The Germans read the rolls made at their hidden units (an export keeps them).
    assert "observation" in answered["as_written:own"][0]
    assert "observation" not in answered["removed:own"][0]


#: The hidden squad of esempio_gotica_campo that loses its leader, in every language, and
#: the visible one that does too.
HIDDEN_SQUAD = ("mg_casolare", "MG 42 del casolare", "Farmhouse MG 42", "MG 42 de la ferme")
VISIBLE_SQUAD = "squadra_1"
#: The replacement rolls, the units in the order of their ids as the store keeps them (the
#: hidden MG's passes, the visible squad's fails), then the initiative (the Allies win):
#: the hidden squad's die only where it is.
REPLACEMENT_FACES = {"as_written": (1, 10, 8, 3), "removed": (10, 8, 3)}
FAILED = "linea_gotica.action.failed(purpose=rimpiazzo)"
PASSED = "linea_gotica.action.passed(purpose=rimpiazzo)"
WON = "linea_gotica.initiative.won(side=Alleati)"


async def _leaders_killed(store: SqliteStore) -> None:
    """The leaders of the visible Allied squad and of the hidden MG (where it is) dead, as
    a referee's adopted state: the next ``/turn next`` rolls for new ones."""
    record = await store.load(CHANNEL)
    document = json.loads(json.dumps(record.document))
    for unit in (VISIBLE_SQUAD, HIDDEN_SQUAD[0]):
        if unit in document["units"]:
            document["units"][unit]["figures"][0]["dead"] = True
    event = NewEvent(VERB_REPLAYED, actor_id=REFEREE)
    await store.commit(CHANNEL, record.version, document, event)


def _codes(reply: Any) -> list[str]:
    return [resolution.outcome.code for resolution in reply.resolutions]


def _told(*texts: Any) -> str:
    return json.dumps(texts, ensure_ascii=False, default=str)


async def _page_log(store: SqliteStore, reader: Seat) -> list[tuple[str, tuple[str, ...]]]:
    """The lines and dice (each resolution told) of the game's web page, as ``reader``
    reads them."""
    events = await store.events(CHANNEL, after_seq=0, limit=50)
    sides = {"alleati": "Allies", "tedeschi": "Germans"}
    entries = pages._log_entries(events, "linea_gotica", "en", sides, reader, {})
    return [(_plain(entry.line), tuple(map(str, entry.dice))) for entry in entries]


async def test_a_hidden_squads_new_leader_is_in_nothing_the_enemy_reads(tmp_path: Path) -> None:
    """The enemy's ``/turn next`` rolls the hidden MG's new leader: its reply, log, page and
    export are the same as in the world without the hidden units (where only the visible
    squad rolls), and name the MG nowhere; the visible squad's roll is everyone's."""
    received: dict[str, dict[str, Any]] = {}
    for world, text in worlds(CAMPO).items():
        if world not in REPLACEMENT_FACES:
            continue
        table, store = await _table(tmp_path, world)
        try:
            await _game(table, text, {"tedeschi"})
            await _leaders_killed(store)
            reply = await table(ANNA, "turn.next", REPLACEMENT_FACES[world])
            assert isinstance(reply, PlayReply) and not reply.private and reply.public is None
            assert _codes(reply) == [FAILED, WON]
            seen: dict[str, Any] = {"reply": _plain(reply_text(reply, str))}
            for user in (ANNA, SPECTATOR):
                seen.update(
                    {f"{user}:{k}": v for k, v in (await _received(table, user, [])).items()}
                )
            for seat in (Seat("alleati"), SPECTATOR_SEAT):
                seen[f"page:{seat}"] = await _page_log(store, seat)
            received[world] = seen
            if world == "as_written":  # the owner and the referee read the MG's roll
                for user in (BRUNO, REFEREE):
                    export = await table(user, "game.export")
                    bundle = json.loads(read_file(export.files["arbitro-log.json"]))
                    rolled = bundle["events"][-1]
                    codes = [r["outcome_code"] for r in rolled["resolution"]]
                    assert codes == [PASSED, FAILED, WON], user
                    assert [d.get("secret_for") for d in rolled["dice"]] == [
                        "tedeschi",
                        *[None] * 3,
                    ]
                    report = read_file(export.files["arbitro-report.md"]).decode()
                    assert "Success (new squad leader)" in report, user
                for seat in (Seat("tedeschi"), REFEREE_SEAT):
                    (line, dice), *_ = reversed(await _page_log(store, seat))
                    assert "Success (new squad leader)" in line + " ".join(dice), seat
                # /game log is the channel's: the owner reads its own there no more than in
                # the channel's reply.
                log = "\n".join((await table(BRUNO, "game.log", count=50)).lines)
                assert "Success (new squad leader)" not in log
        finally:
            await store.close()
    for part, value in received["as_written"].items():
        assert received["removed"][part] == value, part
    told = _told(received["as_written"])
    assert not any(word in told for word in HIDDEN_SQUAD)
    assert "takes command" not in told and "Failure (new squad leader)" in told


@pytest.mark.parametrize("asker", [BRUNO, REFEREE], ids=["owner", "referee"])
async def test_the_hidden_squads_new_leader_is_told_to_its_side_alone(
    tmp_path: Path, asker: int
) -> None:
    """The owner (or the referee) typing ``/turn next``: the whole reply is theirs alone,
    the hidden squad's roll and notice with it; the channel is shown the rest."""
    table, store = await _table(tmp_path, "owner")
    try:
        await _game(table, worlds(CAMPO)["as_written"], {"tedeschi"})
        await _leaders_killed(store)
        reply = await table(asker, "turn.next", REPLACEMENT_FACES["as_written"])
    finally:
        await store.close()
    assert isinstance(reply, PlayReply) and reply.private
    assert _codes(reply) == [PASSED, FAILED, WON]
    own = reply_text(reply, str)
    assert "Farmhouse MG 42: soldier 2 takes command" in own
    assert reply.notices[-1].key == "bot.log.kept_private"
    public = reply.public
    assert isinstance(public, PlayReply) and not public.private
    assert _codes(public) == [FAILED, WON] and public.follow_ups and public.ping == [ANNA]
    channel = reply_text(public, str)
    assert not any(word in channel for word in HIDDEN_SQUAD) and "kept" not in channel


async def test_a_reroll_of_a_hidden_squads_new_leader_keeps_it_its_sides(tmp_path: Path) -> None:
    """Anna types her dice for the initiative's ``/turn next`` (the MG's and the Germans'
    are the bot's), Bruno disputes them, the referee rolls again: the re-run's reply is the
    referee's, the channel is shown the rest, and the enemy's export of the re-roll holds
    neither the MG's roll nor its die."""
    table, store = await _table(tmp_path, "reroll")
    try:
        await _game(table, worlds(CAMPO)["as_written"], {"tedeschi"})
        await _leaders_killed(store)
        typed = await table(ANNA, "turn.next", (1, 3), dice="10,8")
        assert isinstance(typed, PlayReply) and _codes(typed) == [FAILED, WON]
        await table(BRUNO, "dice.dispute", seq=typed.seq)
        reply = await table(REFEREE, "dice.reroll", REPLACEMENT_FACES["as_written"], seq=typed.seq)
        assert isinstance(reply, PlayReply) and reply.private
        assert _codes(reply) == [PASSED, FAILED, WON]
        assert isinstance(reply.public, PlayReply) and _codes(reply.public) == [FAILED, WON]
        export = await table(ANNA, "game.export")
        files = {name: read_file(content).decode() for name, content in export.files.items()}
        rerolled = json.loads(files["arbitro-log.json"])["events"][-1]
        assert rerolled["verb"] == "dice.reroll" and "redacted" not in rerolled
        assert [r["outcome_code"] for r in rerolled["resolution"]] == [FAILED, WON]
        assert len(rerolled["dice"]) == 3 and "secret_for" not in json.dumps(rerolled)
        assert not any(word in _told(files, reply_text(reply.public, str)) for word in HIDDEN_SQUAD)
    finally:
        await store.close()


async def test_a_retried_next_turn_answers_what_the_channel_may_read(tmp_path: Path) -> None:
    """The owner's ``/turn next`` retried (the same interaction): the answer its event
    recorded may go to the channel, so it holds the visible squad's roll and the initiative,
    not the hidden MG's roll (the owner reads it on its page and in its export)."""
    table, store = await _table(tmp_path, "retried")
    try:
        await _game(table, worlds(CAMPO)["as_written"], {"tedeschi"})
        await _leaders_killed(store)
        first = await table(BRUNO, "turn.next", REPLACEMENT_FACES["as_written"], interaction="x")
        assert _codes(first) == [PASSED, FAILED, WON]
        again = await table(BRUNO, "turn.next", interaction="x")
        assert isinstance(again, PlayReply) and again.duplicate
        assert _codes(again) == [FAILED, WON]
    finally:
        await store.close()


async def test_the_owners_typed_dice_never_go_to_the_hidden_squads_new_leader(
    tmp_path: Path,
) -> None:
    """Bruno types his initiative die for ``/turn next``: the hidden MG's roll is the bot's,
    as in the world without it, so his typed face goes to the initiative and nothing waits
    for another die (a prompt every seat reads would tell of a roll it cannot see)."""
    for world in ("as_written", "removed"):
        table, store = await _table(tmp_path, f"typed-{world}")
        try:
            await _game(table, worlds(CAMPO)[world], {"tedeschi"})
            await _leaders_killed(store)
            # The bot's dice: the MG's roll where it is, the visible squad's, the Allies'
            # initiative; Bruno's typed 3 is the Germans' initiative die.
            bot = REPLACEMENT_FACES[world][:-1]
            reply = await table(BRUNO, "turn.next", bot, dice="3")
            assert isinstance(reply, PlayReply) and reply.dice_prompt is None, world
            codes = [PASSED, FAILED, WON] if world == "as_written" else [FAILED, WON]
            assert _codes(reply) == codes, world
            export = await table(ANNA, "game.export")
            rolled = json.loads(read_file(export.files["arbitro-log.json"]))["events"][-1]
            typed = [d["face"] for d in rolled["dice"] if d.get("by_hand")]
            assert typed == [3], world
        finally:
            await store.close()
