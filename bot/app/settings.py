"""Settings from the environment (pydantic-settings); built in ``main``, never at import.

A bad value is one line naming the variable (:func:`load_settings` raises
:class:`SettingsError`, ``bot.app.main`` prints it and exits with status 2), never a traceback
from deep inside logging or discord.py.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Literal

from pydantic import AliasChoices, Field, SecretStr, ValidationError, field_validator
from pydantic_core import PydanticUseDefault
from pydantic_settings import BaseSettings, SettingsConfigDict

from bot.render.pool import DEFAULT_WORKERS
from db.open import is_postgres_url, sqlite_path
from rules.core.i18n import LANGUAGES

#: The levels ``ARBITRO_LOG_LEVEL`` accepts (any case).
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")

#: Which environment variable sets each field, for error messages.
ENVIRONMENT_NAMES = {
    "discord_token": "DISCORD_TOKEN",
    "db": "ARBITRO_DB",
    "guild": "ARBITRO_GUILD",
    "log_level": "ARBITRO_LOG_LEVEL",
    "heartbeat": "ARBITRO_HEARTBEAT",
    "shard_count": "ARBITRO_SHARD_COUNT",
    "shard_ids": "ARBITRO_SHARD_IDS",
    "sync_commands": "ARBITRO_SYNC_COMMANDS",
    "language": "ARBITRO_LANGUAGE",
    "roll_window": "ARBITRO_ROLL_WINDOW",
    "roll_limit": "ARBITRO_ROLL_LIMIT",
    "roll_limit_channel": "ARBITRO_ROLL_LIMIT_CHANNEL",
    "roll_limit_seated": "ARBITRO_ROLL_LIMIT_SEATED",
    "web_url": "ARBITRO_WEB_URL",
    "web_host": "ARBITRO_WEB_HOST",
    "web_port": "ARBITRO_WEB_PORT",
    "web_secret": "ARBITRO_WEB_SECRET",
    "web_link_days": "ARBITRO_WEB_LINK_DAYS",
    "web_nice": "ARBITRO_WEB_NICE",
    "web_idle": "ARBITRO_WEB_IDLE",
    "picture_workers": "ARBITRO_PICTURE_WORKERS",
}

#: The shortest web secret accepted: the links' signatures are only as strong as it.
MIN_WEB_SECRET = 16

#: Discord ids (snowflakes) are positive 64-bit integers.
MAX_SNOWFLAKE = 2**63 - 1


class SettingsError(ValueError):
    """A setting with an unusable value; ``str()`` is one line naming the variable."""


class Settings(BaseSettings):
    """Arbitro's settings: ``DISCORD_TOKEN``, ``ARBITRO_DB``, ``ARBITRO_GUILD``,
    ``ARBITRO_LOG_LEVEL``, ``ARBITRO_HEARTBEAT``, ``ARBITRO_LANGUAGE``, the rate limits on
    what may be logged (``ARBITRO_ROLL_WINDOW``, ``ARBITRO_ROLL_LIMIT``,
    ``ARBITRO_ROLL_LIMIT_CHANNEL``, ``ARBITRO_ROLL_LIMIT_SEATED``; `bot.service.limits`), and for
    several bot processes ``ARBITRO_SHARD_COUNT``, ``ARBITRO_SHARD_IDS``,
    ``ARBITRO_SYNC_COMMANDS``; the read-only web pages (`bot.web`, off unless
    ``ARBITRO_WEB_URL`` is set): ``ARBITRO_WEB_URL``, ``ARBITRO_WEB_HOST``,
    ``ARBITRO_WEB_PORT``, ``ARBITRO_WEB_SECRET``, ``ARBITRO_WEB_LINK_DAYS``; the processes the
    maps are drawn in: ``ARBITRO_PICTURE_WORKERS``."""

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
    heartbeat: Path | None = Field(
        None,
        validation_alias=AliasChoices("ARBITRO_HEARTBEAT", "heartbeat"),
        description="the file the running bot stamps while connected (default: beside the db)",
    )
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
        description="auto: the process running shard 0 (or every shard) syncs the commands",
    )

    language: str = Field(
        "it",
        validation_alias=AliasChoices("ARBITRO_LANGUAGE", "language"),
        description="the language of a game created without one, and of the console table",
    )

    # Rate limits on what anyone may add to a channel's log (bot.service.limits); 0 turns one off.
    roll_window: int = Field(
        60,
        ge=1,
        le=86_400,
        validation_alias=AliasChoices("ARBITRO_ROLL_WINDOW", "roll_window"),
        description="the window of the rate limits, in seconds",
    )
    roll_limit: int = Field(
        10,
        ge=0,
        le=100_000,
        validation_alias=AliasChoices("ARBITRO_ROLL_LIMIT", "roll_limit"),
        description="/roll and /game join per window by one person without a seat, per channel",
    )
    roll_limit_channel: int = Field(
        30,
        ge=0,
        le=100_000,
        validation_alias=AliasChoices("ARBITRO_ROLL_LIMIT_CHANNEL", "roll_limit_channel"),
        description="the same, by everyone without a seat in one channel together",
    )
    roll_limit_seated: int = Field(
        120,
        ge=0,
        le=100_000,
        validation_alias=AliasChoices("ARBITRO_ROLL_LIMIT_SEATED", "roll_limit_seated"),
        description="/roll per window by one seated player (or the referee), per channel",
    )

    # The read-only web pages (bot/web/, docs/web.md): off unless web_url is set.
    web_url: str | None = Field(
        None,
        validation_alias=AliasChoices("ARBITRO_WEB_URL", "web_url"),
        description="the pages' public address, as links give it (unset: no web pages)",
    )
    web_host: str = Field(
        "127.0.0.1",
        validation_alias=AliasChoices("ARBITRO_WEB_HOST", "web_host"),
        description="the address the web server listens on (loopback: behind a proxy)",
    )
    web_port: int = Field(
        8080,
        ge=1,
        le=65_535,
        validation_alias=AliasChoices("ARBITRO_WEB_PORT", "web_port"),
        description="the port the web server listens on",
    )
    web_secret: SecretStr | None = Field(
        None,
        validation_alias=AliasChoices("ARBITRO_WEB_SECRET", "web_secret"),
        description="the key the links are signed with (required with ARBITRO_WEB_URL)",
    )
    web_link_days: int = Field(
        30,
        ge=1,
        le=3_650,
        validation_alias=AliasChoices("ARBITRO_WEB_LINK_DAYS", "web_link_days"),
        description="how many days a link given by /game web or /campaign web stays good",
    )
    web_nice: int = Field(
        10,
        ge=0,
        le=19,
        validation_alias=AliasChoices("ARBITRO_WEB_NICE", "web_nice"),
        description="how much lower than the bot's the priority of the pages' process is",
    )
    web_idle: bool = Field(
        False,
        validation_alias=AliasChoices("ARBITRO_WEB_IDLE", "web_idle"),
        description="the pages' process in Linux's idle scheduling class instead of niced",
    )
    picture_workers: int = Field(
        DEFAULT_WORKERS,
        ge=0,
        le=16,
        validation_alias=AliasChoices("ARBITRO_PICTURE_WORKERS", "picture_workers"),
        description="the processes drawing the maps (0: a thread of the bot's process)",
    )

    @field_validator("web_url")
    @classmethod
    def _web_url_is_http(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("http://", "https://")):
            raise ValueError(f"{value[:60]!r} is not an http:// or https:// address")
        return value

    @field_validator("web_secret")
    @classmethod
    def _web_secret_is_long(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and len(value.get_secret_value()) < MIN_WEB_SECRET:
            raise ValueError(f"is too short: at least {MIN_WEB_SECRET} characters")
        return value

    @field_validator("language", mode="before")
    @classmethod
    def _known_language(cls, value: Any) -> str:
        text = str(value).strip().lower() or "it"  # ARBITRO_LANGUAGE= means the default
        if text not in LANGUAGES:
            raise ValueError(f"{value!r} is not one of {', '.join(LANGUAGES)}")
        return text

    @field_validator(
        "discord_token",
        "heartbeat",
        "shard_count",
        "shard_ids",
        "web_url",
        "web_secret",
        mode="before",
    )
    @classmethod
    def _blank_is_unset(cls, value: Any) -> Any:
        """``VAR=`` in a compose or env file means "not set", not an empty value."""
        if isinstance(value, str) and not value.strip():
            return None
        return value

    @field_validator(
        "roll_window",
        "roll_limit",
        "roll_limit_channel",
        "roll_limit_seated",
        "web_host",
        "web_port",
        "web_link_days",
        "web_nice",
        "web_idle",
        "picture_workers",
        mode="before",
    )
    @classmethod
    def _blank_is_default(cls, value: Any) -> Any:
        """``ARBITRO_ROLL_LIMIT=`` means the default limit, not an error."""
        if isinstance(value, str) and not value.strip():
            raise PydanticUseDefault()
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
            raise ValueError("is empty; give the path of the SQLite file or a postgresql:// URL")
        return str(value) if isinstance(value, Path) else value

    @field_validator("shard_ids")
    @classmethod
    def _shard_ids_are_numbers(cls, value: str | None) -> str | None:
        if value is not None and not all(
            part.strip().isdigit() for part in value.split(",") if part.strip()
        ):
            raise ValueError(f"{value!r} is not a comma-separated list of shard numbers")
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

    def shard_id_list(self) -> list[int] | None:
        """``shard_ids`` as numbers (None: every shard)."""
        if self.shard_ids is None:
            return None
        return [int(part) for part in self.shard_ids.split(",") if part.strip()] or None

    def sync_choice(self) -> bool | None:
        """None lets the bot decide (the process running shard 0 syncs); True/False force."""
        return {"auto": None, "yes": True, "no": False}[self.sync_commands]

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


def beside_database(db: str | Path, suffix: str) -> Path:
    """``arbitro.db`` + ``suffix`` in the database's directory (the working directory for
    an in-memory database or a PostgreSQL URL: set ``ARBITRO_HEARTBEAT`` per process when
    several share one directory)."""

    text = str(db)
    if text == ":memory:" or is_postgres_url(text):
        return Path("arbitro" + suffix)
    path = Path(sqlite_path(text))
    return path.with_name(path.name + suffix)


def load_settings(**overrides: Any) -> Settings:
    """Settings from the environment (``overrides`` win); :class:`SettingsError` if bad."""
    try:
        settings = Settings()
    except ValidationError as error:
        raise SettingsError(_one_line(error)) from None
    if overrides:
        settings = settings.model_copy(update=overrides)
    if settings.web_url is not None and settings.web_secret is None:
        raise SettingsError(
            "ARBITRO_WEB_SECRET: required when ARBITRO_WEB_URL is set (a long random text)"
        )
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
    "MIN_WEB_SECRET",
    "Settings",
    "SettingsError",
    "beside_database",
    "load_settings",
]
