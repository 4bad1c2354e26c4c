/*
 * report_title.c — title.gp: the first page of report.pdf, the sweep's
 * provenance (host, CPU, GPU, commit, compiler, dates, run counts) and its
 * config text, drawn as gnuplot labels on an empty plot; and the same for
 * index.html (rp_provenance_html), with the whole config text.
 */
#include <stdlib.h>
#include <string.h>

#include "report_impl.h"

#define TITLE_LINE_CHARS 140
#define TITLE_CONFIG_LINES 15

/* The provenance columns, in the order the query returns them. */
enum { T_PATH, T_HASH, T_COMMIT, T_STARTED, T_FINISHED, T_STATUS, T_HOST, T_CPU,
       T_CPUS, T_GPU, T_DRIVER, T_RUNTIME, T_COMPILER, T_CFLAGS, T_OMP, T_REPS,
       T_WARMUP, T_CONFIG, T_RUNS, T_OK, T_FAILED, T_SKIPPED, T_ERROR, T_MATRICES,
       T_TRIAD, T_TRIAD_THREADS, T_DCOPY, T_OS, T_KREL, T_SOCKETS, T_CORES, T_MEM, T_SMS,
       T_GPU_MEM, T_CRASHED, T_TIMEOUT, T_CACHE, T_BATCH, T_MINSAMPLE, T_ROUNDS, T_SEED,
       T_NOISY, T_RUNCACHE, T_LIBS, T_NCOLS };

/* A column's text, "-" when NULL. */
static const char *col(sqlite3_stmt *s, int i)
{
    const unsigned char *t = sqlite3_column_text(s, i);
    return t && *t ? (const char *)t : "-";
}

/* One label line at screen height y, cut to TITLE_LINE_CHARS bytes on a
 * UTF-8 character boundary. */
static void title_label(FILE *f, int *tag, double y, const char *font, const char *text)
{
    char line[TITLE_LINE_CHARS + 8];
    size_t n = strlen(text);
    if (n > TITLE_LINE_CHARS) {
        n = TITLE_LINE_CHARS;
        while (n > 0 && ((unsigned char)text[n] & 0xC0) == 0x80)
            n--;
    }
    snprintf(line, sizeof line, "%.*s%s", (int)n, text, text[n] ? " ..." : "");
    fprintf(f, "set label %d ", ++*tag);
    rp_gp_name(f, line, RP_GP_STRING);
    fprintf(f, " at screen 0.06, %.3f left font ',%s'\n", y, font);
}

/* The provenance lines (a NULL harness setting, in a hand-made database, reads as
 * its default). */
static void title_provenance(FILE *f, int *tag, sqlite3_stmt *s, int64_t sweep_id)
{
    char line[2048];
    snprintf(line, sizeof line, "spsweep report: sweep %lld", (long long)sweep_id);
    title_label(f, tag, 0.92, "20", line);
    const char *fmt[] = {
        "status: %s   started: %s   finished: %s",
        "host: %s   cpu: %s (%s logical CPUs)",
        "gpu: %s   driver: %s   CUDA runtime: %s",
        "git commit: %s   outside libraries: %s",
        "compiler: %s   flags: %s",
        "OpenMP binding: %s   repetitions: %s   warm-up runs: %s",
        "runs: %s (%s ok, %s failed, %s skipped, %s error, %s crashed, %s timeout) on %s "
        "matrices",
        "config: %s   (XXH3 %s)",
        "os: %s   kernel: %s   %s socket(s), %s cores, %s GiB memory",
        "GPU: %s SMs, %s GiB   measured: host STREAM triad %s GB/s (%s threads), device "
        "copy %s GB/s",
        "harness: cache %s   batch %s   min sample %s   rounds %s (seed %s)   noisy above "
        "+-%s   ok runs by cache: %s"};
    const int args[][8] = {
        {T_STATUS, T_STARTED, T_FINISHED}, {T_HOST, T_CPU, T_CPUS},
        {T_GPU, T_DRIVER, T_RUNTIME}, {T_COMMIT, T_LIBS}, {T_COMPILER, T_CFLAGS},
        {T_OMP, T_REPS, T_WARMUP},
        {T_RUNS, T_OK, T_FAILED, T_SKIPPED, T_ERROR, T_CRASHED, T_TIMEOUT, T_MATRICES},
        {T_PATH, T_HASH}, {T_OS, T_KREL, T_SOCKETS, T_CORES, T_MEM},
        {T_SMS, T_GPU_MEM, T_TRIAD, T_TRIAD_THREADS, T_DCOPY},
        {T_CACHE, T_BATCH, T_MINSAMPLE, T_ROUNDS, T_SEED, T_NOISY, T_RUNCACHE}};
    for (int i = 0; i < (int)(sizeof fmt / sizeof *fmt); i++) {
        const int *a = args[i];
        snprintf(line, sizeof line, fmt[i], col(s, a[0]), col(s, a[1]), col(s, a[2]),
                 col(s, a[3]), col(s, a[4]), col(s, a[5]), col(s, a[6]), col(s, a[7]));
        title_label(f, tag, 0.84 - 0.04 * i, "11", line);
    }
}

