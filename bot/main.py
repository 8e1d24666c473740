"""The `arbitro` command: one entry point for every front end.

Settings are built here, never at import time.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def build_parser() -> argparse.ArgumentParser:
    """Build the top-level argument parser with every subcommand registered."""
    from db.cli import register as register_db
    from rules.cli import register as register_rules

    parser = argparse.ArgumentParser(prog="arbitro", description="Arbitro, the wargame umpire.")
    subcommands = parser.add_subparsers(dest="command", metavar="COMMAND")
    register_rules(subcommands)
    register_db(subcommands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the `arbitro` command line; return the process exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 0
    if args.command == "rules":
        from rules.cli import run

        return run(args)
    return int(handler(args))


if __name__ == "__main__":
    sys.exit(main())
