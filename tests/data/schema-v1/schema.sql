-- schema.sql — the spsweep results database, schema version 1.
--
-- Applied by sp_store_open at every open (every statement is idempotent),
-- inside one transaction. Readable with the plain sqlite3 CLI; the views
-- that summarise it live in views.sql.
--
-- One sweep has many runs; a run is one (matrix, kernel, axis values)
-- combination; an 'ok' run has one sample per timed repetition.
-- Timestamps are ISO-8601 UTC text ("2025-01-31T12:00:00.000Z").

CREATE TABLE IF NOT EXISTS sweeps (
    id            INTEGER PRIMARY KEY,
    config_path   TEXT,
    config_text   TEXT,
    config_hash   TEXT,                 -- XXH3-64 of config_text, 16 hex digits
    git_commit    TEXT,
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
    repetitions   INTEGER,
    warmup        INTEGER
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
    status       TEXT NOT NULL CHECK (status IN ('ok', 'failed', 'skipped', 'error')),
    error        TEXT,                  -- NULL when ok
    rel_error    REAL,                  -- NULL when not checked
    flops        REAL,                  -- useful work of one repetition
    bytes        REAL,                  -- fewest bytes one repetition must move
    convert_s    REAL,
    h2d_s        REAL,
    d2h_s        REAL,
    warmup       INTEGER,
    repetitions  INTEGER,               -- samples stored for this run
    created_at   TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS samples (
    run_id   INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    rep      INTEGER NOT NULL,          -- 0-based timed repetition
    seconds  REAL NOT NULL CHECK (seconds > 0 AND seconds < 1e300),
    PRIMARY KEY (run_id, rep)
) WITHOUT ROWID;

-- The views group runs by sweep, matrix, operation and kernel, and look up
-- a run's matrix and samples.
CREATE INDEX IF NOT EXISTS runs_by_sweep
    ON runs(sweep_id, matrix_id, operation, kernel);
CREATE INDEX IF NOT EXISTS runs_by_matrix ON runs(matrix_id);
CREATE INDEX IF NOT EXISTS runs_by_status ON runs(status, sweep_id);

PRAGMA user_version = 1;
