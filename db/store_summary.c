/*
 * store_summary.c — the end-of-sweep table printed by `spsweep sweep`:
 * per matrix the best kernel (from the best_runs view) with its rate's and
 * speedup's 95 % intervals and whether it beats the runner-up beyond the
 * noise, then ours against the vendor library (own_vs_vendor_geomean),
 * the run counts, the noisy runs, the first failure reasons
 * (run_failures) and the matrices that could not be loaded
 * (matrix_failures).
 */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"

#define SUMMARY_COLS 9
#define SUMMARY_MAX_NOISY 10
#define SUMMARY_MAX_FAILURES 10

/* Rows of text cells, printed with every column padded to its widest cell. */
typedef struct summary_table {
    int nrows, cap;
    char **cells;               /* nrows * SUMMARY_COLS, row-major */
} summary_table;

static const char *const summary_header[SUMMARY_COLS] = {
    "matrix", "size", "nnz", "op", "best kernel", "axes", "rate [95 % CI]", "speedup [95 % CI]",
    "vs runner-up"};
/* Numbers are right-aligned. */
static const int summary_right[SUMMARY_COLS] = {0, 0, 1, 0, 0, 0, 1, 1, 0};

/* Report an SQLite failure as "DBFILE: what: sqlite message". */
static int summary_fail(sqlite3 *db, sp_err *err, const char *what)
{
    const char *file = sqlite3_db_filename(db, "main");
    return sp_fail(err, "%s: %s: %s", file && *file ? file : "database", what,
                   sqlite3_errmsg(db));
}

/* Append a row (copies of cells; NULL cells become "-"). */
static int table_add(summary_table *t, const char *const cells[SUMMARY_COLS], sp_err *err)
{
    if (t->nrows == t->cap) {
        int cap = t->cap ? 2 * t->cap : 16;
        char **grown = realloc(t->cells, (size_t)cap * SUMMARY_COLS * sizeof *grown);
        if (!grown)
            return sp_fail(err, "summary: out of memory for %d rows", cap);
        t->cells = grown;
        t->cap = cap;
    }
    char **row = t->cells + (size_t)t->nrows * SUMMARY_COLS;
    for (int c = 0; c < SUMMARY_COLS; c++) {
        row[c] = strdup(cells[c] ? cells[c] : "-");
        if (!row[c]) {
            while (c-- > 0)
                free(row[c]);
            return sp_fail(err, "summary: out of memory");
        }
    }
    t->nrows++;
    return 0;
}

static void table_free(summary_table *t)
{
    for (size_t i = 0; i < (size_t)t->nrows * SUMMARY_COLS; i++)
        free(t->cells[i]);
    free(t->cells);
}

/* Print one row padded to widths; the last column carries no padding. */
static void table_print_row(FILE *out, const char *const *row, const int *width)
{
    for (int c = 0; c < SUMMARY_COLS; c++) {
        const char *sep = c + 1 < SUMMARY_COLS ? "  " : "\n";
        int w = c + 1 < SUMMARY_COLS || summary_right[c] ? width[c] : 0;
        fprintf(out, summary_right[c] ? "%*s%s" : "%-*s%s", w, row[c], sep);
    }
}

/* Print the header, a rule and every row, each column as wide as its widest cell. */
static void table_print(FILE *out, const summary_table *t)
{
    int width[SUMMARY_COLS], total = 0;
    for (int c = 0; c < SUMMARY_COLS; c++) {
        width[c] = (int)strlen(summary_header[c]);
        for (int r = 0; r < t->nrows; r++) {
            int w = (int)strlen(t->cells[(size_t)r * SUMMARY_COLS + c]);
            width[c] = w > width[c] ? w : width[c];
        }
        total += width[c] + 2;
    }
    table_print_row(out, summary_header, width);
    for (int i = 0; i < total - 2; i++)
        fputc('-', out);
    fputc('\n', out);
    for (int r = 0; r < t->nrows; r++)
        table_print_row(out, (const char *const *)t->cells + (size_t)r * SUMMARY_COLS, width);
}

