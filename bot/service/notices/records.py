"""The notices' records, on the store's generic feature records (no migration).

* ``notice_settings`` — a player's :class:`~bot.service.notices.policy.Settings`, keyed by
  user, in their server's scope, or everywhere (the scope of guild 0);
* ``notice`` — the outbox: one record per notice owed to a player, on the time index at
  the moment it is due, keyed so that one event never queues it twice (``if_absent``);
  delivery claims a record by deleting it at the revision it read (one process wins);
* ``notice_sent`` — when a player last got a direct message of a kind (the limit of one
  per period), taken with a compare-and-set so two processes never both send;
* ``notice_digest`` — what waits for a player's digest, due once a day;
* ``notice_seen`` — a game's deadlines already looked at for their notices (they go with
  the game).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from bot.service.notices.policy import DIGEST_EVERY, Settings, moment, stamp
from bot.service.notices.watchers import note_watcher
from db.models import FeatureRecord, Scope
from db.protocol import GameStore

SETTINGS = "notice_settings"
OUTBOX = "notice"
SENT = "notice_sent"
DIGEST = "notice_digest"
SEEN = "notice_seen"
#: The scope of settings that hold everywhere, and of the per-player ledgers.
EVERYWHERE = Scope.of_guild(0)
#: Attempts at a compare-and-set that lost to another process before giving up.
_ATTEMPTS = 8


def _scope(guild_id: int | None) -> Scope:
    return Scope.of_guild(guild_id or 0)


@dataclass(frozen=True, slots=True)
class Notice:
    """One notice owed to ``user``: its kind, its game (channel, server, title, language),
    and the catalogue parameters of its text; ``page`` the kind of web page its channel has
    (a game's or a campaign's), ``line`` its text's key when not ``bot.notice.<kind>``."""

    user: int
    kind: str
    channel: int
    guild: int | None
    title: str
    language: str
    params: Mapping[str, str]
    page: str = "game"
    line: str = ""

    def to_value(self) -> dict[str, Any]:
        """The record's JSON."""
        return {
            "user": self.user,
            "kind": self.kind,
            "channel": self.channel,
            "guild": self.guild,
            "title": self.title,
            "language": self.language,
            "params": dict(self.params),
            "page": self.page,
            "line": self.line,
        }

    @classmethod
    def of_value(cls, value: Mapping[str, Any]) -> Notice:
        """The notice a record (or a digest's item) holds."""
        guild = value.get("guild")
        return cls(
            user=int(value["user"]),
            kind=str(value["kind"]),
            channel=int(value["channel"]),
            guild=None if guild is None else int(guild),
            title=str(value.get("title") or ""),
            language=str(value.get("language") or ""),
            params={str(k): str(v) for k, v in dict(value.get("params") or {}).items()},
            page="campaign" if value.get("page") == "campaign" else "game",
            line=str(value.get("line") or ""),
        )


# -- settings -----------------------------------------------------------------------------


async def settings_of(store: GameStore, guild_id: int | None, user: int) -> Settings:
    """A player's settings in a server: the server's own, else those for everywhere."""
    return await stored_settings(store, guild_id, user) or Settings()


async def stored_settings(store: GameStore, guild_id: int | None, user: int) -> Settings | None:
    """The settings a player saved for a server (its own, else everywhere); None for a
    player who never chose anything."""
    if guild_id:
        record = await store.feature_get(SETTINGS, _scope(guild_id), str(user))
        if record is not None:
            return Settings.of_value(record.value)
    record = await store.feature_get(SETTINGS, EVERYWHERE, str(user))
    return None if record is None else Settings.of_value(record.value)


async def save_settings(
    store: GameStore, guild_id: int | None, user: int, settings: Settings
) -> None:
    """Keep a player's settings for a server (None or 0: everywhere), and index the player
    among those whose games the notices follow (`watchers`)."""
    await store.feature_put(SETTINGS, _scope(guild_id), str(user), settings.to_value())
    await note_watcher(store, user)


async def record_block(store: GameStore, guild_id: int | None, user: int) -> bool:
    """Note that a player's direct messages refuse the bot, in the settings that sent one
    (the server's, else everywhere): true the first time, false if it was noted already."""
    for scope in (_scope(guild_id), EVERYWHERE):
        record = await store.feature_get(SETTINGS, scope, str(user))
        if record is None:
            continue
        settings = Settings.of_value(record.value)
        if settings.blocked:
            return False
        blocked = Settings.of_value(settings.to_value() | {"blocked": True})
        stored = await store.feature_put(
            SETTINGS, scope, str(user), blocked.to_value(), expected_revision=record.revision
        )
        return stored is not None
    return False


# -- the outbox ---------------------------------------------------------------------------


async def queue(store: GameStore, key: str, notice: Notice, due_at: datetime) -> bool:
    """Queue ``notice`` under ``key`` (what it is about: one event queues it once);
    false if it was queued already."""
    stored = await store.feature_put(
        OUTBOX, _scope(notice.guild), key, notice.to_value(), due_at=due_at, if_absent=True
    )
    return stored is not None


