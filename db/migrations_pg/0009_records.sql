-- Arbitro storage on PostgreSQL, schema version 9: the application features' records in
-- one table (the SQLite schema's 0009_records.sql; see there).
CREATE TABLE records (
    id          BIGINT      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    feature     TEXT        NOT NULL,
    scope       BIGINT      NOT NULL,
    channel_id  BIGINT      REFERENCES games (channel_id),
    key         TEXT        NOT NULL,
    value       TEXT        NOT NULL,
    revision    INTEGER     NOT NULL CHECK (revision >= 1),
    due_at      TIMESTAMPTZ,
    created_at  TIMESTAMPTZ NOT NULL,
    sealed      BOOLEAN     NOT NULL,
    UNIQUE (feature, scope, key),
    CHECK (channel_id IS NULL OR channel_id = scope)
);

CREATE INDEX records_of_game ON records (channel_id) WHERE channel_id IS NOT NULL;

CREATE INDEX records_due ON records (feature, due_at) WHERE due_at IS NOT NULL;
