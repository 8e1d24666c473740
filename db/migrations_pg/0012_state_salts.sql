-- Arbitro storage on PostgreSQL, schema version 12: a secret salt per record, hashed into
-- each of its states (as db/migrations/0012_state_salts.sql). The records already stored
-- keep NULL, hence the unsalted recipe their chains were written with.
ALTER TABLE games ADD COLUMN state_salt TEXT;
