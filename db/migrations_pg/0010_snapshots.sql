-- Arbitro storage on PostgreSQL, schema version 10: the snapshots of a history recorded,
-- not computed (as db/migrations/0010_snapshots.sql; docs/storage.md, "History: snapshots
-- and patches"). The games already stored keep their snapshots at the multiples of 16,
-- recorded here as such.

ALTER TABLE patches ADD COLUMN snapshot BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE patches ADD COLUMN run_bytes INTEGER NOT NULL DEFAULT 0;

ALTER TABLE patches DISABLE TRIGGER patches_no_update;
UPDATE patches SET snapshot = TRUE WHERE version % 16 = 0;
ALTER TABLE patches ENABLE TRIGGER patches_no_update;

-- A full document may go while its game plays on when it is neither version 1, nor a
-- recorded snapshot, nor the current version, and its patch is there to rebuild it.
CREATE OR REPLACE FUNCTION arbitro_state_no_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF (SELECT status FROM games WHERE channel_id = OLD.channel_id) IS DISTINCT FROM 'ended'
        AND (OLD.version = 1
             OR OLD.version >= (SELECT version FROM games WHERE channel_id = OLD.channel_id)
             OR NOT EXISTS (SELECT 1 FROM patches
                            WHERE channel_id = OLD.channel_id AND version = OLD.version
                              AND NOT snapshot))
    THEN
        RAISE EXCEPTION 'states of a game that has not ended cannot be deleted';
    END IF;
    RETURN OLD;
END;
$$;
