-- Arbitro storage, schema version 4: ended games, archived.
-- A channel holds one game at a time (games.channel_id is its key). When a game has ended and
-- a new one starts in the same channel, the ended one is moved here whole: its export bundle
-- (metadata, members, every event with its hash, every state), compressed, plus what a
-- listing shows. Its rows in games/states/events/members/deadlines are deleted in the same
-- transaction, which the triggers allow for ended games only. Archives are never changed.
CREATE TABLE archived_games (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    channel_id  INTEGER NOT NULL,
    guild_id    INTEGER,
    ruleset     TEXT    NOT NULL,
    language    TEXT    NOT NULL,
    title       TEXT    NOT NULL,
    version     INTEGER NOT NULL CHECK (version >= 1),
    created_at  TEXT    NOT NULL,
    ended_at    TEXT    NOT NULL,
    archived_at TEXT    NOT NULL,
    head_hash   TEXT    NOT NULL,
    bundle      BLOB    NOT NULL  -- zlib-compressed canonical JSON of the export bundle
);

CREATE INDEX archived_games_by_guild ON archived_games (guild_id, id);

CREATE TRIGGER archived_games_no_update BEFORE UPDATE ON archived_games
BEGIN
    SELECT RAISE(ABORT, 'archives are never changed');
END;
