"""After a campaign's battle: ``/campaign aftermath``, ``confirm``, ``adjust``.

``/campaign aftermath game:`` rolls the ruleset's post-battle sequence
(`rules.core.postbattle`) for a game whose result entered the campaign — the bot's dice, or
the physical dice a player types in ``dice:`` — and logs every die in one
``campaign.aftermath`` event; each side's player confirms it (``/campaign confirm``) or the
referee validates it for all, and the next ``/campaign game`` waits for that
(:func:`refuse_while_owed`). ``/campaign adjust`` is the referee's correction of a roster
entry: a new logged event, never an edit.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from bot.service.campaign.follow import GameUnreadable, catch_up
from bot.service.campaign.ledger import (
    language_of,
    load_campaign,
    log_requested,
    referee_only,
)
from bot.service.errors import ServiceError
from bot.service.handlers import Call
from bot.service.replies import Reply, TextReply
from rules.core.aftermath import (
    ADJUSTABLE_FIELDS,
    MAX_REASON,
    Adjusted,
    Aftermath,
    AftermathConfirmed,
    AftermathReversed,
    EntryAftermath,
)
from rules.core.campaign import MAX_GAMES, CampaignState
from rules.core.campaign_aftermath import AftermathEvent
from rules.core.campaign_rules import CampaignRules, campaign_rules
from rules.core.dice import DiceSource, ScriptedDice, parse_faces
from rules.core.errors import InvalidInput, RulesError, UnknownName
from rules.core.i18n import semicolon, translate
from rules.core.play import GamePlay
from rules.core.postbattle import MAX_AFTERMATH_DICE, aftermath_dice, roll_aftermath
from rules.core.resolution import Outcome
from rules.core.roster import ID_PATTERN, MAX_STRENGTH, Status
from rules.core.upload import unsafe_character

#: A unit id as rosters write them (an adjustment names one).
_UNIT_ID = re.compile(ID_PATTERN)


def side_named(state: CampaignState, wanted: str) -> str:
    """A side of the campaign by its id or its name (any case)."""
    for side, label in state.sides.items():
        if wanted.casefold() in (side.casefold(), label.casefold()):
            return side
    raise UnknownName(
        "error.campaign.unknown_side", side=wanted[:40], known=", ".join(state.sides.values())
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


def _owed(state: CampaignState) -> list[tuple[str, int, str]]:
    """What the games whose result is in still owe after the battle (campaigns with
    rosters, in rulesets with campaign rules): ``("owed", number, "")`` for an aftermath
    not rolled, ``("unconfirmed", number, sides)`` for one awaiting those sides. Nothing
    once the campaign is over: nothing more can be logged, a command is told so."""
    if state.ended or not state.rosters or campaign_rules(state.ruleset) is None:
        return []
    owed: list[tuple[str, int, str]] = []
    for entry in state.games:
        if entry.result is None:
            continue
        record = state.aftermaths.get(entry.number)
        if record is None:
            owed.append(("owed", entry.number, ""))
        elif not record.settled(list(state.sides)):
            waiting = [label for s, label in state.sides.items() if s not in record.confirmed]
            owed.append(("unconfirmed", entry.number, ", ".join(waiting)))
    return owed


def refuse_while_owed(state: CampaignState) -> None:
    """Refuse a new game while an earlier one's aftermath is not rolled and confirmed,
    saying what is owed."""
    for kind, number, sides in _owed(state)[:1]:
        if kind == "owed":
            raise ServiceError("error.campaign.aftermath_owed", number=number)
        raise ServiceError("error.campaign.aftermath_unconfirmed", number=number, sides=sides)


def refuse_unconfirmed(state: CampaignState) -> None:
    """Refuse to end the campaign while an aftermath awaits a side's confirmation, saying
    whose (its entries would stay half settled, and its line would vanish from the status
    and the report)."""
    for kind, number, sides in _owed(state):
        if kind == "unconfirmed":
            raise ServiceError("error.campaign.aftermath_unconfirmed", number=number, sides=sides)


def owed_lines(state: CampaignState, language: str) -> list[str]:
    """``/campaign status``'s lines for what the games owe after the battle."""
    return [
        translate(f"bot.campaign.aftermath.status_{kind}", language, number=number, sides=sides)
        for kind, number, sides in _owed(state)
    ]


