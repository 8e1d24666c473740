"""A toy ruleset outside ``rules/``: it plugs in through the three calls and its data alone.

Two sides on a line of places 0–10. A unit may ``move`` (to any place within 3 of where it
stands) or ``fire`` at an enemy it knows of (a D6 on the ``colpo`` table: a hit takes a
model, and the target then owes a ``rally`` roll: on a 1 it loses one more); ``turn.next``
passes the move; the game ends after the scenario's turns. Blue's scout starts hidden: no
view for red shows it, and red cannot fire at it, until it moves or fires.

It uses nothing of ``rules/`` but the core (:mod:`rules.core.surface`,
:mod:`rules.core.seatview`, the dice, tables and errors) and registers itself with
:func:`rules.core.ruleset.register` (tests register it for a test and forget it after).
Its commands are declared as data (``commands.yaml``, the format of
:mod:`rules.core.declaration`) and carried by its ``Ruleset``: help, choices, autocomplete and
the console read them as they read a bundled ruleset's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from rules.core.battlefield import MapView, Overlay
from rules.core.declaration import load_declaration
from rules.core.dice import DiceSource, DiceTray, Die
from rules.core.errors import IllegalAction, UnknownName
from rules.core.legal import LegalAction, OptionSpec
from rules.core.migrations import DocumentFormat
from rules.core.play import Played
from rules.core.resolution import Outcome
from rules.core.ruleset import Ruleset
from rules.core.score import GameResult, Score
from rules.core.seatview import Seat, SeatView, StatusView, UnitLine
from rules.core.surface import Reread
from rules.core.tables import TableSet

KEY = "toy"
HERE = Path(__file__).resolve().parent
REACH = 3
LAST_PLACE = 10
D6 = Die(6)
DECLARATION = load_declaration(HERE / "commands.yaml")
VERB_OPTIONS: dict[str, tuple[str, ...]] = {
    verb: DECLARATION.options_of(verb) for verb in DECLARATION.verbs
}


@cache
def load_tables() -> TableSet:
    """The toy's one table."""
    return TableSet.load(HERE / "tables")


def _refuse() -> IllegalAction:
    return IllegalAction("error.rules")


@dataclass(frozen=True, slots=True)
class ToySource:
    """The toy's answers about one document (a plain dict: no state model)."""

    document: Mapping[str, Any]

    def _units(self) -> dict[str, dict[str, Any]]:
        units: dict[str, dict[str, Any]] = self.document["units"]
        return units

    def status(self, seat: Seat) -> StatusView:
        """Every unit (the core leaves out the hidden ones for the other side)."""
        units = tuple(
            UnitLine(
                uid,
                u["name"],
                u["side"],
                "toy",
                u["models"],
                u["initial"],
                ("hidden",) if u["hidden"] else (),
                str(u["at"]),
                u["acted"],
                hidden=u["hidden"],
            )
            for uid, u in self._units().items()
        )
        doc = self.document
        return StatusView(
            title=doc["title"],
            turn=doc["turn"],
            phase=Outcome.of("toy.phase", side=doc["sides"][doc["active"]]),
            awaiting=None,  # derived by the core
            sides=dict(doc["sides"]),
            tokens={},
            units=units,
            ended=doc["ended"],
        )

    def map(self, seat: Seat, language: str) -> MapView | None:
        """No battlefield: a line of numbered places."""
        return None

    def legal(self) -> list[LegalAction]:
        """Everything any seat may do now."""
        doc = self.document
        if doc["ended"]:
            return []
        owed = self.prompts()
        if owed:
            return owed
        active = doc["active"]
        actions = [LegalAction("turn.next", active)]
        units = self._units()
        for uid, unit in units.items():
            if unit["side"] != active or unit["acted"] or unit["models"] <= 0:
                continue
            low, high = max(0, unit["at"] - REACH), min(LAST_PLACE, unit["at"] + REACH)
            actions.append(
                LegalAction("move", active, {"unit": uid}, (OptionSpec("to", low=low, high=high),))
            )
            for tid, target in units.items():
                if target["side"] != active and target["models"] > 0 and not target["hidden"]:
                    actions.append(LegalAction("fire", active, {"unit": uid, "target": tid}))
        return actions

    def prompts(self) -> list[LegalAction]:
        """The owed rally rolls (each a button)."""
        units = self._units()
        return [
            LegalAction(
                "rally",
                units[uid]["side"],
                {"unit": uid},
                owed=True,
                label=Outcome.of("toy.follow.rally", unit=units[uid]["name"]),
            )
            for uid in self.document["pending"]
        ]

    def turn(self) -> str | None:
        """The active side, until the game ends."""
        return None if self.document["ended"] else str(self.document["active"])

    def names(self, kind: str, side: str | None) -> list[str]:
        """Units for ``unit``, enemies for ``target``."""
        units = self._units()
        if kind == "unit":
            return [uid for uid, u in units.items() if side is None or u["side"] == side]
        if kind == "target":
            return [uid for uid, u in units.items() if side is None or u["side"] != side]
        return []

    def named(self, kind: str) -> Mapping[str, str]:
        """Every unit's name, for a unit or a target."""
        if kind not in ("unit", "target"):
            return {}
        return {uid: str(u["name"]) for uid, u in self._units().items()}

    def score(self, seat: Seat) -> Score:
        """No victory conditions: an empty score (the same for every seat)."""
        return Score(sides=tuple(self.document["sides"]))

    def marks(self, verb: str, options: Mapping[str, Any]) -> tuple[Overlay, ...]:
        """No marks: the picture shows what a command did."""
        return ()

    def result(self) -> GameResult | None:
        """No victory conditions: no result to record."""
        return None


