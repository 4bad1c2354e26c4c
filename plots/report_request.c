/*
 * report_request.c — the charts the sweep's config asks for: its
 * [chart NAME] sections (runner/plan/charts.h), read back from the config text
 * stored with the sweep. Each asks for y = rate, time or speedup against
 * one axis x; one chart per operation and matrix, and per format family
 * or kernel with `split`: OP-NAME[-GROUP]-MATRIX. A line per kernel, at
 * each value of x the best run of its other axes (smallest median; with
 * stat = mean, smallest mean); a kernel without x is a dashed level over
 * its interval; at most RP_SERIES kernels (the best), the note says how
 * many were left out. Error bars: the 95 % interval of the median (a
 * speedup's from both runs' intervals, as the speedup view); the mean has
 * none. On a threads axis the sweep's physical core count is marked.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../runner/plan/charts.h"
#include "report_impl.h"

/* One point: a kernel at one value of x. lo, hi: NaN without an interval. */
typedef struct rq_point {
    char kernel[128];
    char group[128];
    int has_x;
    double x, y, lo, hi;
} rq_point;

typedef struct rq_chart {
    const sp_chart_spec *spec;
    const char *op;
    int n, cap;
    rq_point *p;
    char unit[32];              /* the operation's rate unit */
    char baseline[128];         /* y = speedup: the kernel divided by */
    double time_scale;          /* y = time: seconds -> the unit of time_unit */
    const char *time_unit;
    int cores;                  /* physical cores of the sweep's host (0: unknown) */
    int without_x;              /* groups not drawn: no run of theirs has x */
} rq_chart;

/* One chart being drawn: the points of one group, the kernels kept. */
typedef struct rq_draw {
    const char *group;
    char keep[RP_SERIES][128];
    int drawn, kernels;
    double xlo, xhi, top;
    int no_axis, logx;
} rq_draw;

static double num(sqlite3_stmt *s, int col)
{
    return sqlite3_column_type(s, col) == SQLITE_NULL ? NAN : sqlite3_column_double(s, col);
}

static const char *text(sqlite3_stmt *s, int col)
{
    const unsigned char *t = sqlite3_column_text(s, col);
    return t ? (const char *)t : "";
}

/* The baseline's best double-precision run on the matrix: its time (median
 * or mean) and interval; 0 when it has none there. */
static int baseline_run(rp_report *r, rq_chart *c, int64_t matrix_id, double *t, double *lo,
                        double *hi, sp_err *err)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(r->db,
            "SELECT CASE WHEN ?5 THEN mean ELSE median END, ci_lo, ci_hi FROM run_stats"
            " WHERE sweep_id = ?1 AND matrix_id = ?2 AND operation = ?3 AND kernel = ?4"
            " AND coalesce(json_extract(axes, '$.precision'), 'double') = 'double'"
            " ORDER BY CASE WHEN ?5 THEN mean ELSE median END, run_id LIMIT 1",
            -1, &s, NULL) != SQLITE_OK)
        return rp_db_fail(r, err, "preparing the baseline query");
    sqlite3_bind_int64(s, 1, r->sweep_id);
    sqlite3_bind_int64(s, 2, matrix_id);
    sqlite3_bind_text(s, 3, c->op, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 4, c->baseline, -1, SQLITE_STATIC);
    sqlite3_bind_int(s, 5, c->spec->mean);
    int step = sqlite3_step(s), found = step == SQLITE_ROW;
    if (found) {
        *t = num(s, 0);
        *lo = num(s, 1);
        *hi = num(s, 2);
    }
    sqlite3_finalize(s);
    if (!found && step != SQLITE_DONE)
        return rp_db_fail(r, err, "reading the baseline query");
    return found;
}

/* The point of the current row: y from the time t and the interval. */
static void rq_value(const rq_chart *c, sqlite3_stmt *s, double bt, double blo, double bhi,
                     rq_point *p)
{
    double t = num(s, c->spec->mean ? 4 : 3), lo = num(s, 5), hi = num(s, 6);
    double flops = num(s, 7), scale = num(s, 8);
    if (c->spec->mean)
        lo = hi = NAN;
    switch (c->spec->y) {
    case SP_CHART_RATE:
        p->y = flops / t / scale, p->lo = flops / hi / scale, p->hi = flops / lo / scale;
        break;
    case SP_CHART_TIME:
        p->y = t * c->time_scale, p->lo = lo * c->time_scale, p->hi = hi * c->time_scale;
        break;
    default:
        p->y = bt / t, p->lo = blo / hi, p->hi = bhi / lo;
        break;
    }
    if (!(p->lo > 0 && isfinite(p->lo)) || !(p->hi > 0 && isfinite(p->hi)))
        p->lo = p->hi = NAN;
}

