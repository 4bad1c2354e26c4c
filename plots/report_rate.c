/*
 * report_rate.c — per matrix and operation, the rate of every kernel
 * against its parallelism axis: threads for CPU kernels, blocksize for GPU
 * kernels. One line per kernel (and per value of its other axes); a kernel
 * without that axis (the serial baseline, cuSPARSE) is drawn as a dashed
 * horizontal line. Points are the median; error bars span the 95 %
 * interval of the median (db/stats.c), or the slowest and the fastest
 * sample for a run with too few samples for one.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_impl.h"

/* How a chart of one device is drawn. */
typedef struct rate_axis {
    const char *device;         /* runs.device */
    const char *path;           /* JSON path of the x axis */
    const char *name;           /* axis name in labels */
    const char *xlabel;
    int log2x;
} rate_axis;

static const rate_axis rate_axes[2] = {
    {"cpu", "$.threads", "threads", "OpenMP threads", 0},
    {"gpu", "$.blocksize", "blocksize", "threads per block (blocksize)", 1},
};

/* One run on the chart. */
typedef struct rate_point {
    char *series;               /* kernel + other axis values: the line's label */
    int has_x;
    /* lo, hi: the median's 95 % interval (the slowest and the fastest sample
     * when a run has too few samples for one) */
    double x, flops, bytes, median, min, max;
} rate_point;

typedef struct rate_chart {
    int n, cap;
    rate_point *p;
    int use_bytes;              /* no flop model: plot GB/s */
    char unit[32];              /* the operation's rate unit ("GFLOPS", "Gnnz/s") */
    double scale;               /* ... and its scale (1e9 for G) */
    double lo, hi;              /* the plotted x range */
    int no_axis;                /* no run has the axis: x means nothing */
} rate_chart;

static void rate_chart_free(rate_chart *c)
{
    for (int i = 0; i < c->n; i++)
        free(c->p[i].series);
    free(c->p);
    memset(c, 0, sizeof *c);
}

/* The series label of a row: kernel name plus its other axis values. */
static char *series_label(sqlite3_stmt *s)
{
    const char *kernel = (const char *)sqlite3_column_text(s, 0);
    char rest[256], label[512];
    rp_axes_text(rest, sizeof rest, (const char *)sqlite3_column_text(s, 1));
    snprintf(label, sizeof label, "%s%s%s", kernel ? kernel : "?", rest[0] ? " " : "", rest);
    return strdup(label);
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
    if (!(p->series = series_label(s)))
        return sp_fail(err, "report: out of memory");
    p->has_x = sqlite3_column_type(s, 2) != SQLITE_NULL;
    p->x = sqlite3_column_double(s, 2);
    p->flops = sqlite3_column_double(s, 3);
    p->bytes = sqlite3_column_double(s, 4);
    p->median = sqlite3_column_double(s, 5);
    p->min = sqlite3_column_double(s, 6);
    p->max = sqlite3_column_double(s, 7);
    if (c->n == 0) {
        const unsigned char *u = sqlite3_column_text(s, 8);
        snprintf(c->unit, sizeof c->unit, "%s", u ? (const char *)u : "GFLOPS");
        c->scale = sqlite3_column_double(s, 9) > 0 ? sqlite3_column_double(s, 9) : 1e9;
    }
    c->n++;
    return 0;
}

