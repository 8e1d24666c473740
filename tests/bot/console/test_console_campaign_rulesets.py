"""A campaign of three linked games at the console table in every ruleset, as people type it.

For each ruleset, in a language of its own (English, French, Italian): ``/campaign new``,
two players join its sides, and three games are linked in channels of their own (``/channel
N``; the third reuses the first game's channel, which archives it): the first is played to
its end by lines the rules list (owed rolls first, typed by the seat whose action it is, the
dice the service's seeded source), the second ended by the referee's decision (``/game end
result:``), the third by a concession confirmed by the conceding player. After each game
``/campaign status`` must show the standings of this test's own recount of the games'
results (read from the games themselves); ``/campaign log`` must name every result with its
game's final hash; a bad line is refused in one line; ``/campaign end`` closes it.
"""

from __future__ import annotations

import io
import random
import re

import pytest

from bot.commands import command_line
from bot.console.table import Console, user_id_of
from bot.service import GameService
from db.protocol import GameStore
from rules.campaign.state import CampaignState
from rules.core.i18n import translate
from rules.core.play import GamePlay
from rules.core.ruleset import get_ruleset
from tests.bot.campaign_flow import as_typed, check_fielded, deadly_faces
from tests.fuzz.campaign_checks import SeenResult, standing_lines
from tests.fuzz.harness import SeededDice, fill_options
from tests.rulesets import facts

#: Lines a game played to its end may take at most.
MAX_LINES = 3_000
CAMPAIGN = 1

#: Each ruleset's campaign at the console (tests/<key>/facts.py): ruleset, language, the
#: three scenarios, the side that wins the decision, the side that concedes, a literal of the
#: language's standings.
CAMPAIGNS = [(key, *campaign[:5]) for key, campaign in facts("CONSOLE_CAMPAIGN").items()]
#: What each ruleset's game 1 (its seeded lines, the dice lose every casualty) carries into
#: the next games: units fielded reduced in game 2, and the dead its scenarios (games 2 and
#: 3) have but leave out.
CARRIED: dict[str, tuple[list[str], list[str]]] = {
    key: (campaign.reduced, campaign.dead)
    for key, campaign in facts("CONSOLE_CAMPAIGN").items()
}


class Table:
    """The console, what it printed since the last look, and who plays which side."""

    def __init__(self, store: GameStore, language: str, seed: int) -> None:
        self.store = store
        self.out = io.StringIO()
        dice = SeededDice(random.Random(f"console-campaign-{seed}"))
        self.console = Console(GameService(store, dice=dice), self.out, language=language)
        self.seen = 0

    async def type(self, *lines: str) -> str:
        """Type lines; what the console printed for them."""
        for line in lines:
            await self.console.execute(line)
        text = self.out.getvalue()
        printed, self.seen = text[self.seen :], len(text)
        return printed


async def _play_to_the_end(
    table: Table, play: GamePlay, channel: int, seats: dict[str, str], rng: random.Random
) -> int:
    """Type the lines the rules list until the game ends; the lines typed."""
    for typed in range(MAX_LINES):
        record = await table.store.load(channel)
        if record.status == "ended":
            return typed
        actions = play.legal_actions(record.document)
        assert actions, f"dead end in channel {channel}"
        owed = [a for a in actions if a.owed]
        acting = [a for a in actions if not a.verb.startswith("turn.")]
        if owed:
            action = rng.choice(owed)
        elif acting and rng.random() < 0.6:
            action = rng.choice(acting)
        else:
            action = rng.choice(actions)
        seat = "arbitro" if action.side is None else seats[action.side]
        errors = table.console.errors
        await table.type(f"/as {seat}", command_line(action.verb, fill_options(action, rng)))
        assert table.console.errors == errors, table.out.getvalue()[-2000:]
    raise AssertionError(f"the game in channel {channel} did not end in {MAX_LINES} lines")


