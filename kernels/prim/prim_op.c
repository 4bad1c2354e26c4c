/*
 * prim_op.c — the primitives as operations of their own (prim.h): each
 * derives its input from the matrix the way the transposition uses it,
 * and is checked exactly (memcmp) against its serial version; error is 0
 * or +Inf, as for the transposition. Work: flops = elements processed, so
 * the stored rate is G elements/s; bytes = reading the input once and
 * writing the output once.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "prim.h"

enum prim { SCAN, HISTOGRAM, IDX2PTR, PTR2IDX, SEGSORT, MERGE, NPRIM };
static const char *const names[NPRIM] = {"scan", "histogram", "idx2ptr",
                                         "ptr2idx", "segsort", "merge"};

static int prim_of(const char *op)
{
    for (int i = 0; op && i < NPRIM; i++)
        if (!strcmp(names[i], op))
            return i;
    return -1;
}

/* A copy of n int32 into a fresh buffer (at least one element). */
static int32_t *copy32(const int32_t *src, int64_t n)
{
    int32_t *d = malloc((size_t)(n ? n : 1) * sizeof *d);
    if (d && n)
        memcpy(d, src, (size_t)n * sizeof *d);
    return d;
}

/* The column of every CSC entry: the sorted colidx. */
static int32_t *sorted_columns(const sp_csr *A)
{
    int32_t *cnt = calloc((size_t)A->cols + 1, sizeof *cnt);
    int32_t *s = malloc((size_t)(A->nnz ? A->nnz : 1) * sizeof *s);
    if (!cnt || !s) {
        free(cnt);
        free(s);
        return NULL;
    }
    sp_histogram_serial(A->colidx, A->nnz, cnt, A->cols);
    int64_t i = 0;
    for (int32_t j = 0; j < A->cols; j++)
        for (int32_t c = 0; c < cnt[j]; c++)
            s[i++] = j;
    free(cnt);
    return s;
}

int sp_prim_input(const char *op, const sp_csr *A, void **in, int64_t *n, sp_err *err)
{
    void *buf = NULL;
    uint64_t *keys = NULL;
    switch (prim_of(op)) {
    case SCAN:
        *n = A->cols;
        if ((buf = malloc((size_t)(A->cols ? A->cols : 1) * sizeof(int32_t))))
            sp_histogram_serial(A->colidx, A->nnz, buf, A->cols);
        break;
    case HISTOGRAM:
        *n = A->nnz;
        buf = copy32(A->colidx, A->nnz);
        break;
    case IDX2PTR:
        *n = A->nnz;
        buf = sorted_columns(A);
        break;
    case PTR2IDX:
        *n = A->rows;
        buf = copy32(A->rowptr, (int64_t)A->rows + 1);
        break;
    case SEGSORT:
    case MERGE:
        *n = A->nnz;
        if (sp_prim_keys(A, &keys, NULL, err))
            return -1;
        if (prim_of(op) == MERGE)
            sp_segsort_serial(keys, A->nnz, SP_PRIM_SEG);
        buf = keys;
        break;
    default:
        return sp_fail(err, "prim: unknown primitive operation '%s'", op ? op : "(null)");
    }
    if (!buf)
        return sp_fail(err, "%s: out of memory for the input of %lld elements", op,
                       (long long)*n);
    *in = buf;
    return 0;
}

static int prim_setup(sp_problem *pb, const sp_workload *w, sp_err *err)
{
    if (!pb || !w || !w->A)
        return sp_fail(err, "primitive setup: no problem or no matrix%s",
                       w && w->kind == SP_WL_KEYS ? " (the primitives take no key workloads)" : "");
    memset(pb, 0, sizeof *pb);
    pb->A = w->A;
    return 0;
}

static void prim_teardown(sp_problem *pb)
{
    (void)pb;
}

/* Output elements and their size of primitive i on A. */
static size_t out_bytes(int i, const sp_csr *A)
{
    switch (i) {
    case SCAN:
    case IDX2PTR:
        return ((size_t)A->cols + 1) * 4;
    case HISTOGRAM:
        return (size_t)A->cols * 4;
    case PTR2IDX:
        return (size_t)A->nnz * 4;
    default:
        return (size_t)A->nnz * 8;
    }
}

