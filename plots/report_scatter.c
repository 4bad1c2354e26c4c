/*
 * report_scatter.c — an operation's series over many matrices at once
 * (rp_series, each at its best run on each matrix, series_best_runs):
 *   OP-rate-vs-nnz, OP-rate-vs-nnz-per-row   the rate against the matrix's
 *        nonzeros and its mean nonzeros per row, log-log, error bars over
 *        the 95 % intervals (from SCATTER_MATRICES matrices on);
 *   OP-performance-profile   Dolan and More's profile: for each series the
 *        fraction of the operation's matrices on which its time is within
 *        a factor tau of the best kernel's (series_best_runs.ratio); a
 *        matrix it did not run on counts as never (from PROFILE_SERIES
 *        series and PROFILE_MATRICES matrices on).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_impl.h"

#define SCATTER_MATRICES 5
#define PROFILE_SERIES 3
#define PROFILE_MATRICES 4

/* The rows of one series, ordered by col (a column of series_best_runs). */
static int query_series(rp_report *r, const rp_series *s, const char *cols, const char *order,
                        int i, sqlite3_stmt **q, sp_err *err)
{
    char sql[512];
    snprintf(sql, sizeof sql, "SELECT %s FROM series_best_runs WHERE sweep_id = ?1"
                              " AND operation = ?2 AND level = ?3 AND series = ?4 ORDER BY %s",
             cols, order);
    if (sqlite3_prepare_v2(r->db, sql, -1, q, NULL) != SQLITE_OK)
        return rp_db_fail(r, err, "preparing a scatter query");
    sqlite3_bind_int64(*q, 1, r->sweep_id);
    sqlite3_bind_text(*q, 2, s->op, -1, SQLITE_STATIC);
    sqlite3_bind_text(*q, 3, s->level, -1, SQLITE_STATIC);
    sqlite3_bind_text(*q, 4, s->name[i], -1, SQLITE_STATIC);
    return 0;
}

/* The extent of a scatter's data: x, then y with the error bars. */
typedef struct limits {
    double xlo, xhi, ylo, yhi;
    int si;                     /* x tics as 1k, 2M, ... */
} limits;

/* Ranges and tics, padded around the data. */
static void scatter_axes(FILE *f, const limits *l)
{
    if (!(l->xhi > 0) || !(l->yhi > 0))
        return;
    double x0 = l->xlo / 1.4, x1 = l->xhi * 1.4, y0 = l->ylo / 1.5, y1 = l->yhi * 1.5;
    fprintf(f, "set xrange [%.9g:%.9g]\nset yrange [%.9g:%.9g]\n", x0, x1, y0, y1);
    rp_log_tics(f, "x", x0, x1, l->si);
    rp_log_tics(f, "y", y0, y1, 0);
}

/* BASE.dat of a scatter: a block per series (x, rate, its interval's ends,
 * matrix); blocks[i] the index of series i's block, -1 for none. */
static int scatter_data(rp_report *r, const rp_series *s, FILE *f, const char *xcol,
                        int *blocks, limits *lim, sp_err *err)
{
    lim->xlo = lim->ylo = INFINITY, lim->xhi = lim->yhi = 0;
    fprintf(f, "# operation: ");
    rp_gp_name(f, s->op, RP_GP_DATA);
    fprintf(f, "\n# %s\trate\trate_lo\trate_hi\tmatrix (lo, hi: the rate itself without an "
               "interval)\n", xcol);
    int nb = 0;
    for (int i = 0; i < s->n; i++) {
        sqlite3_stmt *q;
        char cols[200];
        snprintf(cols, sizeof cols, "%s, rate, coalesce(rate_lo, rate), coalesce(rate_hi, rate),"
                                    " matrix", xcol);
        if (query_series(r, s, cols, xcol, i, &q, err))
            return -1;
        int n = 0, step;
        while ((step = sqlite3_step(q)) == SQLITE_ROW) {
            if (!n++)
                fprintf(f, "\n\n");
            double x = sqlite3_column_double(q, 0), lo = sqlite3_column_double(q, 2);
            double hi = sqlite3_column_double(q, 3);
            lim->xlo = fmin(lim->xlo, x), lim->xhi = fmax(lim->xhi, x);
            lim->ylo = fmin(lim->ylo, lo), lim->yhi = fmax(lim->yhi, hi);
            fprintf(f, "%.9g\t%.9g\t%.9g\t%.9g\t", x, sqlite3_column_double(q, 1), lo, hi);
            rp_gp_name(f, (const char *)sqlite3_column_text(q, 4), RP_GP_DATA);
            fputc('\n', f);
        }
        sqlite3_finalize(q);
        if (step != SQLITE_DONE)
            return rp_db_fail(r, err, "reading a scatter query");
        blocks[i] = n ? nb++ : -1;
    }
    return 0;
}

