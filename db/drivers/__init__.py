"""The drivers: the core's operations on SQLite (aiosqlite, sqlite3) and PostgreSQL."""
