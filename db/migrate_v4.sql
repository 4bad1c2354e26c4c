-- migrate_v4.sql — bring a schema-version-3 database to version 4.
--
-- Run by sp_store_open, inside the schema transaction, when PRAGMA
-- user_version is 3 (after the earlier migrations for older files).
-- It creates run_rounds itself (one round 0 per stored run); schema.sql
-- runs afterwards and sets user_version = 4; store.c then
-- computes the new statistics columns of every ok run from its samples
-- (db/stats.c), so old runs get the same definitions as new ones. Old runs
-- were one launch a sample, warm, one round: batch 1, cache 'warm',
-- rounds 1, every sample round 0.

ALTER TABLE sweeps ADD COLUMN rounds INTEGER;
ALTER TABLE sweeps ADD COLUMN seed INTEGER;
ALTER TABLE sweeps ADD COLUMN cache TEXT;
ALTER TABLE sweeps ADD COLUMN batch INTEGER;
ALTER TABLE sweeps ADD COLUMN min_sample_s REAL;
ALTER TABLE sweeps ADD COLUMN noisy_threshold REAL;

ALTER TABLE runs ADD COLUMN batch INTEGER;
ALTER TABLE runs ADD COLUMN cache TEXT;
ALTER TABLE runs ADD COLUMN rounds INTEGER;
ALTER TABLE runs ADD COLUMN median REAL;
ALTER TABLE runs ADD COLUMN mean REAL;
ALTER TABLE runs ADD COLUMN min_s REAL;
ALTER TABLE runs ADD COLUMN max_s REAL;
ALTER TABLE runs ADD COLUMN stddev REAL;
ALTER TABLE runs ADD COLUMN ci_lo REAL;
ALTER TABLE runs ADD COLUMN ci_hi REAL;
ALTER TABLE runs ADD COLUMN ci_level REAL;
ALTER TABLE runs ADD COLUMN ci_method TEXT;
ALTER TABLE runs ADD COLUMN mad REAL;
ALTER TABLE runs ADD COLUMN outliers INTEGER;
ALTER TABLE runs ADD COLUMN flags INTEGER;
ALTER TABLE runs ADD COLUMN flagged_samples INTEGER;
ALTER TABLE runs ADD COLUMN joules_per_launch REAL;

ALTER TABLE samples ADD COLUMN round INTEGER NOT NULL DEFAULT 0;
ALTER TABLE samples ADD COLUMN flags INTEGER NOT NULL DEFAULT 0;

UPDATE runs SET batch = 1, cache = 'warm', rounds = 1 WHERE status = 'ok';
UPDATE sweeps SET rounds = 1, cache = 'warm', batch = 1;

-- every stored run was one round: round 0, after schema.sql made the table
CREATE TABLE run_rounds (
    run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    round       INTEGER NOT NULL,
    status      TEXT NOT NULL,
    error       TEXT,
    batch       INTEGER,
    launches    INTEGER,
    flags       INTEGER,
    energy_j    REAL,
    energy_launches INTEGER,
    state_before TEXT CHECK (state_before IS NULL OR json_valid(state_before)),
    state_after  TEXT CHECK (state_after IS NULL OR json_valid(state_after)),
    created_at  TEXT NOT NULL,
    PRIMARY KEY (run_id, round)
) WITHOUT ROWID;
INSERT INTO run_rounds (run_id, round, status, error, batch, launches, created_at)
SELECT id, 0, status, error, CASE WHEN status = 'ok' THEN 1 END,
       CASE WHEN status = 'ok' THEN repetitions END, created_at
FROM runs;
