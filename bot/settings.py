"""Settings from the environment (pydantic-settings); built in ``main``, never at import."""

from __future__ import annotations

from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Arbitro's settings: ``DISCORD_TOKEN``, ``ARBITRO_DB``, ``ARBITRO_GUILD``."""

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
