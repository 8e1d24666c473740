"""Errors a player or referee can cause.

Every error carries a catalogue key and the parameters needed to localize it, so the
front ends can show it in the game's language; ``str(error)`` is the Italian text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rules.core.i18n import DEFAULT_LANGUAGE, semicolon, translate, value_in_language

ParamValue = str | int | float


class RulesError(Exception):
    """Base of every user-safe rules error: safe to show to a player as it is."""

    default_key = "error.rules"

    def __init__(self, key: str | None = None, /, **params: ParamValue) -> None:
        self.key = key or self.default_key
        self.params: Mapping[str, ParamValue] = dict(params)
        # The text is built when read (str(), a reply): legal-action listings raise and
        # catch thousands of refusals per listing, and formatting each one cost more than
        # the check that raised it.
        super().__init__(self.key)

    def __str__(self) -> str:
        return self.localized(DEFAULT_LANGUAGE)

    def localized(self, language: str) -> str:
        """The message in ``language`` (it, en, fr), falling back to Italian."""
        return translate(self.key, language, **self.params)


class InvalidInput(RulesError):
    """The input of a procedure or command is malformed or out of its domain."""

    default_key = "error.invalid_input"


class DiceError(RulesError):
    """A scripted or hand-entered die face is impossible, missing or in excess."""

    default_key = "error.dice"


class DiceNeeded(DiceError):
    """Typed faces ran out: the command needs one more ``die`` for the roll ``label``.

    Raised by :class:`rules.core.dice.ScriptedDice` when a player's typed dice are used up.
    The service does not refuse on it: it asks the roller for that die and re-runs the
    command with one face more (procedures are deterministic given their dice).
    """

    def __init__(
        self, die_name: str, sides: int, label: str, given: int, source: object = None
    ) -> None:
        self.die_name = die_name
        self.sides = sides
        self.label = label
        self.given = given
        self.source = source  # the dice that ran out: only a player's typed faces are asked for
        super().__init__("error.dice.exhausted", die=die_name, label=label, given=given)


class TableDataError(RulesError):
    """A table file is inconsistent; raised at load time, never during play."""

    default_key = "error.table_data"


class UnknownName(RulesError):
    """A ruleset, procedure, table, unit, weapon or scenario name that does not exist.

    ``suggested``: the known names nearest to the one typed (set by whoever knows which
    names the asker may see), offered after the reason: "did you mean …?". ``among``: the
    ids the typed name had to be one of, where the rules know them (a unit's own weapons):
    only those may be suggested, not a name of the same kind that the unit does not have.
    """

    default_key = "error.unknown_name"

    def __init__(
        self,
        key: str | None = None,
        /,
        *,
        suggested: tuple[str, ...] = (),
        among: tuple[str, ...] = (),
        **params: ParamValue,
    ) -> None:
        super().__init__(key, **params)
        self.suggested = suggested
        self.among = among

    def suggesting(self, names: tuple[str, ...]) -> UnknownName:
        """The same refusal, offering ``names`` as what was meant."""
        return UnknownName(self.key, suggested=names, among=self.among, **self.params)

    def localized(self, language: str) -> str:
        """The reason, then the closest names when there are some."""
        reason = super().localized(language)
        if not self.suggested:
            return reason
        # A name offered carries its languages: it reads in the refusal's.
        names = ", ".join(value_in_language(name, language) for name in self.suggested)
        hint = translate("error.did_you_mean", language, names=names, n=len(self.suggested))
        return f"{reason} {hint}"


class IllegalAction(RulesError):
    """The action is valid in itself but not allowed now (turn, phase, status, owner)."""

    default_key = "error.illegal_action"


class NoneCan(IllegalAction):
    """No candidate can do what was asked (no weapon can fire): the refusal names each
    candidate's own reason, nearest first, not only that none can.

    ``reasons``: a catalogue key and its parameters per candidate, joined into the
    ``{reasons}`` parameter of ``key`` (``{n}``: how many) in the reader's language.
    """

    def __init__(
        self,
        key: str,
        reasons: Sequence[tuple[str, Mapping[str, ParamValue]]],
        /,
        **params: ParamValue,
    ) -> None:
        super().__init__(key, **params)
        self.reasons = tuple((reason, dict(values)) for reason, values in reasons)

    def localized(self, language: str) -> str:
        """The refusal with every candidate's reason."""
        why = f"{semicolon(language)} ".join(
            translate(reason, language, **values) for reason, values in self.reasons
        )
        return translate(self.key, language, **self.params, reasons=why, n=len(self.reasons))
