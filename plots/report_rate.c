/*
 * report_rate.c — the appendix of a small sweep (RATE_MATRICES matrices
 * or fewer): per matrix and operation, each kernel's rate against its
 * parallelism axis, OP-rate-vs-threads-MATRIX for CPU kernels and
 * OP-rate-vs-blocksize-MATRIX for GPU kernels. One line per kernel, at
 * each value of the axis the best of its other axes (hack, chunk, ...:
 * the heatmaps and OP-all-runs.tsv have them all), the RP_SERIES kernels
 * of the best rates on the matrix; a kernel without the axis (the serial
 * baseline, cuSPARSE) is a dashed level over a light band of its
 * interval. Points are the median; error bars the 95 % interval of the
 * median (db/stats.c); a run without one has none, an end that bounds
 * nothing (a time interval reaching below 0) runs to the plot's edge.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_impl.h"

#define RATE_MATRICES 8

/* How a chart of one device is drawn. */
typedef struct rate_axis {
    const char *device;         /* runs.device */
    const char *path;           /* JSON path of the x axis */
    const char *name;           /* axis name in labels and file names */
    const char *xlabel;
    int log2x;
} rate_axis;

static const rate_axis rate_axes[2] = {
    {"cpu", "$.threads", "threads", "OpenMP threads", 0},
    {"gpu", "$.blocksize", "blocksize", "threads per block (blocksize)", 1},
};

/* One point: a kernel at one value of the axis (the best of its other
 * axes there). lo, hi: the rate at its interval's ends, NaN without one. */
typedef struct rate_point {
    char *kernel;
    int has_x;
    double x, rate, lo, hi;
} rate_point;

typedef struct rate_chart {
    int n, cap;
    rate_point *p;
    char unit[32];              /* the operation's rate unit */
    double lo, hi;              /* the plotted x range */
    double top;                 /* the plotted y range's top */
    int no_axis;                /* no run has the axis: x means nothing */
    int kernels, drawn;         /* kernels on the matrix; drawn */
    char keep[RP_SERIES][128];  /* the kernels drawn */
} rate_chart;

static void rate_chart_free(rate_chart *c)
{
    for (int i = 0; i < c->n; i++)
        free(c->p[i].kernel);
    free(c->p);
    memset(c, 0, sizeof *c);
}

static double num(sqlite3_stmt *s, int col)
{
    return sqlite3_column_type(s, col) == SQLITE_NULL ? NAN : sqlite3_column_double(s, col);
}

/* Append the current row to the chart. */
static int rate_add_row(rate_chart *c, sqlite3_stmt *s, sp_err *err)
{
    if (c->n == c->cap) {
        int cap = c->cap ? 2 * c->cap : 32;
        rate_point *grown = realloc(c->p, (size_t)cap * sizeof *grown);
        if (!grown)
            return sp_fail(err, "report: out of memory for %d points", cap);
        c->p = grown;
        c->cap = cap;
    }
    rate_point *p = &c->p[c->n];
    if (!(p->kernel = rp_column_dup(s, 0)))
        return sp_fail(err, "report: out of memory");
    p->has_x = sqlite3_column_type(s, 1) != SQLITE_NULL;
    p->x = sqlite3_column_double(s, 1);
    p->rate = sqlite3_column_double(s, 2);
    p->lo = num(s, 3);
    p->hi = num(s, 4);
    if (c->n == 0) {
        const unsigned char *u = sqlite3_column_text(s, 5);
        snprintf(c->unit, sizeof c->unit, "%s", u ? (const char *)u : "GFLOPS");
    }
    c->n++;
    return 0;
}

/* The runs of one matrix, operation and device: per kernel and value of
 * the axis the best run (smallest median), by kernel and axis value. */
