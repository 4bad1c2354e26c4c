/*
 * report_bars.c — grouped bars per matrix, matrices in the order of their
 * nnz, one bar per series (rp_series: at most RP_SERIES), error bars over
 * the stored 95 % intervals (db/views.sql series_best_runs):
 *   OP-rate-by-matrix-N              each series' rate;
 *   OP-speedup-vs-BASELINE-N         its speedup over the operation's
 *                                    serial baseline (db/views.sql
 *                                    baselines: one kernel, named in the
 *                                    title and the file name), with a last
 *                                    group "geomean" (geomean_speedup, its
 *                                    bound as the error bar);
 *   OP-speedup-vs-VENDOR-N           ... over its vendor baseline.
 * Matrices without the baseline are left out and counted under the chart.
 * BAR_GROUPS matrices a page. A bar without an interval has no error bar
 * (its ends are the bar's top); an interval with one end unbounded (a
 * time interval reaching below 0) runs to the edge of the plot.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_impl.h"

#define BAR_GROUPS 10
#define TIC_CHARS_1COL 12
#define TIC_CHARS 18            /* a matrix name on a tic, cut to this */

/* What one chart family draws. */
typedef struct bar_kind {
    const char *what;           /* "rate", "speedup", "vendor_speedup" */
    const char *role;           /* baselines.role, NULL for the rate */
} bar_kind;

/* One matrix: its name and per series the value and its interval's ends
 * (NaN: none). */
typedef struct bar_group {
    char *matrix;
    double v[RP_SERIES][3];
} bar_group;

typedef struct bar_chart {
    const rp_series *s;
    int n, cap;
    bar_group *g;
    int has[RP_SERIES];         /* the series has a bar somewhere */
    int geomean;                /* a last group: the geomean over the matrices */
    double gm[RP_SERIES][3];
    int gm_n[RP_SERIES];        /* the matrices of each geomean */
    char baseline[128];         /* the baseline kernel (speedups) */
    int missing;                /* the operation's matrices without it */
} bar_chart;

static void chart_free(bar_chart *c)
{
    for (int i = 0; i < c->n; i++)
        free(c->g[i].matrix);
    free(c->g);
}

/* A new group for matrix (the rows come ordered by nnz). */
static bar_group *add_group(bar_chart *c, const char *matrix, sp_err *err)
{
    if (c->n == c->cap) {
        int cap = c->cap ? 2 * c->cap : 32;
        bar_group *grown = realloc(c->g, (size_t)cap * sizeof *grown);
        if (!grown) {
            sp_fail(err, "report: out of memory for %d matrices", cap);
            return NULL;
        }
        c->g = grown;
        c->cap = cap;
    }
    bar_group *g = &c->g[c->n];
    for (int i = 0; i < RP_SERIES; i++)
        g->v[i][0] = g->v[i][1] = g->v[i][2] = NAN;
    if (!(g->matrix = strdup(matrix ? matrix : ""))) {
        sp_fail(err, "report: out of memory");
        return NULL;
    }
    c->n++;
    return g;
}

/* A column as a number, NaN for NULL. */
static double num(sqlite3_stmt *s, int col)
{
    return sqlite3_column_type(s, col) == SQLITE_NULL ? NAN : sqlite3_column_double(s, col);
}

/* The baseline kernel of the role and the matrices without it; 0 when the
 * operation has none. */
static int find_baseline(rp_report *r, bar_chart *c, const char *role, int *found,
                         sp_err *err)
{
    sqlite3_stmt *s;
    *found = 0;
    if (sqlite3_prepare_v2(r->db, "SELECT kernel, missing FROM baselines WHERE sweep_id = ?1"
                                  " AND operation = ?2 AND role = ?3", -1, &s, NULL) != SQLITE_OK)
        return rp_db_fail(r, err, "preparing the baseline query");
    sqlite3_bind_int64(s, 1, r->sweep_id);
    sqlite3_bind_text(s, 2, c->s->op, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 3, role, -1, SQLITE_STATIC);
    int step = sqlite3_step(s);
    if (step == SQLITE_ROW) {
        snprintf(c->baseline, sizeof c->baseline, "%s", (const char *)sqlite3_column_text(s, 0));
        c->missing = sqlite3_column_int(s, 1);
        *found = 1;
    }
    sqlite3_finalize(s);
    return step == SQLITE_ROW || step == SQLITE_DONE ? 0
                                                     : rp_db_fail(r, err, "reading the baseline");
}

