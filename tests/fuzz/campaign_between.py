"""The campaign fuzzer's actions between games: rows of its table of actions
(tests/fuzz/campaign.py :data:`ACTIONS`) for the post-battle sequence (``/campaign
aftermath``, each side's part by its player — the bot's dice or typed — or by the referee,
``/campaign dispute`` of a typed part by another side or the referee, ``/campaign confirm``
by a side's player or the referee once every side rolled), the referee's ``/campaign
adjust``, ``/campaign roster`` (shown; set from a roster file the fuzzer writes, between
games), ``/campaign export`` and the calendar (``/campaign overdue`` once a game's date has
passed on the fuzzer's clock).

Each checks what its reply promises against the fuzzer's own reading of the rules (the
typed dice are the ones the aftermath logs, in roster order, each die's band as the rules
file has it); the invariants after every step do the rest.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import TYPE_CHECKING, Any

import yaml

from bot.render.campaign_report import with_report
from bot.service import Reply, TextReply
from bot.service.export import discard
from bot.service.replies import CampaignReply
from rules.campaign.aftermath_fold import taken_back
from rules.campaign.events import CampaignAftermath, CampaignGame, CampaignReversal
from rules.campaign.muster import fielding
from rules.campaign.roster import Status, rosters_hash
from rules.campaign.rules import CampaignRules, FateTable, campaign_rules
from rules.campaign.state import CampaignState, apply, replay
from rules.campaign.text import book_lines, due_lines, page_lines
from rules.core.errors import RulesError
from rules.core.ruleset import get_ruleset
from tests.fuzz.campaign_checks import standing_lines
from tests.fuzz.harness import OUTSIDER, bundled_games

if TYPE_CHECKING:
    from tests.fuzz.campaign import CampaignFuzzer

#: The campaign's referee, the channel where no campaign is, the players who may join.
REFEREE = 1
ELSEWHERE = 6999
PLAYERS = tuple(range(10, 16))
#: Who starts games of their own in the campaign's game channels.
STRANGER = 50
#: Share of aftermaths whose dice a player types by hand.
TYPED_AFTERMATH = 0.4
#: The referee's decisions on a game past its date, taken in turn.
OVERDUE_DECISIONS = ("forfeit", "extend", "draw")


# -- what the campaign owes between games ----------------------------------------------------


def rules_of(fuzzer: CampaignFuzzer) -> CampaignRules:
    rules = campaign_rules(fuzzer.ruleset)
    assert rules is not None, fuzzer.ruleset
    return rules


def to_roll(state: CampaignState) -> list[int]:
    """Games whose result is in and whose post-battle sequence some side has still to roll
    (none once the campaign is over: nothing more is logged)."""
    if not state.rosters or state.ended:
        return []
    return [
        entry.number
        for entry in state.games
        if entry.result is not None
        and (
            entry.number not in state.aftermaths
            or state.aftermaths[entry.number].unrolled(state.sides)
        )
    ]


def sides_to_roll(state: CampaignState, number: int) -> list[str]:
    """The sides whose part of game ``number``'s aftermath is still to roll."""
    record = state.aftermaths.get(number)
    return list(state.sides) if record is None else record.unrolled(state.sides)


def unsettled(state: CampaignState) -> list[int]:
    """Games whose aftermath every side rolled, not confirmed by every side nor validated."""
    if state.ended:
        return []
    return [
        number
        for number, record in sorted(state.aftermaths.items())
        if not record.unrolled(state.sides) and not record.settled(list(state.sides))
    ]


def end_key(state: CampaignState) -> str:
    """The refusal ``/campaign end`` meets for the first game whose aftermath is rolled in
    part (a side still to roll) or awaits a confirmation."""
    sides = list(state.sides)
    for number in sorted(state.aftermaths):
        record = state.aftermaths[number]
        if not record.settled(sides):
            return "aftermath_unrolled" if record.unrolled(state.sides) else "aftermath_unconfirmed"
    return "aftermath_unconfirmed"


def owed_key(state: CampaignState) -> str:
    """The refusal a new game meets for the first game that owes its aftermath."""
    number = min([*to_roll(state), *unsettled(state)])
    record = state.aftermaths.get(number)
    if record is None:
        return "aftermath_owed"
    return "aftermath_unrolled" if record.unrolled(state.sides) else "aftermath_unconfirmed"


