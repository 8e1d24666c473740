"""What a command reads before any rule runs, in the store's one snapshot
(`GameStore.open_command`), with the features' records decoded: the deadlines, the pace
the sides bound to roles and the seats' names (the game's sealed records)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from bot.service.stored.campaign import CampaignLink, campaign_link_of
from bot.service.stored.deadlines import Deadline, deadlines_of, pace_of
from bot.service.stored.seat_names import seat_names_of
from bot.service.stored.seats import Consent, pending_seats_of, side_roles_of
from db.models import CommandContext, EventRecord, GameRecord, HeldDocument, Member
from db.protocol import GameStore


@dataclass(frozen=True, slots=True)
class TableContext:
    """The game, the event this interaction already committed (a retried interaction is
    answered with it), the members (who the asker is, whom to ping), the deadlines, the
    pace (hours per owed action), the (side, Discord role id) bindings and the game's
    campaign."""

    record: GameRecord
    earlier: EventRecord | None
    members: tuple[Member, ...]
    deadlines: tuple[Deadline, ...] = ()
    pace_hours: int | None = None
    side_roles: tuple[tuple[str, int], ...] = ()
    #: The campaign the game belongs to, if any.
    campaign: CampaignLink | None = None
    #: Seats asked for or offered, waiting for consent or for the invited member's join.
    pending_seats: tuple[Consent, ...] = ()
    #: The display names the seats' holders were recorded under (user id → name).
    seat_names: Mapping[int, str] = field(default_factory=dict)

    @classmethod
    def of(cls, context: CommandContext) -> TableContext:
        """The store's context with the features' records decoded."""
        return cls(
            record=context.record,
            earlier=context.earlier,
            members=context.members,
            deadlines=deadlines_of(context.records),
            pace_hours=pace_of(context.records),
            side_roles=side_roles_of(context.records),
            campaign=campaign_link_of(context.records),
            pending_seats=pending_seats_of(context.records),
            seat_names=seat_names_of(context.records),
        )


async def open_table(
    store: GameStore,
    channel_id: int,
    interaction_id: str | None = None,
    *,
    held: HeldDocument | None = None,
) -> TableContext:
    """The command's context, read in one round trip (`GameStore.open_command`; ``held``:
    a document the caller holds, served on its head rather than parsed again)."""
    return TableContext.of(await store.open_command(channel_id, interaction_id, held=held))


__all__ = ["TableContext", "open_table"]
