-- Arbitro storage, schema version 10: the snapshots of a history recorded, not computed.
-- A version's whole document is now kept when the patches since the last snapshot add up
-- to more than half of it (db.patch.snapshot_due), no longer at every 16th version: which
-- versions are snapshots is recorded beside their patch (docs/storage.md, "History:
-- snapshots and patches"). The games already stored keep their snapshots at the multiples
-- of 16, recorded here as such.

-- snapshot: the version keeps its whole document for good; run_bytes: the bytes of the
-- patches since the last snapshot, this one's included (what the next commit adds to).
ALTER TABLE patches ADD COLUMN snapshot INTEGER NOT NULL DEFAULT 0 CHECK (snapshot IN (0, 1));

ALTER TABLE patches ADD COLUMN run_bytes INTEGER NOT NULL DEFAULT 0;

DROP TRIGGER patches_no_update;

UPDATE patches SET snapshot = 1 WHERE version % 16 = 0;

CREATE TRIGGER patches_no_update BEFORE UPDATE ON patches
BEGIN
    SELECT RAISE(ABORT, 'patches are append-only');
END;

-- A full document may go while its game plays on when it is neither version 1, nor a
-- recorded snapshot, nor the current version, and its patch is there to rebuild it.
DROP TRIGGER states_no_delete;

CREATE TRIGGER states_no_delete BEFORE DELETE ON states
WHEN (SELECT status FROM games WHERE channel_id = OLD.channel_id) IS NOT 'ended'
    AND (OLD.version = 1
         OR OLD.version >= (SELECT version FROM games WHERE channel_id = OLD.channel_id)
         OR NOT EXISTS (SELECT 1 FROM patches
                        WHERE channel_id = OLD.channel_id AND version = OLD.version
                          AND snapshot = 0))
BEGIN
    SELECT RAISE(ABORT, 'states of a game that has not ended cannot be deleted');
END;
