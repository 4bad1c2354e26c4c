/*
 * load_guard.c — the memory guard at a matrix's load (issue 18). Before
 * the sweep (or `spsweep info`) generates or reads a matrix, what the load
 * will hold at its peak (fetch/load_size.c) and what the process then
 * holds beside the matrix (each operation's inputs, reference and output
 * buffer: sweep_combo.c's op_state) are compared with MemAvailable
 * (memguard.c), like a kernel's `need` before its fork. A matrix that does
 * not fit is refused with both numbers; the sweep records it as a matrix
 * failure and goes on, where it used to be OOM-killed while loading, left
 * `running`, and killed again on every resume.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "load_guard.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

static int32_t clamp32(int64_t v)
{
    return v > INT32_MAX ? INT32_MAX : (int32_t)v;
}

/* Bytes op holds beside a workload of size sz once set up, from a problem
 * that has the shape and no arrays (setup_bytes and output_bytes read
 * sizes only): setup's inputs, the reference and the output buffer. */
static uint64_t op_bytes(const sp_operation *op, const sp_load_size *sz, int workload)
{
    sp_csr A = {.rows = clamp32(sz->rows), .cols = clamp32(sz->cols), .nnz = clamp32(sz->nnz)};
    sp_keys K = {.n = sz->nnz};
    sp_problem pb = {.A = workload == SP_WL_KEYS ? NULL : &A,
                     .key_workload = workload == SP_WL_KEYS ? &K : NULL, .nkeys = sz->nnz};
    if (!sp_operation_accepts(op, (sp_workload_kind)workload))
        return 0;               /* its runs are never set up on this workload */
    size_t out = op->output_bytes(&pb);
    return 2 * (uint64_t)(out ? out : 1) + (op->setup_bytes ? op->setup_bytes(&pb) : 0);
}

uint64_t sp_ops_bytes(const sp_load_size *sz, int workload, const sp_operation *const *ops,
                      int nops)
{
    uint64_t sum = 0;
    for (int i = 0; i < nops; i++)
        sum += op_bytes(ops[i], sz, workload);
    return sum;
}

int sp_work_ops(const sp_plan *plan, const sp_work *w, int n, int have_gpu,
                const sp_operation **ops, int max)
{
    int nops = 0;
    for (int i = 0; i < n; i++) {
        const sp_kernel *k = plan->combos[w[i].combo].kernel;
        const sp_operation *op = sp_operation_find(k->operation);
        int dup = 0;
        /* skipped before their operation is set up (sweep_combo.c: decide) */
        if (!op || !k->prepare || (k->needs_gpu && !have_gpu))
            continue;
        for (int j = 0; j < nops; j++)
            dup |= ops[j] == op;
        if (!dup && nops < max)
            ops[nops++] = op;
    }
    return nops;
}

/* "23.99 GiB", "3.8 MiB", "512 bytes": small matrices are refused too
 * when memory is that short, and "0.00 GiB" would say nothing. */
static const char *bytes_text(uint64_t b, char *buf, size_t len)
{
    if (b >= (uint64_t)1 << 30)
        snprintf(buf, len, "%.2f GiB", (double)b / GIB);
    else if (b >= (uint64_t)1 << 20)
        snprintf(buf, len, "%.1f MiB", (double)b / (1 << 20));
    else if (b >= (uint64_t)1 << 10)
        snprintf(buf, len, "%.1f KiB", (double)b / (1 << 10));
    else
        snprintf(buf, len, "%llu bytes", (unsigned long long)b);
    return buf;
}

/* "20000000 x 20000000 with 2140000000 nonzeros" or "1000 keys". */
static void shape_text(const sp_load_size *sz, int workload, char *buf, size_t len)
{
    if (workload == SP_WL_KEYS)
        snprintf(buf, len, "%lld keys", (long long)sz->nnz);
    else
        snprintf(buf, len, "%lld x %lld with %lld nonzeros", (long long)sz->rows,
                 (long long)sz->cols, (long long)sz->nnz);
}

int sp_load_mem_short(const sp_source *src, const sp_load_opts *lo, uint64_t beside_bytes,
                      const sp_operation *const *ops, int nops, const char *beside_what,
                      char *msg, size_t len)
{
    sp_load_size sz;
    uint64_t avail;
    int workload = sp_source_workload(src);
    if (sp_load_size_of(src, lo, &sz) || sp_host_mem_available(&avail))
        return 0;               /* unknown: the load goes ahead and says what it finds */
    uint64_t held = sz.result_bytes + beside_bytes + sp_ops_bytes(&sz, workload, ops, nops);
    uint64_t need = held > sz.peak_bytes ? held : sz.peak_bytes;
    if (need <= avail)
        return 0;
    char shape[160], t[4][32];
    shape_text(&sz, workload, shape, sizeof shape);
    int n = snprintf(msg, len, "needs %s of host memory to load, %s available (%s, from the "
                     "%s; %s at the load's peak", bytes_text(need, t[0], 32),
                     bytes_text(avail, t[1], 32), shape, sz.basis,
                     bytes_text(sz.peak_bytes, t[2], 32));
    if (n >= 0 && (size_t)n < len && held > sz.result_bytes)
        n += snprintf(msg + n, len - (size_t)n, ", %s with %s", bytes_text(held, t[3], 32),
                      beside_what ? beside_what : "what it needs beside it");
    if (n >= 0 && (size_t)n < len)
        snprintf(msg + n, len - (size_t)n, ")");
    return 1;
}
