"""Slash-command names and descriptions in Italian, English and French.

Every name, description and choice of the command tree is a ``locale_str`` whose
``extras["key"]`` names its entry in the catalogue (``rules/locales/discord.<lang>.yaml``).
The base strings Discord shows to other locales are the English ones: the names are the
fixed English command names, the descriptions come from the English catalogue.
"""

from __future__ import annotations

import unicodedata

from discord import Locale, app_commands
from discord.app_commands import locale_str

from rules.core.i18n import catalogue, translate

#: Discord locales we translate, and the catalogue language each one reads.
LOCALES: dict[Locale, str] = {
    Locale.italian: "it",
    Locale.french: "fr",
    Locale.american_english: "en",
    Locale.british_english: "en",
}

BASE_LANGUAGE = "en"


def name(base: str, key: str) -> locale_str:
    """A command, group or option name: ``base`` is the fixed English name."""
    return locale_str(base, key=key)


def _filled(key: str, language: str) -> str:
    """A catalogue text as one command tree for every channel shows it: a distance's
    ``{unit}`` reads the generic unit (each ruleset's own is shown by /help)."""
    return translate(key, language, unit=translate("bot.measure.any", language))


def text(key: str) -> locale_str:
    """A description or choice name whose base text is the English catalogue entry."""
    return locale_str(_filled(key, BASE_LANGUAGE), key=key)


def command_name(path: str) -> locale_str:
    """The name of command ``path`` ("game.new"): its last part, localized by key."""
    return name(path.rsplit(".", 1)[-1], f"discord.cmd.{path}.name")


def command_description(path: str) -> locale_str:
    """The description of command ``path``."""
    return text(f"discord.cmd.{path}.description")


def option_name(option: str) -> locale_str:
    """An option's name; options share their names across commands."""
    return name(option, f"discord.opt.{option}.name")


def option_description(stem: str) -> locale_str:
    """An option's description; ``stem`` may differ from the option name when one option
    means different things in different commands (``target`` of /fire and of /callarty)."""
    return text(f"discord.opt.{stem}.description")


def choice(value: str, key: str = "") -> app_commands.Choice[str]:
    """A fixed choice whose displayed name is localized (catalogue ``key``, by default
    ``discord.choice.<value>``) and whose value is ``value``."""
    return app_commands.Choice(name=text(key or f"discord.choice.{value}"), value=value)


def is_valid_name(candidate: str) -> bool:
    """Whether ``candidate`` fits Discord's ``^[-_\\p{L}\\p{N}\\p{sc=Deva}\\p{sc=Thai}]{1,32}$``
    and is lowercase (Discord rejects uppercase letters in chat-input names).

    Checked with :mod:`unicodedata` (letters and numbers by category) because the
    ``regex`` module is not a dependency; Devanagari and Thai marks never occur in our
    three languages.
    """
    if not 1 <= len(candidate) <= 32 or candidate != candidate.lower():
        return False
    return all(ch in "-_" or unicodedata.category(ch)[0] in "LN" for ch in candidate)


class CatalogueTranslator(app_commands.Translator):
    """Reads command texts from the game's catalogue for it, fr, en-US and en-GB."""

    async def translate(
        self,
        string: locale_str,
        locale: Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        """The catalogue text for ``string.extras["key"]`` in ``locale``, or None.

        None (Discord then shows the base string) for other locales, for strings without a
        key, and for keys missing from that language: a gap must not become an Italian
        name in the French client.
        """
        key = string.extras.get("key")
        language = LOCALES.get(locale)
        if not key or language is None or key not in catalogue(language):
            return None
        return _filled(key, language)


__all__ = [
    "LOCALES",
    "CatalogueTranslator",
    "choice",
    "command_description",
    "command_name",
    "is_valid_name",
    "name",
    "option_description",
    "option_name",
    "text",
]
