"""A short campaign at the console table: two linked games in channels of their own
(``/channel N``), their results in the campaign's standings, a bad command refused."""

from __future__ import annotations

import io

from bot.console import Console
from bot.service import GameService
from rules.core.campaign import CampaignState, standings

SCRIPT = """\
/campaign new ruleset:manovra name:Normandia win:2 draw:1 loss:0 language:en
/as anna
/campaign join side:alleati
/as bruno
/campaign join side:asse
/campaign game scenario:normandia_incontro channel:#2
/as arbitro
/campaign game scenario:normandia_incontro channel:x
/campaign game scenario:normandia_incontro channel:#2
/channel 2
/game end result:alleati reason:"the bridge held"
/channel 1
/campaign game scenario:normandia_sfondamento channel:3
/channel 3
/game end result:draw reason:nightfall
/channel 1
/campaign status
/campaign log count:4
"""


async def test_a_short_campaign_at_the_console(store) -> None:
    out = io.StringIO()
    console = Console(GameService(store), out)
    errors = await console.run(SCRIPT.splitlines(), interactive=False)
    text = out.getvalue()
    # Bruno is no referee; "x" is no channel.
    assert errors == 2, text
    assert "Only the campaign's referee can do that." in text
    assert "channel: 'x' is not a channel number." in text
    assert "Now in channel #2." in text
    assert "Game 1 of «Normandia» starts in #2 (normandia_incontro)" in text
    assert "The result enters the campaign «Normandia» (game 1)." in text
    assert "1. #2 (normandia_incontro): Alleati won" in text
    assert "2. #3 (normandia_sfondamento): draw" in text
    assert "1. Alleati: 2 games, 1-1-0, 3 points" in text
    assert "2. Asse: 2 games, 0-1-1, 1 point" in text
    state = CampaignState.from_json((await store.load(1)).document)
    assert [s.points for s in standings(state)] == [3, 1]
    # The second game's players were seated from the campaign: anna plays Alleati there.
    assert {(m.side, m.role) for m in await store.members(3)} >= {("alleati", "player")}


async def test_a_channel_number_past_discords_is_refused_not_a_crash(store) -> None:
    """A channel is a Discord snowflake (a positive 64-bit integer): a longer number typed at
    /channel or in a channel option is refused in one line, not a traceback from the store."""
    out = io.StringIO()
    huge = "99999999999999999999999"
    console = Console(GameService(store), out, language="en")
    errors = await console.run(
        [
            f"/channel {huge}",
            "/campaign new ruleset:w40k4 name:Camp",
            f"/campaign game scenario:avamposto channel:#{huge}",
            f"/channel {2**63 - 1}",
            "/game status",
        ],
        interactive=False,
    )
    text = out.getvalue()
    assert "Traceback" not in text and "OverflowError" not in text
    assert errors >= 2
    assert f"Now in channel #{2**63 - 1}." in text  # the largest one is a channel
