/*
 * export_gbench.c — `spsweep export --gbench`: a sweep's ok runs in Google
 * Benchmark's JSON output format (src/json_reporter.cc, json_schema_version
 * 1), so the tools that read it — tools/compare.py, CI dashboards — read a
 * sweep. Rendered by SQLite's JSON functions as one document:
 *
 *   context     date (the sweep's start, UTC), host_name, executable
 *               ("spsweep"), num_cpus, mhz_per_cpu (the mean CPU clock the
 *               runs' machine states read; absent when none did),
 *               cpu_scaling_enabled (the governor is not "performance";
 *               absent when unread), caches (empty: not recorded),
 *               library_build_type ("debug" for -O0 builds, else
 *               "release"), json_schema_version 1, and as Google
 *               Benchmark's custom context (strings): spsweep_sweep_id,
 *               spsweep_commit, spsweep_config, cpu, gpu, gpu_driver,
 *               cuda_runtime, os, compiler, cflags where recorded.
 *   benchmarks  per ok run, in kernel order (family_index: kernels in the
 *               order of their first run; per_family_instance_index: the
 *               run's place among its kernel's), one "iteration" entry
 *               named kernel/matrix/axis=value/... (the axes in their
 *               JSON order) with repetitions = samples, iterations = batch
 *               x samples (the timed launches), real_time = cpu_time = the
 *               median launch (no CPU time is measured), and the counters
 *               <rate_unit> (e.g. "GFLOPS"), rate_lo, rate_hi, ci_lo, ci_hi
 *               (the median's 95 % interval, in time_unit), "GB/s" and
 *               noise where known; then, with two or more samples, the
 *               aggregates mean, median (with the counters), stddev (in
 *               time_unit) and cv (stddev / mean, aggregate_unit
 *               "percentage"), named <name>_<aggregate> as Google
 *               Benchmark names those of repeated benchmarks.
 *
 * compare.py pairs entries by name and drops those whose time_unit differs
 * from the first file's: comparing two exports needs the same unit, which
 * --time-unit fixes (auto picks per document, from the fastest run).
 */
#include <string.h>

#include "store_impl.h"

/* The document; ?1 sweep id, ?2 seconds -> time unit factor, ?3 the unit. */
static const char gbench_sql[] =
    "WITH r AS ("
    "  SELECT rs.*, rs.kernel || '/' || rs.matrix || coalesce((SELECT"
    "           group_concat('/' || key || '=' || value, '') FROM json_each(rs.axes)), '')"
    "         AS bname,"
    "         MIN(rs.run_id) OVER (PARTITION BY rs.kernel) AS kernel_first,"
    "         json_object(rs.rate_unit, rs.rate, 'rate_lo', rs.rate_lo,"
    "                     'rate_hi', rs.rate_hi, 'ci_lo', rs.ci_lo * ?2,"
    "                     'ci_hi', rs.ci_hi * ?2, 'GB/s', rs.gbps, 'noise', rs.noise)"
    "         AS counters"
    "  FROM run_stats rs WHERE rs.sweep_id = ?1"
    "), f AS ("
    "  SELECT r.*, DENSE_RANK() OVER (ORDER BY kernel_first) - 1 AS fam,"
    "         ROW_NUMBER() OVER (PARTITION BY kernel ORDER BY run_id) - 1 AS inst"
    "  FROM r"
    "), agg(k, name, unit) AS ("
    "  VALUES (1, 'mean', 'time'), (2, 'median', 'time'), (3, 'stddev', 'time'),"
    "         (4, 'cv', 'percentage')"
    "), fa AS ("
    "  SELECT f.*, a.k AS ak, a.name AS aname, a.unit AS aunit,"
    "         CASE a.name WHEN 'mean' THEN f.mean * ?2 WHEN 'median' THEN f.median * ?2"
    "              WHEN 'stddev' THEN f.stddev * ?2"
    "              ELSE CASE WHEN f.mean > 0 THEN f.stddev / f.mean ELSE 0 END END AS v"
    "  FROM f CROSS JOIN agg a WHERE f.n >= 2"
    "), e AS ("
    "  SELECT fam, inst, 0 AS k, json_patch(json_object("
    "           'name', bname, 'family_index', fam, 'per_family_instance_index', inst,"
    "           'run_name', bname, 'run_type', 'iteration', 'repetitions', n,"
    "           'repetition_index', 0, 'threads', 1, 'iterations', batch * n,"
    "           'real_time', median * ?2, 'cpu_time', median * ?2, 'time_unit', ?3),"
    "         counters) AS j"
    "  FROM f"
    "  UNION ALL"
    "  SELECT fam, inst, ak, json_patch(json_object("
    "           'name', bname || '_' || aname, 'family_index', fam,"
    "           'per_family_instance_index', inst, 'run_name', bname,"
    "           'run_type', 'aggregate', 'repetitions', n, 'threads', 1,"
    "           'aggregate_name', aname, 'aggregate_unit', aunit, 'iterations', n,"
    "           'real_time', v, 'cpu_time', v, 'time_unit', ?3),"
    "         CASE aname WHEN 'median' THEN counters ELSE '{}' END)"
    "  FROM fa"
    "), state AS ("
    "  SELECT avg(mhz) AS mhz, max(gov <> 'performance') AS scaling"
    "  FROM (SELECT json_extract(rr.state_before, '$.mhz') AS mhz,"
    "               json_extract(rr.state_before, '$.gov') AS gov"
    "        FROM run_rounds rr JOIN runs ru ON ru.id = rr.run_id WHERE ru.sweep_id = ?1)"
    ")"
    "SELECT json_object("
    "  'context', json_patch('{}', json_object("
    "    'date', strftime('%Y-%m-%dT%H:%M:%S+00:00', s.started_at),"
    "    'host_name', coalesce(s.host, ''), 'executable', 'spsweep',"
    "    'num_cpus', coalesce(s.cpu_threads, s.cpu_count),"
    "    'mhz_per_cpu', CAST(round(st.mhz) AS INTEGER),"
    "    'cpu_scaling_enabled', CASE st.scaling WHEN 0 THEN json('false')"
    "                                           WHEN 1 THEN json('true') END,"
    "    'caches', json('[]'),"
    "    'library_build_type', CASE WHEN s.cflags LIKE '%-O0%' THEN 'debug'"
    "                               ELSE 'release' END,"
    "    'json_schema_version', 1,"
    "    'spsweep_sweep_id', CAST(s.id AS TEXT), 'spsweep_commit', s.git_commit,"
    "    'spsweep_config', s.config_path, 'cpu', s.cpu, 'gpu', s.gpu,"
    "    'gpu_driver', s.gpu_driver, 'cuda_runtime', s.cuda_runtime, 'os', s.os,"
    "    'compiler', s.compiler, 'cflags', s.cflags)),"
    "  'benchmarks', (SELECT json_group_array(json(j))"
    "                 FROM (SELECT j FROM e ORDER BY fam, inst, k)))"
    "FROM sweeps s, state st WHERE s.id = ?1";

