/*
 * compare_load.c — the runs of two sweeps, read and paired for the
 * comparison (compare.h): which sweep, its ok runs from run_stats (median
 * and interval as the views define them, so a change to the interval's
 * definition reaches the comparison without a change here), their samples
 * from the samples table, and the pairs by key (matrix source, operation,
 * kernel, axes JSON text). The two sweeps may come from two connections:
 * the pairing is done here in C, not by a join.
 */
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "compare.h"
#include "store.h"

static int db_fail(sqlite3 *db, const char *path, const char *what, sp_err *err)
{
    return sp_fail(err, "%s: %s: %s", path, what, sqlite3_errmsg(db));
}

int sp_cmp_pick_sweep(sqlite3 *db, const char *path, const char *option, int64_t *sweep_id,
                      sp_err *err)
{
    if (*sweep_id)
        return sp_store_check_sweep(db, "main", path, option, *sweep_id, err);
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, "SELECT coalesce((SELECT MAX(sweep_id) FROM runs WHERE"
                               " status = 'ok'), (SELECT MAX(id) FROM sweeps), 0)",
                           -1, &s, NULL) != SQLITE_OK)
        return db_fail(db, path, "looking up the latest sweep", err);
    int rc = sqlite3_step(s) == SQLITE_ROW ? 0 : db_fail(db, path, "looking up the latest"
                                                                   " sweep", err);
    if (rc == 0 && !(*sweep_id = sqlite3_column_int64(s, 0)))
        rc = sp_fail(err, "%s: no sweep to compare (run a sweep first)", path);
    sqlite3_finalize(s);
    return rc;
}

/* A copy of column col's text ("" for NULL); NULL when out of memory. */
static char *column_dup(sqlite3_stmt *s, int col)
{
    const char *v = (const char *)sqlite3_column_text(s, col);
    return strdup(v ? v : "");
}

static const char RUNS_SQL[] =
    "SELECT s.run_id, s.matrix, m.source, s.operation, s.kernel, s.axes, s.median,"
    " s.ci_lo, s.ci_hi, s.noisy, s.flags FROM run_stats s JOIN matrices m ON m.id = s.matrix_id"
    " WHERE s.sweep_id = ?1 ORDER BY s.run_id";
static const char SAMPLES_SQL[] =
    "SELECT x.run_id, x.seconds FROM samples x JOIN runs r ON r.id = x.run_id"
    " WHERE r.sweep_id = ?1 AND r.status = 'ok' ORDER BY x.run_id";

/* Fill one run from a row of RUNS_SQL (interval NaN when NULL). */
static int read_run(sqlite3_stmt *s, sp_cmp_run *r)
{
    r->run_id = sqlite3_column_int64(s, 0);
    r->matrix = column_dup(s, 1);
    r->source = column_dup(s, 2);
    r->operation = column_dup(s, 3);
    r->kernel = column_dup(s, 4);
    r->axes = column_dup(s, 5);
    r->median = sqlite3_column_double(s, 6);
    int ci = sqlite3_column_type(s, 7) != SQLITE_NULL && sqlite3_column_type(s, 8) != SQLITE_NULL;
    r->from_range = !ci;
    r->lo = ci ? sqlite3_column_double(s, 7) : 0;
    r->hi = ci ? sqlite3_column_double(s, 8) : 0;
    r->noisy = sqlite3_column_int(s, 9);
    r->unfit = (sqlite3_column_int(s, 10) & (int)SP_CMP_UNFIT_FLAGS) != 0;
    return r->matrix && r->source && r->operation && r->kernel && r->axes ? 0 : -1;
}

