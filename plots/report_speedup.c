/*
 * report_speedup.c — speedup.png: for every matrix, one bar per kernel,
 * the speedup of that kernel's best axis values over spmv_csr_serial
 * (baseline median / kernel median, from the speedup view). Matrices
 * without a baseline run have no bars; the chart is skipped when no
 * matrix has one.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_impl.h"

typedef struct speedup_cell {
    int group;                  /* index into groups */
    char *kernel;
    double value;
} speedup_cell;

typedef struct speedup_grid {
    int ncells, cap;
    speedup_cell *cell;
    int ngroups;
    char **group;               /* "matrix" or "matrix (operation)" */
    int nkernels;
    char **kernel;              /* sorted, unique; points into cell[].kernel */
} speedup_grid;

static void grid_free(speedup_grid *g)
{
    for (int i = 0; i < g->ncells; i++)
        free(g->cell[i].kernel);
    for (int i = 0; i < g->ngroups; i++)
        free(g->group[i]);
    free(g->cell);
    free(g->group);
    free(g->kernel);
}

/* Start a new group labelled by the row's matrix (and operation unless spmv). */
static int grid_new_group(speedup_grid *g, sqlite3_stmt *s, sp_err *err)
{
    char **grown = realloc(g->group, (size_t)(g->ngroups + 1) * sizeof *grown);
    if (!grown)
        return sp_fail(err, "report: out of memory");
    g->group = grown;
    const char *m = (const char *)sqlite3_column_text(s, 1);
    const char *op = (const char *)sqlite3_column_text(s, 2);
    char label[512];
    snprintf(label, sizeof label, "%s%s%s%s", m ? m : "?",
             op && strcmp(op, "spmv") != 0 ? " (" : "",
             op && strcmp(op, "spmv") != 0 ? op : "",
             op && strcmp(op, "spmv") != 0 ? ")" : "");
    if (!(g->group[g->ngroups] = strdup(label)))
        return sp_fail(err, "report: out of memory");
    g->ngroups++;
    return 0;
}

/* Append the row's (kernel, speedup) to the current group. */
static int grid_add_cell(speedup_grid *g, sqlite3_stmt *s, sp_err *err)
{
    if (g->ncells == g->cap) {
        int cap = g->cap ? 2 * g->cap : 32;
        speedup_cell *grown = realloc(g->cell, (size_t)cap * sizeof *grown);
        if (!grown)
            return sp_fail(err, "report: out of memory");
        g->cell = grown;
        g->cap = cap;
    }
    speedup_cell *c = &g->cell[g->ncells];
    c->group = g->ngroups - 1;
    c->value = sqlite3_column_double(s, 4);
    if (!(c->kernel = rp_column_dup(s, 3)))
        return sp_fail(err, "report: out of memory");
    g->ncells++;
    return 0;
}

