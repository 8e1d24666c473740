"""Migrations of pzgren game documents, oldest first.

To change the state model: bump ``version`` and add the migration from the previous
format (a pure function of the document; docs/storage.md, "How to change a state model").
"""

from __future__ import annotations

from rules.core.migrations import DocumentFormat, add_format_field

FORMAT = DocumentFormat("pzgren", version=2)

# 1 → 2: release 0.1.0 saved no format field; the state is otherwise unchanged.
FORMAT.migration(1)(add_format_field)
