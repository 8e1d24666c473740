"""``arbitro db replay`` and ``db check`` on a database holding a campaign: the campaign's
log replays through the campaign's fold to its stored state (a forged state diverges at its
event), its linked games replay as games; ``db check`` reports, one line each naming the
campaign's and the game's channels, a result that does not name its game's final event and
a game that names the campaign without being listed."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from bot.app.main import main
from bot.service import GameService, Request
from bot.service.stored.campaign import CampaignLink, link_game
from db.models import NewEvent
from db.open import open_store

REFEREE, ANNA, BRUNO = 1, 2, 3
CAMPAIGN, FIRST, STRAY = 500, 501, 509


async def _campaign_with_a_game(path: str) -> None:
    async with await open_store(path) as store:
        service = GameService(store)
        count = 0

        async def say(where: int, user: int, verb: str, **options: Any) -> Any:
            nonlocal count
            count += 1
            request = Request(where, user, verb, options, guild_id=7, interaction_id=f"i{count}")
            return await service.handle(request)

        await say(CAMPAIGN, REFEREE, "campaign.new", ruleset="w40k4", name="Orbita")
        await say(CAMPAIGN, ANNA, "campaign.join", side="legione")
        await say(CAMPAIGN, BRUNO, "campaign.join", side="predoni")
        await say(CAMPAIGN, REFEREE, "campaign.game", scenario="avamposto", channel=FIRST)
        await say(FIRST, REFEREE, "game.decide", result="legione", reason="ok")


def test_db_replay_folds_a_campaign_and_replays_its_games(tmp_path: Path, capsys) -> None:
    path = str(tmp_path / "arbitro.db")
    asyncio.run(_campaign_with_a_game(path))
    capsys.readouterr()
    assert main(["db", "replay", "--db", path]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"channel {CAMPAIGN} (campaign, ") and out[0].endswith(": ok")
    assert out[1].startswith(f"channel {FIRST} (w40k4, ")
    assert out[-1].endswith("2 game(s) replayed, 0 diverging")
    assert main(["db", "check", "--db", path]) == 0
    # A campaign state that is not the fold of its log: it diverges at that event.
    seq = asyncio.run(_forge(path))
    capsys.readouterr()
    assert main(["db", "replay", "--channel", str(CAMPAIGN), "--db", path]) == 1
    line = capsys.readouterr().out.splitlines()[0]
    assert f"diverges at event {seq}" in line, line


async def _forge(path: str) -> int:
    """A campaign event whose stored state is not what the fold makes of it."""
    async with await open_store(path) as store:
        record = await store.load(CAMPAIGN)
        forged = dict(record.document, name="Forged")
        joined = {"type": "campaign.joined", "side": "legione", "user": 42}
        event = NewEvent(verb="campaign.joined", args={"campaign": joined})
        committed = await store.commit(CAMPAIGN, record.version, forged, event)
        return committed.event.seq


def test_db_check_names_the_campaign_and_game_of_each_broken_invariant(
    tmp_path: Path, capsys
) -> None:
    path = str(tmp_path / "arbitro.db")
    asyncio.run(_campaign_with_a_game(path))
    asyncio.run(_break_invariants(path))
    capsys.readouterr()
    assert main(["db", "check", "--db", path]) == 1
    out = capsys.readouterr().out.splitlines()
    assert any(
        f"campaign {CAMPAIGN}: game 2 (channel {STRAY})" in line and "does not list it" in line
        for line in out
    ), out
    assert any(
        f"campaign {CAMPAIGN}: game 1 (channel {FIRST})" in line and "result" in line
        for line in out
    ), out
    assert not any("Traceback" in line for line in out)


async def _break_invariants(path: str) -> None:
    async with await open_store(path) as store:
        # A game that names the campaign as its game 2, which the campaign never listed.
        await store.create_game(
            STRAY,
            guild_id=7,
            ruleset="w40k4",
            language="it",
            document=(await store.load(FIRST)).document,
            status="active",
            origin={"campaign": {"channel": CAMPAIGN, "number": 2}},
        )
        await link_game(store, STRAY, CampaignLink(CAMPAIGN, 2))
        # The game's end undone behind the campaign's back: the result held names an
        # event that is no longer the game's last.
        await store.undo(FIRST)
