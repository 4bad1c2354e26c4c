-- schema.sql — the spsweep results database, schema version 10.
--
-- Applied by sp_store_open at every open (every statement is idempotent),
-- inside one transaction, after db/migrate_v2.sql has brought a version-1
-- database up to version 2 and db/migrate_v3.sql a version-2 one up to 3
-- (see store.c: store_apply_schema), db/migrate_v4.sql a version-3
-- one up to 4, db/migrate_v5.sql a version-4 one up to 5 and
-- db/migrate_v6.sql a version-5 one up to 6. Readable with
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
-- Version 4 (over 3): the harness's measurement (issue 19): batches,
-- cold/warm caches, rounds, machine state and flags; every ok run's
-- statistics stored in its row by db/stats.c (the views only read them).
-- Version 5 (over 4): the harness times every phase, release too (free_s);
-- each round keeps its phases and the run's are their median; the GPU
-- energy is measured in windows (energy_windows) that give
-- joules_per_launch a 95 % interval (joules_lo, joules_hi); a kernel may
-- store facts about what it built (kernel_info, JSON).
-- Version 6 (over 5): sweeps.libraries, the outside libraries the binary
-- ran with (librsb's version; Intel MKL's version and threading layer).
-- Version 7 (over 6): the cache roofs: sweeps.device_l2_gbs and
-- device_l2_bytes, host_cache_gbs and host_cache_bytes.
-- Version 8 (over 7): run_rounds.steps, the steps a launch marked.
-- Version 9 (over 8): the matrices' layout and locality features (ndiags,
-- ell_fill, sell_fill_8, sell_fill_32, top1_share, col_gap, x_line_new)
-- and the advice table (`kernels = advised:K`, `spsweep advise`).
-- Version 10 (over 9): runs.blocking and run_rounds.blocking, whether a
-- GPU run's samples were queued behind the blocking kernel (`blocking =
-- on`, runner/exec/harness.h): 'on' when every sample's launches were
-- queued behind it (the GPU's time alone, not the host's issue rate),
-- 'timeout' when that was asked for but a launch waited for the device and
-- the samples were taken without it, 'off' otherwise (every CPU run); NULL
-- for a run stored before version 10 (read as 'off') or one not ok.

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
    isolate            TEXT,            -- 'combination': a process per run; 'matrix': one
                                        -- worker per matrix runs them in turn (keeping its
                                        -- CUDA context); 'auto': matrix for GPU kernels,
                                        -- combination for CPU ones. NULL: before version 3
                                        -- (a process per run)
    -- version 4 ------------------------------------------------------------
    rounds             INTEGER,         -- times the plan was executed, each shuffled
    seed               INTEGER,         -- of the shuffles
    cache              TEXT,            -- 'warm' | 'cold' (caches flushed before a sample)
    batch              INTEGER,         -- launches per sample; 0: auto (min_sample_s)
    min_sample_s       REAL,            -- auto batches: the shortest sample (NULL: defaults)
    noisy_threshold    REAL,            -- interval half-width / median that marks a run noisy
    -- version 6 ------------------------------------------------------------
    -- libraries: "librsb 1.3.0.2; MKL 2026.2-Product Build 20260915; threading gnu"
    -- (runner/exec/provenance.c). No comma in a comment near the last columns: SQLite
    -- 3.40 takes one for the column list's when a migration test drops them
    libraries          TEXT,
    -- version 7 ------------------------------------------------------------
    device_l2_gbs      REAL,            -- reads of half the L2 kept in L2 (NULL: no GPU)
    device_l2_bytes    INTEGER,         -- the L2 size of the device
    host_cache_gbs     REAL,            -- STREAM triad in half the last-level cache
    -- the size of the host last-level cache (sysconf):
    host_cache_bytes   INTEGER
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
    -- version 9 (fetch/features_layout.c; NULL: stored before version 9)
    ndiags            INTEGER,          -- distinct diagonals j - i
    ell_fill          REAL,             -- rows * row_max / nnz
    sell_fill_8       REAL,             -- sliced ELLPACK fill, slices of 8 rows
    sell_fill_32      REAL,             -- the same, slices of 32 rows
    top1_share        REAL,             -- nonzeros in the longest 1 % of rows / nnz
    col_gap           REAL,             -- mean gap of consecutive columns in a row
    x_line_new        REAL,             -- entries on another x cache line than the last
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
    convert_s    REAL,                  -- phases, timed by the harness (the median
    h2d_s        REAL,                  -- round's from version 5); the kernel
    d2h_s        REAL,                  -- phase is the samples
    warmup       INTEGER,
    repetitions  INTEGER,               -- samples stored for this run
    created_at   TEXT NOT NULL,
    -- version 2 ------------------------------------------------------------
    stop_reason  TEXT CHECK (stop_reason IN ('count', 'noise', 'time')),  -- ok runs
    rate_unit    TEXT,                  -- the operation's: "GFLOPS", "Mnnz/s", ...
    need_host_bytes    INTEGER,         -- what kernel->need stated
    need_device_bytes  INTEGER,
    -- version 4 ------------------------------------------------------------
    batch        INTEGER,               -- launches timed as one sample (the samples
                                        -- hold the time of one launch)
    cache        TEXT,                  -- 'warm' | 'cold'
    rounds       INTEGER,               -- rounds that stored samples
    -- the samples' statistics (db/stats.c; NULL unless ok; their count is
    -- `repetitions`)
    median       REAL,
    mean         REAL,
    min_s        REAL,
    max_s        REAL,
    stddev       REAL,
    ci_lo        REAL,                  -- 95 % interval of the median
    ci_hi        REAL,
    ci_level     REAL,
    ci_method    TEXT,                  -- 'order' | 'rounds' (widened by round medians)
    mad          REAL,
    outliers     INTEGER,
    -- the machine around the run (runner/exec/machine.h)
    flags        INTEGER,               -- SP_MACHINE_* bits seen in any round
    flagged_samples INTEGER,            -- samples taken while throttled or busy
    joules_per_launch REAL,             -- GPU energy of one launch (NVML energy window,
                                        -- `energy = 0.25s`), over all rounds
    -- version 5 ------------------------------------------------------------
    free_s       REAL,                  -- the release phase (host and device frees)
    joules_lo    REAL,                  -- 95 % interval of the energy per launch
    joules_hi    REAL,                  -- (t interval over its windows; NULL for one)
    -- the kernel's facts about what it built (sp_kernel.info: librsb's
    -- flags, tuning)
    kernel_info  TEXT CHECK (kernel_info IS NULL OR json_valid(kernel_info)),
    -- version 10: the blocking kernel (see the head of this file; no comma
    -- or quote in this comment: SQLite 3.40 DROP COLUMN misreads them)
    blocking     TEXT CHECK (blocking IS NULL OR blocking IN ('off', 'on', 'timeout'))
);

CREATE TABLE IF NOT EXISTS samples (
    run_id   INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    rep      INTEGER NOT NULL,          -- 0-based timed repetition, counted on across rounds
    seconds  REAL NOT NULL CHECK (seconds > 0 AND seconds < 1e300),  -- one launch
    round    INTEGER NOT NULL DEFAULT 0,    -- version 4: the round it was taken in
    flags    INTEGER NOT NULL DEFAULT 0,    -- version 4: SP_MACHINE_* bits at the time
    PRIMARY KEY (run_id, rep)
) WITHOUT ROWID;

-- Version 4: every execution of a run, one row per round (`rounds = R`
-- executes the plan R times): what the round ended as, and the machine
-- around it. A run's samples carry their round; the run's status is 'ok'
-- only while every round so far was. Resume skips the (run, round) pairs
-- stored here.
CREATE TABLE IF NOT EXISTS run_rounds (
    run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    round       INTEGER NOT NULL,
    status      TEXT NOT NULL,          -- as runs.status
    error       TEXT,
    batch       INTEGER,                -- launches per sample in this round
    launches    INTEGER,                -- timed launches (samples x batch)
    flags       INTEGER,                -- SP_MACHINE_* bits (runner/exec/machine.h)
    energy_j    REAL,                   -- GPU energy of the energy window (NVML)
    energy_launches INTEGER,            -- launches in that window
    state_before TEXT CHECK (state_before IS NULL OR json_valid(state_before)),
    state_after  TEXT CHECK (state_after IS NULL OR json_valid(state_after)),
    created_at  TEXT NOT NULL,
    -- version 5: the round's phases, timed by the harness (seconds)
    convert_s   REAL,                   -- prepare (host conversion) + analyse
    h2d_s       REAL,                   -- upload: device allocation + copies
    d2h_s       REAL,                   -- the result's device->host copy
    free_s      REAL,                   -- release
    kernel_info TEXT CHECK (kernel_info IS NULL OR json_valid(kernel_info)),  -- this round's
    -- version 8: `steps = 1`: the median over the round's samples of each
    -- step the kernel marked (sp_exec_mark), seconds, as a JSON object in
    -- the order marked ({"histogram":1.2e-05,"vertical_scan":...}); NULL
    -- when steps were not timed or the kernel marks none. View: run_steps.
    steps       TEXT CHECK (steps IS NULL OR json_valid(steps)),
    -- version 10: runs.blocking of this round alone
    blocking    TEXT CHECK (blocking IS NULL OR blocking IN ('off', 'on', 'timeout')),
    PRIMARY KEY (run_id, round)
) WITHOUT ROWID;

-- Version 5: the GPU energy windows of each round (`energy = 0.25s`,
-- `energy_windows = 3`): back-to-back launches between two readings of
-- NVML's energy counter. run_rounds.energy_j is their sum; the run's
-- joules_per_launch is all windows' energy over all their launches, and
-- its interval the t interval of the windows' joules per launch.
CREATE TABLE IF NOT EXISTS energy_windows (
    run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    round       INTEGER NOT NULL,
    window_no   INTEGER NOT NULL,       -- 0-based, in the order measured
    energy_j    REAL NOT NULL,          -- GPU energy over the window (NVML)
    launches    INTEGER NOT NULL CHECK (launches > 0),
    PRIMARY KEY (run_id, round, window_no)
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

-- Version 9: what `kernels = advised:K` chose for each matrix of a sweep
-- (runner/advise_plan.c), before running it: the K configurations in the
-- order advised, with the rate expected and its interval (the neighbours'
-- range). The view advice_outcome holds it against what was measured.
CREATE TABLE IF NOT EXISTS advice (
    sweep_id      INTEGER NOT NULL REFERENCES sweeps(id) ON DELETE CASCADE,
    source        TEXT NOT NULL,        -- the matrix's normalised source
    rank          INTEGER NOT NULL CHECK (rank >= 1),   -- 1: advised first
    kernel        TEXT NOT NULL,
    axes          TEXT NOT NULL CHECK (json_valid(axes)),
    expected_rate REAL,
    rate_lo       REAL,
    rate_hi       REAL,
    neighbours    TEXT,                 -- the measured matrices it rests on
    PRIMARY KEY (sweep_id, source, rank)
) WITHOUT ROWID;

-- The views group runs by sweep, matrix, operation and kernel, and look up
-- a run's matrix and samples; resume looks up (sweep, matrix, kernel, axes).
CREATE INDEX IF NOT EXISTS runs_by_sweep
    ON runs(sweep_id, matrix_id, operation, kernel);
CREATE INDEX IF NOT EXISTS runs_by_matrix ON runs(matrix_id);
CREATE INDEX IF NOT EXISTS runs_by_status ON runs(status, sweep_id);
CREATE INDEX IF NOT EXISTS sweeps_by_plan ON sweeps(plan_hash, binary_hash);
CREATE INDEX IF NOT EXISTS matrix_failures_by_sweep ON matrix_failures(sweep_id);

PRAGMA user_version = 10;