static int rq_add(rq_chart *c, sp_err *err)
{
    if (c->n < c->cap)
        return 0;
    int cap = c->cap ? 2 * c->cap : 32;
    rq_point *grown = realloc(c->p, (size_t)cap * sizeof *grown);
    if (!grown)
        return sp_fail(err, "report: out of memory for %d points", cap);
    c->p = grown;
    c->cap = cap;
    return 0;
}

/* The points of one matrix: per kernel the chart selects and value of x,
 * the best run. 0 points (c->n) when the baseline has no run there. */
static int rq_load(rp_report *r, rq_chart *c, int64_t matrix_id, sp_err *err)
{
    double bt = NAN, blo = NAN, bhi = NAN;
    c->n = 0;
    if (c->spec->y == SP_CHART_SPEEDUP) {
        int found = baseline_run(r, c, matrix_id, &bt, &blo, &bhi, err);
        if (found <= 0)
            return found;
    }
    char path[40];
    snprintf(path, sizeof path, "$.%s", c->spec->x);
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(r->db,
            "SELECT kernel, format, device, median, mean, ci_lo, ci_hi, flops, rate_scale,"
            " rate_unit, x, variant FROM"
            " (SELECT *, json_extract(axes, ?4) AS x, ROW_NUMBER() OVER (PARTITION BY kernel,"
            "   variant, json_extract(axes, ?4)"
            "   ORDER BY CASE WHEN ?5 THEN mean ELSE median END,"
            "   run_id) AS place FROM run_stats"
            "  WHERE sweep_id = ?1 AND matrix_id = ?2 AND operation = ?3 AND median > 0)"
            " WHERE place = 1 ORDER BY kernel, variant, x",
            -1, &s, NULL) != SQLITE_OK)
        return rp_db_fail(r, err, "preparing the chart query");
    sqlite3_bind_int64(s, 1, r->sweep_id);
    sqlite3_bind_int64(s, 2, matrix_id);
    sqlite3_bind_text(s, 3, c->op, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 4, path, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(s, 5, c->spec->mean);
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(s)) == SQLITE_ROW) {
        const char *kernel = text(s, 0), *device = text(s, 2);
        if (!sp_chart_selects(c->spec, kernel) ||
            (c->spec->device[0] && strcmp(device, c->spec->device)))
            continue;
        if ((rc = rq_add(c, err)))
            break;
        rq_point *p = &c->p[c->n++];
        memset(p, 0, sizeof *p);
        /* a precision or memory other than the default is a series of its
         * own, named as in the views' series_best_runs */
        const char *variant = text(s, 11);
        snprintf(p->kernel, sizeof p->kernel, "%s%s", kernel, variant);
        if (c->spec->split == SP_CHART_SPLIT_FAMILY) {
            sp_chart_family(kernel, text(s, 1), p->group, sizeof p->group);
            snprintf(p->group + strlen(p->group), sizeof p->group - strlen(p->group), "%s",
                     variant);
        } else if (c->spec->split == SP_CHART_SPLIT_KERNEL)
            snprintf(p->group, sizeof p->group, "%s", p->kernel);
        p->has_x = sqlite3_column_type(s, 10) != SQLITE_NULL;
        p->x = sqlite3_column_double(s, 10);
        if (!c->unit[0])
            snprintf(c->unit, sizeof c->unit, "%s", text(s, 9));
        rq_value(c, s, bt, blo, bhi, p);
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = rp_db_fail(r, err, "reading the chart query");
    sqlite3_finalize(s);
    return rc;
}

/* Is y better than best for this chart (time: smaller; else larger)? */
static int better(const rq_chart *c, double y, double best)
{
    return c->spec->y == SP_CHART_TIME ? y < best : y > best;
}

static int in_group(const rq_point *p, const rq_draw *d)
{
    return !strcmp(p->group, d->group);
}

static int kept(const rq_draw *d, const char *kernel)
{
    for (int i = 0; i < d->drawn; i++)
        if (!strcmp(d->keep[i], kernel))
            return i;
    return -1;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(a, b);
}

/* The kernels of the group drawn: the RP_SERIES best (each at its best
 * value), then in name order so that a kernel keeps its colour. */
