"""Replies as Discord messages: Discord's limits always hold, and nothing is lost.

Discord refuses a message whose embeds break a limit (and the player then sees nothing),
so every reply is cut into fields, embeds and messages; these tests check the limits on
the largest bundled scenario, on synthetic giants, and that every piece of information is
still somewhere in the messages.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import discord
import pytest

from bot.discord.embeds import (
    CONTENT_LIMIT,
    DESCRIPTION_LIMIT,
    EMBED_TOTAL_LIMIT,
    EMBEDS_PER_MESSAGE,
    FIELD_NAME_LIMIT,
    FIELD_VALUE_LIMIT,
    FIELDS_PER_EMBED,
    MESSAGE_TOTAL_LIMIT,
    TITLE_LIMIT,
    MessagePayload,
    clip,
    embed_size,
    pack_lines,
    reply_to_messages,
    size,
)
from bot.discord.errors import interaction_language, user_message
from bot.discord.views import (
    CUSTOM_ID_LIMIT,
    ActionButton,
    custom_id,
    decode_options,
    encode_options,
)
from bot.service import FilesReply, PlayReply, Reply, StatusReply
from rules.core.dice import Die, Roll, ScriptedDice
from rules.core.errors import IllegalAction
from rules.core.i18n import translate
from rules.core.play import FollowUp, StatusView, UnitLine
from rules.core.resolution import (
    Comparison,
    Effect,
    EffectKind,
    Modifier,
    Odds,
    OddsEntry,
    Outcome,
    Resolution,
    Step,
    TableRead,
    Threshold,
)
from rules.core.seatview import REFEREE
from rules.manovra import turn as g
from rules.manovra.scenario import load_bundled
from rules.manovra.surface import PLAY

CHANNEL = 987654321098765432


# -- checks ---------------------------------------------------------------------------------------


def check_limits(payloads: list[MessagePayload]) -> None:
    """Every limit Discord enforces on a message and its embeds."""
    assert payloads
    for payload in payloads:
        assert len(payload.embeds) <= EMBEDS_PER_MESSAGE
        assert sum(embed_size(e) for e in payload.embeds) <= MESSAGE_TOTAL_LIMIT
        assert size(payload.content) <= CONTENT_LIMIT
        assert payload.embeds or payload.content
        for embed in payload.embeds:
            assert len(embed) <= embed_size(embed) <= EMBED_TOTAL_LIMIT
            assert size(embed.title or "") <= TITLE_LIMIT
            assert size(embed.description or "") <= DESCRIPTION_LIMIT
            assert len(embed.fields) <= FIELDS_PER_EMBED
            for item in embed.fields:
                assert 1 <= size(item.name or "") <= FIELD_NAME_LIMIT
                assert 1 <= size(item.value or "") <= FIELD_VALUE_LIMIT
            embed.to_dict()  # serializable as discord.py sends it
        if payload.view is not None:
            assert len(payload.view.children) <= 25
            assert all(
                len(item.custom_id) <= CUSTOM_ID_LIMIT  # type: ignore[attr-defined]
                for item in payload.view.children
            )


def everything(payloads: list[MessagePayload]) -> str:
    parts: list[str] = []
    for payload in payloads:
        parts.append(payload.content)
        for embed in payload.embeds:
            parts += [embed.title or "", embed.description or "", embed.footer.text or ""]
            for item in embed.fields:
                parts += [item.name or "", item.value or ""]
    return "\n".join(parts)


# -- builders -------------------------------------------------------------------------------------


def scenario_status() -> StatusView:
    return PLAY.view(PLAY.setup("esempio_normandia"), REFEREE).status


def giant_status(units: int = 300) -> StatusView:
    lines = tuple(
        UnitLine(
            id=f"unit_{index:03d}",
            name=f"Unità numero {index:03d} " + "con un nome lunghissimo " * 4,
            side="alleati" if index % 2 else "asse",
            group=f"Plotone {index // 20} " + "di rinforzo " * 5,
            models=index % 10,
            initial_models=10,
            statuses=("panic", "concealed", f"stato_speciale_{index}"),
            place="piano_boscoso",
            acted=index % 3 == 0,
        )
        for index in range(units)
    )
    notes = tuple(
        Outcome.of("manovra.status.marker", marker=f"if{i}", target="x" * 80, done=0)
        for i in range(120)
    )
    return StatusView(
        title="Una campagna enorme " * 20,
        turn=7,
        phase=Outcome.of("manovra.phase.3"),
        awaiting="asse",
        sides={"alleati": "Alleati", "asse": "Asse"},
        tokens={"alleati": 2, "asse": 0},
        units=lines,
        notes=notes,
    )


def long_resolution(steps: int = 60, tag: str = "") -> Resolution:
    return Resolution(
        ruleset="manovra",
        procedure="close_combat",
        steps=tuple(
            Step(
                key="manovra.step.to_hit",
                rolls=(Roll(Die(12), 1 + index % 12, "to hit"), Roll(Die(6), 3, "enemy")),
                modifiers=(Modifier("manovra.mod.referee", -1), Modifier("manovra.mod.ad", 2)),
                total=index,
                threshold=Threshold(Comparison.AT_LEAST, 7, ""),
                table=TableRead(
                    table="test",
                    title="TABELLA DI PROVA " * 6,
                    row=f"riga {index}",
                    column="esito",
                    cell=f"cella{tag}-{index} " + "molto lunga " * 12,
                ),
                outcome=Outcome.of("manovra.test.passed", test="CC"),
            )
            for index in range(1, steps + 1)
        ),
        outcome=Outcome.of("manovra.test.passed", test="CC"),
        effects=tuple(
            Effect(EffectKind.CASUALTIES, "casualties", target=f"unit_{i}", amount=i)
            for i in range(1, 40)
        ),
        odds=Odds(
            entries=tuple(
                OddsEntry(Outcome.of("manovra.test.passed", test=f"T{i}"), 1, 40) for i in range(40)
            ),
            paths=40,
        ),
    )


def real_fire() -> Resolution:
    """A real heavy fire from the rules: to hit, penetration, effects, with odds."""
    state = g.new_game(load_bundled("esempio_normandia"))
    for command, side, faces in [
        (g.Next(), "alleati", []),
        (g.Next(), "alleati", []),
        (g.Declare(platoon="plotone_carri"), "alleati", []),
        (g.Declare(platoon="panzer"), "asse", [1, 1, 6]),
    ]:
        state = g.apply(state, command, ScriptedDice(faces), actor_side=side).state
    applied = g.apply(
        state,
        g.Fire(unit="panzer_iv", target="sherman_1", distance_cm=80, ammo="AP"),
        ScriptedDice([8, 5, 10], by_hand=True),
        actor_side="asse",
    )
    return applied.resolutions[-1]


# -- the pure pieces ------------------------------------------------------------------------------


def test_clip_and_pack_never_lose_lines_that_fit():
    assert clip("abc", 3) == "abc" and clip("abcd", 3) == "ab…"
    assert size(clip("é" * 2000, 1024)) <= 1024
    assert size(clip("😀" * 600, 1024)) <= 1024  # astral characters count twice (UTF-16)
    lines = [f"line {i} " + "x" * (i * 7 % 300) for i in range(200)]
    chunks = pack_lines(lines, 1024)
    assert all(size(c) <= 1024 for c in chunks)
    assert "\n".join(chunks).split("\n") == lines
    assert pack_lines(["y" * 5000], 1024) == [clip("y" * 5000, 1024)]


def test_the_largest_bundled_scenario_status():
    status = scenario_status()
    payloads = reply_to_messages(StatusReply(language="it", ruleset="manovra", status=status))
    check_limits(payloads)
    text = everything(payloads)
    for unit in status.units:
        assert unit.name in text and f"`{unit.id}`" in text
        assert f"{unit.models}/{unit.initial_models}" in text
    assert "Alleati — 1° plotone fucilieri" in text
    assert translate("manovra.phase.1", "it") in text


@pytest.mark.parametrize(
    ("language", "allies", "axis"), [("en", "Allies", "Axis"), ("fr", "Alliés", "Axe")]
)
def test_a_status_names_the_sides_in_the_games_language(language, allies, axis):
    """An English or French game's status card named its sides in Italian ("Alleati")."""
    payloads = reply_to_messages(
        StatusReply(language=language, ruleset="manovra", status=scenario_status())
    )
    text = everything(payloads)
    assert f"{allies} — " in text and f"{axis} — " in text
    assert "Alleati" not in text and "Asse" not in text


