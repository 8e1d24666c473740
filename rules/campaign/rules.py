"""A ruleset's campaign rules, as data: ``rules/<key>/campaign.yaml``.

What the post-battle sequence (`rules.campaign.postbattle`) does between two games of a
campaign: the fate of each strength point lost (a die and its bands: back to the unit, or
lost for good), the fate of a unit destroyed outright (back, recovering for some games,
dead), the experience a game earns, the ladder of ranks experience climbs, and the
replacements a unit gets back (more for the winner). Each file is validated by
:class:`CampaignRules` when it is first read (refused line by line, naming the file, as
scenarios are) and kept for the process: the rules of a campaign never change under it.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from importlib import resources
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from rules.campaign.roster import MAX_STRENGTH
from rules.core.dice import Die
from rules.core.errors import InvalidInput
from rules.core.i18n import DEFAULT_LANGUAGE, LANGUAGES
from rules.core.ruleset import get_ruleset
from rules.core.scenario import parse_yaml_model

#: What becomes of a strength point lost, or of a unit destroyed.
Fate = Literal["returns", "recovering", "dead"]
#: The most games a unit may spend recovering.
MAX_RECOVERY = 10
#: The most rungs a promotion ladder holds.
MAX_RUNGS = 12


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Band(_Strict):
    """Faces ``low``..``high`` of the die give ``fate`` (``games``: how long recovering)."""

    low: int = Field(ge=1, le=100)
    high: int = Field(ge=1, le=100)
    fate: Fate
    games: int = Field(0, ge=0, le=MAX_RECOVERY)

    @model_validator(mode="after")
    def _consistent(self) -> Band:
        if self.low > self.high:
            raise ValueError(f"low {self.low} is above high {self.high}")
        if (self.fate == "recovering") != (self.games > 0):
            raise ValueError("'games' (1 or more) is given exactly when the fate is 'recovering'")
        return self


class FateTable(_Strict):
    """A die and its bands, which cover every face once, in order."""

    die: int = Field(ge=2, le=100, description="the die's faces: 6 for a D6, 10 for a D10")
    bands: tuple[Band, ...] = Field(min_length=1, max_length=20)

    @model_validator(mode="after")
    def _covers(self) -> FateTable:
        expected = 1
        for band in self.bands:
            if band.low != expected:
                raise ValueError(f"the bands must cover faces 1 to {self.die} in order")
            expected = band.high + 1
        if expected != self.die + 1:
            raise ValueError(f"the bands must cover faces 1 to {self.die} in order")
        return self

    @property
    def dice(self) -> Die:
        """The die rolled on this table."""
        return Die(self.die)

    def band(self, face: int) -> Band:
        """The band ``face`` falls in."""
        return next(band for band in self.bands if band.low <= face <= band.high)


class Experience(_Strict):
    """Experience a unit earns in a game it was fielded in."""

    fought: int = Field(ge=0, le=100)
    won: int = Field(ge=0, le=100)
    #: For a unit still standing at the end of the game (strength above 0).
    survived: int = Field(ge=0, le=100)


#: A value the muster writes into a scenario unit (linea_gotica's quality, manovra's AD).
UnitValue = int | str


class Rung(_Strict):
    """A rank on the ladder, the experience that reaches it, and what a unit of that rank
    is in a scenario: the values of the unit's fields the ruleset's muster reads the
    starting rank from and writes back (``unit: {ad: 2}``); none where the ruleset's units
    have no such field."""

    #: The rank's id: what rosters, logs and ``/campaign adjust`` hold (never changes).
    rank: str = Field(min_length=1, max_length=40)
    experience: int = Field(ge=0, le=100_000)
    unit: dict[str, UnitValue] = Field(default_factory=dict, max_length=4)
    #: The rank in words, by language (``{it: …, en: …, fr: …}``): what players read.
    name: dict[str, str] = Field(default_factory=dict, max_length=len(LANGUAGES))

    @model_validator(mode="after")
    def _named(self) -> Rung:
        unknown = sorted(set(self.name) - set(LANGUAGES))
        if unknown:
            raise ValueError(f"name: unknown language {', '.join(unknown)}")
        if any(not 0 < len(text) <= 40 for text in self.name.values()):
            raise ValueError("name: each language's words are 1 to 40 characters")
        return self


class Replacements(_Strict):
    """Strength points a surviving unit gets back between games, up to its full strength."""

    per_game: int = Field(ge=0, le=MAX_STRENGTH)
    won: int = Field(0, ge=0, le=MAX_STRENGTH)
    drawn: int = Field(0, ge=0, le=MAX_STRENGTH)


#: The parts of a campaign's rules, each of which names where it comes from.
SECTIONS = ("casualties", "destroyed", "experience", "promotion", "replacements")


class Source(_Strict):
    """Where one part of the campaign rules comes from. The seeds hold no campaign rules,
    so every part is a house rule (``house_rule``: why it is so) unless it transcribes
    seed lines (``seed_lines``: first and last, with words of them in ``quote``); a part may
    be both, e.g. a ladder whose rungs are the seed's and whose thresholds are ours.
    tests/campaign/test_rules.py checks every cited line and quote against the seed."""

    house_rule: str | None = Field(None, min_length=10, max_length=600)
    seed_lines: tuple[int, int] | None = None
    quote: str | None = Field(None, min_length=3, max_length=120)

    @model_validator(mode="after")
    def _said(self) -> Source:
        if self.house_rule is None and self.seed_lines is None:
            raise ValueError("a source is a house rule, seed lines, or both")
        if (self.seed_lines is None) != (self.quote is None):
            raise ValueError("seed lines are cited with a quote of them, and only then")
        if self.seed_lines is not None and not 1 <= self.seed_lines[0] <= self.seed_lines[1]:
            raise ValueError("seed_lines: the first line, then the last (from 1)")
        return self


class CampaignRules(_Strict):
    """One ruleset's campaign rules (``rules/<key>/campaign.yaml``)."""

    ruleset: str = Field(min_length=1, max_length=40)
    strength: Literal["models", "figures", "steps"]
    #: Rolled once for each strength point lost: back to the unit, or dead (lost for good).
    casualties: FateTable
    #: Rolled once for a unit that ended the game destroyed (strength 0), before its points.
    destroyed: FateTable
    experience: Experience
    #: Ranks from the lowest; an entry without a rank stands on the first rung.
    promotion: tuple[Rung, ...] = Field((), max_length=MAX_RUNGS)
    replacements: Replacements
    #: Where each part comes from (every part of SECTIONS named once).
    sources: dict[str, Source]

    @model_validator(mode="after")
    def _consistent(self) -> CampaignRules:
        if sorted(self.sources) != sorted(SECTIONS):
            raise ValueError(f"sources: name each of {', '.join(SECTIONS)} once, and no other")
        recovering = [band for band in self.casualties.bands if band.fate == "recovering"]
        if recovering:
            raise ValueError(
                "casualties: a strength point returns or is dead; "
                "'recovering' is a fate of a destroyed unit"
            )
        names = [rung.rank for rung in self.promotion]
        if len(set(names)) != len(names):
            raise ValueError("promotion: a rank is listed twice")
        thresholds = [rung.experience for rung in self.promotion]
        if thresholds and (thresholds[0] != 0 or thresholds != sorted(set(thresholds))):
            raise ValueError(
                "promotion: the first rung needs 0 experience, each next one more than the last"
            )
        return self

    def rung(self, rank: str | None) -> Rung | None:
        """The rung named ``rank`` (None: no such rung, or no rank)."""
        return next((rung for rung in self.promotion if rung.rank == rank), None)

    def rank_name(self, rank: str, language: str) -> str:
        """Rank ``rank`` in ``language``'s words (else Italian's, else its id: a rank off
        the ladder is shown as written)."""
        rung = self.rung(rank)
        if rung is None:
            return rank
        return rung.name.get(language) or rung.name.get(DEFAULT_LANGUAGE) or rank

    def check_rank(self, rank: str) -> None:
        """Refuse (``InvalidInput``) a rank that is not a rung of the ladder, naming them."""
        names = [rung.rank for rung in self.promotion]
        if names and rank not in names:
            raise InvalidInput("error.campaign.bad_rank", rank=rank[:40], known=", ".join(names))

    def rank_of(self, unit: Mapping[str, UnitValue]) -> str | None:
        """The rank a scenario unit starts a campaign with: the lowest rung whose ``unit``
        values are all the unit's (a rung with none fits any unit); None without a ladder."""
        return next(
            (
                rung.rank
                for rung in self.promotion
                if all(unit.get(name) == value for name, value in rung.unit.items())
            ),
            None,
        )

    def next_rank(self, rank: str | None, experience: int) -> str | None:
        """The rank one rung up that ``experience`` reaches from ``rank`` (None: no
        promotion — the top rung, a rank off the ladder, or not enough experience)."""
        names = [rung.rank for rung in self.promotion]
        if not names:
            return None
        at = 0 if rank is None else (names.index(rank) if rank in names else -1)
        if at < 0 or at + 1 >= len(names):
            return None
        rung = self.promotion[at + 1]
        return rung.rank if experience >= rung.experience else None


