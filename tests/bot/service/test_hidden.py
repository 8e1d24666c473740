"""Issue 26 item 1 through the application service: what a side may not see — where its
enemy's concealed (manovra) or hidden (linea_gotica) unit went — is absent from the public
reply, the picture's caption, every ``/game log`` line and the export made for the enemy or
a spectator; the unit's side reads it privately and the referee's export keeps everything."""

from __future__ import annotations

import json

import pytest

from bot.console.render_text import reply_text
from bot.service import GameService, PlayReply
from bot.service.events import SECRET_ARG
from bot.service.export import read_file
from db.chain.hashing import verify_export, verify_links
from db.drivers.sqlite import SqliteStore
from tests.bot.conftest import QueuedDice
from tests.bot.service_table import ServiceTable

CHANNEL = 2601
REFEREE, ANNA, BRUNO, CARLA = 1, 2, 3, 4
#: What would say where squadra_2 went (its destination, typed or measured).
PLACE_WORDS = ("61,27", "61, 27", "(61", "concealed", "occultat", "2.2 cm", "2,2 cm")


@pytest.fixture()
async def store(tmp_path):
    opened = await SqliteStore.open(str(tmp_path / "arbitro.db"))
    yield opened
    await opened.close()


@pytest.fixture()
def table(store) -> ServiceTable:
    dice = QueuedDice()
    return ServiceTable(GameService(store, dice=dice), dice, CHANNEL)


def names_place(text: str) -> bool:
    return any(word in text for word in PLACE_WORDS)


def seen(reply, language: str = "en") -> str:
    return reply_text(reply, str)


async def concealed_move(table: ServiceTable, to: str = "61,27") -> PlayReply:
    """esempio_normandia_campo, ANNA at the Allies, BRUNO at the Axis: the Allies' 2ª
    squadra moves first in the order of manoeuvre, concealed, ``to`` there."""
    await table(REFEREE, "game.new", scenario="esempio_normandia_campo", language="en")
    await table(ANNA, "game.join", side="alleati")
    await table(BRUNO, "game.join", side="asse")
    await table(ANNA, "turn.next")
    await table(ANNA, "turn.next")
    await table(ANNA, "manoeuvre.declare", platoon="plotone_fucilieri")
    # The squad rolls the best initiative: it moves first.
    await table(BRUNO, "manoeuvre.declare", (1, 6, 1, 1), platoon="panzer")
    reply = await table(ANNA, "move", unit="squadra_2", kind="cauto", to=to, conceal=True)
    assert isinstance(reply, PlayReply)
    return reply


async def export_of(table: ServiceTable, user: int) -> tuple[str, dict, str]:
    reply = await table(user, "game.export")
    files = {name: read_file(content) for name, content in reply.files.items()}
    bundle = json.loads(files["arbitro-log.json"])
    report = files["arbitro-report.md"].decode()
    notices = " ".join(n.key for n in reply.notices)
    return report, bundle, notices


async def test_a_concealed_move_is_told_to_its_side_alone(table, store) -> None:
    reply = await concealed_move(table)
    # The asker reads the whole move, privately …
    assert reply.private and names_place(seen(reply))
    # … and the channel reads that a hidden unit moved, nothing of where.
    public = reply.public
    assert public is not None and not public.private
    assert "2ª squadra" not in seen(public) and not names_place(seen(public))
    assert [n.key for n in public.notices] == ["bot.log.hidden_played"]
    assert public.map_view is not None
    assert not names_place(public.map_view.caption or "")
    assert "squadra_2" not in {c.unit_id for c in public.map_view.counters}
    event = (await store.events(CHANNEL, after_seq=0, limit=100))[-1]
    assert event.args[SECRET_ARG] == "alleati"


