/*
 * load_size.c — what sp_matrix_load will allocate, found before it runs,
 * so the runner's memory guard can refuse a matrix that does not fit
 * instead of being OOM-killed while loading it (issue 18). Each source
 * kind reads the numbers where the loader will:
 *   gen:   the generator's own parameter parsing (sp_generate_shape): the
 *          CSR plus its temporaries (R-MAT's edge buckets);
 *   file:, suitesparse:
 *          the binary cache's header when the cache will be used: the CSR
 *          exactly; else the Matrix Market size line (sp_mm_peek): the CSR
 *          at the entry count (doubled for symmetric kinds), the reader's
 *          second row-pointer array and a .gz file's inflated text. A
 *          plain file's text is mapped, clean page cache that MemAvailable
 *          already counts as free, so it is not added. Writing the cache
 *          writes from the CSR's own arrays: nothing more;
 *   keys:  n 32-bit keys.
 * The Matrix Market reader's scratch for sorting its longest row (half a
 * row) is left out: a small part of the matrix but for one dense row.
 */
#include <limits.h>
#include <sys/stat.h>

#include "matrix.h"

/* Bytes of a CSR with 32-bit row pointers and indices, double values. */
static uint64_t csr_bytes(int64_t rows, int64_t nnz)
{
    return ((uint64_t)rows + 1) * sizeof(int32_t) + (uint64_t)nnz * (sizeof(int32_t) +
                                                                     sizeof(double));
}

static void set_size(sp_load_size *sz, int64_t rows, int64_t cols, int64_t nnz,
                     uint64_t result, uint64_t extra, const char *basis)
{
    *sz = (sp_load_size){rows, cols, nnz, result, result + extra, basis};
}

static int gen_size(const sp_source *src, sp_load_size *sz)
{
    sp_gen_shape g;
    if (sp_generate_shape(src->path, &g, NULL))
        return -1;
    set_size(sz, g.rows, g.cols, g.nnz, csr_bytes(g.rows, g.nnz), g.scratch_bytes,
             "generator parameters");
    return 0;
}

static int keys_size(const sp_source *src, sp_load_size *sz)
{
    sp_keys_spec ks;
    if (sp_keys_spec_parse(src->path, &ks, NULL))
        return -1;
    uint64_t bytes = (uint64_t)(ks.n ? ks.n : 1) * sizeof(uint32_t);
    set_size(sz, ks.n, 1, ks.n, bytes, 0, "keys parameters");
    return 0;
}

/* The cache file's shape when the load will read it: it exists, its
 * header is sound and it matches the Matrix Market file's size and time. */
static int cache_size(const char *mtx, const char *csr, sp_load_size *sz)
{
    struct stat st;
    int32_t rows, cols, nnz;
    if (!csr[0] || stat(mtx, &st))
        return -1;
    sp_cache_info expect = {(uint64_t)st.st_size,
                            (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec, 0, 0};
    if (sp_cache_peek(csr, &expect, &rows, &cols, &nnz))
        return -1;
    set_size(sz, rows, cols, nnz, csr_bytes(rows, nnz), 0, "binary cache header");
    return 0;
}

/* What the reader allocates from the size line: the CSR, its fill pass's
 * row cursors, and the inflated text of a .gz file. */
static int mm_size(const char *mtx, sp_load_size *sz)
{
    sp_mm_size m;
    if (sp_mm_peek(mtx, &m, NULL))
        return -1;
    uint64_t cursors = ((uint64_t)m.rows + 1) * sizeof(int32_t);
    set_size(sz, m.rows, m.cols, m.max_nnz, csr_bytes(m.rows, m.max_nnz),
             cursors + m.heap_text, "Matrix Market size line");
    return 0;
}

static int file_size(const sp_source *src, const sp_load_opts *opts, sp_load_size *sz)
{
    char mtx[PATH_MAX], csr[PATH_MAX + 256];
    if (sp_source_files(src, opts, mtx, sizeof mtx, csr, sizeof csr, NULL))
        return -1;
    return cache_size(mtx, csr, sz) == 0 ? 0 : mm_size(mtx, sz);
}

int sp_load_size_of(const sp_source *src, const sp_load_opts *opts, sp_load_size *sz)
{
    *sz = (sp_load_size){0, 0, 0, 0, 0, "unknown"};
    if (!src)
        return -1;
    switch (src->kind) {
    case SP_SRC_GEN:
        return gen_size(src, sz);
    case SP_SRC_KEYS:
        return keys_size(src, sz);
    case SP_SRC_FILE:
    case SP_SRC_SUITESPARSE:
        return file_size(src, opts, sz);
    }
    return -1;
}
