-- Arbitro storage, schema version 12: a secret salt per record, hashed into each of its
-- states (docs/storage.md, "The hash chain"; docs/integrity.md, "A seat's export"). A
-- record created from now on gets 32 random bytes in hex; the records already stored keep
-- NULL, hence the unsalted recipe their chains were written with.
ALTER TABLE games ADD COLUMN state_salt TEXT;
