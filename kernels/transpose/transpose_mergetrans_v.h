/*
 * transpose_mergetrans_v.h — the part of MergeTrans (transpose_mergetrans.c)
 * that carries values, once per value type: the includer defines MT_V (the
 * type), MT(name) (the name with the type's suffix), MT_AVAL(s) (A's
 * values in that type) and MT_CVAL(s) (the CSC's), and includes this file
 * once for double and once for float (the `precision` axis: single moves
 * 4 bytes a value through every pass). No include guard, on purpose.
 */

typedef struct MT(triples) {
    int32_t *col, *row;
    MT_V *val;
} MT(triples);

/* The two buffers: b[0] ends in the CSC, b[1] is scratch. */
static void MT(buffers)(sp_transpose_cpu *s, MT(triples) b[2])
{
    size_t nnz = (size_t)s->A->nnz;
    b[1].val = s->work;
    b[1].row = (int32_t *)(b[1].val + nnz);
    b[1].col = b[1].row + nnz;
    b[0].col = b[1].col + nnz;
    b[0].row = s->C.rowidx;
    b[0].val = MT_CVAL(s);
}

/* Stable merge of src[lo, mid) and src[mid, hi) into dst[lo, hi) by column. */
static void MT(merge)(const MT(triples) *src, const MT(triples) *dst, int64_t lo, int64_t mid,
                      int64_t hi)
{
    int64_t a = lo, b = mid, o = lo;
    while (a < mid || b < hi) {
        int64_t f = (a < mid && (b >= hi || src->col[a] <= src->col[b])) ? a++ : b++;
        dst->col[o] = src->col[f];
        dst->row[o] = src->row[f];
        dst->val[o++] = src->val[f];
    }
}

/* Rows [r0, r1) as triples into dst. */
static void MT(copy_in)(const sp_csr *A, const MT_V *val, const MT(triples) *dst, int32_t r0,
                        int32_t r1)
{
    for (int32_t i = r0; i < r1; i++)
        for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            dst->col[k] = A->colidx[k];
            dst->row[k] = i;
            dst->val[k] = val[k];
        }
}

/* Pass `pass` of a stable LSD radix sort by column of positions [lo, hi),
 * src -> dst (same positions). */
static void MT(radix_pass)(const MT(triples) *src, const MT(triples) *dst, int64_t lo, int64_t hi,
                       int pass)
{
    int64_t start[DIGITS] = {0};
    int shift = pass * DIGIT_BITS;
    for (int64_t k = lo; k < hi; k++)
        start[(src->col[k] >> shift) & (DIGITS - 1)]++;
    for (int64_t d = 0, run = lo; d < DIGITS; d++) {
        int64_t n = start[d];
        start[d] = run;
        run += n;
    }
    for (int64_t k = lo; k < hi; k++) {
        int64_t o = start[(src->col[k] >> shift) & (DIGITS - 1)]++;
        dst->col[o] = src->col[k];
        dst->row[o] = src->row[k];
        dst->val[o] = src->val[k];
    }
}

/* One thread's part: copy in, radix passes, tree rounds, pointers. */
static void MT(mergetrans_thread)(sp_transpose_cpu *s, int t, int nt)
{
    const sp_csr *A = s->A;
    MT(triples) b[2];
    MT(buffers)(s, b);
    int local = digit_passes(A->cols), total = local + rounds_for(nt), cur = total % 2;
    int32_t r0 = sp_split_prefix(A->rowptr, A->rows, nt, t);
    int32_t r1 = sp_split_prefix(A->rowptr, A->rows, nt, t + 1);
    MT(copy_in)(A, MT_AVAL(s), &b[cur], r0, r1);
    for (int r = 0; r < local; r++, cur ^= 1)
        MT(radix_pass)(&b[cur], &b[cur ^ 1], A->rowptr[r0], A->rowptr[r1], r);
    for (int step = 1; step < nt; step *= 2, cur ^= 1) {
#pragma omp barrier
        if (t % (2 * step) == 0) {
            int m = t + step < nt ? t + step : nt, e = t + 2 * step < nt ? t + 2 * step : nt;
            MT(merge)(&b[cur], &b[cur ^ 1], A->rowptr[r0],
                  A->rowptr[sp_split_prefix(A->rowptr, A->rows, nt, m)],
                  A->rowptr[sp_split_prefix(A->rowptr, A->rows, nt, e)]);
        }
    }
#pragma omp barrier
    pointers(b[0].col, A->nnz, A->cols, s->C.colptr, sp_split_equal(A->nnz, nt, t),
             sp_split_equal(A->nnz, nt, t + 1), t == nt - 1);
}

