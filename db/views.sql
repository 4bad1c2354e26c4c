-- views.sql — summaries of the spsweep results database.
--
-- Dropped and re-created at every sp_store_open (in the same transaction as
-- schema.sql), so a newer definition replaces an older one. Plain SQL for
-- the sqlite3 CLI (3.40+: window functions, recursive CTEs, the math
-- functions sqrt/ln/exp, json_extract), e.g.
--   sqlite3 results/results.db 'SELECT * FROM best_runs'
-- Times are in seconds.
--
-- Rates. A run's `flops` is its operation's work-unit count for one
-- repetition (2·nnz for spmv) and `rate_unit` names the rate those units
-- give ("GFLOPS", "Mnnz/s", "Mkeys/s"): rate = flops / seconds / scale,
-- where scale comes from the unit's first letter (T 1e12, G 1e9, M 1e6,
-- K/k 1e3, else 1; a NULL unit — version-1 rows of another operation —
-- counts as G). For GFLOPS that is exactly flops / seconds / 1e9.
-- gbps = bytes / seconds / 1e9 (the operation's byte model).

DROP VIEW IF EXISTS failures;
DROP VIEW IF EXISTS run_modes;
DROP VIEW IF EXISTS run_failures;
DROP VIEW IF EXISTS best_runs;
DROP VIEW IF EXISTS speedup;
DROP VIEW IF EXISTS run_stats;

-- One row per 'ok' run: statistics of its samples and the rates they give.
--
-- median   the middle sample (n odd) or the mean of the two middle ones
--          (n even), samples ranked by (seconds, rep).
-- stddev   sample standard deviation (divisor n - 1); 0 for n = 1.
-- ci_lo, ci_hi, ci_level — a distribution-free 95 % confidence interval of
--          the median from order statistics. With B ~ Binomial(n, 1/2),
--          [x_(l), x_(n+1-l)] (1-based ranks of the sorted samples) holds
--          the true median with probability 1 - 2·P(B <= l - 1). l is the
--          largest rank with P(B <= l - 1) <= 0.025, computed exactly (the
--          pmf by the recurrence p(k+1) = p(k)·(n-k)/(k+1) in log space);
--          ci_level is the coverage that l achieves (>= 0.95). For n <= 5
--          even l = 1 covers less than 95 % (2·0.5^5 = 0.0625 > 0.05): the
--          three columns are NULL. Examples: n = 6 → l = 1, level 0.96875;
--          n = 10 → l = 2 (ranks 2 and 9), level 0.978515625; n = 20 → 6, 15.
-- mad      median absolute deviation from the median (the median of
--          |x_i - median|, same rule as the median), not rescaled.
-- outliers samples whose modified z-score 0.6745·|x_i - median| / mad
--          exceeds 3.5 (Iglewicz and Hoaglin). When mad = 0 (more than half
--          the samples equal the median) the score of any sample off the
--          median is infinite: each such sample counts as an outlier, the
--          ones equal to the median do not.
-- kernel_s, with_transfers_s, end_to_end_s — the three timing modes:
--          the median sample; plus h2d_s + d2h_s; plus convert_s as well
--          (NULL phases count as 0).
CREATE VIEW run_stats AS
WITH RECURSIVE
ranked AS (
    SELECT run_id, rep, seconds,
           ROW_NUMBER() OVER (PARTITION BY run_id ORDER BY seconds, rep) AS k,
           COUNT(*) OVER (PARTITION BY run_id) AS n
    FROM samples
),
center AS (
    SELECT run_id, MAX(n) AS n,
           AVG(CASE WHEN k IN ((n + 1) / 2, (n + 2) / 2) THEN seconds END) AS median,
           AVG(seconds) AS mean, MIN(seconds) AS min, MAX(seconds) AS max
    FROM ranked
    GROUP BY run_id
),
deviation AS (
    SELECT r.run_id, r.n, r.k, r.seconds, c.mean, abs(r.seconds - c.median) AS d,
           ROW_NUMBER() OVER (PARTITION BY r.run_id
                              ORDER BY abs(r.seconds - c.median), r.k) AS j
    FROM ranked r
    JOIN center c ON c.run_id = r.run_id
),
spread AS (
    SELECT run_id,
           AVG(CASE WHEN j IN ((n + 1) / 2, (n + 2) / 2) THEN d END) AS mad,
           CASE WHEN MAX(n) > 1
                THEN sqrt(SUM((seconds - mean) * (seconds - mean)) / (MAX(n) - 1))
                ELSE 0.0 END AS stddev
    FROM deviation
    GROUP BY run_id
),
outlying AS (
    SELECT d.run_id,
           SUM(CASE WHEN s.mad > 0 THEN 0.6745 * d.d / s.mad > 3.5
                    ELSE d.d > 0 END) AS outliers
    FROM deviation d
    JOIN spread s ON s.run_id = d.run_id
    GROUP BY d.run_id
),
binomial (n, k, lp, cdf) AS (          -- P(B <= k) while it stays <= 0.025
    SELECT n, 0, n * ln(0.5), exp(n * ln(0.5)) FROM (SELECT DISTINCT n FROM center)
    UNION ALL
    SELECT n, k + 1, lp + ln(n - k) - ln(k + 1), cdf + exp(lp + ln(n - k) - ln(k + 1))
    FROM binomial
    WHERE cdf <= 0.025 AND k + 1 < n
),
ci_rank AS (
    SELECT n, MAX(k) + 1 AS l, 1.0 - 2.0 * MAX(cdf) AS level
    FROM binomial
    WHERE cdf <= 0.025
    GROUP BY n
),
interval AS (
    SELECT r.run_id, c.level,
           MAX(CASE WHEN r.k = c.l THEN r.seconds END) AS ci_lo,
           MAX(CASE WHEN r.k = r.n + 1 - c.l THEN r.seconds END) AS ci_hi
    FROM ranked r
    JOIN ci_rank c ON c.n = r.n
    GROUP BY r.run_id
),
scaled AS (
    SELECT id,
           CASE upper(substr(coalesce(rate_unit, 'G'), 1, 1))
                WHEN 'T' THEN 1e12 WHEN 'G' THEN 1e9 WHEN 'M' THEN 1e6
                WHEN 'K' THEN 1e3 ELSE 1.0 END AS rate_scale,
           coalesce(convert_s, 0) AS c_s, coalesce(h2d_s, 0) + coalesce(d2h_s, 0) AS t_s
    FROM runs
    WHERE status = 'ok'
)
SELECT r.id AS run_id, r.sweep_id, r.matrix_id, m.name AS matrix,
       r.kernel, r.operation, r.format, r.backend, r.device, r.axes,
       json_extract(r.axes, '$.threads') AS threads,
       json_extract(r.axes, '$.blocksize') AS blocksize,
       c.n, c.median, c.mean, c.min, c.max, s.stddev,
       i.ci_lo, i.ci_hi, i.level AS ci_level, s.mad, o.outliers,
       coalesce(r.rate_unit, 'GFLOPS') AS rate_unit, x.rate_scale,
       r.flops / c.median / x.rate_scale AS rate,
       r.flops / c.min / x.rate_scale AS rate_best,
       CASE WHEN coalesce(r.rate_unit, 'GFLOPS') = 'GFLOPS'
            THEN r.flops / c.median / 1e9 END AS gflops,
       CASE WHEN coalesce(r.rate_unit, 'GFLOPS') = 'GFLOPS'
            THEN r.flops / c.min / 1e9 END AS gflops_best,
       r.bytes / c.median / 1e9 AS gbps,
       r.flops, r.bytes, r.rel_error, r.stop_reason,
       r.convert_s, r.h2d_s, r.d2h_s,
       c.median AS kernel_s,
       c.median + x.t_s AS with_transfers_s,
       c.median + x.t_s + x.c_s AS end_to_end_s
FROM runs r
JOIN scaled x ON x.id = r.id
JOIN matrices m ON m.id = r.matrix_id
JOIN center c ON c.run_id = r.id
JOIN spread s ON s.run_id = r.id
JOIN outlying o ON o.run_id = r.id
LEFT JOIN interval i ON i.run_id = r.id;

-- The three timing modes of every ok run as rows (mode 'kernel',
-- 'transfers', 'end_to_end'), each with its time and the rate it gives.
CREATE VIEW run_modes AS
SELECT run_id, sweep_id, matrix_id, matrix, kernel, operation, axes, device,
       'kernel' AS mode, kernel_s AS seconds, flops / kernel_s / rate_scale AS rate,
       rate_unit
FROM run_stats
UNION ALL
SELECT run_id, sweep_id, matrix_id, matrix, kernel, operation, axes, device,
       'transfers', with_transfers_s, flops / with_transfers_s / rate_scale, rate_unit
FROM run_stats
UNION ALL
SELECT run_id, sweep_id, matrix_id, matrix, kernel, operation, axes, device,
       'end_to_end', end_to_end_s, flops / end_to_end_s / rate_scale, rate_unit
FROM run_stats;

-- Every ok run against two baselines in the same sweep, on the same matrix
-- and operation (the fastest by median; ties: the earlier run):
--   baseline  a kernel whose backend is 'serial' (spmv_csr_serial for spmv);
--   vendor    a vendor library's kernel (backend 'cusparse', 'librsb', 'cub').
-- speedup = baseline median / this run's median; vendor_speedup likewise.
-- The columns of a baseline are NULL where the sweep has no such run.
CREATE VIEW speedup AS
WITH baseline AS (
    SELECT sweep_id, matrix_id, operation, kernel, median,
           ROW_NUMBER() OVER (PARTITION BY sweep_id, matrix_id, operation
                              ORDER BY median, run_id) AS place
    FROM run_stats
    WHERE backend = 'serial'
),
vendor AS (
    SELECT sweep_id, matrix_id, operation, kernel, median,
           ROW_NUMBER() OVER (PARTITION BY sweep_id, matrix_id, operation
                              ORDER BY median, run_id) AS place
    FROM run_stats
    WHERE backend IN ('cusparse', 'librsb', 'cub')
)
SELECT r.run_id, r.sweep_id, r.matrix_id, r.matrix, r.operation, r.kernel,
       r.axes, r.median,
       b.kernel AS baseline_kernel,
       b.median AS baseline_median,
       b.median / r.median AS speedup,
       v.kernel AS vendor_kernel,
       v.median AS vendor_median,
       v.median / r.median AS vendor_speedup
FROM run_stats r
LEFT JOIN baseline b
       ON b.sweep_id = r.sweep_id AND b.matrix_id = r.matrix_id
      AND b.operation = r.operation AND b.place = 1
LEFT JOIN vendor v
       ON v.sweep_id = r.sweep_id AND v.matrix_id = r.matrix_id
      AND v.operation = r.operation AND v.place = 1;

-- Per sweep, matrix and operation: the kernel and axis values with the
-- smallest median (ties: the earlier run).
CREATE VIEW best_runs AS
SELECT sweep_id, matrix_id, matrix, size_class, nnz, operation, run_id,
       kernel, axes, median, rate, rate_unit, gflops, gbps, baseline_median, speedup,
       vendor_kernel, vendor_speedup
FROM (
    SELECT r.sweep_id, r.matrix_id, r.matrix, m.size_class, m.nnz, r.operation,
           r.run_id, r.kernel, r.axes, r.median, r.rate, r.rate_unit, r.gflops, r.gbps,
           sp.baseline_median, sp.speedup, sp.vendor_kernel, sp.vendor_speedup,
           ROW_NUMBER() OVER (PARTITION BY r.sweep_id, r.matrix_id, r.operation
                              ORDER BY r.median, r.run_id) AS place
    FROM run_stats r
    JOIN matrices m ON m.id = r.matrix_id
    JOIN speedup sp ON sp.run_id = r.run_id
)
WHERE place = 1;

-- Runs that did not produce a measurement, with the reason: 'failed'
-- (wrong result), 'error', 'skipped' (no GPU, not enough memory, ...),
-- 'crashed' (signal or exit status, and what the child said), 'timeout'.
CREATE VIEW run_failures AS
SELECT r.id AS run_id, r.sweep_id, r.matrix_id, m.name AS matrix,
       r.kernel, r.operation, r.axes, r.status, r.error
FROM runs r
JOIN matrices m ON m.id = r.matrix_id
WHERE r.status <> 'ok';

-- Everything a sweep could not measure: failed runs and matrices that
-- could not be loaded or fetched (kernel and axes NULL for those).
CREATE VIEW failures AS
SELECT sweep_id, 'run' AS what, matrix, kernel, axes, status, error AS reason
FROM run_failures
UNION ALL
SELECT sweep_id, 'matrix', source, NULL, NULL, status, reason
FROM matrix_failures;