async def test_the_log_and_the_enemy_export_say_nothing_of_it(table, store) -> None:
    await concealed_move(table)
    await table(CARLA, "game.join", side="asse")  # the enemy's second player
    log = await table(BRUNO, "game.log", count=50)
    lines = "\n".join(log.lines)
    assert "/move" in lines and not names_place(lines) and "squadra_2" not in lines
    for user in (BRUNO, 99):  # the enemy, a spectator
        report, bundle, notices = await export_of(table, user)
        text = json.dumps(bundle, ensure_ascii=False)
        assert not names_place(report) and not names_place(text), user
        assert "squadra_2" not in report and '"to"' not in text
        assert bundle["states"] == [] and bundle["redacted_for"]
        assert "bot.game.export_redacted" in notices
    # The unit's own side reads its move; the referee's export keeps everything.
    report, bundle, _ = await export_of(table, ANNA)
    assert "61,27" in report and "to:61,27" in report
    # No state even so: whether the enemy has a concealed unit is not the side's to know.
    assert bundle["states"] == [] and verify_links(bundle) == bundle["head_hash"]
    report, bundle, notices = await export_of(table, REFEREE)
    assert "to:61,27" in report and "concealed" in json.dumps(bundle)
    assert len(bundle["states"]) == 2 and "redacted_for" not in bundle
    assert "bot.game.export_redacted" not in notices


async def test_a_game_whose_units_are_all_in_sight_still_exports_no_state_to_a_side(
    table,
) -> None:
    """Nothing is hidden yet, but manovra's units can be concealed: a side's export keeps no
    state, as when one is (keeping them would say nothing is hidden), nor the salt its
    states are hashed with; the states' hashes, kept, then test no guess."""
    await table(REFEREE, "game.new", scenario="esempio_normandia_campo", language="en")
    await table(ANNA, "game.join", side="alleati")
    await table(ANNA, "turn.next")
    _, bundle, notices = await export_of(table, ANNA)
    assert "bot.game.export_redacted" in notices
    assert bundle["states"] == [] and bundle["redacted_for"] == "Allies"  # the game's language
    assert all("state_hash" in event for event in bundle["events"])
    assert "state_salt" not in bundle["game"]
    assert verify_links(bundle) == bundle["head_hash"]
    _, whole, _ = await export_of(table, REFEREE)
    assert len(whole["states"]) == 2 and verify_export(whole) == bundle["head_hash"]


async def test_a_game_of_a_ruleset_that_hides_nothing_exports_its_states_to_everyone(
    table,
) -> None:
    """Every seat gets the states, nothing withheld; the salt they are hashed with only the
    referee during play (docs/integrity.md, "A seat's export"), and everyone at the end."""
    await table(REFEREE, "game.new", ruleset="w40k4", scenario="avamposto", language="en")
    await table(ANNA, "game.join", side=(await table(ANNA, "game.status")).status.units[0].side)
    _, whole, _ = await export_of(table, REFEREE)
    assert verify_export(whole) == whole["head_hash"] and whole["game"]["state_salt"]
    for user in (ANNA, 99):
        _, bundle, notices = await export_of(table, user)
        assert len(bundle["states"]) == 2 and bundle["states"] == whole["states"]
        assert "bot.game.export_redacted" not in notices
        assert "state_salt" not in bundle["game"] and bundle["redacted_for"]
        assert bundle["events"] == whole["events"]
        assert verify_links(bundle) == bundle["head_hash"]
    await table(REFEREE, "game.end")
    for user in (ANNA, 99):
        _, bundle, _ = await export_of(table, user)
        assert "redacted_for" not in bundle and bundle["game"]["state_salt"]
        assert verify_export(bundle) == bundle["head_hash"]


async def test_a_hidden_unit_typed_by_its_name_in_any_language_is_a_name_nobody_has(table):
    """The console answered the Allies' "/odds unit:1st Rifle Squad target:Sniper" with
    "Sniper has not been spotted": a hidden unit's name typed in any language must get the
    refusal of a name that does not exist, word for word."""
    await table(REFEREE, "game.new", ruleset="linea_gotica", scenario="gotica_retroguardia")
    await table(ANNA, "game.join", side="alleati")
    await table(BRUNO, "game.join", side="tedeschi")
    nobody = await table.refused(
        ANNA, "odds", "error.linea_gotica.unknown_unit", unit="squadra_1", target="Nessuno"
    )
    for name in ("cecchino", "Cecchino", "Sniper", "sniper", "Tireur d'élite"):
        refusal = await table.refused(
            ANNA, "odds", "error.linea_gotica.unknown_unit", unit="squadra_1", target=name
        )
        for language in ("it", "en", "fr"):
            assert refusal.localized(language) == nobody.localized(language).replace(
                "Nessuno", name
            )
