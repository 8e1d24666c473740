"""Campaign rosters through the service, on both store backends: a w40k4 and a linea_gotica
campaign whose first game is played with scripted dice until real losses were inflicted
(a unit destroyed, others reduced), then ended by the referee; its aftermath rolled with
typed dice that lose every casualty for good, confirmed by both players; the second game is
mustered from the rosters the losses were carried into (reduced units at their strength, the
dead one missing); the rosters' hash in the game's first event and the campaign's; roster files
loaded or refused by line with nothing changed; who may set a roster; ``leave:``."""

from __future__ import annotations

from typing import Any

import pytest

from bot.console.render_text import reply_text
from bot.service import GameService, Request
from bot.service.campaign import CAMPAIGN_ARG
from bot.service.campaign.rosters import Mustering
from rules.campaign.events import CampaignCreated, CampaignGame, CampaignRoster, event_of
from rules.campaign.roster import rosters_hash
from rules.campaign.state import replay
from rules.core.dice import ScriptedDice as FacesDice
from rules.core.ruleset import get_ruleset
from rules.core.seatview import REFEREE as REFEREE_SEAT
from rules.core.seatview import Seat
from rules.core.words import LocalizedLabel, in_language
from tests.bot.campaign_flow import as_typed, check_fielded, deadly_faces
from tests.bot.service.campaign.test_commands import (
    ANNA,
    BRUNO,
    CAMPAIGN,
    FIRST,
    GUILD,
    OUTSIDER,
    REFEREE,
    SECOND,
    ScriptedDice,
    Table,
)
from tests.core.test_victory_games import _random_game

CASES = {
    "w40k4": ("avamposto", ("legione", "predoni")),
    "linea_gotica": ("esempio_gotica", ("alleati", "tedeschi")),
}


#: The most replacements an entry gets after one game (the winner's, in both rulesets).
MOST_REPLACED = 2


def losing_prefix(key: str, scenario: str) -> tuple[list[Any], list[int]]:
    """Commands of a random legal game (and their faces) up to the first point where a
    unit is destroyed, another reduced by more than one game's replacements can fill
    (:data:`MOST_REPLACED`), and both sides still field a unit."""
    play = get_ruleset(key).rules
    sides = set(play.sides(play.setup(scenario)))
    for seed in range(40):
        game = _random_game(play, scenario, seed)
        document, used_total = play.setup(scenario), 0
        for count, (verb, options, side, used) in enumerate(game.commands, start=1):
            faces = game.faces[used_total : used_total + used]
            document = play.act(document, Seat.of(side), verb, options, FacesDice(faces)).document
            used_total += used
            if play.view(document, REFEREE_SEAT).status.ended:
                break
            battle = play.battle(document)
            dead = [p for p in battle.pieces if p.strength == 0]
            reduced = [p for p in battle.pieces if 0 < p.strength < p.initial - MOST_REPLACED]
            if dead and reduced and {p.side for p in battle.pieces if p.strength} == sides:
                return game.commands[:count], game.faces[:used_total]
    raise AssertionError("no game with losses on both counts")


class RosterTable(Table):
    """The campaigns' table, with its dice at hand and files attached (``attachment=``)."""

    def __init__(self, store: Any) -> None:
        super().__init__(store)
        self.dice = ScriptedDice(extension=3)
        self.service = GameService(store, dice=self.dice)

    async def __call__(self, where: int, user: int, verb: str, /, **options: Any) -> Any:
        self.count += 1
        attachment = options.pop("attachment", None)
        return await self.service.handle(
            Request(
                where,
                user,
                verb,
                options,
                guild_id=GUILD,
                interaction_id=f"i{self.count}",
                user_name=f"user{user}",
                locale="en",
                attachment=attachment,
            )
        )


async def _campaign(store: Any, key: str) -> RosterTable:
    table = RosterTable(store)
    await table(CAMPAIGN, REFEREE, "campaign.new", ruleset=key, name="Linea", language="en")
    first, second = CASES[key][1]
    await table.seat(ANNA, first)
    await table.seat(BRUNO, second)
    return table


async def _logged(table: RosterTable) -> list[Any]:
    return [event_of(e.args[CAMPAIGN_ARG]) for e in await table.campaign_events()]


