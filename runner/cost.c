/*
 * cost.c — a matrix's nonzero count before it is loaded, for balancing
 * shards and for the progress line's ETA. Cheap and deterministic (every
 * shard must compute the same numbers):
 *   gen:    from the generator's parameters (exact for laplace2d, laplace3d,
 *           banded, uniform, denserow; edges before deduplication for rmat);
 *   file:   the file's size over 24 bytes per coordinate line ("i j value"
 *           with a 17-digit value), times 4 for gzip;
 *   suitesparse: unknown until fetched: 1e6, the order of the collection's
 *           median;
 *   keys:   n, the number of keys.
 * A missing file or a malformed spec estimates 1 (the load will say why).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "select.h"

#define UNKNOWN_NNZ 1e6

/* Value of key in "kind?k=v&k=v", or dflt. */
static double gen_param(const char *spec, const char *key, double dflt)
{
    const char *q = strchr(spec, '?');
    size_t klen = strlen(key);
    for (const char *p = q; p; p = strchr(p + 1, '&'))
        if (!strncmp(p + 1, key, klen) && p[1 + klen] == '=')
            return strtod(p + 2 + klen, NULL);
    return dflt;
}

/* The generator's nonzero count from its parameters. */
static double gen_nnz(const char *spec)
{
    size_t kind = strcspn(spec, "?");
    double n = gen_param(spec, "n", 0), rows = gen_param(spec, "rows", 0);
    double per_row = gen_param(spec, "per_row", 0);
    if (!strncmp(spec, "laplace2d", kind) && kind == 9)
        return 5 * n * n - 4 * n;
    if (!strncmp(spec, "laplace3d", kind) && kind == 9)
        return gen_param(spec, "points", 7) == 27 ? pow(3 * n - 2, 3) : 7 * n * n * n - 6 * n * n;
    if (!strncmp(spec, "rmat", kind) && kind == 4)
        return gen_param(spec, "ef", 16) * pow(2, gen_param(spec, "scale", 0));
    if (!strncmp(spec, "uniform", kind) && kind == 7)
        return rows * per_row;
    if (!strncmp(spec, "banded", kind) && kind == 6) {
        double bw = fmin(gen_param(spec, "bw", 0), n - 1);
        return n * (2 * bw + 1) - bw * (bw + 1);
    }
    if (!strncmp(spec, "denserow", kind) && kind == 8)
        return rows * per_row + gen_param(spec, "dense", 0);
    return UNKNOWN_NNZ;
}

/* Nonzeros of a source, estimated without loading it; at least 1. */
double sp_estimate_nnz(const sp_source *src)
{
    double nnz = UNKNOWN_NNZ;
    struct stat sb;
    if (src->kind == SP_SRC_GEN) {
        nnz = gen_nnz(src->path);
    } else if (src->kind == SP_SRC_KEYS) {
        sp_keys_spec ks;
        nnz = sp_keys_spec_parse(src->path, &ks, NULL) ? 1 : (double)ks.n;
    } else if (src->kind == SP_SRC_FILE) {
        size_t len = strlen(src->path);
        int gz = len > 3 && !strcmp(src->path + len - 3, ".gz");
        nnz = stat(src->path, &sb) ? 1 : (double)sb.st_size / 24 * (gz ? 4 : 1);
    }
    return isfinite(nnz) && nnz >= 1 ? nnz : 1;
}