def rank_words(ruleset: str, rank: str | None, language: str) -> str:
    """A roster entry's rank in ``language``'s words ("—" without one; its id where the
    ruleset has no ladder)."""
    if rank is None:
        return "—"
    rules = campaign_rules(ruleset)
    return rank if rules is None else rules.rank_name(rank, language)


def check_ladder(
    rules: CampaignRules, fields: Mapping[str, tuple[UnitValue, ...]], source: str
) -> None:
    """Refuse (``ValueError`` naming ``source``) a ladder the ruleset's muster cannot field:
    ``fields`` is each unit field the muster writes a rank into and the values a scenario
    unit may hold there. Each rung must give every one of them a value a unit may hold,
    and each such value must be some rung's, so that every scenario unit starts on a rung
    and every rank musters as a unit the scenario accepts."""
    for rung in rules.promotion:
        unknown = sorted(set(rung.unit) - set(fields))
        if unknown:
            raise ValueError(
                f"{source}: promotion: rank {rung.rank!r} sets {', '.join(unknown)}, "
                f"which the muster does not field (it fields: {', '.join(fields) or 'nothing'})"
            )
        for name, allowed in fields.items():
            if name not in rung.unit or rung.unit[name] not in allowed:
                raise ValueError(
                    f"{source}: promotion: rank {rung.rank!r} is not one the muster can field: "
                    f"give it unit: {{{name}: one of {', '.join(map(str, allowed))}}}"
                )
    for name, allowed in fields.items():
        missing = [v for v in allowed if all(r.unit.get(name) != v for r in rules.promotion)]
        if rules.promotion and missing:
            raise ValueError(
                f"{source}: promotion: no rank for {name} {', '.join(map(str, missing))}: "
                "a scenario unit with it would start off the ladder"
            )


