-- migrate_v7.sql — bring a schema-version-6 database to version 7.
--
-- Run by sp_store_open, inside the schema transaction, when PRAGMA
-- user_version is 6 (after the earlier migrations for older files).
-- schema.sql runs afterwards and sets user_version = 7.
--
-- Version 7: the cache roofs of the roofline (issue 21): the device's L2
-- read bandwidth and size, the host's triad in its last-level cache and
-- that cache's size. Older sweeps did not measure them: NULL.

ALTER TABLE sweeps ADD COLUMN device_l2_gbs REAL;
ALTER TABLE sweeps ADD COLUMN device_l2_bytes INTEGER;
ALTER TABLE sweeps ADD COLUMN host_cache_gbs REAL;
ALTER TABLE sweeps ADD COLUMN host_cache_bytes INTEGER;
