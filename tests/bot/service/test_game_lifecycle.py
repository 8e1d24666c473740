"""A channel's games over time, and seats that stay put: through the service and the console."""

from __future__ import annotations

import io
import json

import pytest

from bot.console.render_text import status_text
from bot.console.table import Console
from bot.discord.embeds import status_card
from bot.service import GameService, Request, ServiceError
from bot.service.replies import StatusReply
from db.chain.hashing import verify_export
from rules.core.ruleset import KNOWN_RULESETS
from rules.render import outcome_text
from tests.rulesets import fact, facts

REFEREE, ANNA, BRUNO = 1, 2, 3
GUILD = 77


def request(user: int, verb: str, channel: int = 10, **options) -> Request:
    return Request(channel, user, verb, options, guild_id=GUILD)


async def new_game(service: GameService, channel: int = 10, language: str = "en") -> None:
    await service.handle(
        request(REFEREE, "game.new", channel, scenario="esempio_normandia", language=language)
    )


async def test_a_channel_hosts_a_new_game_after_the_last_one_ended(service, store) -> None:
    await new_game(service)
    await service.handle(request(ANNA, "game.join", side="alleati"))
    with pytest.raises(ServiceError) as refused:
        await new_game(service)
    assert "/game end" in refused.value.localized("en")
    await service.handle(request(REFEREE, "game.end"))
    head = (await store.export(10)).head_hash

    reply = await service.handle(
        request(REFEREE, "game.new", scenario="esempio_normandia", language="fr")
    )
    archived = await store.archived_games(GUILD)
    assert len(archived) == 1 and archived[0].head_hash == head
    assert any(n.key == "bot.games.archived_previous" for n in reply.notices)
    assert (await store.load(10)).version == 1 and (await store.load(10)).language == "fr"
    assert await store.members(10) == [m for m in await store.members(10) if m.role == "referee"]

    listing = await service.handle(request(ANNA, "game.list"))
    assert listing.language == "fr"
    text = "\n".join(listing.lines)
    assert "<#10>" in text and f"n°{archived[0].id}" in text and "archivée" in text
    # The archived game was English; the listing is French, and so is its title.
    assert "Normandie, juin 1944 (exemple)" in text and "Normandy" not in text
    assert "tour 1" in text

    exported = await service.handle(request(BRUNO, "game.export", archive=archived[0].id))
    data = json.loads(exported.files["arbitro-log.json"])
    assert verify_export(data) == head
    assert data["events"][-1]["verb"] == "game.ended"
    report = exported.files["arbitro-report.md"].decode()
    assert report.startswith("# After-action report")  # the archived game was English

    elsewhere = Request(10, BRUNO, "game.export", {"archive": archived[0].id}, guild_id=GUILD + 1)
    with pytest.raises(ServiceError):
        await service.handle(elsewhere)
    with pytest.raises(ServiceError):
        await service.handle(request(BRUNO, "game.export", archive=archived[0].id + 50))


async def test_the_list_names_each_games_turn_and_mover(service) -> None:
    await new_game(service, 10, "en")
    await new_game(service, 11, "en")
    await service.handle(request(REFEREE, "game.end", 11))
    listing = await service.handle(request(ANNA, "game.list", 10))
    assert listing.language == "en"
    assert any("<#10>" in line and "turn 1" in line for line in listing.lines)
    assert any("<#11>" in line and "over" in line for line in listing.lines)
    empty = await service.handle(Request(99, ANNA, "game.list", {}, guild_id=GUILD + 5))
    assert empty.lines and "/game new" in empty.lines[0]