def disputable(state: CampaignState) -> list[tuple[int, str]]:
    """(game, side) for each typed part another side may still dispute."""
    if state.ended:
        return []
    return [
        (number, side)
        for number, record in sorted(state.aftermaths.items())
        if not record.settled(list(state.sides))
        for side in record.typed
    ]


def owes(state: CampaignState) -> bool:
    """Whether a game's aftermath is still owed (the next game must wait)."""
    return bool(to_roll(state) or unsettled(state))


def reopenable(state: CampaignState, number: int) -> bool:
    """Whether undoing game ``number``'s end may reopen it: its result is held and nothing
    was built on it (no aftermath rolled on it, its losses can still be taken back: no
    roster set or corrected over them). Else the undo is refused (`built_on`)."""
    entry = state.game(number)
    if entry is None or entry.result is None or number in state.aftermaths:
        return False
    try:
        apply(state, CampaignReversal(number=number, final_hash=entry.result.final_hash))
    except RulesError:
        return False
    return True


def built_on(state: CampaignState, number: int) -> bool:
    """Whether the campaign has built on game ``number``'s result: its end stands."""
    entry = state.game(number)
    return entry is not None and entry.result is not None and not reopenable(state, number)


# -- linking a game, and the views -------------------------------------------------------------


def fielding_scenarios(fuzzer: CampaignFuzzer, number: int) -> list[str]:
    """The scenarios in which every side would field a unit from its roster in game
    ``number`` (another is refused: its dead and recovering units, and those another game
    in play holds, leave a side nothing)."""
    assert fuzzer.rules is not None and fuzzer.state is not None
    muster = get_ruleset(fuzzer.ruleset).muster
    scenarios = fuzzer.rules.scenarios()
    if muster is None:
        return scenarios
    rosters, held = fuzzer.state.rosters, holding(fuzzer)
    return [
        scenario
        for scenario in scenarios
        if all(fielding(muster.units(scenario), rosters, number, frozenset(), held).values())
    ]


def holding(fuzzer: CampaignFuzzer) -> dict[str, dict[str, int]]:
    """The roster entries the games still holding them fielded, as the fuzzer read them
    from each game's document when it was linked: side -> unit -> game. A game holds them
    until its result is in and its aftermath settled."""
    assert fuzzer.state is not None
    state = fuzzer.state
    held: dict[str, dict[str, int]] = {}
    for entry in state.games:
        record = state.aftermaths.get(entry.number)
        if entry.result is not None and record is not None and record.settled(list(state.sides)):
            continue
        for side, units in fuzzer.fielded.get(entry.number, {}).items():
            held.setdefault(side, {}).update(dict.fromkeys(units, entry.number))
    return held


#: Share of links that leave units behind, and of those that leave about half of each
#: side's units (so that another game can be played beside it, with the others).
LEAVING = 0.45
LEAVING_HALF = 0.6


