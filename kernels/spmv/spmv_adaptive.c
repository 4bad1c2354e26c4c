/*
 * spmv_adaptive.c — the row blocks of the adaptive CSR kernel, its axis
 * and its memory statement (spmv_adaptive.h). Host only, no CUDA.
 */
#include <stdint.h>
#include <stdlib.h>

#include "spmv_adaptive.h"
#include "spmv_gpu_host.h"

int sp_adaptive_items(const char *kernel, const sp_params *p, int blocksize, int *items,
                      sp_err *err)
{
    long v = sp_param(p, "items", 8);
    if (v != 1 && v != 2 && v != 4 && v != 8 && v != 16)
        return sp_fail(err, "%s: items = %ld is not one of " SP_ADAPTIVE_ITEMS, kernel, v);
    if ((long)blocksize * v > SP_ADAPTIVE_MAX_PER_BLOCK)
        return sp_fail(err, "%s: blocksize %d × items %ld = %ld nonzeros a block, above %d "
                       "(a block's products must fit in its shared memory)",
                       kernel, blocksize, v, (long)blocksize * v, SP_ADAPTIVE_MAX_PER_BLOCK);
    *items = (int)v;
    return 0;
}

int sp_adaptive_stream(const char *kernel, const sp_params *p, int *stream, sp_err *err)
{
    long v = sp_param(p, SP_AXIS_LOADS, SP_LOADS_AUTO);
    if (v != SP_LOADS_CACHED && v != SP_LOADS_STREAM && v != SP_LOADS_AUTO)
        return sp_fail(err, "%s: loads = %ld is not cached (%d), stream (%d) or auto (%d: "
                       "stream when the matrix does not fit in L2)", kernel, v,
                       SP_LOADS_CACHED, SP_LOADS_STREAM, SP_LOADS_AUTO);
    *stream = v == SP_LOADS_CACHED ? 0 : v == SP_LOADS_STREAM ? 1 : 2;
    return 0;
}

int sp_adaptive_streams(int32_t rows, int32_t cols, int32_t nnz, int value, int64_t l2)
{
    int64_t bytes = (int64_t)nnz * (4 + value) + ((int64_t)rows + 1) * 4 +
                    ((int64_t)rows + cols) * value;
    return bytes > l2;
}

int sp_adaptive_lanes(int blocksize, int32_t rows)
{
    if (rows <= 1)
        return blocksize;
    int32_t share = blocksize / rows, lanes = 1;
    while (lanes * 2 <= share && lanes < 32)
        lanes *= 2;
    return lanes;
}

static int32_t row_len(const sp_csr *A, int32_t r)
{
    return A->rowptr[r + 1] - A->rowptr[r];
}

/* The rows of the short block starting at row r (r's length at most
 * per_block): extended while the nonzeros fit, the rows have a lane group
 * each and the longest row takes at most `steps` steps of its group
 * (longest <= steps · lanes; cap[R] = steps · lanes of R rows). */
static int32_t short_rows(const sp_csr *A, int32_t r, int blocksize, int32_t per_block,
                          const int32_t *cap, int32_t *n)
{
    const int32_t *ptr = A->rowptr + r;
    int32_t R = 1, sum = ptr[1] - ptr[0], longest = sum;
    int32_t most = A->rows - r < blocksize ? A->rows - r : blocksize;
    while (R < most) {
        int32_t len = ptr[R + 1] - ptr[R];
        if (len > per_block - sum)
            break;
        int32_t m = len > longest ? len : longest;
        if (m > cap[R + 1])
            break;
        R++, sum += len, longest = m;
    }
    *n = sum;
    return R;
}

/* The plan's walk over the rows: counts into *nblocks and *nlong, and
 * writes the blocks when pl is not NULL (its arrays sized by a count). */