async def test_a_side_is_kept_once_joined_and_joining_closes_at_the_end(service, store) -> None:
    await new_game(service)
    await service.handle(request(ANNA, "game.join", side="alleati"))
    await service.handle(request(ANNA, "game.join", side="alleati"))  # again: harmless
    with pytest.raises(ServiceError) as refused:
        await service.handle(request(ANNA, "game.join", side="asse"))
    assert refused.value.key == "error.service.side_kept"
    assert "Allies" in refused.value.localized("en")
    seats = {m.user_id: m.side for m in await store.members(10)}
    assert seats[ANNA] == "alleati"

    await service.handle(request(ANNA, "game.leave"))
    assert ANNA not in {m.user_id for m in await store.members(10)}
    # Leaving frees the seat, not the player: the other side is still the referee's call.
    with pytest.raises(ServiceError) as kept:
        await service.handle(request(ANNA, "game.join", side="asse"))
    assert kept.value.key == "error.service.side_kept"
    await service.handle(request(ANNA, "game.join", side="alleati"))  # her own, again
    with pytest.raises(ServiceError) as referee:
        await service.handle(request(REFEREE, "game.leave"))
    assert referee.value.key == "error.service.referee_stays"

    await service.handle(request(REFEREE, "game.end"))
    with pytest.raises(ServiceError) as late:
        await service.handle(request(BRUNO, "game.join", side="alleati"))
    assert late.value.key == "error.service.game_ended"


async def test_the_console_starts_a_second_game_after_ending_the_first(service) -> None:
    out = io.StringIO()
    console = Console(service, out, channel_id=5)
    await console.run(
        [
            "/game new scenario:esempio_normandia language:en",
            "/game new scenario:esempio_normandia language:en",
            "/game end",
            "/game new scenario:esempio_normandia language:fr",
            "/game list",
        ],
        interactive=False,
    )
    text = out.getvalue()
    assert "There is already a game in this channel" in text
    assert "archivée sous le n°" in text  # the second game speaks French
    assert "#5 · manovra" in text  # the console names channels plainly


async def test_the_console_speaks_the_games_language_from_its_first_line(service) -> None:
    await service.handle(
        Request(6, REFEREE, "game.new", {"scenario": "esempio_normandia", "language": "en"})
    )
    out = io.StringIO()
    await Console(service, out, channel_id=6).run(["/as bruno"], interactive=False)
    assert "You are now 'bruno'" in out.getvalue()


@pytest.mark.parametrize(
    ("ruleset", "scenario", "title"),
    [(key, fact(key, "BATTLEFIELD"), title) for key, title in facts("BATTLEFIELD_TITLE").items()],
)
@pytest.mark.parametrize("language", ["en", "fr"])
async def test_a_new_games_status_and_map_are_titled_in_its_language(
    service, ruleset: str, scenario: str, title: tuple[str, str, str], language: str
) -> None:
    """A French gotica_incontro read "Linea Gotica, settembre 1944 — incontro a Casaglia
    (esempio)" over its map, its status and its creation, its sides and objectives French."""
    expected = dict(zip(("it", "en", "fr"), title, strict=True))[language]
    created = await service.handle(
        request(REFEREE, "game.new", ruleset=ruleset, scenario=scenario, language=language)
    )
    status = await service.handle(request(ANNA, "game.status"))
    for reply in (created, status):
        assert isinstance(reply, StatusReply) and reply.status is not None
        assert reply.map_view is not None and reply.map_view.title == expected
        assert status_card(reply.status, ruleset, language).title == expected  # Discord's
        assert status_text(reply.status, ruleset, language).startswith(f"## {expected}\n")
    [made] = [n for n in created.notices if n.key == "bot.game.created"]
    assert expected in outcome_text(ruleset, made, language) and title[0] not in (
        outcome_text(ruleset, made, language)
    )
    listing = "\n".join((await service.handle(request(ANNA, "game.list"))).lines)
    assert f" {expected} " in listing and title[0] not in listing


@pytest.mark.parametrize("ruleset", KNOWN_RULESETS)
async def test_a_new_games_status_lists_its_units_as_every_later_status_does(
    service, ruleset: str
) -> None:
    """The creation's status listed the scenario's order and every later one the stored
    document's (sorted keys): pzgren's Americans first, then the Germans first."""
    created = await service.handle(request(REFEREE, "game.new", ruleset=ruleset))
    later = await service.handle(request(REFEREE, "game.status"))
    assert created.status is not None and later.status is not None
    assert [u.id for u in created.status.units] == [u.id for u in later.status.units]
    assert list(created.status.sides) == list(later.status.sides)
