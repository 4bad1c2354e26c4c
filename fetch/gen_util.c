/*
 * gen_util.c — what every generator (fetch/gen_*.c) shares: its parameters
 * read and range-checked, sizes checked against the formats' limits, the
 * structure notes the cost model reads, out-of-memory errors, the row
 * pointer prefix sum and the column sort. It calls no generator and not
 * the dispatch (gen.c), so the generator files form a stack: these
 * helpers, the generators, and gen.c on top.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

/* The value given for key, or NULL. */
const char *gen_param_find(const gen_params *p, const char *key)
{
    for (int i = 0; i < p->count; i++)
        if (strcmp(p->item[i].key, key) == 0)
            return p->item[i].value;
    return NULL;
}

/* Strict decimal integer: optional '-', digits, nothing else. 0 when it
 * parses, 1 when it is not an integer, 2 when it overflows int64. */
static int parse_int(const char *s, int64_t *out)
{
    const char *d = (*s == '-') ? s + 1 : s;
    if (!isdigit((unsigned char)*d))
        return 1;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (*end != '\0')
        return 1;
    if (errno == ERANGE)
        return 2;
    *out = v;
    return 0;
}

/* Integer parameter, range-checked; dflt or GEN_REQUIRED when absent. */
int gen_param_int(const gen_params *p, const char *key, int64_t dflt, int64_t lo,
                  int64_t hi, int64_t *out, sp_err *err)
{
    const char *v = gen_param_find(p, key);
    if (!v) {
        if (dflt == GEN_REQUIRED)
            return sp_fail(err, "gen:%s: missing required parameter '%s'", p->spec, key);
        *out = dflt;
        return 0;
    }
    int64_t x = 0;
    int rc = parse_int(v, &x);
    if (rc == 1)
        return sp_fail(err, "gen:%s: parameter '%s': '%s' is not an integer", p->spec, key, v);
    if (rc == 2 || x < lo || x > hi) {
        if (hi == INT64_MAX)
            return sp_fail(err, "gen:%s: parameter '%s': %s is out of range (must be >= %lld)",
                           p->spec, key, v, (long long)lo);
        return sp_fail(err, "gen:%s: parameter '%s': %s is out of range (must be %lld..%lld)",
                       p->spec, key, v, (long long)lo, (long long)hi);
    }
    *out = x;
    return 0;
}

/* Real parameter, range-checked; dflt when absent. */
int gen_param_real(const gen_params *p, const char *key, double dflt, double lo,
                   double hi, double *out, sp_err *err)
{
    const char *v = gen_param_find(p, key);
    if (!v) {
        *out = dflt;
        return 0;
    }
    char *end;
    double x = strtod(v, &end);
    if (isspace((unsigned char)*v) || *end != '\0' || !isfinite(x))
        return sp_fail(err, "gen:%s: parameter '%s': '%s' is not a number", p->spec, key, v);
    if (x < lo || x > hi)
        return sp_fail(err, "gen:%s: parameter '%s': %s is out of range (must be in [%g, %g])",
                       p->spec, key, v, lo, hi);
    *out = x;
    return 0;
}

/* Unsigned 64-bit seed; dflt when absent. */
int gen_param_seed(const gen_params *p, const char *key, uint64_t dflt, uint64_t *out,
                   sp_err *err)
{
    const char *v = gen_param_find(p, key);
    if (!v) {
        *out = dflt;
        return 0;
    }
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (!isdigit((unsigned char)*v) || *end != '\0')
        return sp_fail(err, "gen:%s: parameter '%s': '%s' is not a non-negative integer",
                       p->spec, key, v);
    if (errno == ERANGE)
        return sp_fail(err, "gen:%s: parameter '%s': %s is out of range (must fit in 64 bits)",
                       p->spec, key, v);
    *out = x;
    return 0;
}

/* Saturating product of two sizes, so limit checks never wrap. */
int64_t gen_mul(int64_t a, int64_t b)
{
    int64_t r;
    if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &r))
        return INT64_MAX;
    return r;
}