@pytest.mark.parametrize("language", ["it", "en", "fr"])
def test_a_giant_status_is_split_without_losing_a_unit(language):
    status = giant_status()
    payloads = reply_to_messages(StatusReply(language=language, ruleset="manovra", status=status))
    check_limits(payloads)
    assert len(payloads) > 1
    text = everything(payloads)
    for unit in status.units:
        assert unit.name in text and unit.id in text
    for index in range(120):
        assert f"if{index} " in text
    assert translate("discord.embed.continued", language) in text
    assert translate("manovra.values.panic", language) in text


def test_a_resolution_with_many_steps_continues_in_more_embeds():
    resolution = long_resolution()
    payloads = reply_to_messages(
        PlayReply(language="it", ruleset="manovra", resolutions=[resolution])
    )
    check_limits(payloads)
    embeds = [e for p in payloads for e in p.embeds]
    assert len(embeds) > 2
    text = everything(payloads)
    for index in range(1, 61):
        assert f"\n{index}. " in text and f"cella-{index} " in text
    for index in range(1, 40):
        assert f"[unit_{index}]" in text
    # rules.render names the 7 likeliest of the 40 outcomes and sums the rest.
    for index in range(7):
        assert f"T{index} " in text
    assert "T7 " not in text and "altro: 82,5%" in text
    assert embeds[0].title == translate("manovra.procedure.close_combat", "it")