async def _origin_hash(table: RosterTable, channel: int) -> str:
    first = (await table.store.events(channel, after_seq=0, limit=1))[0]
    found: str = first.args["campaign"]["rosters_hash"]
    return found


@pytest.mark.parametrize("key", sorted(CASES))
async def test_the_second_game_fields_the_first_games_survivors(any_store: Any, key: str) -> None:
    scenario, (side_a, side_b) = CASES[key]
    table = await _campaign(any_store, key)
    play = get_ruleset(key).rules
    await table(CAMPAIGN, REFEREE, "campaign.game", scenario=scenario, channel=FIRST)
    # Each side fights its first game without a roster: the scenario's sides become theirs.
    state = await table.campaign()
    assert set(state.rosters) == {side_a, side_b}
    sets = [e for e in await _logged(table) if isinstance(e, CampaignRoster)]
    assert [(e.side, e.source) for e in sets] == [
        (side_a, f"scenario:{scenario}"),
        (side_b, f"scenario:{scenario}"),
    ]
    # The game's first event and the campaign's carry the hash of the rosters fielded.
    links = [e for e in await _logged(table) if isinstance(e, CampaignGame)]
    assert links[0].rosters_hash == await _origin_hash(table, FIRST)
    assert links[0].rosters_hash == rosters_hash(state.rosters)
    # Game 1: real losses by commands with scripted dice, then the referee ends it.
    commands, faces = losing_prefix(key, scenario)
    seats = {side_a: ANNA, side_b: BRUNO, None: REFEREE}
    table.dice.queue.extend(faces)
    for verb, options, side, _ in commands:
        await table(FIRST, seats[side], verb, **options)
    assert not table.dice.queue
    final = (await table.store.load(FIRST)).document
    battle = play.battle(final)
    lost = {p.id: p.initial - p.strength for p in battle.pieces if p.strength < p.initial}
    dead = {p.id for p in battle.pieces if p.strength == 0}
    ended = await table(FIRST, REFEREE, "game.decide", result=side_a, reason="ok")
    assert "bot.campaign.entered" in [n.key for n in ended.notices]
    # The losses are carried: strength down, casualties up, a history line.
    state = await table.campaign()
    result = state.game(1).result  # type: ignore[union-attr]
    assert result is not None
    assert {u: n for side in result.losses.values() for u, n in side.items()} == lost
    for roster in state.rosters.values():
        for entry in roster.entries:
            assert entry.strength == entry.full - lost.get(entry.id, 0)
            assert entry.casualties == lost.get(entry.id, 0)
    # The aftermath, each side's with the dice its player types: every casualty and every
    # destroyed unit lost for good (the replacements do not fill the reduced units); both
    # players confirm.
    for side, user in ((side_a, ANNA), (side_b, BRUNO)):
        faces = deadly_faces(state, side)
        table.count += 1
        await table.service.handle(
            Request(
                CAMPAIGN,
                user,
                "campaign.aftermath",
                {"game": 1},
                guild_id=GUILD,
                interaction_id=f"i{table.count}",
                user_name=f"user{user}",
                locale="en",
                dice=as_typed(faces) if faces else None,
            )
        )
    await table(CAMPAIGN, ANNA, "campaign.confirm", game=1)
    await table(CAMPAIGN, BRUNO, "campaign.confirm", game=1)
    state = await table.campaign()
    # Game 2 is mustered from the rosters: reduced units at their strength, the dead absent.
    await table(CAMPAIGN, REFEREE, "campaign.game", scenario=scenario, channel=SECOND)
    fielded = check_fielded(play, state, scenario, (await table.store.load(SECOND)).document)
    assert set(fielded.dead_absent) == dead
    assert fielded.reduced and set(fielded.reduced) <= set(lost) - dead
    # Its status shows each reduced unit at its strength out of its full one, as the
    # roster does (not whole: "1/1" while the roster said 1/2).
    status = reply_text(await table(SECOND, OUTSIDER, "game.status"))
    for unit in fielded.reduced:
        entry = next(e for r in state.rosters.values() if (e := r.entry(unit)) is not None)
        [line] = [line for line in status.splitlines() if line.strip().startswith(f"{unit} ")]
        assert f" {entry.strength}/{entry.full}" in line, line
    links = [e for e in await _logged(table) if isinstance(e, CampaignGame)]
    assert links[1].rosters_hash == await _origin_hash(table, SECOND)
    assert links[1].rosters_hash == rosters_hash(state.rosters) != links[0].rosters_hash
    # The roster shows it; the state is the replay of the log.
    hurt = next(
        side
        for side, roster in state.rosters.items()
        if any(entry.id in lost for entry in roster.entries)
    )
    shown = reply_text(await table(CAMPAIGN, OUTSIDER, "campaign.roster", side=hurt))
    assert "casualties" in shown and "game 1: lost" in shown
    events = await table.campaign_events()
    assert replay(event_of(e.args[CAMPAIGN_ARG]) for e in events) == await table.campaign()


