-- Placeholder on the integrity branch for another helper's migration number 5 (the lead
-- deletes this file when merging that helper's real 0005_*.sql). A no-op statement.
SELECT 1;
