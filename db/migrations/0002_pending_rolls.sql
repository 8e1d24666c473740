-- Arbitro storage, schema version 2: rolls a player still owes to a command.
-- A command given with physical dice that needs one more die is not committed: the service
-- keeps it here and asks its roller for the next face (a button per face in Discord, a
-- prompt at the console). Kept in the file so a prompt survives a restart of the bot.
-- One prompt per player and channel: a new one replaces the old (its buttons then expire).
-- AUTOINCREMENT: an id is never reused, so an old button can never answer a newer prompt.
CREATE TABLE pending_rolls (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    channel_id  INTEGER NOT NULL REFERENCES games (channel_id),
    user_id     INTEGER NOT NULL,
    version     INTEGER NOT NULL CHECK (version >= 1),  -- the game's version when asked
    verb        TEXT    NOT NULL,
    options     TEXT    NOT NULL,  -- JSON object: the command's options
    faces       TEXT    NOT NULL,  -- JSON list: the faces the roller gave so far
    bot_faces   TEXT    NOT NULL,  -- JSON list: the bot's faces, replayed on the re-run
    die_sides   INTEGER NOT NULL CHECK (die_sides >= 2),
    label       TEXT    NOT NULL,  -- what the die is for
    side        TEXT,              -- the roller's side (NULL: the referee)
    created_at  TEXT    NOT NULL,
    UNIQUE (channel_id, user_id)
);
