"""The web server: aiohttp, read only, beside the bot or alone (``arbitro web``).

Routes, each under a signed link (`bot.web.links`):

* ``/game/<channel>/<reader>/<expires>/<signature>`` — a game's page (``?page=N``: that
  page of its log); ``…/map.png`` — its picture as the reader may see it;
* ``/campaign/<channel>/<reader>/<expires>/<signature>`` — a campaign's page;
  ``…/map.png`` — the campaign's map.

Only GET and HEAD are answered (anything else: 405); a tampered or expired link: 403. A
response's ETag is made of the chain head of its game or campaign, the reader, the
language and the page, so a reader refreshing an unchanged page gets a 304 after one read
of the store; rendered pages are kept in a small memory by that ETag, so readers of an
unchanged game share the work. Pages and pictures are built on worker threads of their
own (`bot.workers`): a reader never holds the event loop, nor a channel's commands.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from bot.limits import LogLimiter
from bot.render.campaign_map import campaign_map_png
from bot.render.map import render_map
from bot.service.handlers import REQUEST_CHANNEL, Services
from bot.service.web import (
    LOG_PAGE,
    NotFound,
    campaign_map,
    campaign_page,
    campaign_record,
    game_context,
    game_map,
    game_page,
    seat_of,
    use_links,
)
from bot.settings import Settings
from bot.web.links import BadLink, Link, LinkSigner
from bot.web.pages import Address, campaign_html, game_html, message_html
from bot.workers import ChannelWorkers
from db.protocol import GameStore
from rules.core.dice import SystemDice

log = logging.getLogger(__name__)

#: Rendered responses kept in memory, by ETag.
CACHE_ENTRIES = 512
#: Threads building pages and pictures (apart from the commands' rules workers).
WEB_WORKERS = 2
#: Who may load what into a page: its own picture and inline style, nothing else.
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; "
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Robots-Tag": "noindex, nofollow",
    # Personal pages: never in a shared cache; the browser asks again, with its ETag.
    "Cache-Control": "private, no-cache",
}
_LINK = "/{kind:(game|campaign)}/{channel}/{reader}/{expires}/{signature}"
_HTML = "text/html"
_PNG = "image/png"


@dataclass(frozen=True, slots=True)
class Rendered:
    """A response's body and its content type."""

    body: bytes
    content_type: str


