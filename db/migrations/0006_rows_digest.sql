-- Arbitro storage, schema version 6: the checksum of the rows the hash chain does not cover.
-- `rows_digest` is SHA-256 over the game's guild, ruleset, language and creation time, its
-- members (user, role, side) and its deadlines (db/integrity.py has the recipe). The store
-- refreshes it in the transaction of every write to those rows and checks it when a game
-- is loaded; NULL means unsealed, which loading refuses. Existing games are sealed by the
-- Python step of this migration (db/migrations/__init__.py), in the same transaction.
-- Stands alone: it only touches tables of schema version 1.
ALTER TABLE games ADD COLUMN rows_digest TEXT;