static void rq_pick(const rq_chart *c, rq_draw *d)
{
    const char *names[256];
    double best[256];
    int n = 0;
    for (int i = 0; i < c->n; i++) {
        if (!in_group(&c->p[i], d))
            continue;
        int k = 0;
        while (k < n && strcmp(names[k], c->p[i].kernel))
            k++;
        if (k == n && n < 256)
            names[n] = c->p[i].kernel, best[n++] = c->p[i].y;
        else if (k < n && better(c, c->p[i].y, best[k]))
            best[k] = c->p[i].y;
    }
    d->kernels = n;
    int taken[256] = {0};
    for (d->drawn = 0; d->drawn < RP_SERIES && d->drawn < n; d->drawn++) {
        int top = -1;
        for (int k = 0; k < n; k++)
            if (!taken[k] && (top < 0 || better(c, best[k], best[top])))
                top = k;
        taken[top] = 1;
        snprintf(d->keep[d->drawn], sizeof d->keep[0], "%s", names[top]);
    }
    qsort(d->keep, (size_t)d->drawn, sizeof d->keep[0], compare_names);
}

/* The x range (padded; log 2 for a wide positive axis other than
 * threads) and the y range's top. */
static void rq_ranges(const rq_chart *c, rq_draw *d)
{
    double xmin = INFINITY, xmax = -INFINITY;
    d->top = 0;
    for (int i = 0; i < c->n; i++) {
        const rq_point *p = &c->p[i];
        if (!in_group(p, d) || kept(d, p->kernel) < 0)
            continue;
        d->top = fmax(d->top, fmax(p->y, isnan(p->hi) ? 0 : p->hi));
        if (p->has_x)
            xmin = fmin(xmin, p->x), xmax = fmax(xmax, p->x);
    }
    d->top = d->top > 0 ? d->top * 1.1 : 1;
    d->no_axis = xmin > xmax;
    if (d->no_axis)
        xmin = xmax = 1;
    d->logx = strcmp(c->spec->x, "threads") && xmin > 0 && xmax / xmin >= 8;
    double pad = xmax > xmin ? 0.04 * (xmax - xmin) : 0.5;
    d->xlo = d->logx ? xmin / 1.3 : fmax(xmin >= 0 ? 0 : -INFINITY, xmin - pad);
    d->xhi = d->logx ? xmax * 1.3 : xmax + pad;
}

static void rq_write_point(FILE *f, const rq_draw *d, const rq_point *p, double x)
{
    double lo = isnan(p->lo) ? p->y : p->lo, hi = isnan(p->hi) ? p->y : p->hi;
    fprintf(f, "%.17g\t%.9g\t%.9g\t%.9g\n", x, p->y, lo, fmin(hi, d->top));
}

/* One block per kernel drawn ("# KERNEL" heads it); a kernel without x
 * is two points spanning the range. */
static void rq_write_data(FILE *f, const rq_chart *c, const rq_draw *d)
{
    fprintf(f, "# operation: ");
    rp_gp_name(f, c->op, RP_GP_DATA);
    fprintf(f, "\n# x = ");
    rp_gp_name(f, c->spec->x, RP_GP_DATA);
    fprintf(f, "\n# %s\t%s\tci_low\tci_high (no interval: the value itself)\n", "x",
            c->spec->mean ? "mean" : "median");
    for (int k = 0; k < d->drawn; k++) {
        fprintf(f, "\n\n# ");
        rp_gp_name(f, d->keep[k], RP_GP_DATA);
        fputc('\n', f);
        for (int i = 0; i < c->n; i++) {
            const rq_point *p = &c->p[i];
            if (!in_group(p, d) || strcmp(p->kernel, d->keep[k]))
                continue;
            if (p->has_x) {
                rq_write_point(f, d, p, p->x);
            } else {
                rq_write_point(f, d, p, d->xlo);
                rq_write_point(f, d, p, d->xhi);
            }
        }
    }
}

/* The y label: what, of what statistic, which bars. */
static void rq_ylabel(FILE *f, const rq_chart *c)
{
    char what[200], label[300];
    if (c->spec->y == SP_CHART_RATE)
        snprintf(what, sizeof what, "%s", c->unit[0] ? c->unit : "rate");
    else if (c->spec->y == SP_CHART_TIME)
        snprintf(what, sizeof what, "time (%s)", c->time_unit);
    else
        snprintf(what, sizeof what, "speedup over %s", c->baseline);
    snprintf(label, sizeof label, "%s (%s)", what,
             c->spec->mean ? "mean of the runs; no interval" : "median; bars: 95 % CI");
    fprintf(f, "set ylabel ");
    rp_gp_name(f, label, RP_GP_STRING);
    fputc('\n', f);
}

