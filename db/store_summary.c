/*
 * store_summary.c — the end-of-sweep table printed by `spsweep sweep`:
 * per matrix the best kernel (from the best_runs view), then the run
 * counts, the first failure reasons (run_failures) and the matrices that
 * could not be loaded (matrix_failures).
 */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"

#define SUMMARY_COLS 8
#define SUMMARY_MAX_FAILURES 10

/* Rows of text cells, printed with every column padded to its widest cell. */
typedef struct summary_table {
    int nrows, cap;
    char **cells;               /* nrows * SUMMARY_COLS, row-major */
} summary_table;

static const char *const summary_header[SUMMARY_COLS] = {
    "matrix", "size", "nnz", "op", "best kernel", "axes", "rate", "speedup"};
/* Numbers are right-aligned. */
static const int summary_right[SUMMARY_COLS] = {0, 0, 1, 0, 0, 0, 1, 1};

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

/* Turn one result row of the best-kernel query into table cells. */
static int summary_row(sqlite3_stmt *s, summary_table *t, sp_err *err)
{
    char nnz[32], rate[32], gflops[64], speedup[32];
    snprintf(nnz, sizeof nnz, "%lld", (long long)sqlite3_column_int64(s, 2));
    format_rate(rate, sizeof rate, sqlite3_column_double(s, 6));
    const unsigned char *unit = sqlite3_column_text(s, 8);
    snprintf(gflops, sizeof gflops, "%s %s", rate, unit ? (const char *)unit : "");
    snprintf(speedup, sizeof speedup, "%.2fx", sqlite3_column_double(s, 7));
    int have_best = sqlite3_column_type(s, 4) != SQLITE_NULL;
    const char *cells[SUMMARY_COLS] = {
        (const char *)sqlite3_column_text(s, 0), (const char *)sqlite3_column_text(s, 1),
        nnz, (const char *)sqlite3_column_text(s, 3),
        have_best ? (const char *)sqlite3_column_text(s, 4) : "(no successful run)",
        (const char *)sqlite3_column_text(s, 5),
        have_best && sqlite3_column_type(s, 6) != SQLITE_NULL ? gflops : NULL,
        sqlite3_column_type(s, 7) != SQLITE_NULL ? speedup : NULL};
    return table_add(t, cells, err);
}

/* Collect and print the per-matrix table of sweep_id. */
static int summary_best(sqlite3 *db, int64_t sweep_id, FILE *out, sp_err *err)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db,
            "SELECT m.name, m.size_class, m.nnz, r.operation, b.kernel, b.axes,"
            " b.rate, b.speedup, b.rate_unit"
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

/* Print "runs: N (N ok, N failed, N skipped, N error, N crashed, N timeout)". */
static int summary_counts(sqlite3 *db, int64_t sweep_id, FILE *out, sp_err *err)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db,
            "SELECT COUNT(*), TOTAL(status = 'ok'), TOTAL(status = 'failed'),"
            " TOTAL(status = 'skipped'), TOTAL(status = 'error'),"
            " TOTAL(status = 'crashed'), TOTAL(status = 'timeout')"
            " FROM runs WHERE sweep_id = ?1", -1, &s, NULL) != SQLITE_OK)
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
    fprintf(out, "sweep %lld: best kernel per matrix (rate from the median time; "
            "speedup against the serial kernel)\n", (long long)sweep_id);
    if (summary_best(db, sweep_id, out, err) || summary_counts(db, sweep_id, out, err) ||
        summary_failures(db, sweep_id, out, err) ||
        summary_matrix_failures(db, sweep_id, out, err))
        return -1;
    return 0;
}