def test_thirty_resolutions_in_one_reply():
    reply = PlayReply(
        language="en",
        ruleset="manovra",
        resolutions=[long_resolution(12, tag=f"r{n}") for n in range(30)],
    )
    payloads = reply_to_messages(reply)
    check_limits(payloads)
    assert len(payloads) >= 3
    text = everything(payloads)
    for n in range(30):
        for index in range(1, 13):
            assert f"cellar{n}-{index} " in text


def test_a_real_fire_shows_dice_cells_odds_and_hand_dice():
    fire = real_fire()
    reply = PlayReply(language="it", ruleset="manovra", resolutions=[fire], by_hand=True, seq=7)
    payloads = reply_to_messages(reply, channel_id=CHANNEL)
    check_limits(payloads)
    [embed] = payloads[0].embeds
    assert embed.title == translate("manovra.procedure.heavy_fire", "it")
    assert [f.name.split(". ")[0] for f in embed.fields[:3]] == ["1", "2", "3"]
    assert "`D10 → 8`" in embed.fields[0].value and "«a scelta»*" in embed.fields[0].value
    assert "«esplode + tutti morti»" in embed.fields[2].value
    assert embed.fields[-1].name == translate("render.odds", "it") and "%" in embed.fields[-1].value
    assert embed.footer.text == translate("render.by_hand", "it")
    view = payloads[-1].view
    assert view is not None
    assert [item.custom_id for item in view.children] == [  # type: ignore[attr-defined]
        f"arbitro:dice.confirm:{CHANNEL}:seq=7",
        f"arbitro:dice.dispute:{CHANNEL}:seq=7",
    ]


def test_odds_only_shows_no_dice_and_no_buttons():
    reply = PlayReply(
        language="en",
        ruleset="manovra",
        resolutions=[real_fire()],
        odds_only=True,
        follow_ups=[
            FollowUp(
                "test",
                {"unit": "u", "kind": "CT"},
                Outcome.of("manovra.follow.test", test="CT", unit="U"),
                "asse",
            )
        ],
    )
    payloads = reply_to_messages(reply, channel_id=CHANNEL)
    check_limits(payloads)
    text = everything(payloads)
    assert "%" in text and "`D" not in text and payloads[0].view is None
    assert translate("discord.embed.odds_only", "en") in text


def test_pings_mention_only_the_players_pinged():
    reply = Reply(
        language="it",
        ruleset="manovra",
        ping=[11, 22, 11],
        notices=[Outcome.of("bot.deadline.passed", side="Asse")],
    )
    [payload] = reply_to_messages(reply)
    assert payload.content == "<@11> <@22>"
    mentions = payload.allowed_mentions.to_dict()
    assert sorted(int(u) for u in mentions["users"]) == [11, 22]
    assert mentions["parse"] == [] and mentions.get("roles", []) == []
    assert not mentions.get("replied_user")
    quiet = reply_to_messages(Reply(language="it", ruleset="manovra"))[0]
    assert quiet.content == "" and quiet.allowed_mentions.to_dict()["parse"] == []


