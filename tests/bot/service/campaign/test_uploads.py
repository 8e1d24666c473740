"""What players upload or type into a campaign stays data: a roster file's history is
shown quoted, never looked up in the catalogue; its refusal names the file as uploaded;
casualties a file sets are bounded with the other sides'; ``/campaign adjust`` keeps each
field in its range; ``/campaign new`` never picks a ruleset silently."""

from __future__ import annotations

from typing import Any

import pytest

from bot.console.render_text import reply_text
from bot.service import Request
from db.errors import GameNotFound
from rules.campaign.postbattle import MAX_AFTERMATH_DICE
from rules.core.errors import RulesError
from rules.core.ruleset import KNOWN_RULESETS
from tests.bot.service.campaign.test_commands import ANNA, CAMPAIGN, GUILD, REFEREE
from tests.bot.service.campaign.test_rosters import RosterTable, _campaign

ROSTER = """\
side: legione
entries:
  - id: squadra_tattica
    name: Squadra tattica
    strength: 4
    full: 10
    history: ['error.integrity.tampered', 'Held the bridge']
"""


async def test_history_lines_are_shown_as_the_players_words(any_store: Any) -> None:
    table = await _campaign(any_store, "w40k4")
    await table(CAMPAIGN, ANNA, "campaign.roster", attachment=ROSTER)
    shown = reply_text(await table(CAMPAIGN, ANNA, "campaign.roster"))
    assert "written: “error.integrity.tampered”" in shown
    assert "written: “Held the bridge”" in shown
    assert "tamper" not in shown.replace("“error.integrity.tampered”", "")


async def test_the_refusal_names_the_file_as_uploaded_in_the_campaigns_language(
    any_store: Any,
) -> None:
    table = RosterTable(any_store)
    await table(CAMPAIGN, REFEREE, "campaign.new", ruleset="w40k4", name="L", language="it")
    with pytest.raises(RulesError) as caught:
        await table.service.handle(
            Request(
                CAMPAIGN,
                REFEREE,
                "campaign.roster",
                guild_id=GUILD,
                interaction_id="upload",
                attachment=ROSTER.replace("strength: 4", "strength: true"),
                attachment_name="legione-settimana2.yaml",
            )
        )
    assert caught.value.localized("it") == (
        "legione-settimana2.yaml, riga 5: entries.0.strength: serve un numero intero"
    )


async def test_casualties_count_with_the_other_sides(any_store: Any) -> None:
    table = await _campaign(any_store, "w40k4")

    def heavy(side: str, count: int) -> str:
        return f"side: {side}\nentries:\n" + "".join(
            f"  - {{id: u{n}, name: U{n}, strength: 0, full: 1000, casualties: 600}}\n"
            for n in range(count)
        )

    await table(CAMPAIGN, REFEREE, "campaign.roster", attachment=heavy("legione", 2))
    with pytest.raises(RulesError) as caught:  # 1,202 dice taken, 1,202 more asked
        await table(CAMPAIGN, REFEREE, "campaign.roster", attachment=heavy("predoni", 2))
    assert caught.value.params["line"] == 4
    assert f"more than {MAX_AFTERMATH_DICE}" in caught.value.localized("en")
    assert "predoni" not in (await table.campaign()).rosters


@pytest.mark.parametrize(
    ("field", "value", "key"),
    [
        ("until", "99999999999999999999", "error.campaign.adjust_range"),
        ("until", "201", "error.campaign.adjust_range"),
        ("experience", "100001", "error.campaign.adjust_range"),
        ("casualties", "7", "error.campaign.adjust_range"),  # 4 standing of 10: 6 at most
        ("strength", "-1", "error.campaign.adjust_range"),
        # Standing and lost never exceed full: the aftermath gave -6 replacements (a crash
        # the campaign fuzzer found) when full was lowered below strength + casualties.
        ("full", "3", "error.campaign.adjust_range"),  # 4 standing: full 4 at least
        ("strength", "11", "error.campaign.adjust_range"),
    ],
)
async def test_an_adjustment_stays_in_its_range(
    any_store: Any, field: str, value: str, key: str
) -> None:
    table = await _campaign(any_store, "w40k4")
    await table(CAMPAIGN, ANNA, "campaign.roster", attachment=ROSTER)
    await table.refused(
        CAMPAIGN,
        REFEREE,
        "campaign.adjust",
        key,
        side="legione",
        unit="squadra_tattica",
        field=field,
        value=value,
        reason="typo",
    )
    adjusted = await table(
        CAMPAIGN,
        REFEREE,
        "campaign.adjust",
        side="legione",
        unit="squadra_tattica",
        field="casualties",
        value="6",
        reason="count",
    )
    assert adjusted.notices[0].key == "bot.campaign.adjusted"


@pytest.mark.parametrize("ruleset", ["", "  ", "chess"])
async def test_a_campaign_needs_a_known_ruleset(any_store: Any, ruleset: str) -> None:
    table = RosterTable(any_store)
    with pytest.raises(RulesError) as caught:
        await table(CAMPAIGN, REFEREE, "campaign.new", ruleset=ruleset, name="L", language="en")
    assert caught.value.key == "error.unknown_ruleset"
    assert all(key in caught.value.localized("en") for key in KNOWN_RULESETS)
    with pytest.raises(GameNotFound):  # nothing was created in the channel
        await any_store.load(CAMPAIGN)