def leavable(fuzzer: CampaignFuzzer, scenario: str, number: int) -> str | None:
    """Now and then units to leave behind (``leave:``): one of a side that would still field
    another unit of the scenario, or about half of each side's (at least one fielded)."""
    if fuzzer.rng.random() >= LEAVING:
        return None
    assert fuzzer.rules is not None and fuzzer.state is not None
    play = fuzzer.rules
    pieces = play.victory.battle(play.game.new_game(play.scenario.load_bundled(scenario))).pieces
    held = holding(fuzzer)
    halves: list[str] = []
    candidates: list[str] = []
    for side in fuzzer.sides:
        ids = [piece.id for piece in pieces if piece.side == side]
        roster = fuzzer.state.rosters.get(side)
        if roster is not None:
            ids = [e.id for e in roster.entries if e.id in ids and e.available(number)]
        ids = [unit for unit in ids if unit not in held.get(side, {})]
        if len(ids) >= 2:
            candidates += ids
            halves += fuzzer.rng.sample(ids, len(ids) // 2)
    if not candidates:
        return None
    if fuzzer.rng.random() < LEAVING_HALF:
        return ",".join(halves)
    return fuzzer.rng.choice(candidates)


async def check_mustered(
    fuzzer: CampaignFuzzer,
    channel: int,
    number: int,
    left: str | None,
    holding_before: dict[str, dict[str, int]],
) -> None:
    """The linked game's first event and the campaign's ``campaign.game`` carry the hash
    of the rosters as they stood when it was linked; a unit left behind is not fielded;
    the roster entries it fields are noted (no other game may field them while it holds
    them: `campaign_checks.held_twice`)."""
    events = await fuzzer.campaign_events()
    at = max(i for i, e in enumerate(events) if isinstance(e, CampaignGame) and e.number == number)
    linked = events[at]
    assert isinstance(linked, CampaignGame)
    first = (await fuzzer.store.events(channel, after_seq=0, limit=1))[0]
    origin = first.args.get("campaign", {})
    expected = rosters_hash(replay(events[:at]).rosters)
    if not (origin.get("rosters_hash") == linked.rosters_hash == expected):
        fuzzer.fail(
            f"game {number}'s rosters hash: its first event {origin.get('rosters_hash')}, "
            f"the campaign's event {linked.rosters_hash}, the rosters then {expected}"
        )
    assert fuzzer.rules is not None and fuzzer.state is not None
    document = (await fuzzer.store.load(channel)).document
    pieces = fuzzer.rules.battle(document).pieces
    if left is not None:
        fielded = {p.id for p in pieces}
        chosen = tuple(left.split(","))
        if fielded & set(chosen) or linked.left != chosen:
            fuzzer.fail(f"game {number} left {linked.left}, fields {sorted(fielded)}: {left}?")
    # The roster entries it fields, read from its document: what it holds (`holding`).
    rosters = replay(events[: at + 1]).rosters
    entries: dict[str, set[str]] = {}
    for piece in pieces:
        roster = rosters.get(piece.side)
        if roster is not None and roster.entry(piece.id) is not None:
            entries.setdefault(piece.side, set()).add(piece.id)
    fuzzer.fielded[number] = entries
    if any(holding_before.values()):
        fuzzer.run.actions["link beside a game holding units"] += 1


async def view(fuzzer: CampaignFuzzer) -> None:
    """``/campaign status`` or ``/campaign log`` by anyone: lines as the state has them."""
    rng, state = fuzzer.rng, fuzzer.state
    assert state is not None
    user = rng.choice([REFEREE, *fuzzer.players, OUTSIDER])
    if rng.random() < 0.5:
        count = rng.randint(1, 50)
        reply = await fuzzer.send(fuzzer.channel, user, "campaign.log", {"count": count})
        version = (await fuzzer.store.load(fuzzer.channel)).version
        expected = min(count, version)
    elif rng.random() < 0.8:
        reply = await fuzzer.send(fuzzer.channel, user, "campaign.status", {})
        # title, over?, a line per side, games, a line per game (or none yet), standings,
        # a line per side
        sides = len(state.sides)
        expected = 1 + int(state.ended) + sides + 1 + max(1, len(state.games)) + 1 + sides
        # a line per game that owes its aftermath, and one per typed part that may be
        # disputed; the dates and the book's map as the service words them
        owed = set(to_roll(state)) | set(unsettled(state))
        language = (await fuzzer.store.load(fuzzer.channel)).language
        expected += len(owed) + len(disputable(state)) + len(due_lines(state, language))
        expected += len(book_lines(state, language))
        lines = shown_lines(reply)
        if lines is not None:
            shown = lines[-sides:]
            if shown != standing_lines(state, fuzzer.expected, language):
                fuzzer.fail(f"/campaign status shows {shown}, recounted {fuzzer.expected}")
    else:  # elsewhere: the server's campaigns, this one among them
        reply = await fuzzer.send(ELSEWHERE, user, "campaign.status", {})
        expected = 2
    lines = shown_lines(reply)
    if lines is None or len(lines) != expected:
        fuzzer.fail(f"a view of {expected} lines expected: {lines or reply}")


def shown_lines(reply: Reply) -> list[str] | None:
    """The lines a campaign's view shows: a text reply's, or a campaign page rendered in
    the reply's language as the front ends render it (None for any other reply)."""
    if isinstance(reply, CampaignReply):
        return page_lines(reply.page, reply.language)
    return reply.lines if isinstance(reply, TextReply) else None


# -- games of people's own where a linked game ended -------------------------------------------


def can_start_unlinked(fuzzer: CampaignFuzzer) -> bool:
    return any(lane.over for lane in fuzzer.lanes.values())


async def start_unlinked(fuzzer: CampaignFuzzer) -> None:
    """Someone starts a game of their own (``/game new``, any ruleset) where a linked game
    has ended: the linked game is archived with the result the campaign holds, and nothing
    the new game does reaches the campaign (ended at once, now and then)."""
    lane = fuzzer.rng.choice([lane for lane in fuzzer.lanes.values() if lane.over])
    ruleset, scenario = fuzzer.rng.choice(bundled_games())
    options = {"ruleset": ruleset, "scenario": scenario, "language": "en"}
    if await fuzzer.send(lane.channel, STRANGER, "game.new", options) is None:
        return
    fuzzer.where[lane.number] = (lane.channel, True)
    del fuzzer.lanes[lane.channel]
    fuzzer.strangers[lane.channel] = False
    if fuzzer.rng.random() < 0.5:
        await end_unlinked(fuzzer, lane.channel)


def can_end_unlinked(fuzzer: CampaignFuzzer) -> bool:
    return not all(fuzzer.strangers.values())


async def end_unlinked(fuzzer: CampaignFuzzer, channel: int | None = None) -> None:
    """The unlinked game's referee (its creator) ends it."""
    if channel is None:
        channel = fuzzer.rng.choice([c for c, over in fuzzer.strangers.items() if not over])
    if await fuzzer.send(channel, STRANGER, "game.end", {}) is not None:
        fuzzer.strangers[channel] = True


# -- the post-battle sequence ----------------------------------------------------------------


def _band(table: FateTable, face: int) -> str:
    """The fate of ``face`` on ``table``, read from the rules file's bands."""
    return next(band.fate for band in table.bands if band.low <= face <= band.high)


def typed_faces(fuzzer: CampaignFuzzer, state: CampaignState, side: str) -> list[int]:
    """Random faces for every die ``side``'s part of the sequence rolls, in its order: entry
    by entry in roster order (the dead skip it), a destroyed unit's die first (dead: no
    more), then a die per casualty."""
    rules, rng = rules_of(fuzzer), fuzzer.rng
    faces: list[int] = []
    roster = state.rosters.get(side)
    if roster is not None:
        for entry in roster.entries:
            if entry.status is Status.DEAD:
                continue
            if entry.strength == 0 and entry.casualties > 0:
                face = rng.randint(1, rules.destroyed.die)
                faces.append(face)
                if _band(rules.destroyed, face) == "dead":
                    continue
            faces += [rng.randint(1, rules.casualties.die) for _ in range(entry.casualties)]
    return faces


def can_roll(fuzzer: CampaignFuzzer) -> bool:
    return not fuzzer.ended and bool(fuzzer.state and to_roll(fuzzer.state))


def _roller(fuzzer: CampaignFuzzer, state: CampaignState, number: int) -> tuple[int, str | None]:
    """Who rolls a part of game ``number``'s aftermath, and which side's (None: the
    referee's roll of every side still to roll): a seated player their own side still to
    roll, or the referee any."""
    owing = sides_to_roll(state, number)
    seats = [(seat, side) for side in owing if (seat := fuzzer.seat_of(side)) is not None]
    if seats and fuzzer.rng.random() < 0.7:
        return fuzzer.rng.choice(seats)
    return REFEREE, fuzzer.rng.choice([*owing, None])


async def roll_aftermath(fuzzer: CampaignFuzzer) -> None:
    """``/campaign aftermath game:`` by a side's player (their side) or the referee (a side,
    or every side still to roll): the bot's dice, or a side's dice typed by hand; the
    event logged holds that side's part only, the faces typed, in order, each in the band
    the rules give it, and the reply shows the sequence."""
    state = fuzzer.state
    assert state is not None
    number = fuzzer.rng.choice(to_roll(state))
    user, side = _roller(fuzzer, state, number)
    typing = side is not None and fuzzer.rng.random() < TYPED_AFTERMATH
    faces = typed_faces(fuzzer, state, side) if typing and side is not None else None
    fuzzer.run.actions["aftermath typed" if faces is not None else "aftermath bot dice"] += 1
    dice = None if faces is None else ",".join(map(str, faces))
    if faces == []:  # nothing to roll: typed dice are refused, the bot's roll none
        dice = None
    options: dict[str, Any] = {"game": number}
    if side is not None and (user == REFEREE or fuzzer.rng.random() < 0.5):
        options["side"] = side
    reply = await fuzzer.send(fuzzer.channel, user, "campaign.aftermath", options, dice)
    if reply is None:
        return
    event = (await fuzzer.campaign_events())[-1]
    if not isinstance(event, CampaignAftermath) or event.number != number:
        fuzzer.fail(f"/campaign aftermath game:{number} logged {event.type}")
        return
    owing = sides_to_roll(state, number)
    if event.side != side or not set(event.sides) <= set(owing if side is None else [side]):
        fuzzer.fail(f"{side}'s part of game {number} logged sides {sorted(event.sides)}")
    rolled = _faces_checked(fuzzer, event)
    # Every entry that rolls changes (its casualties settle to 0): the event holds every die.
    if dice is not None and (rolled != faces or not event.by_hand):
        fuzzer.fail(f"typed {faces}, the aftermath logs {rolled} (by hand {event.by_hand})")
    if not shown_lines(reply):
        fuzzer.fail(f"/campaign aftermath answered {reply}")


def _faces_checked(fuzzer: CampaignFuzzer, event: CampaignAftermath) -> list[int]:
    """The faces an aftermath event logs, in order, each checked in its rules' band."""
    rules = rules_of(fuzzer)
    rolled: list[int] = []
    for changes in event.sides.values():
        for change in changes:
            if change.destroyed is not None:
                rolled.append(change.destroyed.face)
                if change.destroyed.fate != _band(rules.destroyed, change.destroyed.face):
                    fuzzer.fail(f"{change.unit}: destroyed die in the wrong band: {change}")
            for roll in change.fates:
                rolled.append(roll.face)
                if roll.fate != _band(rules.casualties, roll.face):
                    fuzzer.fail(f"{change.unit}: casualty die in the wrong band: {change}")
    return rolled


def _disputers(fuzzer: CampaignFuzzer, state: CampaignState) -> list[tuple[int, str, int]]:
    """(game, typed side, who may dispute it): a seated player of another side that has
    not confirmed, or the referee."""
    found: list[tuple[int, str, int]] = []
    for number, side in disputable(state):
        found.append((number, side, REFEREE))
        for other in state.sides:
            seat = fuzzer.seat_of(other)
            confirmed = state.aftermaths[number].confirmed
            if other != side and other not in confirmed and seat is not None and seat != REFEREE:
                found.append((number, side, seat))
    return found


def can_dispute(fuzzer: CampaignFuzzer) -> bool:
    return not fuzzer.ended and bool(fuzzer.state and _disputers(fuzzer, fuzzer.state))


async def dispute(fuzzer: CampaignFuzzer) -> None:
    """``/campaign dispute game: side:`` of a typed part, by another side's player or the
    referee: the bot rolls that part again, logged as a new event that replaces it; every
    side confirms anew."""
    state = fuzzer.state
    assert state is not None
    number, side, user = fuzzer.rng.choice(_disputers(fuzzer, state))
    options = {"game": number, "side": side if fuzzer.rng.random() < 0.5 else state.sides[side]}
    try:
        taken_back(state.aftermaths[number], side, state.rosters, number)
    except RulesError:  # an entry of the part was adjusted since: it cannot be taken back
        key = "error.campaign.aftermath_changed"
        await fuzzer.expect_refused(fuzzer.channel, user, "campaign.dispute", options, key)
        return
    if await fuzzer.send(fuzzer.channel, user, "campaign.dispute", options) is None:
        return
    event = (await fuzzer.campaign_events())[-1]
    if not (isinstance(event, CampaignAftermath) and event.disputed and event.side == side):
        fuzzer.fail(f"/campaign dispute game:{number} side:{side} logged {event}")
        return
    _faces_checked(fuzzer, event)
    record = (await fuzzer.read_state()).aftermaths[number]
    if event.by_hand or side in record.typed or record.confirmed:
        fuzzer.fail(f"game {number}'s {side} part disputed: the record holds {record}")


def _can_confirm(fuzzer: CampaignFuzzer) -> bool:
    return not fuzzer.ended and bool(fuzzer.state and unsettled(fuzzer.state))


def can_confirm_as_player(fuzzer: CampaignFuzzer) -> bool:
    if not _can_confirm(fuzzer):
        return False
    state = fuzzer.state
    assert state is not None
    return any(
        side not in state.aftermaths[number].confirmed and fuzzer.seat_of(side) is not None
        for number in unsettled(state)
        for side in state.sides
    )


async def confirm_as_player(fuzzer: CampaignFuzzer) -> None:
    """A side's player confirms a rolled aftermath for their side."""
    state = fuzzer.state
    assert state is not None
    waiting = [
        (number, seat)
        for number in unsettled(state)
        for side in state.sides
        if side not in state.aftermaths[number].confirmed
        and (seat := fuzzer.seat_of(side)) is not None
    ]
    number, seat = fuzzer.rng.choice(waiting)
    await fuzzer.send(fuzzer.channel, seat, "campaign.confirm", {"game": number})


async def confirm_as_referee(fuzzer: CampaignFuzzer) -> None:
    """The referee validates a rolled aftermath for every side: it is settled."""
    state = fuzzer.state
    assert state is not None
    number = fuzzer.rng.choice(unsettled(state))
    if await fuzzer.send(fuzzer.channel, REFEREE, "campaign.confirm", {"game": number}):
        after = await fuzzer.read_state()
        if not after.aftermaths[number].settled(list(after.sides)):
            fuzzer.fail(f"the referee validated game {number}'s aftermath: not settled")


can_confirm_as_referee = _can_confirm


# -- the referee's corrections and the rosters -----------------------------------------------


def can_adjust(fuzzer: CampaignFuzzer) -> bool:
    return not fuzzer.ended and bool(fuzzer.state and fuzzer.state.rosters)


async def adjust(fuzzer: CampaignFuzzer) -> None:
    """``/campaign adjust``: one field of one entry, a value the roster allows."""
    state, rng = fuzzer.state, fuzzer.rng
    assert state is not None
    side = rng.choice(list(state.rosters))
    entry = rng.choice(state.rosters[side].entries)
    ranks = [rung.rank for rung in rules_of(fuzzer).promotion] or ["-"]
    lowest_full = max(1, entry.strength + entry.casualties)
    choices: list[tuple[str, str]] = [
        ("experience", str(rng.randint(0, 20))),
        ("rank", rng.choice([*ranks, "-"])),
        # Standing and lost never exceed full (the adjustment refuses it otherwise).
        ("full", str(rng.randint(lowest_full, lowest_full + 3))),
    ]
    if entry.status is not Status.DEAD:
        choices.append(("strength", str(rng.randint(0, entry.full - entry.casualties))))
    # An adjustment that changes nothing is refused (the log keeps corrections only).
    current = {
        "experience": str(entry.experience),
        "rank": entry.rank or "-",
        "full": str(entry.full),
        "strength": str(entry.strength),
    }
    choices = [(field, value) for field, value in choices if current.get(field) != value]
    if not choices:
        return
    field, value = rng.choice(choices)
    options = {
        "side": side if rng.random() < 0.5 else state.sides[side],
        "unit": entry.id,
        "field": field,
        "value": value,
        "reason": "fuzz correction",
    }
    await fuzzer.send(fuzzer.channel, REFEREE, "campaign.adjust", options)


async def show_roster(fuzzer: CampaignFuzzer) -> None:
    """``/campaign roster side:`` by anyone: a title, then a line per entry at least."""
    state = fuzzer.state
    assert state is not None
    side = fuzzer.rng.choice(list(state.sides))
    user = fuzzer.rng.choice([REFEREE, *fuzzer.players, OUTSIDER])
    reply = await fuzzer.send(fuzzer.channel, user, "campaign.roster", {"side": side})
    roster = state.rosters.get(side)
    least = 1 if roster is None else 1 + len(roster.entries)
    lines = shown_lines(reply)
    if lines is None or len(lines) < least:
        fuzzer.fail(f"/campaign roster side:{side} shows {lines or reply}")


def can_set_roster(fuzzer: CampaignFuzzer) -> bool:
    state = fuzzer.state
    return (
        not fuzzer.ended
        and state is not None
        and bool(state.rosters)
        and all(entry.result is not None for entry in state.games)
    )


def roster_file(fuzzer: CampaignFuzzer, side: str) -> str:
    """A roster file for ``side``: its entries, the living at a random strength and
    experience (reinforced or worn between games), the dead kept dead."""
    state, rng = fuzzer.state, fuzzer.rng
    assert state is not None
    entries: list[dict[str, Any]] = []
    for entry in state.rosters[side].entries:
        # A file's name is plain text (a roster's name may carry its other languages).
        written: dict[str, Any] = {"id": entry.id, "name": str(entry.name), "full": entry.full}
        if entry.status is Status.DEAD:
            written |= {"strength": 0, "status": "dead"}
        else:
            written |= {
                "strength": rng.randint(1, entry.full),
                "experience": rng.randint(0, 10),
            }
        entries.append(written)
    return yaml.safe_dump({"side": side, "entries": entries}, allow_unicode=True)


async def set_roster(fuzzer: CampaignFuzzer) -> None:
    """``/campaign roster file:`` between games, by the referee (the rosters exist once a
    game was linked: a player's file is refused then, `campaign_refusals`): the roster is
    the file's."""
    state = fuzzer.state
    assert state is not None
    side = fuzzer.rng.choice(list(state.rosters))
    user = REFEREE
    text = roster_file(fuzzer, side)
    sent = await fuzzer.send(fuzzer.channel, user, "campaign.roster", {}, attachment=text)
    if sent is None:
        return
    after = await fuzzer.read_state()
    written = yaml.safe_load(text)["entries"]
    held = [(e.id, e.strength, e.status.value) for e in after.rosters[side].entries]
    wanted = [(e["id"], e["strength"], e.get("status", "fit")) for e in written]
    if held != wanted:
        fuzzer.fail(f"roster of {side} set from a file: holds {held}, the file {wanted}")


async def export(fuzzer: CampaignFuzzer) -> None:
    """``/campaign export`` by anyone: the report and the log, the log whole."""
    user = fuzzer.rng.choice([REFEREE, *fuzzer.players, OUTSIDER])
    reply = await fuzzer.send(fuzzer.channel, user, "campaign.export", {})
    if reply is None:
        return
    record = await fuzzer.store.load(fuzzer.channel)
    written = await with_report(reply)  # the report is data the front ends write
    files = getattr(written, "files", {})
    discard(getattr(written, "spool", None))
    log = files.get("campaign-log.json")
    if "campaign-report.md" not in files or log is None:
        fuzzer.fail(f"/campaign export gave {sorted(files)}")
        return
    data = json.loads(log)
    if data["head_hash"] != record.head_hash or len(data["events"]) != record.version:
        fuzzer.fail("/campaign export's log is not the campaign's")


# -- the calendar ------------------------------------------------------------------------------


def overdue_games(fuzzer: CampaignFuzzer) -> list[int]:
    """Linked games in play, in their channel, whose date passed on the fuzzer's clock."""
    state = fuzzer.state
    if state is None or fuzzer.ended:
        return []
    lanes = {lane.number: lane for lane in fuzzer.in_play()}
    decided = state.calendar.decisions
    return [
        number
        for number, by in sorted(state.calendar.due.items())
        if number in lanes
        and by < fuzzer.today
        and (number not in decided or decided[number].decision == "extend")
    ]


def can_pass_time(fuzzer: CampaignFuzzer) -> bool:
    return not fuzzer.ended and bool(fuzzer.in_play())


async def pass_time(fuzzer: CampaignFuzzer) -> None:
    """Days pass on the fuzzer's clock (the games' dates come nearer, or pass)."""
    fuzzer.today += dt.timedelta(days=fuzzer.rng.randint(1, 10))
    fuzzer.note(f"(the date is {fuzzer.today})")


def can_decide_overdue(fuzzer: CampaignFuzzer) -> bool:
    return bool(overdue_games(fuzzer))


async def decide_overdue(fuzzer: CampaignFuzzer) -> None:
    """``/campaign overdue game: decision:`` on a game past its date: a new date, a forfeit
    by a side (the other wins) or a draw, which ends the game in its channel."""
    state, rng = fuzzer.state, fuzzer.rng
    assert state is not None
    number = rng.choice(overdue_games(fuzzer))
    lane = next(lane for lane in fuzzer.in_play() if lane.number == number)
    kind = OVERDUE_DECISIONS[fuzzer.overdues % len(OVERDUE_DECISIONS)]
    fuzzer.overdues += 1
    fuzzer.run.actions[f"overdue {kind}"] += 1
    if kind == "extend":
        until = fuzzer.today + dt.timedelta(days=rng.randint(1, 14))
        decision = f"extend:{until.isoformat()}"
    elif kind == "forfeit":
        decision = f"forfeit:{rng.choice(list(state.sides))}"
    else:
        decision = "draw"
    options = {"game": number, "decision": decision}
    if await fuzzer.send(fuzzer.channel, REFEREE, "campaign.overdue", options) is None:
        return
    ended = (await fuzzer.store.load(lane.channel)).status == "ended"
    if ended != (kind != "extend"):
        fuzzer.fail(f"/campaign overdue {decision}: game {number} ended {ended}")
        return
    if ended:
        await fuzzer.game_ended(lane)
