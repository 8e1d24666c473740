"""One catalogue of player-facing text in Italian (default), English and French.

The catalogue is YAML: ``rules/locales/<lang>.yaml`` for the core and the front ends, plus
``rules/<ruleset>/locales/<lang>.yaml`` for each ruleset. Nested mappings are flattened to
dotted keys. A missing entry falls back to Italian, then to the key itself, so a gap in a
translation degrades to readable text instead of an error.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterator, Mapping
from functools import lru_cache
from importlib import resources
from typing import Any

from rules.core.yamlio import load_yaml

LANGUAGES: tuple[str, ...] = ("it", "en", "fr")
DEFAULT_LANGUAGE = "it"

#: French typography: a narrow no-break space before ``:`` ``;`` ``!`` ``?`` and inside
#: « guillemets » (the catalogue's French texts use it; so must every text added outside).
NARROW_SPACE = "\u202f"

# Ordinary whitespace only: the no-break spaces of French typography are not for collapsing.
_ORDINARY_SPACES = re.compile(r"[ \t\r\n]+")


def _flatten(prefix: str, node: Any, out: dict[str, str]) -> None:
    if isinstance(node, Mapping):
        for key, value in node.items():
            # "_" names the text of the node itself, next to its children.
            name = prefix if key == "_" else (f"{prefix}.{key}" if prefix else str(key))
            _flatten(name, value, out)
    elif node is not None:
        out[prefix] = str(node)


def _locale_files(language: str) -> Iterator[str]:
    root = resources.files("rules")
    core = root / "locales" / f"{language}.yaml"
    if core.is_file():
        yield core.read_text(encoding="utf-8")
    # Per-area files (bot.it.yaml, discord.it.yaml) keep each front end's texts apart.
    for entry in sorted((root / "locales").iterdir(), key=lambda item: item.name):
        if entry.name.endswith(f".{language}.yaml"):
            yield entry.read_text(encoding="utf-8")
    for entry in sorted(root.iterdir(), key=lambda item: item.name):
        candidate = entry / "locales" / f"{language}.yaml"
        if entry.name != "locales" and entry.is_dir() and candidate.is_file():
            yield candidate.read_text(encoding="utf-8")


@lru_cache(maxsize=8)  # a few languages (an unknown one is an empty catalogue)
def catalogue(language: str) -> Mapping[str, str]:
    """The flattened catalogue of one language (an empty one for an unknown language)."""
    entries: dict[str, str] = {}
    if language in LANGUAGES:
        for text in _locale_files(language):
            _flatten("", load_yaml(text) or {}, entries)
    return entries


class _Lenient(dict[str, Any]):
    """Leaves unknown placeholders visible instead of raising KeyError."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def has_key(key: str, language: str = DEFAULT_LANGUAGE) -> bool:
    """Whether ``key`` has a text in ``language`` itself (no fallback)."""
    return key in catalogue(language)


# ``{n|casualty|casualties}``: the singular or the plural, by the number ``n``.
_PLURAL = re.compile(r"\{(\w+)\|([^|{}]*)\|([^|{}]*)\}")


def _plurals(template: str, language: str, params: Mapping[str, Any]) -> str:
    """Pick ``{n|one|many}`` forms: French reads 0 and 1 as singular, Italian and English
    only 1."""

    def choose(match: re.Match[str]) -> str:
        value = params.get(match.group(1))
        try:
            number = abs(float(value))  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return match.group(3)
        singular = number < 2 if language == "fr" else number == 1
        return match.group(2) if singular else match.group(3)

    return _PLURAL.sub(choose, template) if "|" in template else template


def value_in_language(value: Any, language: str) -> Any:
    # A name carrying its translations (`rules.core.words.Words`: a scenario's side or
    # objective) is read in the text's language; words.py builds on this module, so the
    # name is recognised by its method.
    pick = getattr(value, "in_language", None) if isinstance(value, str) else None
    return value if pick is None else pick(language)


# A decimal as a length or a count is written: "15.3", or already a string of one.
_DECIMAL = re.compile(r"-?\d+\.\d+")


