-- migrate_v5.sql — bring a schema-version-4 database to version 5.
--
-- Run by sp_store_open, inside the schema transaction, when PRAGMA
-- user_version is 4 (after the earlier migrations for older files, so a
-- version-3 file arrives here with migrate_v4.sql's run_rounds).
-- schema.sql runs afterwards and sets user_version = 5; store.c then folds
-- every run's rounds again (db/store_run.c), so the phases and the energy
-- interval of old runs follow the same definitions as new ones.
--
-- Version 5: the harness times every phase (issue 19). Each round keeps
-- its own phases, the run's are their median, and `release` is timed too
-- (free_s). The GPU energy of a round is measured in several windows
-- (energy_windows), which give joules_per_launch an interval. A
-- version-4 run kept the phases of its first round only: they become that
-- round's; its one energy window per round becomes window 0.

ALTER TABLE runs ADD COLUMN free_s REAL;
ALTER TABLE runs ADD COLUMN joules_lo REAL;
ALTER TABLE runs ADD COLUMN joules_hi REAL;
ALTER TABLE runs ADD COLUMN kernel_info TEXT
    CHECK (kernel_info IS NULL OR json_valid(kernel_info));

ALTER TABLE run_rounds ADD COLUMN convert_s REAL;
ALTER TABLE run_rounds ADD COLUMN h2d_s REAL;
ALTER TABLE run_rounds ADD COLUMN d2h_s REAL;
ALTER TABLE run_rounds ADD COLUMN free_s REAL;
ALTER TABLE run_rounds ADD COLUMN kernel_info TEXT
    CHECK (kernel_info IS NULL OR json_valid(kernel_info));

UPDATE run_rounds SET
    convert_s = (SELECT convert_s FROM runs WHERE runs.id = run_rounds.run_id),
    h2d_s = (SELECT h2d_s FROM runs WHERE runs.id = run_rounds.run_id),
    d2h_s = (SELECT d2h_s FROM runs WHERE runs.id = run_rounds.run_id)
WHERE round = (SELECT MIN(round) FROM run_rounds r2 WHERE r2.run_id = run_rounds.run_id);

-- as in schema.sql, made here so the old windows can move in
CREATE TABLE energy_windows (
    run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    round       INTEGER NOT NULL,
    window_no   INTEGER NOT NULL,       -- 0-based, in the order measured
    energy_j    REAL NOT NULL,          -- GPU energy over the window (NVML)
    launches    INTEGER NOT NULL CHECK (launches > 0),
    PRIMARY KEY (run_id, round, window_no)
) WITHOUT ROWID;
INSERT INTO energy_windows (run_id, round, window_no, energy_j, launches)
SELECT run_id, round, 0, energy_j, energy_launches FROM run_rounds
WHERE energy_j IS NOT NULL AND energy_launches > 0;