ROSTER = """\
side: legione
entries:
  - id: squadra_tattica
    name: Squadra tattica
    strength: 4
    full: 10
  - {id: devastatori, name: Devastatori, strength: 5, full: 5, status: dead}
  - {id: fantasma, name: Not in any scenario, strength: 3, full: 3}
"""


async def test_a_roster_file_is_loaded_shown_and_mustered(any_store: Any) -> None:
    table = await _campaign(any_store, "w40k4")
    # A player of the other side may not; the player of the side may.
    await table.refused(
        CAMPAIGN, BRUNO, "campaign.roster", "error.campaign.roster_not_yours", attachment=ROSTER
    )
    set_ = await table(CAMPAIGN, ANNA, "campaign.roster", attachment=ROSTER)
    assert set_.notices[0].key == "bot.campaign.roster.set"
    # The file leaves some of the Legion's scenario units out: the reply names them.
    untracked = reply_text(set_)
    assert "The file leaves out" in untracked and "of Astral Legion" in untracked
    assert "veterani" in untracked and "squadra_tattica" not in untracked
    shown = reply_text(await table(CAMPAIGN, OUTSIDER, "campaign.roster", side="legione"))
    assert "Squadra tattica (squadra_tattica): 4/10" in shown
    assert "dead" in shown
    assert "fantasma" in shown and "never musters" in shown
    assert "never musters" not in shown.split("fantasma")[0]
    # The predoni have no roster yet.
    assert "No roster yet for Raiders" in reply_text(
        await table(CAMPAIGN, ANNA, "campaign.roster", side="predoni")
    )
    # Game 1 musters the squad at 4, the dead unit not at all, the raiders from the scenario;
    # the veterans are left behind by choice.
    linked = await table(
        CAMPAIGN, REFEREE, "campaign.game", scenario="avamposto", channel=FIRST, leave="veterani"
    )
    # Every unit of the scenario left behind is said, with why: by choice, or its state.
    assert "left behind: Veterans in Heavy Armour (by choice), Devastatori (dead);" in reply_text(
        linked
    )
    units = (await table.store.load(FIRST)).document["units"]
    assert units["squadra_tattica"]["models"] == 4
    assert units["squadra_tattica"]["weapons"] == {"fucile": 4, "lanciamissili": 1, "pistola": 1}
    assert "devastatori" not in units and "veterani" not in units
    assert units["banda"]["models"] == 20
    links = [e for e in await _logged(table) if isinstance(e, CampaignGame)]
    assert links[0].left == ("veterani",)
    # While the game is in play, no roster changes.
    await table.refused(
        CAMPAIGN, REFEREE, "campaign.roster", "error.campaign.roster_in_play", attachment=ROSTER
    )


@pytest.mark.parametrize(
    ("text", "key", "line"),
    [
        (ROSTER.replace("strength: 4", "strength: 12"), "error.scenario.invalid_line", 3),
        (ROSTER.replace("id: fantasma", "id: devastatori"), "error.scenario.invalid_line", 8),
        (ROSTER.replace("full: 10", "full: 10\n    colour: red"), "error.scenario.invalid_line", 7),
        (ROSTER.replace("status: dead", "status: lost"), "error.scenario.invalid_line", 7),
        (ROSTER.replace("name: Squadra tattica", "name: [Squadra"), "error.scenario.yaml_line", 5),
        (ROSTER.replace("side: legione", "side: orchi"), "error.campaign.unknown_side", None),
        (ROSTER + "#" * 70_000, "error.scenario.too_big", None),
    ],
)
async def test_a_bad_roster_file_is_refused_by_line_and_changes_nothing(
    any_store: Any, text: str, key: str, line: int | None
) -> None:
    table = await _campaign(any_store, "w40k4")
    before = await table.campaign_events()
    from rules.core.errors import RulesError

    with pytest.raises(RulesError) as caught:
        await table(CAMPAIGN, REFEREE, "campaign.roster", attachment=text)
    assert caught.value.key == key
    assert caught.value.params.get("line") == line
    assert len(await table.campaign_events()) == len(before)
    assert (await table.campaign()).rosters == {}


