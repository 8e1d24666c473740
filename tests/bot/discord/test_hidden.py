"""Issue 26 item 1 through the real bot under SimCord: a hidden unit's move (linea_gotica)
and a concealed one's (manovra) are told to their side alone. No message the enemy sees in
the channel, no page of its ``/game log`` and nothing in its ``/game export`` names where
the unit is, nor the unit; its owner reads the whole move in a message only they see."""

from __future__ import annotations

import json

from tests.bot.discord.test_simcord import (  # noqa: F401  (fixtures are used by name)
    Table,
    assert_public,
    discord_dice,
    discord_service,
    discord_store,
    simcord_bot,
    table,
    texts,
)

#: Where the sniper goes (its measured destination) and what names it.
#: The sniper's place and its name in every language: none may reach the Allies.
SNIPER_WORDS = (
    "150,100",
    "150, 100",
    "Cecchino",
    "cecchino",
    "Sniper",
    "Tireur",
    "Campanile",
    "campanile",
)
#: Where the concealed squad goes and what says it is concealed (its name is no secret: its
#: platoon's initiative named it before it moved).
SQUAD_WORDS = ("61,27", "61, 27", "concealed", "2.2 cm")


def leaks(text: str, words: tuple[str, ...]) -> list[str]:
    return [word for word in words if word in text]


async def enemy_sees(table: Table, enemy, words: tuple[str, ...]) -> None:
    """Everything the enemy sees: the channel as its client shows it, its log, its export."""
    channel = table.channel
    log = assert_public(await enemy.slash(channel, "game log", count=50))
    assert "/move" in texts(log)
    exported = assert_public(await enemy.slash(channel, "game export"))
    files = {a.filename: await a.read() for a in exported.attachments}
    bundle = json.loads(files["arbitro-log.json"])
    assert bundle["states"] == [] and bundle["redacted_for"]
    for name, data in files.items():
        assert not leaks(data.decode(), words), name
    for message in channel.history(viewer=enemy):
        assert not leaks(texts(message), words), texts(message)


async def test_a_hidden_sniper_moves_unseen_by_the_allies(table: Table) -> None:
    channel, anna, bruno = table.channel, table.anna, table.bruno
    assert_public(
        await table.referee.slash(
            channel,
            "game new",
            ruleset="linea_gotica",
            scenario="esempio_gotica_campo",
            language="en",
        )
    )
    assert_public(await anna.slash(channel, "game join", side="alleati"))
    assert_public(await bruno.slash(channel, "game join", side="Tedeschi"))
    table.dice.push(8, 3)  # initiative: the Allies, who move first
    assert_public(await anna.slash(channel, "turn next"))
    assert_public(await anna.slash(channel, "turn next", order="first"))
    for player in (anna, bruno, anna):  # no covering fire; the Allies do not move
        assert_public(await player.slash(channel, "turn next"))
    moved = await bruno.slash(
        channel, "move", unit="cecchino", to="S 5", kind="cauto", hidden="true"
    )
    public = assert_public(moved)
    assert "Germans" in texts(public) and not leaks(texts(public), SNIPER_WORDS)
    (private,) = moved.followups
    assert private.ephemeral and "Unit Sniper moves to 150,100" in texts(private)
    await enemy_sees(table, anna, SNIPER_WORDS)
    # The Germans' own view has it all.
    mine = "\n".join(texts(m) for m in channel.history(viewer=bruno))
    assert "150,100" in mine


async def test_a_concealed_squad_moves_unseen_by_the_axis(table: Table) -> None:
    channel, anna, bruno = table.channel, table.anna, table.bruno
    assert_public(
        await table.referee.slash(
            channel,
            "game new",
            ruleset="manovra",
            scenario="esempio_normandia_campo",
            language="en",
        )
    )
    assert_public(await anna.slash(channel, "game join", side="alleati"))
    assert_public(await bruno.slash(channel, "game join", side="asse"))
    assert_public(await anna.slash(channel, "turn next"))
    assert_public(await anna.slash(channel, "turn next"))
    assert_public(await anna.slash(channel, "manoeuvre declare", platoon="plotone_fucilieri"))
    table.dice.push(1, 6, 1, 1)  # the squad's initiative first
    assert_public(await bruno.slash(channel, "manoeuvre declare", platoon="panzer"))
    moved = await anna.slash(
        channel, "move", unit="squadra_2", kind="cauto", to="61,27", conceal="true"
    )
    public = assert_public(moved)
    assert not leaks(texts(public), (*SQUAD_WORDS, "2ª squadra", "squadra_2"))
    (private,) = moved.followups
    assert private.ephemeral and "(61, 27)" in texts(private)
    await enemy_sees(table, bruno, SQUAD_WORDS)