/* The first TITLE_CONFIG_LINES lines of the config text, small. */
static void title_config(FILE *f, int *tag, const char *text)
{
    int shown = 0;
    while (text && *text && shown < TITLE_CONFIG_LINES) {
        const char *end = strchr(text, '\n');
        size_t n = end ? (size_t)(end - text) : strlen(text);
        char line[TITLE_LINE_CHARS * 2];
        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line - 1 ? n : sizeof line - 1),
                 text);
        title_label(f, tag, 0.42 - 0.024 * shown, "8", line);
        shown++;
        text = end ? end + 1 : NULL;
    }
    if (text && *text)
        title_label(f, tag, 0.42 - 0.024 * shown, "8", "... (the rest is in sweeps.config_text)");
}

/* Write the page: labels on an empty 0..1 plot. */
static void title_write(FILE *f, sqlite3_stmt *s, int64_t sweep_id)
{
    int tag = 0;
    fprintf(f, "reset\nunset border\nunset tics\nunset key\n"
               "set xrange [0:1]\nset yrange [0:1]\n");
    title_provenance(f, &tag, s, sweep_id);
    const char *config = (const char *)sqlite3_column_text(s, T_CONFIG);
    if (config && *config)
        title_config(f, &tag, config);
    fprintf(f, "plot -1 notitle\n");
}

/* The sweep's provenance: one row, the columns T_*. */
static int provenance_query(rp_report *r, sqlite3_stmt **out, sp_err *err)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(r->db,
            "SELECT config_path, config_hash, git_commit, started_at, finished_at, status,"
            " host, cpu, cpu_count, gpu, gpu_driver, cuda_runtime, compiler, cflags,"
            " omp_binding, repetitions, warmup, config_text,"
            " rc.runs, rc.ok, rc.failed, rc.skipped, rc.error, rc.matrices,"
            " iif(host_triad_gbs IS NULL, NULL, printf('%.1f', host_triad_gbs)),"
            " host_triad_threads,"
            " iif(device_copy_gbs IS NULL, NULL, printf('%.0f', device_copy_gbs)),"
            " os, kernel_release, cpu_sockets, cpu_cores,"
            " iif(mem_total_gib IS NULL, NULL, printf('%.1f', mem_total_gib)),"
            " gpu_sm_count, iif(gpu_mem_gib IS NULL, NULL, printf('%.1f', gpu_mem_gib)),"
            " rc.crashed, rc.timeout,"
            " coalesce(cache, 'warm'), iif(coalesce(batch, 0) = 0, 'auto', batch),"
            " iif(min_sample_s IS NULL, 'default', printf('%g ms', min_sample_s * 1e3)),"
            " coalesce(rounds, 1), seed,"
            " printf('%g %%', coalesce(noisy_threshold, 0.05) * 100),"
            /* "warm 120, cold 4", and the blocking kernel where it was asked for:
             * "warm 80, warm blocking on 38, warm blocking timeout 2" */
            " (SELECT group_concat(c || ' ' || n, ', ') FROM (SELECT coalesce(cache, 'warm')"
            "   || iif(coalesce(blocking, 'off') = 'off', '', ' blocking ' || blocking) AS c,"
            "   COUNT(*) AS n FROM runs WHERE sweep_id = ?1 AND status = 'ok' GROUP BY c)),"
            " coalesce(libraries, 'none recorded')"
            " FROM sweeps JOIN run_counts rc ON rc.sweep_id = sweeps.id WHERE id = ?1", -1, &s,
            NULL) != SQLITE_OK)
        return rp_db_fail(r, err, "preparing the provenance query");
    sqlite3_bind_int64(s, 1, r->sweep_id);
    if (sqlite3_step(s) != SQLITE_ROW) {
        sqlite3_finalize(s);
        return sp_fail(err, "%s: sweep %lld has no sweeps row", r->db_path,
                       (long long)r->sweep_id);
    }
    *out = s;
    return 0;
}