async def relink(
    store: GameStore, guild_id: int | None, keys: list[str], channel: int, link: str
) -> None:
    """Point the notices queued under ``keys`` about ``channel`` at ``link`` (the message
    there that told of them, once posted); one about another channel (where its player
    acts), delivered or moved meanwhile keeps the link it had."""
    scope = _scope(guild_id)
    for key in keys:
        record = await store.feature_get(OUTBOX, scope, key)
        if record is None or record.value.get("channel") != channel:
            continue
        params = {**dict(record.value.get("params") or {}), "link": link}
        await store.feature_put(
            OUTBOX,
            scope,
            key,
            {**record.value, "params": params},
            due_at=record.due_at,
            expected_revision=record.revision,
        )


async def due(store: GameStore, now: datetime) -> list[FeatureRecord]:
    """The notices due at ``now``, earliest first."""
    return await store.feature_due(OUTBOX, now)


async def claim(store: GameStore, record: FeatureRecord) -> bool:
    """Take a queued notice off the outbox: true for the one process whose delete, at the
    revision it read, went through."""
    return await store.feature_delete(
        record.feature, record.scope, record.key, expected_revision=record.revision
    )


async def hold(store: GameStore, record: FeatureRecord, until: datetime) -> bool:
    """Put a notice back until ``until`` (quiet hours): true if this process held it."""
    stored = await store.feature_put(
        record.feature,
        record.scope,
        record.key,
        record.value,
        due_at=until,
        expected_revision=record.revision,
    )
    return stored is not None


async def pending_records(store: GameStore, guild_id: int | None, user: int) -> list[FeatureRecord]:
    """The records of the notices still queued for a player in a server, oldest first."""
    found = await store.feature_list(OUTBOX, _scope(guild_id))
    return [r for r in found if Notice.of_value(r.value).user == user]


async def pending(store: GameStore, guild_id: int | None, user: int) -> list[Notice]:
    """The notices still queued for a player in a server."""
    return [Notice.of_value(r.value) for r in await pending_records(store, guild_id, user)]


async def first_look(store: GameStore, channel_id: int, marker: str) -> bool:
    """True the first time anyone looks at ``marker`` in a game (once across processes)."""
    scope = Scope.of_game(channel_id)
    if await store.feature_get(SEEN, scope, marker) is not None:
        return False
    return await store.feature_put(SEEN, scope, marker, {}, if_absent=True) is not None


# -- the limit of direct messages, and the digest -----------------------------------------


async def take_direct(
    store: GameStore, user: int, kind: str, now: datetime, period: timedelta
) -> bool:
    """Take the player's direct message of ``kind`` for this period: true if none was
    sent within ``period`` of ``now`` and this process recorded this one."""
    key = f"{user}:{kind}"
    for _ in range(_ATTEMPTS):
        record = await store.feature_get(SENT, EVERYWHERE, key)
        last = None if record is None else moment(record.value.get("at"))
        if last is not None and now - last < period:
            return False
        stored = await store.feature_put(
            SENT,
            EVERYWHERE,
            key,
            {"at": stamp(now)},
            if_absent=record is None,
            expected_revision=None if record is None else record.revision,
        )
        if stored is not None:
            return True
    return False


async def fold(store: GameStore, notice: Notice, now: datetime) -> None:
    """Add a notice to its player's digest (due a day after its first notice)."""
    key = str(notice.user)
    for _ in range(_ATTEMPTS):
        record = await store.feature_get(DIGEST, EVERYWHERE, key)
        if record is None:
            value: dict[str, Any] = {"items": [notice.to_value()]}
            stored = await store.feature_put(
                DIGEST, EVERYWHERE, key, value, due_at=now + DIGEST_EVERY, if_absent=True
            )
        else:
            items = [*record.value.get("items", ()), notice.to_value()]
            stored = await store.feature_put(
                DIGEST,
                EVERYWHERE,
                key,
                {"items": items},
                due_at=record.due_at,
                expected_revision=record.revision,
            )
        if stored is not None:
            return
    raise RuntimeError(f"the digest of user {notice.user} kept moving")


async def due_digests(store: GameStore, now: datetime) -> list[FeatureRecord]:
    """The digests due at ``now``."""
    return await store.feature_due(DIGEST, now)


def digest_items(record: FeatureRecord) -> list[Notice]:
    """The notices a digest gathered, in the order they came."""
    return [Notice.of_value(item) for item in record.value.get("items", ())]


__all__ = [
    "DIGEST",
    "EVERYWHERE",
    "OUTBOX",
    "SEEN",
    "SENT",
    "SETTINGS",
    "Notice",
    "claim",
    "digest_items",
    "due",
    "due_digests",
    "first_look",
    "fold",
    "hold",
    "pending",
    "pending_records",
    "queue",
    "record_block",
    "relink",
    "save_settings",
    "settings_of",
    "stored_settings",
    "take_direct",
]