/* x range, tics at every value when there are few, the physical cores. */
static void rq_xaxis(FILE *f, const rq_chart *c, const rq_draw *d)
{
    if (d->logx)
        fprintf(f, "set logscale x 2\n");
    fprintf(f, "set xrange [%.17g:%.17g]\n", d->xlo, d->xhi);
    if (d->no_axis) {
        fprintf(f, "unset xtics\n");
        return;
    }
    double tics[17];
    int nt = 0;
    for (int i = 0; i < c->n && nt <= 16; i++) {
        const rq_point *p = &c->p[i];
        int seen = !p->has_x || !in_group(p, d) || kept(d, p->kernel) < 0;
        for (int j = 0; j < nt && !seen; j++)
            seen = tics[j] == p->x;
        if (!seen)
            tics[nt++] = p->x;
    }
    if (nt > 0 && nt <= 16) {
        fprintf(f, "set xtics (");
        for (int j = 0; j < nt; j++)
            fprintf(f, "%s%.17g", j ? ", " : "", tics[j]);
        fprintf(f, ")\n");
    }
    if (!strcmp(c->spec->x, "threads") && c->cores > 0 && c->cores >= d->xlo &&
        c->cores <= d->xhi)
        fprintf(f, "# physical cores: %d\nset arrow from %d, graph 0 to %d, graph 1 nohead "
                   "dt 3 lw 1.5 lc rgb '#555555'\nset label '%d physical cores' at %d, "
                   "graph 0.96 right offset -0.5, 0 tc rgb '#555555'\n",
                c->cores, c->cores, c->cores, c->cores, c->cores);
}

/* One clause: a line with error bars (lines and points for the mean), or
 * for a kernel without x a dashed level over a light band. */
static void rq_clause(FILE *f, const rq_chart *c, const rq_draw *d, int k, const char *dat)
{
    int has_x = 0;
    for (int i = 0; i < c->n; i++)
        has_x |= in_group(&c->p[i], d) && !strcmp(c->p[i].kernel, d->keep[k]) &&
                 c->p[i].has_x;
    rp_gp_name(f, dat, RP_GP_STRING);
    if (has_x) {
        fprintf(f, " index %d using 1:2%s lt %d lw 2 title ", k,
                c->spec->mean ? " with linespoints" : ":3:4 with yerrorlines", k + 1);
        rp_gp_name(f, d->keep[k], RP_GP_STRING);
        return;
    }
    char label[300];
    snprintf(label, sizeof label, "%s (no %s axis)", d->keep[k], c->spec->x);
    fprintf(f, " index %d using 1:3:4 with filledcurves lt %d fs transparent solid 0.15 "
               "noborder notitle, \\\n  ", k, k + 1);
    rp_gp_name(f, dat, RP_GP_STRING);
    fprintf(f, " index %d using 1:2 with lines lt %d dt 2 lw 2 title ", k, k + 1);
    rp_gp_name(f, label, RP_GP_STRING);
}

static void rq_script(FILE *f, const rq_chart *c, const rq_draw *d, const char *matrix,
                      const char *dat)
{
    char title[500], name[64], note[300] = "", file[64];
    rp_sanitize(file, sizeof file, c->op);
    rp_short_name(name, sizeof name, matrix, 40);
    snprintf(title, sizeof title, "%s on %s%s%s (%s)", rp_op_title(c->op), name,
             d->group[0] ? ", " : "", d->group, c->spec->name);
    rp_chart_head(f, c->op, title);
    if (d->kernels > d->drawn)
        snprintf(note, sizeof note, "the %d best of %d kernels; all in %s-all-runs.tsv",
                 d->drawn, d->kernels, file);
    rp_gp_label(f, "x", c->spec->x, note);
    rq_ylabel(f, c);
    rp_palette(f);
    fprintf(f, "set yrange [0:%.9g]\nset grid ytics lc rgb '#dddddd'\nset bars small\n",
            d->top);
    if (c->spec->y == SP_CHART_SPEEDUP && d->top > 1)
        fprintf(f, "set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 "
                   "lc rgb '#888888'\n");
    rp_key_below(f);
    rq_xaxis(f, c, d);
    fprintf(f, "plot");
    for (int k = 0; k < d->drawn; k++) {
        fprintf(f, "%s \\\n  ", k ? "," : "");
        rq_clause(f, c, d, k, dat);
    }
    fprintf(f, "\n");
}

