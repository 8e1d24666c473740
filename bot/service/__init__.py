"""The application: a service core that dispatches each request to a feature's handler.

The names front ends, tools and tests use are importable from here; each lives in its own
module (``docs/architecture.md``).
"""

from __future__ import annotations

from bot.service.core import GAME_VERBS, TABLE, GameService
from bot.service.errors import NotNow, ServiceError, commands_hint
from bot.service.events import ACTOR_SIDE_ARG, EVENT_ARGS, RESULT_ARG, recorded_roll
from bot.service.lifecycle import MAX_SCENARIO_BYTES
from bot.service.maps import channel_map, localized_map, public_status, status_caption, with_caption
from bot.service.replies import (
    ConfirmReply,
    FilesReply,
    PlayReply,
    Reply,
    ResultReply,
    RollReply,
    StatusReply,
    TextReply,
)
from bot.service.requests import Request

__all__ = [
    "ACTOR_SIDE_ARG",
    "EVENT_ARGS",
    "GAME_VERBS",
    "MAX_SCENARIO_BYTES",
    "RESULT_ARG",
    "TABLE",
    "ConfirmReply",
    "FilesReply",
    "GameService",
    "NotNow",
    "PlayReply",
    "Reply",
    "Request",
    "ResultReply",
    "RollReply",
    "ServiceError",
    "StatusReply",
    "TextReply",
    "channel_map",
    "commands_hint",
    "localized_map",
    "public_status",
    "recorded_roll",
    "status_caption",
    "with_caption",
]
