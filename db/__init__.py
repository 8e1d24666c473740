"""Storage: one game per channel in SQLite — documents, versions, a hash-chained event log.

Start from `db.protocol.GameStore` (the interface) and `db.sqlite.SqliteStore` (the
implementation); records are in `db.models`, errors in `db.errors`. See docs/storage.md.
"""