typedef struct time_unit {
    const char *name;
    double per_second;
} time_unit;

static const time_unit units[] = {{"ns", 1e9}, {"us", 1e6}, {"ms", 1e3}, {"s", 1}};
#define NUNITS ((int)(sizeof units / sizeof *units))

/* The unit named `name`, or for NULL / "auto" the largest in which the
 * sweep's fastest median reads at least 100 (compare.py prints whole
 * numbers: three digits at least); NULL for an unknown name. */
static const time_unit *pick_unit(sp_store *st, int64_t sweep, const char *name, sp_err *err)
{
    if (name && strcmp(name, "auto")) {
        for (int i = 0; i < NUNITS; i++)
            if (!strcmp(units[i].name, name))
                return &units[i];
        sp_fail(err, "export: unknown --time-unit '%s' (ns, us, ms, s or auto)", name);
        return NULL;
    }
    sqlite3_stmt *s;
    if (store_prepare(st, "SELECT MIN(median) FROM run_stats WHERE sweep_id = ?1", &s,
                      "finding the fastest run", err))
        return NULL;
    sqlite3_bind_int64(s, 1, sweep);
    double fastest = sqlite3_step(s) == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL
                         ? sqlite3_column_double(s, 0) : 0;
    sqlite3_finalize(s);
    int i = 0;
    while (i + 1 < NUNITS && fastest * units[i + 1].per_second >= 100)
        i++;
    return &units[i];
}

int sp_store_export_gbench(const char *path, int64_t sweep, const char *time_unit, FILE *out,
                           sp_err *err)
{
    sp_store *st;
    if (store_export_open(path, &sweep, &st, err))
        return -1;
    const struct time_unit *u = pick_unit(st, sweep, time_unit, err);
    sqlite3_stmt *s = NULL;
    int rc = u ? store_prepare(st, gbench_sql, &s, "preparing the Google Benchmark export", err)
               : -1;
    if (rc == 0) {
        sqlite3_bind_int64(s, 1, sweep);
        sqlite3_bind_double(s, 2, u->per_second);
        sqlite3_bind_text(s, 3, u->name, -1, SQLITE_STATIC);
        if (sqlite3_step(s) == SQLITE_ROW)
            fprintf(out, "%s\n", (const char *)sqlite3_column_text(s, 0));
        else
            rc = store_fail(st, err, "running the Google Benchmark export");
    }
    sqlite3_finalize(s);
    sp_store_close(st);
    return rc;
}
