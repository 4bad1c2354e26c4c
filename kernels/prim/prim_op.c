/*
 * prim_op.c — the primitives as operations of their own (prim.h), on a
 * matrix (their inputs derived from it the way the transposition uses
 * them) or on a key workload (a standalone array of n elements, as study
 * 000 timed them): sp_prim_shape_of and sp_prim_input say how. Each is
 * checked exactly (memcmp) against its serial version; error is 0 or
 * +Inf, as for the transposition. Work: flops = elements processed, so the
 * stored rate is G elements/s; bytes = reading the input once and writing
 * the output once.
 *
 * segsort's output depends on its `segment` axis, and an operation's
 * reference is made once per workload: the output ends with one 64-bit
 * word, the segment length the kernel sorted by. The reference is the
 * sort at SP_PRIM_SEG; an output of another segment is checked against
 * the serial sort at its own, made at the check.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "prim.h"

enum prim { SCAN, HISTOGRAM, IDX2PTR, PTR2IDX, SEGSORT, MERGE, HIST_IDX2PTR, NPRIM };
static const char *const names[NPRIM] = {"scan",    "histogram", "idx2ptr",     "ptr2idx",
                                         "segsort", "merge",     "hist_idx2ptr"};

static int prim_of(const char *op)
{
    for (int i = 0; op && i < NPRIM; i++)
        if (!strcmp(names[i], op))
            return i;
    return -1;
}

int32_t sp_prim_keys_bins(const sp_keys *K)
{
    if (K->bins > 0)
        return (int32_t)K->bins;
    int64_t b = K->n / SP_PRIM_KEYS_PER_BIN;
    return b > 0 ? (int32_t)b : 1;
}

/* The shape of a matrix or a key array (one of them non-NULL). */
static void shape_of(const sp_csr *A, const sp_keys *K, sp_prim_shape *sh)
{
    if (A) {
        *sh = (sp_prim_shape){.n = A->nnz, .bins = A->cols, .nseg = A->rows,
                              .scan_n = A->cols};
        return;
    }
    int32_t bins = sp_prim_keys_bins(K);
    *sh = (sp_prim_shape){.n = K->n, .bins = bins, .nseg = bins, .scan_n = K->n};
}

/* Keys' top 4 bits, summed over at most this many, fit in int32. */
#define SCAN_KEYS_MAX (INT32_MAX / 15)

int sp_prim_shape_of(const sp_problem *pb, sp_prim_shape *sh, sp_err *err)
{
    if (!pb || (!pb->A && !pb->key_workload))
        return sp_fail(err, "primitive: problem without a matrix or a key array");
    shape_of(pb->A, pb->key_workload, sh);
    return 0;
}

/* The bin of key k among `bins`: its place in the 32-bit range, scaled. */
static inline int32_t bin_of(uint32_t k, int32_t bins)
{
    return (int32_t)(((uint64_t)k * (uint64_t)bins) >> 32);
}

/* The n indices into sh->bins bins, in a fresh buffer. */
static int32_t *indices(const sp_problem *pb, const sp_prim_shape *sh)
{
    int32_t *d = malloc((size_t)(sh->n ? sh->n : 1) * sizeof *d);
    if (!d)
        return NULL;
    if (pb->A) {
        if (sh->n)
            memcpy(d, pb->A->colidx, (size_t)sh->n * sizeof *d);
        return d;
    }
    const uint32_t *key = pb->key_workload->key;
    for (int64_t i = 0; i < sh->n; i++)
        d[i] = bin_of(key[i], sh->bins);
    return d;
}

/* The pointers of the indices' bins (bins + 1), in a fresh buffer. */
static int32_t *bin_pointers(const sp_problem *pb, const sp_prim_shape *sh)
{
    int32_t *idx = indices(pb, sh), *ptr = calloc((size_t)sh->bins + 1, sizeof *ptr);
    if (idx && ptr) {
        sp_histogram_serial(idx, sh->n, ptr, sh->bins);
        sp_scan_serial(ptr, ptr, sh->bins);
    }
    free(idx);
    if (!idx) {
        free(ptr);
        return NULL;
    }
    return ptr;
}

