"""The after-action report in words (`rules.campaign.report`), on a campaign's log as stored:
who won and by what, every game with how it ended, in the campaign's language."""

from __future__ import annotations

import json
from pathlib import Path

from rules.campaign.events import event_of
from rules.campaign.report import ending_words, report_head, report_tail, winner_line
from rules.campaign.state import CampaignState, replay, standings
from rules.core.i18n import translate

LOG = Path(__file__).parent / "logs" / "linea_gotica_fuzz_1.json"


def _ended() -> CampaignState:
    return replay(event_of(data) for data in json.loads(LOG.read_text("utf-8")))


def test_the_winner_is_the_top_of_the_standings_its_tie_broken_by_the_difference() -> None:
    state = _ended()
    top, second = standings(state)
    assert top.points == second.points and top.difference > second.difference
    assert winner_line(state, "en") == translate(
        "bot.campaign.report.won", "en", side=state.sides[top.side], points=top.points
    )
    assert winner_line(state.model_copy(update={"ended": False}), "en") == translate(
        "bot.campaign.report.leading", "en", side=state.sides[top.side], points=top.points
    )
    assert winner_line(state.model_copy(update={"games": []}), "en") is None


def test_the_head_words_every_game_and_how_it_ended_in_the_campaigns_language() -> None:
    state = _ended()
    head = report_head(state, "fr", in_guild=True)
    assert head[:2] == [f"# {state.name}", ""]
    assert head[2].startswith("**") and "Allemands" in head[2]
    for entry in state.games:
        assert entry.result is not None
        words = ending_words(entry.result.ending, "fr")
        assert words != entry.result.ending  # a known ending is said in words
        assert any(words in line and entry.result.final_hash in line for line in head), words
    assert head[-3:] == ["", f"## {translate('bot.campaign.report.log', 'fr')}", ""]
    assert ending_words("an_ending_no_catalogue_knows", "fr") == "an_ending_no_catalogue_knows"


def test_the_tail_gives_the_logs_head_hash() -> None:
    assert report_tail("en", "ab" * 32) == [
        "",
        translate("bot.campaign.report.head", "en", hash="ab" * 32),
        "",
    ]
