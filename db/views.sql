-- views.sql — summaries of the spsweep results database.
--
-- Dropped and re-created at every sp_store_open (in the same transaction as
-- schema.sql), so a newer definition replaces an older one. Plain SQL for
-- the sqlite3 CLI (3.40+: window functions, json_extract), e.g.
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

DROP VIEW IF EXISTS advice_outcome;
DROP VIEW IF EXISTS advise_rates;
DROP VIEW IF EXISTS advise_features;
DROP VIEW IF EXISTS own_vs_vendor_geomean;
DROP VIEW IF EXISTS own_vs_each_vendor_geomean;
DROP VIEW IF EXISTS own_vs_vendor;
DROP VIEW IF EXISTS own_vs_each_vendor;
DROP VIEW IF EXISTS run_counts;
DROP VIEW IF EXISTS run_steps;
DROP VIEW IF EXISTS geomean_speedup;
DROP VIEW IF EXISTS roofline;
DROP VIEW IF EXISTS series_best_runs;
DROP VIEW IF EXISTS failures;
DROP VIEW IF EXISTS run_modes;
DROP VIEW IF EXISTS run_failures;
DROP VIEW IF EXISTS best_runs;
DROP VIEW IF EXISTS speedup;
DROP VIEW IF EXISTS vendor_runs;
DROP VIEW IF EXISTS sweep_roofs;
DROP VIEW IF EXISTS baselines;
DROP VIEW IF EXISTS run_stats;
DROP VIEW IF EXISTS rate_scales;

-- The divisor a rate unit's first letter stands for (upper-cased: 'k' is
-- 'K'); any other letter divides by 1. The one table of it: run_stats
-- reads it, and so does the sweep's progress line (runner/exec/sweep_combo.c).
CREATE VIEW rate_scales AS
SELECT 'T' AS prefix, 1e12 AS scale
UNION ALL SELECT 'G', 1e9
UNION ALL SELECT 'M', 1e6
UNION ALL SELECT 'K', 1e3;

