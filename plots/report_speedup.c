/*
 * report_speedup.c — speedup bars: for every matrix, one bar per kernel,
 * the speedup of that kernel's best axis values (median times, from the
 * speedup view, with error bars over the speedup's 95 % interval) over
 *   the serial kernel of the operation     speedup-<class>-<page>.png
 *   the vendor library's best kernel       vendor-<class>-<page>.png
 * grouped by the matrix's size class (small, medium, large, xlarge) and
 * paginated SPEEDUP_GROUPS matrices a page, so hundreds of matrices stay
 * readable. A baseline no matrix of a class has gives no chart.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_impl.h"

#define SPEEDUP_GROUPS 16

/* Columns of SPEEDUP_SQL (and of the table holding its rows). */
enum {
    C_MATRIX_ID, C_MATRIX, C_OPERATION, C_CLASS, C_KERNEL,
    C_SERIAL, C_SERIAL_LO, C_SERIAL_HI, C_VENDOR, C_VENDOR_LO, C_VENDOR_HI, C_N
};

/* Each kernel's best speedups per matrix and operation, each with its
 * interval (from the same run); baselines are not bars of their own chart
 * (NULL speedup against themselves). */
static const char SPEEDUP_SQL[] =
    "WITH k AS (SELECT s.*, ROW_NUMBER() OVER (PARTITION BY s.matrix_id, s.operation,"
    "  s.kernel ORDER BY s.speedup DESC, s.run_id) AS ps, ROW_NUMBER() OVER (PARTITION BY"
    "  s.matrix_id, s.operation, s.kernel ORDER BY s.vendor_speedup DESC, s.run_id) AS pv"
    "  FROM speedup s WHERE s.sweep_id = ?1)"
    " SELECT k.matrix_id, k.matrix, k.operation, m.size_class, k.kernel,"
    " MAX(CASE WHEN ps = 1 AND k.kernel <> k.baseline_kernel THEN k.speedup END),"
    " MAX(CASE WHEN ps = 1 AND k.kernel <> k.baseline_kernel THEN k.speedup_lo END),"
    " MAX(CASE WHEN ps = 1 AND k.kernel <> k.baseline_kernel THEN k.speedup_hi END),"
    " MAX(CASE WHEN pv = 1 AND k.kernel <> k.vendor_kernel THEN k.vendor_speedup END),"
    " MAX(CASE WHEN pv = 1 AND k.kernel <> k.vendor_kernel THEN k.vendor_speedup_lo END),"
    " MAX(CASE WHEN pv = 1 AND k.kernel <> k.vendor_kernel THEN k.vendor_speedup_hi END)"
    " FROM k JOIN matrices m ON m.id = k.matrix_id"
    " GROUP BY k.matrix_id, k.operation, k.kernel"
    " ORDER BY CASE m.size_class WHEN 'small' THEN 0 WHEN 'medium' THEN 1"
    "  WHEN 'large' THEN 2 ELSE 3 END, m.nnz, k.matrix, k.operation, k.kernel";

/* One chart: the rows [first, last) of t, measure column col. */
typedef struct bar_page {
    const rp_table *t;
    int first, last, col;
    const char *cls, *baseline;
    int page, pages;
} bar_page;

static const char *cell(const rp_table *t, int row, int col)
{
    return t->cell[row * t->ncols + col];
}

