/*
 * report_geomean.c — the headline: per operation, the geomean over the
 * matrices of each kernel's speedup (at its best axis values on each
 * matrix) over the operation's serial and vendor baselines
 * (db/views.sql geomean_speedup, baselines):
 *   OP-geomean-vs-BASELINE-N   horizontal bars from 1 to the geomean, log
 *                              scale, the bound [geomeans of the
 *                              intervals' ends] as the error bar, the
 *                              kernels best first, GEOMEAN_BARS a page;
 *   OP-geomean-speedup.tsv     both baselines, also as .csv, .md and .tex
 *                              (booktabs), for a paper's table.
 * The bound is conservative, not a confidence interval of the geomean
 * (where the geomean lies when each matrix's speedup lies in its own
 * interval); a kernel without it has no error bar and "(no interval)" in
 * the tables. Each bar's label says over how many matrices it is taken.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_impl.h"

#define GEOMEAN_BARS 20

/* The kernels' geomeans over one baseline role, best first; the baseline
 * itself (1 by definition) is not a bar. */
static const char BARS_SQL[] =
    "SELECT g.series, g.%s, g.%s_lo, g.%s_hi, g.%s FROM geomean_speedup g"
    " JOIN baselines b ON b.sweep_id = g.sweep_id AND b.operation = g.operation"
    "  AND b.role = ?3"
    " WHERE g.sweep_id = ?1 AND g.operation = ?2 AND g.level = 'kernel' AND g.%s IS NOT NULL"
    "  AND g.series <> b.kernel"
    " ORDER BY g.%s DESC, g.series";

/* The tables: every kernel with both geomeans (rp_ratio: report_format.c). */
static const char TABLE_SQL[] =
    "SELECT series, family, device, matrices, rp_ratio(speedup, speedup_lo, speedup_hi),"
    " speedup_matrices, rp_ratio(vendor_speedup, vendor_speedup_lo, vendor_speedup_hi),"
    " vendor_matrices FROM geomean_speedup"
    " WHERE sweep_id = ?1 AND operation = ?2 AND level = 'kernel'"
    " ORDER BY speedup IS NULL, speedup DESC, vendor_speedup DESC, series";

typedef struct gm_bar {
    char *kernel;
    double v, lo, hi;           /* NaN ends: no bound */
    int n;                      /* matrices */
} gm_bar;

static double num(sqlite3_stmt *s, int col)
{
    return sqlite3_column_type(s, col) == SQLITE_NULL ? NAN : sqlite3_column_double(s, col);
}

/* The baseline kernel of role and the operation's matrices without it;
 * "" when there is none. */
static int baseline_of(rp_report *r, const char *op, const char *role, char *kernel, size_t len,
                       int *missing, sp_err *err)
{
    sqlite3_stmt *s;
    kernel[0] = '\0';
    *missing = 0;
    if (sqlite3_prepare_v2(r->db, "SELECT kernel, missing FROM baselines WHERE sweep_id = ?1"
                                  " AND operation = ?2 AND role = ?3", -1, &s, NULL) != SQLITE_OK)
        return rp_db_fail(r, err, "preparing the baseline query");
    sqlite3_bind_int64(s, 1, r->sweep_id);
    sqlite3_bind_text(s, 2, op, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 3, role, -1, SQLITE_STATIC);
    int step = sqlite3_step(s);
    if (step == SQLITE_ROW) {
        snprintf(kernel, len, "%s", (const char *)sqlite3_column_text(s, 0));
        *missing = sqlite3_column_int(s, 1);
    }
    sqlite3_finalize(s);
    return step == SQLITE_ROW || step == SQLITE_DONE ? 0
                                                     : rp_db_fail(r, err, "reading the baseline");
}