def parse_campaign_rules(text: str, source: str) -> CampaignRules:
    """Campaign rules from YAML text; every refusal an ``InvalidInput`` naming ``source``
    and the line."""
    return parse_yaml_model(text, CampaignRules, source)


@lru_cache(maxsize=16)  # one per ruleset
def campaign_rules(ruleset: str) -> CampaignRules | None:
    """The campaign rules of a bundled ruleset (None when it ships none), read once."""
    try:
        path = resources.files(f"rules.{ruleset}") / "campaign.yaml"
    except ModuleNotFoundError:
        return None
    if not path.is_file():
        return None
    rules = parse_campaign_rules(path.read_text("utf-8"), f"{ruleset}/campaign.yaml")
    if rules.ruleset != ruleset:
        raise ValueError(f"{ruleset}/campaign.yaml declares ruleset {rules.ruleset!r}")
    muster = get_ruleset(ruleset).muster
    check_ladder(rules, {} if muster is None else muster.rank_fields, f"{ruleset}/campaign.yaml")
    return rules


__all__ = [
    "MAX_RECOVERY",
    "Band",
    "CampaignRules",
    "Experience",
    "Fate",
    "FateTable",
    "Replacements",
    "Rung",
    "UnitValue",
    "campaign_rules",
    "check_ladder",
    "parse_campaign_rules",
    "rank_words",
]