/* Every series' value per matrix, by nnz. A speedup is left out where the
 * series' best run is the baseline itself (1 by definition) or the matrix
 * has no baseline run. */
static int load_groups(rp_report *r, bar_chart *c, const bar_kind *k, sp_err *err)
{
    char sql[1024];
    const char *v = k->what;
    snprintf(sql, sizeof sql,
             "SELECT matrix_id, matrix, series, %s, %s_lo, %s_hi FROM series_best_runs"
             " WHERE sweep_id = ?1 AND operation = ?2 AND level = ?3 AND %s IS NOT NULL%s"
             " ORDER BY nnz, matrix, matrix_id, series", v, v, v, v,
             !k->role ? "" : !strcmp(k->role, "serial") ? " AND kernel <> baseline_kernel"
                                                        : " AND kernel <> vendor_kernel");
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(r->db, sql, -1, &s, NULL) != SQLITE_OK)
        return rp_db_fail(r, err, "preparing the bar query");
    sqlite3_bind_int64(s, 1, r->sweep_id);
    sqlite3_bind_text(s, 2, c->s->op, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 3, c->s->level, -1, SQLITE_STATIC);
    int rc = 0, step;
    int64_t last = -1;
    bar_group *g = NULL;
    while (rc == 0 && (step = sqlite3_step(s)) == SQLITE_ROW) {
        int i = rp_series_index(c->s, (const char *)sqlite3_column_text(s, 2));
        if (i < 0)
            continue;
        if (!g || sqlite3_column_int64(s, 0) != last) {
            last = sqlite3_column_int64(s, 0);
            if (!(g = add_group(c, (const char *)sqlite3_column_text(s, 1), err)))
                rc = -1;
        }
        if (g) {
            for (int j = 0; j < 3; j++)
                g->v[i][j] = num(s, 3 + j);
            c->has[i] = 1;
        }
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = rp_db_fail(r, err, "reading the bar query");
    sqlite3_finalize(s);
    return rc;
}

/* The geomean of each series' speedups, with its bound (geomean_speedup). */
static int load_geomean(rp_report *r, bar_chart *c, const bar_kind *k, sp_err *err)
{
    char sql[512];
    const char *v = k->what;
    snprintf(sql, sizeof sql, "SELECT series, %s, %s_lo, %s_hi, %s FROM geomean_speedup"
                              " WHERE sweep_id = ?1 AND operation = ?2 AND level = ?3",
             v, v, v, strcmp(v, "speedup") ? "vendor_matrices" : "speedup_matrices");
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(r->db, sql, -1, &s, NULL) != SQLITE_OK)
        return rp_db_fail(r, err, "preparing the geomean query");
    sqlite3_bind_int64(s, 1, r->sweep_id);
    sqlite3_bind_text(s, 2, c->s->op, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 3, c->s->level, -1, SQLITE_STATIC);
    for (int i = 0; i < RP_SERIES; i++)
        c->gm[i][0] = c->gm[i][1] = c->gm[i][2] = NAN;
    int step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        int i = rp_series_index(c->s, (const char *)sqlite3_column_text(s, 0));
        if (i < 0 || !c->has[i])
            continue;
        for (int j = 0; j < 3; j++)
            c->gm[i][j] = num(s, 1 + j);
        c->gm_n[i] = sqlite3_column_int(s, 4);
    }
    c->geomean = 1;
    int rc = step == SQLITE_DONE ? 0 : rp_db_fail(r, err, "reading the geomean query");
    sqlite3_finalize(s);
    return rc;
}

/* The plotted range of the values and interval ends of every group. */
static void value_range(const bar_chart *c, double *lo, double *hi)
{
    *lo = INFINITY, *hi = 0;
    for (int g = 0; g <= c->n; g++)
        for (int i = 0; i < RP_SERIES; i++)
            for (int j = 0; j < 3; j++) {
                double x = g < c->n ? c->g[g].v[i][j] : c->geomean ? c->gm[i][j] : NAN;
                if (x > 0) {
                    *lo = fmin(*lo, x);
                    *hi = fmax(*hi, x);
                }
            }
    if (!(*hi > 0))
        *lo = 0.5, *hi = 2;
}

/* One bar's three columns: the value and its interval's ends; no interval:
 * both ends at the value; one end unbounded: that end at the plot's edge
 * (bottom, top). No value: NaN (no bar). */