static int load_bars(rp_report *r, const char *op, const char *role, gm_bar **out, int *n,
                     sp_err *err)
{
    const char *v = strcmp(role, "serial") ? "vendor_speedup" : "speedup";
    const char *m = strcmp(role, "serial") ? "vendor_matrices" : "speedup_matrices";
    char sql[1024];
    snprintf(sql, sizeof sql, BARS_SQL, v, v, v, m, v, v);
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(r->db, sql, -1, &s, NULL) != SQLITE_OK)
        return rp_db_fail(r, err, "preparing the geomean query");
    sqlite3_bind_int64(s, 1, r->sweep_id);
    sqlite3_bind_text(s, 2, op, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 3, role, -1, SQLITE_STATIC);
    int cap = 0, rc = 0, step;
    *out = NULL;
    *n = 0;
    while (rc == 0 && (step = sqlite3_step(s)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            gm_bar *grown = realloc(*out, (size_t)cap * sizeof *grown);
            if (!grown) {
                rc = sp_fail(err, "report: out of memory");
                break;
            }
            *out = grown;
        }
        gm_bar *b = &(*out)[*n];
        b->kernel = rp_column_dup(s, 0);
        b->v = num(s, 1), b->lo = num(s, 2), b->hi = num(s, 3);
        b->n = sqlite3_column_int(s, 4);
        if (!b->kernel)
            rc = sp_fail(err, "report: out of memory");
        else
            (*n)++;
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = rp_db_fail(r, err, "reading the geomean query");
    sqlite3_finalize(s);
    return rc;
}

/* BASE.dat: a line per bar, top to bottom: position, geomean, bound's ends
 * (the geomean itself without one), the bar's ends (1 and the geomean). */
static void write_data(FILE *f, const char *op, const gm_bar *b, int first, int last)
{
    fprintf(f, "# operation: ");
    rp_gp_name(f, op, RP_GP_DATA);
    fprintf(f, "\n# y\tgeomean\tbound_low\tbound_high\tbar_from\tbar_to\tmatrices\tkernel"
               " (bound: geomean itself when there is none)\n");
    for (int i = first; i < last; i++) {
        const gm_bar *x = &b[i];
        int bound = !isnan(x->lo) && !isnan(x->hi);
        fprintf(f, "%d\t%.9g\t%.9g\t%.9g\t%.9g\t%.9g\t%d\t", last - 1 - i, x->v,
                bound ? x->lo : x->v, bound ? x->hi : x->v, fmin(1, x->v), fmax(1, x->v), x->n);
        rp_gp_name(f, x->kernel, RP_GP_DATA);
        fputc('\n', f);
    }
}

static void write_script(FILE *f, const char *op, const char *dat, const char *title,
                         const char *baseline, int missing, const gm_bar *b, int first,
                         int last)
{
    rp_chart_head(f, op, title);
    double lo = 1, hi = 1;
    for (int i = first; i < last; i++) {
        lo = fmin(lo, isnan(b[i].lo) ? b[i].v : fmin(b[i].lo, b[i].v));
        hi = fmax(hi, isnan(b[i].hi) ? b[i].v : fmax(b[i].hi, b[i].v));
    }
    char label[400], note[300];
    snprintf(label, sizeof label, "geomean speedup over %s", baseline);
    snprintf(note, sizeof note, "error bar: bound; (n): matrices");
    if (missing)
        snprintf(note + strlen(note), sizeof note - strlen(note),
                 "; %d matri%s without %s left out", missing, missing == 1 ? "x" : "ces",
                 baseline);
    rp_gp_label_width(f, "x", label, note, RP_LINE_1COL * 3 / 5, RP_LINE_2COL * 3 / 4);
    fprintf(f, "set logscale x\nset xrange [%.9g:%.9g]\nset yrange [-0.7:%g]\n", lo / 1.3,
            hi * 1.3, (last - first < 4 ? 4 : last - first) - 0.3);
    rp_log_tics(f, "x", lo / 1.3, hi * 1.3, 0);
    fprintf(f, "set grid xtics lc rgb '#dddddd'\nunset key\nset rmargin 3\n"
               "set ytics nomirror scale 0 (");
    for (int i = first; i < last; i++) {
        snprintf(label, sizeof label, "%s (%d)", b[i].kernel, b[i].n);
        fprintf(f, "%s", i > first ? ", " : "");
        rp_gp_name(f, label, RP_GP_TIC);
        fprintf(f, " %d", last - 1 - i);
    }
    fprintf(f, ")\nset arrow from 1, graph 0 to 1, graph 1 nohead dt 2 lc rgb 'black' front\n");
    rp_palette(f);
    fprintf(f, "set style fill solid 0.9 border -1\nplot ");
    rp_gp_name(f, dat, RP_GP_STRING);
    fprintf(f, " using 2:1:5:6:($1-0.35):($1+0.35) with boxxyerror lt 1, \\\n  ");
    rp_gp_name(f, dat, RP_GP_STRING);
    fprintf(f, " using 2:1:3:4 with xerrorbars lt 7 pt 0\n");
}

