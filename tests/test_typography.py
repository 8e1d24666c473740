"""Every text in three languages keeps each language's typography (issue 26 item 12).

French puts a narrow no-break space (U+202F) before ``:`` ``;`` ``!`` ``?`` and inside
« guillemets »; Italian and English put no space there. A colon that is syntax, not
punctuation (a time 16:18, a Discord timestamp, an option as typed ``to:30,12``), takes
none. This holds for every text of the catalogues and for what the renderers add around
them (labels such as "Résultat", the table a step read, the odds, a refusal and what the
seat may do instead).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from bot.commands import COMMANDS
from bot.console.render_text import notice_text
from bot.service.errors import NotNow
from bot.service.result_text import outcome_line
from rules.core.errors import IllegalAction
from rules.core.i18n import LANGUAGES, NARROW_SPACE, catalogue, collapse_spaces, translate
from rules.core.legal import LegalAction, NotOwed
from rules.core.resolution import Outcome
from rules.render import describe, outcome_text, render_described_text, value_text
from tests.test_i18n import resolutions

#: Options as typed ("avec to: (x,y)", "donnez distance: au lieu de to:"): syntax, no space.
OPTION_NAMES = frozenset({option.name for command in COMMANDS for option in command.every_option})
_MARK = re.compile(r"[:;!?]")
_WORD_BEFORE = re.compile(r"([A-Za-z_]+)$")


def typography_faults(text: str, language: str) -> Iterator[str]:
    """Each place where ``text`` breaks ``language``'s typography, with its context."""
    for match in _MARK.finditer(text):
        at = match.start()
        mark, before = text[at], text[at - 1] if at else ""
        after = text[at + 1 : at + 2]
        context = text[max(0, at - 25) : at + 15]
        if before in ("", "\n") or before in ("!", "?") or after in ("!", "?"):
            continue  # a line's marker ("? Concede?", "! owed"), or "?!"
        if not (after == "" or after.isspace() or after in ")»'\".,"):
            continue  # syntax: 16:18, <t:1700000000:f>, to:30,12, https://
        word = _WORD_BEFORE.search(text[:at])
        if mark == ":" and word is not None and word.group(1) in OPTION_NAMES:
            continue  # "with to: (x,y)": an option as the player types it
        if language == "fr" and before != NARROW_SPACE:
            yield f"{mark!r} without U+202F before it: {context!r}"
        if language != "fr" and before.isspace():
            yield f"{mark!r} after a space: {context!r}"
    if language == "fr":
        for match in re.finditer("«", text):
            if text[match.end() : match.end() + 1] != NARROW_SPACE:
                yield f"« without U+202F after it: {text[match.start() : match.end() + 20]!r}"
        for match in re.finditer("»", text):
            if text[match.start() - 1 : match.start()] != NARROW_SPACE:
                yield f"» without U+202F before it: {text[max(0, match.start() - 20) :]!r}"
    elif NARROW_SPACE in text:
        yield f"U+202F outside French: {text!r}"


# -- the rule itself ---------------------------------------------------------------------------


def test_the_rule_finds_the_faults_of_the_issue():
    assert list(typography_faults("Résultat: 10 pertes", "fr"))
    assert list(typography_faults("Résultat : 10 pertes", "fr"))  # a plain space
    assert list(typography_faults("Quoi ?", "fr")) and list(typography_faults("a ; b", "fr"))
    assert list(typography_faults("« x »", "fr"))
    assert list(typography_faults("Result : 10", "en"))
    assert not list(typography_faults("Résultat\u202f: 10 pertes\u202f; «\u202fx\u202f»", "fr"))
    # Syntax takes no space: a time, a timestamp, an option as typed, a command.
    for syntax in ("16:18 UTC", "<t:1700000000:f>", "avec to: (45,30)", "/fire unit:a1"):
        assert not list(typography_faults(syntax, "fr")), syntax


