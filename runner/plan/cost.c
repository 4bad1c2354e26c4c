/*
 * cost.c — a matrix's nonzero count before it is loaded, for balancing
 * shards and for the progress line's ETA. Cheap and deterministic (every
 * shard must compute the same numbers):
 *   gen:    from the generator's own parameter parsing (sp_generate_shape:
 *           exact for laplace2d, laplace3d, banded, uniform, denserow; edges
 *           before deduplication for rmat), and the longest row, the
 *           diagonals and how sliced rows pad (denserow's long row, R-MAT's
 *           growth a slice doubling) the generator expects (fetch/gen_*.c);
 *   file:   the file's size over 24 bytes per coordinate line ("i j value"
 *           with a 17-digit value), times 4 for gzip;
 *   suitesparse: the nnz column of the collection's index (ssstats.csv)
 *           when the cache holds it (the fetch step and Slurm's fetch job
 *           put it there before any shard starts), else 1e6, the order of
 *           the collection's median;
 *   keys:   n, the number of keys.
 * A missing file or a malformed spec estimates 1 (the load will say why).
 *
 * From that, the estimated seconds that shards are balanced on (select.c),
 * that the progress line's ETA counts down and that `spsweep plan` adds
 * up (dryrun.c). A run costs
 *   its process: fork, reap, store, the output checked against the
 *     reference (for a GPU kernel, in its matrix's worker; about 0.23 s more
 *     with `isolate = combination`: its own CUDA context);
 *   conversion: building the kernel's format on the host, by the entries
 *     that format stores: a padded format (ELL, HLL, SELL, DIA) stores more
 *     than nnz, DIA a full column of rows values per diagonal, so DIA on a
 *     power-law graph with tens of thousands of diagonals costs minutes
 *     where CSR costs milliseconds;
 *   transfers (GPU kernels): the stored format uploaded, the output
 *     downloaded;
 *   its warm-up and timed repetitions, over the stored entries, at a rough
 *     rate per entry;
 * and at most its timeout (then it is killed); a DIA or ELL layout the
 * sweep's max_fill will refuse on a generated matrix costs its process
 * alone. A matrix costs loading it
 * (generating or reading, features, reference; starting its GPU worker)
 * once in every process and round that runs any of its pairs.
 *
 * The stored entries need the structure before the matrix is loaded: for
 * generated matrices it follows from the generator (a stencil or band has
 * as many diagonals as entries per row; uniform rows have equal lengths;
 * R-MAT rows follow a power law); for files and SuiteSparse matrices it is
 * not known, and their nonzeros are taken as scattered (every diagonal
 * that nnz random entries would touch, rows up to 10 times the mean):
 * an upper bound for a banded matrix, about right for a graph.
 *
 * The rates are orders of magnitude, not a model of any kernel: they only
 * need to rank and add up. Every input is the config's, the source's or
 * the cached index's, never the machine's, so every shard of a sweep and
 * `merge --shards` compute the same numbers.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../fetch/fetch.h"
#include "select.h"

#define UNKNOWN_NNZ 1e6
/* Seconds per run outside the timed part: fork + reap + store (about 1 ms,
 * bench/fork_cost); for a GPU kernel in its matrix's worker, a few ms plus
 * the check and the upload, which grow with nnz (on an H200, CSR: 26 ms at
 * 5 M nonzeros, 58 ms at 12.8 M, about 4 ns a nonzero, 1.2 of which the
 * upload below). */
#define RUN_FIXED_CPU_S 2e-3
#define RUN_FIXED_GPU_S 5e-3
#define GPU_CHECK_S_PER_NNZ 2.5e-9
#define GPU_CONTEXT_S 0.23     /* a CUDA context of its own (isolate = combination) */
#define GPU_WORKER_S 0.3       /* a matrix's GPU worker started, its context made */
/* Seconds per stored entry and repetition: ~1 GFLOPS for one CPU thread,
 * ~100 GFLOPS for a GPU kernel (2 flops per nonzero). */
#define CPU_S_PER_NNZ 2e-9
#define GPU_S_PER_NNZ 2e-11
/* Seconds per stored entry to build a padded format on the host (zeroing
 * and scattering, about 10 bytes written an entry), per nonzero for COO
 * and for librsb's own blocked layout (its conversion and tuner). */
#define CONVERT_S_PER_ENTRY 2e-9
#define COO_S_PER_NNZ 1e-9
#define RSB_S_PER_NNZ 5e-8
/* Seconds per byte copied between host and device (10 GB/s). */
#define COPY_S_PER_BYTE 1e-10
/* Seconds per nonzero to load a matrix: generate or read, features,
 * reference. */
#define LOAD_S_PER_NNZ 3e-8
/* A matrix of unknown structure: its longest row, in mean rows. */
#define UNKNOWN_ROW_SKEW 10

/* The generator's nonzero count from its own parameter parsing
 * (sp_generate_shape): the same numbers the memory guard uses. */
