-- Placeholder on the integrity branch for another helper's migration number 4 (the lead
-- deletes this file when merging that helper's real 0004_*.sql). A no-op statement.
SELECT 1;
