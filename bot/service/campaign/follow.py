"""A linked game's result entering its campaign, and leaving it when the game's end is undone.

After any command that writes to a linked game (a follower the core runs for every feature's
commands, :data:`FOLLOWER`), :func:`follow` brings the campaign in line with the game: an
ended game whose result the campaign lacks enters it (``campaign.result``:
the result, the hash of the game's final event); a game no longer ended (``/game undo`` of
its end) has its result reversed (``campaign.reversal``). Each of those events carries an id
made from the campaign, the game and the final hash, so it is committed once however many
processes try. A game a stopped process left behind is caught up by the campaign's next
write command (:func:`catch_up`); ``/campaign status`` only says so (:func:`unsettled`).

A linked game the store refuses to read (its history altered, its data damaged:
``bot/service/integrity.py``) is :class:`GameUnreadable`, naming its number and channel before the
store's own refusal: the commands that must read it are refused so, ``/campaign status``
shows the campaign with that game flagged on its own line.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from bot.service.campaign.ledger import load_campaign, log_event
from bot.service.campaign.notables import newly_owed
from bot.service.campaign.reopening import release_reopening, reopener
from bot.service.campaign.rosters import losses_of, muster_of
from bot.service.errors import ServiceError
from bot.service.handlers import Follower, Services, Written
from bot.service.integrity import refusal_of
from bot.service.replies import Notable
from bot.service.stored.campaign import (
    CAMPAIGN_LINK,
    LINK_KEY,
    CampaignLink,
    campaign_link_of,
)
from bot.service.stored.table import TableContext
from db.errors import DamagedFile, GameNotFound, StoreError, VersionConflict
from db.models import GameRecord, Scope
from rules.campaign.events import (
    CampaignAftermathReversal,
    CampaignEvent,
    CampaignResult,
    CampaignReversal,
)
from rules.campaign.state import CampaignState, apply
from rules.core.errors import RulesError
from rules.core.i18n import translate
from rules.core.resolution import Outcome
from rules.core.score import GameResult
from rules.core.seatview import REFEREE
from rules.render import channel_label

log = logging.getLogger(__name__)

#: Runs of a campaign's catching up that lost a race with another writer.
FOLLOW_ATTEMPTS = 5


class GameUnreadable(ServiceError):
    """A linked game the store refuses to read (tampered or damaged), named by its number
    and channel, the store's refusal following in the reader's language."""

    def __init__(self, number: int, channel: str, refusal: RulesError) -> None:
        super().__init__("error.campaign.game_unreadable", number=number, channel=channel)
        self.number = number
        self.refusal = refusal

    def localized(self, language: str) -> str:
        """The game named, then why the store refuses it, both in ``language``."""
        return translate(
            self.key, language, **self.params, refusal=self.refusal.localized(language)
        )


async def load_linked(services: Services, number: int, channel: int, in_guild: bool) -> GameRecord:
    """Game ``number`` of a campaign, from its ``channel``: :class:`GameNotFound` when it is
    archived, :class:`GameUnreadable` when the store refuses it (a damaged database file
    stays the store's refusal: it is no game's)."""
    try:
        return await services.store.load(channel)
    except DamagedFile:
        raise
    except StoreError as error:
        refusal = refusal_of(error)
        if refusal is None:
            raise
        log.error("campaign game %s in channel %s cannot be read: %s", number, channel, error)
        raise GameUnreadable(number, channel_label(channel, in_guild), refusal) from error


async def follow(
    services: Services,
    link: CampaignLink,
    game_channel: int,
    *,
    reopened_by: str | None = None,
    notable: list[Notable] | None = None,
) -> list[Outcome]:
    """Bring the campaign in line with its game ``link`` after a command wrote to it: the
    notices to show in the game's channel (the result entered, or reversed). Never
    raises for the campaign's sake: the game's command stands; a failure is logged and the
    next command (the game's, or the campaign's that writes) catches up. ``reopened_by``:
    the command reopened the game under the claim the guard took; dropped once the
    campaign has followed (a failure leaves it to expire, holding the campaign's writes off
    meanwhile). ``notable`` gets the sides that came to owe an aftermath."""
    try:
        for attempt in range(1, FOLLOW_ATTEMPTS + 1):
            try:
                record, state = await load_campaign(services, link.campaign)
                now, followed, notices = await _settle(
                    services, record, state, link.number, game_channel
                )
                if notable is not None and now.version != record.version:
                    notable += newly_owed(state, followed, now, f"v{now.version}", None)
                if reopened_by is not None:
                    await release_reopening(services.store, link.campaign, link.number, reopened_by)
                return notices
            except VersionConflict:
                if attempt == FOLLOW_ATTEMPTS:
                    raise
    except Exception:  # the campaign follows later; the game's command is answered
        log.exception("campaign %s: game %s not followed", link.campaign, game_channel)
    return []


async def follow_written(written: Written) -> list[Outcome]:
    """The follower: the campaign of the game a command wrote to follows it."""
    call = written.call
    link = call.context.campaign
    if link is None:
        return []
    reopened = written.handler.reopens and written.before.status == "ended"
    by = reopener(call.request) if reopened else None
    return await follow(
        call.services,
        link,
        call.request.channel_id,
        reopened_by=by,
        notable=written.reply.notable,
    )


def _linked(context: TableContext) -> bool:
    return context.campaign is not None


#: After any command on a linked game (ended, its end undone…), its campaign follows.
FOLLOWER = Follower(name="campaign.follow", of=_linked, run=follow_written)


async def catch_up(
    services: Services,
    record: GameRecord,
    state: CampaignState,
    *,
    skipped: list[GameUnreadable] | None = None,
) -> tuple[GameRecord, CampaignState]:
    """Settle every linked game whose result the campaign lacks (a process that stopped
    between a game's end and its campaign's event). A game the store refuses is left as
    the campaign holds it: added to ``skipped`` when given (the caller goes on without
    it), else the refusal, naming it."""
    for entry in state.games:
        if entry.result is None:
            try:
                record, state, _ = await _settle(
                    services, record, state, entry.number, entry.channel
                )
            except GameUnreadable as unreadable:
                if skipped is None:
                    raise
                skipped.append(unreadable)
    return record, state


@dataclass(frozen=True, slots=True)
class Unsettled:
    """A linked game whose end the campaign has not followed yet: its result to enter
    (``reversal`` false) or to reverse (its end undone)."""

    number: int
    reversal: bool


async def unsettled(
    services: Services,
    record: GameRecord,
    state: CampaignState,
    skipped: list[GameUnreadable] | None = None,
) -> list[Unsettled]:
    """The games whose end the campaign has not followed yet (a process stopped between
    the game's command and the campaign's event): read only, for ``/campaign status``. A
    game the store refuses is added to ``skipped`` when given (else refused, named)."""
    found: list[Unsettled] = []
    for entry in state.games:
        try:
            game = await _game_of(services, record, state, entry.number, entry.channel)
        except GameUnreadable as unreadable:
            if skipped is None:
                raise
            skipped.append(unreadable)
            continue
        if game is None:
            continue
        ended = game.status == "ended"
        held = entry.result
        if held is not None and (not ended or held.final_hash != game.head_hash):
            found.append(Unsettled(entry.number, reversal=True))
        elif held is None and ended and game.head_hash is not None:
            found.append(Unsettled(entry.number, reversal=False))
    return found


async def _game_of(
    services: Services,
    record: GameRecord,
    state: CampaignState,
    number: int,
    channel: int,
    *,
    linked: bool = False,
) -> GameRecord | None:
    """Game ``number`` as the campaign follows it: None when the campaign is over, the game
    archived (what the campaign holds of it stands) or the channel holds another game."""
    entry = state.game(number)
    if entry is None or entry.channel != channel or state.ended:
        return None
    try:
        game = await load_linked(services, number, channel, record.guild_id is not None)
    except GameNotFound:
        return None
    if not linked and await linked_to(services, channel) != CampaignLink(record.channel_id, number):
        return None
    return game


async def _settle(
    services: Services,
    record: GameRecord,
    state: CampaignState,
    number: int,
    channel: int,
    *,
    linked: bool = False,
) -> tuple[GameRecord, CampaignState, list[Outcome]]:
    """Compare game ``number`` with what the campaign holds of it and log the difference:
    the reversal of a result that no longer holds, the entry of one that does. ``linked``:
    the caller read the game's link already (else it is read, the channel may hold
    another game by now)."""
    game = await _game_of(services, record, state, number, channel, linked=linked)
    entry = state.game(number)
    if game is None or entry is None:
        return record, state, []
    notices: list[Outcome] = []
    ended = game.status == "ended"
    held = entry.result
    if held is not None and (not ended or held.final_hash != game.head_hash):
        reversal = CampaignReversal(number=number, final_hash=held.final_hash)
        unwind = CampaignAftermathReversal(number=number) if number in state.aftermaths else None
        # The carry-over, if applied, is unwound by its own logged event, then the result
        # reversed; each only while nothing changed the entries since (else the result
        # stays and the game is told why: nothing is written).
        try:
            apply(state if unwind is None else apply(state, unwind), reversal)
        except RulesError:
            key = (
                "bot.campaign.reversal_refused"
                if unwind is not None
                else "bot.campaign.reversal_kept"
            )
            notices.append(Outcome.of(key, name=state.name, number=number))
            return record, state, notices
        if unwind is not None:
            record, state = await _append(
                services, record, state, unwind, f"{number}:unwind:{held.final_hash}"
            )
            notices.append(Outcome.of("bot.campaign.unwound", name=state.name, number=number))
        record, state = await _append(
            services, record, state, reversal, f"{number}:reversal:{held.final_hash}"
        )
        notices.append(Outcome.of("bot.campaign.reversed", name=state.name, number=number))
        held = None
    if held is None and ended and game.head_hash is not None:
        result = await _result_of(services, game)
        if result is not None:
            muster = muster_of(services, state)
            rosters = state.rosters
            losses = await services.on_workers(
                game.channel_id, lambda: losses_of(muster, game.document, rosters)
            )
            entered = CampaignResult(
                number=number,
                winner=result.winner,
                scores=dict(result.score.totals),
                ending=str(result.ending.kind),
                final_hash=game.head_hash,
                losses=losses,
            )
            record, state = await _append(
                services, record, state, entered, f"{number}:result:{game.head_hash}"
            )
            notices.append(Outcome.of("bot.campaign.entered", name=state.name, number=number))
    return record, state, notices


async def linked_to(services: Services, channel: int) -> CampaignLink | None:
    """The campaign the channel's game belongs to, read from its link record."""
    found = await services.store.feature_get(CAMPAIGN_LINK, Scope.of_game(channel), LINK_KEY)
    return None if found is None else campaign_link_of((found,))


async def _append(
    services: Services, record: GameRecord, state: CampaignState, event: CampaignEvent, what: str
) -> tuple[GameRecord, CampaignState]:
    """Log an event the campaign writes itself, under an id made of the campaign and
    ``what``: committed once, however many processes try."""
    state, _ = await log_event(
        services,
        record,
        state,
        event,
        actor_id=None,
        interaction_id=f"campaign:{record.channel_id}:{what}",
    )
    return await services.store.load(record.channel_id), state


async def _result_of(services: Services, game: GameRecord) -> GameResult | None:
    """The ended game's result, as its state holds it (the one its result event logged)."""
    rules = services.rules(game.ruleset)

    def computed() -> GameResult | None:
        return rules.view(rules.document_format.upgrade(game.document), REFEREE).result

    return await services.on_workers(game.channel_id, computed)
