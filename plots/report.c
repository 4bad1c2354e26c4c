/*
 * report.c — the report step (see report.h): open the database read-only
 * (never writing it, so an archived file without write permission works),
 * pick the sweep, write every chart's data and script, the title page and
 * report.gp, run gnuplot, check that every promised file was written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../db/store.h"
#include "report_impl.h"

#define REPORT_SCRIPT "report.gp"
/* The sizes charts are drawn at, fonts in points at the printed size.
 * Cairo draws a font of F points at F x fontscale x 4/3 points (pdfcairo)
 * or pixels (pngcairo): fontscale 0.75 gives F points in a PDF, and
 * 0.75 x PNG_DPI / 72 the pixels of F points in a PNG printed at PNG_DPI.
 * (pdfcairo's default, 0.5, printed a 10-point font at 5 points.) A figure
 * is drawn two columns wide (7 in, 9-point text) and one column wide
 * (3.5 in, 8 points); a page of report.pdf (and a text page's PNG) is
 * letter landscape, 10 points. Data strings (kernel names with '_') must
 * not be read as enhanced-text markup. */
#define PNG_DPI 150
/* An SVG (index.html, report_html.c) is drawn in points: 72 user units an
 * inch, a font of F points at font-size F (fontscale 1), the same as the
 * two-column PDF, which the page then scales to its width. */
enum { TERM_PNG, TERM_PDF, TERM_SVG };
static const struct terminal {
    const char *suffix;         /* of the file name after BASE ("" for report.pdf) */
    int kind;                   /* TERM_*; the sp_col the scripts see: */
    int col;
    double width_in, height_in;
    int font_pt;
} terminals[] = {
    {".png", TERM_PNG, 2, 7.0, 4.3, 9},
    {".pdf", TERM_PDF, 2, 7.0, 4.3, 9},
    {"-1col.png", TERM_PNG, 1, 3.5, 3.5, 8},
    {"-1col.pdf", TERM_PDF, 1, 3.5, 3.5, 8},
    {".svg", TERM_SVG, 2, 7.0, 4.3, 9},
};
static const struct terminal page_png = {".png", TERM_PNG, 0, 11.0, 7.0, 10};
static const struct terminal page_pdf = {"", TERM_PDF, 0, 11.0, 7.0, 10};
#define NTERMINALS (int)(sizeof terminals / sizeof *terminals)

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
 * each chart's name and its page in report.pdf (also contents.tsv). The
 * PNG named is the two-column one (a figure's -1col and .pdf are beside it). */
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
    memmove(r->figure + m, r->figure, (size_t)n * sizeof *r->figure);
    for (int i = 0; i < m; i++)
        r->figure[i] = 0;
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

/* "set terminal ..." for one size. */
static void set_terminal(FILE *f, const struct terminal *t)
{
    int png = t->kind == TERM_PNG;
    double scale = png ? 0.75 * PNG_DPI / 72 : t->kind == TERM_PDF ? 0.75 : 1;
    fprintf(f, "sp_col = %d\n", t->col);
    if (png)
        fprintf(f, "set terminal pngcairo size %d,%d", (int)(t->width_in * PNG_DPI + 0.5),
                (int)(t->height_in * PNG_DPI + 0.5));
    else if (t->kind == TERM_PDF)
        fprintf(f, "set terminal pdfcairo size %gin,%gin", t->width_in, t->height_in);
    else
        fprintf(f, "set terminal svg size %d,%d", (int)(t->width_in * 72 + 0.5),
                (int)(t->height_in * 72 + 0.5));
    fprintf(f, " noenhanced font '%s,%d' fontscale %.6g linewidth %g\n",
            t->kind == TERM_SVG ? "sans-serif" : "Sans", t->font_pt, scale, png ? 1.5 : 1.0);
}

/* report.gp: every figure in each of its sizes, every text page into its
 * PNG, then the title page and every chart as pages of report.pdf. */
static int write_main_script(rp_report *r, sp_err *err)
{
    char name[400];
    for (int i = 0; i < r->ncharts; i++)       /* what gnuplot will write */
        for (int t = 0; t < (r->figure[i] ? NTERMINALS : 1); t++) {
            snprintf(name, sizeof name, "%s%s", r->charts[i],
                     r->figure[i] ? terminals[t].suffix : page_png.suffix);
            if (rp_manifest_add(r, name, err))
                return -1;
        }
    if (rp_manifest_add(r, "report.pdf", err) || rp_manifest_add(r, "gnuplot.log", err))
        return -1;
    FILE *f = rp_create(r, REPORT_SCRIPT, err);
    if (!f)
        return -1;
    fprintf(f, "# written by spsweep report for sweep %lld; run in this directory\n",
            (long long)r->sweep_id);
    for (int t = 0; t <= NTERMINALS; t++) {
        set_terminal(f, t < NTERMINALS ? &terminals[t] : &page_png);
        for (int i = 0; i < r->ncharts; i++) {
            if (r->figure[i] != (t < NTERMINALS))
                continue;
            chart_command(f, "set output", r->charts[i],
                          t < NTERMINALS ? terminals[t].suffix : page_png.suffix);
            chart_command(f, "load", r->charts[i], ".gp");
            fprintf(f, "set output\n");
        }
    }
    set_terminal(f, &page_pdf);
    fprintf(f, "set output 'report.pdf'\nload 'title.gp'\n");
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
    for (int i = 0; i <= r->ncharts; i++)
        for (int t = 0; t < (i < r->ncharts && r->figure[i] ? NTERMINALS : 1); t++) {
            if (i < r->ncharts)
                snprintf(path, sizeof path, "%s/%s%s", r->out_dir, r->charts[i],
                         r->figure[i] ? terminals[t].suffix : page_png.suffix);
            else
                snprintf(path, sizeof path, "%s/report.pdf", r->out_dir);
            if (stat(path, &sb) != 0 || sb.st_size == 0)
                return sp_fail(err, "%s: gnuplot wrote nothing (see %s/gnuplot.log)", path,
                               r->out_dir);
        }
    return 0;
}

/* The operations of the sweep with ok runs: spmv, transpose and sort
 * first, then the others by name (at most max). */
static int list_operations(rp_report *r, char ops[][64], int max, int *n, sp_err *err)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(r->db,
            "SELECT DISTINCT operation FROM run_stats WHERE sweep_id = ?1 ORDER BY"
            " CASE operation WHEN 'spmv' THEN 0 WHEN 'transpose' THEN 1 WHEN 'sort' THEN 2"
            " ELSE 3 END, operation", -1, &s, NULL) != SQLITE_OK)
        return rp_db_fail(r, err, "preparing the operation list");
    sqlite3_bind_int64(s, 1, r->sweep_id);
    int step;
    *n = 0;
    while ((step = sqlite3_step(s)) == SQLITE_ROW && *n < max)
        snprintf(ops[(*n)++], 64, "%s", (const char *)sqlite3_column_text(s, 0));
    int rc = step == SQLITE_ROW || step == SQLITE_DONE ? 0
                                                       : rp_db_fail(r, err, "listing operations");
    sqlite3_finalize(s);
    return rc;
}

