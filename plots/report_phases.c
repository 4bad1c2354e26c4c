/*
 * report_phases.c — OP-gpu-phases-N: what a GPU run costs beyond its
 * kernel, one operation a chart. For each matrix and GPU kernel of the
 * operation (at its fastest axis values),
 * one stacked bar: host conversion, allocation + host->device copy, the
 * kernel (median), device->host copy, release, in milliseconds (the
 * phases are the median round's, as the harness timed them). Two error
 * bars on each: the kernel's 95 % interval at the top of the kernel
 * segment, and at the top of the stack the end-to-end time's spread over
 * the rounds (the fastest and the slowest round's phases plus the median
 * kernel) when the run has SP_STATS_MIN_ROUNDS ok rounds or more: fewer
 * give no spread worth drawing, as for the interval (db/stats.h).
 * PHASE_BARS bars a page, so hundreds of matrices paginate. No GPU run: no
 * chart.
 */
#include <stdlib.h>
#include <string.h>

#include "../db/stats.h"
#include "report_impl.h"

#define PHASE_BARS 8

/* The run's phases in ms, then the kernel's interval, the rounds with
 * phases and the end-to-end spread over them ('NaN': none, no bar). A
 * round's end to end is its own phases (NULL ones count as 0, as in
 * run_stats) plus the run's median; rounds without any phase (before
 * schema version 5) are not counted. */
static const char PHASES_SQL[] =
    "WITH best AS (SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY matrix_id,"
    "   operation, kernel ORDER BY median, run_id) AS place"
    "   FROM run_stats WHERE sweep_id = ?1 AND device = 'gpu' AND operation = ?3)"
    "   WHERE place = 1),"
    " spread AS (SELECT run_id, COUNT(*) AS n, MIN(phases_s) AS lo, MAX(phases_s) AS hi"
    "   FROM (SELECT run_id, coalesce(convert_s, 0) + coalesce(h2d_s, 0)"
    "     + coalesce(d2h_s, 0) + coalesce(free_s, 0) AS phases_s FROM run_rounds"
    "     WHERE status = 'ok' AND coalesce(convert_s, h2d_s, d2h_s, free_s) IS NOT NULL"
    "     AND run_id IN (SELECT run_id FROM best)) GROUP BY run_id)"
    " SELECT b.matrix, b.operation, b.kernel, coalesce(b.convert_s, 0) * 1e3,"
    " coalesce(b.h2d_s, 0) * 1e3, b.median * 1e3, coalesce(b.d2h_s, 0) * 1e3,"
    " coalesce(b.free_s, 0) * 1e3, coalesce(b.ci_lo * 1e3, 'NaN'),"
    " coalesce(b.ci_hi * 1e3, 'NaN'), coalesce(p.n, 0),"
    " CASE WHEN p.n >= ?2 THEN (p.lo + b.median) * 1e3 ELSE 'NaN' END,"
    " CASE WHEN p.n >= ?2 THEN (p.hi + b.median) * 1e3 ELSE 'NaN' END"
    " FROM best b LEFT JOIN spread p ON p.run_id = b.run_id"
    " ORDER BY b.matrix, b.operation, b.kernel";

/* Columns of the query and of BASE.dat (which has the bar label for the
 * first three). */
enum { C_CONVERT = 3, C_KERNEL_LO = 8, C_SPREAD_LO = 11, PHASE_COLS = 13 };

/* A bar's label: "matrix / kernel", the matrix's name cut. */
static void bar_label(char *buf, size_t len, char **c)
{
    char m[64];
    rp_short_name(m, sizeof m, c[0], 22);
    snprintf(buf, len, "%s / %s", m, c[2]);
}

/* The bars' labels as explicit tics, escaped by rp_gp_name (as data
 * through xtic() they were cut at a double quote). */
