/*
 * matrix.h — fetch/'s public interface: turn a source string into a CSR
 * matrix with its features.
 *
 * Sources:
 *   file:path.mtx | file:path.mtx.gz | path.mtx   Matrix Market (fetch/mm_read.c)
 *   gen:kind?key=value&...                         generators (fetch/gen_*.c)
 *   suitesparse:Group/Name | suitesparse:Name      read from the cache that
 *                                                  `spsweep fetch` fills (fetch.h)
 *   keys:DIST?n=N&seed=S[&bins=M]                  not a matrix: an array of
 *                                                  32-bit keys (fetch/keys.c)
 * Every matrix read from text goes through the binary CSR cache
 * (fetch/csr_cache.c).
 */
#ifndef SP_MATRIX_H
#define SP_MATRIX_H

#include "../core/records.h"
#include "../core/sparse.h"

#ifdef __cplusplus
extern "C" {
#endif

/* sp_features: core/records.h. */

/* The layout and locality features above, into f (fetch/features_layout.c);
 * sp_features_compute calls it. -1 only when the scratch (rows + cols
 * bytes and row_max + 1 counters) cannot be allocated: the fields stay 0. */
int sp_features_layout(const sp_csr *A, sp_features *f);

void sp_features_compute(const sp_csr *A, sp_features *f);
const char *sp_size_class(int64_t nnz);
/* Print the features as "key: value" lines. */
void sp_features_print(const sp_features *f, void *file /* FILE* */);

/* What to do with complex values: keep the real part (warning on stderr)
 * or refuse the file. */
typedef enum { SP_COMPLEX_REAL_PART = 0, SP_COMPLEX_REFUSE = 1 } sp_complex_policy;

typedef struct sp_mm_opts {
    sp_complex_policy complex;
    int quiet;                  /* no warnings on stderr */
    int threads;                /* body parse threads: 0 = $SPSWEEP_THREADS, else OpenMP's
                                   default; 1 = serial */
    int64_t par_min_body;       /* bodies shorter than this (bytes) parse serially;
                                   0 = 1 MiB */
} sp_mm_opts;

/* The threads the last body parse of this process ran on (fetch/mm_par.c):
 * the chunks parsed in parallel, 1 for the serial path, 0 before any. */
int sp_mm_last_parse_threads(void);

/* Matrix Market reader (fetch/mm_read.c). Reads .mtx or .mtx.gz (by magic
 * bytes, not by name). On success fills A (sorted CSR, duplicates summed,
 * symmetric kinds expanded) and, when src_hash is not NULL, the XXH3 hash
 * of the file's bytes as read. Errors read "PATH:LINE: problem". */
int sp_mm_read(const char *path, const sp_mm_opts *opts, sp_csr *A,
               uint64_t *src_hash, sp_err *err);

/* The same reader stopping at the entries as read (0-based, symmetric kinds
 * expanded, duplicates not yet summed): what sp_mm_read converts to CSR. */
int sp_mm_read_coo(const char *path, const sp_mm_opts *opts, sp_coo *T,
                   uint64_t *src_hash, sp_err *err);

/* What a Matrix Market file's banner and size line say, read without its
 * body (fetch/mm_peek.c): the shape, the most nonzeros the reader will
 * hold (entries, twice that for symmetric kinds) and the bytes of text it
 * inflates into memory (a .gz file; 0 for a plain one, which is mapped).
 * -1 with the reader's message when the header is bad or unreadable. */
typedef struct sp_mm_size {
    int64_t rows, cols, max_nnz;
    uint64_t heap_text;
} sp_mm_size;
int sp_mm_peek(const char *path, sp_mm_size *sz, sp_err *err);

/* Matrix Market writer (coordinate real general, %.17g): for tests and
 * benchmarks. */
int sp_mm_write(const char *path, const sp_csr *A, sp_err *err);

/* Generators (fetch/gen_*.c). spec is the part after "gen:", e.g.
 * "laplace2d?n=100". Deterministic for a given spec. */
int sp_generate(const char *spec, sp_csr *A, sp_err *err);
/* What sp_generate(spec) will make, from the generator's own parameter
 * parsing, without generating: the shape (nnz exact, or the bound before
 * repeats merge for rmat), its temporaries beside the result at its peak,
 * and the structure the generator expects: the longest row and the
 * number of distinct diagonals (what ELL, HLL and DIA pad to; for the
 * random kinds an expectation, not a bound). */
typedef struct sp_gen_shape {
    int64_t rows, cols, nnz;
    uint64_t scratch_bytes;
    double row_max, ndiags;
    /* What a sliced ELLPACK (HLL) of rows in order pads, where the kind
     * knows more than its longest row (0: nothing more known): */
    double long_rows;           /* rows of row_max entries among far shorter ones
                                   (denserow's dense row): each pads its slice */
    double slice_growth;        /* the factor the stored entries grow by each time the
                                   slice height doubles (R-MAT: 2 max(a + b, c + d), its
                                   heavy rows in aligned runs of the row order) */
} sp_gen_shape;

/* -1 with the generator's message for a bad spec. */
int sp_generate_shape(const char *spec, sp_gen_shape *shape, sp_err *err);
/* Distinct diagonals that nnz entries scattered uniformly over a rows x
 * cols matrix touch (expected; each diagonal by its own length): the
 * generators' estimate, and the plan's for a matrix of unknown structure. */
double sp_scattered_diagonals(int64_t rows, int64_t cols, int64_t nnz);

/* Binary CSR cache (fetch/csr_cache.c). */
typedef struct sp_cache_info {
    uint64_t src_size;
    int64_t src_mtime_ns;
    uint64_t src_hash;          /* XXH3 of the source bytes */
    uint64_t data_hash;         /* sp_csr_checksum */
} sp_cache_info;

/* Write A to path atomically (temp file + rename). */
int sp_cache_write(const char *path, const sp_csr *A, const sp_cache_info *info,
                   sp_err *err);
/* Read a cache file. Returns 0 on success, 1 when the file is absent,
 * -1 when it is unusable (corrupt, other version, truncated, checksum
 * mismatch; the reason in err). When expect is not NULL, src_size and
 * src_mtime_ns must match it or the file is reported stale (-1). */
int sp_cache_read(const char *path, const sp_cache_info *expect, sp_csr *A,
                  sp_cache_info *info, sp_err *err);
/* The shape in a cache file's header (no arrays read): 0 when the header
 * is sound and matches expect (when given), nonzero otherwise. */
int sp_cache_peek(const char *path, const sp_cache_info *expect, int32_t *rows,
                  int32_t *cols, int32_t *nnz);

typedef enum { SP_SRC_FILE, SP_SRC_GEN, SP_SRC_SUITESPARSE, SP_SRC_KEYS } sp_source_kind;

/* ---- key workloads (fetch/keys.c, fetch/keys_stats.c) -------------------- */
enum { SP_KEYS_UNIFORM, SP_KEYS_SORTED, SP_KEYS_REVERSE, SP_KEYS_EQUAL, SP_KEYS_FEW,
       SP_KEYS_ZIPF };

/* A parsed "keys:DIST?n=N&seed=S[&s=X]" (the part after "keys:"). */
typedef struct sp_keys_spec {
    int dist;           /* SP_KEYS_* */
    int64_t n;          /* 0 .. INT32_MAX */
    uint64_t seed;      /* default 1 */
    double s;           /* zipf exponent, default 1 */
    int64_t bins;       /* the primitives' index range, 1 .. INT32_MAX - 1; 0: none given */
} sp_keys_spec;

/* Parse spec; every bad parameter is named ("keys:SPEC: parameter 'n': ..."). */
int sp_keys_spec_parse(const char *spec, sp_keys_spec *ks, sp_err *err);
/* Normalised source text "keys:zipf?n=1000003&seed=1&s=1" / short name
 * "keys_zipf_n1000003" (seed and exponent added when not the defaults). */
void sp_keys_spec_text(const sp_keys_spec *ks, char *text, size_t len);
void sp_keys_spec_name(const sp_keys_spec *ks, char *name, size_t len);
const char *sp_keys_dist_name(int dist);
/* The keys ks describes, deterministic for any thread count. */
int sp_keys_generate(const sp_keys_spec *ks, sp_keys *K, sp_err *err);
void sp_keys_free(sp_keys *K);
/* XXH3 of the keys (with n), the workload's checksum in the results DB. */
uint64_t sp_keys_checksum(const sp_keys *K);
/* Features of the keys as an n x 1 column (rows = nnz = n, one per row). */
void sp_keys_features(const sp_keys *K, sp_features *f);

typedef struct sp_keys_stats {
    int64_t n, distinct, ascending;     /* ascending: pairs key[i] <= key[i+1] */
    uint32_t min, max, top_value;       /* top_value: the most frequent key */
    int64_t top_count;
} sp_keys_stats;
/* Statistics of K (a sorted copy: 2 x 4n bytes of scratch). */
int sp_keys_stats_compute(const sp_keys *K, sp_keys_stats *st, sp_err *err);
void sp_keys_stats_print(const sp_keys_stats *st, void *file /* FILE* */);

typedef struct sp_source {
    sp_source_kind kind;
    char text[1024];    /* the source as written, normalised ("file:..." etc.) */
    char name[256];     /* short readable name: file stem, "laplace2d_n100", "HB/bcsstk13" */
    char path[1024];    /* file: the path; suitesparse: "Group/Name" or "Name"; gen: the spec */
    char unavailable[512]; /* set when the source cannot be had (e.g. a failed
                              fetch): loading it fails with this reason */
} sp_source;

/* Parse a source string; a bare path is taken as file:. */
int sp_source_parse(const char *text, sp_source *src, sp_err *err);

typedef struct sp_load_opts {
    const char *cache_dir;      /* NULL: the cache root (fetch/fetch.h: --cache-dir,
                                   $SPSWEEP_CACHE, ~/.cache/spsweep) */
    int no_cache;               /* neither read nor write the cache */
    sp_mm_opts mm;
} sp_load_opts;

/* A loaded workload: a matrix (A), or for a keys: source the key array
 * (keys; A then empty). feat describes either (keys: sp_keys_features). */
typedef struct sp_matrix {
    sp_source src;
    sp_csr A;
    sp_keys keys;
    sp_features feat;
    uint64_t checksum;          /* sp_csr_checksum(&A) */
    int from_cache;             /* 1 when read from the binary cache */
} sp_matrix;

/* The matrix as the results store records it (core/records.h); points
 * into M, which must outlive it. */
static inline sp_matrix_record sp_matrix_identity(const sp_matrix *M)
{
    sp_matrix_record r = {M->src.text, M->src.name, M->checksum, &M->feat};
    return r;
}

/* Read the Matrix Market file mtx and write its binary CSR cache to csr
 * (what the fetcher does once per downloaded matrix). */
int sp_csr_cache_build(const char *mtx, const char *csr, const sp_mm_opts *mm, sp_err *err);

/* The files a file: or suitesparse: source is read from: its Matrix
 * Market file and its binary cache file ("" with opts->no_cache). -1 with
 * the message the load would give when they cannot be named. */
int sp_source_files(const sp_source *src, const sp_load_opts *opts, char *mtx, size_t mlen,
                    char *csr, size_t clen, sp_err *err);

/* What loading a source will take, known before loading it
 * (fetch/load_size.c), for the memory guard: the shape (nnz an upper
 * bound where repeats merge), the bytes of the result that stays (the CSR
 * or the keys) and the most the load holds at once (the result with the
 * generator's or reader's temporaries), and what the numbers come from. */
typedef struct sp_load_size {
    int64_t rows, cols, nnz;    /* keys: n x 1 with n "nonzeros" */
    uint64_t result_bytes, peak_bytes;
    const char *basis;          /* "generator parameters", "cache header", ... */
} sp_load_size;

/* 0 with sz filled; -1 when the size cannot be known beforehand (a file
 * missing, a header unreadable): the load then says why itself. */
int sp_load_size_of(const sp_source *src, const sp_load_opts *opts, sp_load_size *sz);

/* Resolve src to a matrix: generate, or read through the cache. */
int sp_matrix_load(const sp_source *src, const sp_load_opts *opts, sp_matrix *M,
                   sp_err *err);
void sp_matrix_free(sp_matrix *M);
/* The workload kind of a source / of a loaded workload (SP_WL_*, kernel.h). */
int sp_source_workload(const sp_source *src);

#ifdef __cplusplus
}
#endif
#endif