/* Each operation's charts, never two operations on one axis: first the
 * main ones of every operation (the headline geomean, speedup and rate per
 * matrix, rate against the matrix size, the profile, the rooflines, the
 * GPU phases), then the appendix (per-matrix lines of small sweeps, the
 * tuning heatmaps, every run as a table). */
static int operation_charts(rp_report *r, sp_err *err)
{
    char ops[16][64];
    int nops = 0;
    if (list_operations(r, ops, 16, &nops, err))
        return -1;
    rp_series *s = calloc((size_t)(nops ? nops : 1), sizeof *s);
    if (!s)
        return sp_fail(err, "report: out of memory");
    int rc = 0;
    static int (*const main_charts[])(rp_report *, const rp_series *, sp_err *) = {
        rp_geomean_chart, rp_speedup_bars, rp_rate_bars, rp_scatter_charts, rp_profile_chart,
        rp_roofline_charts};
    static int (*const appendix[])(rp_report *, const rp_series *, sp_err *) = {
        rp_rate_charts, rp_heatmaps};
    /* each step's SQL starts at its mark (index.html shows a chart's) */
    for (int i = 0; i < nops && rc == 0; i++) {
        rc = rp_series_pick(r, ops[i], &s[i], err);
        for (size_t k = 0; k < sizeof main_charts / sizeof *main_charts && rc == 0; k++) {
            rp_sql_mark(r);
            rc = main_charts[k](r, &s[i], err);
        }
        rp_sql_mark(r);
        rc = rc || rp_phase_charts(r, ops[i], err);
        rp_sql_mark(r);
        rc = rc || rp_requested_charts(r, ops[i], err);
    }
    for (int i = 0; i < nops && rc == 0; i++) {
        for (size_t k = 0; k < sizeof appendix / sizeof *appendix && rc == 0; k++) {
            rp_sql_mark(r);
            rc = appendix[k](r, &s[i], err);
        }
        rp_sql_mark(r);
        rc = rc || rp_all_runs_table(r, ops[i], err);
    }
    free(s);
    return rc ? -1 : 0;
}

/* All the steps, in order; the first failure stops the report. */
static int report_build(rp_report *r, sp_err *err)
{
    if (open_readonly(r, err) || pick_sweep(r, err) || rp_open_base(r, err) ||
        sp_mkdir_p(r->out_dir, err) || rp_manifest_clear(r, err) || rp_html_begin(r, err))
        return -1;
    r->owns_dir = 1;
    int ok = r->ok_runs > 0;
    note_skipped(r);
    if ((ok && rp_summary_tables(r, err)) || (ok && rp_advice_table(r, err)) ||
        rp_compare_table(r, err) ||
        (ok && operation_charts(r, err)) || rp_failure_table(r, err) || rp_title_page(r, err) || contents_pages(r, err) ||
        write_main_script(r, err))
        return -1;
    if (rp_run_gnuplot(r, REPORT_SCRIPT, err) || check_outputs(r, err) ||
        rp_html_write(r, err))
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
    rp_html_free(&r);
    sp_err ignored;     /* after a failure, its message is the one to keep */
    if (r.owns_dir && rp_manifest_write(&r, rc ? &ignored : err))
        rc = -1;
    for (int i = 0; i < r.ncharts; i++)
        free(r.charts[i]);
    free(r.charts);
    free(r.figure);
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
