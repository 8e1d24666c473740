-- Arbitro storage on PostgreSQL, schema version 7: Discord roles at the table (the SQLite
-- schema's 0007_roles.sql; see there).
CREATE TABLE guild_settings (
    guild_id         BIGINT PRIMARY KEY,
    creator_role_id  BIGINT
);

CREATE TABLE side_roles (
    channel_id  BIGINT NOT NULL REFERENCES games (channel_id),
    side        TEXT   NOT NULL,
    role_id     BIGINT NOT NULL,
    PRIMARY KEY (channel_id, side)
);
