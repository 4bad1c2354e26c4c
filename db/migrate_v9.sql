-- migrate_v9.sql — bring a schema-version-8 database to version 9.
--
-- Run by sp_store_open, inside the schema transaction, when PRAGMA
-- user_version is 8 (after the earlier migrations for older files).
-- schema.sql runs afterwards and sets user_version = 9.
--
-- Version 9: the features that predict which kernel wins (issue 25,
-- `spsweep advise`; fetch/features_layout.c): distinct diagonals, ELLPACK
-- and sliced-ELLPACK fill, the longest 1 % of rows' share of the
-- nonzeros, column locality. Matrices stored before were not measured for
-- them: NULL (advise leaves such matrices out; a new sweep of the same
-- source and checksum fills them in, store_run.c). The advice table is
-- created by schema.sql (CREATE TABLE IF NOT EXISTS).

ALTER TABLE matrices ADD COLUMN ndiags INTEGER;
ALTER TABLE matrices ADD COLUMN ell_fill REAL;
ALTER TABLE matrices ADD COLUMN sell_fill_8 REAL;
ALTER TABLE matrices ADD COLUMN sell_fill_32 REAL;
ALTER TABLE matrices ADD COLUMN top1_share REAL;
ALTER TABLE matrices ADD COLUMN col_gap REAL;
ALTER TABLE matrices ADD COLUMN x_line_new REAL;