/* OP-NAME[-GROUP]-MATRIX, unique in the report. */
static void rq_base(const rp_report *r, const rq_chart *c, const rq_draw *d,
                    const char *matrix, int64_t matrix_id, char *base, size_t len)
{
    char o[64], m[256], g[130];
    rp_sanitize(o, sizeof o, c->op);
    rp_sanitize(m, sizeof m, matrix);
    rp_sanitize(g, sizeof g, d->group);
    snprintf(base, len, "%s-%s%s%s-%s", o, c->spec->name, g[0] ? "-" : "", g, m);
    if (rp_has_chart(r, base))
        snprintf(base + strlen(base), len - strlen(base), "-%lld", (long long)matrix_id);
}

/* One chart; none when no kernel drawn has x there (levels against an
 * axis nothing sweeps say nothing: counted, and the log says so). */
static int rq_draw_group(rp_report *r, rq_chart *c, rq_draw *d, const char *matrix,
                         int64_t matrix_id, sp_err *err)
{
    char base[600], dat[620], gp[620];
    rq_pick(c, d);
    rq_ranges(c, d);
    if (d->no_axis)
        return c->without_x++, 0;
    rq_base(r, c, d, matrix, matrix_id, base, sizeof base);
    snprintf(dat, sizeof dat, "%s.dat", base);
    snprintf(gp, sizeof gp, "%s.gp", base);
    FILE *f = rp_create(r, dat, err);
    if (!f)
        return -1;
    rq_write_data(f, c, d);
    if (rp_finish(f, r, dat, err) || !(f = rp_create(r, gp, err)))
        return -1;
    rq_script(f, c, d, matrix, dat);
    return rp_finish(f, r, gp, err) || rp_add_chart(r, base, err) ? -1 : 0;
}

/* Every group of the matrix's points (in name order), a chart each. */
static int rq_matrix(rp_report *r, rq_chart *c, int64_t matrix_id, const char *matrix,
                     sp_err *err)
{
    if (rq_load(r, c, matrix_id, err))
        return -1;
    char *done = calloc((size_t)c->n + 1, 1);
    if (!done)
        return sp_fail(err, "report: out of memory");
    int rc = 0;
    for (;;) {
        int first = -1;
        for (int i = 0; i < c->n; i++)
            if (!done[i] && (first < 0 || strcmp(c->p[i].group, c->p[first].group) < 0))
                first = i;
        if (first < 0)
            break;
        rq_draw d = {.group = c->p[first].group};
        for (int i = 0; i < c->n; i++)
            done[i] |= in_group(&c->p[i], &d);
        if ((rc = rq_draw_group(r, c, &d, matrix, matrix_id, err)))
            break;
    }
    free(done);
    return rc;
}

/* Seconds to the unit of the operation's times: the largest median
 * decides (s, ms or us). */
static int rq_time_unit(rp_report *r, rq_chart *c, sp_err *err)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(r->db, "SELECT max(median) FROM run_stats WHERE sweep_id = ?1 AND"
                           " operation = ?2", -1, &s, NULL) != SQLITE_OK)
        return rp_db_fail(r, err, "preparing the time range query");
    sqlite3_bind_int64(s, 1, r->sweep_id);
    sqlite3_bind_text(s, 2, c->op, -1, SQLITE_STATIC);
    double top = sqlite3_step(s) == SQLITE_ROW ? num(s, 0) : NAN;
    sqlite3_finalize(s);
    c->time_scale = top >= 1 ? 1 : top >= 1e-3 ? 1e3 : 1e6;
    c->time_unit = top >= 1 ? "s" : top >= 1e-3 ? "ms" : "us";
    return 0;
}

/* The speedup's baseline: the chart's, else the sweep's serial one. 0 and
 * a note when there is none. */
static int rq_baseline(rp_report *r, rq_chart *c, sp_err *err)
{
    if (c->spec->baseline[0]) {
        snprintf(c->baseline, sizeof c->baseline, "%s", c->spec->baseline);
        return 1;
    }
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(r->db, "SELECT kernel FROM baselines WHERE sweep_id = ?1 AND"
                           " operation = ?2 AND role = 'serial'", -1, &s, NULL) != SQLITE_OK)
        return rp_db_fail(r, err, "preparing the baseline query");
    sqlite3_bind_int64(s, 1, r->sweep_id);
    sqlite3_bind_text(s, 2, c->op, -1, SQLITE_STATIC);
    int found = sqlite3_step(s) == SQLITE_ROW;
    if (found)
        snprintf(c->baseline, sizeof c->baseline, "%s", text(s, 0));
    sqlite3_finalize(s);
    if (!found && r->log)
        fprintf(r->log, "report: [chart %s]: no serial %s kernel to divide by; name one "
                "with baseline = KERNEL\n", c->spec->name, c->op);
    return found;
}