/* A rate with about three significant digits, without exponents for the
 * usual range (0.00123 .. 12345.6). */
static void format_rate(char *buf, size_t len, double v)
{
    if (v >= 100)
        snprintf(buf, len, "%.1f", v);
    else if (v >= 1)
        snprintf(buf, len, "%.2f", v);
    else
        snprintf(buf, len, "%.3g", v);
}

/* "12.3 [11.9, 12.6] GFLOPS": the rate at the median and at the two ends of
 * its 95 % interval (asymmetric: the interval is of the time); "(no CI)"
 * without one. */
static void format_rate_ci(char *buf, size_t len, double rate, double lo, double hi, int have_ci,
                           const char *unit)
{
    char r[32], a[32], b[32];
    format_rate(r, sizeof r, rate);
    if (!have_ci) {
        snprintf(buf, len, "%s %s (no CI)", r, unit);
        return;
    }
    format_rate(a, sizeof a, lo);
    format_rate(b, sizeof b, hi);
    snprintf(buf, len, "%s [%s, %s] %s", r, a, b, unit);
}

/* Turn one result row of the best-kernel query into table cells:
 * 0 matrix, 1 size, 2 nnz, 3 op, 4 kernel, 5 axes, 6 rate, 7 speedup,
 * 8 unit, 9 rate_lo, 10 rate_hi, 11 speedup_lo, 12 speedup_hi,
 * 13 runner-up kernel, 14 tie, 15 noisy. */
static int summary_row(sqlite3_stmt *s, summary_table *t, sp_err *err)
{
    char nnz[32], rate[160], speedup[160], lo[32], hi[32], versus[160];
    snprintf(nnz, sizeof nnz, "%lld", (long long)sqlite3_column_int64(s, 2));
    const unsigned char *unit = sqlite3_column_text(s, 8);
    format_rate_ci(rate, sizeof rate, sqlite3_column_double(s, 6), sqlite3_column_double(s, 9),
                   sqlite3_column_double(s, 10), sqlite3_column_type(s, 9) != SQLITE_NULL,
                   unit ? (const char *)unit : "");
    if (sqlite3_column_type(s, 11) != SQLITE_NULL) {
        format_rate(lo, sizeof lo, sqlite3_column_double(s, 11));
        format_rate(hi, sizeof hi, sqlite3_column_double(s, 12));
        snprintf(speedup, sizeof speedup, "%.2fx [%s, %s]", sqlite3_column_double(s, 7), lo, hi);
    } else {
        snprintf(speedup, sizeof speedup, "%.2fx", sqlite3_column_double(s, 7));
    }
    const char *ru = (const char *)sqlite3_column_text(s, 13);
    int tie = sqlite3_column_type(s, 14) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 14);
    if (!ru)
        snprintf(versus, sizeof versus, "(only kernel)");
    else if (tie < 0)
        snprintf(versus, sizeof versus, "%s (no CI to compare)", ru);
    else
        snprintf(versus, sizeof versus, "%s %s", tie ? "tie with" : "beats", ru);
    if (sqlite3_column_int(s, 15))
        snprintf(versus + strlen(versus), sizeof versus - strlen(versus), "; noisy");
    int have_best = sqlite3_column_type(s, 4) != SQLITE_NULL;
    const char *cells[SUMMARY_COLS] = {
        (const char *)sqlite3_column_text(s, 0), (const char *)sqlite3_column_text(s, 1),
        nnz, (const char *)sqlite3_column_text(s, 3),
        have_best ? (const char *)sqlite3_column_text(s, 4) : "(no successful run)",
        (const char *)sqlite3_column_text(s, 5),
        have_best && sqlite3_column_type(s, 6) != SQLITE_NULL ? rate : NULL,
        sqlite3_column_type(s, 7) != SQLITE_NULL ? speedup : NULL,
        have_best ? versus : NULL};
    return table_add(t, cells, err);
}