static void write_xtics(FILE *f, const rp_table *t, int first, int last, const char *op)
{
    char kernel[64], matrix[64];
    size_t skip = strlen(op);
    fprintf(f, "set xtics (");
    for (int i = first; i < last; i++) {    /* two lines: the kernel, the matrix */
        char **c = &t->cell[i * t->ncols];
        const char *k = !strncmp(c[2], op, skip) && c[2][skip] == '_' ? c[2] + skip + 1 : c[2];
        rp_short_name(kernel, sizeof kernel, k, 18);
        rp_short_name(matrix, sizeof matrix, c[0], 16);
        fprintf(f, "%s", i > first ? ", " : "");
        rp_gp_name(f, kernel, RP_GP_TIC);
        fprintf(f, " . \"\\n\" . ");
        rp_gp_name(f, matrix, RP_GP_TIC);
        fprintf(f, " %d", i - first);
    }
    fprintf(f, ")\nif (exists('sp_col') && sp_col == 1) {\n  set xtics rotate by 90 right\n}\n");
}

/* Does any row of [first, last) have a value (not NaN) in column col? */
static int page_has(const rp_table *t, int first, int last, int col)
{
    for (int i = first; i < last; i++)
        if (strcmp(t->cell[i * t->ncols + col], "NaN"))
            return 1;
    return 0;
}

/* The error bars over the stacks, drawn only where the page has them
 * (gnuplot warns of a series without a point, and keys it), and on a
 * bar only where its row has them (a NaN y: no point): the kernel's
 * interval at the top of its segment (left of the bar's middle), the
 * rounds' end-to-end spread at the stack's top (right of it). Bars stand
 * at x = 0, 1, ... ($0, the data line). */
static void write_error_bars(FILE *f, const char *dat, const rp_table *t, int first, int last)
{
    static const struct {
        int col;            /* the column whose presence on the page draws it */
        const char *plot;   /* gnuplot's using ... title ... */
    } bars[] = {
        {C_KERNEL_LO, " using ($0-0.18):($7 == $7 ? $2+$3+$4 : NaN):($2+$3+$7):($2+$3+$8)"
                      " with yerrorbars lc rgb 'black' pt 7 ps 0.5"
                      " title 'kernel 95 % CI'"},
        {C_SPREAD_LO, " using ($0+0.18):($10 == $10 ? $2+$3+$4+$5+$6 : NaN):10:11"
                      " with yerrorbars lc rgb '#555555' pt 2 ps 0.8"
                      " title 'rounds: fastest..slowest'"},
    };
    for (size_t i = 0; i < sizeof bars / sizeof *bars; i++) {
        if (!page_has(t, first, last, bars[i].col))
            continue;
        fprintf(f, ", \\\n  ");
        rp_gp_name(f, dat, RP_GP_STRING);
        fputs(bars[i].plot, f);
    }
}

/* The gnuplot commands of one page drawing the rows [first, last) of t,
 * in BASE.dat. */
static void write_script(FILE *f, const char *op, const char *dat, const rp_table *t,
                         int first, int last, int page, int pages)
{
    char title[200];
    snprintf(title, sizeof title, "%s on the GPU: where the time goes", rp_op_title(op));
    if (pages > 1)
        snprintf(title + strlen(title), sizeof title - strlen(title), " (%d of %d)", page + 1,
                 pages);
    rp_chart_head(f, op, title);
    rp_gp_label(f, "x", "kernel (at its best axis values) and matrix",
                "the median round's phases: conversion (prepare), upload (allocation and "
                "host to device), kernel (median), download (device to host), release");
    fprintf(f, "set lmargin 10\nset rmargin 3\nset ylabel 'milliseconds per run'\n"
               "set style data histograms\nset style histogram rowstacked\n"
               "set style fill solid 0.9 border -1\nset boxwidth 0.75 relative\n"
               "set grid ytics lc rgb '#dddddd'\n"
               "set xtics nomirror rotate by 45 right\nset yrange [0:*]\n");
    rp_key_below(f);
    rp_palette(f);
    write_xtics(f, t, first, last, op);
    fprintf(f, "plot ");
    static const char *const titles[] = {"conversion", "upload", "kernel", "download",
                                         "release"};
    for (int c = 0; c < 5; c++) {
        fprintf(f, "%s", c ? ", \\\n  " : "");
        rp_gp_name(f, dat, RP_GP_STRING);
        fprintf(f, " using %d lt %d title '%s'", c + 2, c + 1, titles[c]);
    }
    write_error_bars(f, dat, t, first, last);
    fprintf(f, "\n");
}

