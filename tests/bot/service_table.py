"""A table of players talking to the application service, for the service tests."""

from __future__ import annotations

from typing import Any

import pytest

from bot.service import GameService, Reply, Request
from rules.core.errors import RulesError


class ServiceTable:
    """Sends requests to one channel as a user, with fresh interaction ids.

    Faces queued for a request must all be used by it (a test that scripts dice a command
    does not roll would otherwise pass for the wrong reason).
    """

    def __init__(self, service: GameService, dice: Any, channel: int) -> None:
        self.service = service
        self.dice = dice
        self.channel = channel
        self.counter = 0

    async def __call__(
        self,
        user: int,
        verb: str,
        faces: tuple[int, ...] | list[int] = (),
        *,
        dice: str | None = None,
        interaction: str | None = None,
        **options: Any,
    ) -> Reply:
        self.counter += 1
        self.dice.push(*faces)
        reply = await self.service.handle(
            Request(
                channel_id=self.channel,
                guild_id=7,
                user_id=user,
                verb=verb,
                options=options,
                dice=dice,
                interaction_id=interaction or f"{self.channel}-{self.counter}",
            )
        )
        assert not self.dice.faces, f"unused faces {list(self.dice.faces)} after {verb}"
        return reply

    async def refused(self, user: int, verb: str, key: str, **options: Any) -> RulesError:
        """Send a request that must be refused with the catalogue key ``key``."""
        with pytest.raises(RulesError) as caught:
            await self(user, verb, **options)
        assert caught.value.key == key, caught.value.key
        return caught.value
