-- Arbitro storage, schema version 13: a command's commit on the head this process keeps
-- verified, in one statement (docs/storage.md, "A commit in one statement").
--
-- `db.core.games.append_on_expected_head` writes the game row, the new state, the event,
-- its patch and (when due) the drop of the previous whole document: five statements, each
-- a trip to aiosqlite's thread and back with a BEGIN and a COMMIT around them. Inserted
-- into this view, one row makes them all in the same order, with the same guard, in the
-- statement's own transaction: one trip. The guard is the first write: the game row
-- advances only from the version it was at, while no other connection has committed
-- (the change counter) and the interaction is not stored; otherwise the whole statement
-- is undone and the store commits as usual, which says what happened.
--
-- The view's columns are the five statements' parameters in order (`_COMMIT_IN_ONE`), so
-- the trigger's statements are the very ones the five-statement commit sends.
CREATE VIEW command_commits AS SELECT
    NULL AS g_version, NULL AS g_status, NULL AS g_updated_at, NULL AS g_channel_id,
    NULL AS g_expected_version, NULL AS g_counter, NULL AS g_interaction_id,
    NULL AS s_channel_id, NULL AS s_version, NULL AS s_status, NULL AS s_document,
    NULL AS e_channel_id, NULL AS e_seq, NULL AS e_interaction_id, NULL AS e_actor_id,
    NULL AS e_verb, NULL AS e_args, NULL AS e_dice, NULL AS e_resolution,
    NULL AS e_state_version, NULL AS e_state_hash, NULL AS e_undoes_seq,
    NULL AS e_created_at, NULL AS e_prev_hash, NULL AS e_hash,
    NULL AS p_channel_id, NULL AS p_version, NULL AS p_status, NULL AS p_patch,
    NULL AS p_snapshot, NULL AS p_run_bytes,
    NULL AS d_channel_id, NULL AS d_version;

CREATE TRIGGER command_commits_insert INSTEAD OF INSERT ON command_commits
BEGIN
    UPDATE games SET version = NEW.g_version, status = NEW.g_status,
        updated_at = NEW.g_updated_at
    WHERE channel_id = NEW.g_channel_id AND version = NEW.g_expected_version
        AND (SELECT data_version FROM pragma_data_version()) = NEW.g_counter
        AND NOT EXISTS (SELECT 1 FROM events WHERE interaction_id = NEW.g_interaction_id);
    SELECT RAISE(ABORT, 'arbitro: not the expected head') WHERE changes() = 0;
    INSERT INTO states (channel_id, version, status, document)
    VALUES (NEW.s_channel_id, NEW.s_version, NEW.s_status, NEW.s_document);
    INSERT INTO events (channel_id, seq, interaction_id, actor_id, verb, args, dice,
        resolution, state_version, state_hash, undoes_seq, created_at, prev_hash, hash)
    VALUES (NEW.e_channel_id, NEW.e_seq, NEW.e_interaction_id, NEW.e_actor_id, NEW.e_verb,
        NEW.e_args, NEW.e_dice, NEW.e_resolution, NEW.e_state_version, NEW.e_state_hash,
        NEW.e_undoes_seq, NEW.e_created_at, NEW.e_prev_hash, NEW.e_hash);
    INSERT INTO patches (channel_id, version, status, patch, snapshot, run_bytes)
    VALUES (NEW.p_channel_id, NEW.p_version, NEW.p_status, NEW.p_patch, NEW.p_snapshot,
        NEW.p_run_bytes);
    DELETE FROM states WHERE channel_id = NEW.d_channel_id AND version = NEW.d_version;
END;
