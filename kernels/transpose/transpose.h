/*
 * transpose.h — the transpose operation (CSR -> CSC: column pointer, row
 * indices and values) and what its CPU kernels share.
 *
 * The output, as op->output_bytes lays it out in one buffer:
 *   val[nnz] (double), colptr[cols + 1] (int32), rowidx[nnz] (int32);
 * rows ascending inside each column (a stable transposition), so every
 * kernel's output is identical, entry for entry, to the serial one's.
 *
 *   transpose_op.c          the operation: reference, check, work model
 *   transpose_cpu.c         state, prepare, need, result, release
 *   transpose_serial.c      counting sort over columns (also the reference)
 *   transpose_scantrans.c   ScanTrans (Wang, Liu, Hou, Feng, ICS'16), OpenMP
 *   transpose_mergetrans.c  MergeTrans (same paper), OpenMP
 */
#ifndef SP_TRANSPOSE_H
#define SP_TRANSPOSE_H

#include "../kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const sp_operation sp_op_transpose;

/* Compressed sparse column: colptr[cols + 1], rowidx[nnz], val[nnz]. */
typedef struct sp_csc {
    int32_t rows, cols, nnz;
    int32_t *colptr, *rowidx;
    double *val;
} sp_csc;

/* Bytes of the CSC of A in the operation's layout. */
size_t sp_csc_bytes(const sp_csr *A);
/* Bytes of a CSC of A whose values are vb bytes each (8: the operation's
 * layout; 4: float values, padded to 8 bytes, then colptr, rowidx). */
size_t sp_csc_bytes_vb(const sp_csr *A, size_t vb);
/* C's arrays as views into buf (sp_csc_bytes(A) bytes, 8-byte aligned). */
void sp_csc_view(void *buf, const sp_csr *A, sp_csc *C);

/* C = A^T by a serial counting sort over the columns (C from sp_csc_view;
 * transpose_count.c). The float form moves val (A's values rounded to
 * float) into cval alongside the pattern into colptr and rowidx. */
void sp_transpose_count(const sp_csr *A, sp_csc *C);
void sp_transpose_count_float(const sp_csr *A, const float *val, int32_t *colptr,
                              int32_t *rowidx, float *cval);

/* ---- CPU kernels (transpose_cpu.c) ----------------------------------------
 * The state owns the CSC and the kernel's scratch (work_bytes, sized by
 * the kernel's work function from A, the `threads` axis and the value
 * size). At the `precision` single the kernel moves floats: prepare rounds
 * A's values into val32 (conversion), the CSC's values are cval32 (C.val
 * is NULL), and result widens them to the operation's doubles. */
typedef struct sp_transpose_cpu {
    const sp_csr *A;
    int threads;
    sp_precision prec;
    void *out;              /* sp_csc_bytes_vb(A, value bytes) */
    sp_csc C;               /* views into out (C.val NULL in single) */
    float *val32;           /* single: A's values rounded to float */
    float *cval32;          /* single: the CSC's values, a view into out */
    void *work;             /* work_bytes, 8-byte aligned */
    uint64_t work_bytes;
} sp_transpose_cpu;

/* Scratch a kernel needs for A at `threads` threads with vb-byte values. */
typedef uint64_t (*sp_transpose_work)(const sp_csr *A, int threads, size_t vb);

int sp_transpose_cpu_prepare(const char *who, sp_transpose_work work, const sp_problem *pb,
                             const sp_params *p, void **state, sp_err *err);
int sp_transpose_cpu_need(const char *who, sp_transpose_work work, const sp_problem *pb,
                          const sp_params *p, sp_need *need, sp_err *err);
int sp_transpose_cpu_result(void *state, void *out, const sp_exec *ex, sp_err *err);
void sp_transpose_cpu_release(void *state);

#ifdef __cplusplus
}
#endif
#endif
