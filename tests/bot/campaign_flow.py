"""Helpers for tests that play a campaign's whole flow: the typed dice of an aftermath in
which every lost point and every destroyed unit is lost for good (so the losses carried to
the next game are known in advance), and the check that a linked game's forces are the
campaign's rosters (a reduced entry at its strength, a dead one absent)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from bot.service.campaign.ledger import load_campaign, log_event
from rules.campaign.events import CampaignRoster
from rules.campaign.roster import Roster, RosterEntry, Status
from rules.campaign.rules import FateTable, campaign_rules
from rules.campaign.state import CampaignState
from rules.core.play import GamePlay


def _dead_face(table: FateTable) -> int:
    return next(band.low for band in table.bands if band.fate == "dead")


def deadly_faces(state: CampaignState, side: str) -> list[int]:
    """The faces ``side``'s player types in ``/campaign aftermath dice:`` so that every
    destroyed unit of the side dies and every casualty is lost for good, in the order the
    post-battle sequence rolls them (entries in roster order: a destroyed unit's die, then
    one per casualty; a unit that dies on the first rolls no more)."""
    rules = campaign_rules(state.ruleset)
    assert rules is not None, state.ruleset
    faces: list[int] = []
    for roster in [state.rosters[side]] if side in state.rosters else []:
        for entry in roster.entries:
            if entry.status is Status.DEAD:
                continue
            if entry.strength == 0 and entry.casualties > 0:
                faces.append(_dead_face(rules.destroyed))
                continue
            faces.extend([_dead_face(rules.casualties)] * entry.casualties)
    return faces


def as_typed(faces: list[int]) -> str:
    """Faces as a player types them in ``dice:``."""
    return ",".join(str(face) for face in faces)


@dataclass(frozen=True)
class Fielded:
    """What a linked game fielded against its campaign's rosters."""

    reduced: list[str]  # entries fielded below their full strength
    dead_absent: list[str]  # dead entries the game does not field


def check_fielded(
    play: GamePlay, state: CampaignState, scenario: str, document: Mapping[str, Any]
) -> Fielded:
    """Assert that the game in ``document`` fields each fit roster entry of its scenario at
    the entry's strength and no dead entry; what it fielded reduced, and the dead entries
    the bundled scenario has but the game left out."""
    bundled = play.victory.battle(play.game.new_game(play.scenario.load_bundled(scenario)))
    in_scenario = {(piece.side, piece.id) for piece in bundled.pieces}
    pieces = play.victory.battle(play._state(document)).pieces
    strengths = {(piece.side, piece.id): piece.strength for piece in pieces}
    reduced: list[str] = []
    dead_absent: list[str] = []
    for side, roster in state.rosters.items():
        for entry in roster.entries:
            key = (side, entry.id)
            if entry.status is Status.DEAD:
                assert key not in strengths, f"dead {entry.id} fielded"
                if key in in_scenario:
                    dead_absent.append(entry.id)
            elif key in strengths and entry.status is Status.FIT:
                assert strengths[key] == entry.strength, (entry.id, strengths[key], entry)
                if entry.strength < entry.full:
                    reduced.append(entry.id)
    return Fielded(reduced, dead_absent)


async def campaign_with_a_game(table: Any, store: Any) -> tuple[Any, Any]:
    """On SimCord's ``table``: the referee's campaign «Normandia» (manovra, in English) in
    the table's channel, Anna and Bruno on its sides, the Allies' roster set (its squad 8 of
    10, 2 casualties), game 1 linked in a channel of its own: (the campaign's channel, the
    game's)."""
    home = table.channel
    front = table.guild.create_text_channel("fronte")
    await table.referee.slash(
        home, "campaign new", ruleset="manovra", name="Normandia", language="en"
    )
    await table.seat_campaign(home, "alleati", "asse")
    allies = Roster(
        side="alleati",
        entries=(
            RosterEntry(id="squadra_1", name="1ª squadra", strength=8, full=10, casualties=2),
        ),
    )
    services: Any = SimpleNamespace(store=store)  # the ledger needs only the store
    record, state = await load_campaign(services, home.id)
    roster = CampaignRoster(side="alleati", roster=allies)
    await log_event(services, record, state, roster, actor_id=None, interaction_id=None)
    await table.referee._actor.slash(
        home, "campaign game", scenario="normandia_incontro", channel=front
    )
    return home, front
