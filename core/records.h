/*
 * records.h — the plain records the stages hand each other: what a matrix
 * is (its identity and features, computed by fetch/), what a run cost
 * outside its timed kernel (phases, memory needs, stated by kernels/ and
 * the harness), and a kernel's identity as stored. db/ takes these and
 * nothing from fetch/ or kernels/: the results store stands on the ground
 * floor beside them (issue 24).
 */
#ifndef SP_RECORDS_H
#define SP_RECORDS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Features computed at load (fetch/features.c). */
typedef struct sp_features {
    int32_t rows, cols, nnz;
    int32_t row_min, row_max;   /* nonzeros per row */
    double row_mean, row_std;   /* population standard deviation */
    int32_t empty_rows;
    int32_t bandwidth;          /* max |i - j| over stored entries, 0 if nnz = 0 */
    double pattern_symmetry;    /* fraction of off-diagonal entries (i,j) whose
                                   mirror (j,i) is stored; 1 when there are none;
                                   0 for rectangular matrices */
    const char *size_class;     /* "small" <= 1e4 nnz, "medium" <= 1e6,
                                   "large" <= 8e6, "xlarge" above */
    /* what predicts a kernel's rate (fetch/features_layout.c, issue 25;
       all 0 when nnz = 0) */
    int32_t ndiags;             /* distinct diagonals j - i holding an entry: DIA
                                   stores ndiags * rows */
    double ell_fill;            /* ELLPACK's stored entries per nonzero:
                                   rows * row_max / nnz */
    double sell_fill_8;         /* sliced ELLPACK (HLL) with slices of 8 rows: sum
                                   over slices of its rows * its longest row, / nnz */
    double sell_fill_32;        /* the same with slices of 32 rows (a warp) */
    double top1_share;          /* share of the nonzeros in the longest
                                   ceil(rows / 100) rows */
    double col_gap;             /* mean |c_k - c_k-1| of consecutive entries of a
                                   row (rows of 2 or more entries; 0 without) */
    double x_line_new;          /* share of the entries whose x cache line (64 B:
                                   8 doubles, col / 8) differs from the previous
                                   entry's of the row; a row's first entry counts */
} sp_features;

/* A matrix as stored (db/store_run.c sp_store_matrix): fetch/matrix.h
 * sp_matrix_identity makes one from a loaded matrix. */
typedef struct sp_matrix_record {
    const char *source;         /* the source text, as the config names it */
    const char *name;
    uint64_t checksum;          /* XXH3 of the CSR arrays */
    const sp_features *feat;
} sp_matrix_record;

/* Phase timings outside the timed kernel, in seconds (0 where not
 * applicable), taken by the harness around the kernel's own steps: the
 * three timing modes of the transposition studies (kernel only; with
 * allocation and transfers; end to end with the frees) are sums of them. */
typedef struct sp_phases {
    double convert_s;   /* prepare (host conversion) + analyse (device inspection) */
    double h2d_s;       /* upload: device allocation + host->device copies */
    double d2h_s;       /* result of a GPU kernel: device->host copy */
    double free_s;      /* release: host and device memory freed */
} sp_phases;

/* Memory one combination will allocate beyond the problem's own inputs
 * (the CSR matrix, x and the reference), stated before prepare runs:
 * converted formats with their padding, output vectors, work buffers,
 * vendor-library buffers. The runner compares it with free host / device
 * memory and records a skip instead of running out. */
typedef struct sp_need {
    uint64_t host_bytes;
    uint64_t device_bytes;
    /* Padded formats (ELL, HLL, SELL, DIA): the entries the layout stores,
     * padding included, which the runner holds against the sweep's
     * max_fill before any conversion; 0: not a padded layout. */
    uint64_t stored;
} sp_need;

/* A kernel as stored (the runs table's kernel, operation, format, backend
 * and device columns): kernels/kernel.h sp_kernel_identity makes one from
 * a registry entry. */
typedef struct sp_kernel_ident {
    const char *name, *operation, *format, *backend;
    const char *device;         /* "cpu" | "gpu" */
    const char *rate_unit;      /* the operation's ("GFLOPS", "Mkeys/s"); NULL: none */
} sp_kernel_ident;

#ifdef __cplusplus
}
#endif
#endif
