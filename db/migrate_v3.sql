-- migrate_v3.sql — bring a schema-version-2 database to version 3.
--
-- Run by sp_store_open, inside the schema transaction, when PRAGMA
-- user_version is 1 (after migrate_v2.sql) or 2. schema.sql runs afterwards
-- and sets user_version = 3. Old sweeps keep isolate NULL: every run of
-- theirs had a process of its own.

ALTER TABLE sweeps ADD COLUMN isolate TEXT;
