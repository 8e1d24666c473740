-- Arbitro storage, schema version 8: history as patches, full documents as snapshots.
-- Every version after the first gets a patch from the previous version (table `patches`);
-- `states` keeps the full document of version 1, of every 16th version and of the current
-- version only, so a commit stores a small patch instead of another whole document
-- (docs/storage.md, "History: snapshots and patches"). The Python step of this migration
-- (db/migrations/__init__.py) writes the patches of existing games and drops their other
-- full documents, in the same transaction.

-- events referred to its state row, which now goes once the next version is committed:
-- the table is rebuilt without that foreign key (SQLite cannot drop a constraint).
CREATE TABLE events_new (
    channel_id      INTEGER NOT NULL REFERENCES games (channel_id),
    seq             INTEGER NOT NULL CHECK (seq >= 1),
    interaction_id  TEXT    UNIQUE,
    actor_id        INTEGER,
    verb            TEXT    NOT NULL,
    args            TEXT    NOT NULL,
    dice            TEXT    NOT NULL,
    resolution      TEXT    NOT NULL,
    state_version   INTEGER NOT NULL CHECK (state_version = seq),
    state_hash      TEXT    NOT NULL,
    undoes_seq      INTEGER CHECK (undoes_seq IS NULL OR undoes_seq < seq),
    created_at      TEXT    NOT NULL,
    prev_hash       TEXT    NOT NULL,
    hash            TEXT    NOT NULL,
    PRIMARY KEY (channel_id, seq)
);

INSERT INTO events_new
SELECT channel_id, seq, interaction_id, actor_id, verb, args, dice, resolution,
       state_version, state_hash, undoes_seq, created_at, prev_hash, hash
FROM events;

DROP TABLE events;

ALTER TABLE events_new RENAME TO events;

CREATE INDEX events_undone ON events (channel_id, undoes_seq) WHERE undoes_seq IS NOT NULL;

CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN
    SELECT RAISE(ABORT, 'events are append-only');
END;

CREATE TRIGGER events_no_delete BEFORE DELETE ON events
WHEN (SELECT status FROM games WHERE channel_id = OLD.channel_id) IS NOT 'ended'
BEGIN
    SELECT RAISE(ABORT, 'events of a game that has not ended cannot be deleted');
END;

-- The patch (db/patch.py) from version - 1 to `version`, and the status of `version`.
-- Canonical JSON; checked against the event's state hash whenever a state is rebuilt.
CREATE TABLE patches (
    channel_id  INTEGER NOT NULL,
    version     INTEGER NOT NULL CHECK (version >= 2),
    status      TEXT    NOT NULL CHECK (status IN ('setup', 'active', 'ended')),
    patch       TEXT    NOT NULL,
    PRIMARY KEY (channel_id, version),
    FOREIGN KEY (channel_id, version) REFERENCES events (channel_id, seq)
) WITHOUT ROWID;

CREATE TRIGGER patches_no_update BEFORE UPDATE ON patches
BEGIN
    SELECT RAISE(ABORT, 'patches are append-only');
END;

CREATE TRIGGER patches_no_delete BEFORE DELETE ON patches
WHEN (SELECT status FROM games WHERE channel_id = OLD.channel_id) IS NOT 'ended'
BEGIN
    SELECT RAISE(ABORT, 'patches of a game that has not ended cannot be deleted');
END;

-- A full document may now go while its game plays on, when it is neither version 1, nor a
-- snapshot (a multiple of 16, db.patch.SNAPSHOT_EVERY), nor the current version, and its
-- patch is there to rebuild it.
DROP TRIGGER states_no_delete;

CREATE TRIGGER states_no_delete BEFORE DELETE ON states
WHEN (SELECT status FROM games WHERE channel_id = OLD.channel_id) IS NOT 'ended'
    AND (OLD.version = 1 OR OLD.version % 16 = 0
         OR OLD.version >= (SELECT version FROM games WHERE channel_id = OLD.channel_id)
         OR NOT EXISTS (SELECT 1 FROM patches
                        WHERE channel_id = OLD.channel_id AND version = OLD.version))
BEGIN
    SELECT RAISE(ABORT, 'states of a game that has not ended cannot be deleted');
END;
