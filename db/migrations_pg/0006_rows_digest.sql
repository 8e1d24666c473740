-- Arbitro PostgreSQL schema, version 6: the checksum of the rows the hash chain does not
-- cover (twin of db/migrations/0006_rows_digest.sql; recipe in db/integrity.py). Existing
-- games are sealed by the Python step of this migration (db/migrations_pg/__init__.py),
-- in the same transaction. Stands alone: it only touches tables of schema version 1.
ALTER TABLE games ADD COLUMN rows_digest TEXT;