-- One row per 'ok' run: statistics of its samples and the rates they give.
--
-- The statistics are the run's own columns, computed once by db/stats.c
-- when the run (or a later round of it) was stored, and read here:
-- median   the middle sample (n odd) or the mean of the two middle ones.
-- stddev   sample standard deviation (divisor n - 1); 0 for n = 1.
-- ci_lo, ci_hi, ci_level, ci_method — the 95 % interval of the median.
--          'order': distribution-free, from order statistics: with B ~
--          Binomial(n, 1/2), [x_(l), x_(n+1-l)] holds the median with
--          probability 1 - 2·P(B <= l - 1); l the largest rank keeping that
--          >= 0.95 (n = 6 → l = 1, level 0.96875; n = 10 → 2, 0.978515625;
--          n = 20 → 6). NULL for n <= 5. 'rounds': with 3 or more rounds,
--          that interval widened to the t interval of the round medians
--          (mean ± t(0.975, R-1)·sd / sqrt(R)), so it covers the drift a
--          re-run sees.
-- noise    the interval's half-width relative to the median.
-- noisy    1 when there is no interval or noise exceeds the sweep's
--          noisy_threshold (default 0.05): its rate and every ratio built
--          on it are not to be trusted at face value.
-- mad      median absolute deviation from the median (not rescaled);
-- outliers samples with modified z-score 0.6745·|x - median| / mad > 3.5
--          (every sample off the median when mad = 0).
-- rate, rate_lo, rate_hi — the rate at the median and at the interval's
--          ends (rate_lo from ci_hi); rate_best from the fastest sample.
-- batch    launches per sample (the samples are one launch's time);
-- cache    'warm' | 'cold'; rounds, flags (runner/exec/machine.h bits),
--          flagged_samples; joules_per_launch and rate_per_watt (GPU, NVML)
--          with their 95 % intervals over the energy windows (joules_lo,
--          joules_hi; rate_per_watt_lo from joules_hi; NULL with one window).
-- convert_s, h2d_s, d2h_s, free_s — the phases the harness timed (the
--          median round's): prepare + analyse, upload, the result's
--          download, release.
-- precision — the run's `precision` axis, 'double' where it has none (the
--          one place the views read it); memory likewise, the `memory`
--          axis, 'device' where it has none; variant, what a series name
--          adds for them: '' at double on device memory, else " (single)",
--          " (managed)" or " (single, managed)".
-- kernel_info — the kernel's JSON facts about what it built (librsb's
--          matrix flags and tuner's verdict), NULL when it says none.
-- kernel_s, with_transfers_s, end_to_end_s — the three timing modes:
--          the median sample; plus h2d_s + d2h_s; plus convert_s and
--          free_s as well (NULL phases count as 0).
CREATE VIEW run_stats AS
WITH scaled AS (
    SELECT r.id,
           coalesce((SELECT u.scale FROM rate_scales u
                     WHERE u.prefix = upper(substr(coalesce(r.rate_unit, 'G'), 1, 1))), 1.0)
               AS rate_scale,
           coalesce(r.convert_s, 0) + coalesce(r.free_s, 0) AS c_s,
           coalesce(r.h2d_s, 0) + coalesce(r.d2h_s, 0) AS t_s,
           coalesce(s.noisy_threshold, 0.05) AS threshold
    FROM runs r
    JOIN sweeps s ON s.id = r.sweep_id
    WHERE r.status = 'ok' AND r.median > 0
)
SELECT r.id AS run_id, r.sweep_id, r.matrix_id, m.name AS matrix,
       r.kernel, r.operation, r.format, r.backend, r.device, r.axes,
       json_extract(r.axes, '$.threads') AS threads,
       json_extract(r.axes, '$.blocksize') AS blocksize,
       coalesce(json_extract(r.axes, '$.precision'), 'double') AS precision,
       coalesce(json_extract(r.axes, '$.memory'), 'device') AS memory,
       CASE WHEN coalesce(json_extract(r.axes, '$.precision'), 'double') = 'double'
                 AND coalesce(json_extract(r.axes, '$.memory'), 'device') = 'device' THEN ''
            ELSE ' (' || trim(
                     coalesce(nullif(coalesce(json_extract(r.axes, '$.precision'), 'double'),
                                     'double'), '') || ', ' ||
                     coalesce(nullif(coalesce(json_extract(r.axes, '$.memory'), 'device'),
                                     'device'), ''), ', ') || ')'
       END AS variant,
       r.repetitions AS n, r.median, r.mean, r.min_s AS min, r.max_s AS max, r.stddev,
       r.ci_lo, r.ci_hi, r.ci_level, r.ci_method,
       (r.ci_hi - r.ci_lo) / 2 / r.median AS noise,
       CASE WHEN r.ci_lo IS NULL OR (r.ci_hi - r.ci_lo) / 2 / r.median > x.threshold
            THEN 1 ELSE 0 END AS noisy,
       r.mad, r.outliers,
       coalesce(r.rate_unit, 'GFLOPS') AS rate_unit, x.rate_scale,
       r.flops / r.median / x.rate_scale AS rate,
       r.flops / r.ci_hi / x.rate_scale AS rate_lo,
       r.flops / r.ci_lo / x.rate_scale AS rate_hi,
       r.flops / r.min_s / x.rate_scale AS rate_best,
       CASE WHEN coalesce(r.rate_unit, 'GFLOPS') = 'GFLOPS'
            THEN r.flops / r.median / 1e9 END AS gflops,
       CASE WHEN coalesce(r.rate_unit, 'GFLOPS') = 'GFLOPS'
            THEN r.flops / r.min_s / 1e9 END AS gflops_best,
       r.bytes / r.median / 1e9 AS gbps,
       r.flops, r.bytes, r.rel_error, r.stop_reason,
       coalesce(r.batch, 1) AS batch, coalesce(r.cache, 'warm') AS cache,
       coalesce(r.blocking, 'off') AS blocking,
       coalesce(r.rounds, 1) AS rounds, coalesce(r.flags, 0) AS flags,
       coalesce(r.flagged_samples, 0) AS flagged_samples, r.joules_per_launch,
       r.flops / r.joules_per_launch / x.rate_scale AS rate_per_watt,
       r.joules_lo, r.joules_hi,
       r.flops / r.joules_hi / x.rate_scale AS rate_per_watt_lo,
       r.flops / r.joules_lo / x.rate_scale AS rate_per_watt_hi,
       r.convert_s, r.h2d_s, r.d2h_s, r.free_s, r.kernel_info,
       -- the GPU a GPU run ran on, by PCI bus id, as its first round's
       -- machine state names it (a sweep over several GPUs, `--gpus`,
       -- merges the shards' runs into one sweep; NULL on the CPU)
       (SELECT json_extract(rr.state_before, '$.bus') FROM run_rounds rr
        WHERE rr.run_id = r.id ORDER BY rr.round LIMIT 1) AS gpu_bus,
       r.median AS kernel_s,
       r.median + x.t_s AS with_transfers_s,
       r.median + x.t_s + x.c_s AS end_to_end_s
FROM runs r
JOIN scaled x ON x.id = r.id
JOIN matrices m ON m.id = r.matrix_id;

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

-- The steps of every ok run that timed them (`steps = 1`, schema version 8):
-- one row per step the kernel marked (sp_exec_mark), in the order marked
-- (position, from 1). median_s is the median over the run's rounds of each
-- round's median (run_rounds.steps; the one round's with rounds = 1);
-- share = median_s / kernel_s, the step's part of the run's median
-- launch (each sample's steps add up to it, so on a quiet machine the
-- shares of a run sum to about 1; medians need not add up where samples
-- lose their time in different steps). rounds: how many rounds timed it.
CREATE VIEW run_steps AS
WITH per_round AS (
    SELECT rr.run_id, rr.round, j.key AS step, j.value AS seconds, j.id AS node
    FROM run_rounds rr, json_each(rr.steps) j
    WHERE rr.status = 'ok' AND rr.steps IS NOT NULL AND json_valid(rr.steps)
), ordered AS (
    SELECT run_id, step, seconds,
           row_number() OVER (PARTITION BY run_id, round ORDER BY node) AS position
    FROM per_round
), ranked AS (
    SELECT run_id, step, seconds,
           min(position) OVER (PARTITION BY run_id, step) AS position,
           row_number() OVER (PARTITION BY run_id, step ORDER BY seconds) AS k,
           count(*) OVER (PARTITION BY run_id, step) AS n
    FROM ordered
), medians AS (
    SELECT run_id, step, min(position) AS position, max(n) AS rounds,
           avg(seconds) AS median_s
    FROM ranked
    WHERE k IN ((n + 1) / 2, (n + 2) / 2)
    GROUP BY run_id, step
)
SELECT s.run_id, s.sweep_id, s.matrix_id, s.matrix, s.kernel, s.operation, s.axes,
       s.device, s.cache, m.step, m.position, m.rounds, m.median_s, s.kernel_s,
       m.median_s / s.kernel_s AS share
FROM medians m
JOIN run_stats s ON s.run_id = m.run_id;

-- The baselines of each sweep and operation: one kernel per role, the same
-- on every matrix (a ratio "vs serial" whose kernel changed from matrix to
-- matrix would compare unlike things without saying so):
--   'serial'  of the kernels whose backend is 'serial', the one with ok runs
--             on the most matrices; ties: the CSR kernel (the format every
--             matrix is read in: spmv_csr_serial), then the first name;
--   'vendor'  likewise of the vendor libraries' kernels (backend 'cusparse',
--             'librsb', 'cub', 'mkl'): spmv_csr_cusparse in a GPU sweep.
-- Only double-precision runs count (a kernel with a `precision` axis is a
-- baseline through its double runs).
-- matrices: the operation's matrices it ran on; missing: those it did not
-- (no ratio against that role there: NULL in speedup).
CREATE VIEW baselines AS
WITH candidates AS (
    SELECT sweep_id, operation, kernel, MAX(format) AS format,
           CASE WHEN MAX(backend) = 'serial' THEN 'serial' ELSE 'vendor' END AS role,
           MAX(backend) = 'cub' AS cub,
           COUNT(DISTINCT matrix_id) AS matrices
    FROM run_stats
    WHERE backend IN ('serial', 'cusparse', 'librsb', 'cub', 'mkl')
      AND precision = 'double'
    GROUP BY sweep_id, operation, kernel
),
ranked AS (
    -- CUB is the vendor of an operation only where no sparse library ran:
    -- the sort's library, but the transposition's CUB kernels are our
    -- designs on its primitives, and cuSPARSE is their vendor
    SELECT c.*, ROW_NUMBER() OVER (PARTITION BY c.sweep_id, c.operation, c.role
                                   ORDER BY c.cub, c.matrices DESC, c.format = 'csr' DESC,
                                            c.kernel) AS place
    FROM candidates c
),
op_matrices AS (
    SELECT sweep_id, operation, COUNT(DISTINCT matrix_id) AS n
    FROM run_stats GROUP BY sweep_id, operation
)
SELECT r.sweep_id, r.operation, r.role, r.kernel, r.matrices, o.n - r.matrices AS missing
FROM ranked r
JOIN op_matrices o ON o.sweep_id = r.sweep_id AND o.operation = r.operation
WHERE r.place = 1;

