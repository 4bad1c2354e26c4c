/*
 * report_heatmap.c — the appendix of an operation: the whole sweep, which
 * its main charts fold into the best run of each series.
 *   OP-heatmap-KERNEL-A-x-B   for a kernel with two axes or more that take
 *        two values or more (threads x hack, blocksize x lanes, ...): each
 *        cell the geomean over the matrices of the kernel's rate there
 *        (its best over any further axis) relative to its best rate on
 *        that matrix (1: the best setting everywhere), the value written
 *        in the cell. The first axis is the parallel one (threads,
 *        blocksize) when the kernel has it, then those of most values.
 *   OP-all-runs.tsv   every ok run of the operation with its median and
 *        rate, each with its 95 % interval, and the mean of its samples
 *        (what study 002 reported) beside the median (no pages: a table to
 *        read with a script).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_impl.h"

#define HEATMAP_KERNELS 16      /* at most this many heatmaps an operation */

/* The kernel's axes with two values or more, parallel axis first. */
static const char AXES_SQL[] =
    "SELECT j.key, COUNT(DISTINCT j.value) AS nvalues FROM run_stats r, json_each(r.axes) j"
    " WHERE r.sweep_id = ?1 AND r.operation = ?2 AND r.kernel = ?3 GROUP BY j.key"
    " HAVING nvalues > 1 ORDER BY j.key IN ('threads', 'blocksize') DESC, nvalues DESC, j.key";

/* The cells: per pair of values, the geomean over matrices of the best
 * median of the kernel on the matrix (of its runs with both axes) over the
 * cell's best median there. */
static const char CELLS_SQL[] =
    "WITH k AS (SELECT * FROM (SELECT matrix_id,"
    "   json_extract(axes, '$.\"' || ?4 || '\"') AS a,"
    "   json_extract(axes, '$.\"' || ?5 || '\"') AS b, median FROM run_stats"
    "   WHERE sweep_id = ?1 AND operation = ?2 AND kernel = ?3)"
    "   WHERE a IS NOT NULL AND b IS NOT NULL),"
    " cell AS (SELECT a, b, matrix_id, (SELECT MIN(median) FROM k AS o"
    "   WHERE o.matrix_id = k.matrix_id) / MIN(median) AS rel FROM k GROUP BY a, b, matrix_id)"
    " SELECT a, b, exp(avg(ln(rel))), COUNT(*) FROM cell GROUP BY a, b";

/* Distinct values (as text, in numeric order when numbers) of one axis. */
typedef struct axis_values {
    int n;
    char v[64][32];
} axis_values;

static int value_index(axis_values *a, const char *v)
{
    for (int i = 0; i < a->n; i++)
        if (!strcmp(a->v[i], v))
            return i;
    if (a->n == 64)
        return -1;
    size_t len = strnlen(v, sizeof a->v[0] - 1);    /* longer values are cut */
    memcpy(a->v[a->n], v, len);
    a->v[a->n][len] = 0;
    return a->n++;
}

static int compare_values(const void *x, const void *y)
{
    double a = atof(x), b = atof(y);
    return a < b ? -1 : a > b ? 1 : strcmp(x, y);
}

typedef struct cell {
    char a[32], b[32];
    double rel;
    int n;
} cell;

/* BASE.dat: the grid (x index, y index, relative rate, matrices), NaN for
 * an empty cell; BASE.gp: the image, its values, the axes' values as tics. */
