-- Arbitro storage, schema version 7: Discord roles at the table.
-- Who may create a game on a server: members with this role (NULL: anyone), set by the
-- server's managers.
CREATE TABLE guild_settings (
    guild_id         INTEGER PRIMARY KEY,
    creator_role_id  INTEGER
);

-- A side bound to a Discord role: any member with the role plays that side (beside the
-- players seated one by one). Deleted and archived with its game.
CREATE TABLE side_roles (
    channel_id  INTEGER NOT NULL REFERENCES games (channel_id),
    side        TEXT    NOT NULL,
    role_id     INTEGER NOT NULL,
    PRIMARY KEY (channel_id, side)
);
