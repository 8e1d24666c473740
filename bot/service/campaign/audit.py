"""What ``arbitro db check`` verifies of campaigns, beside every game's chain.

A campaign's log is a game's log to the store, so its chain and checksum are checked with
every game's; this adds what only the campaign's rules know, one line per violation naming
the campaign's channel and the game's:

* its log folds again to its stored states (`bot.service.replay`, as ``db replay``);
* every result it holds names the final event of its game's current log (or of the game's
  archived log, once the channel was given to another game);
* no linked game is unlisted: a game whose link record or first event names the campaign
  is listed by it under that number, in that channel;
* nothing settled while owed: an ended campaign has no game in play and no aftermath
  awaiting confirmation.

The campaign fuzzer (tests/fuzz/campaign_checks.py) runs the same function.
"""

from __future__ import annotations

from typing import Any

from bot.service.campaign.ledger import CAMPAIGN_ARG, ORIGIN_ARG
from bot.service.replay import Divergence, ReplayReport, differences
from bot.service.stored.campaign import (
    CAMPAIGN_LINK,
    LINK_KEY,
    CampaignLink,
    campaign_link_of,
)
from db.chain.hashing import canonical_json
from db.errors import GameNotFound, StoreError
from db.models import ExportBundle, Scope
from db.protocol import GameStore
from rules.campaign.events import CampaignCreated, event_of
from rules.campaign.state import CampaignState, apply, start
from rules.core.errors import RulesError


def replay_campaign_log(bundle: ExportBundle) -> ReplayReport:
    """A campaign's log folded again through the campaign's rules, each state compared
    with the stored one (its events are campaign events: no rule of a game runs)."""
    game = bundle.game
    states = {state.version: state for state in bundle.states}
    state: CampaignState | None = None
    divergence: Divergence | None = None
    for event in bundle.events:
        try:
            data = event.args[CAMPAIGN_ARG]
            folded = event_of(data)
            if state is None:
                if not isinstance(folded, CampaignCreated):
                    raise ValueError("the first event does not create the campaign")
                state = start(folded)
            else:
                state = apply(state, folded)
        except (RulesError, KeyError, ValueError, TypeError) as error:
            reason = error.localized("en") if isinstance(error, RulesError) else str(error)
            divergence = Divergence(event.seq, event.verb, f"refused: {reason}")
            break
        stored = states.get(event.seq)
        if stored is not None and canonical_json(stored.document) != canonical_json(
            state.to_json()
        ):
            found = tuple(differences(stored.document, state.to_json()))
            divergence = Divergence(event.seq, event.verb, "state differs", found)
            break
    final = None if state is None or divergence is not None else state.to_json()
    return ReplayReport(
        game.channel_id,
        game.kind,  # named "campaign" on the command line: its ruleset is its games'
        game.version,
        game.status,
        divergence,
        final,
        None if final is None else game.status,
    )


async def replay_campaign(store: GameStore, channel: int) -> ReplayReport:
    """``arbitro db replay`` of a campaign: its log (its chain checked first) folded again
    through the campaign's rules, each state compared with the stored one."""
    return replay_campaign_log(await store.export(channel, verify=True))


async def campaign_problems(store: GameStore) -> list[str]:
    """Every campaign invariant broken in ``store``, one line each (a game the store
    cannot read is left to the store's own check, which names it)."""
    problems: list[str] = []
    games = await store.all_games()
    campaigns: dict[int, CampaignState] = {}
    for summary in games:
        if not summary.is_campaign:
            continue
        channel = summary.channel_id
        try:
            record = await store.load(channel)
            report = await replay_campaign(store, channel)
        except StoreError:
            continue
        if report.divergence is not None:
            problems.append(
                f"campaign {channel}: its log does not replay to its state: "
                f"{report.divergence.describe()}"
            )
        state = CampaignState.from_json(record.document)
        campaigns[channel] = state
        problems += await _results_problems(store, channel, state)
        problems += _owed_problems(channel, state)
    for summary in games:
        if not summary.is_campaign:
            problems += await _unlisted_problems(store, summary.channel_id, campaigns)
    return problems


async def _results_problems(store: GameStore, campaign: int, state: CampaignState) -> list[str]:
    """Each result held names its game's final event."""
    problems: list[str] = []
    archived: dict[int, set[str]] | None = None
    for entry in state.games:
        held = entry.result
        if held is None:
            continue
        where = f"campaign {campaign}: game {entry.number} (channel {entry.channel})"
        try:
            game = await store.load(entry.channel)
            link = campaign_link_of(await _link_records(store, entry.channel))
        except GameNotFound:
            game, link = None, None
        except StoreError:
            continue  # the store's check names it
        if game is not None and link == CampaignLink(campaign, entry.number):
            if game.status != "ended" or game.head_hash != held.final_hash:
                problems.append(
                    f"{where}: the campaign holds a result at event {held.final_hash[:12]}, "
                    f"the game is {game.status} at {(game.head_hash or '')[:12]}"
                )
            continue
        if archived is None:
            archived = {}
            for entry_archived in await store.all_archives():
                heads = archived.setdefault(entry_archived.channel_id, set())
                heads.add(entry_archived.head_hash or "")
        if held.final_hash not in archived.get(entry.channel, set()):
            problems.append(
                f"{where}: the campaign holds a result at event {held.final_hash[:12]}, "
                "no log of the game ends there"
            )
    return problems


def _owed_problems(campaign: int, state: CampaignState) -> list[str]:
    """An ended campaign owes nothing: no game in play, no aftermath unconfirmed."""
    if not state.ended:
        return []
    problems = [
        f"campaign {campaign}: ended while game {entry.number} (channel {entry.channel}) is in play"
        for entry in state.games
        if entry.result is None
    ]
    sides = list(state.sides)
    problems += [
        f"campaign {campaign}: ended while game {number}'s aftermath awaits confirmation"
        for number, record in sorted(state.aftermaths.items())
        if not record.settled(sides)
    ]
    return problems


async def _unlisted_problems(
    store: GameStore, channel: int, campaigns: dict[int, CampaignState]
) -> list[str]:
    """A game that names a campaign (its link record, its first event) is listed by it."""
    try:
        link = campaign_link_of(await _link_records(store, channel))
        first = await store.events(channel, after_seq=0, limit=1)
    except StoreError:
        return []
    origin: Any = first[0].args.get(ORIGIN_ARG) if first else None
    named = (
        (int(origin["channel"]), int(origin["number"]))
        if isinstance(origin, dict) and "channel" in origin and "number" in origin
        else None
    )
    if link is None and named is None:
        return []
    if link is not None and named is not None and named != (link.campaign, link.number):
        return [
            f"campaign {named[0]}: game {named[1]} (channel {channel}) is linked as game "
            f"{link.number} of campaign {link.campaign}"
        ]
    campaign, number = (link.campaign, link.number) if link is not None else (named or (0, 0))
    state = campaigns.get(campaign)
    entry = None if state is None else state.game(number)
    if entry is None or entry.channel != channel:
        return [
            f"campaign {campaign}: game {number} (channel {channel}) names the campaign, "
            "which does not list it"
        ]
    return []


async def _link_records(store: GameStore, channel: int) -> list[Any]:
    found = await store.feature_get(CAMPAIGN_LINK, Scope.of_game(channel), LINK_KEY)
    return [] if found is None else [found]


__all__ = ["campaign_problems"]