static void write_heatmap(FILE *d, FILE *g, const rp_series *s, const char *kernel,
                          const char *ax, const char *bx, const char *rest, const cell *c,
                          int nc, const char *dat, int matrices)
{
    axis_values xa = {0}, ya = {0};
    for (int i = 0; i < nc; i++)
        value_index(&xa, c[i].a), value_index(&ya, c[i].b);
    qsort(xa.v, (size_t)xa.n, sizeof xa.v[0], compare_values);
    qsort(ya.v, (size_t)ya.n, sizeof ya.v[0], compare_values);
    fprintf(d, "# operation: ");
    rp_gp_name(d, s->op, RP_GP_DATA);
    fprintf(d, "\n# kernel: ");
    rp_gp_name(d, kernel, RP_GP_DATA);
    fprintf(d, "\n# x\ty\trate_relative_to_best\tmatrices\t");
    rp_gp_name(d, ax, RP_GP_DATA);
    fputc('\t', d);
    rp_gp_name(d, bx, RP_GP_DATA);
    fputc('\n', d);
    for (int y = 0; y < ya.n; y++) {
        for (int x = 0; x < xa.n; x++) {
            const cell *hit = NULL;
            for (int i = 0; i < nc && !hit; i++)
                if (!strcmp(c[i].a, xa.v[x]) && !strcmp(c[i].b, ya.v[y]))
                    hit = &c[i];
            fprintf(d, "%d\t%d\t", x, y);
            if (hit)
                fprintf(d, "%.6g\t%d\t", hit->rel, hit->n);
            else
                fprintf(d, "NaN\t0\t");
            rp_gp_name(d, xa.v[x], RP_GP_DATA);
            fputc('\t', d);
            rp_gp_name(d, ya.v[y], RP_GP_DATA);
            fputc('\n', d);
        }
        fputc('\n', d);
    }
    char title[300], note[300];
    snprintf(title, sizeof title, "%s: %s x %s", kernel, ax, bx);
    rp_chart_head(g, s->op, title);
    snprintf(note, sizeof note, "cell: rate / the kernel's best, geomean over %d matri%s%s%.200s",
             matrices, matrices == 1 ? "x" : "ces", *rest ? "; best over " : "", rest);
    rp_gp_label(g, "x", ax, note);
    fprintf(g, "set ylabel ");
    rp_gp_name(g, bx, RP_GP_STRING);
    fprintf(g, "\nset xrange [-0.5:%g]\nset yrange [-0.5:%g]\nset xtics (", xa.n - 0.5,
            ya.n - 0.5);
    for (int x = 0; x < xa.n; x++) {
        fprintf(g, "%s", x ? ", " : "");
        rp_gp_name(g, xa.v[x], RP_GP_TIC);
        fprintf(g, " %d", x);
    }
    fprintf(g, ")\nset ytics (");
    for (int y = 0; y < ya.n; y++) {
        fprintf(g, "%s", y ? ", " : "");
        rp_gp_name(g, ya.v[y], RP_GP_TIC);
        fprintf(g, " %d", y);
    }
    /* viridis: ordered in lightness, read in grey and by every colour vision */
    fprintf(g, ")\nset tics scale 0\nunset key\nset cbrange [*:1]\nset cblabel 'rate / best'\n"
               "set palette defined (0 '#440154', 0.25 '#3b528b', 0.5 '#21918c', "
               "0.75 '#5ec962', 1 '#fde725')\nplot ");
    rp_gp_name(g, dat, RP_GP_STRING);
    fprintf(g, " using 1:2:3 with image notitle, \\\n  ");
    rp_gp_name(g, dat, RP_GP_STRING);
    /* white text on the darker half of the palette */
    double least = 1;
    for (int i = 0; i < nc; i++)
        least = fmin(least, c[i].rel);
    fprintf(g, " using 1:2:($3 == $3 ? sprintf('%%.2f', $3) : ''):($3 < %.6g ? 0xffffff : 0)"
               " with labels tc rgb variable notitle\n", (least + 1) / 2);
}

/* One kernel's heatmap, when it has two axes of several values. */
static int heatmap_kernel(rp_report *r, const rp_series *s, const char *kernel, sp_err *err)
{
    sqlite3_stmt *q;
    char axes[8][64];
    int na = 0, step;
    rp_sql_mark(r);
    if (sqlite3_prepare_v2(r->db, AXES_SQL, -1, &q, NULL) != SQLITE_OK)
        return rp_db_fail(r, err, "preparing the heatmap axes");
    sqlite3_bind_int64(q, 1, r->sweep_id);
    sqlite3_bind_text(q, 2, s->op, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 3, kernel, -1, SQLITE_STATIC);
    while ((step = sqlite3_step(q)) == SQLITE_ROW && na < 8)
        snprintf(axes[na++], sizeof axes[0], "%s", (const char *)sqlite3_column_text(q, 0));
    sqlite3_finalize(q);
    if (step != SQLITE_DONE && step != SQLITE_ROW)
        return rp_db_fail(r, err, "reading the heatmap axes");
    if (na < 2)
        return 0;
    int rc;
    char rest[256] = "";
    for (int i = 2; i < na; i++)
        snprintf(rest + strlen(rest), sizeof rest - strlen(rest), "%s%s", i > 2 ? ", " : "",
                 axes[i]);
    if (sqlite3_prepare_v2(r->db, CELLS_SQL, -1, &q, NULL) != SQLITE_OK)
        return rp_db_fail(r, err, "preparing the heatmap cells");
    sqlite3_bind_int64(q, 1, r->sweep_id);
    sqlite3_bind_text(q, 2, s->op, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 3, kernel, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 4, axes[0], -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 5, axes[1], -1, SQLITE_STATIC);
    cell c[1024];
    int nc = 0, matrices = 0;
    while ((step = sqlite3_step(q)) == SQLITE_ROW && nc < 1024) {
        snprintf(c[nc].a, sizeof c[0].a, "%s", (const char *)sqlite3_column_text(q, 0));
        snprintf(c[nc].b, sizeof c[0].b, "%s", (const char *)sqlite3_column_text(q, 1));
        c[nc].rel = sqlite3_column_double(q, 2);
        c[nc].n = sqlite3_column_int(q, 3);
        matrices = c[nc].n > matrices ? c[nc].n : matrices;
        nc++;
    }
    sqlite3_finalize(q);
    if (step != SQLITE_DONE && step != SQLITE_ROW)
        return rp_db_fail(r, err, "reading the heatmap cells");
    char base[400], k[160], a[64], b[64], dat[420], gp[420];
    rp_sanitize(k, sizeof k, kernel);
    rp_sanitize(a, sizeof a, axes[0]);
    rp_sanitize(b, sizeof b, axes[1]);
    snprintf(base, sizeof base, "%s-heatmap-%s-%s-x-%s", s->file, k, a, b);
    snprintf(dat, sizeof dat, "%s.dat", base);
    snprintf(gp, sizeof gp, "%s.gp", base);
    FILE *d = rp_create(r, dat, err), *g = d ? rp_create(r, gp, err) : NULL;
    if (!g) {
        if (d)
            fclose(d);
        return -1;
    }
    write_heatmap(d, g, s, kernel, axes[0], axes[1], rest, c, nc, dat, matrices);
    rc = rp_finish(d, r, dat, err);
    if (rp_finish(g, r, gp, err) || rc)
        return -1;
    return rp_add_chart(r, base, err);
}