static double gen_nnz(const char *spec)
{
    sp_gen_shape g;
    return sp_generate_shape(spec, &g, NULL) ? 1 : (double)g.nnz;
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

/* sh's structure: the generator's own expectation (g, for one of ours),
 * else a matrix of unknown structure taken as scattered. */
static void shape_structure(sp_shape *sh, const sp_gen_shape *g)
{
    sh->known = g && g->row_max > 0;
    if (sh->known) {
        sh->row_max = g->row_max, sh->ndiags = g->ndiags;
        sh->long_rows = g->long_rows, sh->slice_growth = g->slice_growth;
    } else {
        sh->row_max = fmin(sh->cols, ceil(UNKNOWN_ROW_SKEW * sh->nnz / sh->rows));
        sh->ndiags = sp_scattered_diagonals((int64_t)sh->rows, (int64_t)sh->cols,
                                            (int64_t)sh->nnz);
    }
    sh->row_max = fmax(sh->row_max, 1);
    sh->ndiags = fmax(sh->ndiags, 1);
}

/* The shape and structure of one source, its nnz estimated already: rows
 * and columns from the generator's parameters or the file's size line. */
static void source_shape(const sp_source *src, double nnz, sp_shape *sh)
{
    memset(sh, 0, sizeof *sh);
    sh->nnz = nnz;
    sp_gen_shape g;
    int gen = src->kind == SP_SRC_GEN && !sp_generate_shape(src->path, &g, NULL) && g.rows > 0;
    sp_mm_size mm;
    sp_err err;
    if (gen) {
        sh->rows = (double)g.rows, sh->cols = (double)g.cols;
    } else if (src->kind == SP_SRC_FILE && access(src->path, R_OK) == 0 &&
               !sp_mm_peek(src->path, &mm, &err) && mm.rows > 0) {
        sh->rows = (double)mm.rows, sh->cols = (double)mm.cols;
    } else if (src->kind == SP_SRC_KEYS) {
        sh->rows = nnz, sh->cols = 1;
    }
    if (!(sh->rows >= 1))       /* unknown: about 10 nonzeros a row */
        sh->rows = sh->cols = fmax(1, ceil(nnz / 10));
    shape_structure(sh, gen ? &g : NULL);
}

/* Each suitesparse source's entry of the index, where the cache holds the
 * index, through fn(m, entry, user); silent: an absent or unreadable index
 * only leaves the placeholders. */
static void each_index_entry(const sp_config *cfg,
                             void (*fn)(int m, const sp_ss_entry *e, void *user), void *user)
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
                fn(m, &e, user);
        }
        sp_ss_index_free(ix);
    }
    if (devnull)
        fclose(devnull);
}

static void entry_nnz(int m, const sp_ss_entry *e, void *user)
{
    ((double *)user)[m] = (double)e->nnz;
}

/* The nnz column of the index for each suitesparse source. */
static void index_nnz(const sp_config *cfg, double *nnz)
{
    each_index_entry(cfg, entry_nnz, nnz);
}

static void entry_shape(int m, const sp_ss_entry *e, void *user)
{
    sp_shape *sh = &((sp_shape *)user)[m];
    if (e->rows > 0 && e->cols > 0) {
        sh->rows = (double)e->rows, sh->cols = (double)e->cols, sh->nnz = (double)e->nnz;
        shape_structure(sh, NULL);
    }
}

/* Rows, columns and nonzeros from the index for each suitesparse source. */
static void index_shapes(const sp_config *cfg, sp_shape *sh)
{
    each_index_entry(cfg, entry_shape, sh);
}

void sp_estimate_config_shapes(const sp_config *cfg, sp_shape *sh)
{
    for (int m = 0; m < cfg->nmatrices; m++)
        source_shape(&cfg->matrices[m], sp_estimate_nnz(&cfg->matrices[m]), &sh[m]);
    index_shapes(cfg, sh);
}

/* Estimated nonzeros of every matrix of the config, into nnz[nmatrices]. */
void sp_estimate_config_nnz(const sp_config *cfg, double *nnz)
{
    for (int m = 0; m < cfg->nmatrices; m++)
        nnz[m] = sp_estimate_nnz(&cfg->matrices[m]);
    index_nnz(cfg, nnz);
}

/* The entries a sliced ELLPACK of `hack` rows a slice pads beyond nnz
 * (each slice as long as its longest row), at most ELL's (ell - nnz):
 * where the generator says how (a few long rows, each padding its slice;
 * or a growth a doubling of the slice, as R-MAT's), from that; else
 * between CSR's nothing at hack 1 and ELL's at one slice of all rows, on
 * a log scale (lr: the log of the rows). */
static double slice_padding(const sp_shape *sh, double hack, double ell, double lr)
{
    double pad, h = fmax(hack, 1);
    if (sh->long_rows > 0) {
        double rest = fmax(sh->rows - sh->long_rows, 1);
        double typical = fmax(sh->nnz - sh->long_rows * sh->row_max, 0) / rest;
        pad = sh->long_rows * (h - 1) * fmax(sh->row_max - typical, 0);
    } else if (sh->slice_growth > 1) {
        pad = sh->nnz * (pow(sh->slice_growth, log2(h)) - 1);
    } else {
        pad = (ell - sh->nnz) * (hack <= 0 ? 1 : fmin(1, fmax(0, log(h) / lr)));
    }
    return fmin(fmax(pad, 0), ell - sh->nnz);
}

