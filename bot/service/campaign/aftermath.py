"""After a campaign's battle: ``/campaign aftermath``, ``confirm``, ``dispute``, ``adjust``.

``/campaign aftermath game: [dice:] [side:]`` rolls the ruleset's post-battle sequence
(`rules.campaign.postbattle`) for a game whose result entered the campaign, one side at a time:
a side's player rolls their own side's part — the bot's dice, or the physical dice they type
in ``dice:``, which feed only that part — and the referee rolls one side (``side:``) or every
side still to roll with the bot's dice. Each part is one ``campaign.aftermath`` event with
every die. Another side's player (or the referee) may dispute a typed part (``/campaign
dispute``): the bot rolls it again, logged as a new event that replaces the part. Once every
side rolled, each side's player confirms (``/campaign confirm``) or the referee validates it
for all, and the next ``/campaign game`` waits for that (:func:`refuse_while_owed`).
``/campaign adjust`` is the referee's correction of a roster entry: a new logged event,
never an edit.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from bot.service.campaign.book import settled_notice
from bot.service.campaign.follow import GameUnreadable, catch_up
from bot.service.campaign.ledger import (
    language_of,
    load_campaign,
    log_requested,
    referee_only,
)
from bot.service.campaign.notables import newly_owed, roster_adjusted
from bot.service.campaign.rosters import muster_of
from bot.service.errors import ServiceError
from bot.service.handlers import Call
from bot.service.replies import CampaignReply, Reply
from db.models import GameRecord
from rules.campaign.aftermath import ADJUSTABLE_FIELDS, MAX_REASON
from rules.campaign.events import CampaignAdjust, CampaignAftermath, CampaignConfirm
from rules.campaign.postbattle import (
    MAX_AFTERMATH_DICE,
    aftermath_dice,
    reroll_disputed,
    roll_aftermath,
    still_owed,
)
from rules.campaign.roster import ID_PATTERN, MAX_STRENGTH, Status
from rules.campaign.rules import CampaignRules, campaign_rules
from rules.campaign.state import MAX_GAMES, CampaignState, apply
from rules.campaign.text import AftermathPage, field_name, side_labels, value_words
from rules.core.dice import DiceSource, ScriptedDice, parse_faces
from rules.core.errors import InvalidInput, RulesError, UnknownName
from rules.core.resolution import Outcome
from rules.core.surface import Muster
from rules.core.upload import unsafe_character
from rules.core.words import joined

#: A unit id as rosters write them (an adjustment names one).
_UNIT_ID = re.compile(ID_PATTERN)


def side_named(state: CampaignState, wanted: str) -> str:
    """A side of the campaign by its id or its name (any case)."""
    for side, label in state.sides.items():
        if wanted.casefold() in (side.casefold(), label.casefold()):
            return side
    raise UnknownName(
        "error.campaign.unknown_side", side=wanted[:40], known=joined(state.sides.values())
    )


def _game_number(call: Call, state: CampaignState) -> int:
    number = call.request.options.get("game")
    if not isinstance(number, int) or isinstance(number, bool) or not 0 < number <= MAX_GAMES:
        raise InvalidInput("error.campaign.bad_game", limit=MAX_GAMES)
    if state.game(number) is None:
        raise ServiceError("error.campaign.not_linked", number=number)
    return number


def _rules_of(state: CampaignState) -> CampaignRules:
    rules = campaign_rules(state.ruleset)
    if rules is None:
        raise ServiceError("error.campaign.no_rules", ruleset=state.ruleset)
    return rules


def refuse_while_owed(state: CampaignState) -> None:
    """Refuse a new game while an earlier one's aftermath is not rolled by every side and
    confirmed, saying what is owed."""
    for owed in still_owed(state)[:1]:
        raise ServiceError(
            f"error.campaign.aftermath_{owed.kind}",
            number=owed.number,
            sides=side_labels(state, owed.sides),
        )


def refuse_unconfirmed(state: CampaignState) -> None:
    """Refuse to end the campaign while an aftermath awaits a side's confirmation, saying
    whose (its entries would stay half settled, and its line would vanish from the status
    and the report)."""
    for owed in still_owed(state):
        # Half rolled (a side still to roll) or rolled and awaiting a confirmation.
        if owed.kind in ("unrolled", "unconfirmed"):
            raise ServiceError(
                f"error.campaign.aftermath_{owed.kind}",
                number=owed.number,
                sides=side_labels(state, owed.sides),
            )


def _fielded(muster: Muster | None, state: CampaignState, number: int) -> dict[str, set[str]]:
    """The entries that could take the field in game ``number``: in its scenario, fit or
    recovered by then (a roster entry musters as the scenario unit with its id); those its
    link recorded, for a game linked since they are kept (not those left behind, by
    choice or because another game held them)."""
    entry = state.game(number)
    assert entry is not None
    if entry.fielded:
        return {side: set(units) for side, units in entry.fielded.items()}
    units = None
    if muster is not None:
        try:
            units = muster.units(entry.scenario)
        except RulesError:  # a scenario no longer bundled
            units = None
    if units is None:  # every entry that could, fought
        return {
            side: {e.id for e in roster.entries if e.status is not Status.DEAD}
            for side, roster in state.rosters.items()
        }
    in_scenario = {(side, unit) for side, chosen in units.items() for unit in chosen}
    return {
        side: {
            e.id
            for e in roster.entries
            if (side, e.id) in in_scenario
            and (e.status is Status.FIT or (e.until is not None and number >= e.until))
        }
        for side, roster in state.rosters.items()
    }


def _side_to_roll(call: Call, state: CampaignState, own: str | None) -> str | None:
    """The side whose part ``/campaign aftermath`` rolls: the player's own (``side:`` may
    name only it), or the one the referee names (None: every side still to roll)."""
    wanted = str(call.request.options.get("side") or "").strip()
    referee = call.request.user_id == state.referee
    side = side_named(state, wanted) if wanted else (None if referee else own)
    if not referee and side != own:
        assert side is not None and own is not None  # a player plays a side
        raise ServiceError(
            "error.campaign.aftermath_not_your_side", side=state.sides[side], own=state.sides[own]
        )
    return side


async def run_aftermath(call: Call) -> Reply:
    """``/campaign aftermath game: [dice:] [side:]`` (a side's player for their side, or the
    referee): roll a side's part of the post-battle sequence of a game whose result is in,
    and show every die and change."""
    request, services = call.request, call.services
    record, state = await load_campaign(services, request.channel_id)
    own = state.side_of(request.user_id)
    if request.user_id != state.referee and own is None:
        raise ServiceError("error.campaign.players_only")
    skipped: list[GameUnreadable] = []  # another game the store refuses is not this one's
    record, state = await catch_up(services, record, state, skipped=skipped)
    number = _game_number(call, state)
    for unreadable in skipped:
        if unreadable.number == number:
            raise unreadable
    rules = _rules_of(state)
    side = _side_to_roll(call, state, own)
    typed = parse_faces(request.dice) if request.dice else None
    if typed is not None and side is None:  # typed dice feed one side's part only
        raise InvalidInput("error.campaign.aftermath_typed_side")
    dice: DiceSource = services.dice if typed is None else ScriptedDice(typed, by_hand=True)
    fielded = await services.off_loop(_fielded, muster_of(services, state), state, number)

    def rolled() -> CampaignAftermath:
        event = roll_aftermath(state, number, rules, dice, fielded, side)
        if isinstance(dice, ScriptedDice):
            dice.ensure_consumed()
        return event

    event = await services.off_loop(rolled)
    return await _logged(call, record, state, event, rules)


async def dispute_aftermath(call: Call) -> Reply:
    """``/campaign dispute game: [side:]`` (another side's player, or the referee): the
    dice a side typed for its part are disputed, and the bot rolls that part again."""
    request, services = call.request, call.services
    record, state = await load_campaign(services, request.channel_id)
    own = state.side_of(request.user_id)
    referee = request.user_id == state.referee
    if not referee and own is None:
        raise ServiceError("error.campaign.players_only")
    record, state = await catch_up(services, record, state)
    number = _game_number(call, state)
    rules = _rules_of(state)
    held = state.aftermaths.get(number)
    typed = [] if held is None else [side for side in held.typed if referee or side != own]
    wanted = str(request.options.get("side") or "").strip()
    if wanted:
        side = side_named(state, wanted)
    elif len(typed) == 1:
        side = typed[0]
    elif typed:
        raise InvalidInput("error.campaign.dispute_side", sides=side_labels(state, typed))
    else:
        raise ServiceError("error.campaign.nothing_disputable", number=number)
    if side == own and not referee:
        raise ServiceError("error.campaign.own_aftermath", side=state.sides[side])
    if held is None or side not in held.typed:
        raise ServiceError("error.campaign.not_disputable", number=number, side=state.sides[side])
    fielded = await services.off_loop(_fielded, muster_of(services, state), state, number)
    by = None if referee else own
    event = await services.off_loop(
        reroll_disputed, state, number, rules, services.dice, fielded, side, by
    )
    return await _logged(call, record, state, event, rules)


async def _logged(
    call: Call,
    record: GameRecord,
    state: CampaignState,
    event: CampaignAftermath,
    rules: CampaignRules,
) -> Reply:
    """A side's part logged, and shown with what comes next."""
    after, seq = await log_requested(call, record, state, event)
    unrolled = tuple(after.aftermaths[event.number].unrolled(after.sides))
    reply = CampaignReply(
        language=language_of(record),
        ruleset=state.ruleset,
        seq=seq,
        page=AftermathPage(state, event, rules, unrolled),
    )
    reply.notable += newly_owed(state, after, record, f"s{seq}", call.request.user_id)
    return reply


async def confirm_aftermath(call: Call) -> Reply:
    """``/campaign confirm game:``: a side's player confirms the aftermath for their
    side; the referee validates it for every side."""
    request, services = call.request, call.services
    record, state = await load_campaign(services, request.channel_id)
    number = _game_number(call, state)
    side = state.side_of(request.user_id)
    if request.user_id == state.referee:
        side = None
    elif side is None:
        raise ServiceError("error.campaign.players_only")
    held = state.aftermaths.get(number)
    unrolled = [] if held is None else held.unrolled(state.sides)
    if unrolled:  # confirmations wait until every side has rolled
        raise ServiceError(
            "error.campaign.aftermath_unrolled", number=number, sides=side_labels(state, unrolled)
        )
    after, seq = await log_requested(call, record, state, CampaignConfirm(number=number, side=side))
    reply = Reply(language=language_of(record), ruleset=state.ruleset, seq=seq)
    if side is None:
        reply.notices.append(Outcome.of("bot.campaign.validated", number=number))
    else:
        reply.notices.append(
            Outcome.of("bot.campaign.confirmed", side=state.sides[side], number=number)
        )
    held = after.aftermaths[number]
    if held.settled(list(after.sides)):
        reply.notices.append(settled_notice(after, number, reply.language))
    return reply


async def adjust_entry(call: Call) -> Reply:
    """``/campaign adjust side: unit: field: value: reason:`` (the referee): one field of
    one roster entry corrected, logged with its reason and kept in the entry's history."""
    request, services = call.request, call.services
    record, state = await load_campaign(services, request.channel_id)
    referee_only(call, state)
    options = request.options
    side = side_named(state, str(options.get("side") or "").strip())
    unit = str(options.get("unit") or "").strip()
    field = str(options.get("field") or "")
    value = str(options.get("value") or "").strip()
    reason = str(options.get("reason") or "").strip()
    if field not in ADJUSTABLE_FIELDS:
        raise InvalidInput(
            "error.campaign.bad_field", field=field[:20], known=", ".join(ADJUSTABLE_FIELDS)
        )
    if not (0 < len(value) <= 40 and 0 < len(reason) <= MAX_REASON) or any(
        unsafe_character(text) is not None for text in (value, reason)
    ):  # the reason goes into the entry's history: one line of plain text
        raise InvalidInput("error.campaign.bad_adjust", field=field, value=value[:40])
    if _UNIT_ID.fullmatch(unit) is None:
        raise ServiceError("error.campaign.no_entry", unit=unit[:40], side=state.sides[side])
    rules = campaign_rules(state.ruleset)
    if field == "rank" and value != "-" and rules is not None:
        rules.check_rank(value)  # a rank off the ladder would never be fielded nor promoted
    _check_in_range(state, side, unit, field, value)
    event = CampaignAdjust(side=side, unit=unit, field=field, value=value, reason=reason)
    language = language_of(record)
    _refuse_unchanged(state, event, language)
    after, seq = await log_requested(call, record, state, event)
    reply = Reply(language=language, ruleset=state.ruleset, seq=seq)
    reply.notable += roster_adjusted(after, record, side, seq, request.user_id)
    adjusted = after.rosters[side].entry(unit)
    line = adjusted.history[-1] if adjusted is not None else None
    params: Mapping[str, str | int] = line.params if line is not None else {}
    reply.notices.append(
        Outcome.of(
            "bot.campaign.adjusted",
            side=state.sides[side],
            unit=adjusted.name if adjusted is not None else unit,
            field=field_name(field, language),
            before=value_words(state.ruleset, field, str(params.get("before", "-")), language),
            after=value_words(state.ruleset, field, str(params.get("after", value)), language),
            reason=reason,
        )
    )
    return reply


def _refuse_unchanged(state: CampaignState, event: CampaignAdjust, language: str) -> None:
    """Refuse an adjustment that would leave its entry as it is: the log keeps corrections,
    not restatements (the fold itself accepts one, so older logs holding one replay)."""
    roster = state.rosters.get(event.side)
    before = None if roster is None else roster.entry(event.unit)
    if before is None:
        return  # the fold refuses it, naming the unit
    after = apply(state, event).rosters[event.side].entry(event.unit)
    if after is not None and after.model_copy(update={"history": ()}) == before.model_copy(
        update={"history": ()}
    ):
        raise InvalidInput(
            "error.campaign.adjust_unchanged",
            field=field_name(event.field, language),
            value=event.value,
        )


#: The range of each number a referee may adjust (``until``: a game the campaign can hold).
_RANGES = {
    "strength": (0, MAX_STRENGTH),
    "full": (1, MAX_STRENGTH),
    "casualties": (0, MAX_STRENGTH),
    "experience": (0, 100_000),
    "until": (1, MAX_GAMES),
}


def _check_in_range(state: CampaignState, side: str, unit: str, field: str, value: str) -> None:
    """Refuse a number out of its field's range, and casualties past what the entry had
    or past the dice the aftermath rolls (with every other entry's)."""
    if field not in _RANGES:
        return
    low, high = _RANGES[field]
    if not value.isdecimal() or not low <= int(value) <= high:
        raise InvalidInput(
            "error.campaign.adjust_range", field=field, value=value[:40], low=low, high=high
        )
    entry = state.rosters[side].entry(unit) if side in state.rosters else None
    if entry is None or field not in ("strength", "full", "casualties"):
        return
    # An entry never holds more men, standing and lost, than its full strength: the
    # aftermath gives back at most that many (a replacement count below zero otherwise).
    number = int(value)
    strength, full, casualties = entry.strength, entry.full, entry.casualties
    if field == "strength" and number + casualties > full:
        low, high = 0, full - casualties
    elif field == "full" and number < strength + casualties:
        low, high = strength + casualties, MAX_STRENGTH
    elif field == "casualties" and strength + number > full:
        low, high = 0, full - strength
    else:
        low = high = -1
    if high >= 0:
        raise InvalidInput(
            "error.campaign.adjust_range", field=field, value=value, low=low, high=high
        )
    if field != "casualties":
        return
    adjusted = state.rosters[side].replaced(entry.model_copy(update={"casualties": number}))
    rosters = {**state.rosters, side: adjusted}
    dice = aftermath_dice(state.model_copy(update={"rosters": rosters})).total
    if dice > MAX_AFTERMATH_DICE:
        raise InvalidInput("error.campaign.adjust_dice", dice=dice, limit=MAX_AFTERMATH_DICE)