/* The runs of the sweep, by run id. */
static int load_runs(sqlite3 *db, const char *path, sp_cmp_set *out, sp_err *err)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, RUNS_SQL, -1, &s, NULL) != SQLITE_OK)
        return db_fail(db, path, "reading run_stats", err);
    sqlite3_bind_int64(s, 1, out->sweep_id);
    int step, cap = 0, rc = 0;
    while (rc == 0 && (step = sqlite3_step(s)) == SQLITE_ROW) {
        if (out->n == cap) {
            cap = cap ? 2 * cap : 256;
            sp_cmp_run *grown = realloc(out->runs, (size_t)cap * sizeof *grown);
            if (!grown) {
                rc = sp_fail(err, "%s: out of memory reading run_stats", path);
                break;
            }
            out->runs = grown;
        }
        memset(&out->runs[out->n], 0, sizeof *out->runs);
        if (read_run(s, &out->runs[out->n++]))
            rc = sp_fail(err, "%s: out of memory reading run_stats", path);
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = db_fail(db, path, "reading run_stats", err);
    sqlite3_finalize(s);
    return rc;
}

/* The run of runs[0..n) (sorted by id) with this id, or NULL. */
static sp_cmp_run *find_run(sp_cmp_run *runs, int n, int64_t id)
{
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (runs[mid].run_id == id)
            return &runs[mid];
        if (runs[mid].run_id < id)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return NULL;
}

/* The samples of the sweep's ok runs, into the pool; each run points at
 * its block (the query returns them grouped by run id). */
static int load_samples(sqlite3 *db, const char *path, sp_cmp_set *out, sp_err *err)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, SAMPLES_SQL, -1, &s, NULL) != SQLITE_OK)
        return db_fail(db, path, "reading the samples", err);
    sqlite3_bind_int64(s, 1, out->sweep_id);
    size_t used = 0, cap = 0;
    int64_t *owner = NULL;
    int step, rc = 0;
    while (rc == 0 && (step = sqlite3_step(s)) == SQLITE_ROW) {
        if (used == cap) {
            cap = cap ? 2 * cap : 4096;
            double *p = realloc(out->pool, cap * sizeof *p);
            int64_t *o = p ? realloc(owner, cap * sizeof *o) : NULL;
            out->pool = p ? p : out->pool;
            owner = o ? o : owner;
            if (!p || !o) {
                rc = sp_fail(err, "%s: out of memory reading the samples", path);
                break;
            }
        }
        owner[used] = sqlite3_column_int64(s, 0);
        out->pool[used++] = sqlite3_column_double(s, 1);
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = db_fail(db, path, "reading the samples", err);
    sqlite3_finalize(s);
    for (size_t i = 0; rc == 0 && i < used;) {
        size_t j = i;
        while (j < used && owner[j] == owner[i])
            j++;
        sp_cmp_run *r = find_run(out->runs, out->n, owner[i]);
        if (r) {
            r->samples = out->pool + i;
            r->n = (int)(j - i);
        }
        i = j;
    }
    free(owner);
    return rc;
}

/* Runs without an interval take their samples' range; a run without
 * samples (a run_stats that is not built from them) is refused. */
static int fill_ranges(const char *path, sp_cmp_set *out, sp_err *err)
{
    for (int i = 0; i < out->n; i++) {
        sp_cmp_run *r = &out->runs[i];
        if (r->n < 1)
            return sp_fail(err, "%s: run %lld of sweep %lld is in run_stats but has no"
                                " samples", path, (long long)r->run_id,
                           (long long)out->sweep_id);
        if (!r->from_range)
            continue;
        r->lo = r->hi = r->samples[0];
        for (int k = 1; k < r->n; k++) {
            r->lo = r->samples[k] < r->lo ? r->samples[k] : r->lo;
            r->hi = r->samples[k] > r->hi ? r->samples[k] : r->hi;
        }
    }
    return 0;
}

int sp_cmp_load(sqlite3 *db, const char *path, int64_t sweep_id, sp_cmp_set *out, sp_err *err)
{
    memset(out, 0, sizeof *out);
    out->sweep_id = sweep_id;
    if (load_runs(db, path, out, err) || load_samples(db, path, out, err) ||
        fill_ranges(path, out, err)) {
        sp_cmp_set_free(out);
        return -1;
    }
    return 0;
}