/* Load each kernel's best speedup per matrix and operation. */
static int grid_load(rp_report *r, speedup_grid *g, sp_err *err)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(r->db,
            "SELECT matrix_id, matrix, operation, kernel, MAX(speedup) FROM speedup"
            " WHERE sweep_id = ?1 AND speedup IS NOT NULL AND kernel <> baseline_kernel"
            " GROUP BY matrix_id, operation, kernel"
            " ORDER BY matrix_id, operation, kernel", -1, &s, NULL) != SQLITE_OK)
        return rp_db_fail(r, err, "preparing the speedup query");
    sqlite3_bind_int64(s, 1, r->sweep_id);
    int64_t last_matrix = -1;
    char last_op[256] = "";
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(s)) == SQLITE_ROW) {
        const char *op = (const char *)sqlite3_column_text(s, 2);
        if (sqlite3_column_int64(s, 0) != last_matrix || strcmp(op ? op : "", last_op)) {
            last_matrix = sqlite3_column_int64(s, 0);
            snprintf(last_op, sizeof last_op, "%s", op ? op : "");
            rc = grid_new_group(g, s, err);
        }
        if (rc == 0)
            rc = grid_add_cell(g, s, err);
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = rp_db_fail(r, err, "reading the speedup query");
    sqlite3_finalize(s);
    return rc;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The sorted list of distinct kernel names. */
static int grid_kernels(speedup_grid *g, sp_err *err)
{
    g->kernel = malloc((size_t)(g->ncells ? g->ncells : 1) * sizeof *g->kernel);
    if (!g->kernel)
        return sp_fail(err, "report: out of memory");
    for (int i = 0; i < g->ncells; i++)
        g->kernel[i] = g->cell[i].kernel;
    qsort(g->kernel, (size_t)g->ncells, sizeof *g->kernel, compare_names);
    g->nkernels = 0;
    for (int i = 0; i < g->ncells; i++)
        if (g->nkernels == 0 || strcmp(g->kernel[g->nkernels - 1], g->kernel[i]) != 0)
            g->kernel[g->nkernels++] = g->kernel[i];
    return 0;
}

/* The data: one line per group, one column per kernel, NaN where the
 * kernel has no successful run on that matrix. */
static void grid_write_data(FILE *f, const speedup_grid *g)
{
    fprintf(f, "# group");
    for (int k = 0; k < g->nkernels; k++)
        fprintf(f, "\t%s", g->kernel[k]);
    for (int grp = 0; grp < g->ngroups; grp++) {
        fprintf(f, "\n%d", grp);
        for (int k = 0; k < g->nkernels; k++) {
            double v = NAN;
            for (int i = 0; i < g->ncells; i++)
                if (g->cell[i].group == grp && strcmp(g->cell[i].kernel, g->kernel[k]) == 0)
                    v = g->cell[i].value;
            fprintf(f, isnan(v) ? "\tNaN" : "\t%.9g", v);
        }
    }
    fprintf(f, "\n");
}

/* Log scale when the speedups span more than a factor of 30. */
static void grid_write_yaxis(FILE *f, const speedup_grid *g)
{
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < g->ncells; i++)
        if (g->cell[i].value > 0) {
            lo = fmin(lo, g->cell[i].value);
            hi = fmax(hi, g->cell[i].value);
        }
    if (hi > 30 * lo)
        fprintf(f, "set logscale y\nset yrange [%.9g:%.9g]\n", fmin(lo, 1) / 2, hi * 2);
    else
        fprintf(f, "set yrange [0:%.9g]\n", fmax(hi, 1) * 1.1);
}

/* The chart's gnuplot commands: clustered histogram, a dashed line at 1. */
static void grid_write_script(FILE *f, const speedup_grid *g, const char *dat)
{
    fprintf(f, "reset\nset datafile separator tab\n"
               "set title 'Speedup over spmv_csr_serial (each kernel at its best axis values; "
               "median times)'\n"
               "set ylabel 'speedup (baseline time / kernel time)'\n"
               "set style data histograms\nset style histogram clustered gap 1\n"
               "set style fill solid 0.85 border -1\nset boxwidth 0.9 relative\n"
               "set grid ytics lc rgb '#dddddd'\nset key below horizontal\n"
               "set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb "
               "'black' front\nset xtics nomirror rotate by 30 right\nset xtics (");
    for (int i = 0; i < g->ngroups; i++) {
        fprintf(f, "%s", i ? ", " : "");
        rp_quote(f, g->group[i]);
        fprintf(f, " %d", i);
    }
    fprintf(f, ")\nset xrange [-0.6:%g]\n", g->ngroups - 0.4);
    grid_write_yaxis(f, g);
    fprintf(f, "plot");
    for (int k = 0; k < g->nkernels; k++) {
        fprintf(f, "%s \\\n  ", k ? "," : "");
        rp_quote(f, dat);
        fprintf(f, " using %d title ", k + 2);
        rp_quote(f, g->kernel[k]);
    }
    fprintf(f, "\n");
}

/* Write speedup.dat and speedup.gp. */
static int grid_write_files(rp_report *r, const speedup_grid *g, sp_err *err)
{
    FILE *f = rp_create(r, "speedup.dat", err);
    if (!f)
        return -1;
    grid_write_data(f, g);
    if (rp_finish(f, r, "speedup.dat", err))
        return -1;
    if (!(f = rp_create(r, "speedup.gp", err)))
        return -1;
    grid_write_script(f, g, "speedup.dat");
    return rp_finish(f, r, "speedup.gp", err);
}

/* The speedup chart, when some matrix of the sweep has a baseline run. */
int rp_speedup_chart(rp_report *r, sp_err *err)
{
    speedup_grid g = {0};
    int rc = grid_load(r, &g, err);
    if (rc == 0 && g.ncells > 0) {
        rc = grid_kernels(&g, err);
        if (rc == 0)
            rc = grid_write_files(r, &g, err);
        if (rc == 0)
            rc = rp_add_chart(r, "speedup", err);
    }
    grid_free(&g);
    return rc;
}
