"""A free roll or any other command made in the campaign's channel, told as a game's log
tells it (the service's event schema, `bot.service.events.event_line`), so the report and
``/campaign log`` list every event the head hash covers. The report's other words are
`rules.campaign.report`'s."""

from __future__ import annotations

from bot.service.events import event_line
from db.models import EventRecord
from rules.campaign.state import CampaignState


def other_event_text(state: CampaignState, event: EventRecord, language: str) -> str:
    """An event of the campaign's channel that is not the campaign's (a free roll), told
    as a game's log tells it, without its seq."""
    line = event_line(event, state.ruleset, language, state.sides)
    return line.removeprefix(f"#{event.seq} ")


__all__ = ["other_event_text"]
