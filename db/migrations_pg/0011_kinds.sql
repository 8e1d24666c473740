-- Arbitro storage on PostgreSQL, schema version 11: what a record of `games` is, stored as
-- its kind (as db/migrations/0011_kinds.sql; docs/storage.md, "What a record is"). The
-- campaigns already stored, rows whose `ruleset` was "campaign", become rows of kind
-- 'campaign' and are sealed anew by the migration's Python step (db/core/migrate.py).
ALTER TABLE games ADD COLUMN kind TEXT NOT NULL DEFAULT 'game'
    CHECK (kind IN ('game', 'campaign'));

UPDATE games SET kind = 'campaign' WHERE ruleset = 'campaign';