-- The vendor libraries' runs, the one definition: every ok run of a
-- cuSPARSE, librsb or MKL kernel, and of a CUB kernel where none of those
-- ran for the operation in the sweep (CUB is the sort's library, but the
-- transposition's CUB kernels are our designs on its primitives, and
-- cuSPARSE is their vendor). The speedup view's strongest vendor and
-- own_vs_vendor read it.
CREATE VIEW vendor_runs AS
SELECT r.*
FROM run_stats r
WHERE r.backend IN ('cusparse', 'librsb', 'mkl')
   OR (r.backend = 'cub' AND NOT EXISTS (
           SELECT 1 FROM runs o
           WHERE o.sweep_id = r.sweep_id AND o.operation = r.operation AND o.status = 'ok'
             AND o.backend IN ('cusparse', 'librsb', 'mkl')));

-- The measured roofs of each sweep, a row per device ('cpu', 'gpu'): the
-- memory roof (roof_gbs: the host STREAM triad at host_triad_threads for
-- the CPU, the device-to-device copy for the GPU; NULL where not measured)
-- and the cache roof (cache_roof_gbs over cache_bytes: the triad in half
-- the host's last-level cache, reads of half the device's L2; schema 7).
-- The roofline and own_vs_vendor read them.
CREATE VIEW sweep_roofs AS
SELECT id AS sweep_id, 'cpu' AS device, host_triad_gbs AS roof_gbs,
       'host STREAM triad' AS roof_name, host_triad_threads AS roof_threads,
       host_cache_gbs AS cache_roof_gbs, 'host triad in the last-level cache' AS cache_roof_name,
       host_cache_bytes AS cache_bytes
FROM sweeps
UNION ALL
SELECT id, 'gpu', device_copy_gbs, 'device copy', NULL, device_l2_gbs, 'device L2 reads',
       device_l2_bytes
FROM sweeps;

