/*
 * prim_cpu.c — the serial primitives (prim_serial.c) as CPU kernels of
 * their operations, one core each: the baselines the primitives' speedups
 * divide (the `baselines` view takes a serial kernel per operation), and
 * what a sweep of study 000 measures of the primitives without a GPU. Each
 * runs on the input its GPU kernels get (prim_op.c), with the segment
 * where the operation has one (segsort's segments, merge's first runs,
 * hist_idx2ptr's partial histograms); the splitter distance and the block
 * size are the GPU's.
 */
#include <stdlib.h>
#include <string.h>

#include "prim.h"

enum prim { SCAN, HISTOGRAM, IDX2PTR, PTR2IDX, SEGSORT, MERGE, HIST_IDX2PTR };

typedef struct cpu_state {
    enum prim which;
    int64_t n, segment;
    sp_prim_shape sh;
    void *in;               /* the derived input */
    void *out;              /* the output (the runner's size, segsort's length after) */
    size_t out_bytes;
    uint64_t *a, *b;        /* merge's rounds */
    const uint64_t *merged;
    int32_t *offsets, *run; /* hist_idx2ptr's partial counts and running counts */
} cpu_state;

static void cpu_release(void *state)
{
    cpu_state *s = state;
    if (!s)
        return;
    free(s->in);
    free(s->out);
    free(s->a);
    free(s->b);
    free(s->offsets);
    free(s->run);
    free(s);
}

/* Output bytes of primitive w on shape sh (the operation's, prim_op.c). */
static size_t out_bytes(enum prim w, const sp_prim_shape *sh)
{
    switch (w) {
    case SCAN:
        return ((size_t)sh->scan_n + 1) * 4;
    case HISTOGRAM:
        return (size_t)sh->bins * 4;
    case IDX2PTR:
    case HIST_IDX2PTR:
        return ((size_t)sh->bins + 1) * 4;
    case PTR2IDX:
        return (size_t)sh->n * 4;
    case SEGSORT:
        return (size_t)sh->n * 8 + 8;
    default:
        return (size_t)sh->n * 8;
    }
}

static const char *const op_names[] = {"scan",    "histogram", "idx2ptr",     "ptr2idx",
                                       "segsort", "merge",     "hist_idx2ptr"};

/* The segment axis of kernel kname (operation w), where it has one. */
static int segment_of(enum prim w, const char *kname, const sp_params *p, int64_t *seg,
                      sp_err *err)
{
    *seg = SP_PRIM_SEG;
    if (w == SEGSORT)
        return sp_prim_axis(kname, p, "segment", SP_PRIM_SEG, SP_PRIM_SEG_MAX, seg, err);
    if (w == MERGE)
        return sp_prim_axis(kname, p, "segment", SP_PRIM_SEG, SP_PRIM_RUN_MAX, seg, err);
    if (w == HIST_IDX2PTR)
        return sp_prim_axis(kname, p, "segment", 4096, SP_PRIM_HIST_SEG_MAX, seg, err);
    return 0;
}

static void *xalloc(size_t bytes)
{
    return malloc(bytes ? bytes : 1);
}

static int cpu_prepare(enum prim w, const char *kname, const sp_problem *pb, const sp_params *p,
                       void **state, sp_err *err)
{
    cpu_state *s = calloc(1, sizeof *s);
    if (!s)
        return sp_fail(err, "%s: out of memory for the kernel state", kname);
    *state = s;             /* release frees it, even if what follows fails */
    s->which = w;
    if (segment_of(w, kname, p, &s->segment, err) || sp_prim_shape_of(pb, &s->sh, err) ||
        sp_prim_input(op_names[w], pb, s->segment, &s->in, &s->n, err))
        return -1;
    s->out_bytes = out_bytes(w, &s->sh);
    if (!(s->out = xalloc(s->out_bytes)))
        return sp_fail(err, "%s: out of memory for the output", kname);
    if (w == MERGE && (!(s->a = xalloc((size_t)s->n * 8)) || !(s->b = xalloc((size_t)s->n * 8))))
        return sp_fail(err, "%s: out of memory for the merge buffers", kname);
    if (w == HIST_IDX2PTR &&
        (!(s->run = xalloc(((size_t)s->sh.bins + 1) * 4)) ||
         !(s->offsets = xalloc((size_t)sp_prim_nparts(s->n, s->segment) * s->sh.bins * 4))))
        return sp_fail(err, "%s: out of memory for the partial histograms", kname);
    return 0;
}

