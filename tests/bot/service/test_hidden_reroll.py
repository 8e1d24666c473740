"""Issue 26 item 1, history: the referee's ``/dice reroll`` of a disputed roll that runs a
hidden unit's command again (here a concealed manovra move, after the disputed initiative)
is read as that command was: the whole reply goes to the referee alone, the channel reads
that a hidden unit's command was rolled again, and the log and the enemy's export withhold
it. Undo, take-back and rewind name only event numbers."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from bot.console.render_text import reply_text
from bot.service import GameService, PlayReply
from bot.service.events import (
    REFEREE_ONLY,
    SECRET_ARG,
    event_line,
    may_read,
    secret_among,
)
from rules.core.seatview import REFEREE as REFEREE_SEAT
from rules.core.seatview import SPECTATOR, Seat
from tests.bot.service.test_hidden import (
    ANNA,
    BRUNO,
    CHANNEL,
    PLACE_WORDS,
    REFEREE,
    export_of,
)
from tests.bot.service_table import ServiceTable

#: What would say where the hidden unit went (its name is public: the order of manoeuvre
#: lists every unit).
SECRET_WORDS = (*PLACE_WORDS, "to:")


@pytest.fixture()
def table(store, dice) -> ServiceTable:
    return ServiceTable(GameService(store, dice=dice), dice, CHANNEL)


def tells_secret(text: str) -> bool:
    return any(word in text for word in SECRET_WORDS)


async def disputed_initiative_then_concealed_move(table) -> int:
    """Bruno types the Panzer's initiative die by hand (the squads' are the bot's), Anna
    disputes it, then her 2ª squadra moves concealed: the seq of the disputed roll."""
    await table(REFEREE, "game.new", scenario="esempio_normandia_campo", language="en")
    await table(ANNA, "game.join", side="alleati")
    await table(BRUNO, "game.join", side="asse")
    await table(ANNA, "turn.next")
    await table(ANNA, "turn.next")
    await table(ANNA, "manoeuvre.declare", platoon="plotone_fucilieri")
    disputed = await table(BRUNO, "manoeuvre.declare", (1, 6, 1), dice="1", platoon="panzer")
    assert disputed.seq is not None
    await table(ANNA, "dice.dispute", seq=disputed.seq)
    moved = await table(ANNA, "move", unit="squadra_2", kind="cauto", to="61,27", conceal=True)
    assert moved.public is not None  # the move itself was told to its side alone
    return disputed.seq


async def test_a_reroll_that_replays_a_concealed_move_is_told_to_the_referee_alone(
    table, store
) -> None:
    seq = await disputed_initiative_then_concealed_move(table)
    # The same order: the concealed move is replayed after the fresh initiative.
    reply = await table(REFEREE, "dice.reroll", (1, 6, 1, 1), seq=seq)
    assert isinstance(reply, PlayReply)
    assert reply.private and reply.resolutions
    keys = [n.key for n in reply.notices]
    assert "bot.dice.rerolled" in keys and "bot.dice.rerolled_private" in keys
    public = reply.public
    assert isinstance(public, PlayReply) and not public.private
    assert [n.key for n in public.notices] == ["bot.dice.rerolled_hidden"]
    assert public.resolutions == [] and public.status is not None
    assert not tells_secret(reply_text(public, str))
    event = (await store.events(CHANNEL, after_seq=reply.seq - 1, limit=1))[0]
    assert event.verb == "dice.reroll" and event.args[SECRET_ARG] == "alleati"
    # The enemy's log and export say only that the referee rolled again.
    lines = (await table(BRUNO, "game.log", count=50)).lines
    rerolled_line = next(line for line in lines if line.startswith(f"#{reply.seq} "))
    assert "/reroll" in rerolled_line and "Order of manoeuvre" not in rerolled_line
    assert not tells_secret("\n".join(lines))
    report, bundle, _ = await export_of(table, BRUNO)
    rerolled = next(e for e in bundle["events"] if e["verb"] == "dice.reroll")
    assert rerolled.get("redacted") and rerolled["dice"] == [] and rerolled["resolution"] == []
    assert not tells_secret(report) and not tells_secret(json.dumps(bundle, ensure_ascii=False))
    # The hidden unit's side reads it in its export; the referee's keeps it whole.
    _, bundle, _ = await export_of(table, ANNA)
    rerolled = next(e for e in bundle["events"] if e["verb"] == "dice.reroll")
    assert not rerolled.get("redacted") and rerolled["dice"]
    _, bundle, _ = await export_of(table, REFEREE)
    assert "redacted_for" not in bundle


async def test_a_replay_stopped_at_a_concealed_move_does_not_name_it_publicly(table, store) -> None:
    seq = await disputed_initiative_then_concealed_move(table)
    # The Panzer now moves first: the concealed move no longer applies, and the reason
    # (it is not the 2nd Squad's turn) names the hidden unit.
    reply = await table(REFEREE, "dice.reroll", (6, 1, 1, 6), seq=seq)
    assert isinstance(reply, PlayReply) and reply.private
    assert "bot.dice.reroll_stopped" in [n.key for n in reply.notices]
    why = "not 2nd Squad's"  # the hidden unit tried to act (named in the game's English)
    assert why in reply_text(reply, str)  # the referee reads why
    assert reply.public is not None
    public = reply_text(reply.public, str)
    assert "#9" not in public and not tells_secret(public)
    for name in ("2ª squadra", "2nd Squad", "2e escouade"):  # in no language
        assert f"not {name}'s" not in public
    event = (await store.events(CHANNEL, after_seq=reply.seq - 1, limit=1))[0]
    assert event.args[SECRET_ARG] == "alleati"


async def test_a_reroll_that_runs_no_hidden_command_stays_public(table, store) -> None:
    await table(REFEREE, "game.new", scenario="esempio_normandia_campo", language="en")
    await table(ANNA, "game.join", side="alleati")
    await table(BRUNO, "game.join", side="asse")
    await table(ANNA, "turn.next")
    await table(ANNA, "turn.next")
    await table(ANNA, "manoeuvre.declare", platoon="plotone_fucilieri")
    disputed = await table(BRUNO, "manoeuvre.declare", (1, 6, 1), dice="1", platoon="panzer")
    await table(ANNA, "dice.dispute", seq=disputed.seq)
    reply = await table(REFEREE, "dice.reroll", (1, 6, 1, 1), seq=disputed.seq)
    assert not reply.private and reply.public is None
    event = (await store.events(CHANNEL, after_seq=reply.seq - 1, limit=1))[0]
    assert SECRET_ARG not in event.args


async def test_undo_and_take_back_of_a_concealed_move_name_only_its_number(table) -> None:
    await disputed_initiative_then_concealed_move(table)
    taken = await table(ANNA, "takeback")
    assert not taken.private and not tells_secret(reply_text(taken, str))
    await table(ANNA, "move", unit="squadra_2", kind="cauto", to="61,27", conceal=True)
    undone = await table(REFEREE, "game.undo")
    assert not undone.private and not tells_secret(reply_text(undone, str))
    moved = await table(ANNA, "move", unit="squadra_2", kind="cauto", to="61,27", conceal=True)
    rewound = await table(REFEREE, "game.rewind", seq=moved.seq - 1)  # undoes the move
    assert not tells_secret(reply_text(rewound, str))
    lines = "\n".join((await table(BRUNO, "game.log", count=50)).lines)
    assert not tells_secret(lines)


def _event(args: dict) -> SimpleNamespace:
    """What :func:`event_line` reads of a stored event."""
    return SimpleNamespace(
        seq=9, verb="dice.reroll", args=args, resolution=[], actor_id=1, undoes_seq=None
    )


def test_both_sides_secrets_are_the_referees_alone() -> None:
    assert secret_among([]) is None and secret_among([None]) is None
    assert secret_among(["alleati", None, "alleati"]) == "alleati"
    assert secret_among(["alleati", "asse"]) == REFEREE_ONLY
    args = {"seq": 7, SECRET_ARG: REFEREE_ONLY}
    for reader in (SPECTATOR, Seat("alleati"), Seat("asse")):
        assert not may_read(reader, args)
    assert may_read(REFEREE_SEAT, args)
    sides = {"alleati": "Alleati", "asse": "Asse"}
    line = event_line(_event(args), "manovra", "en", sides, Seat("asse"))
    assert "both sides" in line and "#7" not in line
    assert "#7" in event_line(_event(args), "manovra", "en", sides, REFEREE_SEAT)
