/*
 * sell.h — sliced ELLPACK (HLL / SELL) on the host: the format the GPU
 * HLL kernels and cuSPARSE's SELL read, built from CSR. ELL is the one-slice
 * case (hack = rows).
 *
 * Rows are cut into slices of `hack` rows (the last slice padded with empty
 * rows up to hack); each slice is as wide as its longest row and holds
 * hack × width entries from offset[s]. Padding has column -1 and value 0
 * (cuSPARSE's convention) and always follows a row's real entries.
 * Column-major inside a slice (entry k of row r at offset[s] + k·hack + r)
 * gives coalesced loads, one thread per row: "HLL-aligned", cuSPARSE SELL,
 * ELL. Row-major (offset[s] + r·width + k) is the plain HLL layout.
 */
#ifndef SP_SELL_H
#define SP_SELL_H

#include "sparse.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A slice may store at most this many entries per nonzero of the matrix
 * (floor SP_SELL_MIN_LIMIT entries), and never more than INT32_MAX in all
 * (offsets are 32-bit, as cuSPARSE takes them): past that the padding,
 * not the matrix, would be measured, so the format is refused. */
#define SP_SELL_MAX_FILL 64
#define SP_SELL_MIN_LIMIT (1 << 20)

typedef struct sp_sell {
    int32_t rows, cols, nnz;
    int32_t hack;           /* rows per slice */
    int32_t nslices;        /* ceil(rows / hack) */
    int col_major;          /* 1: column-major inside each slice */
    int64_t stored;         /* entries including padding = offset[nslices] */
    int32_t *offset;        /* nslices + 1 */
    int32_t *col;           /* stored; -1 for padding */
    double *val;            /* stored; 0 for padding */
} sp_sell;

/* Entries (padding included) a sliced ELL of A with `hack` rows per slice
 * would store, into *stored; -1 with the reason when that exceeds the limits
 * above (`what` names the format in the message: "ELL", "HLL"). */
int sp_sell_size(const sp_csr *A, int32_t hack, const char *what, int64_t *stored,
                 sp_err *err);

/* Build S from A (OpenMP over slices). hack = 0 means one slice of all the
 * rows (ELL). -1 with the reason on refusal or out of memory. */
int sp_sell_from_csr(sp_sell *S, const sp_csr *A, int32_t hack, int col_major,
                     const char *what, sp_err *err);
void sp_sell_free(sp_sell *S);

#ifdef __cplusplus
}
#endif
#endif
