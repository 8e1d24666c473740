"""Storage: one game per channel in SQLite — documents, versions, a hash-chained event log.

Start from `db.protocol.GameStore` (the interface), `db.core` (every operation, written once
for SQLite and PostgreSQL) and `db.store.CoreStore` with its drivers (`db.sqlite.SqliteStore`
on aiosqlite, `db.postgres.PostgresStore` on asyncpg); records are in `db.models`, errors in
`db.errors`. See docs/storage.md.
"""
