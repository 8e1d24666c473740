"""Settings from the environment (pydantic-settings); built in ``main``, never at import.

A bad value is one line naming the variable (:func:`load_settings` raises
:class:`SettingsError`, ``bot.main`` prints it and exits with status 2), never a traceback
from deep inside logging or discord.py.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from pydantic import AliasChoices, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

#: The levels ``ARBITRO_LOG_LEVEL`` accepts (any case).
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")

#: Which environment variable sets each field, for error messages.
ENVIRONMENT_NAMES = {
    "discord_token": "DISCORD_TOKEN",
    "db": "ARBITRO_DB",
    "guild": "ARBITRO_GUILD",
    "log_level": "ARBITRO_LOG_LEVEL",
    "heartbeat": "ARBITRO_HEARTBEAT",
}

#: Discord ids (snowflakes) are positive 64-bit integers.
MAX_SNOWFLAKE = 2**63 - 1


class SettingsError(ValueError):
    """A setting with an unusable value; ``str()`` is one line naming the variable."""


class Settings(BaseSettings):
    """Arbitro's settings: ``DISCORD_TOKEN``, ``ARBITRO_DB``, ``ARBITRO_GUILD``,
    ``ARBITRO_LOG_LEVEL``, ``ARBITRO_HEARTBEAT``."""

    model_config = SettingsConfigDict(env_file=None, extra="ignore")

    discord_token: SecretStr | None = Field(
        None, validation_alias=AliasChoices("DISCORD_TOKEN", "discord_token")
    )
    db: Path = Field(Path("arbitro.db"), validation_alias=AliasChoices("ARBITRO_DB", "db"))
    guild: int | None = Field(
        None,
        validation_alias=AliasChoices("ARBITRO_GUILD", "guild"),
        description="a guild id for instant command sync in development",
    )
    log_level: str = Field("INFO", validation_alias=AliasChoices("ARBITRO_LOG_LEVEL"))
    heartbeat: Path | None = Field(
        None,
        validation_alias=AliasChoices("ARBITRO_HEARTBEAT", "heartbeat"),
        description="the file the running bot stamps while connected (default: beside the db)",
    )

    @field_validator("discord_token", "heartbeat", mode="before")
    @classmethod
    def _blank_is_unset(cls, value: Any) -> Any:
        """``VAR=`` in a compose or env file means "not set", not an empty value."""
        if isinstance(value, str) and not value.strip():
            return None
        return value

    @field_validator("discord_token")
    @classmethod
    def _token_has_no_spaces(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and any(c.isspace() for c in value.get_secret_value().strip()):
            raise ValueError("a bot token has no spaces (copy it again from the portal)")
        return value

    @field_validator("db", mode="before")
    @classmethod
    def _db_is_not_blank(cls, value: Any) -> Any:
        if isinstance(value, str | Path) and not str(value).strip():
            raise ValueError("is empty; give the path of the SQLite file")
        return value

    @field_validator("guild", mode="before")
    @classmethod
    def _guild_is_a_snowflake(cls, value: Any) -> Any:
        if value is None or isinstance(value, int):
            return value
        text = str(value).strip()
        if not text:  # ARBITRO_GUILD= means not set
            return None
        if not text.isdigit() or not 0 < int(text) <= MAX_SNOWFLAKE:
            raise ValueError(f"{text!r} is not a Discord server id (a positive number)")
        return int(text)

    @field_validator("log_level", mode="before")
    @classmethod
    def _known_log_level(cls, value: Any) -> str:
        text = str(value).strip().upper()
        if text not in LOG_LEVELS:
            raise ValueError(f"{value!r} is not one of {', '.join(LOG_LEVELS).lower()}")
        return text

    @property
    def log_level_number(self) -> int:
        """The ``logging`` level number of ``log_level``."""
        return int(logging.getLevelName(self.log_level))

    @property
    def heartbeat_path(self) -> Path:
        """Where the bot stamps its heartbeat: ``ARBITRO_HEARTBEAT``, else beside the db."""
        if self.heartbeat is not None:
            return self.heartbeat
        return beside_database(self.db, ".heartbeat")

    @property
    def sync_state_path(self) -> Path:
        """Where the hash of the last synced command payload is kept (beside the db)."""
        return beside_database(self.db, ".commands.json")


def beside_database(db: Path, suffix: str) -> Path:
    """``arbitro.db`` + ``suffix`` in the database's directory (the working directory for
    an in-memory database)."""
    if str(db) == ":memory:":
        return Path("arbitro" + suffix)
    return db.with_name(db.name + suffix)


def load_settings(**overrides: Any) -> Settings:
    """Settings from the environment (``overrides`` win); :class:`SettingsError` if bad."""
    try:
        settings = Settings()
    except ValidationError as error:
        raise SettingsError(_one_line(error)) from None
    if overrides:
        settings = settings.model_copy(update=overrides)
    return settings


def _one_line(error: ValidationError) -> str:
    """The first problem of ``error``, named by its environment variable."""
    first = error.errors()[0]
    field = str(first["loc"][0]) if first["loc"] else ""
    name = ENVIRONMENT_NAMES.get(field, field.upper() or "settings")
    message = str(first["msg"]).removeprefix("Value error, ")
    if first["type"] in ("int_parsing", "int_type"):
        message = f"{first.get('input')!r} is not a number"
    more = len(error.errors()) - 1
    return f"{name}: {message}" + (f" (and {more} more problem(s))" if more else "")


__all__ = [
    "LOG_LEVELS",
    "Settings",
    "SettingsError",
    "beside_database",
    "load_settings",
]
