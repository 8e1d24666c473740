-- Arbitro storage on PostgreSQL, schema version 1: the same tables as the SQLite schema
-- (db/migrations/0001_initial.sql) and the same invariants (docs/storage.md).
-- Applied by db/migrations_pg/__init__.py inside one transaction that also records the
-- version in arbitro_schema, under an advisory lock so concurrent openers migrate once.

CREATE TABLE games (
    channel_id  BIGINT      PRIMARY KEY,
    guild_id    BIGINT,
    ruleset     TEXT        NOT NULL,
    language    TEXT        NOT NULL,
    status      TEXT        NOT NULL CHECK (status IN ('setup', 'active', 'ended')),
    version     INTEGER     NOT NULL CHECK (version >= 1),
    created_at  TIMESTAMPTZ NOT NULL,
    updated_at  TIMESTAMPTZ NOT NULL
);

CREATE INDEX games_by_guild ON games (guild_id, status);

-- Every version of every game. `document_text` is the canonical JSON that was hashed (the
-- hash chain and every read use it: JSONB reorders keys and rewrites numbers such as 1e+20,
-- so it cannot give back the hashed text). `document` is the same value as JSONB, for
-- queries and indexes; NULL only for a document JSONB cannot hold (a \u0000 in a string).
CREATE TABLE states (
    channel_id     BIGINT  NOT NULL REFERENCES games (channel_id),
    version        INTEGER NOT NULL CHECK (version >= 1),
    status         TEXT    NOT NULL CHECK (status IN ('setup', 'active', 'ended')),
    document_text  TEXT    NOT NULL,
    document       JSONB,
    PRIMARY KEY (channel_id, version)
);

-- The append-only log: event `seq` produced state version `seq`. args, dice and resolution
-- are the canonical JSON texts the chain hashed.
CREATE TABLE events (
    channel_id      BIGINT      NOT NULL REFERENCES games (channel_id),
    seq             INTEGER     NOT NULL CHECK (seq >= 1),
    interaction_id  TEXT        UNIQUE,
    actor_id        BIGINT,
    verb            TEXT        NOT NULL,
    args            TEXT        NOT NULL,
    dice            TEXT        NOT NULL,
    resolution      TEXT        NOT NULL,
    state_version   INTEGER     NOT NULL CHECK (state_version = seq),
    state_hash      TEXT        NOT NULL,
    undoes_seq      INTEGER     CHECK (undoes_seq IS NULL OR undoes_seq < seq),
    created_at      TIMESTAMPTZ NOT NULL,
    prev_hash       TEXT        NOT NULL,
    hash            TEXT        NOT NULL,
    PRIMARY KEY (channel_id, seq),
    FOREIGN KEY (channel_id, state_version) REFERENCES states (channel_id, version)
);

CREATE INDEX events_undone ON events (channel_id, undoes_seq) WHERE undoes_seq IS NOT NULL;

-- History is never rewritten; rows go only with their whole ended game (delete_game).
CREATE FUNCTION arbitro_history_no_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% are append-only', TG_TABLE_NAME;
END;
$$;

CREATE FUNCTION arbitro_history_no_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF (SELECT status FROM games WHERE channel_id = OLD.channel_id) IS DISTINCT FROM 'ended' THEN
        RAISE EXCEPTION '% of a game that has not ended cannot be deleted', TG_TABLE_NAME;
    END IF;
    RETURN OLD;
END;
$$;

CREATE TRIGGER events_no_update BEFORE UPDATE ON events
    FOR EACH ROW EXECUTE FUNCTION arbitro_history_no_update();
CREATE TRIGGER events_no_delete BEFORE DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION arbitro_history_no_delete();
CREATE TRIGGER states_no_update BEFORE UPDATE ON states
    FOR EACH ROW EXECUTE FUNCTION arbitro_history_no_update();
CREATE TRIGGER states_no_delete BEFORE DELETE ON states
    FOR EACH ROW EXECUTE FUNCTION arbitro_history_no_delete();

CREATE TABLE members (
    channel_id  BIGINT      NOT NULL REFERENCES games (channel_id),
    user_id     BIGINT      NOT NULL,
    role        TEXT        NOT NULL CHECK (role IN ('player', 'referee')),
    side        TEXT,
    joined_at   TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (channel_id, user_id)
);

CREATE TABLE deadlines (
    channel_id  BIGINT      NOT NULL REFERENCES games (channel_id),
    side        TEXT        NOT NULL,
    due_at      TIMESTAMPTZ NOT NULL,
    reminded    BOOLEAN     NOT NULL DEFAULT FALSE,
    set_at      TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (channel_id, side)
);

CREATE INDEX deadlines_pending ON deadlines (due_at) WHERE NOT reminded;
