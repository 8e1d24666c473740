"""A campaign's pages as typed values and the lines they read as, in a language.

The service answers ``/campaign status``, ``/campaign log`` and ``/campaign roster side:``
with a page (:class:`StatusPage`: the campaign's state; :class:`ListingPage`: the server's
campaigns; :class:`LogPage`: its latest events; :class:`RosterPage`: a side's roster), and
``/campaign aftermath`` with an :class:`AftermathPage`; the front ends render it
(`bot.console.render_text`, `bot.discord.embeds`) through :func:`page_lines`, and the after-action
report, the export and the web page read the same lines. Nothing here reads a store or a
clock.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from rules.campaign.aftermath import EntryAftermath
from rules.campaign.aftermath_fold import AFTERMATH_EVENTS, AftermathEvent
from rules.campaign.events import (
    CampaignAftermath,
    CampaignAftermathReversal,
    CampaignBook,
    CampaignConfirm,
    CampaignCreated,
    CampaignDue,
    CampaignEvent,
    CampaignGame,
    CampaignInvite,
    CampaignJoined,
    CampaignJoinRequest,
    CampaignOverdue,
    CampaignResult,
    CampaignReversal,
    CampaignRoster,
)
from rules.campaign.postbattle import still_owed
from rules.campaign.roster import HISTORY_KEYS, NOTE_KEY, HistoryLine, Roster, RosterEntry, Status
from rules.campaign.rules import CampaignRules, rank_words
from rules.campaign.state import CampaignState, GameEntry, Standing, standings
from rules.campaign.story import holders, next_step, step_of
from rules.core.errors import RulesError
from rules.core.i18n import has_key, semicolon, translate
from rules.core.ruleset import KNOWN_RULESETS
from rules.core.scenario import bundled_titles
from rules.core.words import in_language as name_in_language
from rules.core.words import joined
from rules.render import channel_label

#: A roster shows at most this many of an entry's last history lines.
SHOWN_HISTORY = 3


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


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One event of the campaign's channel: a campaign event, or (``event`` None) another
    event its head hash covers — a free roll — as the service's event schema words it
    (``other``, in the campaign's language, as a game's log words it)."""

    seq: int
    event: CampaignEvent | None = None
    other: str = ""


@dataclass(frozen=True, slots=True)
class LogPage:
    """``/campaign log``: the campaign's latest events, each with who and what."""

    state: CampaignState
    entries: tuple[LogEntry, ...]
    in_guild: bool


@dataclass(frozen=True, slots=True)
class RosterPage:
    """``/campaign roster side:``: a side's roster, each entry with its last history lines
    (``known``: the units the ruleset's scenarios give the side, None when the ruleset has no
    muster; an entry outside them is said never to muster)."""

    state: CampaignState
    side: str
    known: frozenset[str] | None = None


@dataclass(frozen=True, slots=True)
class AftermathPage:
    """``/campaign aftermath`` (and a dispute's re-roll): a side's part as it was rolled,
    read against the campaign's state before it and the ruleset's campaign rules
    (``unrolled``: the sides still to roll their part after it)."""

    state: CampaignState
    event: CampaignAftermath
    rules: CampaignRules
    unrolled: tuple[str, ...] = ()


CampaignPage = StatusPage | ListingPage | LogPage | RosterPage | AftermathPage


def quotes_players(page: CampaignPage) -> bool:
    """Whether a page's lines quote what players wrote and carry no markup of the bot's own
    (a roster's names and history): a front end that reads markup shows them as typed."""
    return isinstance(page, RosterPage)


def page_lines(page: CampaignPage, language: str) -> list[str]:
    """A campaign's page as lines in ``language``."""
    if isinstance(page, ListingPage):
        return listing_lines(page, language)
    if isinstance(page, LogPage):
        return log_lines(page, language)
    if isinstance(page, RosterPage):
        return roster_page_lines(page, language)
    if isinstance(page, AftermathPage):
        return aftermath_page_lines(page, language)
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
    lines.extend(
        standing_line(state, rank, line, language)
        for rank, line in enumerate(standings(state), start=1)
    )
    return lines


