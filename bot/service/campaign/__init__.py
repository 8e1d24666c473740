"""Campaigns: games linked in a campaign whose results make its standings.

One module per part: ``ledger`` (the campaign's log in the store), ``commands`` (the
commands that write it), ``views`` (status and log), ``follow`` (a linked game's result
entering the campaign, or reversed), ``settled`` (a game's end the campaign has built on
stands), ``reopening`` (the claim that keeps reopening a game and the campaign's writes
apart), ``aftermath`` (the post-battle sequence: rolled side by side, disputed, confirmed,
adjusted), ``book`` (bundled campaigns and their map),
``calendar`` (the dates games are due by, reminders, overdue decisions), ``export``
(the log as a file, the after-action report and the map as data), ``rosters``
(``/campaign roster`` and the mustering of a linked game from the rosters), ``seats`` (who
plays a side: joins by consent).
"""

from __future__ import annotations

from bot.service.campaign.adopt import adopt_stale_claims
from bot.service.campaign.aftermath import (
    adjust_entry,
    confirm_aftermath,
    dispute_aftermath,
    run_aftermath,
)
from bot.service.campaign.calendar import campaign_reminders, overdue_decision
from bot.service.campaign.commands import end_campaign, link_new_game, new_campaign
from bot.service.campaign.export import campaign_export
from bot.service.campaign.follow import FOLLOWER, follow
from bot.service.campaign.game_seats import refuse_seat_outside_campaign
from bot.service.campaign.ledger import CAMPAIGN_ARG, load_campaign
from bot.service.campaign.rosters import campaign_roster
from bot.service.campaign.seats import invite_to_campaign, join_campaign
from bot.service.campaign.settled import refuse_reopening, release_refused_reopening
from bot.service.campaign.views import campaign_log, campaign_status
from bot.service.handlers import Guard, Handler, Timer

HANDLERS = (
    Handler(("campaign.new",), run=new_campaign),
    Handler(("campaign.join",), run=join_campaign),
    Handler(("campaign.invite",), run=invite_to_campaign),
    Handler(("campaign.status",), read_only=True, run=campaign_status),
    Handler(("campaign.log",), read_only=True, run=campaign_log),
    Handler(("campaign.game",), run=link_new_game),
    Handler(("campaign.end",), run=end_campaign),
    Handler(("campaign.aftermath",), run=run_aftermath),
    Handler(("campaign.confirm",), run=confirm_aftermath),
    Handler(("campaign.dispute",), run=dispute_aftermath),
    Handler(("campaign.adjust",), run=adjust_entry),
    Handler(("campaign.export",), read_only=True, run=campaign_export),
    Handler(("campaign.overdue",), run=overdue_decision),
    Handler(("campaign.roster",), run=campaign_roster),
)

#: What a campaign does around its games' commands: it follows each write (a result
#: entered or reversed), refuses to reopen a game it has built on or a seat it did not
#: give, reminds of dates, and
#: adopts a game a stopped ``/campaign game`` created but did not list.
REACTIONS = (
    FOLLOWER,
    Guard(name="campaign.settled", run=refuse_reopening, release=release_refused_reopening),
    Guard(name="campaign.seats", run=refuse_seat_outside_campaign),
    Timer(name="campaign.calendar", run=campaign_reminders),
    Timer(name="campaign.adopt", run=adopt_stale_claims),
)

__all__ = [
    "CAMPAIGN_ARG",
    "HANDLERS",
    "REACTIONS",
    "campaign_reminders",
    "follow",
    "load_campaign",
]
