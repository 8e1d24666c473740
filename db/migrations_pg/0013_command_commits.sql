-- Arbitro storage, schema version 13: SQLite's commit in one statement (a view and its
-- trigger, db/migrations/0013_command_commits.sql) has no counterpart here: PostgreSQL's
-- driver sends a commit's statements in one round trip already. A no-op statement, so both
-- backends count the same versions.
SELECT 1;