void sp_cmp_set_free(sp_cmp_set *s)
{
    for (int i = 0; s->runs && i < s->n; i++) {
        free(s->runs[i].matrix);
        free(s->runs[i].source);
        free(s->runs[i].operation);
        free(s->runs[i].kernel);
        free(s->runs[i].axes);
    }
    free(s->runs);
    free(s->pool);
    memset(s, 0, sizeof *s);
}

/* Order of runs by key: source, operation, kernel, axes. */
static int key_cmp(const sp_cmp_run *x, const sp_cmp_run *y)
{
    int c = strcmp(x->source, y->source);
    c = c ? c : strcmp(x->operation, y->operation);
    c = c ? c : strcmp(x->kernel, y->kernel);
    return c ? c : strcmp(x->axes, y->axes);
}

static int by_key(const void *pa, const void *pb)
{
    const sp_cmp_run *x = *(const sp_cmp_run *const *)pa, *y = *(const sp_cmp_run *const *)pb;
    int c = key_cmp(x, y);
    return c ? c : (x->run_id > y->run_id) - (x->run_id < y->run_id);
}

/* Pointers to the runs of s, sorted by key (NULL when out of memory). */
static const sp_cmp_run **sorted_runs(const sp_cmp_set *s)
{
    const sp_cmp_run **v = malloc((size_t)(s->n ? s->n : 1) * sizeof *v);
    if (!v)
        return NULL;
    for (int i = 0; i < s->n; i++)
        v[i] = &s->runs[i];
    qsort(v, (size_t)s->n, sizeof *v, by_key);
    return v;
}

/* Display order: verdict, then matrix name, operation, kernel, axes. */
static int by_verdict(const void *pa, const void *pb)
{
    const sp_cmp_row *x = pa, *y = pb;
    if (x->verdict != y->verdict)
        return (int)x->verdict - (int)y->verdict;
    const sp_cmp_run *rx = x->b ? x->b : x->a, *ry = y->b ? y->b : y->a;
    int c = strcmp(rx->matrix, ry->matrix);
    return c ? c : key_cmp(rx, ry);
}

/* Merge the two key-sorted lists into rows (a key twice on one side, which
 * one sweep cannot store, would pair in order, the rest gone / new). */
static int merge(const sp_cmp_run **va, int na, const sp_cmp_run **vb, int nb,
                 const sp_cmp_opts *o, sp_cmp_row *rows, int *nrows, sp_err *err)
{
    int i = 0, j = 0, n = 0;
    while (i < na || j < nb) {
        int c = i == na ? 1 : j == nb ? -1 : key_cmp(va[i], vb[j]);
        sp_cmp_row *r = &rows[n++];
        if (c == 0 && sp_cmp_judge(va[i++], vb[j++], o, r, err))
            return -1;
        if (c < 0)
            *r = (sp_cmp_row){.a = va[i++], .verdict = SP_CMP_GONE};
        else if (c > 0)
            *r = (sp_cmp_row){.b = vb[j++], .verdict = SP_CMP_NEW};
    }
    *nrows = n;
    return 0;
}

int sp_cmp_pair(const sp_cmp_set *a, const sp_cmp_set *b, const sp_cmp_opts *o,
                sp_cmp_row **rows, int *nrows, sp_err *err)
{
    *rows = NULL;
    *nrows = 0;
    const sp_cmp_run **va = sorted_runs(a), **vb = sorted_runs(b);
    sp_cmp_row *out = malloc((size_t)(a->n + b->n + 1) * sizeof *out);
    int rc = va && vb && out ? 0 : sp_fail(err, "compare: out of memory pairing the runs");
    if (rc == 0)
        rc = merge(va, a->n, vb, b->n, o, out, nrows, err);
    free(va);
    free(vb);
    if (rc) {
        free(out);
        *nrows = 0;
        return -1;
    }
    qsort(out, (size_t)*nrows, sizeof *out, by_verdict);
    *rows = out;
    return 0;
}
