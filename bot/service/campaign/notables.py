"""What a campaign's writes make owed or happen for its players, declared on the reply
(``Reply.notable``) for whoever tells players, whom the campaign does not name: a side that
comes to owe a game's aftermath (its roll, then its confirmation), the next game linked,
a roster adjusted by the referee. A side's players are its seats in the campaign
(``state.players``); the one who gave the command is not told of what they just did.
"""

from __future__ import annotations

from bot.service.replies import Notable
from db.models import GameRecord
from rules.campaign.rules import campaign_rules
from rules.campaign.state import CampaignState
from rules.core.words import in_language, stored_title

#: A side owing after a game's battle: (the game's number, the side, "roll" or "confirm").
Owed = tuple[int, str, str]


def owed_by_sides(state: CampaignState) -> frozenset[Owed]:
    """What each side owes after the battles whose result is in (campaigns with rosters,
    in rulesets with campaign rules): its part of an aftermath to roll, then, once every
    side rolled, its confirmation; nothing once the campaign is over."""
    if state.ended or not state.rosters or campaign_rules(state.ruleset) is None:
        return frozenset()
    owed: set[Owed] = set()
    for entry in state.games:
        held = state.aftermaths.get(entry.number)
        if entry.result is None or (held is not None and held.settled(list(state.sides))):
            continue
        unrolled = list(state.sides) if held is None else held.unrolled(state.sides)
        if unrolled:
            owed.update((entry.number, side, "roll") for side in unrolled)
        elif held is not None:
            waiting = [side for side in state.sides if side not in held.confirmed]
            owed.update((entry.number, side, "confirm") for side in waiting)
    return frozenset(owed)


def newly_owed(
    before: CampaignState,
    after: CampaignState,
    campaign: GameRecord,
    written: str,
    actor: int | None,
) -> list[Notable]:
    """The sides that owe after a write (``written``: which one, once) and did not before,
    each told to its players: the campaign's channel is where they answer."""
    notables = []
    for number, side, what in sorted(owed_by_sides(after) - owed_by_sides(before)):
        users = _players(after, (side,), actor)
        if users:
            notables.append(
                _of_campaign(
                    "owed",
                    users,
                    after,
                    campaign,
                    f"{number}:{side}:{what}:{written}",
                    line=f"bot.notice.owed_{what}",
                    side=_side_name(after, campaign, side),
                    number=str(number),
                )
            )
    return notables


def roster_adjusted(
    after: CampaignState, campaign: GameRecord, side: str, seq: int, actor: int
) -> list[Notable]:
    """The referee's adjustment of ``side``'s roster (event ``seq``), told to its players."""
    users = _players(after, (side,), actor)
    if not users:
        return []
    label = _side_name(after, campaign, side)
    return [_of_campaign("roster", users, after, campaign, str(seq), side=label)]


def next_game(
    after: CampaignState, campaign: GameRecord, number: int, game: GameRecord, actor: int
) -> list[Notable]:
    """Game ``number`` linked in its channel: every side's players are seated there."""
    users = _players(after, tuple(after.sides), actor)
    if not users:
        return []
    notable = Notable(
        kind="linked",
        users=users,
        channel=game.channel_id,
        guild=game.guild_id,
        title=in_language(stored_title(game.document), game.language),
        language=game.language,
        about=f"{campaign.channel_id}:{number}",
        params={"number": str(number)},
    )
    return [notable]


def _side_name(state: CampaignState, campaign: GameRecord, side: str) -> str:
    """A side's name as the campaign's language reads it: a notice keeps plain text, which
    would otherwise be the name's Italian."""
    return in_language(state.sides.get(side, side), campaign.language)


def _players(state: CampaignState, sides: tuple[str, ...], actor: int | None) -> tuple[int, ...]:
    seated = (user for side in sides for user in state.players.get(side, ()))
    return tuple(sorted({user for user in seated if user != actor}))


def _of_campaign(
    kind: str,
    users: tuple[int, ...],
    state: CampaignState,
    campaign: GameRecord,
    about: str,
    *,
    line: str = "",
    **params: str,
) -> Notable:
    return Notable(
        kind=kind,
        users=users,
        channel=campaign.channel_id,
        guild=campaign.guild_id,
        title=state.name,
        language=campaign.language,
        about=f"{campaign.channel_id}:{about}",
        page="campaign",
        line=line,
        params=params,
    )


__all__ = ["Owed", "newly_owed", "next_game", "owed_by_sides", "roster_adjusted"]
