-- Arbitro storage, schema version 11: what a record of `games` is, stored as its kind.
-- A campaign was a row whose `ruleset` column held "campaign"; it is now a row of kind
-- 'campaign', and its `ruleset` column names the ruleset its games are played with (a
-- campaign of w40k4 games). The campaigns already stored keep "campaign" there: nothing
-- reads a campaign's ruleset from its row (its state names it), and their hash chains
-- logged it (docs/storage.md, "What a record is"). The Python step of this migration
-- (db/core/migrate.py) seals the campaigns anew: their checksum covers their kind.
ALTER TABLE games ADD COLUMN kind TEXT NOT NULL DEFAULT 'game'
    CHECK (kind IN ('game', 'campaign'));

UPDATE games SET kind = 'campaign' WHERE ruleset = 'campaign';