/* One execution: the serial version into the state's output. */
static int cpu_launch(void *state, const sp_exec *ex, sp_err *err)
{
    (void)ex, (void)err;
    cpu_state *s = state;
    switch (s->which) {
    case SCAN:
        sp_scan_serial(s->in, s->out, s->n);
        break;
    case HISTOGRAM:
        sp_histogram_serial(s->in, s->n, s->out, s->sh.bins);
        break;
    case IDX2PTR:
        sp_idx2ptr_serial(s->in, s->n, s->out, s->sh.bins);
        break;
    case PTR2IDX:
        sp_ptr2idx_serial(s->in, s->sh.nseg, s->out);
        break;
    case SEGSORT:
        memcpy(s->out, s->in, (size_t)s->n * 8);
        sp_segsort_serial(s->out, s->n, s->segment);
        ((uint64_t *)s->out)[s->n] = (uint64_t)s->segment;
        break;
    case MERGE:
        s->merged = sp_merge_serial(s->in, s->a, s->b, s->n, s->segment);
        break;
    case HIST_IDX2PTR:
        sp_hist_idx2ptr_serial_in(s->in, s->n, s->sh.bins, s->segment, s->out, s->offsets,
                                  s->run);
        break;
    }
    return 0;
}

static int cpu_result(void *state, void *out, const sp_exec *ex, sp_err *err)
{
    (void)ex, (void)err;
    cpu_state *s = state;
    const void *src = s->which == MERGE ? (const void *)(s->merged ? s->merged : s->in) : s->out;
    memcpy(out, src, s->out_bytes);
    return 0;
}

/* What prepare allocates: the input, the output, and merge's buffers or
 * hist_idx2ptr's partial counts; a segment outside its range refused. */
static int cpu_need(enum prim w, const char *kname, const sp_problem *pb, const sp_params *p,
                    sp_need *need, sp_err *err)
{
    int64_t seg;
    sp_prim_shape sh = {0};
    if (segment_of(w, kname, p, &seg, err) || sp_prim_shape_of(pb, &sh, err))
        return -1;
    uint64_t in = w == SEGSORT || w == MERGE ? (uint64_t)sh.n * 8
                  : w == SCAN                ? (uint64_t)sh.scan_n * 4
                  : w == PTR2IDX             ? ((uint64_t)sh.nseg + 1) * 4
                                             : (uint64_t)sh.n * 4;
    need->host_bytes = sizeof(cpu_state) + in + out_bytes(w, &sh);
    if (w == MERGE)
        need->host_bytes += 2 * (uint64_t)sh.n * 8;
    if (w == HIST_IDX2PTR)
        need->host_bytes += (uint64_t)sp_prim_nparts(sh.n, seg) * (uint64_t)sh.bins * 4 +
                            ((uint64_t)sh.bins + 1) * 4;
    return 0;
}

/* A serial kernel of operation SYM; the variadic part: its axes, as
 * designated initializers. */
#define CPU_KERNEL(SYM, NAME, W, SUMMARY, ...)                                            \
    static int SYM##_prepare(const sp_problem *pb, const sp_params *p, void **state,      \
                             sp_err *err)                                                 \
    {                                                                                     \
        return cpu_prepare(W, NAME, pb, p, state, err);                                   \
    }                                                                                     \
    static int SYM##_need(const sp_problem *pb, const sp_params *p, sp_need *need,        \
                          sp_err *err)                                                    \
    {                                                                                     \
        return cpu_need(W, NAME, pb, p, need, err);                                       \
    }                                                                                     \
    const sp_kernel sp_prim_serial_##SYM = {                                              \
        .name = NAME,                                                                     \
        .operation = #SYM,                                                                \
        .format = "array",                                                                \
        .backend = "serial",                                                              \
        .summary = SUMMARY,                                                               \
        .prepare = SYM##_prepare,                                                         \
        .launch = cpu_launch,                                                             \
        .result = cpu_result,                                                             \
        .release = cpu_release,                                                           \
        .need = SYM##_need,                                                               \
        __VA_ARGS__};

CPU_KERNEL(scan, "scan_serial", SCAN, "exclusive scan, one core (the primitives' baseline)",
           .naxes = 0)
CPU_KERNEL(histogram, "histogram_serial", HISTOGRAM, "histogram of indices, one core",
           .naxes = 0)
CPU_KERNEL(idx2ptr, "idx2ptr_serial", IDX2PTR, "index-to-pointers of sorted indices, one core",
           .naxes = 0)
CPU_KERNEL(ptr2idx, "ptr2idx_serial", PTR2IDX, "pointers-to-index, one core", .naxes = 0)
CPU_KERNEL(segsort, "segsort_serial", SEGSORT, "qsort of each segment of `segment` keys",
           .naxes = 1, .axes = {{"segment", "1024", SP_PRIM_VALID_SEG}})
CPU_KERNEL(merge, "merge_serial", MERGE, "pairwise merge rounds from sorted runs of `segment`",
           .naxes = 1, .axes = {{"segment", "1024", SP_PRIM_VALID_RUN}})
CPU_KERNEL(hist_idx2ptr, "hist_idx2ptr_serial", HIST_IDX2PTR,
           "index-to-pointers of unsorted indices through partial histograms, one core",
           .naxes = 1, .axes = {{"segment", "4096", SP_PRIM_VALID_HIST_SEG}})