/* The indices sorted (the column of every CSC entry), in a fresh buffer. */
static int32_t *sorted_indices(const sp_problem *pb, const sp_prim_shape *sh)
{
    int32_t *ptr = bin_pointers(pb, sh), *s = malloc((size_t)(sh->n ? sh->n : 1) * sizeof *s);
    if (ptr && s)
        sp_ptr2idx_serial(ptr, sh->bins, s);
    free(ptr);
    if (!ptr) {
        free(s);
        return NULL;
    }
    return s;
}

/* The pointers ptr2idx expands (nseg + 1), in a fresh buffer. */
static int32_t *pointers(const sp_problem *pb, const sp_prim_shape *sh)
{
    if (!pb->A)
        return bin_pointers(pb, sh);
    int32_t *d = malloc(((size_t)sh->nseg + 1) * sizeof *d);
    if (d)
        memcpy(d, pb->A->rowptr, ((size_t)sh->nseg + 1) * sizeof *d);
    return d;
}

/* scan's values: a matrix's column counts, or each key's top 4 bits. */
static int32_t *scan_values(const sp_problem *pb, const sp_prim_shape *sh)
{
    int32_t *d = malloc((size_t)(sh->scan_n ? sh->scan_n : 1) * sizeof *d);
    if (!d)
        return NULL;
    if (pb->A) {
        sp_histogram_serial(pb->A->colidx, pb->A->nnz, d, pb->A->cols);
        return d;
    }
    for (int64_t i = 0; i < sh->scan_n; i++)
        d[i] = (int32_t)(pb->key_workload->key[i] >> 28);
    return d;
}

/* key << 32 | position of every element (a matrix: its column), in place
 * order, in a fresh buffer. */
static uint64_t *keys64(const sp_problem *pb, const sp_prim_shape *sh, sp_err *err)
{
    uint64_t *k = NULL;
    if (pb->A) {
        if (sp_prim_keys(pb->A, &k, NULL, err))
            return NULL;
        return k;
    }
    if (!(k = malloc((size_t)(sh->n ? sh->n : 1) * sizeof *k))) {
        sp_fail(err, "prim keys: out of memory for %lld keys", (long long)sh->n);
        return NULL;
    }
    for (int64_t i = 0; i < sh->n; i++)
        k[i] = (uint64_t)pb->key_workload->key[i] << 32 | (uint64_t)i;
    return k;
}

/* a[0..n) sorted by the high word, stably (LSD radix, 4 passes of 8 bits):
 * keys whose low word is their position come out fully sorted. */
static int sort_high(uint64_t *a, int64_t n, sp_err *err)
{
    uint64_t *tmp = malloc((size_t)(n ? n : 1) * sizeof *tmp), *src = a, *dst = tmp;
    if (!tmp)
        return sp_fail(err, "merge reference: out of memory for %lld keys", (long long)n);
    for (int shift = 32; shift < 64; shift += 8) {
        int64_t count[257] = {0};
        for (int64_t i = 0; i < n; i++)
            count[((src[i] >> shift) & 0xff) + 1]++;
        for (int d = 0; d < 256; d++)
            count[d + 1] += count[d];
        for (int64_t i = 0; i < n; i++)
            dst[count[(src[i] >> shift) & 0xff]++] = src[i];
        uint64_t *t = src;
        src = dst, dst = t;
    }
    free(tmp);          /* four passes: the result is back in a */
    return 0;
}

/* The fully sorted keys (the merge's output). */
static uint64_t *sorted_keys64(const sp_problem *pb, const sp_prim_shape *sh, sp_err *err)
{
    uint64_t *keys = NULL, *sorted = NULL;
    if (pb->A) {
        if (sp_prim_keys(pb->A, &keys, &sorted, err))
            return NULL;
        free(keys);
        return sorted;
    }
    if (!(keys = keys64(pb, sh, err)))
        return NULL;
    if (sort_high(keys, sh->n, err)) {
        free(keys);
        return NULL;
    }
    return keys;
}

