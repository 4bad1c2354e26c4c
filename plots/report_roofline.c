/*
 * report_roofline.c — roofline.png: every kernel at its best axis values on
 * every matrix, achieved GFLOPS against arithmetic intensity (flops per
 * byte of the operation's byte model: the fewest bytes one run must move),
 * log-log, with the measured bandwidth ceilings of the sweep drawn as
 * roofs: host STREAM triad and device copy bandwidth (each only when the
 * sweep measured it). Each point has a vertical error bar over the run's
 * 95 % interval (the rates at the interval's ends); a run without one
 * (too few samples) is drawn as a point without a bar, not dropped.
 * Operations rated in GFLOPS only; no such run: no chart.
 */
#include <stdlib.h>
#include <string.h>

#include "report_impl.h"

/* rate_lo and rate_hi are GFLOPS too (rate_scale 1e9 for that unit);
 * NaN without an interval, which the plot reads as "no bar". */
static const char POINTS_SQL[] =
    "SELECT kernel, device, flops / bytes, rate, coalesce(rate_lo, 'NaN'),"
    " coalesce(rate_hi, 'NaN') FROM"
    " (SELECT *, ROW_NUMBER() OVER (PARTITION BY matrix_id, operation, kernel"
    "   ORDER BY median, run_id) AS place FROM run_stats"
    "  WHERE sweep_id = ?1 AND rate_unit = 'GFLOPS' AND bytes > 0 AND flops > 0)"
    " WHERE place = 1 ORDER BY kernel, flops / bytes";

/* The sweep's measured ceilings in GB/s, 0 when not measured. */
static void ceilings(rp_report *r, double *host, double *device)
{
    sqlite3_stmt *s;
    *host = *device = 0;
    if (sqlite3_prepare_v2(r->db, "SELECT coalesce(host_triad_gbs, 0),"
                                  " coalesce(device_copy_gbs, 0) FROM sweeps WHERE id = ?1",
                           -1, &s, NULL) != SQLITE_OK)
        return;     /* an older database without the columns: no roofs */
    sqlite3_bind_int64(s, 1, r->sweep_id);
    if (sqlite3_step(s) == SQLITE_ROW) {
        *host = sqlite3_column_double(s, 0);
        *device = sqlite3_column_double(s, 1);
    }
    sqlite3_finalize(s);
}

/* roofline.dat: one block per kernel (blank lines between), columns
 * intensity, GFLOPS and its interval's ends. */
static int write_points(rp_report *r, rp_table *t, sp_err *err)
{
    FILE *f = rp_create(r, "roofline.dat", err);
    if (!f)
        return -1;
    fprintf(f, "# kernel\tdevice\tflops_per_byte\tgflops\tgflops_lo\tgflops_hi"
               " (the 95 %% interval; NaN: none)");
    for (int i = 0; i < t->nrows; i++) {
        char **c = &t->cell[i * t->ncols];
        if (i == 0 || strcmp(c[0], t->cell[(i - 1) * t->ncols]))
            fprintf(f, "\n\n");
        rp_gp_name(f, c[0], RP_GP_DATA);
        fputc('\t', f);
        rp_gp_name(f, c[1], RP_GP_DATA);
        fprintf(f, "\t%s\t%s\t%s\t%s\n", c[2], c[3], c[4], c[5]);
    }
    return rp_finish(f, r, "roofline.dat", err);
}

/* A point's bar: its interval's ends; a NaN end (no interval: NaN != NaN)
 * falls back to the point itself, so the point stays, without a bar. */
#define ROOF_USING "using 3:4:($5 == $5 ? $5 : $4):($6 == $6 ? $6 : $4)"

static void write_script(FILE *f, const rp_table *t, double host, double device)
{
    fprintf(f, "reset\nset datafile separator tab\nset logscale xy\n"
               "set title 'Roofline: each kernel at its best axis values, one point per "
               "matrix'\n"
               "set xlabel 'arithmetic intensity (flops per byte of the byte model)'\n"
               "set ylabel 'GFLOPS (median time; bars: its 95 %% interval)'\n"
               "set grid lc rgb '#dddddd'\n"
               "set key outside right top\nset xrange [0.01:10]\n");
    fprintf(f, "plot ");
    int block = 0, first = 1;
    for (int i = 0; i < t->nrows; i++) {
        char **c = &t->cell[i * t->ncols];
        if (i > 0 && !strcmp(c[0], t->cell[(i - 1) * t->ncols]))
            continue;
        fprintf(f, "%s'roofline.dat' index %d " ROOF_USING " with yerrorbars pt %d ps 1.3"
                   " title ",
                first ? "" : ", \\\n  ", block++, strcmp(c[1], "gpu") ? 7 : 5);
        rp_gp_name(f, c[0], RP_GP_STRING);
        first = 0;
    }
    if (host > 0)
        fprintf(f, ", \\\n  x * %.6g with lines dt 2 lw 2 lc rgb '#1f77b4' title "
                   "'host STREAM triad %.1f GB/s'", host, host);
    if (device > 0)
        fprintf(f, ", \\\n  x * %.6g with lines dt 2 lw 2 lc rgb '#d62728' title "
                   "'device copy %.0f GB/s'", device, device);
    fprintf(f, "\n");
}

int rp_roofline_chart(rp_report *r, sp_err *err)
{
    static const char *const head[] = {"kernel",  "device",    "flops_per_byte",
                                       "gflops",  "gflops_lo", "gflops_hi"};
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(r->db, POINTS_SQL, -1, &s, NULL) != SQLITE_OK)
        return rp_db_fail(r, err, "preparing the roofline query");
    sqlite3_bind_int64(s, 1, r->sweep_id);
    rp_table t;
    rp_table_init(&t, "roofline", "roofline", 6, head);
    int rc = rp_table_query(&t, s, r, err);
    sqlite3_finalize(s);
    if (rc == 0 && t.nrows > 0) {
        double host, device;
        ceilings(r, &host, &device);
        FILE *f;
        rc = write_points(r, &t, err);
        if (rc == 0 && !(f = rp_create(r, "roofline.gp", err)))
            rc = -1;
        if (rc == 0) {
            write_script(f, &t, host, device);
            rc = rp_finish(f, r, "roofline.gp", err) || rp_add_chart(r, "roofline", err);
        }
    }
    rp_table_free(&t);
    return rc ? -1 : 0;
}
