-- Arbitro storage, schema version 1.
-- Applied inside one BEGIN IMMEDIATE transaction by db/migrations/__init__.py, which then
-- sets PRAGMA user_version = 1. Keep statements portable to SQLite 3.31 (no STRICT tables,
-- no RETURNING): Python builds link whatever SQLite the system has.

-- Marks the file as ours, so a foreign SQLite file is refused instead of written to.
PRAGMA application_id = 1095909961;  -- "ARBI"

-- One game per channel (or thread). The document lives in `states`, at (channel, version):
-- a single copy of each version, so a commit writes the document once.
CREATE TABLE games (
    channel_id  INTEGER PRIMARY KEY,
    guild_id    INTEGER,
    ruleset     TEXT    NOT NULL,
    language    TEXT    NOT NULL,
    status      TEXT    NOT NULL CHECK (status IN ('setup', 'active', 'ended')),
    version     INTEGER NOT NULL CHECK (version >= 1),
    created_at  TEXT    NOT NULL,
    updated_at  TEXT    NOT NULL
);

CREATE INDEX games_by_guild ON games (guild_id, status);

-- Every version of every game: undo restores from here and exports include it.
CREATE TABLE states (
    channel_id  INTEGER NOT NULL REFERENCES games (channel_id),
    version     INTEGER NOT NULL CHECK (version >= 1),
    status      TEXT    NOT NULL CHECK (status IN ('setup', 'active', 'ended')),
    document    TEXT    NOT NULL,
    PRIMARY KEY (channel_id, version)
);

-- The append-only log: event `seq` produced state version `seq`.
CREATE TABLE events (
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
    PRIMARY KEY (channel_id, seq),
    FOREIGN KEY (channel_id, state_version) REFERENCES states (channel_id, version)
);

-- Finds whether an event was undone, for the undo walk.
CREATE INDEX events_undone ON events (channel_id, undoes_seq) WHERE undoes_seq IS NOT NULL;

-- History is never rewritten. Rows may only go when their whole game is deleted, which the
-- store allows once the game has ended (after an export).
CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN
    SELECT RAISE(ABORT, 'events are append-only');
END;

CREATE TRIGGER events_no_delete BEFORE DELETE ON events
WHEN (SELECT status FROM games WHERE channel_id = OLD.channel_id) IS NOT 'ended'
BEGIN
    SELECT RAISE(ABORT, 'events of a game that has not ended cannot be deleted');
END;

CREATE TRIGGER states_no_update BEFORE UPDATE ON states
BEGIN
    SELECT RAISE(ABORT, 'states are append-only');
END;

CREATE TRIGGER states_no_delete BEFORE DELETE ON states
WHEN (SELECT status FROM games WHERE channel_id = OLD.channel_id) IS NOT 'ended'
BEGIN
    SELECT RAISE(ABORT, 'states of a game that has not ended cannot be deleted');
END;

CREATE TABLE members (
    channel_id  INTEGER NOT NULL REFERENCES games (channel_id),
    user_id     INTEGER NOT NULL,
    role        TEXT    NOT NULL CHECK (role IN ('player', 'referee')),
    side        TEXT,
    joined_at   TEXT    NOT NULL,
    PRIMARY KEY (channel_id, user_id)
);

-- Play-by-post deadlines: `side` must act in `channel_id` by `due_at` (fixed-width UTC
-- ISO-8601 text, so it compares correctly as text).
CREATE TABLE deadlines (
    channel_id  INTEGER NOT NULL REFERENCES games (channel_id),
    side        TEXT    NOT NULL,
    due_at      TEXT    NOT NULL,
    reminded    INTEGER NOT NULL DEFAULT 0 CHECK (reminded IN (0, 1)),
    set_at      TEXT    NOT NULL,
    PRIMARY KEY (channel_id, side)
);

CREATE INDEX deadlines_pending ON deadlines (due_at) WHERE reminded = 0;
