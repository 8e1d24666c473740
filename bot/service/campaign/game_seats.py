"""A linked game's sides are played by the campaign's players.

The campaign seats its players in its games (``/campaign game``, ``/campaign join``): who
plays a side there rolls, confirms and disputes its aftermath, so a seat in the game is the
campaign's to give. The game's own seat commands would let a player step round it — leave
their side and take the other's empty seat (its hidden units, its dice, its concession), or
an outsider sit at a side nobody plays yet — so, in a game of the campaign, the guard
(:func:`refuse_seat_outside_campaign`) lets a player take only the side they play in the
campaign (``/game join``), and no player seat or invite anyone (``/seat approve``: the
campaign's ``/campaign invite`` does). The referee still seats anyone (``/seat assign``).
"""

from __future__ import annotations

from bot.service.campaign.ledger import load_campaign
from bot.service.errors import ServiceError
from bot.service.handlers import GameCall, GameHandler
from bot.service.requests import side_named


async def refuse_seat_outside_campaign(call: GameCall, handler: GameHandler) -> None:
    """Refuse a seat in a linked game that the campaign did not give (a campaign that is
    gone or unreadable leaves the game's seats alone)."""
    link = call.context.campaign
    if handler.seats is None or link is None or call.seat.referee:
        return
    try:
        _, state = await load_campaign(call.services, link.campaign)
    except ServiceError:
        return
    entry = state.game(link.number)
    if entry is None or entry.channel != call.request.channel_id:
        return
    if handler.seats == "member":
        raise ServiceError("error.campaign.seats_follow", name=state.name)
    sides = call.rules.sides(call.document)
    side = side_named(sides, call.request.options.get("side"))
    if state.side_of(call.request.user_id) != side:
        raise ServiceError("error.campaign.seat_not_yours", name=state.name, side=sides[side])


__all__ = ["refuse_seat_outside_campaign"]
