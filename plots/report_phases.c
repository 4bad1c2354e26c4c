/*
 * report_phases.c — phases-N.png: what a GPU run costs beyond its kernel.
 * For each matrix, operation and GPU kernel (at its fastest axis values),
 * one stacked bar: host conversion, allocation + host->device copy, the
 * kernel (median), device->host copy, in milliseconds. PHASE_BARS bars a
 * page, so hundreds of matrices paginate. No GPU run: no chart.
 */
#include <stdlib.h>
#include <string.h>

#include "report_impl.h"

#define PHASE_BARS 24

static const char PHASES_SQL[] =
    "SELECT matrix, operation, kernel, coalesce(convert_s, 0) * 1e3,"
    " coalesce(h2d_s, 0) * 1e3, median * 1e3, coalesce(d2h_s, 0) * 1e3"
    " FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY matrix_id, operation, kernel"
    "        ORDER BY median, run_id) AS place"
    "       FROM run_stats WHERE sweep_id = ?1 AND device = 'gpu')"
    " WHERE place = 1 ORDER BY matrix, operation, kernel";

/* A bar's label: "matrix / kernel", the operation after the matrix
 * unless spmv. */
static void bar_label(char *buf, size_t len, char **c)
{
    const char *op = strcmp(c[1], "spmv") ? c[1] : "";
    snprintf(buf, len, "%s%s%s / %s", c[0], *op ? " " : "", op, c[2]);
}

/* The bars' labels as explicit tics, escaped by rp_gp_name (as data
 * through xtic() they were cut at a double quote). */
static void write_xtics(FILE *f, const rp_table *t, int first, int last)
{
    char label[700];
    fprintf(f, "set xtics (");
    for (int i = first; i < last; i++) {
        bar_label(label, sizeof label, &t->cell[i * t->ncols]);
        fprintf(f, "%s", i > first ? ", " : "");
        rp_gp_name(f, label, RP_GP_TIC);
        fprintf(f, " %d", i - first);
    }
    fprintf(f, ")\n");
}

/* The gnuplot commands of one page drawing the rows [first, last) of t,
 * in BASE.dat. */
static void write_script(FILE *f, const char *dat, const rp_table *t, int first, int last,
                         int page, int pages)
{
    fprintf(f, "reset\nset datafile separator tab\n");
    fprintf(f, "set title 'GPU runs: where the time goes (each kernel at its best axis "
               "values)'\n");
    if (pages > 1)
        fprintf(f, "set label 1 'page %d of %d' at graph 1, graph 1.03 right\n", page + 1,
                pages);
    fprintf(f, "set ylabel 'milliseconds per run'\n"
               "set style data histograms\nset style histogram rowstacked\n"
               "set style fill solid 0.85 border -1\nset boxwidth 0.75 relative\n"
               "set grid ytics lc rgb '#dddddd'\nset key below horizontal\n"
               "set xtics nomirror rotate by 35 right font ',8'\nset yrange [0:*]\n");
    write_xtics(f, t, first, last);
    fprintf(f, "plot ");
    static const char *const titles[] = {"host conversion", "allocation + host->device",
                                         "kernel (median)", "device->host"};
    for (int c = 0; c < 4; c++) {
        fprintf(f, "%s", c ? ", \\\n  " : "");
        rp_gp_name(f, dat, RP_GP_STRING);
        fprintf(f, " using %d title '%s'", c + 2, titles[c]);
    }
    fprintf(f, "\n");
}

/* One page: BASE.dat and BASE.gp for rows [first, first + n) of t. */
static int write_page(rp_report *r, const rp_table *t, int page, int pages, sp_err *err)
{
    char base[64], dat[80], gp[80], label[700];
    snprintf(base, sizeof base, "phases-%d", page + 1);
    snprintf(dat, sizeof dat, "%s.dat", base);
    snprintf(gp, sizeof gp, "%s.gp", base);
    int first = page * PHASE_BARS;
    int last = t->nrows < first + PHASE_BARS ? t->nrows : first + PHASE_BARS;
    FILE *f = rp_create(r, dat, err);
    if (!f)
        return -1;
    fprintf(f, "# bar\tconvert_ms\th2d_ms\tkernel_ms\td2h_ms\n");
    for (int i = first; i < last; i++) {
        char **c = &t->cell[i * t->ncols];
        bar_label(label, sizeof label, c);
        rp_gp_name(f, label, RP_GP_DATA);
        fprintf(f, "\t%s\t%s\t%s\t%s\n", c[3], c[4], c[5], c[6]);
    }
    if (rp_finish(f, r, dat, err) || !(f = rp_create(r, gp, err)))
        return -1;
    write_script(f, dat, t, first, last, page, pages);
    return rp_finish(f, r, gp, err) || rp_add_chart(r, base, err) ? -1 : 0;
}

int rp_phase_charts(rp_report *r, sp_err *err)
{
    static const char *const head[] = {"matrix", "operation", "kernel", "convert_ms",
                                       "h2d_ms", "kernel_ms", "d2h_ms"};
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(r->db, PHASES_SQL, -1, &s, NULL) != SQLITE_OK)
        return rp_db_fail(r, err, "preparing the phase query");
    sqlite3_bind_int64(s, 1, r->sweep_id);
    rp_table t;
    rp_table_init(&t, "phases", "GPU phases", 7, head);
    int rc = rp_table_query(&t, s, r, err);
    sqlite3_finalize(s);
    int pages = (t.nrows + PHASE_BARS - 1) / PHASE_BARS;
    for (int p = 0; rc == 0 && p < pages; p++)
        rc = write_page(r, &t, p, pages, err);
    rp_table_free(&t);
    return rc;
}
