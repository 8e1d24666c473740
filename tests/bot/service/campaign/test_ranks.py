"""A promotion is fielded, through the service on both store backends: a manovra and a
linea_gotica campaign whose game 1 is won, whose unit the referee credits with experience
(and another whose rank the referee sets), the aftermath rolled and confirmed, and game 2
mustered with the promoted unit at its new AD or quality."""

from __future__ import annotations

from typing import Any

import pytest

from rules.campaign.rules import campaign_rules
from tests.bot.service.campaign.test_commands import (
    ANNA,
    BRUNO,
    CAMPAIGN,
    FIRST,
    REFEREE,
    SECOND,
    Table,
)

#: ruleset → scenario, sides (winner first), the unit promoted by its aftermath and the
#: rank it reaches, the unit whose rank the referee sets and that rank, the field a rank
#: is written into and the values game 2 must field.
CASES = {
    "manovra": (
        "esempio_normandia",
        ("alleati", "asse"),
        ("squadra_1", "veterani"),
        ("gruppe_1", "elite"),
        "ad",
        {"squadra_1": 2, "gruppe_1": 3, "squadra_2": 1},
    ),
    "linea_gotica": (
        "esempio_gotica",
        ("alleati", "tedeschi"),
        ("squadra_1", "elite"),
        ("stug", "reclute"),
        "quality",
        {"squadra_1": "elite", "stug": "reclute", "bazooka": "regolari"},
    ),
}


@pytest.mark.parametrize("key", sorted(CASES))
async def test_a_promoted_unit_is_fielded_at_its_new_rank(any_store: Any, key: str) -> None:
    scenario, (winner, loser), (promoted, rank), (set_unit, set_rank), field, fielded = CASES[key]
    rules = campaign_rules(key)
    assert rules is not None
    table = Table(any_store)
    await table(CAMPAIGN, REFEREE, "campaign.new", ruleset=key, name="Gradi", language="en")
    await table.seat(ANNA, winner)
    await table.seat(BRUNO, loser)
    await table(CAMPAIGN, REFEREE, "campaign.game", scenario=scenario, channel=FIRST)
    first = (await table.store.load(FIRST)).document
    assert first["units"][promoted][field] != fielded[promoted]
    await table(FIRST, REFEREE, "game.decide", result=winner, reason="held the ground")
    # The referee credits the unit with all but the 3 a won game brings (fought, won,
    # standing), and sets another unit's rank outright.
    needed = next(rung.experience for rung in rules.promotion if rung.rank == rank)
    await table(
        CAMPAIGN,
        REFEREE,
        "campaign.adjust",
        side=winner,
        unit=promoted,
        field="experience",
        value=str(needed - 3),
        reason="earlier actions",
    )
    await table(
        CAMPAIGN,
        REFEREE,
        "campaign.adjust",
        side=loser,
        unit=set_unit,
        field="rank",
        value=set_rank,
        reason="the referee's call",
    )
    await table(CAMPAIGN, ANNA, "campaign.aftermath", game=1)
    await table(CAMPAIGN, BRUNO, "campaign.aftermath", game=1)
    state = await table.campaign()
    entry = state.rosters[winner].entry(promoted)
    assert entry is not None and entry.rank == rank
    await table(CAMPAIGN, REFEREE, "campaign.confirm", game=1)
    await table(CAMPAIGN, REFEREE, "campaign.game", scenario=scenario, channel=SECOND)
    second = (await table.store.load(SECOND)).document
    assert {unit: second["units"][unit][field] for unit in fielded} == fielded


async def test_a_rank_off_the_ladder_is_refused_by_the_adjustment(any_store: Any) -> None:
    table = Table(any_store)
    await table(CAMPAIGN, REFEREE, "campaign.new", ruleset="manovra", name="Gradi", language="en")
    await table(CAMPAIGN, REFEREE, "campaign.game", scenario="esempio_normandia", channel=FIRST)
    options = {"side": "alleati", "unit": "squadra_1", "field": "rank", "reason": "r"}
    # a leader's rank is not a training class: it would be neither fielded nor promoted
    await table.refused(
        CAMPAIGN, REFEREE, "campaign.adjust", "error.campaign.bad_rank", value="sergente", **options
    )
    await table(CAMPAIGN, REFEREE, "campaign.adjust", value="elite", **options)
    await table(CAMPAIGN, REFEREE, "campaign.adjust", value="-", **options)  # none: the first rung
