"""The web server: aiohttp, read only, beside the bot or alone (``arbitro web``).

Routes, each under a signed link (`bot.service.links`):

* ``/game/<channel>/<reader>/<expires>/<signature>`` — a game's page (``?page=N``: that
  page of its log); ``…/map.png`` — its picture as the reader may see it;
* ``/campaign/<channel>/<reader>/<expires>/<signature>`` — a campaign's page;
  ``…/map.png`` — the campaign's map.

Only GET and HEAD are answered (anything else: 405); a tampered or expired link: 403, even
when its page is remembered (the link is checked first). The answers — ETag by chain head
and reader, 304, the remembered pages — are `bot.web.answers`'; they are built on worker
threads of the pages' own (`bot.service.workers`), never on the event loop. Past `PENDING` requests
at once, 503 with Retry-After. Beside a bot the server runs in a process of its own
(`bot.web.beside`): a reader holds neither the bot's event loop nor its commands.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from aiohttp import web

from bot.app.settings import Settings
from bot.service.links import BadLink, Link, LinkSigner
from bot.service.pages import LOG_PAGE, NotFound
from bot.web.answers import HTML, PageBuilder, Rendered
from bot.web.pages import message_html
from db.protocol import GameStore

log = logging.getLogger(__name__)

#: Requests answered at once; past them a reader is told to come back (503).
PENDING = 32
#: What a 503 tells the browser: come back in this many seconds.
RETRY_AFTER_S = 2
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


class PagesBusy(RuntimeError):
    """More requests are being answered than the pages take at once."""


class WebPages:
    """The pages of one store, signed links checked with one signer. At most ``pending``
    requests are answered at once; past that a reader is answered 503 with Retry-After, so
    a crowd of readers never queues unbounded work."""

    def __init__(
        self, store: GameStore, signer: LinkSigner, language: str = "it", *, pending: int = PENDING
    ) -> None:
        self.signer = signer
        self.language = language
        self.pending = pending
        self._answering = 0
        self._builder = PageBuilder(store, signer, language)

    def application(self) -> web.Application:
        """The aiohttp application: the two pages and their pictures, read only."""
        app = web.Application(middlewares=[self._read_only])
        app.router.add_get(_LINK, self._page)
        app.router.add_get(_LINK + "/map.png", self._picture)
        app.on_cleanup.append(self._close)
        return app

    def forget(self) -> None:
        """Drop every remembered page (the benchmark's pages are then built afresh)."""
        self._builder.forget()

    async def _close(self, _: web.Application) -> None:
        self._builder.close()

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
        except PagesBusy:
            return self._message("busy", 503, headers={"Retry-After": str(RETRY_AFTER_S)})
        response.headers.update(SECURITY_HEADERS)
        return response

    def _message(
        self, key: str, status: int, headers: dict[str, str] | None = None
    ) -> web.Response:
        response = web.Response(
            text=message_html(self.language, key, status),
            status=status,
            content_type=HTML,
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
        page = _page_number(request.query.get("page")) if link.kind == "game" else None
        return await self._respond(request, link, False, page)

    async def _picture(self, request: web.Request) -> web.StreamResponse:
        return await self._respond(request, self._link(request), True, None)

    async def _respond(
        self, request: web.Request, link: Link, picture: bool, page: int | None
    ) -> web.StreamResponse:
        if self._answering >= self.pending:
            raise PagesBusy(link.channel)
        held = frozenset(_tags(request.headers.get("If-None-Match", "")))
        self._answering += 1
        try:
            answer = await self._builder.answer(link, picture, page, held)
        finally:
            self._answering -= 1
        if answer.rendered is None:
            return web.Response(status=304, headers={"ETag": answer.tag})
        return web.Response(
            body=answer.rendered.body,
            headers={"ETag": answer.tag, "Content-Type": _content_type(answer.rendered)},
        )


def _content_type(rendered: Rendered) -> str:
    if rendered.content_type == HTML:
        return "text/html; charset=utf-8"
    return rendered.content_type


def _page_number(text: str | None) -> int | None:
    """The log's page asked for (None: the last); nonsense reads as the last."""
    if text is None or not text.isdigit() or len(text) > 9:
        return None
    return int(text)


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


__all__ = ["LOG_PAGE", "PagesBusy", "WebPages", "WebServer", "signer_of", "start_web"]