def decimal(value: Any, language: str) -> str:
    """A measured number as ``language`` writes it: ``15.3`` in English, ``15,3`` in Italian
    and French (the decimal comma); a whole float without its ``.0``, at most two decimals.
    Anything that is not a number is written as it is."""
    if isinstance(value, float):
        text = str(int(value)) if value.is_integer() else f"{value:.2f}".rstrip("0").rstrip(".")
    else:
        text = str(value)
    if language != "en" and _DECIMAL.fullmatch(text):
        return text.replace(".", ",")
    return text


class _Formatter(string.Formatter):
    """``str.format`` with one more spec: ``{cm:num}`` writes a measure with the decimal
    separator of the text's language (`decimal`). A template marks its measures so; a value
    typed back by players (``{x},{y}``) keeps its point."""

    def __init__(self, language: str) -> None:
        super().__init__()
        self.language = language

    def format_field(self, value: Any, format_spec: str) -> Any:
        if format_spec == "num":
            return decimal(value, self.language)
        return super().format_field(value, format_spec)


def translate(key: str, language: str = DEFAULT_LANGUAGE, /, **params: Any) -> str:
    """The text for ``key`` in ``language``, with ``params`` substituted.

    A template may hold ``{n|form one|form many}``: the form agreeing with the number ``n``;
    and ``{cm:num}``: a measure with the language's decimal separator.
    """
    template = catalogue(language).get(key)
    if template is None:
        template = catalogue(DEFAULT_LANGUAGE).get(key)
    if template is None:
        if not params:
            return key
        return key + " " + ", ".join(f"{name}={value}" for name, value in params.items())
    template = _plurals(template, language, params)
    named = {name: value_in_language(value, language) for name, value in params.items()}
    try:
        return _Formatter(language).vformat(template, (), _Lenient(named))
    except (ValueError, IndexError):
        # A malformed template must never hide the message from a player.
        return template


def placeholders(template: str) -> set[str]:
    """The named placeholders of a template (used by the catalogue consistency test)."""
    template = _PLURAL.sub(lambda match: "{" + match.group(1) + "}", template)
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def collapse_spaces(text: str) -> str:
    """Runs of ordinary whitespace (left by an empty parameter) as one space, trimmed.

    ``str.split`` would also take French's narrow no-break spaces for spaces and so undo
    the typography; these stay.
    """
    return _ORDINARY_SPACES.sub(" ", text).strip(" \t\r\n")


def colon(language: str) -> str:
    """The colon after a label: ``Result:``, ``Risultato:``, ``Résultat\u202f:``."""
    return NARROW_SPACE + ":" if language == "fr" else ":"


def semicolon(language: str) -> str:
    """The semicolon between items: ``a; b``, in French ``a\u202f; b``."""
    return NARROW_SPACE + ";" if language == "fr" else ";"


def quoted(text: str, language: str) -> str:
    """A quoted name or value: «text», and in French «\u202ftext\u202f»."""
    space = NARROW_SPACE if language == "fr" else ""
    return f"«{space}{text}{space}»"


def percent(value: float, language: str, *, prefix: str = "") -> str:
    """A chance as each language writes it, one decimal: ``62.5%``, ``62,5%``, and in French
    ``62,5\u202f%`` (decimal comma, narrow no-break space before the sign). ``prefix`` is a
    bound written before the number (``<``, ``>``)."""
    number = f"{value:.1f}"
    if language == "en":
        return f"{prefix}{number}%"
    number = number.replace(".", ",")
    space = NARROW_SPACE if language == "fr" else ""
    return f"{prefix}{number}{space}%"


def sentence(text: str) -> str:
    """``text`` ending as a sentence: a full stop added where it has no closing mark, so
    another sentence can follow it."""
    stripped = text.rstrip()
    if not stripped or stripped[-1] in ".!?…:":
        return stripped
    return stripped + "."


def sentences(*texts: str) -> str:
    """Several sentences as one text, each closed by its mark, one space between."""
    return " ".join(sentence(text) for text in texts if text.strip())