/* Collect and print the per-matrix table of sweep_id. */
static int summary_best(sqlite3 *db, int64_t sweep_id, FILE *out, sp_err *err)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db,
            "SELECT m.name, m.size_class, m.nnz, r.operation, b.kernel, b.axes,"
            " b.rate, b.speedup, b.rate_unit, b.rate_lo, b.rate_hi, b.speedup_lo,"
            " b.speedup_hi, b.runner_up_kernel, b.tie, b.noisy"
            " FROM (SELECT DISTINCT matrix_id, operation FROM runs WHERE sweep_id = ?1) r"
            " JOIN matrices m ON m.id = r.matrix_id"
            " LEFT JOIN best_runs b ON b.sweep_id = ?1 AND b.matrix_id = r.matrix_id"
            " AND b.operation = r.operation"
            " ORDER BY r.matrix_id, r.operation", -1, &s, NULL) != SQLITE_OK)
        return summary_fail(db, err, "preparing the summary query");
    sqlite3_bind_int64(s, 1, sweep_id);
    summary_table t = {0};
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(s)) == SQLITE_ROW)
        rc = summary_row(s, &t, err);
    if (rc == 0 && step != SQLITE_DONE)
        rc = summary_fail(db, err, "reading the summary");
    sqlite3_finalize(s);
    if (rc == 0)
        table_print(out, &t);
    table_free(&t);
    return rc;
}

/* The noisy runs: how many, and the noisiest SUMMARY_MAX_NOISY of them with
 * their interval's half-width in % of the median. */
static int summary_noisy(sqlite3 *db, int64_t sweep_id, FILE *out, sp_err *err)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db,
            "SELECT r.matrix, r.kernel, r.axes, r.noise, r.n, r.flags,"
            " COUNT(*) OVER (), coalesce(w.noisy_threshold, 0.05)"
            " FROM run_stats r JOIN sweeps w ON w.id = r.sweep_id"
            " WHERE r.sweep_id = ?1 AND r.noisy"
            " ORDER BY r.noise IS NULL DESC, r.noise DESC", -1, &s, NULL) != SQLITE_OK)
        return summary_fail(db, err, "preparing the noisy-run list");
    sqlite3_bind_int64(s, 1, sweep_id);
    int shown = 0, step;
    long long total = 0;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        if (shown == 0) {
            total = sqlite3_column_int64(s, 6);
            fprintf(out, "noisy: %lld run%s whose 95 %% interval is wider than ±%.0f %% of "
                    "the median (or that have none): their rates and ratios are not to be "
                    "trusted at face value\n", total, total == 1 ? "" : "s",
                    100 * sqlite3_column_double(s, 7));
        }
        if (shown++ >= SUMMARY_MAX_NOISY)
            break;
        char noise[32];
        if (sqlite3_column_type(s, 3) == SQLITE_NULL)
            snprintf(noise, sizeof noise, "no CI (%d samples)", sqlite3_column_int(s, 4));
        else
            snprintf(noise, sizeof noise, "±%.1f %%", 100 * sqlite3_column_double(s, 3));
        fprintf(out, "  %s %s %s: %s%s\n", (const char *)sqlite3_column_text(s, 0),
                (const char *)sqlite3_column_text(s, 1), (const char *)sqlite3_column_text(s, 2),
                noise, sqlite3_column_int(s, 5) ? " (machine flagged: throttled or busy)" : "");
    }
    int rc = step == SQLITE_ROW || step == SQLITE_DONE ? 0
             : summary_fail(db, err, "reading the noisy runs");
    sqlite3_finalize(s);
    if (rc == 0 && total > SUMMARY_MAX_NOISY)
        fprintf(out, "  ... and %lld more (SELECT * FROM run_stats WHERE noisy)\n",
                total - SUMMARY_MAX_NOISY);
    return rc;
}