/* Row starts a new matrix (and operation) group. */
static int new_group(const rp_table *t, int row)
{
    return row == 0 || strcmp(cell(t, row, C_MATRIX_ID), cell(t, row - 1, C_MATRIX_ID)) ||
           strcmp(cell(t, row, C_OPERATION), cell(t, row - 1, C_OPERATION));
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorted distinct kernels with a value on the page; their count. */
static int page_kernels(const bar_page *p, const char **k)
{
    int n = 0;
    for (int i = p->first; i < p->last; i++)
        if (*cell(p->t, i, p->col))
            k[n++] = cell(p->t, i, C_KERNEL);
    qsort(k, (size_t)n, sizeof *k, compare_names);
    int u = 0;
    for (int i = 0; i < n; i++)
        if (u == 0 || strcmp(k[u - 1], k[i]))
            k[u++] = k[i];
    return u;
}

/* The value of column col for kernel k in the group starting at row i. */
static double group_value(const bar_page *p, int i, const char *k, int col)
{
    double v = NAN;
    for (int r = i; r < p->last && (r == i || !new_group(p->t, r)); r++)
        if (!strcmp(cell(p->t, r, C_KERNEL), k) && *cell(p->t, r, col))
            v = atof(cell(p->t, r, col));
    return v;
}

/* BASE.dat: one line per group, three columns per kernel: the speedup and
 * its interval's ends (the speedup itself where there is no interval;
 * NaN: no value). */
static void write_data(FILE *f, const bar_page *p, const char **k, int nk, double *lo,
                       double *hi)
{
    fprintf(f, "# group");
    for (int j = 0; j < nk; j++) {
        fputc('\t', f);
        rp_gp_name(f, k[j], RP_GP_DATA);
        fprintf(f, "\tlow\thigh");
    }
    int g = -1;
    for (int i = p->first; i < p->last; i++) {
        if (!new_group(p->t, i))
            continue;
        fprintf(f, "\n%d", ++g);
        for (int j = 0; j < nk; j++) {
            double v = group_value(p, i, k[j], p->col);
            double a = group_value(p, i, k[j], p->col + 1), b = group_value(p, i, k[j], p->col + 2);
            a = isnan(a) ? v : a, b = isnan(b) ? v : b;
            if (v > 0) {
                *lo = fmin(*lo, fmin(v, a));
                *hi = fmax(*hi, fmax(v, b));
            }
            if (isnan(v))
                fprintf(f, "\tNaN\tNaN\tNaN");
            else
                fprintf(f, "\t%.9g\t%.9g\t%.9g", v, a, b);
        }
    }
    fprintf(f, "\n");
}

/* The group labels as xtics: matrix, with the operation unless spmv. */
static void write_xtics(FILE *f, const bar_page *p)
{
    fprintf(f, "set xtics (");
    int g = -1;
    for (int i = p->first; i < p->last; i++) {
        if (!new_group(p->t, i))
            continue;
        char label[512];
        const char *op = cell(p->t, i, C_OPERATION);
        snprintf(label, sizeof label, "%s%s%s%s", cell(p->t, i, C_MATRIX),
                 strcmp(op, "spmv") ? " (" : "", strcmp(op, "spmv") ? op : "",
                 strcmp(op, "spmv") ? ")" : "");
        fprintf(f, "%s", ++g ? ", " : "");
        rp_gp_name(f, label, RP_GP_TIC);
        fprintf(f, " %d", g);
    }
    fprintf(f, ")\nset xrange [-0.6:%g]\n", g + 0.6);
}

/* BASE.gp: clustered bars, a dashed line at 1, log y over wide ranges. */
static void write_script(FILE *f, const bar_page *p, const char *dat, const char **k, int nk,
                         double lo, double hi)
{
    fprintf(f, "reset\nset datafile separator tab\nset title ");
    char title[512];
    snprintf(title, sizeof title, "Speedup over the %s baseline, %s matrices (each kernel at "
             "its best axis values; median times, bars over the 95 %% interval)", p->baseline,
             p->cls);
    rp_gp_name(f, title, RP_GP_STRING);
    if (p->pages > 1)
        fprintf(f, "\nset label 1 'page %d of %d' at graph 1, graph 1.03 right", p->page + 1,
                p->pages);
    fprintf(f, "\nset ylabel 'speedup (baseline time / kernel time)'\n"
               "set style data histograms\nset style histogram errorbars gap 1 lw 1\n"
               "set style fill solid 0.85 border -1\nset boxwidth 0.9 relative\n"
               "set grid ytics lc rgb '#dddddd'\nset key below horizontal\n"
               "set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb "
               "'black' front\nset xtics nomirror rotate by 30 right\n");
    rp_palette(f);
    write_xtics(f, p);
    if (hi > 30 * lo)
        fprintf(f, "set logscale y\nset yrange [%.9g:%.9g]\n", fmin(lo, 1) / 2, hi * 2);
    else
        fprintf(f, "set yrange [0:%.9g]\n", fmax(hi, 1) * 1.1);
    fprintf(f, "plot");
    for (int j = 0; j < nk; j++) {
        fprintf(f, "%s \\\n  ", j ? "," : "");
        rp_gp_name(f, dat, RP_GP_STRING);
        fprintf(f, " using %d:%d:%d title ", 3 * j + 2, 3 * j + 3, 3 * j + 4);
        rp_gp_name(f, k[j], RP_GP_STRING);
    }
    fprintf(f, "\n");
}

/* One page's files, added to the report. */
static int write_page(rp_report *r, const bar_page *p, const char *prefix, sp_err *err)
{
    char base[128], dat[160], gp[160];
    snprintf(base, sizeof base, "%s-%s-%d", prefix, p->cls, p->page + 1);
    snprintf(dat, sizeof dat, "%s.dat", base);
    snprintf(gp, sizeof gp, "%s.gp", base);
    const char **k = malloc((size_t)(p->last - p->first + 1) * sizeof *k);
    if (!k)
        return sp_fail(err, "report: out of memory");
    int nk = page_kernels(p, k), rc = 0;
    double lo = INFINITY, hi = 0;
    FILE *f = rp_create(r, dat, err);
    if (!f)
        rc = -1;
    if (rc == 0) {
        write_data(f, p, k, nk, &lo, &hi);
        rc = rp_finish(f, r, dat, err);
    }
    if (rc == 0 && !(f = rp_create(r, gp, err)))
        rc = -1;
    if (rc == 0) {
        write_script(f, p, dat, k, nk, lo, hi);
        rc = rp_finish(f, r, gp, err) || rp_add_chart(r, base, err) ? -1 : 0;
    }
    free(k);
    return rc;
}

/* Does any row in [first, last) have a value in column col? */
static int has_values(const rp_table *t, int first, int last, int col)
{
    for (int i = first; i < last; i++)
        if (*cell(t, i, col))
            return 1;
    return 0;
}

/* The rows of [first, last) whose matrix group has a value in column col:
 * a matrix without this baseline gets no empty slot on the chart. */
static int keep_valued(const rp_table *all, int first, int last, int col, rp_table *out,
                       sp_err *err)
{
    for (int g0 = first, g1; g0 < last; g0 = g1) {
        for (g1 = g0 + 1; g1 < last && !new_group(all, g1); g1++)
            ;
        if (!has_values(all, g0, g1, col))
            continue;
        for (int i = g0; i < g1; i++)
            if (rp_table_add(out, (const char *const *)&all->cell[i * all->ncols], err))
                return -1;
    }
    return 0;
}

/* The pages of one size class [first, last) for measure column col. */
static int class_pages(rp_report *r, const rp_table *all, int first, int last, int col,
                       sp_err *err)
{
    rp_table t;
    rp_table_init(&t, "speedup", "speedup", all->ncols, all->head);
    int rc = keep_valued(all, first, last, col, &t, err), groups = 0;
    for (int i = 0; i < t.nrows; i++)
        groups += new_group(&t, i);
    bar_page p = {.t = &t, .col = col, .cls = t.nrows ? cell(&t, 0, C_CLASS) : "",
                  .baseline = col == C_SERIAL ? "serial" : "vendor",
                  .pages = (groups + SPEEDUP_GROUPS - 1) / SPEEDUP_GROUPS};
    int row = 0;
    for (p.page = 0; rc == 0 && p.page < p.pages; p.page++) {
        p.first = row;
        int g = 0;
        while (row < t.nrows && (g < SPEEDUP_GROUPS || !new_group(&t, row)))
            g += new_group(&t, row++);
        p.last = row;
        rc = write_page(r, &p, col == C_SERIAL ? "speedup" : "vendor", err);
    }
    rp_table_free(&t);
    return rc;
}

int rp_speedup_chart(rp_report *r, sp_err *err)
{
    static const char *const head[] = {
        "matrix_id", "matrix",         "operation",         "size_class",       "kernel",
        "speedup",   "speedup_lo",     "speedup_hi",        "vendor_speedup",   "vendor_speedup_lo",
        "vendor_speedup_hi"};
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(r->db, SPEEDUP_SQL, -1, &s, NULL) != SQLITE_OK)
        return rp_db_fail(r, err, "preparing the speedup query");
    sqlite3_bind_int64(s, 1, r->sweep_id);
    rp_table t;
    rp_table_init(&t, "speedup", "speedup", C_N, head);
    int rc = rp_table_query(&t, s, r, err);
    sqlite3_finalize(s);
    for (int col = C_SERIAL; rc == 0 && col <= C_VENDOR; col += C_VENDOR - C_SERIAL)
        for (int first = 0, last; rc == 0 && first < t.nrows; first = last) {
            for (last = first; last < t.nrows &&
                               !strcmp(cell(&t, last, C_CLASS), cell(&t, first, C_CLASS));
                 last++)
                ;
            rc = class_pages(r, &t, first, last, col, err);
        }
    rp_table_free(&t);
    return rc;
}
