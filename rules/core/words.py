"""Names players read, in the game's language: a bundled scenario's words in Italian,
English and French, an uploaded scenario's plain string as it is.

A scenario field typed :data:`LocalizedName` takes either a plain string or
``{it: …, en: …, fr: …}``. Either way the value is a :class:`Words`: a ``str`` (the Italian
text, or the string given), so everything that reads the name as a string keeps working,
carrying its other languages for the views that pick one (:meth:`Words.in_language`;
`rules.render.value_text` picks it for every outcome's parameter). It is stored as it was
given (a string stays a string), so documents of games already played read as before.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import PlainSerializer, PlainValidator, WithJsonSchema

from rules.core.i18n import DEFAULT_LANGUAGE, LANGUAGES

#: The longest name a language may give (a scenario's names are short).
MAX_NAME_CHARS = 60


class Words(str):
    """A name: the text itself (Italian's, or the only one given), and its translations."""

    translations: Mapping[str, str]

    def __new__(cls, text: str, translations: Mapping[str, str] | None = None) -> Words:
        made = super().__new__(cls, text)
        made.translations = dict(translations or {})
        return made

    def __reduce__(self) -> tuple[Any, ...]:  # a str subclass with state: pickled whole
        return (Words, (str(self), dict(self.translations)))

    def in_language(self, language: str) -> str:
        """The name in ``language``: its translation, else Italian's, else the text."""
        return self.translations.get(language) or self.translations.get(DEFAULT_LANGUAGE) or self


def words_of(value: object) -> Words:
    """A plain string, or a mapping of languages to texts, as :class:`Words` (ValueError:
    an unknown language, an empty or too long text)."""
    if isinstance(value, Words):
        return value
    if isinstance(value, str):
        _check_text(value)
        return Words(value)
    if not isinstance(value, Mapping) or not value:
        raise ValueError("a name is a string, or {it: …, en: …, fr: …}")
    unknown = sorted(str(key) for key in value if key not in LANGUAGES)
    if unknown:
        raise ValueError(f"unknown language {', '.join(unknown)} (known: {', '.join(LANGUAGES)})")
    texts = {str(key): text for key, text in value.items()}
    for text in texts.values():
        if not isinstance(text, str):
            raise ValueError("each language's name is a string")
        _check_text(text)
    first = texts.get(DEFAULT_LANGUAGE) or next(iter(texts.values()))
    return Words(first, texts)


def _check_text(text: str) -> None:
    if not 0 < len(text) <= MAX_NAME_CHARS:
        raise ValueError(f"a name is 1 to {MAX_NAME_CHARS} characters")


def _dumped(words: str) -> str | dict[str, str]:
    translations = getattr(words, "translations", None)
    return dict(translations) if translations else str(words)


#: A scenario's name field: a plain string or the three languages' words.
LocalizedName = Annotated[
    Words,
    PlainValidator(words_of),
    PlainSerializer(_dumped),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "string", "maxLength": MAX_NAME_CHARS},
                {
                    "type": "object",
                    "propertyNames": {"enum": list(LANGUAGES)},
                    "additionalProperties": {"type": "string", "maxLength": MAX_NAME_CHARS},
                },
            ]
        }
    ),
]


def in_language(name: str, language: str) -> str:
    """Any name in ``language``: a :class:`Words`' translation, a plain string as it is."""
    return name.in_language(language) if isinstance(name, Words) else name


__all__ = ["MAX_NAME_CHARS", "LocalizedName", "Words", "in_language", "words_of"]