# -- (a) every text of the catalogues ------------------------------------------------------------


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_catalogue_text_has_its_language_typography(language: str):
    faults = [
        f"{key}: {fault}"
        for key, text in catalogue(language).items()
        for fault in typography_faults(text, language)
    ]
    assert faults == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_rendered_breakdowns_have_their_language_typography(language: str):
    """Labels the renderer adds ("Résultat", "Table «…», row …, column …:", the odds) and
    values it localizes ("weapon destroyed: …") follow the language too."""
    sample = resolutions()[:: max(1, len(resolutions()) // 300)]
    faults = {
        fault
        for resolution in sample
        for fault in typography_faults(
            render_described_text(describe(resolution, language), language), language
        )
    }
    assert sorted(faults)[:10] == []


def test_french_labels_take_a_narrow_space():
    resolution = next(r for r in resolutions() if any(s.table for s in r.steps))
    text = render_described_text(describe(resolution, "fr"), "fr")
    assert f"Résultat{NARROW_SPACE}: " in text
    assert f"Table «{NARROW_SPACE}" in text and f"{NARROW_SPACE}»" in text
    english = render_described_text(describe(resolution, "en"), "en")
    assert "Outcome: " in english and NARROW_SPACE not in english


def test_a_status_with_its_detail_takes_the_language_colon():
    value = "weapon_destroyed:mitragliatrice"
    assert value_text("manovra", value, "fr").endswith(f"{NARROW_SPACE}: mitragliatrice")
    assert value_text("manovra", value, "en").endswith("d: mitragliatrice")


# -- item 3: collapsing spaces keeps the narrow ones --------------------------------------------


def test_collapse_spaces_keeps_no_break_spaces():
    assert collapse_spaces("  a  \n b\u202f: c\u00a0d  ") == "a b\u202f: c\u00a0d"


def test_an_outcome_keeps_the_french_narrow_spaces():
    """``outcome_text`` once collapsed whitespace with ``str.split``, which takes U+202F
    for a space: "Blessé grave\u202f: …" came out with a plain space."""
    outcome = Outcome.of("linea_gotica.damage.badly_wounded", turns=2)
    text = outcome_text("linea_gotica", outcome, "fr")
    assert text.startswith(f"Blessé grave{NARROW_SPACE}: ")
    # An empty parameter leaves no doubled space.
    empty = outcome_text("manovra", Outcome.of("manovra.fire.casualties", n=2), "fr")
    assert "  " not in empty and not empty.endswith(" ")
    assert outcome_line("linea_gotica", outcome, "fr") == text


# -- (d) times ---------------------------------------------------------------------------------


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_deadline_shows_its_time_whole(language: str):
    """'16: 18 UTC': the time went through the status-word reader, which took its colon
    for a status's."""
    for when in ("2026-11-26 16:18 UTC", "<t:1700000000:f> (<t:1700000000:R>)"):
        notice = Outcome.of("bot.deadline.due", side="Alleati", when=when)
        text = notice_text("manovra", notice, language)
        assert when in text, text
        assert not list(typography_faults(text, language))


def test_names_with_a_colon_or_a_plus_are_shown_as_written():
    assert value_text("manovra", "Kampfgruppe: Nord+Süd", "fr") == "Kampfgruppe: Nord+Süd"


# -- (e) a refusal and what comes next are two sentences ---------------------------------------


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_refusal_and_what_the_seat_may_do_are_two_sentences(language: str):
    """'Too far: 117% of the allowed move You may now:': the refusal had no full stop."""
    cause = IllegalAction("manovra.move.too_far", percent=117)
    refusal = NotNow(cause, [LegalAction("turn.next", "a")], "Alleati").localized(language)
    reason = cause.localized(language)
    assert refusal.startswith(reason + ". "), refusal
    assert not list(typography_faults(refusal, language))
    waiting = NotNow(cause, [], "Alleati").localized(language)
    assert waiting.startswith(reason + ". ") and "Alleati" in waiting


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_refusal_ending_with_its_own_mark_gets_no_second_one(language: str):
    cause = IllegalAction("error.dice.too_many", limit=5)
    refusal = NotNow(cause, [], "Alleati").localized(language)
    assert refusal.startswith(cause.localized(language) + " ")
    assert ".." not in refusal


@pytest.mark.parametrize("language", LANGUAGES)
def test_what_is_owed_follows_the_refusal_as_a_sentence(language: str):
    owed = LegalAction("morale", "a", {"unit": "u1"}, owed=True)
    other = LegalAction("morale", "b", {"unit": "u2"}, owed=True)
    error = NotOwed("manovra.move.too_far", (owed, other), {"a": "Alleati"}, percent=117)
    text = error.localized(language)
    assert text.startswith(translate("manovra.move.too_far", language, percent=117) + ". ")
    assert not list(typography_faults(text, language))


# -- (b) a count that reaches a noun agrees with it ----------------------------------------------

#: Parameters that carry a number of things (the text names the things after it).
COUNT_PARAMS = frozenset(
    [
        "n",
        "limit",
        "lost",
        "won",
        "turns",
        "needed",
        "done",
        "shots",
        "wounds",
        "unsaved",
        "pen",
        "glance",
        "range",
        "movement",
        "keep",
        "hours",
        "size",
        "distance",
        "left",
        "below_half",
        "found",
        "count",
        "start",
        "destroyed",
        "events",
        "undone",
        "points",
        "window",
        "allowance",
        "models",
        "steps",
    ]
)
#: Words a count may be followed by without agreeing: units of measure, prepositions,
#: invariable nouns and participles.
NO_AGREEMENT = {
    "it": frozenset(
        ["cm", "mm", "ms", "byte", "di", "a", "da", "su", "per", "ogni", "sotto", "in", "unità"]
    ),
    "en": frozenset(
        [
            "cm",
            "mm",
            "ms",
            "of",
            "to",
            "at",
            "in",
            "every",
            "each",
            "below",
            "per",
            "left",
            "allowed",
            "killed",
        ]
    ),
    "fr": frozenset(
        [
            "cm",
            "mm",
            "ms",
            "au",
            "sur",
            "à",
            "de",
            "pour",
            "en",
            "sous",
            "toutes",
            "obus",
            "pas",
            "permis",
        ]
    ),
}
_COUNT_THEN_WORD = re.compile(r"\{(\w+)\}[ \u00a0\u202f]+([^\W\d_][\w'’-]*)")


def plural_faults(template: str, language: str) -> Iterator[str]:
    """``{n} word`` where ``n`` is a count and the template has no ``{n|one|many}``."""
    for match in _COUNT_THEN_WORD.finditer(template):
        param, word = match.groups()
        if param not in COUNT_PARAMS or "{" + param + "|" in template:
            continue
        if word not in NO_AGREEMENT[language]:
            yield f"{{{param}}} {word}"


def test_the_plural_check_finds_the_fixed_examples():
    """The five examples of the issue, as they read before their fix."""
    assert list(plural_faults("Burst {marker}: {n} HE rounds", "en"))
    assert list(plural_faults("Close combat: {won} enemies eliminated, {lost} losses", "en"))
    assert list(plural_faults("muore entro {turns} turni se non medicato", "it"))
    assert list(plural_faults("{unit} moves to {hex} ({distance} hexes)", "en"))
    assert not list(plural_faults("({distance} {distance|hex|hexes}), {cm} cm", "en"))


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_count_agrees_with_its_noun(language: str):
    faults = [
        f"{key}: {fault}"
        for key, template in catalogue(language).items()
        for fault in plural_faults(template, language)
    ]
    assert faults == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_counts_of_one_read_singular(language: str):
    """Rendered at 1, the fixed texts read singular (at 2, plural)."""
    one = translate("w40k4.chain.wounded", language, wounds=1)
    two = translate("w40k4.chain.wounded", language, wounds=2)
    assert one != two
    assert {"it": "1 ferita", "en": "1 wound", "fr": "1 blessure"}[language] in one


# -- (c) Italian: no bare preposition before a side's name ---------------------------------------

#: Parameters that are a side's name ("Alleati", "Tedeschi"): "di Alleati", "a Alleati"
#: read wrong without the article the name would need; the texts say "dello schieramento".
SIDE_PARAMS = "side|winner|loser|scorer"
_BARE_PREPOSITION = re.compile(rf"\b(?:di|a|da|in|su) \{{(?:{SIDE_PARAMS})\}}")


def test_the_article_check_finds_the_fixed_example():
    assert _BARE_PREPOSITION.search("Ti sei unito a {side}.")
    assert not _BARE_PREPOSITION.search("Ti sei unito allo schieramento {side}.")


def test_italian_puts_no_bare_preposition_before_a_side():
    faults = [key for key, text in catalogue("it").items() if _BARE_PREPOSITION.search(text)]
    assert faults == []


def test_french_elides_no_de_before_a_side():
    """'Pertes de Alleati' (a game played at the console in French): "de" would elide before
    a vowel; the texts say "du camp"."""
    bare = re.compile(rf"\bde \{{(?:{SIDE_PARAMS})\}}")
    assert [key for key, text in catalogue("fr").items() if bare.search(text)] == []