def test_hundreds_of_pings_are_split_not_cut():
    users = list(range(10**17, 10**17 + 300))
    payloads = reply_to_messages(Reply(language="it", ruleset="manovra", ping=users))
    check_limits(payloads)
    assert len(payloads) > 1
    assert all(f"<@{user}>" in everything(payloads) for user in users)


def test_follow_ups_become_buttons_and_overflow_is_listed():
    long_unit = "u" * 120  # its custom id would pass 100 characters
    follow_ups = [
        FollowUp(
            "test",
            {"unit": f"unit_{i}", "kind": "CT"},
            Outcome.of("manovra.follow.test", test="CT", unit=f"Unit {i}"),
            "asse",
        )
        for i in range(30)
    ]
    follow_ups.insert(
        0,
        FollowUp(
            "test",
            {"unit": long_unit, "kind": "SF"},
            Outcome.of("manovra.follow.test", test="SF", unit="Lunga"),
            "asse",
        ),
    )
    reply = PlayReply(language="it", ruleset="manovra", follow_ups=follow_ups, by_hand=True, seq=3)
    payloads = reply_to_messages(reply, channel_id=CHANNEL)
    check_limits(payloads)
    view = payloads[-1].view
    assert view is not None and len(view.children) == 25
    text = everything(payloads)
    assert translate("discord.embed.to_do", "it") in text
    assert "Test SF di Lunga" in text  # the one whose id is too long
    for i in range(23, 30):
        assert f"Test CT di Unit {i}" in text  # beyond 25 buttons


def test_files_go_with_the_first_message_and_are_fresh_each_time():
    reply = FilesReply(
        language="it",
        ruleset="manovra",
        files={"arbitro-log.json": b"{}", "arbitro-report.md": b"# r"},
    )
    [payload] = reply_to_messages(reply)
    first = payload.discord_files()
    second = payload.discord_files()
    assert [f.filename for f in first] == ["arbitro-log.json", "arbitro-report.md"]
    assert first[0].fp is not second[0].fp


# -- buttons survive restarts: ids carry everything --------------------------------------------


async def test_custom_ids_round_trip_through_a_new_button():
    options = {"unit": "a:b&c=d é", "kind": "CT"}
    identifier = custom_id("test", CHANNEL, options)
    assert identifier.count(":") == 3 and len(identifier) <= CUSTOM_ID_LIMIT
    assert decode_options(encode_options(options)) == options
    match = ActionButton.__discord_ui_compiled_template__.fullmatch(identifier)
    assert match is not None
    item = discord.ui.Button(label="Test CT", custom_id=identifier)
    rebuilt = await ActionButton.from_custom_id(None, item, match)  # type: ignore[arg-type]
    assert (rebuilt.verb, rebuilt.channel_id, rebuilt.options) == ("test", CHANNEL, options)
    assert rebuilt.item.custom_id == identifier and rebuilt.item.label == "Test CT"


# -- errors ---------------------------------------------------------------------------------------


def test_error_texts_and_languages():
    from discord import app_commands

    error = IllegalAction("error.service.referee_only")
    assert user_message(error, "en") == (error.localized("en"), True)
    wrapped = app_commands.CommandInvokeError.__new__(app_commands.CommandInvokeError)
    wrapped.original = error
    assert user_message(wrapped, "fr") == (error.localized("fr"), True)
    assert user_message(app_commands.CheckFailure(), "it") == (
        translate("discord.error.check", "it"),
        True,
    )
    text, expected = user_message(RuntimeError("boom"), "en")
    assert text == translate("discord.error.unexpected", "en") and not expected

    def fake(locale: discord.Locale, channel: int, known: dict[int, str]) -> Any:
        return SimpleNamespace(
            client=SimpleNamespace(languages=known), channel_id=channel, locale=locale
        )

    assert interaction_language(fake(discord.Locale.french, 1, {})) == "fr"
    assert interaction_language(fake(discord.Locale.british_english, 1, {})) == "en"
    assert interaction_language(fake(discord.Locale.german, 1, {})) == "it"
    assert interaction_language(fake(discord.Locale.french, 1, {1: "en"})) == "en"
    # A locale without a catalogue reads the bot's own language (ARBITRO_LANGUAGE).
    french_bot = SimpleNamespace(
        client=SimpleNamespace(languages={}, service=SimpleNamespace(default_language="fr")),
        channel_id=1,
        locale=discord.Locale.german,
    )
    assert interaction_language(french_bot) == "fr"