/* ---- x = kernel: a bar per kernel and matrix --------------------------- */

#define KB_KERNELS 64

/* Every kernel the chart selects at its best run on each matrix: kernels
 * across (name order), matrices as the bars of a cluster (by nnz, at most
 * RP_SERIES). v[k][m] = {y, lo, hi}, NaN where the kernel has no run. */
typedef struct kb_chart {
    int nk, nm, more_k, more_m;
    char kernel[KB_KERNELS][160];
    char matrix[RP_SERIES][256];
    int64_t matrix_id[RP_SERIES];
    double v[KB_KERNELS][RP_SERIES][3];
} kb_chart;

static int kb_kernel(kb_chart *b, const char *name)
{
    for (int k = 0; k < b->nk; k++)
        if (!strcmp(b->kernel[k], name))
            return k;
    if (b->nk == KB_KERNELS)
        return b->more_k++, -1;
    snprintf(b->kernel[b->nk], sizeof b->kernel[0], "%s", name);
    for (int m = 0; m < RP_SERIES; m++)
        b->v[b->nk][m][0] = b->v[b->nk][m][1] = b->v[b->nk][m][2] = NAN;
    return b->nk++;
}

static int kb_matrix(kb_chart *b, int64_t id, const char *name)
{
    for (int m = 0; m < b->nm; m++)
        if (b->matrix_id[m] == id)
            return m;
    if (b->nm == RP_SERIES)
        return -1;
    b->matrix_id[b->nm] = id;
    snprintf(b->matrix[b->nm], sizeof b->matrix[0], "%s", name);
    return b->nm++;
}

/* The best run of every selected kernel on every matrix (smallest median,
 * or mean with stat = mean), the matrices in nnz order. */
static int kb_load(rp_report *r, rq_chart *c, kb_chart *b, sp_err *err)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(r->db,
            "SELECT kernel, format, device, median, mean, ci_lo, ci_hi, flops, rate_scale,"
            " rate_unit, matrix_id, variant, matrix FROM"
            " (SELECT *, ROW_NUMBER() OVER (PARTITION BY matrix_id, kernel, variant"
            "   ORDER BY CASE WHEN ?3 THEN mean ELSE median END, run_id) AS place"
            "  FROM run_stats WHERE sweep_id = ?1 AND operation = ?2 AND median > 0) b"
            " JOIN matrices m ON m.id = b.matrix_id"
            " WHERE place = 1 ORDER BY m.nnz, matrix_id, kernel, variant",
            -1, &s, NULL) != SQLITE_OK)
        return rp_db_fail(r, err, "preparing the kernel chart query");
    sqlite3_bind_int64(s, 1, r->sweep_id);
    sqlite3_bind_text(s, 2, c->op, -1, SQLITE_STATIC);
    sqlite3_bind_int(s, 3, c->spec->mean);
    int rc = 0, step, m = -1;
    int64_t at = -1;
    double bt = NAN, blo = NAN, bhi = NAN;
    while (rc == 0 && (step = sqlite3_step(s)) == SQLITE_ROW) {
        const char *kernel = text(s, 0), *device = text(s, 2);
        int64_t id = sqlite3_column_int64(s, 10);
        if (id != at) {             /* the next matrix: its baseline run */
            at = id;
            m = -1;
            if (c->spec->y == SP_CHART_SPEEDUP) {
                int found = baseline_run(r, c, id, &bt, &blo, &bhi, err);
                if (found < 0) {
                    rc = -1;
                    break;
                }
                if (!found)
                    continue;       /* no baseline there: no speedups */
            }
            if ((m = kb_matrix(b, id, text(s, 12))) < 0)
                b->more_m++;
        }
        if (m < 0 || !sp_chart_selects(c->spec, kernel) ||
            (c->spec->device[0] && strcmp(device, c->spec->device)))
            continue;
        char name[160];
        snprintf(name, sizeof name, "%s%s", kernel, text(s, 11));
        int k = kb_kernel(b, name);
        if (k < 0)
            continue;
        if (!c->unit[0])
            snprintf(c->unit, sizeof c->unit, "%s", text(s, 9));
        rq_point p;
        rq_value(c, s, bt, blo, bhi, &p);
        b->v[k][m][0] = p.y, b->v[k][m][1] = p.lo, b->v[k][m][2] = p.hi;
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = rp_db_fail(r, err, "reading the kernel chart query");
    sqlite3_finalize(s);
    return rc;
}