/* Load the runs of one matrix, operation and device, grouped by series. */
static int rate_load(rp_report *r, int64_t matrix_id, const char *op, const rate_axis *ax,
                     rate_chart *c, sp_err *err)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(r->db,
            "SELECT kernel, json_remove(axes, ?4), json_extract(axes, ?4), flops, bytes,"
            " median, coalesce(ci_lo, min), coalesce(ci_hi, max), rate_unit, rate_scale"
            " FROM run_stats"
            " WHERE sweep_id = ?1 AND matrix_id = ?2 AND operation = ?3 AND device = ?5"
            " ORDER BY kernel, json_remove(axes, ?4), json_extract(axes, ?4), run_id",
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

/* Choose the metric and the plotted x range (the extent of the axis values,
 * padded) once every point is loaded. */
static void rate_summarise(rate_chart *c, const rate_axis *ax)
{
    double xmin = INFINITY, xmax = -INFINITY;
    c->use_bytes = 1;
    for (int i = 0; i < c->n; i++) {
        if (c->p[i].flops > 0)
            c->use_bytes = 0;
        if (c->p[i].has_x) {
            xmin = fmin(xmin, c->p[i].x);
            xmax = fmax(xmax, c->p[i].x);
        }
    }
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

/* One data line: x, rate from the median, from the two ends of its 95 %
 * interval (the slowest and fastest sample without one), then the times. */
static void rate_write_point(FILE *f, const rate_chart *c, const rate_point *p, double x)
{
    double work = c->use_bytes ? p->bytes : p->flops;
    double scale = c->use_bytes ? 1e9 : c->scale;
    fprintf(f, "%.17g\t%.9g\t%.9g\t%.9g\t%.9g\t%.9g\t%.9g\n", x, work / p->median / scale,
            work / p->max / scale, work / p->min / scale, p->median, p->min, p->max);
}

/* Write the data: one block (separated by two blank lines) per series.
 * A series without the axis becomes two points spanning the x range. */
static void rate_write_data(FILE *f, const rate_chart *c)
{
    fprintf(f, "# x\trate_median\trate_ci_low\trate_ci_high\tmedian_s\tci_lo_s\tci_hi_s\n");
    for (int i = 0; i < c->n; i++) {
        const rate_point *p = &c->p[i];
        if (i > 0 && strcmp(p->series, c->p[i - 1].series) != 0)
            fprintf(f, "\n\n");
        if (p->has_x) {
            rate_write_point(f, c, p, p->x);
        } else {
            rate_write_point(f, c, p, c->lo);
            rate_write_point(f, c, p, c->hi);
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
        int seen = !c->p[i].has_x;
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
 * interval, or for a series without the axis a dashed level over a light
 * band of it. */
static void rate_write_clause(FILE *f, const rate_point *p, const rate_axis *ax,
                              const char *dat, int block, int color)
{
    if (p->has_x) {
        rp_gp_name(f, dat, RP_GP_STRING);
        fprintf(f, " index %d using 1:2:3:4 with yerrorlines lc %d lw 2 pt 7 ps 1.2 title ",
                block, color);
        rp_gp_name(f, p->series, RP_GP_STRING);
        return;
    }
    char label[600];
    snprintf(label, sizeof label, "%s (no %s axis)", p->series, ax->name);
    rp_gp_name(f, dat, RP_GP_STRING);
    fprintf(f, " index %d using 1:3:4 with filledcurves lc %d fs transparent solid 0.15 "
               "noborder notitle, \\\n  ", block, color);
    rp_gp_name(f, dat, RP_GP_STRING);
    fprintf(f, " index %d using 1:2 with lines lc %d dt 2 lw 2 title ", block, color);
    rp_gp_name(f, label, RP_GP_STRING);
}

/* The plot command: one clause per series, each in its own colour. */
static void rate_write_plot(FILE *f, const rate_chart *c, const rate_axis *ax,
                            const char *dat)
{
    fprintf(f, "plot");
    int block = 0;
    for (int i = 0; i < c->n; i++) {
        if (i > 0 && strcmp(c->p[i].series, c->p[i - 1].series) == 0)
            continue;
        fprintf(f, "%s \\\n  ", block ? "," : "");
        rate_write_clause(f, &c->p[i], ax, dat, block, block + 1);
        block++;
    }
    fprintf(f, "\n");
}

/* The chart's gnuplot commands. */
static void rate_write_script(FILE *f, const rate_chart *c, const rate_axis *ax,
                              const char *matrix, const char *op, const char *dat)
{
    char title[800];
    snprintf(title, sizeof title, "%s: %s on the %s (point: median; bars: its 95 %% interval, "
             "else fastest..slowest sample)", matrix, op,
             strcmp(ax->device, "gpu") == 0 ? "GPU" : "CPU");
    fprintf(f, "reset\nset datafile separator tab\nset title ");
    rp_gp_name(f, title, RP_GP_STRING);
    fprintf(f, "\nset xlabel ");
    rp_gp_name(f, ax->xlabel, RP_GP_STRING);
    char ylabel[80];
    snprintf(ylabel, sizeof ylabel, "%s (from the median time)", c->use_bytes ? "GB/s" : c->unit);
    fprintf(f, "\nset ylabel ");
    rp_gp_name(f, ylabel, RP_GP_STRING);
    fprintf(f, "\n");
    rp_palette(f);
    fprintf(f, "set yrange [0:*]\nset grid ytics lc rgb '#dddddd'\n"
               "set key below horizontal\nset bars small\n");
    rate_write_xaxis(f, c, ax);
    rate_write_plot(f, c, ax, dat);
}

/* Build the chart base name, unique within the report. */
static void rate_base(const rp_report *r, char *base, size_t len, const char *matrix,
                      int64_t matrix_id, const char *op, const char *device)
{
    char m[256], o[64];
    rp_sanitize(m, sizeof m, matrix);
    rp_sanitize(o, sizeof o, op);
    int spmv = strcmp(op, "spmv") == 0;
    snprintf(base, len, "gflops-%s%s%s-%s", m, spmv ? "" : "-", spmv ? "" : o, device);
    if (rp_has_chart(r, base))
        snprintf(base, len, "gflops-%s-%lld%s%s-%s", m, (long long)matrix_id,
                 spmv ? "" : "-", spmv ? "" : o, device);
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
    rate_write_data(f, c);
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
    int rc = rate_load(r, matrix_id, op, ax, &c, err);
    if (rc == 0 && c.n > 0) {
        char base[400];
        rate_summarise(&c, ax);
        rate_base(r, base, sizeof base, matrix, matrix_id, op, ax->device);
        rc = rate_write_files(r, base, &c, ax, matrix, op, err);
        if (rc == 0)
            rc = rp_add_chart(r, base, err);
    }
    rate_chart_free(&c);
    return rc;
}

/* Both device charts of every matrix and operation of the sweep. */
int rp_rate_charts(rp_report *r, sp_err *err)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(r->db,
            "SELECT DISTINCT matrix_id, matrix, operation FROM run_stats"
            " WHERE sweep_id = ?1 ORDER BY matrix_id, operation", -1, &s, NULL) != SQLITE_OK)
        return rp_db_fail(r, err, "preparing the matrix list");
    sqlite3_bind_int64(s, 1, r->sweep_id);
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(s)) == SQLITE_ROW) {
        char *matrix = rp_column_dup(s, 1), *op = rp_column_dup(s, 2);
        if (!matrix || !op)
            rc = sp_fail(err, "report: out of memory");
        for (int d = 0; d < 2 && rc == 0; d++)
            rc = rate_chart_one(r, sqlite3_column_int64(s, 0), matrix, op, &rate_axes[d],
                                err);
        free(matrix);
        free(op);
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = rp_db_fail(r, err, "reading the matrix list");
    sqlite3_finalize(s);
    return rc;
}
