"""A game's link to its campaign, as a record of the game (``campaign``, sealed: the game's
checksum covers it and every command reads it, so a command that ends or reopens a linked
game knows, with no extra read, that its campaign must follow), and a campaign's own state as
stored (`campaign_of`: for who reads it outside the campaign's feature)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from bot.service.errors import ServiceError
from db.errors import GameNotFound
from db.models import FeatureRecord, GameRecord, Scope
from db.protocol import GameStore
from rules.campaign.state import CampaignState

CAMPAIGN_LINK = "campaign"
LINK_KEY = "link"


@dataclass(frozen=True, slots=True)
class CampaignLink:
    """The campaign a game belongs to (its channel) and the game's number in it."""

    campaign: int
    number: int


def campaign_link_of(records: Iterable[FeatureRecord]) -> CampaignLink | None:
    """The link among a game's records, if the game belongs to a campaign."""
    for record in records:
        if record.feature == CAMPAIGN_LINK:
            return CampaignLink(int(record.value["campaign"]), int(record.value["number"]))
    return None


async def link_game(store: GameStore, channel_id: int, link: CampaignLink) -> None:
    """Record that the channel's game is game ``link.number`` of ``link.campaign``."""
    value = {"campaign": link.campaign, "number": link.number}
    await store.feature_put(CAMPAIGN_LINK, Scope.of_game(channel_id), LINK_KEY, value, sealed=True)


async def campaign_of(store: GameStore, channel_id: int) -> tuple[GameRecord, CampaignState]:
    """The campaign of ``channel_id``: its record and state (``error.campaign.none`` when
    the channel holds none)."""
    try:
        record = await store.load(channel_id)
    except GameNotFound:
        raise ServiceError("error.campaign.none") from None
    if not record.is_campaign:
        raise ServiceError("error.campaign.none")
    return record, CampaignState.from_json(record.document)


__all__ = [
    "CAMPAIGN_LINK",
    "LINK_KEY",
    "CampaignLink",
    "campaign_link_of",
    "campaign_of",
    "link_game",
]