static void write_bar(FILE *f, const double *v, double bottom, double top)
{
    if (isnan(v[0])) {
        fprintf(f, "\tNaN\tNaN\tNaN");
        return;
    }
    double a = v[1], b = v[2];
    if (isnan(a) && isnan(b))
        a = b = v[0];
    else if (isnan(a))
        a = bottom;
    else if (isnan(b))
        b = top;
    fprintf(f, "\t%.9g\t%.9g\t%.9g", v[0], a, b);
}

/* BASE.dat of the groups [first, last) (and the geomean): a line each,
 * the group's number, then three columns per series drawn. */
static void write_data(FILE *f, const bar_chart *c, int first, int last, double bottom,
                       double top)
{
    fprintf(f, "# operation: ");
    rp_gp_name(f, c->s->op, RP_GP_DATA);
    fprintf(f, "\n# group\tmatrix");
    for (int i = 0; i < c->s->n; i++) {
        fputc('\t', f);
        rp_gp_name(f, c->s->name[i], RP_GP_DATA);
        fprintf(f, "\tlow\thigh");
    }
    fputc('\n', f);
    for (int g = first; g <= last; g++) {
        if (g == last && !c->geomean)
            break;
        fprintf(f, "%d\t", g - first);
        rp_gp_name(f, g < last ? c->g[g].matrix : "geomean", RP_GP_DATA);
        for (int i = 0; i < c->s->n; i++)
            write_bar(f, g < last ? c->g[g].v[i] : c->gm[i], bottom, top);
        fputc('\n', f);
    }
}

/* The matrices' names (cut shorter one column wide) as tics, and
 * "geomean" last. */
static void write_xtics(FILE *f, const bar_chart *c, int first, int last)
{
    char name[64];
    for (int size = 0; size < 2; size++) {
        fprintf(f, size ? "} else {\n  set xtics (" : "if (exists('sp_col') && sp_col == 1) {\n"
                                                      "  set xtics (");
        for (int g = first; g < last; g++) {
            rp_short_name(name, sizeof name, c->g[g].matrix, size ? TIC_CHARS : TIC_CHARS_1COL);
            fprintf(f, "%s", g > first ? ", " : "");
            rp_gp_name(f, name, RP_GP_TIC);
            fprintf(f, " %d", g - first);
        }
        if (c->geomean)
            fprintf(f, ", 'geomean' %d", last - first);
        fprintf(f, ")\n");
    }
    fprintf(f, "}\nset xrange [-0.6:%g]\n", last - first + c->geomean - 0.4);
    if (c->geomean)
        fprintf(f, "set arrow from %g, graph 0 to %g, graph 1 nohead dt 3 lc rgb 'grey50'\n",
                last - first - 0.5, last - first - 0.5);
}

/* BASE.gp: clustered bars with error bars; a log axis over a wide range. */
static void write_script(FILE *f, const bar_chart *c, const bar_kind *k, const char *dat,
                         const char *title, int first, int last, double lo, double hi)
{
    rp_chart_head(f, c->s->op, title);
    char label[512], note[512];
    if (k->role)
        snprintf(label, sizeof label, "speedup (median times)");
    else
        snprintf(label, sizeof label, "%s (median; bars: 95 %% CI)", c->s->unit);
    fprintf(f, "set ylabel ");
    rp_gp_name(f, label, RP_GP_STRING);
    rp_series_note(note, sizeof note, c->s);
    if (k->role && c->missing)
        snprintf(note + strlen(note), sizeof note - strlen(note), "%s%d matri%s without %s left out",
                 *note ? "; " : "", c->missing, c->missing == 1 ? "x" : "ces", c->baseline);
    fputc('\n', f);
    rp_gp_label(f, "x", k->role ? "matrices by nnz; geomean: all matrices, error bar: its bound"
                                : "matrices by nnz", note);
    fprintf(f, "set lmargin 9\nset rmargin 3\nset style data histograms\nset style histogram errorbars gap 1 lw 1\n"
               "set style fill solid 0.9 border -1\nset boxwidth 0.9 relative\nset bars 0.3\n"
               "set grid ytics lc rgb '#dddddd'\nset xtics nomirror rotate by 45 right\n");
    rp_key_below(f);
    rp_palette(f);
    write_xtics(f, c, first, last);
    if (k->role)
        fprintf(f, "set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 "
                   "lc rgb 'black' front\n");
    if (hi > 20 * lo || k->role) {
        double bottom = k->role ? fmin(lo, 1) / 1.5 : lo / 2;
        double top = k->role ? fmax(hi, 1) * 1.5 : hi * 1.5;
        fprintf(f, "set logscale y\nset yrange [%.9g:%.9g]\n", bottom, top);
        rp_log_tics(f, "y", bottom, top, 0);
    } else
        fprintf(f, "set yrange [0:%.9g]\n", hi * 1.1);
    fprintf(f, "plot");
    int drawn = 0;
    for (int i = 0; i < c->s->n; i++) {
        if (!c->has[i])
            continue;
        fprintf(f, "%s \\\n  ", drawn++ ? "," : "");
        rp_gp_name(f, dat, RP_GP_STRING);
        fprintf(f, " using %d:%d:%d lt %d title ", 3 * i + 3, 3 * i + 4, 3 * i + 5, i + 1);
        rp_gp_name(f, c->s->name[i], RP_GP_STRING);
    }
    fprintf(f, "\n");
}

