"""A page as HTML: the service's account of what its reader may see (`bot.service.pages`),
put in words in the page's language (the catalogues) and laid out by the templates.

The templates escape everything they are given (Jinja2's autoescaping): a unit or player
named ``<script>`` is shown as text. The style sheet is inlined; no script, no external
asset: the page reads the same on a phone without JavaScript.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape

from bot.console.render_text import notice_text, owed_lines
from bot.service.maps import status_caption
from bot.service.pages import CampaignPage, GamePage
from bot.service.result_text import result_text, score_text
from rules.core.i18n import colon, semicolon, translate
from rules.core.words import in_language, names_in
from rules.render import value_text

_ENVIRONMENT = Environment(
    loader=PackageLoader("bot.web", "templates"),
    autoescape=select_autoescape(["html"]),
    trim_blocks=True,
    lstrip_blocks=True,
    # The templates ship with the bot: a page need not look whether their files changed.
    auto_reload=False,
)


def load_templates() -> None:
    """Compile every template now, at start (then kept, and frozen with the rest of what
    the process keeps for life: `bot.app.warmup`), not on the first reader's page."""
    for name in _ENVIRONMENT.list_templates(extensions=["html"]):
        _ENVIRONMENT.get_template(name)


def _words(language: str) -> Callable[..., str]:
    """The page's words: ``t("status")`` is ``bot.web.page.status`` in ``language``."""

    def t(key: str, **params: Any) -> str:
        return translate(f"bot.web.page.{key}", language, **params)

    return t


def _render(template: str, language: str, **values: Any) -> str:
    """A template rendered with the page's words and its language's punctuation."""
    return _ENVIRONMENT.get_template(template).render(
        t=_words(language),
        language=language,
        colon=colon(language),
        semicolon=semicolon(language),
        **values,
    )


@dataclass(frozen=True, slots=True)
class Address:
    """Where a page's links lead: the page itself, its picture, its log's pages and the
    page of its game's campaign (or each campaign game's page)."""

    here: str
    picture: str
    other: dict[int, str]


def _reader_label(side: str | None, referee: bool, language: str) -> str:
    """Whose view the page is: the referee's, a side's (by its name), a spectator's."""
    t = _words(language)
    if referee:
        return t("reader_referee")
    if side is not None:
        return t("reader_side", side=side)
    return t("reader_spectator")


def game_html(page: GamePage, address: Address) -> str:
    """The game's page."""
    language, ruleset = page.language, page.ruleset
    reply = page.status
    view = reply.status
    sides = names_in(view.sides, language) if view is not None else {}
    # Who owes is told by side: a player's Discord id means nothing on a web page.
    owed = owed_lines(replace(reply, owed_by={}))
    result = None
    if reply.result is not None:
        result = result_text(reply.result.result, reply.result.sides, ruleset, language)
    score = None
    if reply.score is not None and reply.result is None:
        score = score_text(reply.score.score, reply.score.sides, ruleset, language)
    units = [
        {
            "name": in_language(unit.name, language),
            "side": sides.get(unit.side, unit.side),
            "strength": f"{unit.models}/{unit.initial_models}",
            "place": value_text(ruleset, unit.place, language) if unit.place else "",
            "statuses": ", ".join(value_text(ruleset, s, language) for s in unit.statuses),
            "hidden": unit.hidden,
            "acted": unit.acted,
        }
        for unit in page.units
    ]
    return _render(
        "game.html",
        language,
        title=in_language(view.title, language) if view is not None else ruleset,
        reader=_reader_label(
            sides.get(page.seat.side, page.seat.side) if page.seat.side else None,
            page.seat.referee,
            language,
        ),
        caption=status_caption(view, ruleset, language) if view is not None else "",
        notes=[notice_text(ruleset, note, language) for note in (view.notes if view else ())],
        notices=[page.plain(notice_text(ruleset, notice, language)) for notice in reply.notices],
        owed=owed,
        result=result,
        score=score,
        units=units,
        has_map=page.has_map,
        picture=address.picture,
        log=page.log,
        page=page.page,
        pages=page.pages,
        previous=address.other.get(page.page - 1),
        next=address.other.get(page.page + 1),
        campaign=address.other.get(0),
        head=page.head_hash[:12],
    )


def campaign_html(page: CampaignPage, address: Address) -> str:
    """The campaign's page."""
    language = page.language
    return _render(
        "campaign.html",
        language,
        title=page.name,
        page=page,
        reader=_reader_label(page.side, page.referee, language),
        picture=address.picture,
        games=[(game, address.other.get(game.channel)) for game in page.games],
        head=page.head_hash[:12],
    )


def message_html(language: str, key: str, status: int) -> str:
    """A short page for a refusal (403, 404, 405)."""
    return _render("message.html", language, title=str(status), message=_words(language)(key))


__all__ = ["Address", "campaign_html", "game_html", "load_templates", "message_html"]
