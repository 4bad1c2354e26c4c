-- migrate_v6.sql — bring a schema-version-5 database to version 6.
--
-- Run by sp_store_open, inside the schema transaction, when PRAGMA
-- user_version is 5 (after the earlier migrations for older files).
-- schema.sql runs afterwards and sets user_version = 6.
--
-- Version 6: the sweep names the outside libraries its binary ran with
-- (issue 23: librsb's version, Intel MKL's version and threading layer).
-- Older sweeps did not record them: NULL.

ALTER TABLE sweeps ADD COLUMN libraries TEXT;
