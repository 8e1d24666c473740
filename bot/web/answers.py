"""What a page's request is answered: the page or picture a checked link may see, or a 304,
built from one store by `PageBuilder` (beside a bot, in the pages' own process:
`bot.web.beside`), on worker threads of its own, never on the event loop.

A response's ETag is made of the chain head of its game or campaign, the reader (and their
link), the language and the page, so a reader refreshing an unchanged page gets a 304
after one read of the store. Rendered responses are kept in a bounded memory (LRU) by that
ETag: a refresh of an unchanged page by a browser that lost its copy costs a lookup, and no
two readers share an entry (the reader is in the tag). What the service builds for a seat
at a head is shared by every reader in that seat: only the links differ between them.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import secrets
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Any

from markupsafe import escape

from bot.render.campaign_map import campaign_map_png
from bot.render.map import render_map
from bot.service.handlers import REQUEST_CHANNEL, Services
from bot.service.limits import LogLimiter
from bot.service.links import Link, LinkSigner
from bot.service.pages import (
    NotFound,
    PageGames,
    campaign_map,
    campaign_page,
    campaign_record,
    forget_log_lines,
    game_context,
    game_map,
    game_page,
    seat_of,
)
from bot.service.stored.table import TableContext
from bot.service.workers import ChannelWorkers
from bot.web.pages import Address, campaign_html, game_html
from db.protocol import GameStore
from rules.core.dice import SystemDice

#: Rendered responses kept in memory, by ETag.
CACHE_ENTRIES = 512
#: Heads whose service builds (by seat) are kept, in all; and per game: the head its
#: readers read now and the one before it (a reader whose read raced a command).
HEADS_KEPT = 64
HEADS_KEPT_PER_GAME = 2
#: Pictures of tables kept in memory, by what they show (each some tens of KB).
PICTURES_REMEMBERED = 64
#: Threads building pages and pictures (apart from the commands' rules workers).
WEB_WORKERS = 2
HTML = "text/html"
PNG = "image/png"
#: Stands for a reader's link in a page laid out once for every reader of a seat: drawn
#: afresh by each process, so no name on a page can spell it.
_LINK_MARK = f"arbitro-link-{secrets.token_hex(16)}-"
_MARKED = re.compile(re.escape(_LINK_MARK) + r"(\w+)-")


@dataclass(frozen=True, slots=True)
class Rendered:
    """A response's body and its content type."""

    body: bytes
    content_type: str


@dataclass(frozen=True, slots=True)
class Answer:
    """What a request is answered: its ETag, and the body (None: 304, the reader's copy is
    current)."""

    tag: str
    rendered: Rendered | None


