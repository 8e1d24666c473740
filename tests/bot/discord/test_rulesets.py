"""The commands that differ between rulesets, through the real bot under SimCord.

One slash command serves every ruleset: these tests play the options and buttons that
pzgren, w40k4 and linea_gotica add to manovra's (hexes and opportunity fire, a step loss
or morale owed; terrain and cover on a move; the initiative winner's choice).
"""

from __future__ import annotations

from rules.core.ruleset import get_ruleset
from tests.bot.discord.test_simcord import (  # noqa: F401  (fixtures are used by name)
    Table,
    assert_private_error,
    assert_public,
    button,
    discord_dice,
    discord_service,
    discord_store,
    simcord_bot,
    table,
    texts,
)


async def _start(table: Table, ruleset: str, scenario: str, sides: tuple[str, str]) -> None:
    result = await table.referee.slash(
        table.channel, "game new", ruleset=ruleset, scenario=scenario, language="en"
    )
    assert_public(result)
    assert_public(await table.anna.slash(table.channel, "game join", side=sides[0]))
    assert_public(await table.bruno.slash(table.channel, "game join", side=sides[1]))


async def test_pzgren_hexes_opportunity_fire_and_the_owed_morale_button(table: Table) -> None:
    await _start(table, "pzgren", "exemple_ardennes", ("us", "Allemands"))
    channel, anna, bruno = table.channel, table.anna, table.bruno
    moved = assert_public(await anna.slash(channel, "move", unit="us_rifle_1", hex="4,3"))
    assert moved.message.content == bruno.mention
    # A manovra option that pzgren does not know is refused privately, with its name.
    refused = assert_private_error(
        await anna.slash(channel, "move", unit="us_rifle_2", hex="4,4", distance=4.0)
    )
    assert "distance" in refused
    fired = assert_public(
        await bruno.slash(
            channel, "fire", unit="de_pzgren_1", hex="4,3", opportunity=True, dice="1 1"
        )
    )
    shown = texts(fired)
    assert "`D6 → 1`" in shown and "X" in shown
    owed = button(fired, "morale", unit="us_rifle_1")
    # The morale owed by the Americans is theirs to roll, not the Germans'.
    assert_private_error(await bruno.click(fired, custom_id=owed["custom_id"]))
    table.dice.push(3, 3)
    clicked = await anna.click(fired, custom_id=owed["custom_id"])
    assert clicked.followups and not clicked.followups[0].ephemeral


async def test_w40k4_move_with_terrain_and_cover_then_odds(table: Table) -> None:
    await _start(table, "w40k4", "avamposto", ("legione", "Predoni"))
    channel, anna = table.channel, table.anna
    table.dice.push(3, 5)
    moved = assert_public(
        await anna.slash(
            channel,
            "move",
            unit="squadra_tattica",
            distance=6.0,
            terrain="difficult",
            cover="rovine",
        )
    )
    assert "5" in texts(moved)
    assert_public(await anna.slash(channel, "turn next"))
    result = await anna.slash(
        channel,
        "odds",
        unit="squadra_tattica",
        target="motopredoni",
        distance=10.0,
        weapon="pistola",
    )
    assert result.ephemeral and result.response is not None
    assert "%" in texts(result.response)


async def test_linea_gotica_initiative_choice_buttons(table: Table) -> None:
    await _start(table, "linea_gotica", "esempio_gotica", ("alleati", "Tedeschi"))
    channel, anna, bruno = table.channel, table.anna, table.bruno
    table.dice.push(8, 3)
    rolled = assert_public(await anna.slash(channel, "turn next"))
    first = button(rolled, "turn.next", order="first")
    button(rolled, "turn.next", order="second")
    assert_private_error(await bruno.click(rolled, custom_id=first["custom_id"]))
    chosen = await anna.click(rolled, custom_id=first["custom_id"])
    assert chosen.followups and not chosen.followups[0].ephemeral
    # The same choice through the slash option is now out of turn for the Germans.
    assert_private_error(await bruno.slash(channel, "turn next", order="second"))


async def test_each_channel_offers_its_rulesets_own_options_in_extra(table: Table) -> None:
    """/fire carries a few shared options; a ruleset's own come in ``extra``, autocompleted
    for the channel's ruleset; a token it does not take is refused by name."""
    await _start(table, "w40k4", "avamposto", ("legione", "Predoni"))
    channel, anna = table.channel, table.anna
    offered = [c["value"] for c in await anna.autocomplete(channel, "fire", "extra", "")]
    assert any(v.startswith("cover:") for v in offered)
    assert not any(v.startswith(("ammo:", "hex:", "impact:")) for v in offered)  # manovra's
    chained = await anna.autocomplete(channel, "fire", "extra", "cover:x fac")
    assert all(c["value"].startswith("cover:x facing:") for c in chained) and chained
    refused = assert_private_error(
        await anna._actor.slash(channel, "fire", unit="squadra_tattica", extra="ammo:AP")
    )
    assert "ammo" in refused  # named as typed, with what this ruleset takes instead
    lacking = assert_private_error(await anna.slash(channel, "manoeuvre declare", platoon="x"))
    assert "/fire" in lacking and "manoeuvre" in lacking


PNG = b"\x89PNG\r\n\x1a\n"


async def _picture(message) -> bytes:
    """The map attached to a message, shown in its last embed."""
    files = {a.filename: await a.read() for a in message.attachments}
    assert list(files) == ["map.png"], list(files)
    assert message.embeds[-1].image.url.endswith("map.png"), message.embeds[-1].image
    assert files["map.png"].startswith(PNG)
    return files["map.png"]


async def test_pzgren_map_and_fire_replies_carry_the_picture(table: Table) -> None:
    await _start(table, "pzgren", "exemple_ardennes", ("us", "Allemands"))
    channel, anna, stranger = table.channel, table.anna, table.stranger
    public = await _picture(assert_public(await stranger.slash(channel, "map")))
    # The asker's own view: to the asker only.
    mine = await anna.slash(channel, "map", mine=True)
    assert mine.ephemeral and mine.response is not None
    assert await _picture(mine.response) == public  # pzgren hides nothing
    table.dice.push(4, 4)
    fired = assert_public(
        await anna.slash(channel, "fire", unit="us_rifle_2", target="de_pzgren_1")
    )
    assert await _picture(fired) != public  # the line of fire
    assert "D6" in texts(fired)
    status = assert_public(await anna.slash(channel, "game status"))
    await _picture(status)


async def test_a_game_without_a_battlefield_posts_no_attachment(table: Table, monkeypatch) -> None:
    play = get_ruleset("manovra").rules  # the DocumentRules its views draw with
    # Whatever manovra's bundled scenario draws one day: a game with no battlefield.
    monkeypatch.setattr(
        type(play), "map_view", lambda self, document, viewer, *, public, language="it": None
    )
    await _start(table, "manovra", "esempio_normandia", ("alleati", "asse"))
    status = assert_public(await table.anna.slash(table.channel, "game status"))
    assert not status.attachments and all(not e.image for e in status.embeds)
    shown = assert_public(await table.anna.slash(table.channel, "map"))
    assert not shown.attachments and "battlefield" in texts(shown)
