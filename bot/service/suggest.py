""" "Did you mean …?" for a name the rules do not know (a unit, target, weapon, marker…).

The rules refuse an unknown name (:class:`rules.core.errors.UnknownName`) without knowing
who asked; the service knows the seat, so it finds the option the name was typed in, asks
the seat's own view for the names of that option's autocomplete kind (never a unit hidden
from that seat) and offers the closest ones, as an unknown command already does: each by
what its reader reads and types (a unit's or a weapon's name, in the reader's language),
matched against what was typed as an id or as a name in any language.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from bot.service.help import closest
from rules.core.budget import WorkBudgetExceeded
from rules.core.declaration import Declaration, declaration
from rules.core.errors import RulesError, UnknownName
from rules.core.seatview import Seat
from rules.core.surface import Rules
from rules.core.words import followed

#: The most names a refusal offers.
MAX_SUGGESTED = 3
#: When no name is close, a refusal still offers every name the seat may type if there are
#: at most this many (a side's platoons, a unit's weapons): a short list beats a bare "no".
MAX_LISTED = 5


def typed_option(error: UnknownName, options: Mapping[str, Any]) -> str | None:
    """The option whose value is the name the rules refused (its text may be cut short in
    the refusal; a comma-separated list of names counts each name)."""
    refused = {value for value in error.params.values() if isinstance(value, str) and value}
    for option, value in options.items():
        if not isinstance(value, str):
            continue
        for part in (value, *(p.strip() for p in value.split(","))):
            if any(part == name or (len(name) >= 40 and part.startswith(name)) for name in refused):
                return option
    return None


def autocomplete_kind(declared: Declaration, verb: str, option: str) -> str | None:
    """The autocomplete kind of ``option`` for ``verb`` (another verb's declaration of the
    same option for a verb not declared itself: ``odds`` reads fire's options)."""
    verbs = [declared.verbs[verb]] if verb in declared.verbs else list(declared.verbs.values())
    for declared_verb in verbs:
        found = declared_verb.option(option)
        if found is not None and found.autocomplete:
            return found.autocomplete
    return None


def with_suggestions(
    error: UnknownName,
    rules: Rules,
    ruleset: str,
    document: Mapping[str, Any],
    seat: Seat,
    verb: str,
    options: Mapping[str, Any],
) -> UnknownName:
    """``error`` offering the names closest to the one typed, from what ``seat`` may see;
    when none is close, all of them if they are few (:data:`MAX_LISTED`); ``error`` as it
    was when there are more or the option has no names to offer."""
    option = typed_option(error, options)
    if option is None:
        return error
    try:
        kind = autocomplete_kind(declaration(ruleset), verb, option)
    except UnknownName:  # a ruleset registered without a command declaration
        return error
    if kind is None:
        return error
    typed = str(options[option])
    try:
        view = rules.view(dict(document), seat)
        # Cheap: the names, not the legal actions that would put the usable ones first.
        names = view.names(kind, legal_first=False)
        if error.among:  # the name had to be one of these (a unit's own weapons)
            names = [name for name in names if name in error.among]
        labels = view.labels(kind) if names else {}
    except (RulesError, WorkBudgetExceeded):
        return error
    refused = {value for value in error.params.values() if isinstance(value, str)}
    wanted = next((p.strip() for p in typed.split(",") if p.strip() in refused), typed)
    close = closest_ids(wanted, names, labels)
    if not close and len(names) <= MAX_LISTED:
        close = list(names)
    shown = offered(close, names, labels)
    return error.suggesting(shown) if shown else error


def closest_ids(wanted: str, names: Sequence[str], labels: Mapping[str, str]) -> list[str]:
    """The ids among ``names`` closest to ``wanted``, typed as an id or as a name in any
    of its languages (``labels``: id → name), best first."""
    spelled: dict[str, list[str]] = {}
    for key in names:
        for spelling in {key, *spellings_of(labels.get(key))}:
            spelled.setdefault(spelling.casefold(), []).append(key)
    if not spelled:  # nothing of the kind the seat may type (no marker yet): none is close
        return []
    found = closest(wanted.casefold(), spelled, n=len(spelled))
    ids = (key for spelling in found for key in spelled[spelling])
    return list(dict.fromkeys(ids))[:MAX_SUGGESTED]


def spellings_of(name: str | None) -> set[str]:
    """A name in each of its languages (none for no name)."""
    if name is None:
        return set()
    return {name, *getattr(name, "translations", {}).values()}


def offered(ids: Iterable[str], names: Sequence[str], labels: Mapping[str, str]) -> tuple[str, ...]:
    """What a refusal offers for ``ids``: what the reader reads and types, each one's name
    (read in the refusal's language), followed by its id only when another of ``names`` (what
    the seat may see) has the same name in some language; the id when it has no name."""
    spellings = Counter(
        spelling.casefold() for key in names for spelling in spellings_of(labels.get(key))
    )
    shown: list[str] = []
    for key in ids:
        label = labels.get(key)
        if label is None:
            shown.append(key)
            continue
        collides = any(spellings[spelling.casefold()] > 1 for spelling in spellings_of(label))
        shown.append(followed(label, f" ({key})") if collides else label)
    return tuple(shown)


__all__ = [
    "MAX_LISTED",
    "MAX_SUGGESTED",
    "autocomplete_kind",
    "closest_ids",
    "offered",
    "typed_option",
    "with_suggestions",
]