static int rate_load(rp_report *r, int64_t matrix_id, const char *op, const rate_axis *ax,
                     rate_chart *c, sp_err *err)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(r->db,
            "SELECT kernel, x, rate, CASE WHEN rate_lo > 0 THEN rate_lo END,"
            " CASE WHEN rate_hi > 0 THEN rate_hi END, rate_unit FROM"
            " (SELECT *, json_extract(axes, ?4) AS x, ROW_NUMBER() OVER (PARTITION BY kernel,"
            "   json_extract(axes, ?4) ORDER BY median, run_id) AS place FROM run_stats"
            "  WHERE sweep_id = ?1 AND matrix_id = ?2 AND operation = ?3 AND device = ?5"
            "  AND rate > 0)"
            " WHERE place = 1 ORDER BY kernel, x",
            -1, &s, NULL) != SQLITE_OK)
        return rp_db_fail(r, err, "preparing the rate query");
    sqlite3_bind_int64(s, 1, r->sweep_id);
    sqlite3_bind_int64(s, 2, matrix_id);
    sqlite3_bind_text(s, 3, op, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 4, ax->path, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 5, ax->device, -1, SQLITE_STATIC);
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(s)) == SQLITE_ROW)
        rc = rate_add_row(c, s, err);
    if (rc == 0 && step != SQLITE_DONE)
        rc = rp_db_fail(r, err, "reading the rate query");
    sqlite3_finalize(s);
    return rc;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(a, b);
}

/* The kernels drawn: the RP_SERIES of the best rates on the matrix. */
static void rate_pick(rate_chart *c)
{
    double best[256];
    char *names[256];
    int n = 0;
    for (int i = 0; i < c->n; i++) {
        int k = 0;
        while (k < n && strcmp(names[k], c->p[i].kernel))
            k++;
        if (k == n && n < 256)
            names[n] = c->p[i].kernel, best[n++] = 0;
        if (k < n)
            best[k] = fmax(best[k], c->p[i].rate);
    }
    c->kernels = n;
    for (c->drawn = 0; c->drawn < RP_SERIES && c->drawn < n; c->drawn++) {
        int top = -1;
        for (int k = 0; k < n; k++)
            if (best[k] >= 0 && (top < 0 || best[k] > best[top]))
                top = k;
        snprintf(c->keep[c->drawn], sizeof c->keep[0], "%s", names[top]);
        best[top] = -1;
    }
    /* in name order, so that a kernel keeps its colour from matrix to matrix */
    qsort(c->keep, (size_t)c->drawn, sizeof c->keep[0], compare_names);
}

static int drawn_index(const rate_chart *c, const char *kernel)
{
    for (int i = 0; i < c->drawn; i++)
        if (!strcmp(c->keep[i], kernel))
            return i;
    return -1;
}

/* The plotted x range (the extent of the axis values, padded) and y top. */
static void rate_summarise(rate_chart *c, const rate_axis *ax)
{
    double xmin = INFINITY, xmax = -INFINITY;
    c->top = 0;
    for (int i = 0; i < c->n; i++) {
        if (drawn_index(c, c->p[i].kernel) < 0)
            continue;
        c->top = fmax(c->top, fmax(c->p[i].rate, isnan(c->p[i].hi) ? 0 : c->p[i].hi));
        if (c->p[i].has_x) {
            xmin = fmin(xmin, c->p[i].x);
            xmax = fmax(xmax, c->p[i].x);
        }
    }
    c->top = c->top > 0 ? c->top * 1.1 : 1;
    c->no_axis = xmin > xmax;
    if (c->no_axis)
        xmin = xmax = 1;
    if (ax->log2x) {
        c->lo = xmin / 1.3;
        c->hi = xmax * 1.3;
    } else {
        double pad = xmax > xmin ? 0.04 * (xmax - xmin) : 0.5;
        c->lo = fmax(0, xmin - pad);
        c->hi = xmax + pad;
    }
}

/* One data line: x, the rate and its interval's ends (the rate itself
 * without an interval, the plot's edge for an end that bounds nothing). */
static void rate_write_point(FILE *f, const rate_chart *c, const rate_point *p, double x)
{
    double lo = p->lo, hi = p->hi;
    if (isnan(lo) && isnan(hi))
        lo = hi = p->rate;
    fprintf(f, "%.17g\t%.9g\t%.9g\t%.9g\n", x, p->rate, isnan(lo) ? 0 : lo,
            isnan(hi) ? c->top : hi);
}

/* Write the data: one block (separated by two blank lines) per kernel
 * drawn, in the order of c->keep. A kernel without the axis becomes two
 * points spanning the x range. */
