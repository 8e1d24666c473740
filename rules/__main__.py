"""``python -m rules``: the rules CLI (no Discord, no database)."""

import sys

from rules.cli import main

sys.exit(main())
