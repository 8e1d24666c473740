-- Arbitro storage on PostgreSQL, schema version 5: deadlines that follow the turn (the SQLite
-- schema's 0005_pace.sql; see there).
ALTER TABLE games ADD COLUMN pace_hours INTEGER
    CHECK (pace_hours IS NULL OR (pace_hours >= 1 AND pace_hours <= 1440));

CREATE TABLE deadline_warnings (
    channel_id  BIGINT      NOT NULL,
    side        TEXT        NOT NULL,
    due_at      TIMESTAMPTZ NOT NULL,
    sent_at     TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (channel_id, side, due_at)
);
