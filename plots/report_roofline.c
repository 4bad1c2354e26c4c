/*
 * report_roofline.c — OP-roofline-cpu and OP-roofline-gpu: per device, the
 * operation's series (rp_series: at most RP_SERIES, each at its best run
 * on each matrix) as GFLOPS against arithmetic intensity (flops per byte
 * of the operation's byte model), log-log, zoomed to the data, under the
 * roofs measured for that device in the sweep: memory (host STREAM triad
 * for the CPU, device copy for the GPU; none measured: no roof, said so)
 * dashed, the cache (a triad in the last-level cache, reads in L2) dotted. Error
 * bars over each run's 95 % interval; each matrix labelled once, at its
 * best point. A point above its roof is circled and the note under the
 * chart says how many and why (db/views.sql roofline: the byte model is
 * the fewest bytes a launch must move, so such a run was served from
 * caches, or reads faster than the roof's benchmark, which also writes).
 * Operations rated in GFLOPS only; a device without such a run: no chart.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_impl.h"

#define LABELLED_MATRICES 24    /* more: only those with a point above the roof */
#define LABEL_CHARS 22          /* a matrix's name cut to this two columns wide */
#define LABEL_CHARS_1COL 14     /* ... and one column wide */

static const char POINTS_SQL[] =
    "SELECT series, matrix_id, matrix, intensity, rate, rate_lo, rate_hi, coalesce(roof_gbs, 0),"
    " roof_name, roof_threads, coalesce(above_roof, 0), working_set_mib, cache,"
    " coalesce(cache_roof_gbs, 0), cache_roof_name, coalesce(fits_cache, 0),"
    " coalesce(cache_bytes, 0)"
    " FROM roofline WHERE sweep_id = ?1 AND operation = ?2 AND level = ?3 AND device = ?4"
    " ORDER BY series, intensity, matrix_id";

enum { P_SERIES, P_ID, P_MATRIX, P_X, P_Y, P_LO, P_HI, P_ROOF, P_ROOF_NAME, P_THREADS,
       P_ABOVE, P_MIB, P_CACHE, P_CROOF, P_CROOF_NAME, P_FITS, P_CBYTES, P_N };

static double num(const rp_table *t, int row, int col)
{
    const char *c = t->cell[row * t->ncols + col];
    return *c ? atof(c) : NAN;
}

static const char *cell(const rp_table *t, int row, int col)
{
    return t->cell[row * t->ncols + col];
}

/* OP-roofline-DEV.dat: a block per series (two blank lines between, in
 * the order of s), columns intensity, GFLOPS, its interval's ends (the
 * point itself without one), above the roof (1/0), matrix. */
static void write_data(FILE *f, const rp_series *s, const rp_table *t, int *blocks)
{
    fprintf(f, "# operation: ");
    rp_gp_name(f, s->op, RP_GP_DATA);
    fprintf(f, "\n# intensity\tgflops\tgflops_lo\tgflops_hi\tabove_roof\tworking_set_mib\tmatrix"
               " (lo, hi: the point itself without an interval)\n");
    for (int i = 0; i < s->n; i++) {
        blocks[i] = -1;
        int any = 0;
        for (int row = 0; row < t->nrows; row++) {
            if (strcmp(cell(t, row, P_SERIES), s->name[i]))
                continue;
            if (!any++) {
                int b = 0;
                for (int j = 0; j < i; j++)
                    b += blocks[j] >= 0;
                blocks[i] = b;
                fprintf(f, "\n\n# ");
                rp_gp_name(f, s->name[i], RP_GP_DATA);
                fputc('\n', f);
            }
            double y = num(t, row, P_Y), lo = num(t, row, P_LO), hi = num(t, row, P_HI);
            fprintf(f, "%.9g\t%.9g\t%.9g\t%.9g\t%s\t%.4g\t", num(t, row, P_X), y,
                    isnan(lo) ? y : lo, isnan(hi) ? y : hi, cell(t, row, P_ABOVE),
                    num(t, row, P_MIB));
            rp_gp_name(f, cell(t, row, P_MATRIX), RP_GP_DATA);
            fputc('\n', f);
        }
    }
}

/* The plot's ranges (log axes), in which the labels are placed. */
typedef struct frame {
    double xlo, xhi, ylo, yhi;
} frame;

/* Where a label of a point goes, in graph coordinates (0..1 across the
 * plot): right of the point, else left of it; moved up or down a line at
 * a time until it overlaps no label placed before; *moved when it left
 * the point's height (a line then joins them). Sizes: the label's and a
 * line's share of the plot's width and height at one size. */