-- Every ok run against the two baselines of its sweep and operation
-- (baselines: one kernel per role), on the same matrix, each at its best
-- axis values there (the fastest run by median; ties: the earlier run) and
-- at the run's own precision where the sweep ran the baseline in it (else
-- in double: a single-precision run against cuSPARSE in single when the
-- sweep has it, against the serial loop in double):
--   baseline  the 'serial' baseline (spmv_csr_serial for spmv);
--   vendor    the 'vendor' baseline (a vendor library's kernel).
-- speedup = baseline median / this run's median, with its interval
-- [speedup_lo, speedup_hi] = [baseline ci_lo / ci_hi, baseline ci_hi /
-- ci_lo] (both intervals at their unfavourable ends: conservative);
-- speedup_same = 1 when the two intervals overlap (a difference within
-- the noise, not a speedup). vendor_* likewise. A baseline's columns are
-- NULL where the sweep has no such run on the matrix (or no interval).
-- When a faster kernel pays for its conversion: convert_s (prepare +
-- analyse: building the format, a plan, a library's analysis) beside the
-- vendor baseline's, and vendor_payoff, the number of products after which
-- this run, conversion included, has spent no more time than the vendor
-- baseline with its own conversion: the least n >= 1 with convert_s +
-- n·median <= vendor_convert_s + n·vendor_median; NULL when this run is not
-- faster than the vendor's by median (it never pays off).
-- The strongest vendor run: best_vendor_* against the fastest run of any
-- vendor-library kernel (vendor_runs) of the operation on the matrix, on
-- this run's device and at its precision (every cuSPARSE algorithm for a
-- GPU run, librsb and MKL for a CPU run: the best of the library, not one
-- kernel of it), with the same conservative interval and overlap flag
-- (best_vendor_same). NULL where no vendor ran on the run's device.
CREATE VIEW speedup AS
WITH base AS (
    SELECT r.sweep_id, r.matrix_id, r.operation, b.role, r.kernel, r.median, r.ci_lo,
           r.ci_hi, r.convert_s,
           r.precision,
           ROW_NUMBER() OVER (PARTITION BY r.sweep_id, r.matrix_id, r.operation, b.role,
                                           r.precision
                              ORDER BY r.median, r.run_id) AS place
    FROM run_stats r
    JOIN baselines b
      ON b.sweep_id = r.sweep_id AND b.operation = r.operation AND b.kernel = r.kernel
),
-- a run's baselines are their runs at its own precision where the sweep has
-- them (spmv_csr_cusparse swept in single too), else their double runs
-- (spmv_csr_serial has no precision axis)
picked AS (
    SELECT r.run_id, x.role, x.kernel, x.median, x.ci_lo, x.ci_hi, x.convert_s,
           ROW_NUMBER() OVER (PARTITION BY r.run_id, x.role
                              ORDER BY x.precision = r.precision DESC) AS pick
    FROM run_stats r
    JOIN base x
      ON x.sweep_id = r.sweep_id AND x.matrix_id = r.matrix_id
     AND x.operation = r.operation AND x.place = 1
     AND (x.precision = 'double' OR x.precision = r.precision)
),
baseline AS (SELECT * FROM picked WHERE role = 'serial' AND pick = 1),
vendor AS (SELECT * FROM picked WHERE role = 'vendor' AND pick = 1),
strongest AS (
    SELECT v.sweep_id, v.matrix_id, v.operation, v.device, v.kernel, v.axes, v.median,
           v.ci_lo, v.ci_hi, v.precision,
           ROW_NUMBER() OVER (PARTITION BY v.sweep_id, v.matrix_id, v.operation,
                                           v.device, v.precision
                              ORDER BY v.median, v.kernel, v.axes) AS place
    FROM vendor_runs v
)
SELECT r.run_id, r.sweep_id, r.matrix_id, r.matrix, r.operation, r.kernel,
       r.axes, r.median, r.ci_lo, r.ci_hi, r.noisy,
       b.kernel AS baseline_kernel,
       b.median AS baseline_median,
       b.median / r.median AS speedup,
       b.ci_lo / r.ci_hi AS speedup_lo,
       b.ci_hi / r.ci_lo AS speedup_hi,
       CASE WHEN b.median IS NULL OR r.ci_lo IS NULL OR b.ci_lo IS NULL THEN NULL
            WHEN b.ci_lo <= r.ci_hi AND r.ci_lo <= b.ci_hi THEN 1 ELSE 0 END AS speedup_same,
       v.kernel AS vendor_kernel,
       v.median AS vendor_median,
       v.median / r.median AS vendor_speedup,
       v.ci_lo / r.ci_hi AS vendor_speedup_lo,
       v.ci_hi / r.ci_lo AS vendor_speedup_hi,
       CASE WHEN v.median IS NULL OR r.ci_lo IS NULL OR v.ci_lo IS NULL THEN NULL
            WHEN v.ci_lo <= r.ci_hi AND r.ci_lo <= v.ci_hi THEN 1 ELSE 0 END AS vendor_same,
       r.convert_s,
       v.convert_s AS vendor_convert_s,
       CASE WHEN v.median IS NULL OR r.median >= v.median THEN NULL
            ELSE (SELECT CASE WHEN d <= 1 THEN 1
                              ELSE CAST(d AS INTEGER) + (d > CAST(d AS INTEGER)) END
                  FROM (SELECT (coalesce(r.convert_s, 0) - coalesce(v.convert_s, 0)) /
                               (v.median - r.median) AS d))
       END AS vendor_payoff,
       w.kernel AS best_vendor_kernel,
       w.axes AS best_vendor_axes,
       w.median AS best_vendor_median,
       w.median / r.median AS best_vendor_speedup,
       w.ci_lo / r.ci_hi AS best_vendor_speedup_lo,
       w.ci_hi / r.ci_lo AS best_vendor_speedup_hi,
       CASE WHEN w.median IS NULL OR r.ci_lo IS NULL OR w.ci_lo IS NULL THEN NULL
            WHEN w.ci_lo <= r.ci_hi AND r.ci_lo <= w.ci_hi THEN 1 ELSE 0 END
           AS best_vendor_same
FROM run_stats r
LEFT JOIN baseline b ON b.run_id = r.run_id
LEFT JOIN vendor v ON v.run_id = r.run_id
LEFT JOIN strongest w
       ON w.sweep_id = r.sweep_id AND w.matrix_id = r.matrix_id
      AND w.operation = r.operation AND w.place = 1
      AND w.device = r.device AND w.precision = r.precision;

-- Per sweep, matrix and operation: the kernel and axis values with the
-- smallest median (ties: the earlier run), with its interval, against the
-- runner-up: the best run of any other kernel. tie = 1 when the two
-- intervals overlap: the winner is within noise of the runner-up (say
-- "tie", not "wins"); NULL without a runner-up or an interval.
CREATE VIEW best_runs AS
WITH placed AS (
    SELECT r.*, ROW_NUMBER() OVER (PARTITION BY r.sweep_id, r.matrix_id, r.operation
                                   ORDER BY r.median, r.run_id) AS place
    FROM run_stats r
),
kernel_best AS (
    SELECT r.*, ROW_NUMBER() OVER (PARTITION BY r.sweep_id, r.matrix_id, r.operation,
                                                r.kernel
                                   ORDER BY r.median, r.run_id) AS kplace
    FROM run_stats r
),
runner_up AS (
    SELECT w.run_id AS winner_id, k.kernel, k.axes, k.median, k.ci_lo, k.ci_hi,
           ROW_NUMBER() OVER (PARTITION BY w.run_id ORDER BY k.median, k.run_id) AS place
    FROM placed w
    JOIN kernel_best k
      ON k.sweep_id = w.sweep_id AND k.matrix_id = w.matrix_id
     AND k.operation = w.operation AND k.kernel <> w.kernel AND k.kplace = 1
    WHERE w.place = 1
)
SELECT w.sweep_id, w.matrix_id, w.matrix, m.size_class, m.nnz, w.operation, w.run_id,
       w.kernel, w.axes, w.median, w.ci_lo, w.ci_hi, w.noisy, w.rate, w.rate_lo, w.rate_hi,
       w.rate_unit, w.gflops, w.gbps,
       sp.baseline_median, sp.speedup, sp.speedup_lo, sp.speedup_hi,
       sp.vendor_kernel, sp.vendor_speedup, sp.vendor_speedup_lo, sp.vendor_speedup_hi,
       u.kernel AS runner_up_kernel, u.axes AS runner_up_axes, u.median AS runner_up_median,
       CASE WHEN u.median IS NULL OR w.ci_hi IS NULL OR u.ci_lo IS NULL THEN NULL
            WHEN u.ci_lo <= w.ci_hi THEN 1 ELSE 0 END AS tie
FROM placed w
JOIN matrices m ON m.id = w.matrix_id
JOIN speedup sp ON sp.run_id = w.run_id
LEFT JOIN runner_up u ON u.winner_id = w.run_id AND u.place = 1
WHERE w.place = 1;

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

-- The best run (smallest median; ties: the earlier run) of each series per
-- sweep, matrix and operation: what a chart draws for it. A series is a
-- kernel (level 'kernel', series = the kernel's name) or a family of
-- kernels (level 'family', series = format/backend, "csr/openmp": what a
-- chart with more than a handful of kernels draws, each family at the best
-- of its kernels; kernel says which). A single-precision run is a series of
-- its own: its kernel's or family's name with " (single)" (a run without a
-- precision axis, or at double, keeps the plain name); so is a run on
-- managed memory (`memory` axis, study 002): " (managed)", or
-- " (single, managed)". With the matrix's nnz, rows and nnz
-- per row; ratio, the run's median over the smallest median of any kernel
-- on that matrix and operation (1 for the fastest: the performance ratio of
-- a Dolan-More profile); and its speedups over the baselines (speedup
-- view) with their intervals. An interval end that is not positive (a time
-- interval reaching below 0) bounds nothing: NULL there, in rate_lo,
-- rate_hi and the speedups' ends.
CREATE VIEW series_best_runs AS
WITH placed AS (
    SELECT r.*,
           MIN(r.median) OVER (PARTITION BY r.sweep_id, r.matrix_id, r.operation)
               AS best_median
    FROM run_stats r
),
named AS (
    SELECT v.*, v.format || '/' || v.backend || v.variant AS family,
           v.kernel || v.variant AS kernel_series
    FROM placed v
),
levels AS (
    SELECT 'kernel' AS level, kernel_series AS series, * FROM named
    UNION ALL
    SELECT 'family', family, * FROM named
),
ranked AS (
    SELECT l.*, ROW_NUMBER() OVER (PARTITION BY l.sweep_id, l.matrix_id, l.operation,
                                                l.level, l.series
                                   ORDER BY l.median, l.run_id) AS place
    FROM levels l
)
SELECT p.level, p.series, p.run_id, p.sweep_id, p.matrix_id, p.matrix, m.nnz, m.rows,
       1.0 * m.nnz / max(m.rows, 1) AS nnz_per_row, p.operation, p.kernel, p.family,
       p.format, p.backend, p.device, p.axes, p.cache, p.n, p.median, p.ci_lo, p.ci_hi,
       p.noisy, p.rate,
       CASE WHEN p.rate_lo > 0 THEN p.rate_lo END AS rate_lo,
       CASE WHEN p.rate_hi > 0 THEN p.rate_hi END AS rate_hi,
       p.rate_unit, p.flops, p.bytes, p.gbps, p.median / p.best_median AS ratio,
       s.baseline_kernel, s.speedup,
       CASE WHEN s.speedup_lo > 0 THEN s.speedup_lo END AS speedup_lo,
       CASE WHEN s.speedup_hi > 0 THEN s.speedup_hi END AS speedup_hi,
       s.vendor_kernel, s.vendor_speedup,
       CASE WHEN s.vendor_speedup_lo > 0 THEN s.vendor_speedup_lo END AS vendor_speedup_lo,
       CASE WHEN s.vendor_speedup_hi > 0 THEN s.vendor_speedup_hi END AS vendor_speedup_hi
FROM ranked p
JOIN matrices m ON m.id = p.matrix_id
JOIN speedup s ON s.run_id = p.run_id
WHERE p.place = 1;

-- The roofline of the operations rated in GFLOPS: each series' best run
-- per matrix (series_best_runs, both levels) with its arithmetic intensity (flops per
-- byte of the operation's byte model), the bandwidth it reached (gbps) and
-- the measured roofs of its device:
--   roof_gbs        memory: the host STREAM triad (at the sweep's
--                   host_triad_threads) for 'cpu', the device-to-device copy
--                   for 'gpu' (NULL where not measured); roof_gflops =
--                   intensity x roof_gbs;
--   cache_roof_gbs  the cache: the triad on arrays in half the host's
--                   last-level cache, or reads of half the device's L2 that
--                   stay there (NULL where not measured; schema 7);
--                   cache_bytes that cache's size, cache_roof_gflops.
-- The byte model counts the fewest bytes one launch must move, so a run
-- above its memory roof (above_roof = 1, roof_ratio = gbps / roof_gbs > 1)
-- did not move them all from memory at the roof's rate. above_why says
-- why, never silently: the working set (working_set_mib, the byte model's
-- bytes) fits in the cache (fits_cache = 1) and warm launches read it
-- there; or it does not, and part of it was served from the cache between
-- launches or the run reads faster than the roof's benchmark, which writes
-- a third (triad) or half (copy) of what it moves; or it is above the
-- cache roof too (a byte model that counts more than the kernel moves).
CREATE VIEW roofline AS
WITH r AS (
    SELECT k.*, k.flops / k.bytes AS intensity, k.bytes / 1048576.0 AS working_set_mib,
           s.roof_gbs, s.roof_name, s.roof_threads, s.cache_roof_gbs, s.cache_roof_name,
           s.cache_bytes
    FROM series_best_runs k
    JOIN sweep_roofs s ON s.sweep_id = k.sweep_id AND s.device = k.device
    WHERE k.rate_unit = 'GFLOPS' AND k.bytes > 0 AND k.flops > 0
)
SELECT r.*,
       r.intensity * r.roof_gbs AS roof_gflops,
       r.gbps / r.roof_gbs AS roof_ratio,
       CASE WHEN r.roof_gbs > 0 THEN r.gbps > r.roof_gbs END AS above_roof,
       r.intensity * r.cache_roof_gbs AS cache_roof_gflops,
       CASE WHEN r.cache_bytes > 0 THEN r.bytes <= r.cache_bytes END AS fits_cache,
       CASE WHEN NOT r.roof_gbs > 0 OR r.gbps <= r.roof_gbs THEN NULL
            WHEN r.cache_roof_gbs > 0 AND r.gbps > r.cache_roof_gbs
                THEN 'above the cache roof too: the byte model counts more than it moves'
            WHEN r.cache_bytes > 0 AND r.bytes <= r.cache_bytes AND r.cache = 'warm'
                THEN 'its working set fits in the cache, where warm launches read it'
            WHEN r.cache = 'warm'
                THEN 'warm launches re-read part of it from the cache, or its reads ' ||
                     'outrun the roof''s benchmark, which also writes'
            ELSE 'its reads outrun the roof''s benchmark, which also writes'
       END AS above_why
FROM r;

-- The headline: per sweep, operation and series (a kernel or a family, at
-- its best run on each matrix: series_best_runs), the geomean over matrices of its speedup
-- over the 'serial' baseline (speedup_matrices: the matrices that have the
-- baseline; the kernel's other matrices are left out) and over the 'vendor'
-- one (vendor_matrices), each with a bound [_lo, _hi]: the geomeans of
-- the intervals' lower and upper ends, when every one of those matrices has
-- a bounded interval (else NULL). The bound is where the geomean lies when
-- each matrix's speedup lies in its own interval: conservative, not a
-- confidence interval of the geomean.
CREATE VIEW geomean_speedup AS
SELECT sweep_id, operation, level, series, MAX(family) AS family,
       MAX(device) AS device, COUNT(*) AS matrices, MAX(baseline_kernel) AS baseline_kernel,
       exp(avg(ln(speedup))) AS speedup,
       CASE WHEN COUNT(speedup) > 0 AND COUNT(speedup_lo) = COUNT(speedup)
                 AND COUNT(speedup_hi) = COUNT(speedup)
            THEN exp(avg(ln(speedup_lo))) END AS speedup_lo,
       CASE WHEN COUNT(speedup) > 0 AND COUNT(speedup_lo) = COUNT(speedup)
                 AND COUNT(speedup_hi) = COUNT(speedup)
            THEN exp(avg(ln(speedup_hi))) END AS speedup_hi,
       COUNT(speedup) AS speedup_matrices,
       MAX(vendor_kernel) AS vendor_kernel,
       exp(avg(ln(vendor_speedup))) AS vendor_speedup,
       CASE WHEN COUNT(vendor_speedup) > 0
                 AND COUNT(vendor_speedup_lo) = COUNT(vendor_speedup)
                 AND COUNT(vendor_speedup_hi) = COUNT(vendor_speedup)
            THEN exp(avg(ln(vendor_speedup_lo))) END AS vendor_speedup_lo,
       CASE WHEN COUNT(vendor_speedup) > 0
                 AND COUNT(vendor_speedup_lo) = COUNT(vendor_speedup)
                 AND COUNT(vendor_speedup_hi) = COUNT(vendor_speedup)
            THEN exp(avg(ln(vendor_speedup_hi))) END AS vendor_speedup_hi,
       COUNT(vendor_speedup) AS vendor_matrices
FROM series_best_runs
GROUP BY sweep_id, operation, level, series;

-- Run counts per sweep, by status (runs.status CHECKs the six; 'error'
-- would count any other), the matrices its runs covered, and the matrices
-- it could not load or fetch: the one count the sweep's exit status, the
-- end-of-sweep summary and the report's provenance read.
CREATE VIEW run_counts AS
SELECT s.id AS sweep_id, COUNT(r.id) AS runs,
       coalesce(SUM(r.status = 'ok'), 0) AS ok,
       coalesce(SUM(r.status = 'failed'), 0) AS failed,
       coalesce(SUM(r.status = 'skipped'), 0) AS skipped,
       coalesce(SUM(r.status NOT IN ('ok', 'failed', 'skipped', 'crashed', 'timeout')), 0)
           AS error,
       coalesce(SUM(r.status = 'crashed'), 0) AS crashed,
       coalesce(SUM(r.status = 'timeout'), 0) AS timeout,
       COUNT(DISTINCT r.matrix_id) AS matrices,
       (SELECT COUNT(*) FROM matrix_failures f WHERE f.sweep_id = s.id) AS matrix_failures
FROM sweeps s
LEFT JOIN runs r ON r.sweep_id = s.id
GROUP BY s.id;

-- Ours against each vendor library, per sweep, operation, device,
-- precision, matrix and vendor backend (cusparse, cub, librsb, mkl): the
-- best own run (the fastest by median of every kernel that is not a vendor
-- library's: our kernels, serial loops included, and CUB designs where CUB
-- is not the vendor) against that backend's fastest run (vendor_runs) on
-- the same device at the same precision, each at its best axis values
-- (ties: the earlier run) — so a CPU sweep with MKL and librsb gives one
-- row for each, and librsb's best is its tuned run where `tune = 0,1` ran
-- both. One row with NULL vendor_* where no vendor ran there. ratio =
-- vendor median / own median (> 1: ours is faster), with the conservative
-- interval [ratio_lo, ratio_hi] of the speedup view (both intervals at
-- their unfavourable ends); verdict 'faster' or 'slower' when the two
-- intervals are apart, 'same' when they overlap (a difference within the
-- noise), NULL without an interval on either side. own_roof_ratio: the own
-- run's bandwidth (the operation's byte model) over its device's memory
-- roof (sweep_roofs).
CREATE VIEW own_vs_each_vendor AS
WITH own AS (
    SELECT r.*, ROW_NUMBER() OVER (PARTITION BY r.sweep_id, r.matrix_id, r.operation,
                                                r.device, r.precision
                                   ORDER BY r.median, r.run_id) AS place
    FROM run_stats r
    WHERE r.run_id NOT IN (SELECT run_id FROM vendor_runs)
),
vendor AS (
    SELECT v.*, ROW_NUMBER() OVER (PARTITION BY v.sweep_id, v.matrix_id, v.operation,
                                                v.device, v.precision, v.backend
                                   ORDER BY v.median, v.run_id) AS place
    FROM vendor_runs v
)
SELECT o.sweep_id, o.operation, o.device, o.precision, o.matrix_id, o.matrix,
       m.rows, m.cols, m.nnz,
       o.run_id AS own_run_id, o.kernel AS own_kernel, o.axes AS own_axes,
       o.median AS own_median, o.ci_lo AS own_ci_lo, o.ci_hi AS own_ci_hi,
       o.rate AS own_rate, o.rate_unit, o.gbps AS own_gbps,
       o.gbps / f.roof_gbs AS own_roof_ratio,
       v.backend AS vendor_backend,
       v.run_id AS vendor_run_id, v.kernel AS vendor_kernel, v.axes AS vendor_axes,
       v.median AS vendor_median, v.ci_lo AS vendor_ci_lo, v.ci_hi AS vendor_ci_hi,
       v.rate AS vendor_rate,
       v.median / o.median AS ratio,
       CASE WHEN v.ci_lo > 0 AND o.ci_hi > 0 THEN v.ci_lo / o.ci_hi END AS ratio_lo,
       CASE WHEN v.ci_hi > 0 AND o.ci_lo > 0 THEN v.ci_hi / o.ci_lo END AS ratio_hi,
       CASE WHEN v.median IS NULL OR o.ci_lo IS NULL OR v.ci_lo IS NULL THEN NULL
            WHEN v.ci_lo <= o.ci_hi AND o.ci_lo <= v.ci_hi THEN 'same'
            WHEN v.median > o.median THEN 'faster' ELSE 'slower' END AS verdict
FROM own o
JOIN matrices m ON m.id = o.matrix_id
LEFT JOIN vendor v
       ON v.sweep_id = o.sweep_id AND v.matrix_id = o.matrix_id
      AND v.operation = o.operation AND v.device = o.device
      AND v.precision = o.precision AND v.place = 1
LEFT JOIN sweep_roofs f ON f.sweep_id = o.sweep_id AND f.device = o.device
WHERE o.place = 1;

-- Ours against the strongest vendor: own_vs_each_vendor's row of the
-- fastest vendor backend (ties: the earlier run), or its one NULL row
-- where no vendor ran. The report's OP-own-vs-vendor tables and the bench
-- tables of bench/RESULTS.md are this view.
CREATE VIEW own_vs_vendor AS
WITH ranked AS (
    SELECT e.*, ROW_NUMBER() OVER (PARTITION BY e.sweep_id, e.matrix_id, e.operation,
                                                e.device, e.precision
                                   ORDER BY e.vendor_median IS NULL, e.vendor_median,
                                            e.vendor_run_id) AS strongest
    FROM own_vs_each_vendor e
)
SELECT sweep_id, operation, device, precision, matrix_id, matrix, rows, cols, nnz,
       own_run_id, own_kernel, own_axes, own_median, own_ci_lo, own_ci_hi, own_rate,
       rate_unit, own_gbps, own_roof_ratio, vendor_backend, vendor_run_id, vendor_kernel,
       vendor_axes, vendor_median, vendor_ci_lo, vendor_ci_hi, vendor_rate, ratio, ratio_lo,
       ratio_hi, verdict
FROM ranked
WHERE strongest = 1;

-- The ratios summed up per sweep, operation, device, precision and vendor
-- ('strongest': own_vs_vendor; else a backend's name: own_vs_each_vendor),
-- over the matrices with both sides (scope 'all') and again over those of
-- at least 10^6 nonzeros (scope 'nnz >= 1e6': smaller kernels are bound by
-- launches and set-up, where a ratio moves with the vendor's launch
-- count): the geomean of the ratios with a bound [geomean_lo, geomean_hi]
-- (the geomeans of the per-matrix interval ends when every matrix has
-- both: where the geomean lies when each ratio lies in its own interval;
-- conservative, not a confidence interval), the worst ratio and its
-- matrix, and how many matrices each verdict got (faster, same, slower;
-- the rest had no interval).
CREATE VIEW own_vs_each_vendor_geomean AS
WITH labelled AS (
    SELECT 'strongest' AS vendor, * FROM own_vs_vendor WHERE ratio IS NOT NULL
    UNION ALL
    SELECT vendor_backend, sweep_id, operation, device, precision, matrix_id, matrix, rows,
           cols, nnz, own_run_id, own_kernel, own_axes, own_median, own_ci_lo, own_ci_hi,
           own_rate, rate_unit, own_gbps, own_roof_ratio, vendor_backend, vendor_run_id,
           vendor_kernel, vendor_axes, vendor_median, vendor_ci_lo, vendor_ci_hi, vendor_rate,
           ratio, ratio_lo, ratio_hi, verdict
    FROM own_vs_each_vendor WHERE ratio IS NOT NULL
),
scoped AS (
    SELECT 'all' AS scope, * FROM labelled
    UNION ALL
    SELECT 'nnz >= 1e6', * FROM labelled WHERE nnz >= 1000000
),
ranked AS (
    SELECT s.*, ROW_NUMBER() OVER (PARTITION BY s.sweep_id, s.operation, s.device,
                                                s.precision, s.vendor, s.scope
                                   ORDER BY s.ratio, s.matrix_id) AS worst_place
    FROM scoped s
)
SELECT sweep_id, operation, device, precision, vendor, scope, COUNT(*) AS matrices,
       exp(avg(ln(ratio))) AS geomean,
       CASE WHEN COUNT(ratio_lo) = COUNT(*) AND COUNT(ratio_hi) = COUNT(*)
            THEN exp(avg(ln(ratio_lo))) END AS geomean_lo,
       CASE WHEN COUNT(ratio_lo) = COUNT(*) AND COUNT(ratio_hi) = COUNT(*)
            THEN exp(avg(ln(ratio_hi))) END AS geomean_hi,
       MIN(ratio) AS worst,
       MAX(CASE WHEN worst_place = 1 THEN matrix END) AS worst_matrix,
       coalesce(SUM(verdict = 'faster'), 0) AS faster,
       coalesce(SUM(verdict = 'same'), 0) AS same,
       coalesce(SUM(verdict = 'slower'), 0) AS slower
FROM ranked
GROUP BY sweep_id, operation, device, precision, vendor, scope;

-- The strongest vendor's lines of own_vs_each_vendor_geomean: what the
-- sweep's summary, the report and the GPU bench reports print.
CREATE VIEW own_vs_vendor_geomean AS
SELECT sweep_id, operation, device, precision, scope, matrices, geomean, geomean_lo,
       geomean_hi, worst, worst_matrix, faster, same, slower
FROM own_vs_each_vendor_geomean
WHERE vendor = 'strongest';

-- ---- advice (issue 25: `spsweep advise`, runner/advise*.c) -----------------
--
-- The features a matrix is compared by, one row per matrix measured for
-- them (schema 9; nnz > 0): logarithms where a feature spans decades, so
-- that a distance counts ratios, not differences. advise z-scores each
-- column over the matrices it learns from and takes the Euclidean distance.
--   f_nnz       ln nnz                          (size: what fits in cache)
--   f_row_mean  ln (nnz / rows)                 (work per row)
--   f_row_cv    ln (1 + row_std / row_mean)     (row-length spread)
--   f_row_peak  ln (row_max / row_mean)         (the longest row)
--   f_empty     empty_rows / rows
--   f_band      ln ((1 + bandwidth) / cols)     (relative bandwidth)
--   f_sym       pattern_symmetry
--   f_dia       ln (ndiags * rows / nnz)        (DIA's fill)
--   f_ell       ln ell_fill, f_sell8 ln sell_fill_8, f_sell32 ln sell_fill_32
--   f_top1      top1_share                      (skew: the longest 1 % of rows)
--   f_gap       ln (1 + col_gap)                (column locality)
--   f_xnew      x_line_new                      (new x cache lines per entry)
CREATE VIEW advise_features AS
SELECT id AS matrix_id, source, name, checksum, rows, cols, nnz,
       ln(nnz) AS f_nnz,
       ln(1.0 * nnz / rows) AS f_row_mean,
       ln(1 + coalesce(row_std / nullif(row_mean, 0), 0)) AS f_row_cv,
       ln(max(row_max, 1) / max(row_mean, 1e-300)) AS f_row_peak,
       1.0 * empty_rows / rows AS f_empty,
       ln((1.0 + bandwidth) / max(cols, 1)) AS f_band,
       pattern_symmetry AS f_sym,
       ln(max(1.0 * ndiags * rows / nnz, 1e-300)) AS f_dia,
       ln(max(ell_fill, 1e-300)) AS f_ell,
       ln(max(sell_fill_8, 1e-300)) AS f_sell8,
       ln(max(sell_fill_32, 1e-300)) AS f_sell32,
       top1_share AS f_top1,
       ln(1 + col_gap) AS f_gap,
       x_line_new AS f_xnew
FROM matrices
WHERE ndiags IS NOT NULL AND nnz > 0 AND rows > 0 AND cols > 0;

-- What advice learns from and is judged by: one row per configuration
-- (kernel and axes) measured on a matrix in a sweep, with its rate and
-- interval, `rel` = its rate over the fastest configuration's on that
-- matrix (same sweep, operation, device and precision: 1 for the best),
-- `place` (1 = the fastest), `near_best` = 1 when it is within 10 % of the
-- best or its interval reaches the best's (a tie within the noise), and
-- `vendor` = 1 for a vendor library's run (vendor_runs).
CREATE VIEW advise_rates AS
WITH best AS (
    SELECT r.run_id, r.sweep_id, r.matrix_id, r.operation, r.device, r.precision,
           r.kernel, r.axes, r.rate, r.rate_lo, r.rate_hi, r.rate_unit, r.noisy,
           MAX(r.rate) OVER w AS best_rate,
           ROW_NUMBER() OVER (PARTITION BY r.sweep_id, r.matrix_id, r.operation, r.device,
                                           r.precision
                              ORDER BY r.rate DESC, r.kernel, r.axes) AS place,
           FIRST_VALUE(r.rate_lo) OVER (PARTITION BY r.sweep_id, r.matrix_id, r.operation,
                                                     r.device, r.precision
                                        ORDER BY r.rate DESC, r.kernel, r.axes)
               AS best_rate_lo
    FROM run_stats r
    WINDOW w AS (PARTITION BY r.sweep_id, r.matrix_id, r.operation, r.device, r.precision)
)
SELECT b.run_id, b.sweep_id, b.matrix_id, b.operation, b.device, b.precision, b.kernel,
       b.axes, b.rate, b.rate_lo, b.rate_hi, b.rate_unit, b.noisy, b.best_rate,
       b.rate / b.best_rate AS rel, b.place,
       CASE WHEN b.rate >= 0.9 * b.best_rate
                 OR (b.rate_hi IS NOT NULL AND b.best_rate_lo IS NOT NULL
                     AND b.rate_hi >= b.best_rate_lo) THEN 1 ELSE 0 END AS near_best,
       EXISTS (SELECT 1 FROM vendor_runs v WHERE v.run_id = b.run_id) AS vendor
FROM best b;

-- `kernels = advised:K` held against what it measured: one row per matrix
-- of a sweep with advice, the configuration advised first and its
-- expected rate and interval beside its measured rate, the fastest
-- configuration measured in the sweep on that matrix (the K advised and
-- the vendor baseline), `right` = 1 when the first advised is near the best
-- measured (advise_rates.near_best), `in_interval` = 1 when its measured
-- rate lies in the interval advised, and `advised_rank` of the best
-- measured (NULL: not among the advised, i.e. the vendor baseline won).
CREATE VIEW advice_outcome AS
WITH first AS (
    SELECT a.*, m.id AS matrix_id, m.name AS matrix
    FROM advice a JOIN matrices m ON m.source = a.source
    WHERE a.rank = 1
      AND EXISTS (SELECT 1 FROM runs r WHERE r.sweep_id = a.sweep_id AND r.matrix_id = m.id)
),
top AS (
    SELECT * FROM advise_rates WHERE place = 1
)
SELECT f.sweep_id, f.matrix_id, f.matrix, f.source, f.kernel, f.axes, f.expected_rate,
       f.rate_lo, f.rate_hi, ar.rate AS measured_rate, t.kernel AS best_kernel,
       t.axes AS best_axes, t.rate AS best_rate, t.vendor AS best_is_vendor,
       coalesce(ar.near_best, 0) AS right,
       CASE WHEN ar.rate IS NULL THEN NULL
            WHEN ar.rate BETWEEN f.rate_lo AND f.rate_hi THEN 1 ELSE 0 END AS in_interval,
       (SELECT a2.rank FROM advice a2 WHERE a2.sweep_id = f.sweep_id
          AND a2.source = f.source AND a2.kernel = t.kernel AND a2.axes = t.axes) AS advised_rank
FROM first f
LEFT JOIN advise_rates ar ON ar.sweep_id = f.sweep_id AND ar.matrix_id = f.matrix_id
     AND ar.kernel = f.kernel AND ar.axes = f.axes
LEFT JOIN top t ON t.sweep_id = f.sweep_id AND t.matrix_id = f.matrix_id
     AND t.operation = ar.operation AND t.device = ar.device AND t.precision = ar.precision;