async def _seen(table: Table, play: GamePlay, channel: int) -> SeenResult:
    """The result the game in ``channel`` ended with, read from the game itself."""
    record = await table.store.load(channel)
    assert record.status == "ended" and record.head_hash is not None
    result = play.result(play.load_document(record.document))
    assert result is not None
    return SeenResult(record.head_hash, result.winner, tuple(result.score.totals))


async def _check_standings(
    table: Table, language: str, seen: dict[int, SeenResult | None], heading: str
) -> None:
    """``/campaign status`` shows the recount of the results seen, line by line."""
    text = await table.type("/as anna", "/campaign status")
    state = CampaignState.from_json((await table.store.load(CAMPAIGN)).document)
    assert heading in text, text
    for shown in standing_lines(state, seen, language):
        assert shown in text, f"{shown!r} not in:\n{text}"


async def _settle(
    table: Table,
    number: int,
    faces: dict[str, list[int]] | None,
    seats: dict[str, str],
    language: str,
) -> None:
    """Roll game ``number``'s aftermath at the campaign's channel, each side's part by its
    player with its ``faces`` typed (the answer shows each of them), then confirmed by each
    side's player; or Anna's side with the bot's dice and the rest by the referee, who
    validates it."""
    errors = table.console.errors
    if faces is not None:
        for side, seat in seats.items():
            dice = f" dice:{as_typed(faces[side])}" if faces[side] else ""
            text = await table.type(f"/as {seat}", f"/campaign aftermath game:{number}{dice}")
            assert table.console.errors == errors, text
            if language == "fr":  # each unit's fates are joined by a French semicolon
                assert not re.search(r"[^\u202f];", text), text
            for face in set(faces[side]):
                assert re.search(rf"\b{face}\b", text), text
        for seat in seats.values():
            text = await table.type(f"/as {seat}", f"/campaign confirm game:{number}")
    else:
        await table.type("/as anna", f"/campaign aftermath game:{number}")
        await table.type("/as arbitro", f"/campaign aftermath game:{number}")
        text = await table.type(f"/campaign confirm game:{number}")
    assert table.console.errors == errors, text
    state = CampaignState.from_json((await table.store.load(CAMPAIGN)).document)
    assert state.aftermaths[number].settled(list(state.sides))


