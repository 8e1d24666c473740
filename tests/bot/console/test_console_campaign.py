"""A short campaign at the console table: two linked games in channels of their own
(``/channel N``), the first's aftermath rolled by each side and confirmed by both players in
between, their results in the campaign's standings, a bad command refused."""

from __future__ import annotations

import io
from types import SimpleNamespace

from bot.console.table import Console
from bot.service import GameService
from bot.service.campaign.ledger import log_event
from rules.campaign.events import CampaignRoster
from rules.campaign.roster import Roster, RosterEntry
from rules.campaign.state import CampaignState, standings

SCRIPT = """\
/campaign new ruleset:manovra name:Normandia win:2 draw:1 loss:0 language:en
/campaign invite user:anna side:alleati
/campaign invite user:bruno side:asse
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
/as anna
/campaign aftermath game:1
/campaign confirm game:1
/as bruno
/campaign aftermath game:1
/campaign confirm game:1
/as anna
/campaign confirm game:1
/as arbitro
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
    # Bruno is no referee; "x" is no channel; Anna's first confirmation waits for Bruno's roll.
    assert errors == 3, text
    assert "not rolled by every side yet (still to roll: Axis" in text
    assert "Only the campaign's referee can do that." in text
    assert "channel: 'x' is not a channel number." in text
    assert "Now in channel #2." in text
    assert "Game 1 of «Normandia» starts in #2 (normandia_incontro)" in text
    assert "The result enters the campaign «Normandia» (game 1)." in text
    assert "After game 1 of «Normandia»:" in text
    assert "The aftermath of game 1 is settled" in text
    assert "1. #2 (normandia_incontro): Allies won" in text
    assert "2. #3 (normandia_sfondamento): draw" in text
    assert "1. Allies: 2 games, 1-1-0, 3 points" in text
    assert "2. Axis: 2 games, 0-1-1, 1 point" in text
    state = CampaignState.from_json((await store.load(1)).document)
    assert [s.points for s in standings(state)] == [3, 1]
    # The second game's players were seated from the campaign: anna plays Allies there.
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


async def test_after_the_battle_at_the_console(store) -> None:
    """The post-battle sequence at the console: rolled with typed dice, confirmed by each
    side, corrected by the referee, the next game waiting until it is settled."""
    out = io.StringIO()
    console = Console(GameService(store), out, language="en")
    opening = _opening("manovra", "Normandia", "alleati", "asse")
    assert await console.run(opening, interactive=False) == 0, out.getvalue()
    # The rosters, as the rosters part sets them between games (squadra_1 carries 2 casualties).
    allies = Roster(
        side="alleati",
        entries=(
            RosterEntry(
                id="squadra_1", name="1ª squadra", strength=8, full=10, casualties=2, rank="reclute"
            ),
        ),
    )
    record = await store.load(1)
    state = CampaignState.from_json(record.document)
    await log_event(
        SimpleNamespace(store=store),
        record,
        state,  # type: ignore[arg-type]
        CampaignRoster(side="alleati", roster=allies),
        actor_id=None,
        interaction_id=None,
    )
    errors = await console.run(
        [
            "/as arbitro",
            "/campaign game scenario:normandia_incontro channel:2",
            "/channel 2",
            '/game end result:alleati reason:"the bridge held"',
            "/channel 1",
            "/campaign game scenario:normandia_sfondamento channel:3",
            "/as anna",
            "/campaign aftermath game:1 dice:2,5",
            "/as bruno",
            "/campaign aftermath game:1",
            "/as anna",
            "/campaign confirm game:1",
            "/as arbitro",
            "/campaign game scenario:normandia_sfondamento channel:3",
            "/campaign adjust side:alleati unit:squadra_1 field:rank value:veterani"
            ' reason:"field promotion"',
            "/campaign confirm game:1",
            "/campaign game scenario:normandia_sfondamento channel:3",
            "/campaign log count:5",
        ],
        interactive=False,
    )
    text = out.getvalue()
    assert errors == 2, text
    assert (
        "Game 1 still owes its aftermath: each side rolls its own with /campaign aftermath" in text
    )
    assert "After game 1 of «Normandia» (dice typed by the player):" in text
    # D6 2: back, 5: lost; 9 + 1 + 1 replacements (winner) = 10 of 10; 3 experience
    assert (
        "Allies, 1ª squadra: strength 8 → 10 of 10 (2 casualties, D6 2 5: 1 back, 1 lost; "
        "+3 experience (3); +1 replacement)" in text
    )
    assert "Aftermath of game 1 confirmed for Allies." in text
    assert "awaits the confirmation of Axis" in text
    # The rank in the campaign's English words (ids in the rosters and the log).
    assert "Allies, 1ª squadra: rank recruits → veterans (field promotion)" in text
    assert "The referee validates the aftermath of game 1 for every side." in text
    assert "Game 2 of «Normandia» starts in #3" in text
    assert "adjustment: Allies, squadra_1: rank = veterans (field promotion)" in text
    state = CampaignState.from_json((await store.load(1)).document)
    squad = state.rosters["alleati"].entry("squadra_1")
    assert squad is not None and (squad.strength, squad.rank) == (10, "veterani")


async def test_a_second_game_linked_while_the_first_is_in_play(store) -> None:
    """Game 2 linked while game 1 is in play leaves game 1's units behind, named on its
    muster line; a game with nobody left to field is refused naming each unit and its game;
    once game 1's aftermath is confirmed its units take the field again, game 2's not."""
    out = io.StringIO()
    console = Console(GameService(store), out, language="en")
    lines = [
        *_opening("pzgren", "Ardennes", "us", "de"),
        "/as arbitro",
        "/campaign game scenario:exemple_ardennes channel:#2"
        " leave:us_rifle_2,us_mortar,us_m10,de_pzgren_2,de_hmg,de_panther",
        "/campaign game scenario:rencontre_hosingen channel:#3",
        "/campaign game scenario:rencontre_hosingen channel:#4",
        "/channel 2",
        '/game end result:us reason:"the hill held"',
        "/channel 1",
        "/campaign aftermath game:1",
        "/campaign confirm game:1",
        "/campaign game scenario:percee_clervaux channel:#4",
    ]
    errors = await console.run(lines, interactive=False)
    text = out.getvalue()
    assert errors == 1, text  # the game with nobody to field
    assert "1st Rifle Platoon (fighting in game 1), GMC Truck (fighting in game 1)" in text
    assert "Game 3: side Americans would field no unit" in text
    assert "us_rifle_1 (1), us_rifle_2 (2)" in text
    assert "Panther (fighting in game 2)" in text  # game 3 in #4, after game 1's aftermath
    state = CampaignState.from_json((await store.load(1)).document)
    assert [entry.number for entry in state.games] == [1, 2, 3]
    assert "us_rifle_1" in state.game(3).fielded["us"]  # type: ignore[union-attr]


def _opening(ruleset: str, name: str, anna: str, bruno: str) -> list[str]:
    """A campaign created in English, anna invited to and joining side ``anna``, bruno
    ``bruno`` (the console's user is then bruno)."""
    return [
        f"/campaign new ruleset:{ruleset} name:{name} language:en",
        f"/campaign invite user:anna side:{anna}",
        f"/campaign invite user:bruno side:{bruno}",
        "/as anna",
        f"/campaign join side:{anna}",
        "/as bruno",
        f"/campaign join side:{bruno}",
    ]