def standing_line(state: CampaignState, rank: int, line: Standing, language: str) -> str:
    """A side's line of the standings, at its rank."""
    return translate(
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
        f"{name_in_language(state.sides.get(side, side), language)} {value}"
        for side, value in result.scores.items()
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
    return joined(state.sides.get(side, side) for side in sides)


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
        named = scenario_named(state.ruleset, step.scenario, language)
        lines.append(translate("bot.campaign.book.next", language, scenario=named))
    return lines


def scenario_named(ruleset: str, scenario: str, language: str) -> str:
    """A bundled scenario as players read it: its title in ``language``, then the option
    they type (``/campaign game scenario:fuga``); the id alone without a bundled title."""
    # A ruleset registered from outside ``rules/`` has no bundled titles.
    known = ruleset in KNOWN_RULESETS
    title = bundled_titles(f"rules.{ruleset}").get(scenario) if known else None
    return f"{name_in_language(title, language)}, scenario:{scenario}" if title else scenario


def in_language(texts: Mapping[str, str], language: str) -> str:
    """A book's text in ``language`` (else its Italian, else the first it has)."""
    return texts.get(language) or texts.get("it") or next(iter(texts.values()), "")


# -- the log ----------------------------------------------------------------------------------


def log_lines(page: LogPage, language: str) -> list[str]:
    """The log's events, one line each, numbered as the chain numbers them."""
    return [
        f"#{entry.seq} "
        + (
            entry.other
            if entry.event is None
            else log_text(page.state, entry.event, language, page.in_guild)
        )
        for entry in page.entries
    ]


def log_text(state: CampaignState, event: CampaignEvent, language: str, in_guild: bool) -> str:
    """One campaign event in words."""
    if isinstance(event, AFTERMATH_EVENTS):
        return aftermath_log_text(state, event, language)
    if isinstance(event, CampaignCreated):
        if event.book is not None:
            return created_log_text(event.name, event.ruleset, event.book, language)
        return translate(
            "bot.campaign.log.created", language, name=event.name, ruleset=event.ruleset
        )
    if isinstance(event, CampaignJoined | CampaignJoinRequest | CampaignInvite):
        side = state.sides.get(event.side, event.side)
        approver = None if isinstance(event, CampaignJoinRequest) else event.by
        if isinstance(event, CampaignJoined):
            key = "joined" if approver is None else "approved"
        else:
            key = "join_request" if isinstance(event, CampaignJoinRequest) else "invite"
        return translate(
            f"bot.campaign.log.{key}",
            language,
            user=f"<@{event.user}>",
            side=side,
            by=f"<@{approver}>",
        )
    if isinstance(event, CampaignGame):
        number = next(
            (
                e.number
                for e in state.games
                if e.channel == event.channel and e.scenario == event.scenario
            ),
            "?",
        )
        channel = channel_label(event.channel, in_guild)
        return translate(
            "bot.campaign.log.game",
            language,
            number=number,
            channel=channel,
            scenario=event.scenario,
        )
    if isinstance(event, CampaignResult):
        return translate(
            "bot.campaign.log.result",
            language,
            number=event.number,
            outcome=result_words(state, event, language),
            hash=event.final_hash[:12],
        )
    if isinstance(event, CampaignRoster):
        return translate(
            "bot.campaign.log.roster",
            language,
            side=state.sides.get(event.side, event.side),
            source=event.source,
            n=len(event.roster.entries),
        )
    if isinstance(event, CampaignReversal):
        return translate(
            "bot.campaign.log.reversal", language, number=event.number, reason=event.reason
        )
    if isinstance(event, CampaignBook | CampaignDue | CampaignOverdue):
        return book_log_text(state, event, language)
    return translate("bot.campaign.log.ended", language)


def aftermath_log_text(state: CampaignState, event: AftermathEvent, language: str) -> str:
    """A post-battle event in the campaign's log."""
    if isinstance(event, CampaignAftermath):
        typed = translate("bot.campaign.aftermath.typed", language) if event.by_hand else ""
        text = translate(
            "bot.campaign.log.aftermath",
            language,
            number=event.number,
            entries=event.entries(),
            dice=event.dice(),
            typed=typed,
        )
        if event.disputed:
            return f"{disputed_line(state, event, language)} {text}"
        if event.side is None:
            return text
        side = state.sides.get(event.side, event.side)
        return translate("bot.campaign.log.aftermath_side", language, side=side, text=text)
    if isinstance(event, CampaignConfirm):
        if event.side is None:
            return translate("bot.campaign.log.validated", language, number=event.number)
        side = state.sides.get(event.side, event.side)
        return translate("bot.campaign.log.confirmed", language, side=side, number=event.number)
    if isinstance(event, CampaignAftermathReversal):
        return translate("bot.campaign.log.aftermath_reversal", language, number=event.number)
    return translate(
        "bot.campaign.log.adjusted",
        language,
        side=state.sides.get(event.side, event.side),
        unit=event.unit,
        field=field_name(event.field, language),
        value=value_words(state.ruleset, event.field, event.value, language),
        reason=event.reason,
    )


def disputed_line(state: CampaignState, event: CampaignAftermath, language: str) -> str:
    """Who disputed a side's typed part, which the bot rolled again."""
    assert event.side is not None
    by = (
        state.sides.get(event.by, event.by)
        if event.by is not None
        else translate("bot.campaign.aftermath.referee", language)
    )
    return translate(
        "bot.campaign.aftermath.disputed", language, by=by, side=state.sides[event.side]
    )


def field_name(field: str, language: str) -> str:
    """An adjustable field of a roster entry in words (its id when the catalogue lacks it)."""
    key = f"bot.campaign.field.{field}"
    return translate(key, language) if has_key(key, language) else field


def value_words(ruleset: str, field: str, value: str, language: str) -> str:
    """An adjusted value as players read it: a rank in words, anything else as written."""
    return rank_words(ruleset, value, language) if field == "rank" and value != "-" else value


def created_log_text(name: str, ruleset: str, book: CampaignBook, language: str) -> str:
    """A campaign's created event that carries its book, in words."""
    return translate(
        "bot.campaign.log.created_book",
        language,
        name=name,
        ruleset=ruleset,
        title=in_language(book.title, language),
    )


def book_log_text(
    state: CampaignState, event: CampaignBook | CampaignDue | CampaignOverdue, language: str
) -> str:
    """A book or calendar event of the campaign's log in words."""
    if isinstance(event, CampaignBook):
        return translate(
            "bot.campaign.log.book", language, title=in_language(event.title, language)
        )
    if isinstance(event, CampaignDue):
        return translate("bot.campaign.log.due", language, number=event.number, by=str(event.by))
    return translate(
        "bot.campaign.log.overdue",
        language,
        number=event.number,
        decision=event.decision,
        detail=str(event.until) if event.until else state.sides.get(event.side or "", ""),
    )


# -- a side's roster --------------------------------------------------------------------------


def roster_page_lines(page: RosterPage, language: str) -> list[str]:
    """A side's roster, or that the side has none."""
    roster = page.state.rosters.get(page.side)
    if roster is None:
        side = page.state.sides.get(page.side, page.side)
        return [translate("bot.campaign.roster.none", language, side=side)]
    return roster_lines(page.state, roster, language, page.known)


def roster_lines(
    state: CampaignState, roster: Roster, language: str, known: Collection[str] | None
) -> list[str]:
    """A side's roster as lines: a title, then each entry and its last history lines;
    an entry no scenario has is said never to muster."""
    lines = [
        translate(
            "bot.campaign.roster.title",
            language,
            side=state.sides.get(roster.side, roster.side),
            n=len(roster.entries),
        )
    ]
    for entry in roster.entries:
        lines.append(_entry_line(entry, state.ruleset, language, known))
        for line in entry.history[-SHOWN_HISTORY:]:
            lines.append("  · " + history_text(line, language, state.ruleset))
    return lines


def history_text(line: HistoryLine, language: str, ruleset: str = "") -> str:
    """A history line in words: the bot's own through the catalogue, anything else (a
    roster file's line, an older log's) quoted as the player's words, never looked up.
    An adjustment names its field, and a rank it set, in the reader's words."""
    if line.what in HISTORY_KEYS and line.what != NOTE_KEY:
        params = dict(line.params)
        if params.get("field") == "rank" and ruleset:
            for end in ("before", "after"):
                if params.get(end) not in (None, "-"):
                    params[end] = rank_words(ruleset, str(params[end]), language)
        if "field" in params:
            params["field"] = field_name(str(params["field"]), language)
        return translate(line.what, language, **params)
    text = line.params.get("text", "") if line.what == NOTE_KEY else line.what
    return translate(NOTE_KEY, language, text=str(text))


def status_text(entry: RosterEntry, language: str) -> str:
    """A roster entry's status in words (recovering: until which game)."""
    if entry.status is Status.RECOVERING:
        return translate("bot.campaign.roster.recovering", language, until=entry.until or 0)
    return translate(f"bot.campaign.roster.{entry.status.value}", language)


def _entry_line(
    entry: RosterEntry, ruleset: str, language: str, known: Collection[str] | None
) -> str:
    status = status_text(entry, language)
    text = translate(
        "bot.campaign.roster.entry",
        language,
        name=entry.name,
        id=entry.id,
        strength=entry.strength,
        full=entry.full,
        casualties=entry.casualties,
        experience=entry.experience,
        rank=rank_words(ruleset, entry.rank, language),
        status=status,
    )
    if known is not None and entry.id not in known:
        text += translate("bot.campaign.roster.never_musters", language)
    return text


# -- a side's aftermath, rolled ------------------------------------------------------------


def aftermath_page_lines(page: AftermathPage, language: str) -> list[str]:
    """A side's part of the aftermath as rolled (after a dispute, who disputed it), then
    what comes next: the sides still to roll, or the confirmations; a typed part may be
    disputed."""
    state, event = page.state, page.event
    lines = aftermath_lines(state, event, page.rules, language)
    if event.disputed and event.side is not None:
        lines.insert(1, disputed_line(state, event, language))
    if page.unrolled:
        lines.append(
            translate(
                "bot.campaign.aftermath.next_side",
                language,
                number=event.number,
                sides=side_labels(state, page.unrolled),
                n=len(page.unrolled),
            )
        )
    else:
        lines.append(translate("bot.campaign.aftermath.next", language, number=event.number))
    if event.by_hand and event.side is not None:
        lines.append(
            translate(
                "bot.campaign.aftermath.disputable",
                language,
                number=event.number,
                side=event.side,
            )
        )
    return lines


def aftermath_lines(
    state: CampaignState, event: CampaignAftermath, rules: CampaignRules, language: str
) -> list[str]:
    """The aftermath in words: a title, and a line per entry with its dice and changes."""
    typed = translate("bot.campaign.aftermath.typed", language) if event.by_hand else ""
    lines = [
        translate(
            "bot.campaign.aftermath.title",
            language,
            number=event.number,
            name=state.name,
            typed=typed,
        )
    ]
    for side, changes in event.sides.items():
        roster = state.rosters[side]
        for change in changes:
            entry = roster.entry(change.unit)
            name = entry.name if entry is not None else change.unit
            full = entry.full if entry is not None else change.after.strength
            lines.append(
                entry_line(state.sides.get(side, side), name, full, change, rules, language)
            )
    if len(lines) == 1:
        lines.append(translate("bot.campaign.aftermath.nothing", language))
    return lines


def entry_line(
    side: str,
    name: str,
    full: int,
    change: EntryAftermath,
    rules: CampaignRules,
    language: str,
) -> str:
    """One entry's aftermath: its dice, bands and the values before and after."""
    parts: list[str] = []
    if change.destroyed is not None:
        parts.append(
            translate(
                "bot.campaign.aftermath.destroyed",
                language,
                die=f"D{rules.destroyed.die}",
                face=change.destroyed.face,
                fate=fate_words(change.destroyed.fate, change.destroyed.games, language),
            )
        )
    if change.fates:
        back = sum(1 for roll in change.fates if roll.fate == "returns")
        parts.append(
            translate(
                "bot.campaign.aftermath.fates",
                language,
                n=len(change.fates),
                die=f"D{rules.casualties.die}",
                faces=" ".join(str(roll.face) for roll in change.fates),
                back=back,
                dead=len(change.fates) - back,
            )
        )
    if change.experience:
        parts.append(
            translate(
                "bot.campaign.aftermath.experience",
                language,
                gained=change.experience,
                total=change.after.experience,
            )
        )
    if change.promoted is not None:
        promoted = rules.rank_name(change.promoted, language)
        parts.append(translate("bot.campaign.aftermath.promoted", language, rank=promoted))
    if change.replaced:
        parts.append(translate("bot.campaign.aftermath.replaced", language, n=change.replaced))
    if change.after.status is Status.RECOVERING and change.after.until is not None:
        parts.append(
            translate("bot.campaign.aftermath.recovering", language, until=change.after.until)
        )
    return translate(
        "bot.campaign.aftermath.entry",
        language,
        side=side,
        unit=name,
        before=change.before.strength,
        after=change.after.strength,
        full=full,
        details=f"{semicolon(language)} ".join(parts),
    )


def fate_words(fate: str, games: int, language: str) -> str:
    """A fate band in words (recovering: for how many games)."""
    return translate(f"bot.campaign.fate.{fate}", language, games=games)


__all__ = [
    "SHOWN_HISTORY",
    "CampaignPage",
    "ListedCampaign",
    "ListingPage",
    "LogEntry",
    "LogPage",
    "RosterPage",
    "StatusPage",
    "aftermath_lines",
    "aftermath_log_text",
    "aftermath_page_lines",
    "book_lines",
    "book_log_text",
    "created_log_text",
    "disputed_line",
    "due_lines",
    "entry_line",
    "fate_words",
    "field_name",
    "game_line",
    "history_text",
    "in_language",
    "listing_lines",
    "log_lines",
    "log_text",
    "owed_lines",
    "page_lines",
    "quotes_players",
    "result_words",
    "roster_lines",
    "roster_page_lines",
    "side_labels",
    "signed_difference",
    "standing_line",
    "status_lines",
    "status_text",
    "value_words",
]