async def test_leave_and_an_empty_side_are_refused_before_anything_is_written(
    any_store: Any,
) -> None:
    table = await _campaign(any_store, "w40k4")
    await table.refused(
        CAMPAIGN,
        REFEREE,
        "campaign.game",
        "error.campaign.leave_unknown",
        scenario="avamposto",
        channel=FIRST,
        leave="veterani, nessuno",
    )
    everyone = "squadra_tattica,devastatori,mezzo_corazzato,veterani"
    await table.refused(
        CAMPAIGN,
        REFEREE,
        "campaign.game",
        "error.campaign.side_empty",
        scenario="avamposto",
        channel=FIRST,
        leave=everyone,
    )
    assert (await table.campaign()).rosters == {}


async def test_undoing_the_end_takes_the_losses_back(any_store: Any) -> None:
    table = await _campaign(any_store, "w40k4")
    await table(CAMPAIGN, REFEREE, "campaign.game", scenario="avamposto", channel=FIRST)
    full = (await table.campaign()).rosters
    commands, faces = losing_prefix("w40k4", "avamposto")
    seats = {"legione": ANNA, "predoni": BRUNO, None: REFEREE}
    table.dice.queue.extend(faces)
    for verb, options, side, _ in commands:
        await table(FIRST, seats[side], verb, **options)
    await table(FIRST, REFEREE, "game.decide", result="predoni", reason="ok")
    carried = (await table.campaign()).rosters
    assert carried != full
    undone = await table(FIRST, REFEREE, "game.undo")
    assert "bot.campaign.reversed" in [n.key for n in undone.notices]
    back = (await table.campaign()).rosters
    for side, roster in back.items():
        for entry, before in zip(roster.entries, full[side].entries, strict=True):
            assert (entry.strength, entry.casualties) == (before.strength, before.casualties)


async def test_undoing_the_end_after_a_roster_was_set_is_refused(any_store: Any) -> None:
    """A roster set from a file after a result (its casualties gone): undoing the game's
    end could not take the losses back, so it is refused, saying why, and nothing is
    written anywhere (before, the game reopened while the campaign kept its result)."""
    table = await _campaign(any_store, "w40k4")
    await table(CAMPAIGN, REFEREE, "campaign.game", scenario="avamposto", channel=FIRST)
    commands, faces = losing_prefix("w40k4", "avamposto")
    seats = {"legione": ANNA, "predoni": BRUNO, None: REFEREE}
    table.dice.queue.extend(faces)
    for verb, options, side, _ in commands:
        await table(FIRST, seats[side], verb, **options)
    await table(FIRST, REFEREE, "game.decide", result="predoni", reason="ok")
    state = await table.campaign()
    hurt = next(
        side
        for side, roster in state.rosters.items()
        if any(entry.casualties for entry in roster.entries)
    )
    written = "\n".join(
        [f"side: {hurt}", "entries:"]
        + [
            f"  - {{id: {e.id}, name: {e.id}, strength: {e.full}, full: {e.full}}}"
            for e in state.rosters[hurt].entries
        ]
    )
    await table(CAMPAIGN, REFEREE, "campaign.roster", attachment=written)
    await table.refused(FIRST, REFEREE, "game.undo", "error.campaign.built_on_reopen")
    assert (await any_store.load(FIRST)).status == "ended"
    assert (await table.campaign()).game(1).result is not None  # type: ignore[union-attr]


