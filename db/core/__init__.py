"""The store written once: every operation as a step function, run by a thin driver.

An operation (`db.core.games`, `db.core.features`, `db.core.audit`, `db.core.migrate`) is
a generator that yields what it needs — a statement (`db.core.steps.Query`), a few
statements sent together (`Batch`), pure CPU work to run off the event loop (`Compute`)
— and receives each answer; it does no I/O of its own and returns the operation's value or
raises the store's errors (`db.errors`). A driver runs it: `db.drivers.sqlite` on aiosqlite,
`db.drivers.postgres` on asyncpg, `db.drivers.sqlite_sync` on a plain ``sqlite3`` connection
(tools and tests). What differs between SQLite and PostgreSQL (placeholders, row locks, the JSONB
copy, timestamps, compressed event texts) is in `db.core.dialect`. See docs/storage.md.
"""