/* Entries the kernel's format stores for a matrix of shape sh: nnz, or
 * with the padding of ELL (every row as long as the longest), DIA (a full
 * column per diagonal) and HLL / SELL (each hack as long as its longest
 * row, slice_padding; sorting windows of sigma rows take most of it
 * back). */
static double stored_entries(const sp_shape *sh, const sp_kernel *k, const sp_params *p)
{
    const char *f = k->format ? k->format : "";
    double ell = fmax(sh->rows * sh->row_max, sh->nnz), lr = log(fmax(sh->rows, 2));
    if (!strcmp(f, "dia"))
        return fmax(sh->ndiags * sh->rows, sh->nnz);
    if (!strcmp(f, "ell"))
        return ell;
    if (!strcmp(f, "hll")) {
        double hack = (double)sp_param(p, "hack", 32), sigma = (double)sp_param(p, "sigma", 1);
        double sorted = 1 - fmin(1, fmax(0, log(fmax(sigma, 1)) / lr));
        return sh->nnz + slice_padding(sh, hack, ell, lr) * sorted;
    }
    return sh->nnz;
}

/* Bytes of the output a GPU kernel downloads. */
static double output_bytes(const sp_shape *sh, const sp_kernel *k)
{
    const char *op = k->operation ? k->operation : "";
    if (!strcmp(op, "spmv"))
        return 8 * sh->rows;
    if (!strcmp(op, "transpose"))
        return 12 * sh->nnz + 4 * sh->cols;
    return 8 * sh->nnz;
}

void sp_estimate_run(const sp_shape *sh, const sp_config *cfg, const sp_kernel *k,
                     const sp_params *p, double max_fill, sp_run_cost *c)
{
    const char *f = k->format ? k->format : "";
    int reps = cfg->repetitions + cfg->warmup;
    double stored = stored_entries(sh, k, p);
    int padded = !strcmp(f, "dia") || !strcmp(f, "ell") || !strcmp(f, "hll");
    memset(c, 0, sizeof *c);
    c->stored = stored;
    c->convert = padded ? stored * CONVERT_S_PER_ENTRY
                 : !strcmp(f, "coo") ? sh->nnz * COO_S_PER_NNZ
                 : !strcmp(f, "rsb") ? sh->nnz * RSB_S_PER_NNZ : 0;
    if (sh->known && max_fill > 0 && (!strcmp(f, "dia") || !strcmp(f, "ell")) &&
        stored > max_fill * fmax(sh->nnz, 1)) {
        /* skipped before any conversion (sweep_combo.c over_fill) */
        c->refused = 1;
        c->convert = 0;
        c->run = k->needs_gpu ? RUN_FIXED_GPU_S : RUN_FIXED_CPU_S;
        c->total = c->run;
        return;
    }
    if (k->needs_gpu) {
        /* values and column indices (DIA: values alone) and the rows' offsets */
        double up = stored * (!strcmp(f, "dia") ? 8 : 12) + 4 * sh->rows;
        c->run = RUN_FIXED_GPU_S + sh->nnz * GPU_CHECK_S_PER_NNZ +
                 (cfg->isolate == SP_ISOLATE_COMBINATION ? GPU_CONTEXT_S : 0);
        c->transfer = (up + output_bytes(sh, k)) * COPY_S_PER_BYTE;
        c->timed = stored * reps * GPU_S_PER_NNZ;
    } else {
        long threads = sp_param(p, "threads", 1);
        c->run = RUN_FIXED_CPU_S;
        c->timed = stored * reps * CPU_S_PER_NNZ / (double)(threads > 1 ? threads : 1);
    }
    c->total = c->run + c->convert + c->transfer + c->timed;
    c->capped = cfg->timeout_s > 0 && c->total > cfg->timeout_s + c->run;
    if (c->capped)
        c->total = cfg->timeout_s + c->run;
}

/* Estimated seconds to load a matrix, paid by every process that runs one
 * of its pairs. */
double sp_estimate_load_s(double nnz)
{
    return nnz * LOAD_S_PER_NNZ;
}

double sp_estimate_loads(const sp_config *cfg, const sp_plan *plan, const sp_worklist *wl,
                         const sp_shape *sh, int *nloads)
{
    double s = 0;
    int worker = 0;     /* the current load's GPU worker started */
    *nloads = 0;
    for (int i = 0; i < wl->n; i++) {
        const sp_work *w = &wl->w[i], *prev = i ? &wl->w[i - 1] : NULL;
        if (!prev || prev->matrix != w->matrix || prev->round != w->round) {
            ++*nloads;
            s += sp_estimate_load_s(sh[w->matrix].nnz);
            worker = 0;
        }
        /* the matrix's GPU worker starts with its first GPU pair */
        if (plan->combos[w->combo].kernel->needs_gpu && !worker &&
            cfg->isolate != SP_ISOLATE_COMBINATION) {
            s += GPU_WORKER_S;
            worker = 1;
        }
    }
    return s;
}
