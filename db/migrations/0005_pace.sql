-- Arbitro storage, schema version 5: deadlines that follow the turn.
-- A game's pace: each side that comes to owe an action gets this many hours to give it (NULL:
-- no pace, deadlines only when the referee sets one). Kept on the game's row so it goes with
-- the game (archived or deleted with it).
ALTER TABLE games ADD COLUMN pace_hours INTEGER
    CHECK (pace_hours IS NULL OR (pace_hours >= 1 AND pace_hours <= 1440));

-- The reminder before a deadline expires, claimed once across bot processes: whoever inserts
-- the row sends it. Keyed by the deadline's due time, so a moved deadline warns again; rows of
-- deadlines long gone are harmless (nothing refers to them).
CREATE TABLE deadline_warnings (
    channel_id  INTEGER NOT NULL,
    side        TEXT    NOT NULL,
    due_at      TEXT    NOT NULL,
    sent_at     TEXT    NOT NULL,
    PRIMARY KEY (channel_id, side, due_at)
);
