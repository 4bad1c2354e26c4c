-- migrate_v8.sql — bring a schema-version-7 database to version 8.
--
-- Run by sp_store_open, inside the schema transaction, when PRAGMA
-- user_version is 7 (after the earlier migrations for older files).
-- schema.sql runs afterwards and sets user_version = 8.
--
-- Version 8: the steps of a launch (issue 20: ScanTrans's histogram,
-- vertical scan, prefix sum and write back), timed by the harness where a
-- sweep sets `steps = 1` and the kernel marks them (sp_exec_mark): per
-- round, the median of each step over the samples, a JSON object. Older
-- sweeps did not time steps: NULL. The view run_steps reads them.

ALTER TABLE run_rounds ADD COLUMN steps TEXT CHECK (steps IS NULL OR json_valid(steps));
