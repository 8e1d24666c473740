"""``/notify``: how a player is told, answered to them alone.

``set`` (a kind, or all, to a mention, a direct message, both, or nothing), ``quiet``
(hours without direct messages, in their time zone), ``digest`` (direct messages wait for
one a day), ``mute`` (this channel's game), ``show`` (the settings and what waits),
``test`` (a direct message now, and whether it arrived) and ``inbox`` (what waits, taken
now: the console shows it when a player takes their seat). Settings hold in the server
they were set in, or everywhere (``everywhere:true``, or in direct messages).
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

from bot.service.errors import ServiceError
from bot.service.handlers import Call, Handler
from bot.service.notices import records
from bot.service.notices.deliver import outcome_of
from bot.service.notices.policy import ALL_KINDS, KINDS, Settings, Via, zone_of
from bot.service.replies import DirectReply, Reply
from bot.service.requests import Request, int_option
from db.protocol import GameStore
from rules.core.i18n import translate
from rules.core.resolution import Outcome


def _guild(request: Request) -> int | None:
    """The scope a command sets: the server, or everywhere."""
    return None if request.options.get("everywhere") else request.guild_id


def _reply(call: Call) -> Reply:
    return Reply(language=call.services.known(call.request.locale), private=True)


async def _settings(call: Call) -> Settings:
    request = call.request
    return await records.settings_of(call.store, _guild(request), request.user_id)


async def _save(call: Call, settings: Settings) -> Reply:
    request = call.request
    await records.save_settings(call.store, _guild(request), request.user_id, settings)
    reply = _reply(call)
    reply.notices += _described(settings, reply.language)
    return reply


def _described(settings: Settings, language: str) -> list[Outcome]:
    """The settings as lines: the kinds each way takes, then the rest."""
    lines = []
    for via in Via:
        kinds = [kind for kind in KINDS if settings.via_of(kind) is via]
        if kinds:
            labels = ", ".join(translate(f"discord.choice.notice.{k}", language) for k in kinds)
            lines.append(Outcome.of(f"bot.notice.show.{via}", kinds=labels))
    if settings.quiet:
        start, stop = settings.quiet
        lines.append(
            Outcome.of("bot.notice.show.quiet", start=start, stop=stop, zone=settings.zone)
        )
    if settings.digest:
        lines.append(Outcome.of("bot.notice.show.digest"))
    if settings.muted:
        lines.append(Outcome.of("bot.notice.show.muted", n=len(settings.muted)))
    if settings.blocked:
        lines.append(Outcome.of("bot.notice.show.blocked"))
    return lines


async def set_via(call: Call) -> Reply:
    """``/notify set kind via``: where a kind of notice (or every kind) goes."""
    options = call.request.options
    kind, way = str(options.get("kind") or ALL_KINDS), str(options.get("via") or "")
    if kind != ALL_KINDS and kind not in KINDS:
        raise ServiceError("error.notice.kind", kind=kind[:40])
    if way not in Via.__members__.values():
        raise ServiceError("error.notice.via", via=way[:40])
    kinds = KINDS if kind == ALL_KINDS else (kind,)
    return await _save(call, (await _settings(call)).with_via(kinds, Via(way)))


async def set_quiet(call: Call) -> Reply:
    """``/notify quiet start stop [zone]``: no direct message between those hours (local;
    equal hours: no quiet hours)."""
    options = call.request.options
    start = int_option(options, "start", 22, 0, 23)
    stop = int_option(options, "stop", 8, 0, 23)
    settings = await _settings(call)
    zone = str(options.get("zone") or settings.zone)
    if zone_of(zone) is None:
        raise ServiceError("error.notice.zone", zone=zone[:60])
    quiet = None if start == stop else (start, stop)
    return await _save(call, replace(settings, quiet=quiet, zone=zone))


async def set_digest(call: Call) -> Reply:
    """``/notify digest daily``: direct messages gathered in one a day (or not)."""
    daily = bool(call.request.options.get("daily", True))
    return await _save(call, replace(await _settings(call), digest=daily))


async def mute(call: Call) -> Reply:
    """``/notify mute [unmute]``: no notice at all from this channel's game."""
    request = call.request
    settings = await records.settings_of(call.store, request.guild_id, request.user_id)
    channel = request.channel_id
    muted = (
        settings.muted - {channel} if request.options.get("unmute") else settings.muted | {channel}
    )
    await records.save_settings(
        call.store, request.guild_id, request.user_id, replace(settings, muted=frozenset(muted))
    )
    reply = _reply(call)
    key = "bot.notice.unmuted" if channel not in muted else "bot.notice.muted"
    reply.notices.append(Outcome.of(key))
    return reply


async def show(call: Call) -> Reply:
    """``/notify show``: the settings, and how many notices wait."""
    reply = _reply(call)
    reply.notices += _described(await _settings(call), reply.language)
    request = call.request
    waiting = await records.pending(call.store, request.guild_id, request.user_id)
    reply.notices.append(Outcome.of("bot.notice.show.waiting", n=len(waiting)))
    return reply


#: What an empty inbox answers: "0 notices wait".
EMPTY_INBOX = "bot.notice.show.waiting"


async def inbox(call: Call) -> Reply:
    """``/notify inbox``: the notices waiting for the asker here, taken now (the console
    shows them when a player takes their seat)."""
    request = call.request
    reply = _reply(call)
    for record in await records.pending_records(call.store, request.guild_id, request.user_id):
        if await records.claim(call.store, record):
            reply.notices.append(outcome_of(records.Notice.of_value(record.value)))
    if not reply.notices:  # said, not an empty answer
        reply.notices.append(Outcome.of(EMPTY_INBOX, n=0))
    return reply


async def _test_refused(store: GameStore, request: Request, language: str) -> Reply:
    await records.record_block(store, request.guild_id, request.user_id)
    return Reply(language=language, private=True, notices=[Outcome.of("bot.notice.test_refused")])


async def test(call: Call) -> Reply:
    """``/notify test``: a direct message now; the asker is told whether it arrived."""
    request = call.request
    language = call.services.known(request.locale)
    return DirectReply(
        language=language,
        user=request.user_id,
        private=True,
        notices=[Outcome.of("bot.notice.test")],
        arrived=Reply(
            language=language, private=True, notices=[Outcome.of("bot.notice.test_arrived")]
        ),
        refused=partial(_test_refused, call.store, request, language),
    )


HANDLERS = (
    Handler(("notify.set",), run=set_via),
    Handler(("notify.quiet",), run=set_quiet),
    Handler(("notify.digest",), run=set_digest),
    Handler(("notify.mute",), run=mute),
    Handler(("notify.show",), read_only=True, run=show),
    Handler(("notify.test",), read_only=True, run=test),
    Handler(("notify.inbox",), run=inbox),
)

__all__ = ["EMPTY_INBOX", "HANDLERS"]
