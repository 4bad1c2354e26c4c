-- migrate_v2.sql — bring a schema-version-1 database to version 2.
--
-- Run by sp_store_open, inside the schema transaction, only when
-- PRAGMA user_version = 1, with foreign keys switched off (so that dropping
-- the old runs table does not cascade into samples) and every view dropped
-- (a view naming runs would block the rename). schema.sql runs afterwards:
-- it adds the new tables and indexes and sets user_version = 2.
--
-- SQLite cannot alter a CHECK constraint, so runs is rebuilt: a new table
-- with the widened status CHECK and the new columns, every row copied with
-- its id (samples refer to it), the old table dropped, the new one renamed.

ALTER TABLE sweeps ADD COLUMN plan_hash TEXT;
ALTER TABLE sweeps ADD COLUMN binary_hash TEXT;
ALTER TABLE sweeps ADD COLUMN shard_index INTEGER;
ALTER TABLE sweeps ADD COLUMN shard_count INTEGER;
ALTER TABLE sweeps ADD COLUMN timeout_s REAL;
ALTER TABLE sweeps ADD COLUMN repetitions_auto INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sweeps ADD COLUMN max_noise REAL;
ALTER TABLE sweeps ADD COLUMN max_time_s REAL;
ALTER TABLE sweeps ADD COLUMN git_dirty INTEGER;
ALTER TABLE sweeps ADD COLUMN os TEXT;
ALTER TABLE sweeps ADD COLUMN kernel_release TEXT;
ALTER TABLE sweeps ADD COLUMN cpu_sockets INTEGER;
ALTER TABLE sweeps ADD COLUMN cpu_cores INTEGER;
ALTER TABLE sweeps ADD COLUMN cpu_threads INTEGER;
ALTER TABLE sweeps ADD COLUMN mem_total_gib REAL;
ALTER TABLE sweeps ADD COLUMN gpu_sm_count INTEGER;
ALTER TABLE sweeps ADD COLUMN gpu_mem_gib REAL;
ALTER TABLE sweeps ADD COLUMN gpu_clock_mhz INTEGER;
ALTER TABLE sweeps ADD COLUMN gpu_mem_clock_mhz INTEGER;
ALTER TABLE sweeps ADD COLUMN host_triad_gbs REAL;
ALTER TABLE sweeps ADD COLUMN host_triad_threads INTEGER;
ALTER TABLE sweeps ADD COLUMN device_copy_gbs REAL;

CREATE TABLE runs_v2 (
    id           INTEGER PRIMARY KEY,
    sweep_id     INTEGER NOT NULL REFERENCES sweeps(id) ON DELETE CASCADE,
    matrix_id    INTEGER NOT NULL REFERENCES matrices(id),
    kernel       TEXT NOT NULL,
    operation    TEXT NOT NULL,
    format       TEXT,
    backend      TEXT,
    device       TEXT NOT NULL DEFAULT 'cpu' CHECK (device IN ('cpu', 'gpu')),
    axes         TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(axes)),
    status       TEXT NOT NULL CHECK (status IN ('ok', 'failed', 'skipped', 'error',
                                                 'crashed', 'timeout')),
    error        TEXT,
    rel_error    REAL,
    flops        REAL,
    bytes        REAL,
    convert_s    REAL,
    h2d_s        REAL,
    d2h_s        REAL,
    warmup       INTEGER,
    repetitions  INTEGER,
    created_at   TEXT NOT NULL,
    stop_reason  TEXT CHECK (stop_reason IN ('count', 'noise', 'time')),
    rate_unit    TEXT,
    need_host_bytes    INTEGER,
    need_device_bytes  INTEGER
);

-- Version-1 runs were all fixed-count spmv runs: their samples stopped at
-- the count, their rate is GFLOPS.
INSERT INTO runs_v2 (id, sweep_id, matrix_id, kernel, operation, format, backend, device,
                     axes, status, error, rel_error, flops, bytes, convert_s, h2d_s, d2h_s,
                     warmup, repetitions, created_at, stop_reason, rate_unit)
SELECT id, sweep_id, matrix_id, kernel, operation, format, backend, device,
       axes, status, error, rel_error, flops, bytes, convert_s, h2d_s, d2h_s,
       warmup, repetitions, created_at,
       CASE WHEN status = 'ok' THEN 'count' END,
       CASE WHEN operation = 'spmv' THEN 'GFLOPS' END
FROM runs;

DROP TABLE runs;
ALTER TABLE runs_v2 RENAME TO runs;
