/* util_symm.c — the symmetric fast path's test matrices (util_symm.h). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fetch/matrix.h"
#include "../kernels/transpose/transpose.h"
#include "util_symm.h"

void symm_distinct_values(sp_csr *A)
{
    for (int32_t k = 0; k < A->nnz; k++)
        A->val[k] = 1.0 + (double)k / 8.0;
}

enum symm_kind symm_kind_of(const sp_csr *A)
{
    if (A->rows != A->cols)
        return SYMM_RECTANGULAR;
    void *buf = malloc(sp_csc_bytes(A) + 8);
    cr_assert_not_null(buf);
    sp_csc C;
    sp_csc_view(buf, A, &C);
    sp_transpose_count(A, &C);
    bool same = !memcmp(C.colptr, A->rowptr, ((size_t)A->rows + 1) * 4) &&
                !memcmp(C.rowidx, A->colidx, (size_t)A->nnz * 4);
    free(buf);
    return same ? SYMM_SYMMETRIC : SYMM_NOT;
}

static void generate(const char *spec, sp_csr *A)
{
    sp_err err;
    cr_assert_eq(sp_generate(spec, A, &err), 0, "%s: %s", spec, err.msg);
}

static void read_mm(const char *path, sp_csr *A)
{
    sp_err err;
    sp_mm_opts o = {.quiet = 1};
    cr_assert_eq(sp_mm_read(path, &o, A, NULL, &err), 0, "%s: %s", path, err.msg);
}

/* A's triplets into T (room for `extra` more). */
static void to_coo(const sp_csr *A, int64_t extra, sp_coo *T)
{
    sp_err err;
    cr_assert_eq(sp_coo_init(T, A->rows, A->cols, A->nnz + extra, &err), 0, "%s", err.msg);
    for (int32_t i = 0; i < A->rows; i++)
        for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            cr_assert_eq(sp_coo_push(T, i, A->colidx[k], A->val[k], &err), 0);
}

static void from_coo(sp_coo *T, sp_csr *A)
{
    sp_err err;
    cr_assert_eq(sp_csr_from_coo(A, T, &err), 0, "%s", err.msg);
    sp_coo_free(T);
}

static void push(sp_coo *T, int32_t i, int32_t j)
{
    sp_err err;
    cr_assert_eq(sp_coo_push(T, i, j, 1.0, &err), 0, "%s", err.msg);
}

/* Entry (i, j) removed from A, in place (it must be stored). */
static void drop(sp_csr *A, int32_t i, int32_t j)
{
    int32_t k = A->rowptr[i];
    while (k < A->rowptr[i + 1] && A->colidx[k] != j)
        k++;
    cr_assert_lt(k, A->rowptr[i + 1], "(%d, %d) is not stored", i, j);
    memmove(A->colidx + k, A->colidx + k + 1, (size_t)(A->nnz - k - 1) * 4);
    memmove(A->val + k, A->val + k + 1, (size_t)(A->nnz - k - 1) * 8);
    for (int32_t r = i + 1; r <= A->rows; r++)
        A->rowptr[r]--;
    A->nnz--;
}

const char *const symm_larger[4] = {"laplace2d?n=301", "laplace3d?n=23&points=27",
                                    "banded?n=50001&bw=8", "rmat?scale=15&ef=8"};
const char *const symm_larger_small[4] = {"laplace2d?n=101", "laplace3d?n=9&points=27",
                                          "banded?n=5001&bw=8", "rmat?scale=12&ef=8"};

void symm_drop_middle(sp_csr *A)
{
    int32_t r = A->rows / 2, k = A->rowptr[r + 1] - 1;
    cr_assert(k >= A->rowptr[r] && A->colidx[k] > r, "row %d ends on or below the diagonal", r);
    drop(A, r, A->colidx[k]);
}

/* Entry (i, j) added to A (rebuilt through triplets). */
static void add(sp_csr *A, int32_t i, int32_t j)
{
    sp_coo T;
    to_coo(A, 1, &T);
    push(&T, i, j);
    sp_csr_free(A);
    from_coo(&T, A);
}

/* An empty rows x cols matrix with room for cap triplets. */
static void coo(sp_coo *T, int32_t rows, int32_t cols, int64_t cap)
{
    sp_err err;
    cr_assert_eq(sp_coo_init(T, rows, cols, cap, &err), 0, "%s", err.msg);
}

/* The pattern on the multiples of 97 below 20011 (207 indices, every
 * other row and column empty): (a, b) stored when (a/97 + b/97) % 3 == 0
 * or a == b. A tile of 512 positions spans more than 513 rows, so the
 * kernel does not stage them. */
static void sparse_indices(sp_csr *A)
{
    sp_coo T;
    coo(&T, 20011, 20011, 20000);
    for (int32_t a = 0; a < 20011; a += 97)
        for (int32_t b = 0; b < 20011; b += 97)
            if ((a / 97 + b / 97) % 3 == 0 || a == b)
                push(&T, a, b);
    from_coo(&T, A);
}

/* Row 0 and column 0 full, and the diagonal. */
static void arrow(int32_t n, sp_csr *A)
{
    sp_coo T;
    coo(&T, n, n, 3 * (int64_t)n);
    for (int32_t i = 0; i < n; i++) {
        push(&T, 0, i);
        push(&T, i, 0);
        push(&T, i, i);
    }
    from_coo(&T, A);
}

/* B + B^T for B with `per` random entries per row. */
static void random_symmetric(int32_t n, int per, sp_csr *A)
{
    sp_coo T;
    coo(&T, n, n, 2 * (int64_t)n * per);
    uint64_t x = 88172645463325252ull;
    for (int32_t i = 0; i < n; i++)
        for (int e = 0; e < per; e++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            int32_t j = (int32_t)(x % (uint64_t)n);
            push(&T, i, j);
            push(&T, j, i);
        }
    from_coo(&T, A);
}