static void walk(const sp_csr *A, int blocksize, int items, sp_adaptive_plan *pl,
                 int64_t *nblocks, int32_t *nlong)
{
    int32_t T = blocksize * items, steps = SP_ADAPTIVE_STEPS(items);
    int32_t cap[1025];          /* blocksize <= 1024 */
    for (int32_t R = 1; R <= blocksize; R++)
        cap[R] = steps * sp_adaptive_lanes(blocksize, R);
    int64_t b = 0;
    int32_t L = 0, r = 0;
    while (r < A->rows) {
        int32_t len = row_len(A, r);
        if (len > T) {
            int32_t chunks = (int32_t)(((int64_t)len + T - 1) / T);
            if (pl) {
                pl->long_first[L] = (int32_t)b;
                pl->long_chunks[L] = chunks;
                for (int32_t k = 0; k < chunks; k++) {
                    int32_t off = k * T;
                    pl->block[b + k] = (sp_adaptive_block){
                        r, -(L + 1), A->rowptr[r] + off, len - off < T ? len - off : T};
                }
            }
            b += chunks, L++, r++;
            continue;
        }
        int32_t n, R = short_rows(A, r, blocksize, T, cap, &n);
        if (pl)
            pl->block[b] = (sp_adaptive_block){r, R, A->rowptr[r], n};
        b++, r += R;
    }
    *nblocks = b;
    *nlong = L;
}

void sp_adaptive_count(const sp_csr *A, int blocksize, int items, int64_t *nblocks,
                       int32_t *nlong)
{
    walk(A, blocksize, items, NULL, nblocks, nlong);
}

void sp_adaptive_plan_free(sp_adaptive_plan *pl)
{
    free(pl->block);
    free(pl->long_first);
    free(pl->long_chunks);
    *pl = (sp_adaptive_plan){0};
}

int sp_adaptive_split(const sp_csr *A, int blocksize, int items, sp_adaptive_plan *pl,
                      sp_err *err)
{
    *pl = (sp_adaptive_plan){0};
    if (blocksize < 32 || blocksize > 1024 || blocksize % 32 || items < 1 ||
        blocksize * items > SP_ADAPTIVE_MAX_PER_BLOCK)
        return sp_fail(err, "adaptive CSR: blocksize %d, items %d out of range", blocksize,
                       items);
    int64_t nb;
    int32_t nl;
    sp_adaptive_count(A, blocksize, items, &nb, &nl);
    if (nb > INT32_MAX)
        return sp_fail(err, "adaptive CSR: %lld blocks, more than a grid holds",
                       (long long)nb);
    pl->per_block = blocksize * items;
    pl->block = malloc(((size_t)nb + 1) * sizeof *pl->block);
    pl->long_first = malloc(((size_t)nl + 1) * sizeof(int32_t));
    pl->long_chunks = malloc(((size_t)nl + 1) * sizeof(int32_t));
    if (!pl->block || !pl->long_first || !pl->long_chunks) {
        sp_adaptive_plan_free(pl);
        return sp_fail(err, "adaptive CSR: out of memory for a plan of %lld blocks",
                       (long long)nb);
    }
    walk(A, blocksize, items, pl, &pl->nblocks, &pl->nlong);
    return 0;
}

int sp_need_gpu_adaptive(const sp_problem *pb, const sp_params *p, sp_need *need,
                         sp_err *err)
{
    int bs = 0, items = 0, stream;
    const char *name = "spmv_csr_cuda_adaptive";
    if (sp_gpu_blocksize(name, p, 1, &bs, err) || sp_adaptive_items(name, p, bs, &items, err) ||
        sp_adaptive_stream(name, p, &stream, err))
        return -1;
    if (sp_need_gpu_csr(pb, p, need, err))
        return -1;
    int64_t nb;
    int32_t nl;
    sp_adaptive_count(pb->A, bs, items, &nb, &nl);
    uint64_t plan = ((uint64_t)nb + 1) * sizeof(sp_adaptive_block) + ((uint64_t)nl + 1) * 8;
    need->host_bytes += plan;
    need->device_bytes += sp_gpu_array_bytes((uint64_t)nb + 1, sizeof(sp_adaptive_block)) +
                          sp_gpu_array_bytes((uint64_t)nb + 1, 8) +
                          2 * sp_gpu_array_bytes((uint64_t)nl + 1, 4) +
                          sp_gpu_array_bytes((uint64_t)nl + 1, 4);
    return 0;
}