/* The rows: a kernel each (name order), per matrix its value and the
 * interval's ends ("NaN": no run). */
static void kb_write_data(FILE *f, const rq_chart *c, const kb_chart *b, const int *order)
{
    fprintf(f, "# operation: ");
    rp_gp_name(f, c->op, RP_GP_DATA);
    fprintf(f, "\n# kernel");
    for (int m = 0; m < b->nm; m++) {
        fputc('\t', f);
        rp_gp_name(f, b->matrix[m], RP_GP_DATA);
        fprintf(f, "\tci_low\tci_high");
    }
    fprintf(f, "\n# (%s of the kernel's best run; no interval: the value itself; NaN: no run)\n",
            c->spec->mean ? "mean" : "median");
    for (int i = 0; i < b->nk; i++) {
        const double (*v)[3] = b->v[order[i]];
        rp_gp_name(f, b->kernel[order[i]], RP_GP_DATA);
        for (int m = 0; m < b->nm; m++) {
            double lo = isnan(v[m][1]) ? v[m][0] : v[m][1];
            double hi = isnan(v[m][2]) ? v[m][0] : v[m][2];
            if (isnan(v[m][0]))
                fprintf(f, "\tNaN\tNaN\tNaN");
            else
                fprintf(f, "\t%.9g\t%.9g\t%.9g", v[m][0], lo, hi);
        }
        fputc('\n', f);
    }
}

/* Clustered bars with their intervals; a log y axis when the values span
 * more than two decades (the study variants against CUB: 10^4). */
static void kb_script(FILE *f, const rq_chart *c, const kb_chart *b, const char *dat)
{
    double lo = INFINITY, hi = 0;
    for (int k = 0; k < b->nk; k++)
        for (int m = 0; m < b->nm; m++)
            if (b->v[k][m][0] > 0) {
                lo = fmin(lo, fmin(b->v[k][m][0], isnan(b->v[k][m][1]) ? INFINITY
                                                                          : b->v[k][m][1]));
                hi = fmax(hi, fmax(b->v[k][m][0], isnan(b->v[k][m][2]) ? 0 : b->v[k][m][2]));
            }
    char title[300], note[300] = "";
    snprintf(title, sizeof title, "%s: each kernel at its best run (%s)", rp_op_title(c->op),
             c->spec->name);
    rp_chart_head(f, c->op, title);
    if (b->more_k || b->more_m)
        snprintf(note, sizeof note, "%d kernel%s and %d matrix(es) more not drawn", b->more_k,
                 b->more_k == 1 ? "" : "s", b->more_m);
    rp_gp_label(f, "x", "kernel", note);
    rq_ylabel(f, c);
    rp_palette(f);
    /* tabs only: a series name holds spaces ("KERNEL (managed)") */
    fprintf(f, "set datafile separator tab\nset datafile missing 'NaN'\n"
               "set style data histograms\n"
               "set style histogram errorbars gap 1 lw 1\nset style fill solid 0.8 border -1\n"
               "set boxwidth 0.9\nset xtics rotate by 45 right nomirror\n"
               "set grid ytics lc rgb '#dddddd'\nset bars small\n");
    if (hi > 0 && hi / lo > 100) {
        fprintf(f, "set logscale y\nset yrange [%.9g:%.9g]\n", lo / 1.5, hi * 1.5);
        rp_log_tics(f, "y", lo / 1.5, hi * 1.5, 0);
    } else {
        fprintf(f, "set yrange [0:%.9g]\n", hi > 0 ? hi * 1.1 : 1);
    }
    if (c->spec->y == SP_CHART_SPEEDUP && hi > 1)
        fprintf(f, "set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 "
                   "lc rgb '#888888'\n");
    rp_key_below(f);
    fprintf(f, "plot");
    for (int m = 0; m < b->nm; m++) {
        char name[64];
        rp_short_name(name, sizeof name, b->matrix[m], 40);
        fprintf(f, "%s \\\n  ", m ? "," : "");
        rp_gp_name(f, dat, RP_GP_STRING);
        fprintf(f, " using %d:%d:%d%s lt %d title ", 2 + 3 * m, 3 + 3 * m, 4 + 3 * m,
                m ? "" : ":xtic(1)", m + 1);
        rp_gp_name(f, name, RP_GP_STRING);
    }
    fprintf(f, "\n");
}

