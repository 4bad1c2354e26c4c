/*
 * report.c — the report step (see report.h): open the database read-only
 * (never writing it, so an archived file without write permission works),
 * pick the sweep, write every chart's data and script, the title page and
 * report.gp, run gnuplot, check that every promised file was written.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../db/store.h"
#include "report_impl.h"

#define REPORT_SCRIPT "report.gp"
/* Terminals: PNGs for the web, a landscape letter-sized PDF. Data strings
 * (kernel names with '_') must not be read as enhanced-text markup. */
#define PNG_TERMINAL "set terminal pngcairo size 1200,700 noenhanced font 'Sans,11'\n"
#define PDF_TERMINAL "set terminal pdfcairo size 11in,7in noenhanced font 'Sans,10'\n"

/* Open the database read-only, with this build's views (db/store_readonly.c)
 * and the report's interval formats (report_format.c). */
static int open_readonly(rp_report *r, sp_err *err)
{
    if (sp_store_open_readonly(r->db_path, &r->store, err))
        return -1;
    r->db = sp_store_db(r->store);
    return rp_register_formats(r, err);
}

/* The integer sql returns, ?1 bound to param. */
static int query_int(rp_report *r, const char *sql, int64_t param, int64_t *out, sp_err *err)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(r->db, sql, -1, &s, NULL) != SQLITE_OK)
        return rp_db_fail(r, err, "preparing the sweep lookup");
    sqlite3_bind_int64(s, 1, param);
    int rc = sqlite3_step(s) == SQLITE_ROW ? 0 : rp_db_fail(r, err, "looking up the sweep");
    if (rc == 0)
        *out = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return rc;
}

/* Resolve r->sweep_id: the given sweep must exist; 0 means the latest
 * sweep with successful runs, else the latest sweep (whose failures are
 * then all there is to show). r->ok_runs counts its successful runs. */
static int pick_sweep(rp_report *r, sp_err *err)
{
    if (r->sweep_id &&
        sp_store_check_sweep(r->db, "main", r->db_path, "--sweep", r->sweep_id, err))
        return -1;
    if (!r->sweep_id && query_int(r, "SELECT coalesce((SELECT MAX(sweep_id) FROM run_stats),"
                                     " (SELECT MAX(id) FROM sweeps), 0)", 0, &r->sweep_id,
                                  err))
        return -1;
    if (!r->sweep_id)
        return sp_fail(err, "%s: no sweep in the database (run a sweep first)", r->db_path);
    return query_int(r, "SELECT COUNT(*) FROM run_stats WHERE sweep_id = ?1", r->sweep_id,
                     &r->ok_runs, err);
}

/* Without a successful run, the charts drawn from them are skipped, and
 * said so in one line (the title page and the failures still come). */
static void note_skipped(const rp_report *r)
{
    if (r->ok_runs == 0 && r->log)
        fprintf(r->log, "report: sweep %lld of %s has no successful runs: the summary, "
                "speedup, rate, roofline and phase charts are skipped; the title page and "
                "the failures are drawn\n", (long long)r->sweep_id, r->db_path);
}

/* With many charts, a table of contents right after the title page:
 * each chart's name and its page in report.pdf (also contents.tsv). */
static int contents_pages(rp_report *r, sp_err *err)
{
    static const char *const head[] = {"page", "chart (PNG file name)"};
    int n = r->ncharts;
    if (n < 8)
        return 0;
    int toc = rp_table_pages(n);
    rp_table t;
    rp_table_init(&t, "contents", "Contents", 2, head);
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        char page[16], name[300];
        snprintf(page, sizeof page, "%d", 2 + toc + i);     /* 1 is the title */
        snprintf(name, sizeof name, "%s.png", r->charts[i]);
        const char *cells[2] = {page, name};
        rc = rp_table_add(&t, cells, err);
    }
    if (rc == 0)
        rc = rp_table_emit(r, &t, err);
    rp_table_free(&t);
    if (rc)
        return -1;
    /* the contents pages were appended: move them to the front */
    char *moved[64];
    int m = r->ncharts - n;
    if (m > 64)
        return sp_fail(err, "report: too many contents pages (%d)", m);
    memcpy(moved, r->charts + n, (size_t)m * sizeof *moved);
    memmove(r->charts + m, r->charts, (size_t)n * sizeof *moved);
    memcpy(r->charts, moved, (size_t)m * sizeof *moved);
    return 0;
}

/* One line of report.gp: "COMMAND 'BASE.SUFFIX'". */
static void chart_command(FILE *f, const char *command, const char *base, const char *suffix)
{
    char name[400];
    snprintf(name, sizeof name, "%s%s", base, suffix);
    fprintf(f, "%s ", command);
    rp_gp_name(f, name, RP_GP_STRING);
    fputc('\n', f);
}