/* The serial version of primitive i on its input, into out. */
static int reference(int i, const sp_problem *pb, void *out, sp_err *err)
{
    const sp_csr *A = pb ? pb->A : NULL;
    if (!A || !out)
        return sp_fail(err, "%s reference: problem not set up", names[i]);
    if (i == HISTOGRAM) {
        sp_histogram_serial(A->colidx, A->nnz, out, A->cols);
        return 0;
    }
    if (i == PTR2IDX) {
        sp_ptr2idx_serial(A->rowptr, A->rows, out);
        return 0;
    }
    if (i == MERGE) {
        uint64_t *keys, *sorted;
        if (sp_prim_keys(A, &keys, &sorted, err))
            return -1;
        memcpy(out, sorted, out_bytes(i, A));
        free(keys);
        free(sorted);
        return 0;
    }
    void *in;
    int64_t n;
    if (sp_prim_input(names[i], A, &in, &n, err))
        return -1;
    if (i == SCAN)
        sp_scan_serial(in, out, n);
    else if (i == IDX2PTR)
        sp_idx2ptr_serial(in, n, out, A->cols);
    else {
        sp_segsort_serial(in, n, SP_PRIM_SEG);
        memcpy(out, in, out_bytes(i, A));
    }
    free(in);
    return 0;
}

/* Input elements and bytes of primitive i on A. */
static double elements(int i, const sp_csr *A)
{
    return i == SCAN ? (double)A->cols : (double)A->nnz;
}

static double in_bytes(int i, const sp_csr *A)
{
    switch (i) {
    case SCAN:
        return 4.0 * A->cols;
    case PTR2IDX:
        return 4.0 * ((double)A->rows + 1);
    case SEGSORT:
    case MERGE:
        return 8.0 * A->nnz;
    default:
        return 4.0 * A->nnz;
    }
}

/* The six operations' functions, one instance per primitive. */
#define PRIM_OP(I, NAME)                                                                 \
    static size_t NAME##_output_bytes(const sp_problem *pb)                              \
    {                                                                                    \
        return out_bytes(I, pb->A);                                                      \
    }                                                                                    \
    static int NAME##_reference(const sp_problem *pb, void *out, sp_err *err)            \
    {                                                                                    \
        return reference(I, pb, out, err);                                               \
    }                                                                                    \
    static double NAME##_error(const sp_problem *pb, const void *out, const void *ref)   \
    {                                                                                    \
        return memcmp(out, ref, out_bytes(I, pb->A)) ? INFINITY : 0.0;                   \
    }                                                                                    \
    static double NAME##_flops(const sp_workload *w)                                     \
    {                                                                                    \
        return w->A ? elements(I, w->A) : NAN;                                           \
    }                                                                                    \
    static double NAME##_bytes(const sp_workload *w, sp_precision prec)                  \
    {                                                                                    \
        (void)prec; /* no values: column indices and counts */                           \
        return w->A ? in_bytes(I, w->A) + (double)out_bytes(I, w->A) : NAN;              \
    }                                                                                    \
    const sp_operation sp_op_##NAME = {                                                  \
        .name = #NAME,                                                                   \
        .rate_unit = "Gelem/s",                                                          \
        .workloads = SP_WL_MATRIX,                                                       \
        .setup = prim_setup,                                                             \
        .teardown = prim_teardown,                                                       \
        .output_bytes = NAME##_output_bytes,                                             \
        .reference = NAME##_reference,                                                   \
        .error = NAME##_error,                                                           \
        .flops = NAME##_flops,                                                           \
        .bytes = NAME##_bytes,                                                           \
    };

PRIM_OP(SCAN, scan)
PRIM_OP(HISTOGRAM, histogram)
PRIM_OP(IDX2PTR, idx2ptr)
PRIM_OP(PTR2IDX, ptr2idx)
PRIM_OP(SEGSORT, segsort)
PRIM_OP(MERGE, merge)