static void rate_write_data(FILE *f, const rate_chart *c, const char *op)
{
    fprintf(f, "# operation: ");
    rp_gp_name(f, op, RP_GP_DATA);
    fprintf(f, "\n# x\trate_median\trate_ci_low\trate_ci_high (no interval: the median)\n");
    for (int k = 0; k < c->drawn; k++) {
        fprintf(f, "\n\n# ");
        rp_gp_name(f, c->keep[k], RP_GP_DATA);
        fputc('\n', f);
        for (int i = 0; i < c->n; i++) {
            const rate_point *p = &c->p[i];
            if (strcmp(p->kernel, c->keep[k]))
                continue;
            if (p->has_x) {
                rate_write_point(f, c, p, p->x);
            } else {
                rate_write_point(f, c, p, c->lo);
                rate_write_point(f, c, p, c->hi);
            }
        }
    }
}

/* x range and tics: every distinct x value as a tic when there are few. */
static void rate_write_xaxis(FILE *f, const rate_chart *c, const rate_axis *ax)
{
    if (ax->log2x)
        fprintf(f, "set logscale x 2\n");
    fprintf(f, "set xrange [%.17g:%.17g]\n", c->lo, c->hi);
    if (c->no_axis) {
        fprintf(f, "unset xtics\n");
        return;
    }
    double tics[64];
    int nt = 0;
    for (int i = 0; i < c->n && nt <= 16; i++) {
        int seen = !c->p[i].has_x || drawn_index(c, c->p[i].kernel) < 0;
        for (int j = 0; j < nt && !seen; j++)
            seen = tics[j] == c->p[i].x;
        if (!seen)
            tics[nt++] = c->p[i].x;
    }
    if (nt == 0 || nt > 16)
        return;
    fprintf(f, "set xtics (");
    for (int j = 0; j < nt; j++)
        fprintf(f, "%s%.17g", j ? ", " : "", tics[j]);
    fprintf(f, ")\n");
}

/* One clause of the plot command: a line with error bars over the 95 %
 * interval, or for a kernel without the axis a dashed level over a light
 * band of it. */
static void rate_write_clause(FILE *f, const rate_chart *c, int k, const rate_axis *ax,
                              const char *dat)
{
    int has_x = 0;
    for (int i = 0; i < c->n; i++)
        has_x |= !strcmp(c->p[i].kernel, c->keep[k]) && c->p[i].has_x;
    if (has_x) {
        rp_gp_name(f, dat, RP_GP_STRING);
        fprintf(f, " index %d using 1:2:3:4 with yerrorlines lt %d lw 2 title ", k, k + 1);
        rp_gp_name(f, c->keep[k], RP_GP_STRING);
        return;
    }
    char label[300];
    snprintf(label, sizeof label, "%s (no %s axis)", c->keep[k], ax->name);
    rp_gp_name(f, dat, RP_GP_STRING);
    fprintf(f, " index %d using 1:3:4 with filledcurves lt %d fs transparent solid 0.15 "
               "noborder notitle, \\\n  ", k, k + 1);
    rp_gp_name(f, dat, RP_GP_STRING);
    fprintf(f, " index %d using 1:2 with lines lt %d dt 2 lw 2 title ", k, k + 1);
    rp_gp_name(f, label, RP_GP_STRING);
}

/* The chart's gnuplot commands. */
static void rate_write_script(FILE *f, const rate_chart *c, const rate_axis *ax,
                              const char *matrix, const char *op, const char *dat)
{
    char title[400], name[64], note[300] = "", file[64];
    rp_sanitize(file, sizeof file, op);
    rp_short_name(name, sizeof name, matrix, 40);
    snprintf(title, sizeof title, "%s on %s, %s", rp_op_title(op), name,
             strcmp(ax->device, "gpu") == 0 ? "GPU" : "CPU");
    rp_chart_head(f, op, title);
    if (c->kernels > c->drawn)
        snprintf(note, sizeof note, "the %d best of %d kernels; all in the heatmaps and "
                 "%s-all-runs.tsv", c->drawn, c->kernels, file);
    rp_gp_label(f, "x", ax->xlabel, note);
    char ylabel[80];
    snprintf(ylabel, sizeof ylabel, "%s (median; bars: 95 %% CI)", c->unit);
    fprintf(f, "set ylabel ");
    rp_gp_name(f, ylabel, RP_GP_STRING);
    fprintf(f, "\n");
    rp_palette(f);
    fprintf(f, "set yrange [0:%.9g]\nset grid ytics lc rgb '#dddddd'\nset bars small\n",
            c->top);
    rp_key_below(f);
    rate_write_xaxis(f, c, ax);
    fprintf(f, "plot");
    for (int k = 0; k < c->drawn; k++) {
        fprintf(f, "%s \\\n  ", k ? "," : "");
        rate_write_clause(f, c, k, ax, dat);
    }
    fprintf(f, "\n");
}

