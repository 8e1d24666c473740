"""What players upload (a scenario, a roster file) is data, never the bot's voice.

The helpers every uploaded file shares:

* :data:`PlainName` — a name or label on one line of plain text: no control character
  (a newline would print a fake bot line, an ESC reach the console's terminal), no
  right-to-left override or isolate, no zero-width or other invisible character;
  :data:`PlainText` the same with line breaks allowed (a scenario's description);
* :class:`Refusal` — what a model's validator raises to refuse a value with a catalogue
  key, so the refusal reads in the campaign's or game's language;
* :func:`file_refusal` — a pydantic error as that refusal, naming the file as uploaded
  and the line: the common error types have their own catalogue words
  (``error.upload.<type>``), a bool is not an int nor a string a number (the files are
  validated strictly: `rules.core.scenario.parse_yaml_model`).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import AfterValidator

from rules.core.errors import InvalidInput, ParamValue
from rules.core.i18n import translate

#: Unicode categories never allowed in an uploaded name: controls (newline, ESC, C1),
#: format characters (bidi overrides and isolates, zero-width spaces and joiners, soft
#: hyphens), line and paragraph separators, lone surrogates.
_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})

#: The pydantic error types worded in the catalogue (``error.upload.<type>``); others keep
#: pydantic's own words.
WORDED_ERRORS = frozenset(
    {
        "missing",
        "extra_forbidden",
        "int_type",
        "float_type",
        "string_type",
        "bool_type",
        "dict_type",
        "list_type",
        "tuple_type",
        "greater_than_equal",
        "less_than_equal",
        "string_too_short",
        "string_too_long",
        "string_pattern_mismatch",
        "too_short",
        "too_long",
        "enum",
        "literal_error",
    }
)


class ScenarioReferenceError(ValueError):
    """A cross-reference error in a scenario that knows where it is (``location``).

    Raised by scenario models' validators (an unknown weapon, a hex off the map…) so the
    error names the line of the offending entry rather than the document's first line.
    """

    def __init__(self, message: str, location: tuple[str | int, ...]) -> None:
        super().__init__(message)
        self.location = location


class Refusal(ValueError):
    """A value an uploaded file may not hold, refused with a catalogue key (``key`` and
    its ``params``); ``location``: where under the value's own place in the file."""

    def __init__(
        self, key: str, location: tuple[str | int, ...] = (), /, **params: ParamValue
    ) -> None:
        super().__init__(translate(key, "en", **params))  # for the logs; shown localized
        self.key = key
        self.params: dict[str, ParamValue] = dict(params)
        self.location = location


class FileRefused(InvalidInput):
    """A refused file whose detail is itself a catalogue key: the whole refusal reads in
    the reader's language (``error.scenario.invalid_line``: the file, the line, where in
    the file, and what is wrong there). Its ``detail`` parameter keeps pydantic's words,
    for the logs; :meth:`localized` replaces them."""

    def __init__(
        self,
        key: str,
        detail: str,
        detail_params: Mapping[str, ParamValue],
        /,
        **params: ParamValue,
    ) -> None:
        super().__init__(key, **params)
        self.detail_key = detail
        self.detail_params: dict[str, ParamValue] = dict(detail_params)

    def localized(self, language: str) -> str:
        """The refusal in ``language``, its detail too."""
        where = str(self.params.get("where", ""))
        text = translate(self.detail_key, language, **self.detail_params)
        params = {**self.params, "detail": f"{where}: {text}" if where else text}
        return translate(self.key, language, **params)


def unsafe_character(text: str, *, lines: bool = False) -> str | None:
    """The first character of ``text`` an uploaded name may not hold, as ``U+`` and its hex code
    (None: plain text). ``lines``: line breaks allowed."""
    # Every stored name is checked again each time a state is validated: text Python calls
    # printable holds no character of the categories "Other" or "Separator" but the space,
    # so none refused, and the test runs in C. Only the rest is read character by character.
    if text.isprintable():
        return None
    for char in text:
        if lines and char == "\n":
            continue
        if unicodedata.category(char) in _REFUSED_CATEGORIES:
            return f"U+{ord(char):04X}"
    return None


def _plain_name(text: str) -> str:
    code = unsafe_character(text)
    if code is not None:
        raise Refusal("error.upload.unsafe_character", code=code)
    return text


def _plain_text(text: str) -> str:
    code = unsafe_character(text, lines=True)
    if code is not None:
        raise Refusal("error.upload.unsafe_character", code=code)
    return text


#: A name or label an uploaded file gives: one line of plain text.
PlainName = Annotated[str, AfterValidator(_plain_name)]
#: A longer text an uploaded file gives (a description): plain text, line breaks allowed.
PlainText = Annotated[str, AfterValidator(_plain_text)]


def _param(value: Any) -> ParamValue:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return str(value)[:80]
    return value


def file_refusal(
    error: Mapping[str, Any], source: str, line: int | None, where: str
) -> FileRefused | None:
    """The refusal of one pydantic error (``ValidationError.errors()[0]``) in words of the
    catalogue; None when its type has none (the caller keeps pydantic's words)."""
    cause = (error.get("ctx") or {}).get("error")
    if isinstance(cause, Refusal):
        detail, params = cause.key, cause.params
    elif error.get("type") in WORDED_ERRORS:
        detail = f"error.upload.{error['type']}"
        params = {
            name: _param(value)
            for name, value in (error.get("ctx") or {}).items()
            if name != "error"
        }
    else:
        return None
    words = (f"{where}: " if where else "") + str(error.get("msg", ""))[:260]
    if line is None:
        return FileRefused(
            "error.scenario.invalid", detail, params, source=source, where=where, detail=words
        )
    return FileRefused(
        "error.scenario.invalid_line",
        detail,
        params,
        source=source,
        line=line,
        where=where,
        detail=words,
    )


__all__ = [
    "WORDED_ERRORS",
    "FileRefused",
    "PlainName",
    "PlainText",
    "Refusal",
    "ScenarioReferenceError",
    "file_refusal",
    "unsafe_character",
]
