"""The console table driven by a piped script, as a player would pipe one."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from bot.console.table import Console, ParseError, parse_line, user_id_of

SCRIPT = """\
# hot seat
/game new scenario:esempio_normandia language:en
/as anna
/game join side:alleati
/as bruno
/game join side:asse
/turn next
/as anna
/turn next
/callarty unit:comando_plotone battery:batteria_105 target:"north wood" distance:20 link:stesso_plotone_radio dice:6,3
/fire unit:squadra_1 target:gruppe_1 distance:12
/turn next
/manoeuvre declare platoon:plotone_fucilieri
/as bruno
/manoeuvre pass
/turn
/game log count:3
/quit
/turn next
"""


def run_cli(
    tmp_path: Path, script: str, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot.app.main", "console", "--db", str(tmp_path / "t.db"), *args],
        input=script,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={
            "PATH": "/usr/bin:/bin",
            "PYTHONPATH": str(Path(__file__).resolve().parents[3]),
            **(env or {}),
        },
    )


def test_a_piped_script_plays_and_exits_at_quit(tmp_path):
    result = run_cli(tmp_path, SCRIPT)
    out = result.stdout
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in out + result.stderr
    assert "» Game created: Normandy, June 1944 (example) (Allies, Axis)." in out
    assert "[bruno] /turn next\n! It is not your move." in out
    assert "» Turn 1, step 2" in out
    assert "== Test ==" in out and "IFR test: D6=6 +2 AD +2 CV = 10 >= 3 (D12)" in out
    assert "(dice entered by hand)" in out
    assert (
        "[anna] /fire unit:squadra_1 target:gruppe_1 distance:12\n! That action belongs to step 3"
        in out
    )
    assert "» Declared for Allies: 1st Rifle Platoon" in out
    assert "Your move: @bruno" in out
    assert "» A manoeuvre token handed over by Axis (0 left)" in out
    assert "Turn 1 — 3 · manoeuvre phases — to move: Allies" in out
    assert "• marker if1-1 on north wood" in out
    # /quit stops the script: the last line is never run.
    assert out.rstrip().endswith("[bruno] /quit")


def test_strict_mode_fails_on_errors_and_data_survives(tmp_path):
    assert run_cli(tmp_path, "/game new ruleset:manovra\n/turn next\n", "--strict").returncode == 0
    again = run_cli(tmp_path, "/game status\n/turn nxt\n", "--strict")
    assert again.returncode == 1
    assert "Turn 1 — 2" in again.stdout or "Turno 1 — 2" in again.stdout


def test_a_later_session_names_the_seats_their_holders_took(tmp_path):
    """The seats keep their holders' display names: a new session (which never saw them
    type /as) shows the referee and the players by name, not by mention id."""
    first = "/game new scenario:esempio_normandia language:en\n/as anna\n/game join side:alleati\n"
    assert run_cli(tmp_path, first, "--strict").returncode == 0
    later = run_cli(tmp_path, "/as carla\n/game status\n", "--strict")
    assert later.returncode == 0, later.stdout
    assert "Referee: @arbitro" in later.stdout
    assert "Allies: @anna" in later.stdout
    assert f"@{user_id_of('anna')}" not in later.stdout


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("/game new scenario:x", ("game.new", {"scenario": "x"}, None, None)),
        ("/turn", ("turn.status", {}, None, None)),
        ("/manoeuvre pass", ("manoeuvre.pass", {}, None, None)),
        (
            '/callarty unit:u battery:b target:"a b" dice:1,2',
            ("callarty", {"unit": "u", "battery": "b", "target": "a b"}, "1,2", None),
        ),
        ("/game new file:s.yaml", ("game.new", {}, None, "s.yaml")),
    ],
)
def test_parse_line(line, expected):
    assert parse_line(line) == expected


@pytest.mark.parametrize("line", ["fire", "/nope", "/fire unit", '/fire target:"open', "/"])
def test_parse_errors(line):
    with pytest.raises(ParseError):
        parse_line(line)


async def test_game_new_without_options_lists_rulesets_and_scenarios(service):
    out = io.StringIO()
    console = Console(service, out, language="en")
    errors = await console.run(["/game new", "/help game new", "/game status"], interactive=False)
    text = out.getvalue()
    # Nothing was started: a listing, not a game of a ruleset nobody chose, and no error.
    assert errors == 1 and "Game created" not in text  # /game status: no game yet
    assert text.count("Rulesets and scenarios:") == 2  # the bare command and its help
    assert "  ruleset:w40k4 — " in text and "    scenario:fuga — The escape to the valley" in text
    assert "    scenario:rencontre_hosingen — Ardennes, December 1944" in text
    assert "To start: /game new ruleset:manovra scenario:esempio_normandia" in text
    french = io.StringIO()
    await Console(service, french, language="fr").run(["/game new"], interactive=False)
    assert "Règles et scénarios\u202f:" in french.getvalue()
    # Each scenario's title in the reader's language (a pzgren one too, and a French one
    # reads its French however it was written).
    assert (
        "    scenario:gotica_incontro — Ligne Gothique, septembre 1944 — rencontre à Casaglia"
        " (exemple)" in french.getvalue()
    )
    assert "    scenario:percee_clervaux — Ardennes, décembre 1944 — la percée (exemple)" in (
        french.getvalue()
    )


async def test_console_reports_errors_without_stopping(service):
    out = io.StringIO()
    console = Console(service, out)
    errors = await console.run(
        [
            "/turn next",
            "/as",
            "/as anna",
            "/help",
            "/game new ruleset:manovra",
            "/assault unit:squadra_1",
        ],
        interactive=False,
    )
    text = out.getvalue()
    # /assault is a command, not "/as sault": it reaches the rules and is refused there.
    assert errors == 2 and "Nessuna partita" in text and "sault" not in text.split("/assault")[0]
    assert "Ora sei «sault" not in text
    assert "/manoeuvre declare" in text and "Partita creata" in text
    assert user_id_of("Anna") == user_id_of("anna ")


async def test_an_unreadable_scenario_file_is_a_clear_error(service, tmp_path):
    binary = tmp_path / "scenario.yaml"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    out = io.StringIO()
    console = Console(service, out)
    errors = await console.run(
        [f"/game new file:{binary}", f"/game new file:{tmp_path}/none.yaml"], interactive=False
    )
    text = out.getvalue()
    assert errors == 2 and "Traceback" not in text
    assert text.count("\n! ") == 2


ROLL_BY_ROLL = """\
/game new scenario:esempio_normandia language:en
/as anna
/game join side:alleati
/as bruno
/game join side:asse
/as anna
/turn next
/turn next
/manoeuvre declare platoon:plotone_carri
/as bruno
/manoeuvre declare platoon:panzer dice:1
/as anna
/fire unit:sherman_1 target:panzer_iv distance:40 ammo:AP dice:7
12
/as bruno
5
/as anna
3
"""


async def test_piped_answers_give_the_dice_a_command_asks_for(service, dice):
    # Bruno types his Panzer's IT; the Shermans' IT are the Allies' own rolls, made by the
    # bot (dice belong to their roller): queued so that sherman_1 acts first.
    dice.push(6, 1)
    stream = io.StringIO()
    await Console(service, stream).run(ROLL_BY_ROLL.splitlines(), interactive=False)
    out = stream.getvalue()
    assert "Traceback" not in out
    # The hit was typed; the penetration die is asked for, and the next line answers it.
    assert (
        "dice:7\n(dice given so far: 7) @anna, roll a D12 for 'D12 — penetration' (1-12):\n"
        "[anna] 12\n(dice given so far: 7, 12) @anna, roll a D10 for 'D10 — effects' (1-10):\n"
    ) in out
    # A command line instead leaves the die pending, said once; only the roller answers.
    assert (
        "[anna] /as bruno\n… The D10 for 'D10 — effects' is still awaited: answer with a number"
    ) in out
    assert "[bruno] 5\n! Only the player who gave the command rolls its dice." in out
    assert "[anna] 3\n== Observation ==" in out
    assert "«arma distrutta + 1 morto + CT»" in out and "(dice entered by hand)" in out
    assert out.count("== Heavy-weapon fire ==") == 1  # resolved and shown once


async def test_at_the_terminal_the_prompt_names_the_die_and_a_face_answers_it(service, dice):
    dice.push(6, 1)  # the Shermans' IT, rolled by the bot for the Allies
    out = io.StringIO()
    console = Console(service, out)
    lines = ROLL_BY_ROLL.splitlines()
    fire = lines.index("/fire unit:sherman_1 target:panzer_iv distance:40 ammo:AP dice:7")
    errors = await console.run([*lines[: fire + 1], "12", "13", "3"], interactive=True)
    text = out.getvalue()
    assert "roll a D12 for 'D12 — penetration' (1-12):\n[anna] D12> " in text
    assert "roll a D10 for 'D10 — effects' (1-10):\n[anna] D10> " in text
    # 13 is not on a D10: refused, and the same die is asked for again.
    assert "! Die #3 shows 13, but a D10 cannot roll 13" in text
    assert "«arma distrutta + 1 morto + CT»" in text and errors == 1
    assert text.endswith("[anna]> ")  # resolved: the ordinary prompt again


def test_the_table_speaks_the_language_it_is_given(tmp_path):
    # --language: the table's own words before any game, and the game it creates.
    result = run_cli(
        tmp_path,
        "/as anna\n/turn next\n/game new ruleset:manovra\n/game status\n",
        "--language",
        "fr",
    )
    out = result.stdout
    assert result.returncode == 0, result.stderr
    assert "Ora sei" not in out and "Nessuna partita" not in out
    assert "Partie créée" in out and "Tour 1" in out
    # ARBITRO_LANGUAGE sets the same for every console and bot process; the flag wins.
    english = run_cli(tmp_path, "/game status\n", env={"ARBITRO_LANGUAGE": "en"})
    assert "Tour 1" in english.stdout  # the game keeps the language it was made in
    other = run_cli(
        tmp_path, "/game new ruleset:manovra\n", "--channel", "2", env={"ARBITRO_LANGUAGE": "en"}
    )
    assert "Game created" in other.stdout
    bad = run_cli(tmp_path, "/game status\n", env={"ARBITRO_LANGUAGE": "de"})
    assert bad.returncode == 2 and "ARBITRO_LANGUAGE" in bad.stderr


def test_a_concession_typed_at_the_console_then_the_referees_result(tmp_path):
    script = "\n".join(
        [
            "/game new ruleset:w40k4 scenario:avamposto language:fr",
            "/as anna",
            "/game join side:legione",
            "/as bruno",
            "/game join side:predoni",
            "/as anna",
            "/game concede",
            "/game concede cancel:true",
            "/game concede confirm:3",
            "/game status",
            "/as arbitro",
            "/game undo",
            '/game end result:predoni level:marginal reason:"la pluie"',
            "/game list",
            "/quit",
        ]
    )
    result = run_cli(tmp_path, script + "\n")
    out = result.stdout
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in out + result.stderr
    assert "? Abandonner la partie pour Légion astrale ?" in out.replace("\u202f", " ")
    assert "/game concede confirm:3" in out
    assert "» Abandon retiré : la partie continue." in out.replace("\u202f", " ")
    assert "🏁 Victoire décisive du camp Pillards\u202f: le camp Légion astrale a concédé (tour 1)." in out
    assert "Points\u202f:" in out
    assert "Partie terminée\u202f: @arbitro, @bruno" in out
    assert "» Événement n° 5 annulé.\n» Événement n° 4 annulé." in out  # the end, the concession
    assert "🏁 Victoire de justesse du camp Pillards" in out and "la pluie" in out
    assert out.count("🏁") >= 3  # the concession, the status once over, the decision


async def test_at_the_console_a_waiting_command_cannot_be_typed_again(service, dice):
    """Issue 26 item 2: the faces typed stand; /fire again with better dice is refused,
    naming the die owed, and the log shows the faces from the moment they were typed."""
    dice.push(6, 1)  # the Shermans' IT, rolled by the bot for the Allies
    out = io.StringIO()
    lines = ROLL_BY_ROLL.splitlines()
    fire = lines.index("/fire unit:sherman_1 target:panzer_iv distance:40 ammo:AP dice:7")
    again = "/fire unit:sherman_1 target:panzer_iv distance:40 ammo:AP dice:12"
    script = [*lines[: fire + 1], again, "/as bruno", "/game log count:2"]
    await Console(service, out).run(script, interactive=False)
    text = out.getvalue()
    assert "! /fire waits for your D12: the dice typed for it (7) stand." in text
    assert "typed 7 for /fire, which waits for one more D12" in text
    assert "Heavy-weapon fire" not in text  # nothing was rolled in its place


async def test_a_personal_answer_speaks_the_channels_game_language(service):
    """A table started in Italian, an English game in its channel: ``/notify show`` answers
    in English, and the table keeps speaking English after it (it switched to Italian)."""
    out = io.StringIO()
    console = Console(service, out)
    script = [
        "/game new scenario:esempio_normandia language:en",
        "/as anna",
        "/notify show",
        "/as bruno",
    ]
    assert await console.run(script, interactive=False) == 0
    text = out.getvalue()
    after = text[text.index("/notify show") :]
    assert "A mention in the channel" in after and "Una menzione" not in after, after
    assert "You are now 'bruno'." in after, after


async def test_what_is_owed_names_the_sides_in_the_games_language(service):
    """An English linea_gotica game's status: 'Owed now — Allies (@anna): …', not the
    sides' Italian names (the players appended to the name kept only its Italian)."""
    out = io.StringIO()
    console = Console(service, out)
    script = [
        "/game new ruleset:linea_gotica scenario:esempio_gotica_campo language:en",
        "/as anna",
        "/game join side:alleati",
        "/game status",
    ]
    assert await console.run(script, interactive=False) == 0
    text = out.getvalue()
    assert "Owed now — Allies (@anna): Roll the initiative" in text, text
    assert "Owed now — Germans: Roll the initiative" in text, text
    assert "Alleati" not in text and "Tedeschi" not in text


async def test_the_status_names_where_units_stand_in_the_readers_language(service):
    """A unit's place reads as the map names it ("Trench at the hairpin, entrenched",
    "walls, ruins, buildings (4+)"), never as an id ("trincea trincerati", "muri")."""
    for channel, (ruleset, scenario, shown, ids) in enumerate(
        (
            ("linea_gotica", "gotica_retroguardia", "Trench at the hairpin, entrenched", "trincea"),
            ("w40k4", "avamposto", "walls, ruins, buildings (4+)", "muri"),
            ("manovra", "esempio_normandia", "masonry building", "edificio_muratura"),
        ),
        start=500,
    ):
        out = io.StringIO()
        console = Console(service, out, channel_id=channel, language="en")
        await console.run(
            [f"/game new ruleset:{ruleset} scenario:{scenario} language:en"], interactive=False
        )
        text = out.getvalue()
        assert shown in text, text
        assert f" {ids}" not in text.split("## ", 1)[1], text