/* Query the sweep's provenance and write title.gp. */
int rp_title_page(rp_report *r, sp_err *err)
{
    sqlite3_stmt *s;
    if (provenance_query(r, &s, err))
        return -1;
    FILE *f = rp_create(r, "title.gp", err);
    if (f)
        title_write(f, s, r->sweep_id);
    int rc = f ? rp_finish(f, r, "title.gp", err) : -1;
    sqlite3_finalize(s);
    return rc;
}

/* The provenance for index.html: a row a line of the title page, the
 * whole config text. */
int rp_provenance_html(rp_report *r, FILE *f, sp_err *err)
{
    static const struct {
        const char *label, *fmt;
        int args[9];            /* the columns of the fmt's %s (unused: T_PATH) */
    } rows[] = {
        {"sweep", "%s, started %s, finished %s", {T_STATUS, T_STARTED, T_FINISHED}},
        {"host", "%s: %s (%s logical CPUs)", {T_HOST, T_CPU, T_CPUS}},
        {"system", "%s, kernel %s, %s socket(s), %s cores, %s GiB memory",
         {T_OS, T_KREL, T_SOCKETS, T_CORES, T_MEM}},
        {"GPU", "%s (%s SMs, %s GiB), driver %s, CUDA runtime %s",
         {T_GPU, T_SMS, T_GPU_MEM, T_DRIVER, T_RUNTIME}},
        {"measured bandwidth", "host STREAM triad %s GB/s (%s threads), device copy %s GB/s",
         {T_TRIAD, T_TRIAD_THREADS, T_DCOPY}},
        {"git commit", "%s", {T_COMMIT}},
        {"outside libraries", "%s", {T_LIBS}},
        {"compiler", "%s, flags %s", {T_COMPILER, T_CFLAGS}},
        {"harness", "OpenMP binding %s, repetitions %s, warm-up runs %s, cache %s, batch %s, "
                    "min sample %s, rounds %s (seed %s), noisy above +-%s",
         {T_OMP, T_REPS, T_WARMUP, T_CACHE, T_BATCH, T_MINSAMPLE, T_ROUNDS, T_SEED, T_NOISY}},
        {"runs", "%s (%s ok, %s failed, %s skipped, %s error, %s crashed, %s timeout) on %s "
                 "matrices",
         {T_RUNS, T_OK, T_FAILED, T_SKIPPED, T_ERROR, T_CRASHED, T_TIMEOUT, T_MATRICES}},
        {"ok runs by cache", "%s", {T_RUNCACHE}},
        {"config", "%s (XXH3 %s)", {T_PATH, T_HASH}},
    };
    sqlite3_stmt *s;
    if (provenance_query(r, &s, err))
        return -1;
    fputs("<h2 id=\"provenance\">Provenance</h2>\n<table class=\"provenance\">\n", f);
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        char line[4096];
        const int *a = rows[i].args;
        snprintf(line, sizeof line, rows[i].fmt, col(s, a[0]), col(s, a[1]), col(s, a[2]),
                 col(s, a[3]), col(s, a[4]), col(s, a[5]), col(s, a[6]), col(s, a[7]),
                 col(s, a[8]));
        fprintf(f, "<tr><th scope=\"row\">%s</th><td>", rows[i].label);
        rp_html_text(f, line);
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
    const char *config = (const char *)sqlite3_column_text(s, T_CONFIG);
    if (config && *config) {
        fputs("<details open><summary>config text</summary><pre class=\"config\">", f);
        rp_html_text(f, config);
        fputs("</pre></details>\n", f);
    }
    sqlite3_finalize(s);
    return 0;
}