/* Build the chart base name, unique within the report. */
static void rate_base(const rp_report *r, char *base, size_t len, const char *matrix,
                      int64_t matrix_id, const char *op, const rate_axis *ax)
{
    char m[256], o[64];
    rp_sanitize(m, sizeof m, matrix);
    rp_sanitize(o, sizeof o, op);
    snprintf(base, len, "%s-rate-vs-%s-%s", o, ax->name, m);
    if (rp_has_chart(r, base))
        snprintf(base, len, "%s-rate-vs-%s-%s-%lld", o, ax->name, m, (long long)matrix_id);
}

/* Write BASE.dat and BASE.gp of one chart. */
static int rate_write_files(rp_report *r, const char *base, const rate_chart *c,
                            const rate_axis *ax, const char *matrix, const char *op,
                            sp_err *err)
{
    char dat[420], gp[420];
    snprintf(dat, sizeof dat, "%s.dat", base);
    snprintf(gp, sizeof gp, "%s.gp", base);
    FILE *f = rp_create(r, dat, err);
    if (!f)
        return -1;
    rate_write_data(f, c, op);
    if (rp_finish(f, r, dat, err))
        return -1;
    if (!(f = rp_create(r, gp, err)))
        return -1;
    rate_write_script(f, c, ax, matrix, op, dat);
    return rp_finish(f, r, gp, err);
}

/* One chart of one matrix, operation and device; nothing when no run of
 * that device succeeded. */
static int rate_chart_one(rp_report *r, int64_t matrix_id, const char *matrix,
                          const char *op, const rate_axis *ax, sp_err *err)
{
    rate_chart c = {0};
    rp_sql_mark(r);
    int rc = rate_load(r, matrix_id, op, ax, &c, err);
    if (rc == 0 && c.n > 0) {
        char base[400];
        rate_pick(&c);
        rate_summarise(&c, ax);
        rate_base(r, base, sizeof base, matrix, matrix_id, op, ax);
        rc = rate_write_files(r, base, &c, ax, matrix, op, err);
        if (rc == 0)
            rc = rp_add_chart(r, base, err);
    }
    rate_chart_free(&c);
    return rc;
}

/* Both device charts of every matrix of the operation, in a small sweep. */
int rp_rate_charts(rp_report *r, const rp_series *se, sp_err *err)
{
    if (se->matrices > RATE_MATRICES)
        return 0;
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(r->db,
            "SELECT DISTINCT r.matrix_id, r.matrix, m.nnz FROM run_stats r JOIN matrices m"
            " ON m.id = r.matrix_id WHERE r.sweep_id = ?1 AND r.operation = ?2"
            " ORDER BY m.nnz, r.matrix_id", -1, &s, NULL) != SQLITE_OK)
        return rp_db_fail(r, err, "preparing the matrix list");
    sqlite3_bind_int64(s, 1, r->sweep_id);
    sqlite3_bind_text(s, 2, se->op, -1, SQLITE_STATIC);
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(s)) == SQLITE_ROW) {
        char *matrix = rp_column_dup(s, 1);
        if (!matrix)
            rc = sp_fail(err, "report: out of memory");
        for (int d = 0; d < 2 && rc == 0; d++)
            rc = rate_chart_one(r, sqlite3_column_int64(s, 0), matrix, se->op, &rate_axes[d],
                                err);
        free(matrix);
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = rp_db_fail(r, err, "reading the matrix list");
    sqlite3_finalize(s);
    return rc;
}
