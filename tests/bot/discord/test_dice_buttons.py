"""The face buttons of a die asked for: layout, ids within Discord's limits, the prompt card."""

from __future__ import annotations

import pytest

from bot.discord.embeds import reply_to_messages
from bot.discord.views import DieFaceButton, die_buttons, faces_per_row
from bot.service import PlayReply
from bot.service.rolls import DicePrompt

BIG = 2**62  # ids far larger than Discord's snowflakes


def prompt(sides: int, faces: tuple[int, ...] = (4,)) -> DicePrompt:
    return DicePrompt(BIG, BIG, "alleati", "fire", sides, "D12 — penetration", faces)


@pytest.mark.parametrize(
    ("sides", "rows"),
    [
        (6, [3, 3]),
        (8, [4, 4]),
        (10, [5, 5]),
        (12, [4, 4, 4]),
        (20, [5, 5, 5, 5]),
        (24, [5, 5, 5, 5, 4]),
        (25, [5, 5, 5, 5, 5]),
    ],
)
def test_faces_are_laid_out_in_even_rows_within_discords_limits(sides, rows):
    buttons = die_buttons(prompt(sides), BIG)
    assert [b.item.label for b in buttons] == [str(face) for face in range(1, sides + 1)]
    per_row: dict[int, int] = {}
    for b in buttons:
        per_row[b.item.row] = per_row.get(b.item.row, 0) + 1
    assert list(per_row.values()) == rows and len(rows) <= 5
    assert faces_per_row(sides) == rows[0]
    assert all(len(b.item.custom_id) <= 100 for b in buttons)


def test_a_button_id_round_trips_and_a_huge_die_gets_no_buttons():
    (five,) = [b for b in die_buttons(prompt(6), 123) if b.face == 5]
    match = DieFaceButton.__discord_ui_compiled_template__.fullmatch(five.item.custom_id)
    assert match is not None
    assert (int(match["prompt"]), int(match["n"]), int(match["face"]), int(match["user"])) == (
        BIG,
        2,
        5,
        BIG,
    )
    assert five.options == {"prompt": BIG, "n": 2, "face": 5}
    assert die_buttons(prompt(100), 123) == []


@pytest.mark.parametrize("language", ["it", "en", "fr"])
def test_the_prompt_card_names_die_roll_faces_and_roller(language):
    reply = PlayReply(language=language, ruleset="manovra", dice_prompt=prompt(12, (7,)))
    (message,) = reply_to_messages(reply, channel_id=5)
    text = message.embeds[0].description or ""
    assert "D12 — penetration" in text and "7" in text and f"<@{BIG}>" in text
    assert message.view is not None and len(message.view.children) == 12
    assert not message.allowed_mentions.users  # the roller just typed: no ping
    huge = PlayReply(language=language, ruleset="manovra", dice_prompt=prompt(100))
    (message,) = reply_to_messages(huge, channel_id=5)
    assert message.view is None and "D100" in (message.embeds[0].description or "")


@pytest.mark.parametrize("language", ["it", "en", "fr"])
def test_the_bots_rolls_beside_typed_faces_are_shown_as_the_bots(language):
    from bot.discord.embeds import resolution_card
    from rules.core.dice import D6, Roll
    from rules.core.i18n import translate
    from rules.core.resolution import Outcome, Resolution, Step
    from rules.render import render_resolution_text

    bot = f"({translate('render.bot_roll', language)})"
    typed = Roll(D6, 5, "to hit", by_hand=True, side="rossi")
    save = Roll(D6, 2, "save", by_hand=False, side="blu")
    mixed = Resolution(
        "manovra",
        "duel",
        (Step("a", (typed,)), Step("b", (save,))),
        Outcome.of("bot.game.ended"),
    )
    text = render_resolution_text(mixed, language)
    assert "D6=5" in text and f"D6=5 {bot}" not in text
    assert f"D6=2 {bot}" in text and text.count(bot) == 1
    card = resolution_card(mixed, language)
    shown = [line for section in card.sections for line in section.lines]
    assert f"`D6 → 2` {bot}" in shown and "`D6 → 5`" in shown
    # All typed, or all the bot's: nothing to tell apart, nothing marked.
    alone = Resolution("manovra", "duel", (Step("a", (typed,)),), Outcome.of("bot.game.ended"))
    assert bot not in render_resolution_text(alone, language)
