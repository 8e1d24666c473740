-- Arbitro storage, schema version 9: the application features' records in one table.
-- The store keeps storage verbs only; each feature of the bot (deadlines and their
-- reminders, the game's pace, sides bound to Discord roles, who may create games, dice
-- prompts) keeps its typed records here through a few generic operations
-- (db/core/records.py; docs/storage.md, "Where a feature keeps its data"). The Python step
-- of this migration (db/core/migrate.py) moves the rows of the tables it replaces
-- (deadlines, deadline_warnings, pending_rolls, side_roles, guild_settings and
-- games.pace_hours) into it, drops them and seals every game anew, in the same transaction.
CREATE TABLE records (
    -- Given once, never reused (AUTOINCREMENT): records list in the order they were made.
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    feature     TEXT    NOT NULL,
    -- Whose: a game's channel id or a guild id (a feature uses one kind of scope).
    scope       INTEGER NOT NULL,
    -- A game's record: its channel (= scope); it goes with the game. NULL: a guild's.
    channel_id  INTEGER REFERENCES games (channel_id),
    key         TEXT    NOT NULL,
    value       TEXT    NOT NULL,  -- canonical JSON, the feature's typed record
    revision    INTEGER NOT NULL CHECK (revision >= 1),  -- +1 per put: compare-and-set
    due_at      TEXT,              -- on the time index (fixed-width UTC text) when set
    created_at  TEXT    NOT NULL,
    sealed      INTEGER NOT NULL CHECK (sealed IN (0, 1)),  -- in the game's checksum
    UNIQUE (feature, scope, key),
    CHECK (channel_id IS NULL OR channel_id = scope)
);

CREATE INDEX records_of_game ON records (channel_id) WHERE channel_id IS NOT NULL;

CREATE INDEX records_due ON records (feature, due_at) WHERE due_at IS NOT NULL;
