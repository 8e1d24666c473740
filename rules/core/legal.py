"""What each seat may do now: the one answer every front end and the fuzzer read.

A ruleset answers its legal actions (``DocumentRules.legal_actions``) for any state and seat.
The application service builds ``/game status`` (who owes what), refusals ("not now: you
may …"), autocomplete (legal units and targets first) and follow-up buttons from it, and the
whole-game fuzzer plays random legal actions from it, so none of them can disagree with the
rules.

The contract a ruleset keeps (the fuzzer checks it):

* Every listed action is accepted: the command ``verb`` with its fixed ``options`` plus, for
  each free option, any value its :class:`OptionSpec` allows (optional ones present or not),
  applied for ``side`` (``None``: the referee), is not refused — whatever the dice then show.
* While the game has not ended, some seat has an action (no dead end).
* Owed actions (a roll, a choice, a placement that must happen before the game moves on) are
  marked ``owed``; while one is owed, the actions it blocks are not listed.

The follow-up buttons and whose move it is are derived from the owed actions by the core
(:mod:`rules.core.seatview`), the same way for every ruleset.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from rules.core.errors import IllegalAction, ParamValue
from rules.core.i18n import semicolon, sentences, translate
from rules.core.resolution import Outcome

# How many owed actions a refusal names before "…" (a volley's losses may owe many tests).
MAX_OWED_NAMED = 5


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """A free option of a legal action: one of ``choices``, or an integer in [low, high].

    Each free option is independent of the others: any combination of allowed values is
    accepted. Where values depend on each other, the ruleset lists separate actions with
    those options fixed instead.
    """

    name: str
    choices: tuple[str, ...] = ()
    low: int | None = None
    high: int | None = None
    required: bool = True
    # A button's label for each choice, in order, where each choice is a follow-up button
    # of its own (the unit that takes a step loss, who moves first): rules.core.seatview.
    labels: tuple[Outcome, ...] = ()

    def __post_init__(self) -> None:
        numeric = self.low is not None or self.high is not None
        if numeric and (self.low is None or self.high is None or self.low > self.high):
            raise ValueError(f"option {self.name}: a numeric range needs low <= high")
        if numeric == bool(self.choices):
            raise ValueError(f"option {self.name}: give either choices or a numeric range")
        if self.labels and len(self.labels) != len(self.choices):
            raise ValueError(f"option {self.name}: one label per choice")


@dataclass(frozen=True, slots=True)
class LegalAction:
    """One command a seat may give now."""

    verb: str
    side: str | None
    options: Mapping[str, str | int] = field(default_factory=dict)
    free: tuple[OptionSpec, ...] = ()
    owed: bool = False
    label: Outcome | None = None
    # Offered as a follow-up button though not owed (an observer's next order to a battery).
    button: bool = False

    @property
    def unit(self) -> str | None:
        """The acting unit, when the verb takes one."""
        value = self.options.get("unit")
        return None if value is None else str(value)

    @property
    def target(self) -> str | None:
        """The target, when fixed."""
        value = self.options.get("target")
        return None if value is None else str(value)


def for_seat(actions: Iterable[LegalAction], side: str | None) -> list[LegalAction]:
    """The actions a seat may give: a side's own; the referee (``None``) may give any."""
    return [a for a in actions if side is None or a.side == side]


def owed(actions: Iterable[LegalAction]) -> list[LegalAction]:
    """The actions that must happen before the game moves on."""
    return [a for a in actions if a.owed]


def verbs_of(actions: Iterable[LegalAction]) -> list[str]:
    """The distinct verbs of some actions, in the order first listed."""
    return list(dict.fromkeys(a.verb for a in actions))


def values_of(actions: Iterable[LegalAction], option: str) -> list[str]:
    """The distinct values an option takes (fixed or as a choice), in the order listed."""
    seen: dict[str, None] = {}
    for action in actions:
        fixed = action.options.get(option)
        if fixed is not None:
            seen.setdefault(str(fixed), None)
        for spec in action.free:
            if spec.name == option:
                for choice in spec.choices:
                    seen.setdefault(choice, None)
    return list(seen)


def owed_text(actions: Iterable[LegalAction], side_names: Mapping[str, str], language: str) -> str:
    """What is owed now and by whom, as one sentence (``Owed now: CT test for Sherman 2
    (Allies).``), or that nothing is owed: read from the owed legal actions, the list the
    follow-up buttons show."""
    listed = [a for a in actions if a.owed]
    if not listed:
        return translate("error.owed.nothing", language)
    items = []
    for action in listed[:MAX_OWED_NAMED]:
        if action.label is not None:
            what = translate(action.label.key, language, **dict(action.label.params))
        else:  # the command to type: /morale unit:squadra_1
            what = "/" + action.verb.replace(".", " ")
            what += "".join(f" {name}:{value}" for name, value in action.options.items())
        side = side_names.get(action.side or "", action.side or "—")
        items.append(translate("error.owed.item", language, what=what, side=side))
    if len(listed) > MAX_OWED_NAMED:
        items.append("…")
    return translate("error.owed.now", language, owed=f"{semicolon(language)} ".join(items))


class NotOwed(IllegalAction):
    """A test, morale check or rally that nobody owes now: refused before any die is rolled.

    The key and its parameters say what was asked for; the message goes on with what is owed
    now and by whom. The handler that refuses does not list that itself: the ruleset's play
    (``DocumentRules.play_on``) names it from its own owed legal actions, so the
    refusal, the follow-up buttons and the fuzzer read one source.
    """

    def __init__(
        self,
        key: str,
        /,
        owed_now: Iterable[LegalAction] = (),
        side_names: Mapping[str, str] | None = None,
        **params: ParamValue,
    ) -> None:
        super().__init__(key, **params)
        self.owed_now = tuple(a for a in owed_now if a.owed)
        self.side_names: Mapping[str, str] = dict(side_names or {})

    def naming(self, owed_now: Iterable[LegalAction], side_names: Mapping[str, str]) -> NotOwed:
        """The same refusal, naming what is owed now and by whom."""
        return NotOwed(self.key, owed_now, side_names, **self.params)

    def localized(self, language: str) -> str:
        """What was asked for, then what is owed now and by whom (or that nothing is)."""
        reason = super().localized(language)
        return sentences(reason, owed_text(self.owed_now, self.side_names, language))