static void place(double fx, double fy, double w, double h, double (*boxes)[4], int n,
                  double *gx, double *gy, int *right, int *moved)
{
    static const int steps[] = {0, 1, -1, 2, -2, 3, -3, 4, -4, 5, -5, 6, -6};
    for (size_t k = 0; k < sizeof steps / sizeof *steps; k++)
        for (int side = 0; side < 2; side++) {
            double x0 = side ? fx - 0.012 - w : fx + 0.012, y0 = fy + steps[k] * h - h / 2;
            if (x0 < 0 || x0 + w > 1 || y0 < 0 || y0 + h > 1)
                continue;
            int free = 1;
            for (int i = 0; i < n && free; i++)
                free = x0 + w <= boxes[i][0] || x0 >= boxes[i][1] || y0 + h <= boxes[i][2] ||
                       y0 >= boxes[i][3];
            if (!free)
                continue;
            boxes[n][0] = x0, boxes[n][1] = x0 + w, boxes[n][2] = y0, boxes[n][3] = y0 + h;
            *gx = side ? x0 + w : x0, *gy = y0 + h / 2, *right = side, *moved = k > 0;
            return;
        }
    *gx = fx + 0.012, *gy = fy, *right = 0, *moved = 0;     /* no room: over the others */
    boxes[n][0] = *gx, boxes[n][1] = *gx + w, boxes[n][2] = fy - h / 2, boxes[n][3] = fy + h / 2;
}

/* Each matrix's best point gets its name (all of them up to
 * LABELLED_MATRICES matrices, else those above the roof), placed apart
 * for each size (one column: sp_col 1; two columns and the report page). */
static void write_labels(FILE *f, const rp_series *s, const rp_table *t, const frame *fr)
{
    /* the share of the plot a character and a line take, one column wide
     * (about 2.7 x 1.4 in of plot, 8-point text) and two (6.2 x 2.7 in, 9) */
    static const double char_w[2] = {0.024, 0.0115}, line_h[2] = {0.095, 0.058};
    int matrices = 0;
    for (int row = 0; row < t->nrows; row++) {
        int first = 1;
        for (int k = 0; k < row && first; k++)
            first = strcmp(cell(t, k, P_ID), cell(t, row, P_ID)) != 0;
        matrices += first;
    }
    double (*boxes)[4] = malloc((size_t)(2 * t->nrows + 1) * sizeof *boxes);
    if (!boxes)
        return;
    for (int size = 0; size < 2; size++) {
        fprintf(f, size ? "} else {\n" : "if (exists('sp_col') && sp_col == 1) {\n");
        int n = 0, tag = 10;
        for (int row = 0; row < t->nrows; row++) {     /* the points: no label over them */
            if (rp_series_index(s, cell(t, row, P_SERIES)) < 0)
                continue;
            double fx = log(num(t, row, P_X) / fr->xlo) / log(fr->xhi / fr->xlo);
            double fy = log(num(t, row, P_Y) / fr->ylo) / log(fr->yhi / fr->ylo);
            boxes[n][0] = fx - line_h[size] / 6, boxes[n][1] = fx + line_h[size] / 6;
            boxes[n][2] = fy - line_h[size] / 3, boxes[n][3] = fy + line_h[size] / 3;
            n++;
        }
        for (int row = 0; row < t->nrows; row++) {
            if (rp_series_index(s, cell(t, row, P_SERIES)) < 0)
                continue;
            int best = 1, above = 0;
            for (int k = 0; k < t->nrows; k++) {
                if (strcmp(cell(t, k, P_ID), cell(t, row, P_ID)) ||
                    rp_series_index(s, cell(t, k, P_SERIES)) < 0)
                    continue;
                above |= atoi(cell(t, k, P_ABOVE));
                if (num(t, k, P_Y) > num(t, row, P_Y) ||
                    (num(t, k, P_Y) == num(t, row, P_Y) && k < row))
                    best = 0;
            }
            if (!best || (matrices > LABELLED_MATRICES && !above))
                continue;
            char name[64];
            rp_short_name(name, sizeof name, cell(t, row, P_MATRIX),
                          size ? LABEL_CHARS : LABEL_CHARS_1COL);
            double x = num(t, row, P_X), y = num(t, row, P_Y), gx, gy;
            double fx = log(x / fr->xlo) / log(fr->xhi / fr->xlo);
            double fy = log(y / fr->ylo) / log(fr->yhi / fr->ylo);
            int right, moved;
            place(fx, fy, (double)strlen(name) * char_w[size], line_h[size], boxes, n, &gx, &gy,
                  &right, &moved);
            n++;
            fprintf(f, "  set label %d ", ++tag);
            rp_gp_name(f, name, RP_GP_STRING);
            fprintf(f, " at graph %.4f, graph %.4f %s front\n", gx, gy, right ? "right" : "left");
            if (moved)
                fprintf(f, "  set arrow %d from first %.9g, first %.9g to graph %.4f, graph %.4f"
                           " nohead lc rgb 'grey60' lw 0.5\n", tag, x, y, gx, gy);
        }
    }
    fprintf(f, "}\n");
    free(boxes);
}

