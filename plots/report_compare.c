/*
 * report_compare.c — the change table of `report --base OLD.db`: every
 * combination (matrix source, operation, kernel, axis values) of this
 * sweep against the same combination in the base sweep, judged by
 * db/compare.h — the one definition of faster, slower, same and noisy
 * that `spsweep compare OLD.db THIS.db` uses too (noisy: a run's interval
 * half-width above 5 % of its median; else a Mann–Whitney rank test on the
 * samples, a minimum effect of 2 % and a gap beyond both runs' noise), with
 * its default thresholds. ratio = this median / base median (above 1: slower
 * now), with the bounds both intervals allow and the test's p-value.
 * Combinations found on one side only are listed as "new" or "gone".
 * Slower rows come first. The base database is opened read-only like this
 * one (sp_store_open_readonly), so both sides are read through this
 * build's views.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../db/compare.h"
#include "../db/store.h"
#include "report_impl.h"

/* Open the base database read-only and resolve its sweep (before any
 * file is written, so a wrong --base or --base-sweep leaves no report). */
int rp_open_base(rp_report *r, sp_err *err)
{
    if (!r->base_db)
        return 0;
    if (sp_store_open_readonly(r->base_db, &r->base_store, err))
        return sp_fail_prefix(err, "cannot open the base database");
    return sp_cmp_pick_sweep(sp_store_db(r->base_store), r->base_db, "--base-sweep",
                             &r->base_sweep_id, err);
}

/* Milliseconds, or "-" for a side the combination lacks. */
static void ms_text(const sp_cmp_run *x, char *out, size_t len)
{
    if (x)
        snprintf(out, len, "%.4g", x->median * 1e3);
    else
        snprintf(out, len, "-");
}

/* "±1.23%" (or "±1.23% range" from the [min, max] of a short run). */
static void noise_text(const sp_cmp_run *x, char *out, size_t len)
{
    if (x)
        snprintf(out, len, "%.2f%%%s", 100 * sp_cmp_noise(x), x->from_range ? " range" : "");
    else
        snprintf(out, len, "-");
}

enum { NCOLS = 12, CELL = 160 };

/* One row of the table from a judged pair. */
static int add_row(rp_table *t, const sp_cmp_row *row, sp_err *err)
{
    char c[NCOLS][CELL];
    const char *cells[NCOLS];
    const sp_cmp_run *k = row->b ? row->b : row->a;
    int both = row->a && row->b;
    snprintf(c[0], CELL, "%s", sp_cmp_verdict_name(row->verdict));
    snprintf(c[1], CELL, "%s", k->matrix);
    snprintf(c[2], CELL, "%s", k->operation);
    snprintf(c[3], CELL, "%s", k->kernel);
    rp_axes_text(c[4], CELL, k->axes);
    ms_text(row->a, c[5], CELL);
    noise_text(row->a, c[6], CELL);
    ms_text(row->b, c[7], CELL);
    noise_text(row->b, c[8], CELL);
    snprintf(c[9], CELL, both ? "%.3fx" : "-", row->ratio);
    snprintf(c[10], CELL, both ? "%.3f-%.3f" : "-", row->ratio_lo, row->ratio_hi);
    snprintf(c[11], CELL, both ? "%.2g" : "-", row->p);
    for (int i = 0; i < NCOLS; i++)
        cells[i] = c[i];
    return rp_table_add(t, cells, err);
}

/* The table's title: the base and the count of every verdict. */
static void table_title(const rp_report *r, const sp_cmp_row *rows, int n, char *out,
                        size_t len)
{
    int k[SP_CMP_NVERDICTS];
    sp_cmp_count(rows, n, k);
    const char *slash = strrchr(r->base_db, '/');
    snprintf(out, len, "Change against %s, sweep %lld: %d slower, %d faster, %d noisy, "
             "%d same, %d new, %d gone", slash ? slash + 1 : r->base_db,
             (long long)r->base_sweep_id, k[SP_CMP_SLOWER], k[SP_CMP_FASTER],
             k[SP_CMP_NOISY], k[SP_CMP_SAME], k[SP_CMP_NEW], k[SP_CMP_GONE]);
}

int rp_compare_table(rp_report *r, sp_err *err)
{
    static const char *const head[NCOLS] = {
        "verdict", "matrix", "operation", "kernel", "axes", "base median ms", "base noise",
        "median ms", "noise", "ratio", "ratio bounds", "p"};
    if (!r->base_db)
        return 0;
    sp_cmp_set old, cur = {0};
    sp_cmp_opts o;
    sp_cmp_opts_default(&o);
    sp_cmp_row *rows = NULL;
    int n = 0;
    if (sp_cmp_load(sp_store_db(r->base_store), r->base_db, r->base_sweep_id, &old, err))
        return -1;
    int rc = sp_cmp_load(r->db, r->db_path, r->sweep_id, &cur, err);
    if (rc == 0)
        rc = sp_cmp_pair(&old, &cur, &o, &rows, &n, err);
    rp_table t;
    char title[600];
    static const int shown[] = {1, 2, 3, 4, 5, 6, 8, 10, 11, 12, 0};   /* not the noise */
    rp_table_init(&t, "compare", "Change", NCOLS, head);
    t.shown = shown;
    for (int i = 0; rc == 0 && i < n; i++)
        rc = add_row(&t, &rows[i], err);
    if (rc == 0) {
        table_title(r, rows, n, title, sizeof title);
        t.title = title;
        rc = rp_table_emit(r, &t, err);
    }
    rp_table_free(&t);
    free(rows);
    sp_cmp_set_free(&old);
    sp_cmp_set_free(&cur);
    return rc;
}
