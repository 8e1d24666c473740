"""The rulesets' campaign rules: every bundled file loads, broken copies are refused by line."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest

from rules.campaign.rules import CampaignRules, campaign_rules, parse_campaign_rules
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


SEEDS = Path(__file__).resolve().parents[2] / "docs" / "seeds"


def _seed_lines(key: str) -> list[str]:
    """The ruleset's seed (docs/seeds/<number>_<key>.txt), one string a line."""
    (path,) = SEEDS.glob(f"*_{key}.txt")
    return path.read_text(encoding="utf-8").splitlines()


@pytest.mark.parametrize("key", KNOWN_RULESETS)
def test_every_part_names_its_source_and_cited_seed_lines_say_so(key: str) -> None:
    """Each part of the campaign rules is a house rule or cites seed lines whose words it
    quotes: a claim that a seed table decides a fate can be checked, and is."""
    rules = campaign_rules(key)
    assert rules is not None
    seed = _seed_lines(key)
    for section, source in rules.sources.items():
        if source.seed_lines is None:
            assert source.house_rule, section
            continue
        first, last = source.seed_lines
        assert last <= len(seed), (section, source.seed_lines)
        assert source.quote is not None
        assert source.quote in "\n".join(seed[first - 1 : last]), (section, source.quote)


def test_linea_gotica_casualty_fates_are_a_house_rule_not_the_damage_table() -> None:
    """Seed 004 lines 304-312 (DANNI CONTRO FANTERIA) is a damage roll in play: only its 10
    kills, and a figure lost in play is a dead one; its bands are not 1-6 / 7-10, and its
    +1 for a sniper or flamethrower (line 312) has nothing to modify between games. The
    fates are therefore a house rule, and they must not claim those lines."""
    rules = campaign_rules("linea_gotica")
    assert rules is not None
    fates = rules.sources["casualties"]
    assert fates.seed_lines is None and fates.house_rule is not None
    seed = _seed_lines("linea_gotica")
    assert seed[303].startswith("DANNI CONTRO FANTERIA") and seed[311].startswith("Il tiro")


def test_manovra_text_names_every_die_and_ad_never_moves() -> None:
    """manovra's tests roll D6, D8, D10 and D12 (seed 000 lines 226-233), and AD enters fire,
    tests and scatter, not movement: the file and the campaign guide say so."""
    text = (resources.files("rules.manovra") / "campaign.yaml").read_text("utf-8")
    assert "D10 and D12" in text
    for page in ("campaigns.md", "campaigns-internals.md"):
        guide = (Path(__file__).resolve().parents[2] / "docs" / page).read_text("utf-8")
        assert "moves with its new AD" not in guide
        assert "D6 and D8)" not in guide


def test_a_part_without_a_source_is_refused() -> None:
    text = (resources.files("rules.w40k4") / "campaign.yaml").read_text("utf-8")
    cut = text.split("sources:")[0] + "sources:\n  casualties: {house_rule: 'ours, for a reason'}\n"
    with pytest.raises(InvalidInput):
        parse_campaign_rules(cut, "w40k4/campaign.yaml")
    bad = text.replace("quote: viene distrutta\n", "")
    with pytest.raises(InvalidInput):
        parse_campaign_rules(bad, "w40k4/campaign.yaml")
