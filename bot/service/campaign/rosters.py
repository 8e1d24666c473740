"""A campaign's rosters: ``/campaign roster`` (shown, or set from a file), and the mustering
of a linked game from them (``/campaign game``, through `bot.service.campaign.commands`).

A roster is set by a ``campaign.roster`` event: from a roster file (the referee, or a
player of that side, while no game is in play: the fold refuses one then), or from a
scenario's side when ``/campaign game`` links the first game a side fights without one.
The game is then mustered from the rosters by the ruleset (``Ruleset.muster``, pure:
`rules.campaign.muster`); a ruleset without one plays campaigns without rosters.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bot.service.campaign.ledger import (
    language_of,
    load_campaign,
    log_event,
    log_requested,
    side_named,
)
from bot.service.errors import ServiceError
from bot.service.handlers import Call, Services
from bot.service.replies import CampaignReply, Reply
from db.models import GameRecord
from rules.campaign.events import CampaignRoster
from rules.campaign.muster import fielding
from rules.campaign.postbattle import MAX_AFTERMATH_DICE, aftermath_dice
from rules.campaign.roster import (
    MAX_ENTRIES,
    Roster,
    RosterEntry,
    Status,
    rosters_hash,
)
from rules.campaign.roster_file import ROSTER_SOURCE, parse_roster
from rules.campaign.rules import campaign_rules
from rules.campaign.state import CampaignState
from rules.campaign.text import RosterPage, status_text
from rules.core.errors import IllegalAction, InvalidInput, UnknownName
from rules.core.i18n import translate
from rules.core.resolution import Outcome
from rules.core.surface import Muster, Rules
from rules.core.words import LocalizedLabel, in_language

#: A roster file's reply names at most this many of the side's units it leaves out.
MAX_UNTRACKED_SHOWN = 20
#: The longest ``leave:`` option read (60 ids of 40 characters and their commas).
MAX_LEAVE_CHARS = MAX_ENTRIES * 41


def muster_of(services: Services, state: CampaignState) -> Muster | None:
    """The campaign's ruleset's mustering (None: it plays without rosters)."""
    found: Muster | None = services.ruleset(state.ruleset).muster
    return found


# -- /campaign game: the game mustered from the rosters ----------------------------------


@dataclass(frozen=True)
class Mustering:
    """What ``/campaign game`` writes for the rosters: the rosters set from the scenario
    (sides that had none), the game's document, the hash of the rosters it was mustered
    from, the units left behind by choice and the entries their state keeps behind."""

    document: dict[str, Any]
    rosters_set: tuple[CampaignRoster, ...] = ()
    rosters_hash: str | None = None
    left: tuple[str, ...] = field(default=())
    #: How many units each side fields.
    fielded: dict[str, int] = field(default_factory=dict)
    #: The scenario's units whose roster entry keeps them behind (dead, recovering, spent).
    stayed: tuple[RosterEntry, ...] = ()
    #: The scenario's units another game of the campaign holds, with that game's number.
    held: tuple[tuple[str, int], ...] = ()
    #: The roster entries each side fields: the game holds them (``CampaignGame.fielded``).
    entries: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: The scenario's units' names (a roster's where it names them), for the muster's line.
    names: Mapping[str, LocalizedLabel] = field(default_factory=dict)

    def notice(self, state: CampaignState, language: str) -> Outcome | None:
        """What the game's link says of its mustering (None without rosters): each side's
        count, and every unit of the scenario left behind, by choice or by its state."""
        if self.rosters_hash is None:
            return None
        counts = ", ".join(
            f"{in_language(state.sides.get(side, side), language)} {count}"
            for side, count in self.fielded.items()
        )
        chosen = translate("bot.campaign.roster.left_by_choice", language)

        def name(unit: str) -> str:
            return in_language(self.names[unit], language) if unit in self.names else unit

        behind = (
            [f"{name(unit)} ({chosen})" for unit in self.left]
            + [
                f"{name(unit)} "
                f"({translate('bot.campaign.roster.in_game', language, number=number)})"
                for unit, number in self.held
            ]
            + [f"{name(entry.id)} ({_why_behind(entry, language)})" for entry in self.stayed]
        )
        return Outcome.of(
            "bot.campaign.roster.mustered",
            fielded=counts,
            left=", ".join(behind) or "—",
            hash=self.rosters_hash[:12],
        )


#: The muster's refusals of a side with nobody to field, which name the side.
_SIDE_REFUSALS = ("error.campaign.side_empty", "error.campaign.side_held")


def _why_behind(entry: RosterEntry, language: str) -> str:
    """Why an entry stays behind: its status, or no strength left."""
    if entry.status is Status.FIT and entry.strength == 0:
        return translate("bot.campaign.roster.spent", language)
    return status_text(entry, language)


def _leave_ids(text: str) -> tuple[str, ...]:
    """``leave:`` as unit ids (bounded; each checked against the scenario by the caller)."""
    if len(text) > MAX_LEAVE_CHARS:
        raise InvalidInput("error.campaign.leave_too_long", limit=MAX_ENTRIES)
    ids = tuple(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))
    if len(ids) > MAX_ENTRIES:
        raise InvalidInput("error.campaign.leave_too_long", limit=MAX_ENTRIES)
    return ids


def mustering(
    muster: Muster | None,
    rules: Rules,
    state: CampaignState,
    scenario: str,
    number: int,
    leave_text: str,
    channel: int,
) -> Mustering:
    """Game ``number``'s document from ``scenario`` and the campaign's rosters, to be
    played in ``channel`` (pure, run on the workers): refused, nothing written, when
    ``leave`` names a unit the scenario lacks, the channel plays a game of the campaign
    (said before a side's units held elsewhere are), or a side would field no unit."""
    if muster is None:
        if leave_text.strip():
            raise InvalidInput("error.campaign.no_rosters", ruleset=state.ruleset)
        document: dict[str, Any] = rules.setup(scenario, None)
        return Mustering(document=document)
    units = muster.units(scenario)
    left = _leave_ids(leave_text)
    known = {unit for side_units in units.values() for unit in side_units}
    for unit in left:
        if unit not in known:
            raise UnknownName("error.campaign.leave_unknown", unit=unit[:40], scenario=scenario)
    if state.playing_in(channel) is not None:
        raise IllegalAction("error.campaign.game_in_play", channel=channel)
    new = tuple(
        CampaignRoster(
            side=side, roster=muster.roster_of(scenario, side), source=f"scenario:{scenario}"
        )
        for side in state.sides
        if side not in state.rosters and side in units
    )
    rosters = {**state.rosters, **{event.side: event.roster for event in new}}
    # A unit fighting another game of the campaign stays behind, said in the muster's line.
    held = state.held_units()
    try:
        document = muster.muster(scenario, rosters, number, frozenset(left), held)
    except IllegalAction as refusal:
        side = refusal.params.get("side")
        if (
            refusal.key not in _SIDE_REFUSALS
            or not isinstance(side, str)
            or side not in state.sides
        ):
            raise
        # The rules name the side by its id: the referee reads its name.
        raise IllegalAction(refusal.key, **{**refusal.params, "side": state.sides[side]}) from None
    fielded = fielding(units, rosters, number, frozenset(left), held)
    busy = tuple(
        (unit, held[side][unit])
        for side, strengths in units.items()
        for unit in strengths
        if unit not in left and unit in held.get(side, {})
    )
    return Mustering(
        document=document,
        rosters_set=new,
        rosters_hash=rosters_hash(rosters),
        left=left,
        fielded={side: len(chosen) for side, chosen in fielded.items()},
        stayed=tuple(
            entry
            for side, strengths in units.items()
            for unit in strengths
            if unit not in left and unit not in fielded.get(side, {})
            if unit not in held.get(side, {})
            if (entry := rosters[side].entry(unit) if side in rosters else None) is not None
        ),
        held=busy,
        names=_unit_names(muster, scenario, units, rosters),
        entries={
            side: tuple(unit for unit in chosen if rosters[side].entry(unit) is not None)
            for side, chosen in fielded.items()
            if side in rosters
        },
    )


def _unit_names(
    muster: Muster, scenario: str, units: Mapping[str, Any], rosters: Mapping[str, Roster]
) -> dict[str, LocalizedLabel]:
    """The scenario's units' names, a roster's name where the roster has the unit (a roster
    file may rename it)."""
    names: dict[str, LocalizedLabel] = {}
    for side in units:
        for roster in (muster.roster_of(scenario, side), rosters.get(side)):
            names.update({entry.id: entry.name for entry in roster.entries} if roster else {})
    return names


async def log_rosters_set(
    call: Call, record: GameRecord, state: CampaignState, events: tuple[CampaignRoster, ...]
) -> tuple[GameRecord, CampaignState]:
    """Log the rosters ``/campaign game`` sets from its scenario, one event each."""
    request, services = call.request, call.services
    for index, event in enumerate(events):
        state, _ = await log_event(
            services,
            record,
            state,
            event,
            actor_id=request.user_id,
            actor_name=request.user_name,
            interaction_id=None
            if request.interaction_id is None
            else f"{request.interaction_id}/roster/{index}",
        )
        record = await services.store.load(record.channel_id)
    return record, state


# -- /campaign roster -------------------------------------------------------------------


async def campaign_roster(call: Call) -> Reply:
    """``/campaign roster [side:] [file:]``: a side's roster shown (anyone), or set from a
    roster file (the referee between games; a player of that side before the first)."""
    request, services = call.request, call.services
    record, state = await load_campaign(services, request.channel_id)
    wanted = str(request.options.get("side") or "").strip()
    side = side_named(state, wanted) if wanted else None
    if request.attachment is not None:
        return await _set_roster(call, record, state, side, request.attachment)
    if side is None:
        side = state.side_of(request.user_id) or next(iter(state.sides))
    return await _shown(services, record, state, side, request.guild_id is not None)


async def _set_roster(
    call: Call, record: GameRecord, state: CampaignState, side: str | None, text: str
) -> Reply:
    request, services = call.request, call.services
    muster = muster_of(services, state)
    weapons = (
        await services.off_loop(
            _scenario_weapons, muster, services.rules(state.ruleset).scenarios()
        )
        if muster is not None
        else frozenset[str]()
    )

    def read(dice: int) -> Roster:
        source = request.attachment_name or ROSTER_SOURCE
        return parse_roster(text, source, weapons=weapons, dice=dice)

    roster = await services.off_loop(read, MAX_AFTERMATH_DICE)
    left = MAX_AFTERMATH_DICE - _other_sides_dice(state, roster.side)
    own = aftermath_dice(state.model_copy(update={"rosters": {roster.side: roster}})).total
    if own > left:
        # With the other sides' casualties the aftermath would roll past its dice: read
        # again against what they leave, so the refusal names the entry's line.
        await services.off_loop(read, left)
    if roster.side not in state.sides:
        raise InvalidInput(
            "error.campaign.unknown_side", side=roster.side[:40], known=", ".join(state.sides)
        )
    if side is not None and side != roster.side:
        raise InvalidInput(
            "error.campaign.roster_other_side",
            side=state.sides[side],
            named=state.sides[roster.side],
        )
    if request.user_id != state.referee and state.side_of(request.user_id) != roster.side:
        raise ServiceError("error.campaign.roster_not_yours", side=state.sides[roster.side])
    if request.user_id != state.referee and state.games:
        # Once games were played the rosters carry their results: a player's file would
        # undo them for their own side (the dead fit again, the losses made good).
        raise ServiceError("error.campaign.roster_after_games", side=state.sides[roster.side])
    # A rank off the ruleset's ladder would be neither fielded nor promoted: refused, naming
    # the ladder, as /campaign adjust refuses it.
    rules = campaign_rules(state.ruleset)
    if rules is not None:
        for entry in roster.entries:
            if entry.rank is not None:
                rules.check_rank(entry.rank)
    _, seq = await log_requested(
        call, record, state, CampaignRoster(side=roster.side, roster=roster, source="file")
    )
    reply = Reply(language=language_of(record), ruleset=state.ruleset, seq=seq)
    reply.notices.append(
        Outcome.of("bot.campaign.roster.set", side=state.sides[roster.side], n=len(roster.entries))
    )
    if muster is not None:
        # A file need not list every unit (a side may track only some), but the player is
        # told which of the side's scenario units it leaves out: they muster as their
        # scenario gives them, their losses kept by no entry.
        scenarios = (
            [step.scenario for step in state.book.scenarios]
            if state.book is not None
            else services.rules(state.ruleset).scenarios()
        )
        known = await services.off_loop(_scenario_units, muster, scenarios, roster.side)
        untracked = sorted(known - {entry.id for entry in roster.entries})
        if untracked:
            shown = ", ".join(untracked[:MAX_UNTRACKED_SHOWN])
            more = len(untracked) - MAX_UNTRACKED_SHOWN
            reply.notices.append(
                Outcome.of(
                    "bot.campaign.roster.untracked",
                    side=state.sides[roster.side],
                    units=shown + (f" (+{more})" if more > 0 else ""),
                    n=len(untracked),
                )
            )
    return reply


async def _shown(
    services: Services, record: GameRecord, state: CampaignState, side: str, in_guild: bool
) -> Reply:
    muster = muster_of(services, state)
    known: frozenset[str] | None = None
    if side in state.rosters and muster is not None:
        rules = services.rules(state.ruleset)
        known = frozenset(await services.off_loop(_scenario_units, muster, rules.scenarios(), side))
    return CampaignReply(
        language=language_of(record),
        ruleset=state.ruleset,
        head_hash=record.head_hash,
        page=RosterPage(state, side, known),
    )


def _other_sides_dice(state: CampaignState, side: str) -> int:
    """The aftermath dice the rosters of the sides other than ``side`` take."""
    others = {key: roster for key, roster in state.rosters.items() if key != side}
    return aftermath_dice(state.model_copy(update={"rosters": others})).total


def _scenario_weapons(muster: Muster, scenarios: list[str]) -> frozenset[str]:
    """The weapon ids any unit of the ruleset's scenarios carries: those a roster file
    may give its entries."""
    return frozenset(
        weapon
        for scenario in scenarios
        for side in muster.units(scenario)
        for entry in muster.roster_of(scenario, side).entries
        for weapon in entry.weapons
    )


def _scenario_units(muster: Muster, scenarios: list[str], side: str) -> set[str]:
    """The units side ``side`` has in any of the ruleset's scenarios."""
    return {unit for scenario in scenarios for unit in muster.units(scenario).get(side, {})}


def losses_of(
    muster: Muster | None, document: Mapping[str, Any], rosters: Mapping[str, Roster]
) -> dict[str, dict[str, int]]:
    """Each side's losses in a game's final document, by unit of its roster (pure, run on
    the workers): what the ``campaign.result`` event carries."""
    if muster is None:
        return {}
    lost = muster.losses(document)
    carried: dict[str, dict[str, int]] = {}
    for side, units in lost.items():
        roster = rosters.get(side)
        if roster is None:
            continue
        held = {unit: n for unit, n in units.items() if roster.entry(unit) is not None}
        if held:
            carried[side] = held
    return carried


__all__ = [
    "Mustering",
    "campaign_roster",
    "log_rosters_set",
    "losses_of",
    "muster_of",
    "mustering",
]
