"""A linked game the store refuses (its history altered, its data damaged) on both backends:
``/campaign status`` still shows the campaign, the game flagged on its own line; the
commands that must read that game (``/campaign end``, its ``/campaign aftermath``) are
refused naming it, by its number and channel, in the reader's language; the other games'
commands go on, and ``db check`` names that game's channel."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.console.render_text import reply_text
from rules.campaign.text import page_lines
from rules.core.errors import RulesError
from rules.core.i18n import translate
from tests.bot.service.campaign.test_commands import (
    ANNA,
    CAMPAIGN,
    FIRST,
    REFEREE,
    SECOND,
    Table,
    _campaign,
    settle,
)
from tests.db.conftest import BACKENDS, Backend

EDITS = {
    # Its first event's arguments edited: a process that reads the game anew finds it.
    "history altered": (
        f"UPDATE events SET args = '{{\"to\":1}}' WHERE channel_id = {SECOND} AND seq = 1",
        "error.store.tampered_game",
    ),
    "members edited": (
        f"UPDATE members SET side = 'legione' WHERE channel_id = {SECOND} AND user_id = 3",
        "error.store.tampered_game",
    ),
    # A head past its log: the long game's paged verification finds its events missing.
    "version beyond its log": (
        f"UPDATE games SET version = 999 WHERE channel_id = {SECOND}",
        "error.store.tampered_game",
    ),
}


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    if request.param == "postgres":
        return Backend("postgres", request.getfixturevalue("pg_url"))
    return Backend("sqlite", str(tmp_path / "arbitro.db"))


async def _second_game_in_play(backend: Backend) -> None:
    """Game 1 decided and settled, game 2 linked and in play."""
    store = await backend.open()
    try:
        table = await _campaign(store)
        await table(CAMPAIGN, REFEREE, "campaign.game", scenario="avamposto", channel=FIRST)
        await table(FIRST, REFEREE, "game.decide", result="legione", reason="ok")
        await settle(table, 1, by_players=False)
        await table(CAMPAIGN, REFEREE, "campaign.game", scenario="fuga", channel=SECOND)
    finally:
        await store.close()


@pytest.mark.parametrize("edit", sorted(EDITS))
async def test_a_refused_game_is_named_by_the_campaign(backend: Backend, edit: str) -> None:
    await _second_game_in_play(backend)
    statement, refusal = EDITS[edit]
    await backend.tamper(statement)
    store = await backend.open()  # a process that reads the games anew
    try:
        table = Table(store, "b")
        versions = await table._versions()
        status = await table(CAMPAIGN, ANNA, "campaign.status")
        lines = page_lines(status.page, status.language)
        flagged = [line for line in lines if f"#{SECOND}" in line and "arbitro db check" in line]
        assert len(flagged) == 1, lines
        assert "2" in flagged[0].replace(str(SECOND), "")
        # The rest of the campaign is shown: its title, game 1's result, the standings.
        text = reply_text(status)
        assert "Orbita" in text and "Standings" in text and f"<#{FIRST}>" in text
        for verb, options in (("campaign.end", {}), ("campaign.aftermath", {"game": 2})):
            with pytest.raises(RulesError) as caught:
                await table(CAMPAIGN, REFEREE, verb, **options)
            assert caught.value.key == "error.campaign.game_unreadable", verb
            for language in ("it", "en", "fr"):
                said = caught.value.localized(language)
                assert f"<#{SECOND}>" in said and "2" in said and "{" not in said
                # The store's own refusal follows, in the same language.
                assert translate(refusal, language, detail="")[:25] in said
        # Nothing was written; db check names the game's channel, and only it.
        assert await table._versions() == versions
        problems = await store.check()
        assert problems and all(f"channel {SECOND}" in p for p in problems), problems
        # The other games' commands go on.
        assert reply_text(await table(FIRST, ANNA, "game.status"))
    finally:
        await store.close()