/* report.gp: every chart into its PNG, then the title page and every
 * chart as pages of report.pdf. */
static int write_main_script(rp_report *r, sp_err *err)
{
    char png[400];
    for (int i = 0; i < r->ncharts; i++) {      /* what gnuplot will write */
        snprintf(png, sizeof png, "%s.png", r->charts[i]);
        if (rp_manifest_add(r, png, err))
            return -1;
    }
    if (rp_manifest_add(r, "report.pdf", err) || rp_manifest_add(r, "gnuplot.log", err))
        return -1;
    FILE *f = rp_create(r, REPORT_SCRIPT, err);
    if (!f)
        return -1;
    fprintf(f, "# written by spsweep report for sweep %lld; run in this directory\n",
            (long long)r->sweep_id);
    fprintf(f, PNG_TERMINAL);
    for (int i = 0; i < r->ncharts; i++) {
        chart_command(f, "set output", r->charts[i], ".png");
        chart_command(f, "load", r->charts[i], ".gp");
        fprintf(f, "set output\n");
    }
    fprintf(f, PDF_TERMINAL "set output 'report.pdf'\nload 'title.gp'\n");
    for (int i = 0; i < r->ncharts; i++)
        chart_command(f, "load", r->charts[i], ".gp");
    fprintf(f, "set output\n");
    return rp_finish(f, r, REPORT_SCRIPT, err);
}

/* Every promised output exists and is not empty. */
static int check_outputs(const rp_report *r, sp_err *err)
{
    char path[4096];
    struct stat sb;
    for (int i = 0; i <= r->ncharts; i++) {
        if (i < r->ncharts)
            snprintf(path, sizeof path, "%s/%s.png", r->out_dir, r->charts[i]);
        else
            snprintf(path, sizeof path, "%s/report.pdf", r->out_dir);
        if (stat(path, &sb) != 0 || sb.st_size == 0)
            return sp_fail(err, "%s: gnuplot wrote nothing (see %s/gnuplot.log)", path,
                           r->out_dir);
    }
    return 0;
}

/* All the steps, in order; the first failure stops the report. */
static int report_build(rp_report *r, sp_err *err)
{
    if (open_readonly(r, err) || pick_sweep(r, err) || rp_open_base(r, err) ||
        sp_mkdir_p(r->out_dir, err) || rp_manifest_clear(r, err))
        return -1;
    r->owns_dir = 1;
    int ok = r->ok_runs > 0;
    note_skipped(r);
    if ((ok && rp_summary_tables(r, err)) || rp_compare_table(r, err) ||
        (ok && (rp_speedup_chart(r, err) || rp_roofline_chart(r, err) ||
                rp_rate_charts(r, err) || rp_phase_charts(r, err))) ||
        rp_failure_table(r, err) || rp_title_page(r, err) || contents_pages(r, err) ||
        write_main_script(r, err))
        return -1;
    if (rp_run_gnuplot(r, REPORT_SCRIPT, err) || check_outputs(r, err))
        return -1;
    return 0;
}

/* Report on sweep_id (0: as sp_report). */
int sp_report_sweep(const char *db_path, int64_t sweep_id, const char *out_dir, sp_err *err)
{
    sp_report_opts o = {.sweep_id = sweep_id};
    return sp_report_run(db_path, out_dir, &o, err);
}

/* The report with its options (sweep, comparison base). */
int sp_report_run(const char *db_path, const char *out_dir, const sp_report_opts *o,
                  sp_err *err)
{
    if (!db_path || !*db_path || !out_dir || !*out_dir)
        return sp_fail(err, "sp_report: database path and output directory are required");
    if (o->sweep_id < 0 || o->base_sweep_id < 0)
        return sp_fail(err, "sp_report: invalid sweep id");
    rp_report r = {.db_path = db_path, .out_dir = out_dir, .sweep_id = o->sweep_id,
                   .base_db = o->base_db && *o->base_db ? o->base_db : NULL,
                   .base_sweep_id = o->base_sweep_id, .log = o->log};
    int rc = report_build(&r, err);
    sp_err ignored;     /* after a failure, its message is the one to keep */
    if (r.owns_dir && rp_manifest_write(&r, rc ? &ignored : err))
        rc = -1;
    for (int i = 0; i < r.ncharts; i++)
        free(r.charts[i]);
    free(r.charts);
    for (int i = 0; i < r.nfiles; i++)
        free(r.files[i]);
    free(r.files);
    sp_store_close(r.store);
    sp_store_close(r.base_store);
    return rc;
}

/* Report on the latest sweep with successful runs (else the latest sweep). */
int sp_report(const char *db_path, const char *out_dir, sp_err *err)
{
    return sp_report_sweep(db_path, 0, out_dir, err);
}