def _fielded(play: GamePlay, state: CampaignState, number: int) -> dict[str, set[str]]:
    """The entries that could take the field in game ``number``: in its scenario, fit or
    recovered by then (a roster entry musters as the scenario unit with its id)."""
    entry = state.game(number)
    assert entry is not None
    try:
        scenario = play.scenario.load_bundled(entry.scenario)
        pieces = play.victory.battle(play.game.new_game(scenario)).pieces
    except RulesError:  # a scenario no longer bundled: every entry that could, fought
        return {
            side: {e.id for e in roster.entries if e.status is not Status.DEAD}
            for side, roster in state.rosters.items()
        }
    in_scenario = {(piece.side, piece.id) for piece in pieces}
    return {
        side: {
            e.id
            for e in roster.entries
            if (side, e.id) in in_scenario
            and (e.status is Status.FIT or (e.until is not None and number >= e.until))
        }
        for side, roster in state.rosters.items()
    }


async def run_aftermath(call: Call) -> Reply:
    """``/campaign aftermath game: [dice:]`` (the referee or a side's player): roll the
    post-battle sequence of a game whose result is in, and show every die and change."""
    request, services = call.request, call.services
    record, state = await load_campaign(services, request.channel_id)
    if request.user_id != state.referee and state.side_of(request.user_id) is None:
        raise ServiceError("error.campaign.players_only")
    skipped: list[GameUnreadable] = []  # another game the store refuses is not this one's
    record, state = await catch_up(services, record, state, skipped=skipped)
    number = _game_number(call, state)
    for unreadable in skipped:
        if unreadable.number == number:
            raise unreadable
    rules = _rules_of(state)
    typed = parse_faces(request.dice) if request.dice else None
    dice: DiceSource = services.dice if typed is None else ScriptedDice(typed, by_hand=True)
    fielded = await services.off_loop(_fielded, services.play(state.ruleset), state, number)

    def rolled() -> Aftermath:
        event = roll_aftermath(state, number, rules, dice, fielded)
        if isinstance(dice, ScriptedDice):
            dice.ensure_consumed()
        return event

    event = await services.off_loop(rolled)
    _, seq = await log_requested(call, record, state, event)
    language = language_of(record)
    reply = TextReply(language=language, ruleset=state.ruleset, seq=seq)
    reply.lines_title = "discord.embed.campaign"
    reply.lines = aftermath_lines(state, event, rules, language)
    return reply


def aftermath_lines(
    state: CampaignState, event: Aftermath, rules: CampaignRules, language: str
) -> list[str]:
    """The aftermath in words: a title, a line per entry with its dice and changes, and
    what comes next."""
    typed = translate("bot.campaign.aftermath.typed", language) if event.by_hand else ""
    lines = [
        translate(
            "bot.campaign.aftermath.title",
            language,
            number=event.number,
            name=state.name,
            typed=typed,
        )
    ]
    for side, changes in event.sides.items():
        roster = state.rosters[side]
        for change in changes:
            entry = roster.entry(change.unit)
            name = entry.name if entry is not None else change.unit
            full = entry.full if entry is not None else change.after.strength
            lines.append(
                entry_line(state.sides.get(side, side), name, full, change, rules, language)
            )
    if len(lines) == 1:
        lines.append(translate("bot.campaign.aftermath.nothing", language))
    lines.append(translate("bot.campaign.aftermath.next", language, number=event.number))
    return lines