class ToyRules:
    """The toy's three calls."""

    ruleset = KEY
    document_format = DocumentFormat(KEY, version=1)

    def scenarios(self) -> list[str]:
        """The bundled scenarios (its ``scenarios/`` folder)."""
        return sorted(path.stem for path in (HERE / "scenarios").glob("*.yaml"))

    def verbs(self) -> tuple[str, ...]:
        """Its verbs."""
        return tuple(VERB_OPTIONS)

    def options_of(self, verb: str) -> tuple[str, ...]:
        """The option names of a verb."""
        return VERB_OPTIONS.get(verb, ())

    def setup(
        self, scenario_id: str | None = None, scenario_text: str | None = None
    ) -> dict[str, Any]:
        """A new game from a bundled scenario or YAML text."""
        if scenario_text is None:
            name = scenario_id or self.scenarios()[0]
            if name not in self.scenarios():
                raise UnknownName("error.unknown_scenario", name=name, known="duel")
            scenario_text = (HERE / "scenarios" / f"{name}.yaml").read_text(encoding="utf-8")
        data = yaml.safe_load(scenario_text)
        units = {
            u["id"]: {
                "name": u["name"],
                "side": u["side"],
                "at": u["at"],
                "models": u["models"],
                "initial": u["models"],
                "hidden": bool(u.get("hidden", False)),
                "acted": False,
            }
            for u in data["units"]
        }
        first = next(iter(data["sides"]))
        return self.document_format.stamp(
            {
                "title": data["title"],
                "turns": data["turns"],
                "turn": 1,
                "sides": data["sides"],
                "first": first,
                "active": first,
                "units": units,
                "pending": [],
                "ended": False,
            }
        )

    def sides(self, document: Mapping[str, Any]) -> Mapping[str, str]:
        """Side id → name."""
        return dict(document["sides"])

    def canonical(self, document: Mapping[str, Any]) -> dict[str, Any]:
        """A toy document has no defaults to fill in: the current format is its form."""
        return self.document_format.upgrade(document)

    def load(self, document: Mapping[str, Any]) -> Reread:
        """A toy document is read at each call: nothing to keep between them."""
        return Reread(self, document)

    def view(self, document: Mapping[str, Any], seat: Seat) -> SeatView:
        """What a seat sees."""
        return SeatView(KEY, seat, ToySource(document))

    def act(
        self,
        document: Mapping[str, Any],
        seat: Seat,
        verb: str,
        options: Mapping[str, Any],
        dice: DiceSource,
        other_dice: DiceSource | None = None,
    ) -> Played:
        """Play a verb: refused unless the seat's view lists it (so the rules and the legal
        list cannot disagree), with the options it allows."""
        if seat.public:
            raise IllegalAction("error.seat.spectator")
        listed = self.view(document, seat).legal
        if not any(_matches(action, verb, options) for action in listed):
            raise _refuse()
        units = {uid: dict(unit) for uid, unit in document["units"].items()}
        doc: dict[str, Any] = {**document, "units": units}
        doc["pending"] = list(doc["pending"])
        tray = DiceTray(dice, others=other_dice, actor_side=seat.side)
        notices: list[Outcome] = []
        if verb == "turn.next":
            _pass(doc, notices)
        elif verb == "move":
            unit = units[options["unit"]]
            unit.update(at=int(options["to"]), acted=True, hidden=False)
        elif verb == "fire":
            unit, target = units[options["unit"]], units[options["target"]]
            unit.update(acted=True, hidden=False)
            table = load_tables()["colpo"]
            face = tray.roll(D6, "fire").face
            if table.cell(table.row_for("d6", face), "esito") == "hit":
                target["models"] -= 1
                if target["models"] > 0:
                    doc["pending"].append(options["target"])
        elif verb == "rally":
            unit = units[options["unit"]]
            doc["pending"].remove(options["unit"])
            if tray.roll(D6, "rally").face == 1:
                unit["models"] -= 1
        return Played(self.document_format.stamp(doc), [], notices, list(tray.rolls))


def _pass(doc: dict[str, Any], notices: list[Outcome]) -> None:
    """The other side moves; after both, a new turn; after the last turn, the end."""
    sides = list(doc["sides"])
    following = sides[(sides.index(doc["active"]) + 1) % len(sides)]
    for unit in doc["units"].values():
        if unit["side"] == doc["active"]:
            unit["acted"] = False
    doc["active"] = following
    if following == doc["first"]:
        doc["turn"] += 1
        if doc["turn"] > doc["turns"]:
            doc["turn"] = doc["turns"]
            doc["ended"] = True
            notices.append(Outcome.of("toy.ended"))


def _matches(action: LegalAction, verb: str, options: Mapping[str, Any]) -> bool:
    """Whether a command is the listed action with allowed values for its free options."""
    if action.verb != verb or set(options) - set(action.options) - {s.name for s in action.free}:
        return False
    if any(str(options.get(name)) != str(value) for name, value in action.options.items()):
        return False
    for spec in action.free:
        value = options.get(spec.name)
        if value is None:
            if spec.required:
                return False
        elif spec.choices and str(value) not in spec.choices:
            return False
        elif not spec.choices:
            assert spec.low is not None and spec.high is not None
            if not str(value).lstrip("-").isdigit() or not spec.low <= int(value) <= spec.high:
                return False
    return True


TOY = ToyRules()
RULESET = Ruleset(
    key=KEY,
    title="Toy — a duel on a line",
    seed="",
    dice="D6",
    load_tables=load_tables,
    procedures={},
    rules=TOY,
    declaration=DECLARATION,
)

__all__ = ["DECLARATION", "RULESET", "TOY"]
