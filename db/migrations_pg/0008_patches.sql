-- Arbitro storage on PostgreSQL, schema version 8: history as patches, full documents as
-- snapshots (as db/migrations/0008_patches.sql; docs/storage.md, "History: snapshots and
-- patches"). The Python step (db/migrations_pg/__init__.py) writes the patches of existing
-- games and drops their other full documents, in the same transaction.

-- An event's state row now goes once the next version is committed (unless it is a
-- snapshot): the foreign key from events to states is dropped, whatever it was named.
DO $$
DECLARE
    name TEXT;
BEGIN
    FOR name IN
        SELECT conname FROM pg_constraint
        WHERE conrelid = 'events'::regclass AND confrelid = 'states'::regclass AND contype = 'f'
    LOOP
        EXECUTE format('ALTER TABLE events DROP CONSTRAINT %I', name);
    END LOOP;
END;
$$;

-- The patch (db/patch.py) from version - 1 to `version`, and the status of `version`.
CREATE TABLE patches (
    channel_id  BIGINT  NOT NULL,
    version     INTEGER NOT NULL CHECK (version >= 2),
    status      TEXT    NOT NULL CHECK (status IN ('setup', 'active', 'ended')),
    patch       TEXT    NOT NULL,
    PRIMARY KEY (channel_id, version),
    FOREIGN KEY (channel_id, version) REFERENCES events (channel_id, seq)
);

CREATE TRIGGER patches_no_update BEFORE UPDATE ON patches
    FOR EACH ROW EXECUTE FUNCTION arbitro_history_no_update();
CREATE TRIGGER patches_no_delete BEFORE DELETE ON patches
    FOR EACH ROW EXECUTE FUNCTION arbitro_history_no_delete();

-- A full document may go while its game plays on when it is neither version 1, nor a
-- snapshot (a multiple of 16, db.patch.SNAPSHOT_EVERY), nor the current version, and its
-- patch is there to rebuild it.
CREATE FUNCTION arbitro_state_no_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF (SELECT status FROM games WHERE channel_id = OLD.channel_id) IS DISTINCT FROM 'ended'
        AND (OLD.version = 1 OR OLD.version % 16 = 0
             OR OLD.version >= (SELECT version FROM games WHERE channel_id = OLD.channel_id)
             OR NOT EXISTS (SELECT 1 FROM patches
                            WHERE channel_id = OLD.channel_id AND version = OLD.version))
    THEN
        RAISE EXCEPTION 'states of a game that has not ended cannot be deleted';
    END IF;
    RETURN OLD;
END;
$$;

DROP TRIGGER states_no_delete ON states;
CREATE TRIGGER states_no_delete BEFORE DELETE ON states
    FOR EACH ROW EXECUTE FUNCTION arbitro_state_no_delete();