@pytest.mark.parametrize(
    ("ruleset", "language", "scenarios", "decided", "conceding", "heading"),
    CAMPAIGNS,
    ids=[campaign[0] for campaign in CAMPAIGNS],
)
async def test_a_three_game_campaign_at_the_console(
    store: GameStore,
    ruleset: str,
    language: str,
    scenarios: tuple[str, str, str],
    decided: str,
    conceding: str,
    heading: str,
) -> None:
    play = get_ruleset(ruleset).play
    assert play is not None
    table = Table(store, language, len(ruleset))
    rng = random.Random(f"lines-{ruleset}")
    text = await table.type(
        f"/campaign new ruleset:{ruleset} name:Fronte win:3 draw:1 loss:0 language:{language}"
    )
    state = CampaignState.from_json((await store.load(CAMPAIGN)).document)
    first, second = list(state.sides)
    seats = {first: "anna", second: "bruno"}
    await table.type(
        f"/campaign invite user:anna side:{first}",
        f"/campaign invite user:bruno side:{second}",
        "/as anna",
        f"/campaign join side:{first}",
        "/as bruno",
        f"/campaign join side:{second}",
    )
    # A player may not link a game; a channel that is no number is refused in one line.
    errors = table.console.errors
    text = await table.type(f"/campaign game scenario:{scenarios[0]} channel:#2")
    text += await table.type("/as arbitro", f"/campaign game scenario:{scenarios[0]} channel:x")
    assert table.console.errors == errors + 2, text
    assert text.count("\n! ") + text.startswith("! ") == 2, text
    seen: dict[int, SeenResult | None] = {}

    # Game 1, channel 2: played to its end by the lines the rules list.
    text = await table.type(f"/campaign game scenario:{scenarios[0]} channel:#2")
    assert (
        translate(
            "bot.campaign.linked",
            language,
            number=1,
            name="Fronte",
            channel="#2",
            scenario=scenarios[0],
        )
        in text
    ), text
    await table.type("/channel 2")
    lines = await _play_to_the_end(table, play, 2, seats, rng)
    assert lines > 5
    assert translate("bot.campaign.entered", language, name="Fronte", number=1) in (
        table.out.getvalue()
    )
    seen[1] = await _seen(table, play, 2)
    await table.type("/channel 1")
    await _check_standings(table, language, seen, heading)
    # Its aftermath, with typed dice that lose every casualty and every destroyed unit for
    # good; the answer shows the dice; each side's player confirms.
    hurt = CampaignState.from_json((await store.load(CAMPAIGN)).document)
    faces = {side: deadly_faces(hurt, side) for side in hurt.sides}
    assert any(faces.values()), "game 1 inflicted no loss"
    await _settle(table, 1, faces, seats, language)

    # Game 2, channel 3, mustered from the rosters the aftermath left: each unit that is
    # fielded at the strength it kept, the dead left out.
    await table.type("/as arbitro", f"/campaign game scenario:{scenarios[1]} channel:#3")
    state = CampaignState.from_json((await store.load(CAMPAIGN)).document)
    second_game = check_fielded(play, state, scenarios[1], (await store.load(3)).document)
    status = await table.type("/channel 3", "/game status", "/channel 1")
    assert status.strip(), status
    text = await table.type("/channel 3", f'/game end result:{decided} reason:"the river rose"')
    assert translate("bot.campaign.entered", language, name="Fronte", number=2) in text, text
    seen[2] = await _seen(table, play, 3)
    assert seen[2].winner == decided
    await table.type("/channel 1")
    await _check_standings(table, language, seen, heading)

    # Game 2's aftermath (the bot's dice), validated by the referee for both sides.
    await _settle(table, 2, None, seats, language)

    # Game 3, channel 2 again (game 1 is archived): a concession, confirmed.
    await table.type("/as arbitro", f"/campaign game scenario:{scenarios[2]} channel:#2")
    state = CampaignState.from_json((await store.load(CAMPAIGN)).document)
    third_game = check_fielded(play, state, scenarios[2], (await store.load(2)).document)
    # Game 1's losses were seen in the games after it: a unit fielded reduced, or a unit
    # dead in game 1 left out of a scenario that has it.
    dead = sorted(set(second_game.dead_absent + third_game.dead_absent))
    assert (second_game.reduced, dead) == CARRIED[ruleset], (second_game, third_game)
    asked = await table.type("/channel 2", f"/as {seats[conceding]}", "/game concede")
    confirm = re.search(r"/game concede confirm:(\d+)", asked)
    assert confirm is not None, asked
    text = await table.type(f"/game concede confirm:{confirm.group(1)}")
    assert translate("bot.campaign.entered", language, name="Fronte", number=3) in text, text
    seen[3] = await _seen(table, play, 2)
    assert seen[3].winner == (second if conceding == first else first)
    await table.type("/channel 1")
    await _check_standings(table, language, seen, heading)

    # The log names each result with its game's final hash; the campaign ends.
    log = await table.type("/campaign log count:20")
    for result in seen.values():
        assert result is not None and result.final_hash[:12] in log, log
    state = CampaignState.from_json((await store.load(CAMPAIGN)).document)
    assert [g.result.final_hash for g in state.games if g.result] == [
        r.final_hash for r in seen.values() if r
    ]
    archived = [a.head_hash for a in await store.all_archives()]
    assert archived == [seen[1].final_hash]  # game 1 left channel 2 as it ended
    errors = table.console.errors
    text = await table.type("/as anna", "/campaign end")
    assert table.console.errors == errors + 1, text  # the referee's alone
    text = await table.type("/as arbitro", "/campaign end")
    assert translate("bot.campaign.ended", language, name="Fronte") in text, text
    assert {m.user_id for m in await store.members(2)} >= {user_id_of("anna"), user_id_of("bruno")}
    assert await store.check() == []