/* The bar chart pages over one baseline role. */
static int geomean_bars(rp_report *r, const rp_series *s, const char *role, sp_err *err)
{
    char baseline[128];
    int missing, n = 0, rc = 0;
    gm_bar *b = NULL;
    rp_sql_mark(r);
    if (baseline_of(r, s->op, role, baseline, sizeof baseline, &missing, err))
        return -1;
    if (baseline[0])
        rc = load_bars(r, s->op, role, &b, &n, err);
    int pages = (n + GEOMEAN_BARS - 1) / GEOMEAN_BARS;
    for (int p = 0; rc == 0 && p < pages; p++) {
        char base[400], name[200], title[400], dat[420], gp[420];
        rp_sanitize(name, sizeof name, baseline);
        snprintf(base, sizeof base, "%s-geomean-vs-%s-%d", s->file, name, p + 1);
        snprintf(title, sizeof title, "%s geomean speedup%s", rp_op_title(s->op),
                 strcmp(role, "serial") ? " (vendor)" : "");
        if (pages > 1)
            snprintf(title + strlen(title), sizeof title - strlen(title), " (%d of %d)", p + 1,
                     pages);
        snprintf(dat, sizeof dat, "%s.dat", base);
        snprintf(gp, sizeof gp, "%s.gp", base);
        int first = p * GEOMEAN_BARS, last = first + GEOMEAN_BARS < n ? first + GEOMEAN_BARS : n;
        FILE *f = rp_create(r, dat, err);
        if (!f) {
            rc = -1;
            break;
        }
        write_data(f, s->op, b, first, last);
        if (rp_finish(f, r, dat, err) || !(f = rp_create(r, gp, err))) {
            rc = -1;
            break;
        }
        write_script(f, s->op, dat, title, baseline, missing, b, first, last);
        rc = rp_finish(f, r, gp, err) || rp_add_chart(r, base, err) ? -1 : 0;
    }
    for (int i = 0; i < n; i++)
        free(b[i].kernel);
    free(b);
    return rc;
}

/* OP-geomean-speedup.tsv, .csv, .md and .tex: every kernel, both baselines
 * named in the header. */
static int geomean_table(rp_report *r, const rp_series *s, sp_err *err)
{
    char serial[128], vendor[128], h_serial[200], h_vendor[200], base[128], title[256];
    int missing;
    rp_sql_mark(r);
    if (baseline_of(r, s->op, "serial", serial, sizeof serial, &missing, err) ||
        baseline_of(r, s->op, "vendor", vendor, sizeof vendor, &missing, err))
        return -1;
    snprintf(h_serial, sizeof h_serial, "vs %s [bound]", serial[0] ? serial : "serial (none)");
    snprintf(h_vendor, sizeof h_vendor, "vs %s [bound]", vendor[0] ? vendor : "vendor (none)");
    const char *head[] = {"kernel", "family", "device", "matrices", h_serial, "(matrices)",
                          h_vendor, "(matrices)"};
    snprintf(base, sizeof base, "%s-geomean-speedup", s->file);
    snprintf(title, sizeof title, "%s: geomean speedup per kernel", rp_op_title(s->op));
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(r->db, TABLE_SQL, -1, &q, NULL) != SQLITE_OK)
        return rp_db_fail(r, err, "preparing the geomean table");
    sqlite3_bind_int64(q, 1, r->sweep_id);
    sqlite3_bind_text(q, 2, s->op, -1, SQLITE_STATIC);
    rp_table t;
    rp_table_init(&t, base, title, 8, head);
    t.formats = RP_TABLE_CSV | RP_TABLE_MD | RP_TABLE_TEX;
    int rc = rp_table_query(&t, q, r, err) || rp_table_emit(r, &t, err) ? -1 : 0;
    sqlite3_finalize(q);
    rp_table_free(&t);
    return rc;
}

int rp_geomean_chart(rp_report *r, const rp_series *s, sp_err *err)
{
    return geomean_bars(r, s, "serial", err) || geomean_bars(r, s, "vendor", err) ||
                   geomean_table(r, s, err)
               ? -1
               : 0;
}