class PageBuilder:
    """Builds the pages and pictures of one store, and remembers them by ETag."""

    def __init__(self, store: GameStore, signer: LinkSigner, language: str) -> None:
        self.signer = signer
        self._workers = ChannelWorkers(WEB_WORKERS, name="arbitro-web")
        self.services = Services(store, SystemDice(), language, LogLimiter(), self._workers)
        self._cache: OrderedDict[str, Rendered] = OrderedDict()
        # What the service built for a seat at a head, shared by every reader in that seat
        # (the page is the seat's; only its links are the reader's), and built once however
        # many readers ask at the same moment; by (channel, head), a game's older heads
        # forgotten together once it has moved on (`_once`).
        self._built: OrderedDict[tuple[int, str | None], dict[Hashable, asyncio.Future[Any]]]
        self._built = OrderedDict()
        # The tables' pictures by what they show (`_game_picture`).
        self._pictures: OrderedDict[str, bytes] = OrderedDict()
        # The games validated, by their documents: a new head with the same document reads
        # the same state and the views already computed on it.
        self._games = PageGames()

    def forget(self) -> None:
        """Drop every remembered page and log line (the benchmark's pages are then built
        afresh)."""
        self._cache.clear()
        self._built.clear()
        self._pictures.clear()
        self._games.clear()
        forget_log_lines()

    def close(self) -> None:
        """Let the pages' threads go."""
        self._workers.shutdown()

    async def answer(
        self, link: Link, picture: bool, page: int | None, held: frozenset[str]
    ) -> Answer:
        """The answer to ``link``'s reader asking for the page (``page`` of a game's log)
        or its picture, holding the ETags ``held``; `NotFound` without such a game or
        campaign (or picture)."""
        if picture:
            tag, build = await self._picture(link)
        elif link.kind == "game":
            tag, build = await self._game(link, page)
        else:
            tag, build = await self._campaign(link)
        if tag in held:
            return Answer(tag, None)
        rendered = self._cache.get(tag)
        if rendered is not None:
            self._cache.move_to_end(tag)
            return Answer(tag, rendered)
        turn = REQUEST_CHANNEL.set(link.channel)
        try:
            built = await build()
        finally:
            REQUEST_CHANNEL.reset(turn)
        if built is None:
            raise NotFound(link.channel)
        self._cache[tag] = built
        while len(self._cache) > CACHE_ENTRIES:
            self._cache.popitem(last=False)
        return Answer(tag, built)

    async def _picture(self, link: Link) -> tuple[str, Callable[[], Awaitable[Rendered | None]]]:
        services = self.services
        if link.kind == "game":
            context = await game_context(services, link.channel, self._games.held(link.channel))
            tag = etag("map", context.record.head_hash, link, context.record.language)
            shared = ("map", seat_of(context, link))
            at = (link.channel, context.record.head_hash)

            async def build() -> Rendered | None:
                picture = await self._once(at, shared, lambda: self._game_picture(context, link))
                return None if picture is None else Rendered(picture, PNG)

            return tag, build

        head, _, _ = await campaign_record(services, link.channel)

        async def build_campaign() -> Rendered | None:
            view = await campaign_map(services, link.channel)
            if view is None:
                return None
            return Rendered(await services.off_loop(campaign_map_png, view), PNG)

        return etag("map", head, link, ""), build_campaign

    async def _game_picture(self, context: TableContext, link: Link) -> bytes | None:
        """The picture of the table as ``link``'s reader sees it, drawn once per view: a
        new event that changes nothing the reader sees (a seat taken, a deadline) is not
        drawn again."""
        services = self.services
        table = await game_map(services, self._games, context, link)
        if table is None:
            return None
        seen = f"{table.language}|{table.public}|{table.view.model_dump_json()}"
        key = hashlib.sha256(seen.encode()).hexdigest()
        picture = self._pictures.get(key)
        if picture is None:
            picture = await services.off_loop(
                lambda: render_map(table.view, table.language, public=table.public)
            )
            self._pictures[key] = picture
            while len(self._pictures) > PICTURES_REMEMBERED:
                self._pictures.popitem(last=False)
        else:
            self._pictures.move_to_end(key)
        return picture

    async def _game(
        self, link: Link, page: int | None
    ) -> tuple[str, Callable[[], Awaitable[Rendered | None]]]:
        services = self.services
        # One round trip: the head, the seats and the deadlines (a deadline set or passed
        # changes the page without a new event: its records are in the tag too).
        context = await game_context(services, link.channel, self._games.held(link.channel))
        record = context.record
        extra = repr((context.deadlines, context.pace_hours, context.members))
        shared = ("game", seat_of(context, link), page, extra)
        at = (link.channel, record.head_hash)

        async def build() -> Rendered | None:
            shown = await self._once(
                at, shared, lambda: game_page(services, self._games, context, link, page)
            )
            here = self.signer.relative(link)
            other = {
                number: f"{here}?page={number}"
                for number in (shown.page - 1, shown.page + 1)
                if 1 <= number <= shown.pages
            }
            if shown.campaign is not None:
                other[0] = self.signer.relative(link.for_page("campaign", shown.campaign))
            # Laid out once for every reader of the seat, each reader's links put in after.
            marked = Address(_mark("here"), _mark("picture"), {n: _mark(n) for n in other})
            laid_out = await self._once(
                at, ("html", *shared), lambda: services.off_loop(game_html, shown, marked)
            )
            links = {str(number): link for number, link in other.items()}
            links.update(here=here, picture=here + "/map.png")
            return Rendered(_with_links(laid_out, links).encode(), HTML)

        return etag("game", record.head_hash, link, record.language, page, extra), build

    async def _campaign(self, link: Link) -> tuple[str, Callable[[], Awaitable[Rendered | None]]]:
        services = self.services
        head, _, _ = await campaign_record(services, link.channel)

        async def build() -> Rendered | None:
            shown = await campaign_page(services, link.channel, link)
            here = self.signer.relative(link)
            other = {
                game.channel: self.signer.relative(link.for_page("game", game.channel))
                for game in shown.games
            }
            address = Address(here, here + "/map.png", other)
            html = await services.off_loop(campaign_html, shown, address)
            return Rendered(html.encode(), HTML)

        return etag("campaign", head, link, ""), build

    async def _once(
        self, head: tuple[int, str | None], key: Hashable, build: Callable[[], Awaitable[Any]]
    ) -> Any:
        """What ``build`` gives, built once for ``key`` at ``head`` (a game's channel and
        chain head) while it is remembered. A game's heads before the last two are forgotten
        at once, their builds with them: no reader asks for them again (the head is in every
        ETag), and kept they would only swell what the garbage collector walks."""
        builds = self._built.get(head)
        if builds is None:
            builds = self._built[head] = {}
            older = [kept for kept in self._built if kept[0] == head[0] and kept != head]
            for kept in older[: max(0, len(older) - HEADS_KEPT_PER_GAME + 1)]:
                del self._built[kept]
            while len(self._built) > HEADS_KEPT:
                self._built.popitem(last=False)
        else:
            self._built.move_to_end(head)
        future = builds.get(key)
        if future is None:
            future = builds[key] = asyncio.ensure_future(build())
            future.add_done_callback(lambda done: _forget_failed(builds, key, done))
        return await asyncio.shield(future)


def _forget_failed(
    builds: dict[Hashable, asyncio.Future[Any]], key: Hashable, done: asyncio.Future[Any]
) -> None:
    if (done.cancelled() or done.exception() is not None) and builds.get(key) is done:
        del builds[key]


def _mark(name: object) -> str:
    """What a page laid out for every reader of a seat holds in place of a reader's link."""
    return f"{_LINK_MARK}{name}-"


def _with_links(laid_out: str, links: Mapping[str, str]) -> str:
    """A page laid out with `_mark`s, each replaced by its reader's link, escaped as the
    template escapes what it is given."""
    return _MARKED.sub(lambda found: str(escape(links[found.group(1)])), laid_out)


def etag(what: str, head: str | None, link: Link, language: str, *more: object) -> str:
    """A strong ETag: the chain head, the reader (and their link), the language, the page."""
    parts = (what, head or "", link.kind, link.channel, link.reader_text, link.expires, language)
    digest = hashlib.sha256(repr((*parts, *more)).encode()).hexdigest()[:32]
    return f'"{digest}"'


__all__ = ["CACHE_ENTRIES", "HTML", "PNG", "Answer", "PageBuilder", "Rendered", "etag"]
