/* spmv_cases.c — awkward SpMV test matrices and the kernel life cycle. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spmv_cases.h"
#include "../kernels/cpu_isa.h"
#include "testutil.h"
#include "../runner/runner.h"

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [-1, 1). */
static double rng_value(uint64_t *s)
{
    return (double)(rng_next(s) >> 11) * 0x1.0p-53 * 2.0 - 1.0;
}

/* The shapes: rows x cols with per_row random columns per row (duplicates
 * possible, summed by sp_csr_from_coo); row `dense` (if >= 0) full; rows
 * with i % empty_every == 0 empty (if empty_every > 0). */
static const struct {
    const char *name;
    int32_t rows, cols;
    int per_row;
    int32_t dense;
    int empty_every;
} cases[] = {
    {"random 5000x5000, 10 per row", 5000, 5000, 10, -1, 0},
    {"rows not a multiple of 32 (1001)", 1001, 1001, 7, -1, 0},
    {"every third row empty", 999, 999, 5, -1, 3},
    {"one dense row of 200000", 3000, 200000, 3, 1500, 0},
    {"one column", 4097, 1, 1, -1, 0},
    {"one row", 1, 50000, 0, 0, 0},
    {"wide 37x1000", 37, 1000, 20, -1, 0},
    {"tall 1000x37", 1000, 37, 4, -1, 0},
    {"nnz = 0", 300, 200, 0, -1, 0},
    {"no columns 50x0", 50, 0, 0, -1, 0},
    {"no rows 0x100", 0, 100, 0, -1, 0},
    {"0 x 0", 0, 0, 0, -1, 0},
    {"column 0 and the last 37 rows empty", 1003, 999, 6, -1, 0},
    {"33 rows (a hack and one), empty column 5", 33, 40, 3, -1, 0},
    {"one row of 2000 in 2000 x 2000", 2000, 2000, 8, 1234, 0},
    {"tall 10007 x 3, rows not a multiple of 8", 10007, 3, 2, -1, 7},
};

/* Cases with their last `tail` rows empty and column `col` (if >= 0)
 * never used: the splits' trailing empty rows, CSC's empty columns. */
static const struct {
    const char *name;
    int32_t tail, col;
} empties[] = {
    {"column 0 and the last 37 rows empty", 37, 0},
    {"33 rows (a hack and one), empty column 5", 0, 5},
};

/* The empties entry of case i, or {0, -1}. */
static void empties_of(int i, int32_t *tail, int32_t *col)
{
    *tail = 0, *col = -1;
    for (size_t e = 0; e < sizeof empties / sizeof *empties; e++)
        if (!strcmp(empties[e].name, cases[i].name))
            *tail = empties[e].tail, *col = empties[e].col;
}

/* More shapes for the GPU kernels' warps, groups and tiles: like cases[],
 * plus rows with i % long_every == 1 of long_len entries (if long_every >
 * 0), and zipf: row i of cols / (i + 1) entries (power law, at least 1). */
static const struct {
    const char *name;
    int32_t rows, cols;
    int per_row, empty_every, long_every, long_len, zipf;
} skewed[] = {
    {"33 rows (a warp + 1), 64 per row", 33, 4000, 64, 0, 0, 0, 0},
    {"1025 rows, every 17th of 3000", 1025, 5000, 3, 0, 17, 3000, 0},
    {"power-law rows 3000x3000", 3000, 3000, 0, 0, 0, 0, 1},
    {"every other row empty, 5000 rows", 5000, 5000, 2, 2, 0, 0, 0},
};

#define NCASES ((int)(sizeof cases / sizeof *cases))

int spmv_case_count(void)
{
    return NCASES + (int)(sizeof skewed / sizeof *skewed);
}

const char *spmv_generated_spec(int i, int quick)
{
    static const char *const specs[SPMV_GENERATED_COUNT] = {
        "laplace2d?n=300",
        "rmat?scale=14&ef=8",
        "denserow?rows=20000&cols=1000000&per_row=4&dense=1000000",
        "laplace3d?n=40&points=27",
        "uniform?rows=100003&cols=5000&per_row=9&seed=2",
        "banded?n=5000&bw=7",
    };
    cr_assert(i >= 0 && i < SPMV_GENERATED_COUNT);
    return quick && strstr(specs[i], "dense=")
               ? "denserow?rows=20000&cols=100000&per_row=4&dense=100000"
               : specs[i];
}

/* Entries of row r of skewed case i (random columns, like cases[]). */
static int skewed_row_length(int i, int32_t r)
{
    if (skewed[i].empty_every > 0 && r % skewed[i].empty_every == 0)
        return 0;
    if (skewed[i].long_every > 0 && r % skewed[i].long_every == 1)
        return skewed[i].long_len;
    if (skewed[i].zipf)
        return skewed[i].cols / (r + 1) > 0 ? skewed[i].cols / (r + 1) : 1;
    return skewed[i].per_row;
}

