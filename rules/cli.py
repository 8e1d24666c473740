"""A command line over the pure rules core: list, procedures, table, resolve.

A referee uses it to check a ruling; tests and benchmarks use it too. Bad input gives a
one-line error and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from rules.core.dice import DiceSource, ScriptedDice, SystemDice, parse_faces
from rules.core.errors import RulesError
from rules.core.i18n import DEFAULT_LANGUAGE, LANGUAGES, translate
from rules.core.procedures import dumps
from rules.core.ruleset import all_rulesets, get_ruleset
from rules.core.tables import Table
from rules.core.words import in_language
from rules.render import render_resolution_text

EXIT_USAGE = 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # one line, status 2, no usage dump
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(EXIT_USAGE)


def register(subparsers: Any) -> None:
    """Add ``rules`` (list, procedures, table, resolve) to a parent parser's subcommands."""
    parser = subparsers.add_parser("rules", help="the rules core: tables, procedures, resolve")
    _add_commands(parser)


def _add_commands(parser: argparse.ArgumentParser) -> None:
    commands = parser.add_subparsers(dest="rules_command", metavar="COMMAND", required=True)
    listing = commands.add_parser("list", help="the rulesets")
    listing.set_defaults(handler=_cmd_list)

    procedures = commands.add_parser("procedures", help="a ruleset's procedures")
    procedures.add_argument("ruleset")
    procedures.add_argument("--json", action="store_true", help="name → input JSON schema")
    procedures.set_defaults(handler=_cmd_procedures)

    table = commands.add_parser("table", help="list a ruleset's tables, or print one")
    table.add_argument("ruleset")
    table.add_argument("table", nargs="?")
    table.set_defaults(handler=_cmd_table)

    resolve = commands.add_parser("resolve", help="resolve a procedure")
    resolve.add_argument("ruleset")
    resolve.add_argument("procedure")
    resolve.add_argument("--input", required=True, help="the procedure's input as JSON")
    resolve.add_argument("--dice", help="faces in the order the procedure documents: 4,6,...")
    resolve.add_argument("--json", action="store_true", help="print the Resolution as JSON")
    resolve.add_argument("--lang", choices=LANGUAGES, default="it")
    resolve.set_defaults(handler=_cmd_resolve)


def _cmd_list(_args: argparse.Namespace) -> int:
    for ruleset in all_rulesets():
        print(f"{ruleset.key}\t{ruleset.title}\t(seed {ruleset.seed}; dice {ruleset.dice})")
    return 0


def _cmd_procedures(args: argparse.Namespace) -> int:
    ruleset = get_ruleset(args.ruleset)
    if args.json:
        print(
            json.dumps(
                {name: p.input_schema() for name, p in ruleset.procedures.items()},
                ensure_ascii=False,
                indent=2,
            )
        )
        return 0
    for name, procedure in ruleset.procedures.items():
        print(f"{name}\t{procedure.summary}\n\tdice: {procedure.dice_order}")
    return 0


def _unseeded(table: Table) -> str:
    """The mark of a table the seed does not give (its data says so, not its title)."""
    return "  (not in the seed)" if table.data.get("not_in_seed") else ""


def format_table(table: Table, language: str = DEFAULT_LANGUAGE) -> str:
    """A table laid out as the seed shows it, with its footnotes and transcription notes;
    its title in ``language`` (a table the seed does not give is titled in each)."""
    headers = [axis.label for axis in table.row_axes] or ["—"]
    headers += [column.label for column in table.columns]
    body = []
    for row in table.rows:
        keys = [row.keys[axis.key] for axis in table.row_axes] or [row.label or row.id or ""]
        body.append([*keys, *row.cells])
    widths = [
        min(28, max(len(str(line[i])) for line in [headers, *body])) for i in range(len(headers))
    ]

    def fmt(line: list[str]) -> str:
        return " | ".join(
            str(cell)[:28].ljust(width) for cell, width in zip(line, widths, strict=True)
        )

    out = [
        f"{in_language(table.title, language)}  [{table.id}]",
        f"seed: {table.seed} — {table.seed_table}",
    ]
    if table.column_groups:
        out.append("groups: " + "; ".join(f"{k} = {v}" for k, v in table.column_groups.items()))
    out += [fmt(headers), "-+-".join("-" * width for width in widths)]
    out += [fmt(line) for line in body]
    out += [f"* {note}" for note in table.footnotes]
    if table.notes:
        out.append("Transcription notes:")
        out += [f"- [{n.where}] {n.decision} — {n.reasoning}" for n in table.notes]
    return "\n".join(out)


def _cmd_table(args: argparse.Namespace) -> int:
    ruleset = get_ruleset(args.ruleset)
    tables = ruleset.tables
    if args.table is None:
        for table in tables:
            print(
                f"{table.id}\t{table.title}{_unseeded(table)}\t"
                f"({len(table.rows)}×{len(table.columns)}, {len(table.notes)} notes)"
            )
        return 0
    table = tables[args.table]
    print(format_table(table) + ("\n" + _unseeded(table).strip() if _unseeded(table) else ""))
    return 0


def _cmd_resolve(args: argparse.Namespace) -> int:
    ruleset = get_ruleset(args.ruleset)
    procedure = ruleset.procedure(args.procedure)
    data = procedure.parse_input(args.input)
    source: DiceSource = SystemDice()
    if args.dice:
        faces = parse_faces(args.dice, zero_reads_as_ten=ruleset.zero_reads_as_ten)
        source = ScriptedDice(faces)
    resolution = procedure.resolve(data, source)
    if args.json:
        payload = resolution.to_json()
        payload["outcome"] = resolution.outcome.code
        payload["odds"] = payload.pop("odds_map")
        print(dumps(payload))
    else:
        print(render_resolution_text(resolution, args.lang))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the rules CLI; return the exit status."""
    parser = _Parser(prog="python -m rules", description="Arbitro's rules core.")
    _add_commands(parser)
    args = parser.parse_args(argv)
    return run(args)


def run(args: argparse.Namespace) -> int:
    """Dispatch parsed arguments, turning every rules error into one line and status 2."""
    try:
        return int(args.handler(args))
    except RulesError as error:
        sys.stderr.write(f"error: {error.localized(getattr(args, 'lang', 'it'))}\n")
        return EXIT_USAGE
    except (ValueError, json.JSONDecodeError) as error:
        sys.stderr.write(
            f"error: {translate('error.invalid_input.detail', 'it', detail=str(error)[:200])}\n"
        )
        return EXIT_USAGE