/* x = kernel: one chart, OP-NAME; none when no kernel has a run. */
static int kb_chart_draw(rp_report *r, rq_chart *c, sp_err *err)
{
    kb_chart *b = calloc(1, sizeof *b);
    if (!b)
        return sp_fail(err, "report: out of memory");
    int rc = kb_load(r, c, b, err);
    if (rc == 0 && b->nk > 0 && b->nm > 0) {
        int order[KB_KERNELS];      /* the kernels in name order */
        for (int k = 0; k < b->nk; k++) {
            int at = k;
            for (; at > 0 && strcmp(b->kernel[order[at - 1]], b->kernel[k]) > 0; at--)
                order[at] = order[at - 1];
            order[at] = k;
        }
        char o[64], base[200], dat[210], gp[210];
        rp_sanitize(o, sizeof o, c->op);
        snprintf(base, sizeof base, "%s-%s", o, c->spec->name);
        snprintf(dat, sizeof dat, "%s.dat", base);
        snprintf(gp, sizeof gp, "%s.gp", base);
        FILE *f = rp_create(r, dat, err);
        if (!f) {
            rc = -1;
        } else {
            kb_write_data(f, c, b, order);
            if (rp_finish(f, r, dat, err) || !(f = rp_create(r, gp, err))) {
                rc = -1;
            } else {
                kb_script(f, c, b, dat);
                rc = rp_finish(f, r, gp, err) || rp_add_chart(r, base, err) ? -1 : 0;
            }
        }
    }
    free(b);
    return rc;
}

/* One [chart] section on one operation: a chart per matrix (by nnz). */
static int rq_spec(rp_report *r, const sp_chart_spec *spec, const char *op, int cores,
                   sp_err *err)
{
    if (spec->operation[0] && strcmp(spec->operation, op))
        return 0;
    rq_chart c = {.spec = spec, .op = op, .cores = cores};
    if (spec->y == SP_CHART_SPEEDUP) {
        int found = rq_baseline(r, &c, err);
        if (found <= 0)
            return found;
    }
    if (spec->y == SP_CHART_TIME && rq_time_unit(r, &c, err))
        return -1;
    if (!strcmp(spec->x, SP_CHART_X_KERNEL))
        return kb_chart_draw(r, &c, err);
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(r->db,
            "SELECT DISTINCT r.matrix_id, r.matrix, m.nnz FROM run_stats r JOIN matrices m"
            " ON m.id = r.matrix_id WHERE r.sweep_id = ?1 AND r.operation = ?2"
            " ORDER BY m.nnz, r.matrix_id", -1, &s, NULL) != SQLITE_OK)
        return rp_db_fail(r, err, "preparing the matrix list");
    sqlite3_bind_int64(s, 1, r->sweep_id);
    sqlite3_bind_text(s, 2, op, -1, SQLITE_STATIC);
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(s)) == SQLITE_ROW) {
        char matrix[256];
        snprintf(matrix, sizeof matrix, "%s", text(s, 1));
        rc = rq_matrix(r, &c, sqlite3_column_int64(s, 0), matrix, err);
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = rp_db_fail(r, err, "reading the matrix list");
    sqlite3_finalize(s);
    free(c.p);
    if (rc == 0 && c.without_x && r->log)
        fprintf(r->log, "report: [chart %s]: %d %s chart%s not drawn: no run there has "
                "the axis '%s'\n", spec->name, c.without_x, op, c.without_x > 1 ? "s" : "",
                spec->x);
    return rc;
}

int rp_requested_charts(rp_report *r, const char *op, sp_err *err)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(r->db, "SELECT config_path, config_text, cpu_cores FROM sweeps"
                           " WHERE id = ?1", -1, &s, NULL) != SQLITE_OK)
        return rp_db_fail(r, err, "preparing the config query");
    sqlite3_bind_int64(s, 1, r->sweep_id);
    sp_chart_spec *specs = NULL;
    int n = 0, cores = 0, rc = 0;
    if (sqlite3_step(s) == SQLITE_ROW) {
        sp_err bad;
        cores = sqlite3_column_int(s, 2);
        if (sp_chart_specs_parse(*text(s, 0) ? text(s, 0) : "config", text(s, 1), &specs, &n,
                                 &bad) && r->log)
            fprintf(r->log, "report: the sweep's [chart] sections were not drawn: %s\n",
                    bad.msg);
    }
    sqlite3_finalize(s);
    for (int i = 0; i < n && rc == 0; i++)
        rc = rq_spec(r, &specs[i], op, cores, err);
    free(specs);
    return rc;
}
