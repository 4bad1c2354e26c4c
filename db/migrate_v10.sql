-- migrate_v10.sql — bring a schema-version-9 database to version 10.
--
-- Run by sp_store_open, inside the schema transaction, when PRAGMA
-- user_version is 9 (after the earlier migrations for older files).
-- schema.sql runs afterwards and sets user_version = 10.
--
-- Version 10: whether a GPU run's samples were queued behind the blocking
-- kernel (issue 19, `blocking = on`, runner/exec/harness.h). Runs stored
-- before were not: NULL, which the views read as 'off'.

ALTER TABLE runs ADD COLUMN blocking TEXT
    CHECK (blocking IS NULL OR blocking IN ('off', 'on', 'timeout'));
ALTER TABLE run_rounds ADD COLUMN blocking TEXT
    CHECK (blocking IS NULL OR blocking IN ('off', 'on', 'timeout'));
