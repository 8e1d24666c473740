"""Where the bot's features keep their data: each feature's typed records and its
operations on the store's generic ones (`db.protocol.GameStore.feature_*`).

The store knows no feature: a module here names its feature, chooses each record's scope
(a game's, which goes with the game; a guild's) and key, and turns its typed records into
JSON and back. `table` reads what a command needs in the command's one snapshot.

* `deadlines`: a side's deadline, the warning claimed before it, the game's pace;
* `seats`: sides bound to Discord roles (the members themselves are the game's, kept by
  the store: exports and replays need them);
* `roles`: the role a member needs to create a game in a guild;
* `dice`: a command waiting for its roller's next die.
"""
