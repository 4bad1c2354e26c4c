/*
 * cost.c — a matrix's nonzero count before it is loaded, for balancing
 * shards and for the progress line's ETA. Cheap and deterministic (every
 * shard must compute the same numbers):
 *   gen:    from the generator's own parameter parsing (sp_generate_size:
 *           exact for laplace2d, laplace3d, banded, uniform, denserow; edges
 *           before deduplication for rmat);
 *   file:   the file's size over 24 bytes per coordinate line ("i j value"
 *           with a 17-digit value), times 4 for gzip;
 *   suitesparse: the nnz column of the collection's index (ssstats.csv)
 *           when the cache holds it (the fetch step and Slurm's fetch job
 *           put it there before any shard starts), else 1e6, the order of
 *           the collection's median;
 *   keys:   n, the number of keys.
 * A missing file or a malformed spec estimates 1 (the load will say why).
 *
 * From nnz, the estimated seconds that shards are balanced on (select.c):
 * a run costs a fixed part (fork, reap, store; for a GPU kernel the upload,
 * conversion and check in the matrix's worker, measured in bench/RESULTS.md
 * "Sweeps across the GPUs of one host") plus its repetitions at a rough
 * rate per nonzero, and a matrix costs loading it (generating or reading,
 * features, reference, and starting its GPU worker) once in every process
 * that runs any of its pairs. With `isolate = combination` a GPU run costs
 * about 0.23 s more (its own CUDA context): the estimate assumes the
 * default. The rates are orders of
 * magnitude, not a model of any kernel: they only need to rank and add up.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../fetch/fetch.h"
#include "select.h"

#define UNKNOWN_NNZ 1e6
/* Seconds per run outside the timed part: fork + reap + store (about 1 ms,
 * bench/fork_cost); for a GPU kernel in its matrix's worker, a few ms plus
 * the upload, conversion and check, which grow with nnz (on an H200: 26 ms
 * at 5 M nonzeros, 58 ms at 12.8 M; R-MAT's skewed rows cost more). */
#define RUN_FIXED_CPU_S 2e-3
#define RUN_FIXED_GPU_S 5e-3
#define GPU_RUN_S_PER_NNZ 4e-9
/* Seconds per nonzero and repetition: ~1 GFLOPS for one CPU thread, ~100
 * GFLOPS for a GPU kernel (2 flops per nonzero). */
#define CPU_S_PER_NNZ 2e-9
#define GPU_S_PER_NNZ 2e-11
/* Seconds per nonzero to load a matrix: generate or read, features,
 * reference. */
#define LOAD_S_PER_NNZ 3e-8

/* The generator's nonzero count from its own parameter parsing
 * (sp_generate_size): the same numbers the memory guard uses. */
static double gen_nnz(const char *spec)
{
    int64_t rows, cols, nnz;
    uint64_t scratch;
    return sp_generate_size(spec, &rows, &cols, &nnz, &scratch, NULL) ? 1 : (double)nnz;
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

/* The nnz column of the index for each suitesparse source, where the cache
 * holds the index; nnz[m] is left alone otherwise. Silent: an absent or
 * unreadable index only leaves the placeholder. */
static void index_nnz(const sp_config *cfg, double *nnz)
{
    int any = 0;
    for (int m = 0; m < cfg->nmatrices; m++)
        any |= cfg->matrices[m].kind == SP_SRC_SUITESPARSE;
    char root[1024], csv[1100];
    sp_err err;
    sp_ss_index *ix = NULL;
    if (!any || sp_cache_root(cfg->cache_dir, root, sizeof root, &err) ||
        snprintf(csv, sizeof csv, "%s/suitesparse/ssstats.csv", root) >= (int)sizeof csv ||
        access(csv, R_OK) != 0)
        return;
    FILE *devnull = fopen("/dev/null", "w");
    int skipped = 0;
    if (devnull && sp_ss_index_load(csv, devnull, &skipped, &ix, &err) == 0) {
        for (int m = 0; m < cfg->nmatrices; m++) {
            sp_ss_entry e;
            if (cfg->matrices[m].kind == SP_SRC_SUITESPARSE &&
                sp_ss_index_lookup(ix, cfg->matrices[m].path, &e, &err) == 0 && e.nnz > 0)
                nnz[m] = (double)e.nnz;
        }
        sp_ss_index_free(ix);
    }
    if (devnull)
        fclose(devnull);
}

/* Estimated nonzeros of every matrix of the config, into nnz[nmatrices]. */
void sp_estimate_config_nnz(const sp_config *cfg, double *nnz)
{
    for (int m = 0; m < cfg->nmatrices; m++)
        nnz[m] = sp_estimate_nnz(&cfg->matrices[m]);
    index_nnz(cfg, nnz);
}

/* Estimated seconds of one run: the fixed part plus the repetitions. */
double sp_estimate_run_s(double nnz, int reps, const sp_kernel *k, const sp_params *p)
{
    if (k->needs_gpu)
        return RUN_FIXED_GPU_S + nnz * (GPU_RUN_S_PER_NNZ + reps * GPU_S_PER_NNZ);
    long threads = sp_param(p, "threads", 1);
    return RUN_FIXED_CPU_S + nnz * reps * CPU_S_PER_NNZ / (double)(threads > 1 ? threads : 1);
}

/* Estimated seconds to load a matrix, paid by every process that runs one
 * of its pairs. */
double sp_estimate_load_s(double nnz)
{
    return nnz * LOAD_S_PER_NNZ;
}
