-- Arbitro storage on PostgreSQL, schema version 2: rolls a player still owes to a command
-- (the SQLite schema's 0002_pending_rolls.sql; see there for what they are).
-- One prompt per player and channel; ids come from an identity sequence, never reused, so
-- an old button can never answer a newer prompt.
CREATE TABLE pending_rolls (
    id          BIGINT      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    channel_id  BIGINT      NOT NULL REFERENCES games (channel_id),
    user_id     BIGINT      NOT NULL,
    version     INTEGER     NOT NULL CHECK (version >= 1),
    verb        TEXT        NOT NULL,
    options     JSONB       NOT NULL,
    faces       JSONB       NOT NULL,
    bot_faces   JSONB       NOT NULL,
    die_sides   INTEGER     NOT NULL CHECK (die_sides >= 2),
    label       TEXT        NOT NULL,
    side        TEXT,
    created_at  TIMESTAMPTZ NOT NULL,
    UNIQUE (channel_id, user_id)
);
