-- views.sql — summaries of the spsweep results database.
--
-- Dropped and re-created at every sp_store_open (in the same transaction as
-- schema.sql), so a newer definition replaces an older one. Plain SQL for
-- the sqlite3 CLI (3.40+: window functions, sqrt, json_extract), e.g.
--   sqlite3 results/results.db 'SELECT * FROM best_runs'
-- Times are in seconds, rates in units of 1e9 per second.

DROP VIEW IF EXISTS run_failures;
DROP VIEW IF EXISTS best_runs;
DROP VIEW IF EXISTS speedup;
DROP VIEW IF EXISTS run_stats;

-- One row per 'ok' run: statistics of its samples and the rates they give.
-- median is exact: the middle sample, or the mean of the two middle ones.
-- stddev is the sample standard deviation (n - 1), 0 for a single sample.
CREATE VIEW run_stats AS
WITH ranked AS (
    SELECT run_id, seconds,
           ROW_NUMBER() OVER (PARTITION BY run_id ORDER BY seconds, rep) AS k,
           COUNT(*) OVER (PARTITION BY run_id) AS n,
           AVG(seconds) OVER (PARTITION BY run_id) AS mean
    FROM samples
),
stats AS (
    SELECT run_id,
           MAX(n) AS n,
           AVG(CASE WHEN k IN ((n + 1) / 2, (n + 2) / 2) THEN seconds END) AS median,
           MAX(mean) AS mean,
           MIN(seconds) AS min,
           MAX(seconds) AS max,
           CASE WHEN MAX(n) > 1
                THEN sqrt(SUM((seconds - mean) * (seconds - mean)) / (MAX(n) - 1))
                ELSE 0.0 END AS stddev
    FROM ranked
    GROUP BY run_id
)
SELECT r.id AS run_id, r.sweep_id, r.matrix_id, m.name AS matrix,
       r.kernel, r.operation, r.format, r.backend, r.device, r.axes,
       json_extract(r.axes, '$.threads') AS threads,
       json_extract(r.axes, '$.blocksize') AS blocksize,
       s.n, s.median, s.mean, s.min, s.max, s.stddev,
       r.flops / s.median / 1e9 AS gflops,
       r.flops / s.min / 1e9 AS gflops_best,
       r.bytes / s.median / 1e9 AS gbps,
       r.flops, r.bytes, r.rel_error
FROM runs r
JOIN matrices m ON m.id = r.matrix_id
JOIN stats s ON s.run_id = r.id
WHERE r.status = 'ok';

-- Every ok run against its baseline: the fastest (by median) run of
-- spmv_csr_serial in the same sweep, on the same matrix and operation.
-- The baseline columns are NULL where there is no such run.
CREATE VIEW speedup AS
WITH baseline AS (
    SELECT sweep_id, matrix_id, operation, kernel, MIN(median) AS median
    FROM run_stats
    WHERE kernel = 'spmv_csr_serial'
    GROUP BY sweep_id, matrix_id, operation
)
SELECT r.run_id, r.sweep_id, r.matrix_id, r.matrix, r.operation, r.kernel,
       r.axes, r.median,
       b.kernel AS baseline_kernel,
       b.median AS baseline_median,
       b.median / r.median AS speedup
FROM run_stats r
LEFT JOIN baseline b
       ON b.sweep_id = r.sweep_id AND b.matrix_id = r.matrix_id
      AND b.operation = r.operation;

-- Per sweep, matrix and operation: the kernel and axis values with the
-- smallest median (ties: the earlier run).
CREATE VIEW best_runs AS
SELECT sweep_id, matrix_id, matrix, size_class, nnz, operation, run_id,
       kernel, axes, median, gflops, gbps, baseline_median, speedup
FROM (
    SELECT r.sweep_id, r.matrix_id, r.matrix, m.size_class, m.nnz, r.operation,
           r.run_id, r.kernel, r.axes, r.median, r.gflops, r.gbps,
           sp.baseline_median, sp.speedup,
           ROW_NUMBER() OVER (PARTITION BY r.sweep_id, r.matrix_id, r.operation
                              ORDER BY r.median, r.run_id) AS place
    FROM run_stats r
    JOIN matrices m ON m.id = r.matrix_id
    JOIN speedup sp ON sp.run_id = r.run_id
)
WHERE place = 1;

-- Runs that did not produce a measurement, with the reason.
CREATE VIEW run_failures AS
SELECT r.id AS run_id, r.sweep_id, r.matrix_id, m.name AS matrix,
       r.kernel, r.operation, r.axes, r.status, r.error
FROM runs r
JOIN matrices m ON m.id = r.matrix_id
WHERE r.status <> 'ok';