class WebPages:
    """The pages of one store, signed links checked with one signer."""

    def __init__(self, store: GameStore, signer: LinkSigner, language: str = "it") -> None:
        self.signer = signer
        self.language = language
        self._workers = ChannelWorkers(WEB_WORKERS, name="arbitro-web")
        self.services = Services(store, SystemDice(), language, LogLimiter(), self._workers)
        self._cache: OrderedDict[str, Rendered] = OrderedDict()
        # What the service built for a seat at a head, shared by every reader in that seat
        # (the page is the seat's; only its links are the reader's), and built once however
        # many readers ask at the same moment.
        self._built: OrderedDict[Hashable, asyncio.Future[Any]] = OrderedDict()

    def application(self) -> web.Application:
        """The aiohttp application: the two pages and their pictures, read only."""
        app = web.Application(middlewares=[self._read_only])
        app.router.add_get(_LINK, self._page)
        app.router.add_get(_LINK + "/map.png", self._picture)
        app.on_cleanup.append(self._close)
        return app

    async def _close(self, _: web.Application) -> None:
        self._workers.shutdown()

    @web.middleware
    async def _read_only(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        if request.method not in ("GET", "HEAD"):
            return self._message("method", 405, headers={"Allow": "GET, HEAD"})
        try:
            response = await handler(request)
        except web.HTTPNotFound:
            return self._message("not_found", 404)
        except BadLink as error:
            log.info("web: refused %s (%s)", request.path, error)
            return self._message("forbidden", 403)
        except NotFound:
            return self._message("not_found", 404)
        response.headers.update(SECURITY_HEADERS)
        return response

    def _message(
        self, key: str, status: int, headers: dict[str, str] | None = None
    ) -> web.Response:
        response = web.Response(
            text=message_html(self.language, key, status),
            status=status,
            content_type=_HTML,
            headers=headers,
        )
        response.headers.update(SECURITY_HEADERS)
        return response

    def _link(self, request: web.Request) -> Link:
        info = request.match_info
        return self.signer.check(
            info["kind"], info["channel"], info["reader"], info["expires"], info["signature"]
        )

    async def _page(self, request: web.Request) -> web.StreamResponse:
        link = self._link(request)
        page = _page_number(request.query.get("page"))
        if link.kind == "game":
            return await self._game(request, link, page)
        return await self._campaign(request, link)

    async def _picture(self, request: web.Request) -> web.StreamResponse:
        link = self._link(request)
        services = self.services
        if link.kind == "game":
            context = await game_context(services, link.channel)
            tag = _etag("map", context.record.head_hash, link, context.record.language)

            async def build() -> Rendered | None:
                table = await game_map(services, context, link)
                if table is None:
                    return None
                picture = await services.off_loop(
                    lambda: render_map(table.view, table.language, public=table.public)
                )
                return Rendered(picture, _PNG)

        else:
            head, _, _ = await campaign_record(services, link.channel)
            tag = _etag("map", head, link, "")

            async def build() -> Rendered | None:
                view = await campaign_map(services, link.channel)
                if view is None:
                    return None
                picture = await services.off_loop(campaign_map_png, view)
                return Rendered(picture, _PNG)

        return await self._respond(request, link.channel, tag, build)

    async def _game(self, request: web.Request, link: Link, page: int | None) -> web.StreamResponse:
        services = self.services
        # One round trip: the head, the seats and the deadlines (a deadline set or passed
        # changes the page without a new event: its records are in the tag too).
        context = await game_context(services, link.channel)
        record = context.record
        extra = repr((context.deadlines, context.pace_hours, context.members))
        tag = _etag("game", record.head_hash, link, record.language, page, extra)

        seat = seat_of(context, link)
        shared = ("game", record.head_hash, seat, page, extra)

        async def build() -> Rendered:
            shown = await self._once(shared, lambda: game_page(services, context, link, page))
            here = self.signer.relative(link)
            other = {
                number: f"{here}?page={number}"
                for number in (shown.page - 1, shown.page + 1)
                if 1 <= number <= shown.pages
            }
            if shown.campaign is not None:
                other[0] = self.signer.relative(link.for_page("campaign", shown.campaign))
            address = Address(here, here + "/map.png", other)
            return Rendered(game_html(shown, address).encode(), _HTML)

        return await self._respond(request, link.channel, tag, build)

    async def _campaign(self, request: web.Request, link: Link) -> web.StreamResponse:
        services = self.services
        head, _, _ = await campaign_record(services, link.channel)
        tag = _etag("campaign", head, link, "")

        async def build() -> Rendered:
            shown = await campaign_page(services, link.channel, link)
            here = self.signer.relative(link)
            other = {
                game.channel: self.signer.relative(link.for_page("game", game.channel))
                for game in shown.games
            }
            address = Address(here, here + "/map.png", other)
            return Rendered(campaign_html(shown, address).encode(), _HTML)

        return await self._respond(request, link.channel, tag, build)

    async def _respond(
        self,
        request: web.Request,
        channel: int,
        tag: str,
        build: Callable[[], Awaitable[Rendered | None]],
    ) -> web.StreamResponse:
        if tag in _tags(request.headers.get("If-None-Match", "")):
            return web.Response(status=304, headers={"ETag": tag})
        rendered = self._cache.get(tag)
        if rendered is None:
            turn = REQUEST_CHANNEL.set(channel)
            try:
                built = await build()
            finally:
                REQUEST_CHANNEL.reset(turn)
            if built is None:
                raise NotFound(channel)
            rendered = self._remember(tag, built)
        else:
            self._cache.move_to_end(tag)
        return web.Response(
            body=rendered.body,
            headers={"ETag": tag, "Content-Type": _content_type(rendered)},
        )

    async def _once(self, key: Hashable, build: Callable[[], Awaitable[Any]]) -> Any:
        """What ``build`` gives, built once for ``key`` while it is remembered."""
        future = self._built.get(key)
        if future is None:
            future = asyncio.ensure_future(build())
            self._built[key] = future
            while len(self._built) > CACHE_ENTRIES:
                self._built.popitem(last=False)
            future.add_done_callback(lambda done: self._forget_failed(key, done))
        else:
            self._built.move_to_end(key)
        return await asyncio.shield(future)

    def _forget_failed(self, key: Hashable, done: asyncio.Future[Any]) -> None:
        if (done.cancelled() or done.exception() is not None) and self._built.get(key) is done:
            del self._built[key]

    def _remember(self, tag: str, rendered: Rendered) -> Rendered:
        self._cache[tag] = rendered
        while len(self._cache) > CACHE_ENTRIES:
            self._cache.popitem(last=False)
        return rendered


def _content_type(rendered: Rendered) -> str:
    if rendered.content_type == _HTML:
        return "text/html; charset=utf-8"
    return rendered.content_type


def _page_number(text: str | None) -> int | None:
    """The log's page asked for (None: the last); nonsense reads as the last."""
    if text is None or not text.isdigit() or len(text) > 9:
        return None
    return int(text)


def _etag(what: str, head: str | None, link: Link, language: str, *more: object) -> str:
    """A strong ETag: the chain head, the reader (and their link), the language, the page."""
    parts = (what, head or "", link.kind, link.channel, link.reader_text, link.expires, language)
    digest = hashlib.sha256(repr((*parts, *more)).encode()).hexdigest()[:32]
    return f'"{digest}"'


def _tags(header: str) -> set[str]:
    """The ETags an If-None-Match header names (weak ones compared as strong)."""
    return {part.strip().removeprefix("W/") for part in header.split(",") if part.strip()}


@dataclass
class WebServer:
    """A running web server; :meth:`stop` closes it."""

    runner: web.AppRunner
    url: str

    async def stop(self) -> None:
        """Stop listening and let the pages' threads go."""
        await self.runner.cleanup()


async def start_web(
    store: GameStore, signer: LinkSigner, host: str, port: int, language: str = "it"
) -> WebServer:
    """Serve the pages of ``store`` on ``host``:``port`` until :meth:`WebServer.stop`."""
    runner = web.AppRunner(WebPages(store, signer, language).application(), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    log.info("web pages on http://%s:%s (links give %s)", host, port, signer.base_url)
    return WebServer(runner, signer.base_url)


def signer_of(settings: Settings) -> LinkSigner | None:
    """The link signer the settings ask for (None: the web pages are off)."""
    if settings.web_url is None or settings.web_secret is None:
        return None
    return LinkSigner(
        settings.web_secret.get_secret_value(), settings.web_url, settings.web_link_days
    )


async def web_beside(settings: Settings, store: GameStore) -> WebServer | None:
    """The web pages beside a bot or a console table, when ``ARBITRO_WEB_URL`` is set:
    the commands' links signed, the server started (None, and ``/game web`` says the pages
    are off, otherwise)."""
    signer = signer_of(settings)
    use_links(signer)
    if signer is None:
        return None
    return await start_web(store, signer, settings.web_host, settings.web_port, settings.language)


__all__ = ["LOG_PAGE", "WebPages", "WebServer", "signer_of", "start_web", "web_beside"]
