"""The commands that differ between rulesets, through the real bot under SimCord.

One slash command serves every ruleset: these tests play the options and buttons that
pzgren, w40k4 and linea_gotica add to manovra's (hexes and opportunity fire, a step loss
or morale owed; terrain and cover on a move; the initiative winner's choice).
"""

from __future__ import annotations

from tests.bot.test_discord_simcord import (  # noqa: F401  (fixtures are used by name)
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