async def test_a_game_after_the_end_is_refused_for_the_end_not_the_rosters(
    any_store: Any,
) -> None:
    """An ended campaign whose side has no unit left to field: a new game is refused
    because the campaign is over (before, the muster answered that the side would field
    no unit)."""
    table = await _campaign(any_store, "w40k4")
    play = get_ruleset("w40k4").rules
    pieces = play.victory.battle(play.game.new_game(play.scenario.load_bundled("avamposto")))
    fallen = "side: predoni\nentries:\n" + "".join(
        f"  - {{id: {p.id}, name: {p.id}, strength: 0, full: {p.initial}, status: dead}}\n"
        for p in pieces.pieces
        if p.side == "predoni"
    )
    await table(CAMPAIGN, REFEREE, "campaign.roster", attachment=fallen)
    await table(CAMPAIGN, REFEREE, "campaign.end")
    await table.refused(
        CAMPAIGN, REFEREE, "campaign.game", "error.campaign.ended", scenario="avamposto", channel=9
    )


async def test_a_roster_names_its_units_in_the_campaigns_language(any_store: Any) -> None:
    """The rosters drawn from a bundled scenario keep its units' names in every language:
    an English campaign lists "Tactical Squad", not the scenario's Italian."""
    table = await _campaign(any_store, "w40k4")
    await table(CAMPAIGN, REFEREE, "campaign.game", scenario="avamposto", channel=FIRST)
    shown = reply_text(await table(CAMPAIGN, OUTSIDER, "campaign.roster", side="legione"))
    assert "Tactical Squad (squadra_tattica)" in shown
    assert "Squadra tattica" not in shown


async def test_after_the_first_game_only_the_referee_sets_a_roster_from_a_file(
    any_store: Any,
) -> None:
    """A player's file would undo what the games did to their side (the dead fit again,
    every loss made good, any rank): once the campaign has played a game, the rosters carry
    its results and only the referee sets one from a file (or corrects it, /campaign
    adjust); before it, a player brings their side's roster."""
    table = await _campaign(any_store, "w40k4")
    await table(CAMPAIGN, ANNA, "campaign.roster", attachment=ROSTER)
    await table(CAMPAIGN, REFEREE, "campaign.game", scenario="avamposto", channel=FIRST)
    await table(FIRST, REFEREE, "game.decide", result="predoni", reason="test")
    fresh = ROSTER.replace("strength: 4", "strength: 10").replace(", status: dead", "")
    await table.refused(
        CAMPAIGN, ANNA, "campaign.roster", "error.campaign.roster_after_games", attachment=fresh
    )
    set_ = await table(CAMPAIGN, REFEREE, "campaign.roster", attachment=fresh)
    assert set_.notices[0].key == "bot.campaign.roster.set"


#: Game 1 of the held-units test fields these of w40k4's avamposto; the others stay back.
FIELDED_FIRST = {"legione": {"squadra_tattica", "mezzo_corazzato"}, "predoni": {"banda"}}


def _pieces(document: Any) -> dict[str, Any]:
    return {piece.id: piece for piece in get_ruleset("w40k4").rules.battle(document).pieces}