/* BASE.dat: a row's label and its columns from C_CONVERT on. */
static void write_data(FILE *f, const char *op, const rp_table *t, int first, int last)
{
    char label[700];
    fprintf(f, "# operation: ");
    rp_gp_name(f, op, RP_GP_DATA);
    fprintf(f, "\n# bar\tconvert_ms\th2d_ms\tkernel_ms\td2h_ms\tfree_ms\tkernel_lo_ms"
               "\tkernel_hi_ms\trounds\tend_to_end_min_ms\tend_to_end_max_ms"
               " (NaN: no interval, or fewer than %d rounds)\n", SP_STATS_MIN_ROUNDS);
    for (int i = first; i < last; i++) {
        char **c = &t->cell[i * t->ncols];
        bar_label(label, sizeof label, c);
        rp_gp_name(f, label, RP_GP_DATA);
        for (int k = C_CONVERT; k < PHASE_COLS; k++)
            fprintf(f, "\t%s", c[k]);
        fputc('\n', f);
    }
}

/* One page: BASE.dat and BASE.gp for rows [first, first + n) of t. */
static int write_page(rp_report *r, const char *op, const rp_table *t, int page, int pages,
                      sp_err *err)
{
    char base[160], dat[180], gp[180], file[64];
    rp_sanitize(file, sizeof file, op);
    snprintf(base, sizeof base, "%s-gpu-phases-%d", file, page + 1);
    snprintf(dat, sizeof dat, "%s.dat", base);
    snprintf(gp, sizeof gp, "%s.gp", base);
    int first = page * PHASE_BARS;
    int last = t->nrows < first + PHASE_BARS ? t->nrows : first + PHASE_BARS;
    FILE *f = rp_create(r, dat, err);
    if (!f)
        return -1;
    write_data(f, op, t, first, last);
    if (rp_finish(f, r, dat, err) || !(f = rp_create(r, gp, err)))
        return -1;
    write_script(f, op, dat, t, first, last, page, pages);
    return rp_finish(f, r, gp, err) || rp_add_chart(r, base, err) ? -1 : 0;
}

int rp_phase_charts(rp_report *r, const char *op, sp_err *err)
{
    static const char *const head[] = {
        "matrix",       "operation",    "kernel", "convert_ms",       "h2d_ms",
        "kernel_ms",    "d2h_ms",       "free_ms", "kernel_lo_ms",    "kernel_hi_ms",
        "rounds",       "end_to_end_min_ms", "end_to_end_max_ms"};
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(r->db, PHASES_SQL, -1, &s, NULL) != SQLITE_OK)
        return rp_db_fail(r, err, "preparing the phase query");
    sqlite3_bind_int64(s, 1, r->sweep_id);
    sqlite3_bind_int(s, 2, SP_STATS_MIN_ROUNDS);
    sqlite3_bind_text(s, 3, op, -1, SQLITE_STATIC);
    rp_table t;
    rp_table_init(&t, "phases", "GPU phases", PHASE_COLS, head);
    int rc = rp_table_query(&t, s, r, err);
    sqlite3_finalize(s);
    int pages = (t.nrows + PHASE_BARS - 1) / PHASE_BARS;
    for (int p = 0; rc == 0 && p < pages; p++)
        rc = write_page(r, op, &t, p, pages, err);
    rp_table_free(&t);
    return rc;
}