/* Refuse a shape or nonzero count beyond int32, naming the number. */
int gen_check_size(const gen_params *p, int64_t rows, int64_t cols, int64_t nnz,
                   sp_err *err)
{
    const char *what = rows > INT32_MAX ? "rows" : cols > INT32_MAX ? "columns" : "nonzeros";
    int64_t n = rows > INT32_MAX ? rows : cols > INT32_MAX ? cols : nnz;
    if (n <= INT32_MAX) {
        gen_note_size(p, rows, cols, nnz, 0);
        return 0;
    }
    if (n == INT64_MAX)
        return sp_fail(err, "gen:%s: the number of %s overflows 64 bits; 32-bit indices "
                       "hold at most %d", p->spec, what, INT32_MAX);
    return sp_fail(err, "gen:%s: %lld %s exceed the 32-bit index limit (%d)", p->spec,
                   (long long)n, what, INT32_MAX);
}

void gen_note_size(const gen_params *p, int64_t rows, int64_t cols, int64_t nnz,
                   uint64_t scratch_bytes)
{
    if (p->size) {
        p->size->rows = rows, p->size->cols = cols, p->size->nnz = nnz;
        p->size->scratch_bytes = scratch_bytes;
    }
}

void gen_note_structure(const gen_params *p, double row_max, double ndiags)
{
    if (p->size)
        p->size->row_max = row_max, p->size->ndiags = ndiags;
}

void gen_note_slices(const gen_params *p, double long_rows, double slice_growth)
{
    if (p->size)
        p->size->long_rows = long_rows, p->size->slice_growth = slice_growth;
}

/* Each position holds an entry with probability p = nnz / (rows cols), so
 * a diagonal of L positions is touched with probability 1 - q^L (q =
 * 1 - p). The lengths run 1, 2, ..., m - 1 up, m for |rows - cols| + 1
 * diagonals, and back down (m = min(rows, cols)), which sums in closed
 * form: 2 [(m - 1) - q (1 - q^(m-1)) / p] + (|rows - cols| + 1)(1 - q^m). */
double sp_scattered_diagonals(int64_t rows, int64_t cols, int64_t nnz)
{
    double r = (double)rows, c = (double)cols, m = fmin(r, c);
    if (nnz <= 0 || m < 1)
        return 0;
    double p = fmin(1, (double)nnz / (r * c));
    if (p >= 1)
        return r + c - 1;
    double lq = log1p(-p);                      /* ln q */
    double up = (m - 1) - (1 - p) * -expm1((m - 1) * lq) / p;
    return 2 * up + (fabs(r - c) + 1) * -expm1(m * lq);
}

/* Out-of-memory failure naming the spec. */
int gen_fail_oom(const gen_params *p, sp_err *err)
{
    return sp_fail(err, "gen:%s: out of memory", p->spec);
}

/* Per-row counts in rowptr[1..rows] become offsets. */
void gen_prefix_sum(int32_t *rowptr, int32_t rows)
{
    rowptr[0] = 0;
    for (int32_t i = 0; i < rows; i++)
        rowptr[i + 1] += rowptr[i];
}

/* Insertion sort: the fastest for the short rows most matrices have. */
static void insertion_sort(int32_t *col, int32_t k)
{
    for (int32_t i = 1; i < k; i++) {
        int32_t v = col[i], j = i;
        for (; j > 0 && col[j - 1] > v; j--)
            col[j] = col[j - 1];
        col[j] = v;
    }
}

/* Median of three, the quicksort pivot: sorted and reversed runs stay
 * O(n log n). */
static int32_t median3(int32_t a, int32_t b, int32_t c)
{
    if (a > b) {
        int32_t t = a;
        a = b;
        b = t;
    }
    return c <= a ? a : c >= b ? b : c;
}

/* Sort k column indices ascending. */
void gen_sort_columns(int32_t *col, int32_t k)
{
    /* Quicksort with Hoare partitioning (equal keys split evenly, which
     * matters for R-MAT rows full of repeats); recursion on the smaller
     * side keeps the stack O(log k). Several times faster than qsort(). */
    while (k > 32) {
        int32_t pivot = median3(col[0], col[k / 2], col[k - 1]);
        int32_t i = -1, j = k;
        for (;;) {
            while (col[++i] < pivot) {}
            while (col[--j] > pivot) {}
            if (i >= j)
                break;
            int32_t t = col[i];
            col[i] = col[j];
            col[j] = t;
        }
        if (j + 1 < k - j - 1) {
            gen_sort_columns(col, j + 1);
            col += j + 1;
            k -= j + 1;
        } else {
            gen_sort_columns(col + j + 1, k - j - 1);
            k = j + 1;
        }
    }
    insertion_sort(col, k);
}