/* The note under the chart: the roofs, and the points above the memory
 * roof and why (the roofline view's above_why, in counts). */
static void roof_note(char *buf, size_t len, const rp_series *s, const rp_table *t)
{
    int above = 0, warm = 1, fits = 0, over_cache = 0;
    double lo = INFINITY, hi = 0, worst = 0, roof = num(t, 0, P_ROOF);
    double croof = num(t, 0, P_CROOF), cmib = num(t, 0, P_CBYTES) / 1048576.0;
    for (int row = 0; row < t->nrows; row++) {
        if (rp_series_index(s, cell(t, row, P_SERIES)) < 0 || !atoi(cell(t, row, P_ABOVE)))
            continue;
        above++;
        lo = fmin(lo, num(t, row, P_MIB));
        hi = fmax(hi, num(t, row, P_MIB));
        worst = fmax(worst, num(t, row, P_Y) / num(t, row, P_X) / roof);
        warm &= !strcmp(cell(t, row, P_CACHE), "warm");
        int warm_row = !strcmp(cell(t, row, P_CACHE), "warm");
        if (croof > 0 && num(t, row, P_Y) / num(t, row, P_X) > croof)
            over_cache++;
        else if (atoi(cell(t, row, P_FITS)) && warm_row)
            fits++;
    }
    size_t n = 0;
    if (!(roof > 0))
        n = (size_t)snprintf(buf, len, "no %s roof: the sweep measured none",
                             cell(t, 0, P_ROOF_NAME));
    else if (above == 0)
        n = (size_t)snprintf(buf, len, "every point under the memory roof");
    else {
        n = (size_t)snprintf(buf, len, "%d above the memory roof (circled, up to %.2fx; "
                             "working sets %.3g-%.3g MiB)", above, worst, lo, hi);
        if (fits && n < len)
            n += (size_t)snprintf(buf + n, len - n, ": %d fit%s in the %.3g MiB cache, read "
                                  "there by warm launches", fits, fits == 1 ? "s" : "",
                                  cmib);
        if (above - fits - over_cache > 0 && n < len)
            n += (size_t)snprintf(buf + n, len - n, "%s%d %s the roof's benchmark, which "
                                  "also writes", fits ? "; " : ": ",
                                  above - fits - over_cache,
                                  warm ? "re-read caches between warm launches, or outrun"
                                       : "outrun");
        if (over_cache && n < len)
            n += (size_t)snprintf(buf + n, len - n, "; %d above the cache roof too",
                                  over_cache);
    }
    (void)n;
}