int rp_heatmaps(rp_report *r, const rp_series *s, sp_err *err)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(r->db, "SELECT DISTINCT kernel FROM run_stats WHERE sweep_id = ?1"
                                  " AND operation = ?2 ORDER BY kernel", -1, &q, NULL) != SQLITE_OK)
        return rp_db_fail(r, err, "preparing the kernel list");
    sqlite3_bind_int64(q, 1, r->sweep_id);
    sqlite3_bind_text(q, 2, s->op, -1, SQLITE_STATIC);
    char kernels[HEATMAP_KERNELS * 4][128];
    int n = 0, step, rc = 0;
    while ((step = sqlite3_step(q)) == SQLITE_ROW && n < HEATMAP_KERNELS * 4)
        snprintf(kernels[n++], sizeof kernels[0], "%s", (const char *)sqlite3_column_text(q, 0));
    sqlite3_finalize(q);
    if (step != SQLITE_DONE && step != SQLITE_ROW)
        return rp_db_fail(r, err, "reading the kernel list");
    int before = r->ncharts;
    for (int i = 0; i < n && rc == 0 && r->ncharts - before < HEATMAP_KERNELS; i++)
        rc = heatmap_kernel(r, s, kernels[i], err);
    return rc;
}

int rp_all_runs_table(rp_report *r, const char *op, sp_err *err)
{
    static const char *const head[] = {
        "matrix", "nnz", "kernel", "family", "device", "axes", "n", "median_s", "ci_lo_s",
        "ci_hi_s", "mean_s", "rate", "rate_lo", "rate_hi", "rate_unit", "noisy"};
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(r->db,
            "SELECT r.matrix, m.nnz, r.kernel, r.format || '/' || r.backend, r.device, "
            AXES_TEXT("r.axes") ", r.n, r.median, r.ci_lo, r.ci_hi, r.mean, r.rate, r.rate_lo,"
            " r.rate_hi, r.rate_unit, r.noisy FROM run_stats r JOIN matrices m"
            " ON m.id = r.matrix_id WHERE r.sweep_id = ?1 AND r.operation = ?2"
            " ORDER BY m.nnz, r.matrix, r.kernel, r.axes", -1, &q, NULL) != SQLITE_OK)
        return rp_db_fail(r, err, "preparing the run table");
    sqlite3_bind_int64(q, 1, r->sweep_id);
    sqlite3_bind_text(q, 2, op, -1, SQLITE_STATIC);
    char base[128], title[128];
    rp_sanitize(base, sizeof base, op);
    snprintf(base + strlen(base), sizeof base - strlen(base), "-all-runs");
    snprintf(title, sizeof title, "%s: every run", rp_op_title(op));
    rp_table t;
    rp_table_init(&t, base, title, 16, head);
    t.formats = 0;
    int rc = rp_table_query(&t, q, r, err) || rp_table_emit(r, &t, err) ? -1 : 0;
    sqlite3_finalize(q);
    rp_table_free(&t);
    return rc;
}