def entry_line(
    side: str,
    name: str,
    full: int,
    change: EntryAftermath,
    rules: CampaignRules,
    language: str,
) -> str:
    """One entry's aftermath: its dice, bands and the values before and after."""
    parts: list[str] = []
    if change.destroyed is not None:
        parts.append(
            translate(
                "bot.campaign.aftermath.destroyed",
                language,
                die=f"D{rules.destroyed.die}",
                face=change.destroyed.face,
                fate=_fate(change.destroyed.fate, change.destroyed.games, language),
            )
        )
    if change.fates:
        back = sum(1 for roll in change.fates if roll.fate == "returns")
        parts.append(
            translate(
                "bot.campaign.aftermath.fates",
                language,
                n=len(change.fates),
                die=f"D{rules.casualties.die}",
                faces=" ".join(str(roll.face) for roll in change.fates),
                back=back,
                dead=len(change.fates) - back,
            )
        )
    if change.experience:
        parts.append(
            translate(
                "bot.campaign.aftermath.experience",
                language,
                gained=change.experience,
                total=change.after.experience,
            )
        )
    if change.promoted is not None:
        parts.append(translate("bot.campaign.aftermath.promoted", language, rank=change.promoted))
    if change.replaced:
        parts.append(translate("bot.campaign.aftermath.replaced", language, n=change.replaced))
    if change.after.status is Status.RECOVERING and change.after.until is not None:
        parts.append(
            translate("bot.campaign.aftermath.recovering", language, until=change.after.until)
        )
    return translate(
        "bot.campaign.aftermath.entry",
        language,
        side=side,
        unit=name,
        before=change.before.strength,
        after=change.after.strength,
        full=full,
        details=f"{semicolon(language)} ".join(parts),
    )


def _fate(fate: str, games: int, language: str) -> str:
    return translate(f"bot.campaign.fate.{fate}", language, games=games)


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
    after, seq = await log_requested(
        call, record, state, AftermathConfirmed(number=number, side=side)
    )
    reply = Reply(language=language_of(record), ruleset=state.ruleset, seq=seq)
    if side is None:
        reply.notices.append(Outcome.of("bot.campaign.validated", number=number))
    else:
        reply.notices.append(
            Outcome.of("bot.campaign.confirmed", side=state.sides[side], number=number)
        )
    held = after.aftermaths[number]
    if held.settled(list(after.sides)):
        reply.notices.append(Outcome.of("bot.campaign.aftermath_settled", number=number))
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
    event = Adjusted(side=side, unit=unit, field=field, value=value, reason=reason)  # type: ignore[arg-type]
    after, seq = await log_requested(call, record, state, event)
    reply = Reply(language=language_of(record), ruleset=state.ruleset, seq=seq)
    adjusted = after.rosters[side].entry(unit)
    line = adjusted.history[-1] if adjusted is not None else None
    params: Mapping[str, str | int] = line.params if line is not None else {}
    reply.notices.append(
        Outcome.of(
            "bot.campaign.adjusted",
            side=state.sides[side],
            unit=adjusted.name if adjusted is not None else unit,
            field=field,
            before=params.get("before", "-"),
            after=params.get("after", value),
            reason=reason,
        )
    )
    return reply


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


def aftermath_log_text(state: CampaignState, event: AftermathEvent, language: str) -> str:
    """A post-battle event in the campaign's log."""
    if isinstance(event, Aftermath):
        dice = sum(
            len(change.fates) + (change.destroyed is not None)
            for changes in event.sides.values()
            for change in changes
        )
        typed = translate("bot.campaign.aftermath.typed", language) if event.by_hand else ""
        return translate(
            "bot.campaign.log.aftermath",
            language,
            number=event.number,
            entries=event.entries(),
            dice=dice,
            typed=typed,
        )
    if isinstance(event, AftermathConfirmed):
        if event.side is None:
            return translate("bot.campaign.log.validated", language, number=event.number)
        side = state.sides.get(event.side, event.side)
        return translate("bot.campaign.log.confirmed", language, side=side, number=event.number)
    if isinstance(event, AftermathReversed):
        return translate("bot.campaign.log.aftermath_reversal", language, number=event.number)
    return translate(
        "bot.campaign.log.adjusted",
        language,
        side=state.sides.get(event.side, event.side),
        unit=event.unit,
        field=event.field,
        value=event.value,
        reason=event.reason,
    )