static void write_script(FILE *f, const rp_series *s, const rp_table *t, const char *dat,
                         const char *title, const int *blocks)
{
    frame fr = {INFINITY, 0, INFINITY, 0};
    double roof = num(t, 0, P_ROOF);
    for (int row = 0; row < t->nrows; row++) {
        if (rp_series_index(s, cell(t, row, P_SERIES)) < 0)
            continue;
        double x = num(t, row, P_X), lo = num(t, row, P_LO), hi = num(t, row, P_HI);
        fr.xlo = fmin(fr.xlo, x), fr.xhi = fmax(fr.xhi, x);
        fr.ylo = fmin(fr.ylo, isnan(lo) ? num(t, row, P_Y) : lo);
        fr.yhi = fmax(fr.yhi, isnan(hi) ? num(t, row, P_Y) : hi);
    }
    double croof = num(t, 0, P_CROOF);
    fr.xlo /= 1.25, fr.xhi *= 1.25;     /* zoomed to the data, the roofs in view over it */
    if (roof > 0)
        fr.yhi = fmax(fr.yhi, roof * fr.xhi), fr.ylo = fmin(fr.ylo, roof * fr.xlo);
    if (croof > 0)
        fr.yhi = fmax(fr.yhi, croof * fr.xhi);
    fr.ylo /= 2, fr.yhi *= 2;
    rp_chart_head(f, s->op, title);
    char note[900], roofname[300];
    roof_note(note, sizeof note, s, t);
    if (roof > 0) {
        const char *threads = cell(t, 0, P_THREADS);
        int w = snprintf(roofname, sizeof roofname, "memory roof (dashed): %s%s%s%s, %.4g "
                         "GB/s; ", cell(t, 0, P_ROOF_NAME), *threads ? ", " : "", threads,
                         *threads ? " threads" : "", roof);
        if (croof > 0 && w > 0 && (size_t)w < sizeof roofname)
            snprintf(roofname + w, sizeof roofname - (size_t)w,
                     "cache roof (dotted): %s, %.4g GB/s; ", cell(t, 0, P_CROOF_NAME), croof);
        if (strlen(roofname) + strlen(note) < sizeof note) {
            memmove(note + strlen(roofname), note, strlen(note) + 1);
            memcpy(note, roofname, strlen(roofname));
        }
    }
    fprintf(f, "set logscale xy\nset xrange [%.9g:%.9g]\nset yrange [%.9g:%.9g]\n", fr.xlo,
            fr.xhi, fr.ylo, fr.yhi);
    rp_log_tics(f, "x", fr.xlo, fr.xhi, 0);
    rp_log_tics(f, "y", fr.ylo, fr.yhi, 0);
    rp_gp_label(f, "x", "arithmetic intensity (flops per byte of the byte model)", note);
    fprintf(f, "set ylabel 'GFLOPS (median; bars: 95 %% CI)'\nset grid lc rgb '#dddddd'\n"
               "set rmargin 3\n");
    rp_key_below(f);
    rp_palette(f);
    write_labels(f, s, t, &fr);
    rp_plot_blocks(f, s, dat, blocks, "using 1:2:3:4 with yerrorbars");
    for (int i = 0; i < s->n; i++)      /* circles around the points above the roof */
        if (blocks[i] >= 0) {
            fprintf(f, ", \\\n  ");
            rp_gp_name(f, dat, RP_GP_STRING);
            fprintf(f, " index %d using 1:($5 > 0 ? $2 : NaN) with points pt 6 ps 2 "
                       "lc rgb 'black' notitle", blocks[i]);
        }
    if (roof > 0)
        fprintf(f, ", \\\n  x * %.9g with lines dt 2 lw 2 lc rgb 'grey30' notitle", roof);
    if (croof > 0)
        fprintf(f, ", \\\n  x * %.9g with lines dt 3 lw 2 lc rgb 'grey55' notitle", croof);
    fprintf(f, "\n");
}

/* The chart of one device; nothing without a point there. */
static int roofline_device(rp_report *r, const rp_series *s, const char *device, sp_err *err)
{
    static const char *const head[] = {"series", "matrix_id", "matrix", "intensity", "gflops",
                                       "gflops_lo", "gflops_hi", "roof_gbs", "roof_name",
                                       "roof_threads", "above_roof", "working_set_mib",
                                       "cache", "cache_roof_gbs", "cache_roof_name",
                                       "fits_cache", "cache_bytes"};
    sqlite3_stmt *q;
    rp_sql_mark(r);
    if (sqlite3_prepare_v2(r->db, POINTS_SQL, -1, &q, NULL) != SQLITE_OK)
        return rp_db_fail(r, err, "preparing the roofline query");
    sqlite3_bind_int64(q, 1, r->sweep_id);
    sqlite3_bind_text(q, 2, s->op, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 3, s->level, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 4, device, -1, SQLITE_STATIC);
    rp_table t;
    rp_table_init(&t, "roofline", "roofline", P_N, head);
    int rc = rp_table_query(&t, q, r, err);
    sqlite3_finalize(q);
    int any = 0;
    for (int row = 0; row < t.nrows; row++)
        any |= rp_series_index(s, cell(&t, row, P_SERIES)) >= 0;
    if (rc == 0 && any) {
        char base[200], dat[220], gp[220], title[200];
        int blocks[RP_SERIES];
        snprintf(base, sizeof base, "%s-roofline-%s", s->file, device);
        snprintf(dat, sizeof dat, "%s.dat", base);
        snprintf(gp, sizeof gp, "%s.gp", base);
        snprintf(title, sizeof title, "%s roofline, %s", rp_op_title(s->op),
                 strcmp(device, "gpu") ? "CPU" : "GPU");
        FILE *f = rp_create(r, dat, err);
        if (!f)
            rc = -1;
        if (rc == 0) {
            write_data(f, s, &t, blocks);
            rc = rp_finish(f, r, dat, err);
        }
        if (rc == 0 && !(f = rp_create(r, gp, err)))
            rc = -1;
        if (rc == 0) {
            write_script(f, s, &t, dat, title, blocks);
            rc = rp_finish(f, r, gp, err) || rp_add_chart(r, base, err) ? -1 : 0;
        }
    }
    rp_table_free(&t);
    return rc;
}

int rp_roofline_charts(rp_report *r, const rp_series *s, sp_err *err)
{
    if (strcmp(s->unit, "GFLOPS"))
        return 0;
    return roofline_device(r, s, "cpu", err) || roofline_device(r, s, "gpu", err) ? -1 : 0;
}
