"""A campaign's pages as typed values and the lines they read as, in a language.

The service answers ``/campaign status`` with a page (:class:`StatusPage`: the campaign's
state; :class:`ListingPage`: the server's campaigns); the front ends render it
(`bot.render_text`, `bot.discord.embeds`) through :func:`page_lines`, and the after-action
report and the web page read the same lines. Nothing here reads a store or a clock.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rules.campaign.postbattle import still_owed
from rules.campaign.state import CampaignResult, CampaignState, GameEntry, standings
from rules.campaign.story import holders, next_step, step_of
from rules.core.errors import RulesError
from rules.core.i18n import translate
from rules.render import channel_label


@dataclass(frozen=True, slots=True)
class StatusPage:
    """``/campaign status`` in the campaign's channel: the campaign as its log builds it,
    and the linked games the store refuses to read (each refusal names its game and says
    why, in the reader's language)."""

    state: CampaignState
    in_guild: bool
    unreadable: tuple[RulesError, ...] = ()


@dataclass(frozen=True, slots=True)
class ListedCampaign:
    """A campaign of the server as the listing names it."""

    channel: int
    name: str
    ruleset: str
    games: int
    ended: bool


@dataclass(frozen=True, slots=True)
class ListingPage:
    """``/campaign status`` outside a campaign's channel: the server's campaigns
    (``unread``: how many more could not be read, left out)."""

    campaigns: tuple[ListedCampaign, ...]
    in_guild: bool
    unread: int = 0


CampaignPage = StatusPage | ListingPage


def page_lines(page: CampaignPage, language: str) -> list[str]:
    """A campaign's page as lines in ``language``."""
    if isinstance(page, ListingPage):
        return listing_lines(page, language)
    lines = status_lines(page.state, language, page.in_guild)
    lines.extend(refusal.localized(language) for refusal in page.unreadable)
    return lines


def listing_lines(page: ListingPage, language: str) -> list[str]:
    """The server's campaigns, one line each (or that there is none)."""
    if not page.campaigns and not page.unread:
        return [translate("bot.campaign.none", language)]
    lines = [translate("bot.campaign.here", language)]
    for listed in page.campaigns:
        over = translate("bot.campaign.listed_over", language) if listed.ended else ""
        lines.append(
            translate(
                "bot.campaign.listed",
                language,
                channel=channel_label(listed.channel, page.in_guild),
                name=listed.name,
                ruleset=listed.ruleset,
                games=listed.games,
                over=over,
            )
        )
    return lines


def signed_difference(value: int) -> str:
    """A points difference as standings print it: ``+3``, ``+0``, ``−1`` (the minus sign)."""
    return f"+{value}" if value >= 0 else f"\u2212{-value}"


def status_lines(state: CampaignState, language: str, in_guild: bool) -> list[str]:
    """The campaign as lines: its title, sides and players, games, standings."""
    points = state.points
    lines = [
        translate(
            "bot.campaign.title",
            language,
            name=state.name,
            ruleset=state.ruleset,
            win=points.win,
            draw=points.draw,
            loss=points.loss,
        )
    ]
    if state.ended:
        lines.append(translate("bot.campaign.over", language))
    nobody = translate("bot.campaign.nobody", language)
    for side, label in state.sides.items():
        players = ", ".join(f"<@{user}>" for user in state.players.get(side, ())) or nobody
        lines.append(translate("bot.campaign.side", language, side=label, players=players))
    for kind, pending in (("request", state.requests), ("invite", state.invitations)):
        lines.extend(
            translate(
                f"bot.campaign.pending_{kind}",
                language,
                user=f"<@{user}>",
                side=state.sides.get(side, side),
            )
            for user, side in pending.items()
        )
    lines.append(translate("bot.campaign.games", language))
    if not state.games:
        lines.append(translate("bot.campaign.no_games", language))
    lines.extend(game_line(state, entry, language, in_guild) for entry in state.games)
    lines.extend(owed_lines(state, language))
    lines.extend(due_lines(state, language))
    lines.extend(book_lines(state, language))
    lines.append(translate("bot.campaign.standings", language))
    for rank, line in enumerate(standings(state), start=1):
        lines.append(
            translate(
                "bot.campaign.standing",
                language,
                rank=rank,
                side=state.sides[line.side],
                played=line.played,
                wins=line.wins,
                draws=line.draws,
                losses=line.losses,
                points=line.points,
                difference=signed_difference(line.difference),
            )
        )
    return lines


def result_words(state: CampaignState, result: CampaignResult, language: str) -> str:
    """A game's result in words: a draw, or won by a side."""
    if result.winner is None:
        return translate("bot.campaign.draw", language)
    return translate("bot.campaign.won_by", language, side=state.sides[result.winner])


def game_line(state: CampaignState, entry: GameEntry, language: str, in_guild: bool) -> str:
    """One linked game: where, from what, and its result (its final hash) if it has one."""
    channel = channel_label(entry.channel, in_guild)
    result = entry.result
    if result is None:
        return translate(
            "bot.campaign.game_playing",
            language,
            number=entry.number,
            channel=channel,
            scenario=entry.scenario,
        )
    scores = " – ".join(
        f"{state.sides.get(side, side)} {value}" for side, value in result.scores.items()
    )
    return translate(
        "bot.campaign.game_result",
        language,
        number=entry.number,
        channel=channel,
        scenario=entry.scenario,
        outcome=result_words(state, result, language),
        scores=scores,
        hash=result.final_hash[:12],
    )


def side_labels(state: CampaignState, sides: Sequence[str]) -> str:
    """Sides by their names, comma separated."""
    return ", ".join(state.sides.get(side, side) for side in sides)


def owed_lines(state: CampaignState, language: str) -> list[str]:
    """The status's lines for what the games owe after the battle."""
    return [
        translate(
            f"bot.campaign.aftermath.status_{owed.kind}",
            language,
            number=owed.number,
            sides=side_labels(state, owed.sides),
            side=owed.sides[0] if owed.kind == "disputable" else "",
        )
        for owed in still_owed(state)
    ]


def due_lines(state: CampaignState, language: str) -> list[str]:
    """The dates the games in play are due by."""
    return [
        translate("bot.campaign.due.line", language, number=number, by=str(by))
        for number, by in sorted(state.calendar.due.items())
        if (entry := state.game(number)) is not None and entry.result is None
    ]


def book_lines(state: CampaignState, language: str) -> list[str]:
    """The book and its map in the status: each area, its holder, the area each game in
    play is fought for."""
    book = state.book
    if book is None:
        return []
    lines = [
        translate(
            "bot.campaign.book.title",
            language,
            title=in_language(book.title, language),
            games=len(book.scenarios),
        )
    ]
    held = holders(state)
    contested = {
        step.area
        for entry in state.games
        if entry.result is None
        if (step := step_of(state, entry)) is not None and step.area is not None
    }
    for area in book.areas:
        holder = held.get(area.id, area.holder)
        key = "bot.campaign.book.contested" if area.id in contested else "bot.campaign.book.area"
        lines.append(
            translate(
                key,
                language,
                area=in_language(area.name, language),
                side=state.sides.get(holder, holder),
            )
        )
    step = next_step(state)
    if step is not None and not state.ended:
        lines.append(translate("bot.campaign.book.next", language, scenario=step.scenario))
    return lines


def in_language(texts: Mapping[str, str], language: str) -> str:
    """A book's text in ``language`` (else its Italian, else the first it has)."""
    return texts.get(language) or texts.get("it") or next(iter(texts.values()), "")


__all__ = [
    "CampaignPage",
    "ListedCampaign",
    "ListingPage",
    "StatusPage",
    "book_lines",
    "due_lines",
    "game_line",
    "in_language",
    "listing_lines",
    "owed_lines",
    "page_lines",
    "result_words",
    "side_labels",
    "signed_difference",
    "status_lines",
]