static void tridiagonal(int32_t n, sp_csr *A)
{
    sp_coo T;
    coo(&T, n, n, 3 * (int64_t)n);
    for (int32_t i = 0; i < n; i++)
        for (int32_t j = i - 1; j <= i + 1; j++)
            if (j >= 0 && j < n)
                push(&T, i, j);
    from_coo(&T, A);
}

static void shape(int32_t rows, int32_t cols, int32_t nnz_diag, sp_csr *A)
{
    sp_coo T;
    coo(&T, rows, cols, nnz_diag + 1);
    for (int32_t i = 0; i < nnz_diag; i++)
        push(&T, i, i);
    from_coo(&T, A);
}

static const struct {
    const char *name;
    enum symm_kind kind;
} cases[] = {
    {"laplace2d", SYMM_SYMMETRIC},
    {"laplace3d, 27 points", SYMM_SYMMETRIC},
    {"laplace3d, 7 points", SYMM_SYMMETRIC},
    {"banded, bw 7", SYMM_SYMMETRIC},
    {"bcsstk06 (real, symmetric)", SYMM_SYMMETRIC},
    {"1138_bus (real, symmetric)", SYMM_SYMMETRIC},
    {"diagonal 5000", SYMM_SYMMETRIC},
    {"1 x 1, one entry", SYMM_SYMMETRIC},
    {"1 x 1, nnz = 0", SYMM_SYMMETRIC},
    {"0 x 0", SYMM_SYMMETRIC},
    {"300 x 300, nnz = 0", SYMM_SYMMETRIC},
    {"multiples of 97 in 20011 (empty rows and columns between)", SYMM_SYMMETRIC},
    {"arrow 3000: row 0 and column 0 full", SYMM_SYMMETRIC},
    {"random B + B^T, 3001", SYMM_SYMMETRIC},
    {"rmat 12", SYMM_NOT},
    {"uniform 4001 x 4001", SYMM_NOT},
    {"laplace2d, one mirror missing in the middle", SYMM_NOT},
    {"tridiagonal 1000, the last entry's mirror missing", SYMM_NOT},
    {"tridiagonal 1000, the first entry's mirror missing", SYMM_NOT},
    {"laplace2d plus (0, last column)", SYMM_NOT},
    {"olm1000 (real, not symmetric)", SYMM_NOT},
    {"wide 37 x 1000", SYMM_RECTANGULAR},
    {"tall 1000 x 37", SYMM_RECTANGULAR},
    {"diagonal 5000 x 5001", SYMM_RECTANGULAR},
};

int symm_case_count(void)
{
    return (int)(sizeof cases / sizeof *cases);
}

void symm_case_build(int i, int small, symm_case *c)
{
    cr_assert(i >= 0 && i < symm_case_count(), "no symmetric case %d", i);
    c->name = cases[i].name;
    c->kind = cases[i].kind;
    sp_csr *A = &c->A;
    int32_t n2 = small ? 51 : 101;
    char spec[96];
    switch (i) {
    case 0: case 16: case 19:
        snprintf(spec, sizeof spec, "laplace2d?n=%d", n2);
        generate(spec, A);
        if (i == 16)
            drop(A, A->rows / 2, A->rows / 2 + n2);
        if (i == 19)
            add(A, 0, A->cols - 1);
        break;
    case 1:
        generate(small ? "laplace3d?n=9&points=27" : "laplace3d?n=14&points=27", A);
        break;
    case 2:
        generate(small ? "laplace3d?n=11&points=7" : "laplace3d?n=17&points=7", A);
        break;
    case 3:
        generate(small ? "banded?n=2001&bw=7" : "banded?n=5001&bw=7", A);
        break;
    case 4:
        read_mm("tests/data/ss/bcsstk06.mtx.gz", A);
        break;
    case 5:
        read_mm("tests/data/mm/ss_1138_bus.mtx.gz", A);
        break;
    case 6:
        shape(5000, 5000, 5000, A);
        break;
    case 7:
        shape(1, 1, 1, A);
        break;
    case 8:
        shape(1, 1, 0, A);
        break;
    case 9:
        shape(0, 0, 0, A);
        break;
    case 10:
        shape(300, 300, 0, A);
        break;
    case 11:
        sparse_indices(A);
        break;
    case 12:
        arrow(3000, A);
        break;
    case 13:
        random_symmetric(3001, 3, A);
        break;
    case 14:
        generate("rmat?scale=12&ef=8", A);
        break;
    case 15:
        generate("uniform?rows=4001&cols=4001&per_row=9&seed=2", A);
        break;
    case 17:
        tridiagonal(1000, A);
        drop(A, 999, 999);
        drop(A, 998, 999);
        break;
    case 18:
        tridiagonal(1000, A);
        drop(A, 0, 0);
        drop(A, 1, 0);
        break;
    case 20:
        read_mm("tests/data/ss/olm1000.mtx.gz", A);
        break;
    case 21:
        generate("uniform?rows=37&cols=1000&per_row=20&seed=4", A);
        break;
    case 22:
        generate("uniform?rows=1000&cols=37&per_row=4&seed=5", A);
        break;
    case 23:
        shape(5000, 5001, 5000, A);
        break;
    }
    symm_distinct_values(A);
    sp_err err;
    cr_assert_eq(sp_csr_validate(A, &err), 0, "%s: %s", c->name, err.msg);
    cr_assert_eq(symm_kind_of(A), c->kind, "%s: built as kind %d", c->name, c->kind);
}

void symm_case_free(symm_case *c)
{
    sp_csr_free(&c->A);
}
