"""Storage: one game per channel in SQLite — documents, versions, a hash-chained event log.

Start from `db.protocol.GameStore` (the interface), `db.core` (every operation, written once
for SQLite and PostgreSQL) and `db.store.CoreStore` with its drivers
(`db.drivers.sqlite.SqliteStore` on aiosqlite, `db.drivers.postgres.PostgresStore` on
asyncpg); records are in `db.models`, errors in `db.errors`. The hash chain and the history
formats it vouches for are in `db.chain`, the `arbitro db` command line in `db.tools`. See
docs/storage.md.
"""