/* Print "runs: N (N ok, N failed, N skipped, N error, N crashed, N timeout)". */
static int summary_counts(sqlite3 *db, int64_t sweep_id, FILE *out, sp_err *err)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db,
            "SELECT runs, ok, failed, skipped, error, crashed, timeout"
            " FROM run_counts WHERE sweep_id = ?1", -1, &s, NULL) != SQLITE_OK)
        return summary_fail(db, err, "preparing the run counts");
    sqlite3_bind_int64(s, 1, sweep_id);
    int rc = 0;
    if (sqlite3_step(s) == SQLITE_ROW)
        fprintf(out, "runs: %lld (%lld ok, %lld failed, %lld skipped, %lld error, "
                "%lld crashed, %lld timeout)\n",
                (long long)sqlite3_column_int64(s, 0), (long long)sqlite3_column_int64(s, 1),
                (long long)sqlite3_column_int64(s, 2), (long long)sqlite3_column_int64(s, 3),
                (long long)sqlite3_column_int64(s, 4), (long long)sqlite3_column_int64(s, 5),
                (long long)sqlite3_column_int64(s, 6));
    else
        rc = summary_fail(db, err, "counting runs");
    sqlite3_finalize(s);
    return rc;
}

/* Print the first SUMMARY_MAX_FAILURES distinct failure reasons (runs of one
 * kernel with the same status and error counted together), then how many more. */
static int summary_failures(sqlite3 *db, int64_t sweep_id, FILE *out, sp_err *err)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db,
            "SELECT status, kernel, COUNT(*), error, COUNT(*) OVER ()"
            " FROM run_failures WHERE sweep_id = ?1"
            " GROUP BY status, kernel, error ORDER BY MIN(run_id)", -1, &s,
            NULL) != SQLITE_OK)
        return summary_fail(db, err, "preparing the failure list");
    sqlite3_bind_int64(s, 1, sweep_id);
    int shown = 0, step;
    long long total = 0;
    while ((step = sqlite3_step(s)) == SQLITE_ROW && shown < SUMMARY_MAX_FAILURES) {
        const char *why = (const char *)sqlite3_column_text(s, 3);
        long long n = sqlite3_column_int64(s, 2);
        fprintf(out, "  %-7s %s, %lld run%s: %s\n", (const char *)sqlite3_column_text(s, 0),
                (const char *)sqlite3_column_text(s, 1), n, n == 1 ? "" : "s",
                why ? why : "(no reason given)");
        total = sqlite3_column_int64(s, 5);
        shown++;
    }
    int rc = step == SQLITE_ROW || step == SQLITE_DONE ? 0
             : summary_fail(db, err, "reading the failures");
    sqlite3_finalize(s);
    if (rc == 0 && total > shown)
        fprintf(out, "  ... and %lld more reasons (see the run_failures view)\n", total - shown);
    return rc;
}

/* Print every matrix the sweep could not load, with the reason. */
static int summary_matrix_failures(sqlite3 *db, int64_t sweep_id, FILE *out, sp_err *err)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, "SELECT status, source, reason FROM matrix_failures"
                               " WHERE sweep_id = ?1 ORDER BY id", -1, &s, NULL) != SQLITE_OK)
        return summary_fail(db, err, "preparing the matrix failure list");
    sqlite3_bind_int64(s, 1, sweep_id);
    int step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        const char *why = (const char *)sqlite3_column_text(s, 2);
        fprintf(out, "  matrix %s %s: %s\n", (const char *)sqlite3_column_text(s, 1),
                (const char *)sqlite3_column_text(s, 0), why ? why : "(no reason given)");
    }
    int rc = step == SQLITE_DONE ? 0 : summary_fail(db, err, "reading the matrix failures");
    sqlite3_finalize(s);
    return rc;
}

/* Print, per operation, device and precision where a vendor library ran,
 * our best against the vendor's best (own_vs_vendor_geomean): the geomean
 * with its bound, the verdicts and the worst matrix. The 'nnz >= 1e6'
 * scope only where it leaves matrices out. */
