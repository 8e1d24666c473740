-- Arbitro storage on PostgreSQL, schema version 4: ended games, archived (the SQLite
-- schema's 0004_archives.sql; see there for what they are).
CREATE TABLE archived_games (
    id          BIGINT      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    channel_id  BIGINT      NOT NULL,
    guild_id    BIGINT,
    ruleset     TEXT        NOT NULL,
    language    TEXT        NOT NULL,
    title       TEXT        NOT NULL,
    version     INTEGER     NOT NULL CHECK (version >= 1),
    created_at  TIMESTAMPTZ NOT NULL,
    ended_at    TIMESTAMPTZ NOT NULL,
    archived_at TIMESTAMPTZ NOT NULL,
    head_hash   TEXT        NOT NULL,
    bundle      BYTEA       NOT NULL
);

CREATE INDEX archived_games_by_guild ON archived_games (guild_id, id);

CREATE FUNCTION archived_games_frozen() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'archives are never changed';
END;
$$;

CREATE TRIGGER archived_games_no_update BEFORE UPDATE ON archived_games
FOR EACH ROW EXECUTE FUNCTION archived_games_frozen();