/* One page: BASE.dat and BASE.gp of groups [first, last). */
static int write_page(rp_report *r, const bar_chart *c, const bar_kind *k, const char *base,
                      const char *title, int first, int last, sp_err *err)
{
    char dat[420], gp[420];
    snprintf(dat, sizeof dat, "%s.dat", base);
    snprintf(gp, sizeof gp, "%s.gp", base);
    double lo, hi;
    value_range(c, &lo, &hi);
    double bottom = k->role ? fmin(lo, 1) / 1.5 : hi > 20 * lo ? lo / 2 : 0;
    double top = k->role ? fmax(hi, 1) * 1.5 : hi > 20 * lo ? hi * 1.5 : hi * 1.1;
    FILE *f = rp_create(r, dat, err);
    if (!f)
        return -1;
    write_data(f, c, first, last, bottom, top);
    if (rp_finish(f, r, dat, err) || !(f = rp_create(r, gp, err)))
        return -1;
    write_script(f, c, k, dat, title, first, last, lo, hi);
    return rp_finish(f, r, gp, err) || rp_add_chart(r, base, err) ? -1 : 0;
}

/* Every page of one kind of bar chart; nothing without a bar. */
static int bar_pages(rp_report *r, const rp_series *s, const bar_kind *k, sp_err *err)
{
    bar_chart c = {.s = s};
    int found = 1, rc = 0, any = 0;
    rp_sql_mark(r);
    if (k->role)
        rc = find_baseline(r, &c, k->role, &found, err);
    if (rc == 0 && found)
        rc = load_groups(r, &c, k, err);
    for (int i = 0; i < s->n; i++)
        any |= c.has[i];
    if (rc == 0 && found && any && k->role)
        rc = load_geomean(r, &c, k, err);
    int pages = (c.n + BAR_GROUPS - 1) / BAR_GROUPS;
    for (int p = 0; rc == 0 && any && p < pages; p++) {
        char base[400], title[400], name[200];
        rp_sanitize(name, sizeof name, c.baseline);
        if (k->role)
            snprintf(base, sizeof base, "%s-speedup-vs-%s-%d", s->file, name, p + 1);
        else
            snprintf(base, sizeof base, "%s-rate-by-matrix-%d", s->file, p + 1);
        if (k->role)
            snprintf(title, sizeof title, "%s speedup over %s%s", rp_op_title(s->op),
                     c.baseline, strcmp(k->role, "serial") ? " (vendor)" : "");
        else
            snprintf(title, sizeof title, "%s rate per matrix", rp_op_title(s->op));
        if (pages > 1)
            snprintf(title + strlen(title), sizeof title - strlen(title), " (%d of %d)",
                     p + 1, pages);
        int last = (p + 1) * BAR_GROUPS < c.n ? (p + 1) * BAR_GROUPS : c.n;
        rc = write_page(r, &c, k, base, title, p * BAR_GROUPS, last, err);
    }
    chart_free(&c);
    return rc;
}

int rp_rate_bars(rp_report *r, const rp_series *s, sp_err *err)
{
    static const bar_kind rate = {"rate", NULL};
    return bar_pages(r, s, &rate, err);
}

int rp_speedup_bars(rp_report *r, const rp_series *s, sp_err *err)
{
    static const bar_kind serial = {"speedup", "serial"}, vendor = {"vendor_speedup", "vendor"};
    return bar_pages(r, s, &serial, err) || bar_pages(r, s, &vendor, err) ? -1 : 0;
}