int sp_prim_input(const char *op, const sp_problem *pb, int64_t segment, void **in, int64_t *n,
                  sp_err *err)
{
    sp_prim_shape sh = {0};
    if (sp_prim_shape_of(pb, &sh, err))
        return -1;
    void *buf = NULL;
    *n = sh.n;
    switch (prim_of(op)) {
    case SCAN:
        if (!pb->A && sh.scan_n > SCAN_KEYS_MAX)
            return sp_fail(err, "scan: %lld keys: their values (the keys' top 4 bits, up to 15) "
                           "could sum past 2^31-1; at most %d keys", (long long)sh.scan_n,
                           SCAN_KEYS_MAX);
        *n = sh.scan_n;
        buf = scan_values(pb, &sh);
        break;
    case HISTOGRAM:
    case HIST_IDX2PTR:
        buf = indices(pb, &sh);
        break;
    case IDX2PTR:
        buf = sorted_indices(pb, &sh);
        break;
    case PTR2IDX:
        *n = sh.nseg;
        buf = pointers(pb, &sh);
        break;
    case SEGSORT:
    case MERGE:
        if (!(buf = keys64(pb, &sh, err)))
            return -1;
        if (prim_of(op) == MERGE)
            sp_segsort_serial(buf, sh.n, segment > 0 ? segment : SP_PRIM_SEG);
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
    if (!pb || !w || (!w->A && !w->keys))
        return sp_fail(err, "primitive setup: no problem, or a workload without a matrix or "
                       "keys");
    memset(pb, 0, sizeof *pb);
    pb->A = w->A;
    pb->key_workload = w->A ? NULL : w->keys;
    if (pb->key_workload) {
        pb->keys = pb->key_workload->key;
        pb->nkeys = pb->key_workload->n;
    }
    return 0;
}

static void prim_teardown(sp_problem *pb)
{
    (void)pb;
}

/* Output bytes of primitive i on shape sh. */
static size_t out_bytes(int i, const sp_prim_shape *sh)
{
    switch (i) {
    case SCAN:
        return ((size_t)sh->scan_n + 1) * 4;
    case IDX2PTR:
    case HIST_IDX2PTR:
        return ((size_t)sh->bins + 1) * 4;
    case HISTOGRAM:
        return (size_t)sh->bins * 4;
    case PTR2IDX:
        return (size_t)sh->n * 4;
    case SEGSORT:
        return (size_t)sh->n * 8 + 8;   /* and the segment length */
    default:
        return (size_t)sh->n * 8;
    }
}

static size_t pb_out_bytes(int i, const sp_problem *pb)
{
    sp_prim_shape sh = {0};
    return sp_prim_shape_of(pb, &sh, NULL) ? 0 : out_bytes(i, &sh);
}

/* segsort's keys sorted in segments of seg, the segment after them. */
static int segsort_at(const sp_problem *pb, int64_t seg, uint64_t *out, sp_err *err)
{
    void *in;
    int64_t n;
    if (sp_prim_input("segsort", pb, 0, &in, &n, err))
        return -1;
    sp_segsort_serial(in, n, seg);
    memcpy(out, in, (size_t)n * 8);
    out[n] = (uint64_t)seg;
    free(in);
    return 0;
}

/* The serial version of primitive i on its input, into out. */
static int reference(int i, const sp_problem *pb, void *out, sp_err *err)
{
    sp_prim_shape sh = {0};
    if (!out || sp_prim_shape_of(pb, &sh, err))
        return sp_fail(err, "%s reference: problem not set up", names[i]);
    if (i == SEGSORT)
        return segsort_at(pb, SP_PRIM_SEG, out, err);
    if (i == MERGE) {
        uint64_t *sorted = sorted_keys64(pb, &sh, err);
        if (!sorted)
            return -1;
        memcpy(out, sorted, out_bytes(i, &sh));
        free(sorted);
        return 0;
    }
    if (i == IDX2PTR || i == HIST_IDX2PTR) {  /* the same pointers, sorted input or not */
        int32_t *ptr = bin_pointers(pb, &sh);
        if (!ptr)
            return sp_fail(err, "%s reference: out of memory", names[i]);
        memcpy(out, ptr, out_bytes(i, &sh));
        free(ptr);
        return 0;
    }
    void *in;
    int64_t n;
    if (sp_prim_input(names[i], pb, 0, &in, &n, err))
        return -1;
    if (i == SCAN)
        sp_scan_serial(in, out, n);
    else if (i == HISTOGRAM)
        sp_histogram_serial(in, n, out, sh.bins);
    else
        sp_ptr2idx_serial(in, sh.nseg, out);
    free(in);
    return 0;
}

/* The high word of element p's 64-bit key: its column, or its key. */
static inline uint64_t high_of(const sp_problem *pb, int64_t p)
{
    return pb->A ? (uint64_t)(uint32_t)pb->A->colidx[p] : (uint64_t)pb->key_workload->key[p];
}

/* segsort: an output of the reference's segment length against it; of
 * another length, in one pass: every key the input's key at its position
 * (its low word), every position once and in its own segment, each
 * segment ascending. The keys are distinct (their positions are), so that
 * is the serial sort at that length, exactly. */
static double segsort_check(const sp_problem *pb, const void *out, const void *ref)
{
    sp_prim_shape sh = {0};
    if (sp_prim_shape_of(pb, &sh, NULL))
        return INFINITY;
    const uint64_t *o = out;
    uint64_t seg = o[sh.n], ref_seg = ((const uint64_t *)ref)[sh.n];
    if (seg == ref_seg)
        return memcmp(out, ref, (size_t)sh.n * 8 + 8) ? INFINITY : 0.0;
    if (seg < 1 || seg > SP_PRIM_SEG_MAX)
        return INFINITY;
    unsigned char *seen = calloc((size_t)(sh.n ? sh.n : 1), 1);
    if (!seen)
        return INFINITY;
    double e = 0.0;
    for (int64_t i = 0; i < sh.n && e == 0.0; i++) {
        int64_t p = (int64_t)(uint32_t)o[i];
        if (p >= sh.n || seen[p] || (uint64_t)p / seg != (uint64_t)i / seg ||
            o[i] >> 32 != high_of(pb, p) || ((uint64_t)i % seg && o[i - 1] >= o[i]))
            e = INFINITY;
        else
            seen[p] = 1;
    }
    free(seen);
    return e;
}

static double prim_error(int i, const sp_problem *pb, const void *out, const void *ref)
{
    if (i == SEGSORT)
        return segsort_check(pb, out, ref);
    return memcmp(out, ref, pb_out_bytes(i, pb)) ? INFINITY : 0.0;
}

static int workload_shape(const sp_workload *w, sp_prim_shape *sh)
{
    if (!w || (!w->A && !w->keys))
        return -1;
    shape_of(w->A, w->A ? NULL : w->keys, sh);
    return 0;
}

/* Input elements and bytes of primitive i on shape sh. */
static double elements(int i, const sp_prim_shape *sh)
{
    return i == SCAN ? (double)sh->scan_n : (double)sh->n;
}

static double in_bytes(int i, const sp_prim_shape *sh)
{
    switch (i) {
    case SCAN:
        return 4.0 * (double)sh->scan_n;
    case PTR2IDX:
        return 4.0 * ((double)sh->nseg + 1);
    case SEGSORT:
    case MERGE:
        return 8.0 * (double)sh->n;
    default:
        return 4.0 * (double)sh->n;
    }
}

static double prim_flops(int i, const sp_workload *w)
{
    sp_prim_shape sh = {0};
    return workload_shape(w, &sh) ? NAN : elements(i, &sh);
}

static double prim_bytes(int i, const sp_workload *w)
{
    sp_prim_shape sh = {0};
    if (workload_shape(w, &sh))
        return NAN;
    double out = (double)out_bytes(i, &sh) - (i == SEGSORT ? 8 : 0);
    return in_bytes(i, &sh) + out;
}

/* The operations' functions, one instance per primitive. */
#define PRIM_OP(I, NAME)                                                                 \
    static size_t NAME##_output_bytes(const sp_problem *pb)                              \
    {                                                                                    \
        return pb_out_bytes(I, pb);                                                      \
    }                                                                                    \
    static int NAME##_reference(const sp_problem *pb, void *out, sp_err *err)            \
    {                                                                                    \
        return reference(I, pb, out, err);                                               \
    }                                                                                    \
    static double NAME##_error(const sp_problem *pb, const void *out, const void *ref)   \
    {                                                                                    \
        return prim_error(I, pb, out, ref);                                              \
    }                                                                                    \
    static double NAME##_flops(const sp_workload *w)                                     \
    {                                                                                    \
        return prim_flops(I, w);                                                         \
    }                                                                                    \
    static double NAME##_bytes(const sp_workload *w, sp_precision prec)                  \
    {                                                                                    \
        (void)prec; /* no values: indices, counts and keys */                            \
        return prim_bytes(I, w);                                                         \
    }                                                                                    \
    const sp_operation sp_op_##NAME = {                                                  \
        .name = #NAME,                                                                   \
        .rate_unit = "Gelem/s",                                                          \
        .workloads = SP_WL_MATRIX | SP_WL_KEYS,                                          \
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
PRIM_OP(HIST_IDX2PTR, hist_idx2ptr)
