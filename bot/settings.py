"""Settings from the environment (pydantic-settings); built in ``main``, never at import."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Arbitro's settings: ``DISCORD_TOKEN``, ``ARBITRO_DB``, ``ARBITRO_GUILD``, and for
    several bot processes ``ARBITRO_SHARD_COUNT``, ``ARBITRO_SHARD_IDS``,
    ``ARBITRO_SYNC_COMMANDS``, ``ARBITRO_SYNC_STATE``."""

    model_config = SettingsConfigDict(env_file=None, extra="ignore")

    discord_token: SecretStr | None = Field(
        None, validation_alias=AliasChoices("DISCORD_TOKEN", "discord_token")
    )
    # A file path, sqlite:///path, or postgresql://… (text: a Path would fold the URL's //).
    db: str = Field("arbitro.db", validation_alias=AliasChoices("ARBITRO_DB", "db"))
    guild: int | None = Field(
        None,
        validation_alias=AliasChoices("ARBITRO_GUILD", "guild"),
        description="a guild id for instant command sync in development",
    )
    log_level: str = Field("INFO", validation_alias=AliasChoices("ARBITRO_LOG_LEVEL"))
    shard_count: int | None = Field(
        None,
        ge=1,
        validation_alias=AliasChoices("ARBITRO_SHARD_COUNT", "shard_count"),
        description="total shards across every bot process (unset: Discord's recommendation)",
    )
    shard_ids: str | None = Field(
        None,
        validation_alias=AliasChoices("ARBITRO_SHARD_IDS", "shard_ids"),
        description="the shards this process runs, e.g. '0,1' (unset: all of them)",
    )
    sync_commands: Literal["auto", "yes", "no"] = Field(
        "auto",
        validation_alias=AliasChoices("ARBITRO_SYNC_COMMANDS", "sync_commands"),
        description="auto: the process running shard 0 syncs the slash commands",
    )
    sync_state: Path = Field(
        Path(".arbitro-commands.sha256"),
        validation_alias=AliasChoices("ARBITRO_SYNC_STATE", "sync_state"),
        description="where the digest of the last synced command payload is kept",
    )

    def shard_id_list(self) -> list[int] | None:
        """``shard_ids`` as numbers; raises ValueError on anything but a comma list."""
        if self.shard_ids is None or not self.shard_ids.strip():
            return None
        return [int(part) for part in self.shard_ids.split(",") if part.strip()]

    def sync_choice(self) -> bool | None:
        """None lets the bot decide (shard 0 syncs); True/False force it."""
        return {"auto": None, "yes": True, "no": False}[self.sync_commands]