/* Skewed case i into c. */
static void skewed_build(int i, spmv_case *c)
{
    uint64_t seed = 2000 + (uint64_t)i;
    sp_err err;
    memset(c, 0, sizeof *c);
    c->name = skewed[i].name;
    cr_assert_eq(sp_coo_init(&c->T, skewed[i].rows, skewed[i].cols, 1024, &err), 0, "%s",
                 err.msg);
    for (int32_t r = 0; r < skewed[i].rows; r++)
        for (int k = skewed_row_length(i, r); k > 0; k--) {
            int32_t j = (int32_t)(rng_next(&seed) % (uint64_t)skewed[i].cols);
            cr_assert_eq(sp_coo_push(&c->T, r, j, rng_value(&seed), &err), 0, "%s", err.msg);
        }
    cr_assert_eq(sp_csr_from_coo(&c->A, &c->T, &err), 0, "%s", err.msg);
    cr_assert_eq(sp_csr_validate(&c->A, &err), 0, "%s: %s", c->name, err.msg);
}

void spmv_case_build(int i, spmv_case *c)
{
    cr_assert(i >= 0 && i < spmv_case_count());
    if (i >= NCASES) {
        skewed_build(i - NCASES, c);
        return;
    }
    uint64_t seed = 1000 + (uint64_t)i;
    int32_t cols = cases[i].cols;
    sp_err err;
    memset(c, 0, sizeof *c);
    c->name = cases[i].name;
    int32_t tail, empty_col;
    empties_of(i, &tail, &empty_col);
    cr_assert_eq(sp_coo_init(&c->T, cases[i].rows, cols, 1024, &err), 0, "%s", err.msg);
    for (int32_t r = 0; r < cases[i].rows; r++) {
        if ((cases[i].empty_every > 0 && r % cases[i].empty_every == 0) ||
            r >= cases[i].rows - tail)
            continue;
        int n = r == cases[i].dense ? cols : cols > 0 ? cases[i].per_row : 0;
        for (int k = 0; k < n; k++) {
            int32_t j = r == cases[i].dense ? k : (int32_t)(rng_next(&seed) % (uint64_t)cols);
            if (j == empty_col)
                j = (j + 1) % cols;
            cr_assert_eq(sp_coo_push(&c->T, r, j, rng_value(&seed), &err), 0, "%s", err.msg);
        }
    }
    cr_assert_eq(sp_csr_from_coo(&c->A, &c->T, &err), 0, "%s", err.msg);
    cr_assert_eq(sp_csr_validate(&c->A, &err), 0, "%s: %s", c->name, err.msg);
}

void spmv_case_free(spmv_case *c)
{
    sp_coo_free(&c->T);
    sp_csr_free(&c->A);
}

/* The value list of axis a of k: an override's values, or its defaults. */
static void axis_list(const sp_kernel *k, int a, const spmv_axis_override *o, int no,
                      sp_axis_values *v)
{
    sp_err err;
    memset(v, 0, sizeof *v);
    for (int i = 0; i < no; i++) {
        if (strcmp(k->axes[a].name, o[i].axis))
            continue;
        v->v = malloc((size_t)o[i].n * sizeof(long));
        cr_assert_not_null(v->v);
        memcpy(v->v, o[i].values, (size_t)o[i].n * sizeof(long));
        v->n = o[i].n;
        return;
    }
    cr_assert_eq(sp_axis_parse(k->axes[a].name, k->axes[a].defaults, 4, v, &err), 0,
                 "%s: %s", k->name, err.msg);
}

int spmv_kernel_params_with(const sp_kernel *k, const spmv_axis_override *o, int no,
                            sp_params **out)
{
    sp_axis_values v[SP_MAX_AXES];
    int total = 1;
    cr_assert(k->naxes >= 0 && k->naxes <= SP_MAX_AXES);
    for (int a = 0; a < k->naxes; a++) {
        axis_list(k, a, o, no, &v[a]);
        total *= v[a].n;
    }
    sp_params *p = calloc((size_t)total + 1, sizeof *p);
    cr_assert_not_null(p);
    for (int c = 0; c < total; c++) {     /* mixed-radix count over the axes */
        int rest = c;
        p[c].n = k->naxes;
        for (int a = k->naxes - 1; a >= 0; a--) {
            p[c].name[a] = k->axes[a].name;
            p[c].value[a] = v[a].v[rest % v[a].n];
            rest /= v[a].n;
        }
    }
    for (int a = 0; a < k->naxes; a++)
        sp_axis_values_free(&v[a]);
    *out = p;
    return total;
}

int spmv_kernel_params(const sp_kernel *k, const long *threads, int nthreads,
                       sp_params **out)
{
    spmv_axis_override o = {"threads", threads, nthreads};
    return spmv_kernel_params_with(k, &o, threads ? 1 : 0, out);
}

/* One run: it must succeed and report a sane time. */
static void run_once(const sp_kernel *k, tu_run *r, const sp_csr *A)
{
    sp_err err = {{0}};
    double s = -1;
    cr_assert_eq(tu_run_launch(r, &s, &err), 0, "%s launch: %s", k->name, err.msg);
    cr_assert(isfinite(s) && (A->rows > 0 ? s > 0 : s >= 0), "%s: time %g s on %d rows",
              k->name, s, A->rows);
}

