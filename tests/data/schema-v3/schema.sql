-- schema.sql — the spsweep results database, schema version 3.
--
-- Applied by sp_store_open at every open (every statement is idempotent),
-- inside one transaction, after db/migrate_v2.sql has brought a version-1
-- database up to version 2 and db/migrate_v3.sql a version-2 one up to 3
-- (see store.c: store_apply_schema). Readable with
-- the plain sqlite3 CLI; the views that summarise it live in views.sql.
--
-- One sweep has many runs; a run is one (matrix, kernel, axis values)
-- combination; an 'ok' run has one sample per timed repetition.
-- Timestamps are ISO-8601 UTC text ("2025-01-31T12:00:00.000Z").
--
-- Version 2 (over 1): run statuses 'crashed' and 'timeout'; runs.stop_reason,
-- rate_unit, need_host_bytes, need_device_bytes; table matrix_failures;
-- sweeps: resume identity (plan_hash, binary_hash, shard), timeout and
-- auto-repetition settings, host / GPU provenance and measured ceilings.
-- Version 3 (over 2): sweeps.isolate, the process model the runs had.

CREATE TABLE IF NOT EXISTS sweeps (
    id            INTEGER PRIMARY KEY,
    config_path   TEXT,
    config_text   TEXT,
    config_hash   TEXT,                 -- XXH3-64 of config_text, 16 hex digits
    git_commit    TEXT,                 -- "abc123def456" or "abc123def456-dirty"
    started_at    TEXT NOT NULL,
    finished_at   TEXT,
    status        TEXT NOT NULL DEFAULT 'running'
                  CHECK (status IN ('running', 'done', 'failed', 'interrupted')),
    host          TEXT,
    cpu           TEXT,
    cpu_count     INTEGER,
    gpu           TEXT,
    gpu_driver    TEXT,
    cuda_runtime  TEXT,
    compiler      TEXT,
    cflags        TEXT,
    omp_binding   TEXT,
    repetitions   INTEGER,              -- fixed count, or the minimum when auto
    warmup        INTEGER,
    -- version 2 ------------------------------------------------------------
    plan_hash          TEXT,            -- XXH3-64 of the whole plan and its settings
    binary_hash        TEXT,            -- XXH3-64 of the spsweep executable
    shard_index        INTEGER,         -- i of --shard i/N (1-based), NULL: no shard
    shard_count        INTEGER,
    timeout_s          REAL,            -- per combination
    repetitions_auto   INTEGER NOT NULL DEFAULT 0,   -- 1: repetitions = auto
    max_noise          REAL,            -- auto: CI half-width / median target
    max_time_s         REAL,            -- auto: time budget per combination
    git_dirty          INTEGER,         -- 1 when the tree had uncommitted changes
    os                 TEXT,            -- PRETTY_NAME of /etc/os-release
    kernel_release     TEXT,            -- uname -sr
    cpu_sockets        INTEGER,
    cpu_cores          INTEGER,         -- physical cores, all sockets
    cpu_threads        INTEGER,         -- hardware threads (logical CPUs)
    mem_total_gib      REAL,
    gpu_sm_count       INTEGER,
    gpu_mem_gib        REAL,
    gpu_clock_mhz      INTEGER,
    gpu_mem_clock_mhz  INTEGER,
    host_triad_gbs     REAL,            -- STREAM triad, OpenMP, host_triad_threads
    host_triad_threads INTEGER,
    device_copy_gbs    REAL,            -- device-to-device cudaMemcpy; NULL without GPU
    -- version 3 ------------------------------------------------------------
    isolate            TEXT             -- 'combination': a process per run; 'matrix': one
                                        -- worker per matrix runs them in turn (keeping its
                                        -- CUDA context); 'auto': matrix for GPU kernels,
                                        -- combination for CPU ones. NULL: before version 3
                                        -- (a process per run)
);

CREATE TABLE IF NOT EXISTS matrices (
    id                INTEGER PRIMARY KEY,
    source            TEXT NOT NULL,    -- normalised source string
    name              TEXT NOT NULL,    -- short readable name
    rows              INTEGER NOT NULL,
    cols              INTEGER NOT NULL,
    nnz               INTEGER NOT NULL,
    row_min           INTEGER,
    row_max           INTEGER,
    row_mean          REAL,
    row_std           REAL,
    empty_rows        INTEGER,
    bandwidth         INTEGER,
    pattern_symmetry  REAL,
    size_class        TEXT,
    checksum          TEXT NOT NULL CHECK (length(checksum) = 16),  -- sp_csr_checksum, hex
    UNIQUE (source, checksum)
);

CREATE TABLE IF NOT EXISTS runs (
    id           INTEGER PRIMARY KEY,
    sweep_id     INTEGER NOT NULL REFERENCES sweeps(id) ON DELETE CASCADE,
    matrix_id    INTEGER NOT NULL REFERENCES matrices(id),
    kernel       TEXT NOT NULL,
    operation    TEXT NOT NULL,
    format       TEXT,
    backend      TEXT,
    device       TEXT NOT NULL DEFAULT 'cpu' CHECK (device IN ('cpu', 'gpu')),
    axes         TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(axes)),  -- {"threads":4}
    status       TEXT NOT NULL CHECK (status IN ('ok', 'failed', 'skipped', 'error',
                                                 'crashed', 'timeout')),
    error        TEXT,                  -- NULL when ok
    rel_error    REAL,                  -- NULL when not checked
    flops        REAL,                  -- work units of one repetition (see rate_unit)
    bytes        REAL,                  -- fewest bytes one repetition must move
    convert_s    REAL,                  -- phases; the kernel phase is the samples
    h2d_s        REAL,
    d2h_s        REAL,
    warmup       INTEGER,
    repetitions  INTEGER,               -- samples stored for this run
    created_at   TEXT NOT NULL,
    -- version 2 ------------------------------------------------------------
    stop_reason  TEXT CHECK (stop_reason IN ('count', 'noise', 'time')),  -- ok runs
    rate_unit    TEXT,                  -- the operation's: "GFLOPS", "Mnnz/s", ...
    need_host_bytes    INTEGER,         -- what kernel->need stated
    need_device_bytes  INTEGER
);

CREATE TABLE IF NOT EXISTS samples (
    run_id   INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    rep      INTEGER NOT NULL,          -- 0-based timed repetition
    seconds  REAL NOT NULL CHECK (seconds > 0 AND seconds < 1e300),
    PRIMARY KEY (run_id, rep)
) WITHOUT ROWID;

-- Matrices a sweep could not load (or fetch): no run exists for them.
CREATE TABLE IF NOT EXISTS matrix_failures (
    id          INTEGER PRIMARY KEY,
    sweep_id    INTEGER NOT NULL REFERENCES sweeps(id) ON DELETE CASCADE,
    source      TEXT NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('skipped', 'error')),
    reason      TEXT,
    created_at  TEXT NOT NULL
);

-- The views group runs by sweep, matrix, operation and kernel, and look up
-- a run's matrix and samples; resume looks up (sweep, matrix, kernel, axes).
CREATE INDEX IF NOT EXISTS runs_by_sweep
    ON runs(sweep_id, matrix_id, operation, kernel);
CREATE INDEX IF NOT EXISTS runs_by_matrix ON runs(matrix_id);
CREATE INDEX IF NOT EXISTS runs_by_status ON runs(status, sweep_id);
CREATE INDEX IF NOT EXISTS sweeps_by_plan ON sweeps(plan_hash, binary_hash);
CREATE INDEX IF NOT EXISTS matrix_failures_by_sweep ON matrix_failures(sweep_id);

PRAGMA user_version = 3;
