"""Names players read, in the game's language: a bundled scenario's words in Italian,
English and French, an uploaded scenario's plain string as it is (its sides, its
objectives, its title and description; a campaign book's areas).

A scenario field typed :data:`LocalizedName` takes either a plain string or
``{it: …, en: …, fr: …}``. Either way the value is a :class:`Words`: a ``str`` (the Italian
text, or the string given), so everything that reads the name as a string keeps working,
carrying its other languages for the views that pick one (:meth:`Words.in_language`;
`rules.core.i18n.translate` picks it for every parameter of a text). It is stored as it was
given (a string stays a string), so documents of games already played read as before.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Annotated, Any

from pydantic import PlainSerializer, PlainValidator, WithJsonSchema

from rules.core.i18n import DEFAULT_LANGUAGE, LANGUAGES, translate
from rules.core.upload import Refusal, unsafe_character

#: How a name in several languages is written (what a malformed one is told).
SHAPE = "{it: …, en: …, fr: …}"
#: The longest name a language may give (a scenario's names are short).
MAX_NAME_CHARS = 60
#: The longest label of a terrain area a language may give.
MAX_LABEL_CHARS = 80
#: The longest title of a scenario a language may give.
MAX_TITLE_CHARS = 100
#: The longest description of a scenario a language may give (line breaks allowed).
MAX_TEXT_CHARS = 2000


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


def words_of(value: object, longest: int = MAX_NAME_CHARS, *, lines: bool = False) -> Words:
    """A plain string, or a mapping of languages to texts, as :class:`Words` (a
    :class:`~rules.core.upload.Refusal`, a ValueError worded in the catalogue: not text nor
    a mapping, an unknown language, an empty text or one over ``longest`` characters, an
    unsafe character; ``lines``: line breaks allowed, a description's)."""
    if isinstance(value, Words):
        return value
    if isinstance(value, str):
        _check_text(value, longest, lines)
        return Words(value)
    if not isinstance(value, Mapping) or not value:
        raise Refusal("error.upload.name_shape", shape=SHAPE)
    for key, text in value.items():
        if key not in LANGUAGES:
            language = str(key)[:20]
            known = ", ".join(LANGUAGES)
            raise Refusal("error.upload.name_language", (language,), language=language, known=known)
        if not isinstance(text, str):
            raise Refusal("error.upload.name_text", (key,))
        _check_text(text, longest, lines, (key,))
    texts = {str(key): text for key, text in value.items()}
    first = texts.get(DEFAULT_LANGUAGE) or next(iter(texts.values()))
    return Words(first, texts)


def _check_text(
    text: str, longest: int, lines: bool = False, where: tuple[str | int, ...] = ()
) -> None:
    if not 0 < len(text) <= longest:
        raise Refusal("error.upload.name_length", where, longest=longest)
    # An uploaded name is one line of plain text; a description may hold line breaks.
    code = unsafe_character(text, lines=lines)
    if code is not None:
        raise Refusal("error.upload.unsafe_character", where, code=code)


def _dumped(words: str) -> str | dict[str, str]:
    translations = getattr(words, "translations", None)
    return dict(translations) if translations else str(words)


def _schema(longest: int) -> dict[str, Any]:
    return {
        "anyOf": [
            {"type": "string", "maxLength": longest},
            {
                "type": "object",
                "propertyNames": {"enum": list(LANGUAGES)},
                "additionalProperties": {"type": "string", "maxLength": longest},
            },
        ]
    }


#: A scenario's name field: a plain string or the three languages' words.
LocalizedName = Annotated[
    Words,
    PlainValidator(words_of),
    PlainSerializer(_dumped),
    WithJsonSchema(_schema(MAX_NAME_CHARS)),
]
#: A terrain area's label on the map: the same, up to :data:`MAX_LABEL_CHARS` characters.
LocalizedLabel = Annotated[
    Words,
    PlainValidator(lambda value: words_of(value, MAX_LABEL_CHARS)),
    PlainSerializer(_dumped),
    WithJsonSchema(_schema(MAX_LABEL_CHARS)),
]


#: A scenario's title: the same, up to :data:`MAX_TITLE_CHARS` characters.
LocalizedTitle = Annotated[
    Words,
    PlainValidator(lambda value: words_of(value, MAX_TITLE_CHARS)),
    PlainSerializer(_dumped),
    WithJsonSchema(_schema(MAX_TITLE_CHARS)),
]


def _text_of(value: object) -> Words:
    # A scenario may leave its description empty (a plain ""), as it always could.
    return Words("") if value == "" else words_of(value, MAX_TEXT_CHARS, lines=True)


#: A scenario's description: the same, up to :data:`MAX_TEXT_CHARS` characters, on several
#: lines, or empty.
LocalizedText = Annotated[
    Words,
    PlainValidator(_text_of),
    PlainSerializer(_dumped),
    WithJsonSchema(_schema(MAX_TEXT_CHARS)),
]


def worded(key: str) -> Words:
    """A catalogue text in every language, as a name carrying them (a terrain's word
    joined to a name from a scenario, each read in the reader's language)."""
    return Words(translate(key), {language: translate(key, language) for language in LANGUAGES})


def in_language(name: str, language: str) -> str:
    """Any name in ``language``: a :class:`Words`' translation, a plain string as it is."""
    return name.in_language(language) if isinstance(name, Words) else name


def names_in(names: Mapping[str, str], language: str) -> dict[str, str]:
    """Names by id (a game's or a campaign's sides) in ``language``."""
    return {key: in_language(name, language) for key, name in names.items()}


def joined(names: Iterable[str], separator: str = ", ") -> str:
    """Names in one text ("Allies, Germans"), which reads each in the text's language when
    one of them has its translations."""
    listed = list(names)
    if not any(isinstance(name, Words) and name.translations for name in listed):
        return separator.join(listed)
    return Words(
        separator.join(listed),
        {
            language: separator.join(in_language(name, language) for name in listed)
            for language in LANGUAGES
        },
    )


def followed(name: str, after: str) -> str:
    """``name`` followed by ``after`` ("Sniper (breve)"), in each of the name's languages."""
    translations = getattr(name, "translations", None)
    if not translations:
        return f"{name}{after}"
    return Words(f"{name}{after}", {key: f"{text}{after}" for key, text in translations.items()})


def names_of(names: Mapping[str, Any]) -> dict[str, Words]:
    """Names by id as a document stores them (a plain string, or the three languages') as
    :class:`Words`: for the readers of a raw document, which no model validated."""
    return {str(key): words_of(name) for key, name in names.items()}


def stored_title(document: Mapping[str, Any]) -> Words:
    """The title a game's document stores (a plain string, or the three languages'), as
    :class:`Words`: for the readers of a raw document; "" when it has none or it cannot
    be read (a title names a game, it never stops one from being listed)."""
    stored = document.get("title")
    if not stored:
        return Words("")
    try:
        return words_of(stored, MAX_TITLE_CHARS)
    except ValueError:
        return Words(str(stored)[:MAX_TITLE_CHARS])


def named_again(value: str, names: Iterable[str]) -> str:
    """``value`` as the name of ``names`` it spells, with that name's languages; else as it
    is. A side's name kept as plain text (in a stored result's or a log's parameters, which
    JSON keeps as strings) reads in the reader's language again."""
    for name in names:
        if isinstance(name, Words) and name.translations and value == str(name):
            return name
    return value


def is_named(name: str, wanted: str) -> bool:
    """Whether ``wanted`` is ``name`` in any of its languages (case-insensitive): a player
    types a side's name in the language they read it in."""
    spellings = {name, *getattr(name, "translations", {}).values()}
    return wanted.casefold() in {spelling.casefold() for spelling in spellings}


#: The parts of a game's document that hold named pieces (each ruleset's units; manovra's
#: platoons, linea_gotica's batteries and aircraft; the weapons of a scenario).
_NAMED_PARTS = ("units", "platoons", "supports", "weapons")


def spelled_in(document: Mapping[str, Any]) -> tuple[Words, ...]:
    """The names of a game's pieces (units, platoons, batteries, weapons) the document gives in
    several languages: a stored outcome keeps them as plain text, read again in the reader's
    language (:func:`named_again`)."""
    found: list[Words] = []
    for part in _NAMED_PARTS:
        pieces = document.get(part)
        for piece in pieces.values() if isinstance(pieces, Mapping) else ():
            name = piece.get("name") if isinstance(piece, Mapping) else None
            if isinstance(name, Mapping):
                try:
                    found.append(words_of(name))
                except ValueError:  # a piece's name this version cannot read: left plain
                    continue
    return tuple(found)


def id_named(names: Mapping[str, str], wanted: str) -> str | None:
    """The id ``wanted`` stands for among ``names`` (id → name): the id itself, else the one
    whose name ``wanted`` spells in any of its languages (case-insensitive); None when it
    names none, or several. A player types a unit's name in the language they read it in."""
    if wanted in names:
        return wanted
    found = [key for key, name in names.items() if is_named(name, wanted.strip())]
    return found[0] if len(found) == 1 else None


__all__ = [
    "MAX_LABEL_CHARS",
    "MAX_NAME_CHARS",
    "MAX_TEXT_CHARS",
    "MAX_TITLE_CHARS",
    "LocalizedLabel",
    "LocalizedName",
    "LocalizedText",
    "LocalizedTitle",
    "Words",
    "followed",
    "id_named",
    "in_language",
    "is_named",
    "joined",
    "named_again",
    "names_in",
    "names_of",
    "spelled_in",
    "stored_title",
    "worded",
    "words_of",
]