double spmv_check_kernel(const sp_kernel *k, const sp_params *p, const sp_csr *A)
{
    double tolerance;
    return spmv_check_kernel_tol(k, p, A, &tolerance);
}

double spmv_check_kernel_tol(const sp_kernel *k, const sp_params *p, const sp_csr *A,
                             double *tolerance)
{
    const sp_operation *op = sp_operation_find(k->operation);
    cr_assert_not_null(op, "%s: no operation '%s'", k->name, k->operation);
    cr_assert(k->prepare && k->launch && k->result && k->release, "%s is not built",
              k->name);
    sp_problem pb;
    sp_err err = {{0}};
    cr_assert_eq(op->setup(&pb, SP_MATRIX_WORKLOAD(A), &err), 0, "%s", err.msg);
    size_t bytes = op->output_bytes(&pb);
    double *ref = malloc(bytes + 8), *y = malloc(bytes + 8);
    cr_assert(ref && y);
    cr_assert_eq(op->reference(&pb, ref, &err), 0, "%s", err.msg);
    void *state = NULL;
    sp_need need = {0};
    if (k->need && k->need(&pb, p, &need, &err)) {      /* refused: prepare agrees */
        cr_assert_neq(err.msg[0], 0, "%s: need refused without a reason", k->name);
        cr_assert_eq(k->prepare(&pb, p, &state, &err), -1,
                     "%s: need refused, prepare built it", k->name);
        cr_assert_null(state, "%s: a failed prepare leaves no state", k->name);
        cr_assert_neq(err.msg[0], 0, "%s: prepare refused without a reason", k->name);
        *tolerance = SPMV_TEST_TOLERANCE;
        free(ref);
        free(y);
        op->teardown(&pb);
        return -1.0;
    }
    if (need.host_bytes > SPMV_TEST_FREE_BYTES || need.device_bytes > SPMV_TEST_FREE_BYTES) {
        *tolerance = SPMV_TEST_TOLERANCE;               /* the runner would skip it */
        free(ref);
        free(y);
        op->teardown(&pb);
        return -1.0;
    }
    tu_run r;
    cr_assert_eq(tu_run_prepare(&r, k, &pb, p, &err), 0, "%s prepare: %s", k->name, err.msg);
    run_once(k, &r, A);
    run_once(k, &r, A);
    memset(y, 0xff, bytes);         /* NaN: an unwritten entry fails the check */
    cr_assert_eq(tu_run_result(&r, y, &err), 0, "%s result: %s", k->name, err.msg);
    tu_run_end(&r);
    const sp_phases ph = r.ph;
    cr_assert(ph.convert_s >= 0 && ph.h2d_s >= 0 && ph.d2h_s >= 0 && ph.free_s >= 0,
              "%s: negative phase", k->name);
    if (k->needs_gpu)   /* the harness timed the upload and the download */
        cr_assert(ph.h2d_s > 0 && ph.d2h_s > 0, "%s: h2d %g s, d2h %g s", k->name, ph.h2d_s,
                  ph.d2h_s);
    else                /* a CPU kernel has no transfers */
        cr_assert(ph.h2d_s == 0 && ph.d2h_s == 0, "%s: h2d %g s, d2h %g s", k->name,
                  ph.h2d_s, ph.d2h_s);
    double rel = op->error(&pb, y, ref);
    *tolerance = sp_run_tolerance(op, &pb, ref, p, SPMV_TEST_TOLERANCE);
    free(ref);
    free(y);
    op->teardown(&pb);
    return rel;
}

/* spmv_check_kernel at every combination of k's axes (the overrides
 * replacing defaults); a combination k->need refuses counts as refused. */
int spmv_check_kernel_with(const sp_kernel *k, const spmv_axis_override *o, int no,
                           const sp_csr *A, const char *what)
{
    sp_params *p;
    int n = spmv_kernel_params_with(k, o, no, &p), refused = 0;
    for (int c = 0; c < n; c++) {
        char axes[128] = "";
        for (int a = 0; a < p[c].n; a++)
            snprintf(axes + strlen(axes), sizeof axes - strlen(axes), " %s=%ld",
                     p[c].name[a], p[c].value[a]);
        double tolerance, rel = spmv_check_kernel_tol(k, &p[c], A, &tolerance);
        refused += rel < 0;
        cr_assert_leq(rel, tolerance, "%s%s on %s: relative error %g above its tolerance %g",
                      k->name, axes, what, rel, tolerance);
    }
    free(p);
    return refused;
}

int spmv_check_kernel_all(const sp_kernel *k, const long *threads, int nthreads,
                          const sp_csr *A, const char *what)
{
    spmv_axis_override o = {"threads", threads, nthreads};
    return spmv_check_kernel_with(k, &o, threads ? 1 : 0, A, what);
}

int spmv_cpu_lacks_isa(const sp_kernel *k)
{
    return !sp_cpu_has_isa(k->isa);
}
