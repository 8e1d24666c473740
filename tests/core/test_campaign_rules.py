"""The rulesets' campaign rules: every bundled file loads, broken copies are refused by line."""

from __future__ import annotations

from importlib import resources

import pytest

from rules.core.campaign_rules import CampaignRules, campaign_rules, parse_campaign_rules
from rules.core.errors import InvalidInput
from rules.core.i18n import translate
from rules.core.ruleset import KNOWN_RULESETS


@pytest.mark.parametrize("key", KNOWN_RULESETS)
def test_every_bundled_ruleset_ships_valid_campaign_rules(key: str) -> None:
    rules = campaign_rules(key)
    assert isinstance(rules, CampaignRules)
    assert rules.ruleset == key
    assert campaign_rules(key) is rules  # read once
    text = (resources.files(f"rules.{key}") / "campaign.yaml").read_text("utf-8")
    assert "house rule" in text  # where the seeds are silent, the file says so


def test_linea_gotica_climbs_the_seeds_quality_classes() -> None:
    rules = campaign_rules("linea_gotica")
    assert rules is not None
    assert [rung.rank for rung in rules.promotion] == [
        "marmaglia",
        "reclute",
        "regolari",
        "veterani",
        "elite",
    ]
    assert rules.next_rank("regolari", 12) == "veterani"
    assert rules.next_rank("regolari", 11) is None
    assert rules.next_rank("elite", 999) is None  # the top rung
    assert rules.next_rank("sconosciuto", 999) is None  # off the ladder
    assert rules.next_rank(None, 3) == "reclute"  # no rank: the first rung


def _text(key: str = "manovra") -> str:
    return (resources.files(f"rules.{key}") / "campaign.yaml").read_text("utf-8")


def _line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


@pytest.mark.parametrize(
    ("broken", "needle"),
    [
        # bands that leave a face uncovered
        ("    - {low: 4, high: 6, fate: dead}", "    - {low: 5, high: 6, fate: dead}"),
        # a fate no table knows
        ("    - {low: 1, high: 3, fate: returns}", "    - {low: 1, high: 3, fate: maybe}"),
        # recovering without its games
        (
            "    - {low: 3, high: 4, fate: recovering, games: 1}",
            "    - {low: 3, high: 4, fate: recovering}",
        ),
        # a negative experience
        ("  fought: 1", "  fought: -1"),
        # a ladder whose thresholds go down
        ("  - {rank: veterani, experience: 10,", "  - {rank: veterani, experience: 2,"),
        # an unknown key
        ("  per_game: 1", "  per_gam: 1"),
    ],
)
def test_a_broken_copy_is_refused_naming_the_file_and_line(broken: str, needle: str) -> None:
    text = _text()
    assert broken in text
    bad = text.replace(broken, needle)
    with pytest.raises(InvalidInput) as caught:
        parse_campaign_rules(bad, "manovra/campaign.yaml")
    error = caught.value
    assert error.params["source"] == "manovra/campaign.yaml"
    line = error.params.get("line")
    assert isinstance(line, int)
    # the line named is the broken line or the block holding it (a rule over several lines)
    assert line <= _line_of(bad, needle.strip())
    assert "manovra/campaign.yaml" in translate(error.key, "en", **error.params)


def test_a_point_never_recovers_and_bad_yaml_is_refused() -> None:
    text = _text().replace(
        "    - {low: 1, high: 3, fate: returns}\n    - {low: 4, high: 6, fate: dead}",
        "    - {low: 1, high: 3, fate: recovering, games: 1}\n    - {low: 4, high: 6, fate: dead}",
    )
    with pytest.raises(InvalidInput):
        parse_campaign_rules(text, "manovra/campaign.yaml")
    with pytest.raises(InvalidInput) as caught:
        parse_campaign_rules("ruleset: [unclosed", "x/campaign.yaml")
    assert caught.value.params["source"] == "x/campaign.yaml"
    with pytest.raises(InvalidInput):
        parse_campaign_rules(_text() + "\nruleset: manovra\n", "dup")  # a key twice