static int summary_vendor(sqlite3 *db, int64_t sweep_id, FILE *out, sp_err *err)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db,
            "SELECT g.operation, g.device, g.precision, g.scope, g.matrices, g.geomean,"
            " g.geomean_lo, g.geomean_hi, g.faster, g.same, g.slower, g.worst, g.worst_matrix"
            " FROM own_vs_vendor_geomean g WHERE g.sweep_id = ?1 AND (g.scope = 'all' OR"
            "  g.matrices < (SELECT a.matrices FROM own_vs_vendor_geomean a"
            "   WHERE a.sweep_id = g.sweep_id AND a.operation = g.operation"
            "   AND a.device = g.device AND a.precision = g.precision AND a.scope = 'all'))"
            " ORDER BY g.operation, g.device, g.precision, g.scope", -1, &s, NULL) != SQLITE_OK)
        return summary_fail(db, err, "preparing the own-vs-vendor lines");
    sqlite3_bind_int64(s, 1, sweep_id);
    int step, first = 1;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        if (first)
            fprintf(out, "ours against the vendor library (own_vs_vendor: our best run over "
                         "its best per matrix, > 1 ours faster; geomean [bound]):\n");
        first = 0;
        char bound[64] = "";
        if (sqlite3_column_type(s, 6) != SQLITE_NULL)
            snprintf(bound, sizeof bound, " [%.2f, %.2f]", sqlite3_column_double(s, 6),
                     sqlite3_column_double(s, 7));
        const char *scope = (const char *)sqlite3_column_text(s, 3);
        fprintf(out, "  %s %s %s%s%s: %.2fx%s over %d matrices (%d faster, %d same, "
                "%d slower); worst %.2f on %s\n",
                (const char *)sqlite3_column_text(s, 0), (const char *)sqlite3_column_text(s, 1),
                (const char *)sqlite3_column_text(s, 2), strcmp(scope, "all") ? ", " : "",
                strcmp(scope, "all") ? scope : "", sqlite3_column_double(s, 5), bound,
                sqlite3_column_int(s, 4), sqlite3_column_int(s, 8), sqlite3_column_int(s, 9),
                sqlite3_column_int(s, 10), sqlite3_column_double(s, 11),
                (const char *)sqlite3_column_text(s, 12));
    }
    int rc = step == SQLITE_DONE ? 0 : summary_fail(db, err, "reading own-vs-vendor");
    sqlite3_finalize(s);
    return rc;
}

/* Print the end-of-sweep table, the run counts and the failure reasons. */
int sp_store_print_summary(sp_store *st, int64_t sweep_id, FILE *out, sp_err *err)
{
    sqlite3 *db = sp_store_db(st);
    if (!db || !out)
        return sp_fail(err, "sp_store_print_summary: NULL argument");
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM sweeps WHERE id = ?1", -1, &s, NULL) !=
        SQLITE_OK)
        return summary_fail(db, err, "preparing the sweep lookup");
    sqlite3_bind_int64(s, 1, sweep_id);
    int found = sqlite3_step(s) == SQLITE_ROW;
    sqlite3_finalize(s);
    if (!found)
        return sp_fail(err, "%s: sweep %lld not found", sqlite3_db_filename(db, "main"),
                       (long long)sweep_id);
    fprintf(out, "sweep %lld: best kernel per matrix (rate at the median time [at the ends "
            "of its 95 %% interval]; speedup against the serial kernel [its interval]; a "
            "winner whose interval overlaps the runner-up kernel's is a tie)\n",
            (long long)sweep_id);
    if (summary_best(db, sweep_id, out, err) || summary_vendor(db, sweep_id, out, err) ||
        summary_counts(db, sweep_id, out, err) ||
        summary_failures(db, sweep_id, out, err) ||
        summary_matrix_failures(db, sweep_id, out, err) || summary_noisy(db, sweep_id, out, err))
        return -1;
    return 0;
}