async def test_a_unit_in_a_game_in_play_is_not_fielded_by_another(any_store: Any) -> None:
    """Game 2 is linked while game 1 is in play: game 1's units stay behind, each on the
    muster's line (in the campaign's language and the others), and game 2 fields the rest.
    Game 1's end, its undo, the referee's correction of a unit it holds keep them held;
    once its aftermath is confirmed they are free, game 3 fielding them at the strength
    game 1 and its aftermath left them, not game 2's. Each game's aftermath and losses
    count only the units it fielded."""
    table = await _campaign(any_store, "w40k4")
    units = get_ruleset("w40k4").muster.units("avamposto")  # type: ignore[union-attr]
    leave = sorted(u for side, ids in units.items() for u in ids if u not in FIELDED_FIRST[side])
    await table(
        CAMPAIGN,
        REFEREE,
        "campaign.game",
        scenario="avamposto",
        channel=FIRST,
        leave=",".join(leave),
    )
    second = await table(CAMPAIGN, REFEREE, "campaign.game", scenario="avamposto", channel=SECOND)
    [mustered] = [n for n in second.notices if n.key == "bot.campaign.roster.mustered"]
    line = dict(mustered.params)["left"]
    held = sorted(u for ids in FIELDED_FIRST.values() for u in ids)
    assert line == ", ".join(
        f"{in_language(_name_of(unit), 'en')} (fighting in game 1)"
        for unit in _in_scenario_order(held)
    )
    text = reply_text(second)
    assert "Tactical Squad (fighting in game 1)" in text and "squadra_tattica" not in text
    in_second = set(_pieces((await table.store.load(SECOND)).document))
    assert in_second == set(leave)
    state = await table.campaign()
    assert {side: set(ids) for side, ids in state.game(2).fielded.items()} == {  # type: ignore[union-attr]
        side: set(units[side]) - FIELDED_FIRST[side] for side in units
    }
    # Game 1 ends, is undone, ends again; the referee corrects a unit it holds: still held.
    await table(FIRST, REFEREE, "game.decide", result="legione", reason="ok")
    await table(FIRST, REFEREE, "game.undo")
    await table(FIRST, REFEREE, "game.decide", result="legione", reason="ok")
    squad_strength = {"side": "legione", "unit": "squadra_tattica", "field": "strength"}
    await table(CAMPAIGN, REFEREE, "campaign.adjust", **squad_strength, value="6", reason="count")
    assert (await table.campaign()).held_units()["legione"]["squadra_tattica"] == 1
    # Its aftermath: "fought" only for the units game 1 fielded, none for game 2's.
    await table(CAMPAIGN, REFEREE, "campaign.aftermath", game=1)
    await table(CAMPAIGN, REFEREE, "campaign.confirm", game=1)
    state = await table.campaign()
    legion = state.rosters["legione"]
    assert legion.entry("squadra_tattica").experience > 0  # type: ignore[union-attr]
    assert legion.entry("devastatori").experience == 0  # type: ignore[union-attr]
    assert set(state.held_units()["legione"]) == set(units["legione"]) - FIELDED_FIRST["legione"]
    # Game 3, in game 1's channel: game 1's units at their roster strength, not game 2's.
    third = await table(CAMPAIGN, REFEREE, "campaign.game", scenario="avamposto", channel=FIRST)
    assert "Devastators (fighting in game 2)" in reply_text(third)
    pieces = _pieces((await table.store.load(FIRST)).document)
    assert set(pieces) == {u for ids in FIELDED_FIRST.values() for u in ids}
    squad = legion.entry("squadra_tattica")
    assert squad is not None and 6 < squad.strength < squad.full
    assert pieces["squadra_tattica"].strength == squad.strength
    # Game 2's end carries losses for its own units only (none fought twice).
    await table(SECOND, REFEREE, "game.decide", result="predoni", reason="ok")
    result = (await table.campaign()).game(2).result  # type: ignore[union-attr]
    assert result is not None
    assert all(unit in set(leave) for lost in result.losses.values() for unit in lost)
    events = await table.campaign_events()
    assert replay(event_of(e.args[CAMPAIGN_ARG]) for e in events) == await table.campaign()


def _name_of(unit: str) -> LocalizedLabel:
    """A unit's name in the w40k4 ``avamposto`` scenario, in each of its languages."""
    muster = get_ruleset("w40k4").muster
    assert muster is not None
    for side in ("legione", "predoni"):
        entry = muster.roster_of("avamposto", side).entry(unit)
        if entry is not None:
            return entry.name
    raise AssertionError(unit)


def _in_scenario_order(held: list[str]) -> list[str]:
    units = get_ruleset("w40k4").muster.units("avamposto")  # type: ignore[union-attr]
    return [unit for side in units.values() for unit in side if unit in held]


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("it", "Squadra tattica (in combattimento nella partita 1)"),
        ("en", "Tactical Squad (fighting in game 1)"),
        ("fr", "Escouade tactique (au combat dans la partie 1)"),
    ],
)
def test_the_muster_line_says_which_game_holds_a_unit(language: str, said: str) -> None:
    """A unit another game holds is on the muster's line beside those left by choice and
    the dead, by its name in the campaign's language (a unit no roster names by its id)."""
    sides = {"legione": "Legione", "predoni": "Predoni"}
    state = replay([CampaignCreated(ruleset="w40k4", name="C", sides=sides, referee=REFEREE)])
    mustered = Mustering(
        document={},
        rosters_hash="0" * 64,
        left=("veterani",),
        held=(("squadra_tattica", 1),),
        names={"squadra_tattica": _name_of("squadra_tattica")},
    )
    notice = mustered.notice(state, language)
    assert notice is not None
    left = str(dict(notice.params)["left"])
    assert left.startswith("veterani (") and left.endswith(f", {said}")