/* Open BASE.dat and BASE.gp in turn around the writers; the chart added. */
static int scatter_one(rp_report *r, const rp_series *s, const char *what, const char *xcol,
                       const char *xlabel, sp_err *err)
{
    char base[200], dat[220], gp[220], title[200], note[300];
    int blocks[RP_SERIES];
    limits lim = {.si = !strcmp(xcol, "nnz")};
    snprintf(base, sizeof base, "%s-rate-vs-%s", s->file, what);
    snprintf(dat, sizeof dat, "%s.dat", base);
    snprintf(gp, sizeof gp, "%s.gp", base);
    FILE *f = rp_create(r, dat, err);
    if (!f)
        return -1;
    int rc = scatter_data(r, s, f, xcol, blocks, &lim, err);
    if (rp_finish(f, r, dat, err) || rc || !(f = rp_create(r, gp, err)))
        return -1;
    snprintf(title, sizeof title, "%s rate against %s", rp_op_title(s->op), xlabel);
    rp_chart_head(f, s->op, title);
    rp_series_note(note, sizeof note, s);
    fprintf(f, "set logscale xy\nset grid lc rgb '#dddddd'\nset rmargin 3\n");
    scatter_axes(f, &lim);
    rp_gp_label(f, "x", xlabel, note);
    fprintf(f, "set ylabel ");
    snprintf(title, sizeof title, "%s (median; bars: 95 %% CI)", s->unit);
    rp_gp_name(f, title, RP_GP_STRING);
    fputc('\n', f);
    rp_key_below(f);
    rp_palette(f);
    rp_plot_blocks(f, s, dat, blocks, "using 1:2:3:4 with yerrorbars");
    fprintf(f, "\n");
    return rp_finish(f, r, gp, err) || rp_add_chart(r, base, err) ? -1 : 0;
}

int rp_scatter_charts(rp_report *r, const rp_series *s, sp_err *err)
{
    if (s->matrices < SCATTER_MATRICES)
        return 0;
    return scatter_one(r, s, "nnz", "nnz", "nonzeros of the matrix", err) ||
                   scatter_one(r, s, "nnz-per-row", "nnz_per_row",
                               "mean nonzeros per row", err)
               ? -1
               : 0;
}

/* The profile's steps of each series: (tau, fraction) from (1, fraction at
 * 1) to the largest ratio; tau_max the largest ratio of any series. */
static int profile_data(rp_report *r, const rp_series *s, FILE *f, int *blocks,
                        double *tau_max, sp_err *err)
{
    fprintf(f, "# operation: ");
    rp_gp_name(f, s->op, RP_GP_DATA);
    fprintf(f, "\n# tau\tfraction of the %d matrices within tau of the best\n", s->matrices);
    *tau_max = 1;
    int nb = 0;
    for (int i = 0; i < s->n; i++) {
        sqlite3_stmt *q;
        if (query_series(r, s, "ratio", "ratio", i, &q, err))
            return -1;
        int n = 0, step;
        double last = 1;
        while ((step = sqlite3_step(q)) == SQLITE_ROW) {
            double tau = sqlite3_column_double(q, 0);
            if (!n)
                fprintf(f, "\n\n1\t0\n");
            fprintf(f, "%.9g\t%.9g\n", tau, (double)++n / s->matrices);
            last = tau;
        }
        sqlite3_finalize(q);
        if (step != SQLITE_DONE)
            return rp_db_fail(r, err, "reading the profile query");
        if (n)      /* on to the right edge, where the series stays */
            fprintf(f, "1e9\t%.9g\n", (double)n / s->matrices);
        *tau_max = fmax(*tau_max, last);
        blocks[i] = n ? nb++ : -1;
    }
    return 0;
}

int rp_profile_chart(rp_report *r, const rp_series *s, sp_err *err)
{
    if (s->n < PROFILE_SERIES || s->matrices < PROFILE_MATRICES)
        return 0;
    char base[200], dat[220], gp[220], title[200], note[300];
    int blocks[RP_SERIES];
    double tau_max;
    snprintf(base, sizeof base, "%s-performance-profile", s->file);
    snprintf(dat, sizeof dat, "%s.dat", base);
    snprintf(gp, sizeof gp, "%s.gp", base);
    FILE *f = rp_create(r, dat, err);
    if (!f)
        return -1;
    int rc = profile_data(r, s, f, blocks, &tau_max, err);
    if (rp_finish(f, r, dat, err) || rc || !(f = rp_create(r, gp, err)))
        return -1;
    snprintf(title, sizeof title, "%s performance profile (%d matrices)", rp_op_title(s->op),
             s->matrices);
    rp_chart_head(f, s->op, title);
    rp_series_note(note, sizeof note, s);
    double right = tau_max * 1.5;
    fprintf(f, "set logscale x\nset xrange [1:%.9g]\nset yrange [0:1.02]\n"
               "set grid lc rgb '#dddddd'\nset rmargin 3\n", right < 2 ? 2 : right);
    rp_log_tics(f, "x", 1, right < 2 ? 2 : right, 0);
    rp_gp_label(f, "x", "tau: time within a factor tau of the fastest kernel's (medians)", note);
    fprintf(f, "set ylabel 'fraction of matrices'\n");
    rp_key_below(f);
    rp_palette(f);
    rp_plot_blocks(f, s, dat, blocks, "using 1:2 with steps lw 2");
    fprintf(f, "\n");
    return rp_finish(f, r, gp, err) || rp_add_chart(r, base, err) ? -1 : 0;
}
