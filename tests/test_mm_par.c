/* test_mm_par.c — the parallel Matrix Market read (fetch/mm_par.c,
 * fetch/mm_par_csr.c) against the serial one on generated files built to
 * stress the CSR build: duplicates in every thread's rows (so every range
 * moves when the gaps close), one dense row among empty ones (the ranges
 * balanced by entries), every symmetry kind, nnz = 0, empty rows, files of
 * many chunks whose lines straddle the split points, at 1..8 threads on
 * whatever cores there are (one thread: the chunked CSR path, which a CSR
 * read takes on one thread too). Same CSR bit for bit (row pointers
 * included) as the serial reader's, same source hash, same COO, or the
 * same error. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "../fetch/matrix.h"

static uint64_t mix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* A coordinate file of n entries: rows drawn by pick (0: uniform, 1: half
 * the entries in row 1 and the rest in the last tenth of the rows, 2:
 * only rows 1..3, so duplicates everywhere); values whose sums depend on
 * the order they are added in. */
static void write_file(const char *path, const char *field, const char *sym, int rows, int n,
                       int pick, uint64_t seed)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    fprintf(f, "%%%%MatrixMarket matrix coordinate %s %s\n%% generated\n%d %d %d\n", field, sym,
            rows, rows, n);
    for (int k = 0; k < n; k++) {
        uint64_t r = mix(&seed);
        int i = (int)(r % (uint64_t)rows) + 1, j = (int)((r >> 24) % (uint64_t)rows) + 1;
        if (pick == 1)
            i = r % 2 ? 1 : rows - (int)((r >> 8) % (uint64_t)(rows / 10 + 1));
        if (pick == 2)
            i = (int)(r % 3) + 1, j = (int)((r >> 8) % 5) + 1;
        if (strcmp(sym, "general") && j > i) {
            int x = i;
            i = j, j = x;
        }
        if (!strcmp(sym, "skew-symmetric") && i == j)
            i < rows ? i++ : j--;    /* no diagonal */
        double v = (r % 2 ? -1.0 : 1.0) * (double)(r >> 40) * 1e-7 * (double)(1 + k % 13);
        if (!strcmp(field, "pattern"))
            fprintf(f, "%d %d\n", i, j);
        else if (!strcmp(field, "integer"))
            fprintf(f, "%d %d %d\n", i, j, (int)(r >> 50) - 8000);
        else
            fprintf(f, "%d %d %.17g\n", i, j, v);
    }
    cr_assert_eq(fclose(f), 0);
}

/* threads = 0: the serial reader (one thread, no body large enough to split). */
static int read_at(const char *path, int threads, sp_csr *A, uint64_t *hash, sp_err *err)
{
    sp_mm_opts o = {.quiet = 1, .threads = threads ? threads : 1,
                    .par_min_body = threads ? 1 : INT64_MAX};
    memset(err, 0, sizeof *err);
    *hash = 0;
    return sp_mm_read(path, &o, A, hash, err);
}

/* Every thread count 1..8 gives what the serial reader gives. */
static void assert_same_at_all_threads(const char *path)
{
    sp_csr S, P;
    sp_err se, pe;
    uint64_t sh, ph;
    int src = read_at(path, 0, &S, &sh, &se);
    cr_assert_eq(sp_mm_last_parse_threads(), 1);
    for (int t = 1; t <= 8; t++) {
        int prc = read_at(path, t, &P, &ph, &pe);
        cr_assert_eq(prc, src, "%s at %d threads: rc %d, serial %d (%s)", path, t, prc, src,
                     pe.msg);
        if (src) {
            cr_assert_str_eq(pe.msg, se.msg, "%s at %d threads", path, t);
            continue;
        }
        cr_assert_eq(sp_mm_last_parse_threads(), t, "%s: the parallel path not taken", path);
        cr_assert(P.rows == S.rows && P.cols == S.cols && P.nnz == S.nnz,
                  "%s at %d threads: %dx%d nnz %d, serial %dx%d nnz %d", path, t, P.rows, P.cols,
                  P.nnz, S.rows, S.cols, S.nnz);
        cr_assert(!memcmp(P.rowptr, S.rowptr, ((size_t)S.rows + 1) * sizeof(int32_t)),
                  "%s at %d threads: row pointers differ", path, t);
        cr_assert(!memcmp(P.colidx, S.colidx, (size_t)S.nnz * sizeof(int32_t)),
                  "%s at %d threads: columns differ", path, t);
        cr_assert(!memcmp(P.val, S.val, (size_t)S.nnz * sizeof(double)),
                  "%s at %d threads: values differ", path, t);
        cr_assert_eq(ph, sh, "%s at %d threads: source hash differs", path, t);
        cr_assert_eq(sp_csr_checksum(&P), sp_csr_checksum(&S));
        sp_csr_free(&P);
    }
    if (!src)
        sp_csr_free(&S);
}

Test(mm_par, duplicates_in_every_range_and_skewed_rows, .timeout = 120)
{
    char dir[256], path[300];
    tu_tempdir(dir, sizeof dir);
    tu_path(path, sizeof path, dir, "m.mtx");
    for (int pick = 0; pick < 3; pick++) {
        /* 4000 rows, 30000 entries: uniform has duplicates in most rows' ranges */
        write_file(path, "real", "general", pick == 0 ? 400 : 4000, 30000, pick, 11 + pick);
        assert_same_at_all_threads(path);
    }
}

Test(mm_par, every_symmetry_and_field, .timeout = 120)
{
    static const char *fields[] = {"real", "integer", "pattern"};
    static const char *syms[] = {"general", "symmetric", "skew-symmetric"};
    char dir[256], path[300];
    tu_tempdir(dir, sizeof dir);
    tu_path(path, sizeof path, dir, "s.mtx");
    for (int f = 0; f < 3; f++)
        for (int y = 0; y < 3; y++) {
            if (f == 2 && y == 2)
                continue;               /* no skew-symmetric pattern files */
            write_file(path, fields[f], syms[y], 997, 6000, 0, (uint64_t)(f * 3 + y));
            assert_same_at_all_threads(path);
        }
}

/* Empty rows (most of them), nnz = 0, a single row, and files whose body
 * is split into more chunks than threads (over 8 MiB: chunks of 2 MiB at
 * most) with lines across every split point. */
Test(mm_par, empty_rows_no_entries_and_many_chunks, .timeout = 240)
{
    char dir[256], path[300];
    tu_tempdir(dir, sizeof dir);
    tu_path(path, sizeof path, dir, "e.mtx");
    write_file(path, "real", "general", 100000, 500, 0, 3);
    assert_same_at_all_threads(path);
    tu_write_file(path, "%%MatrixMarket matrix coordinate real general\n5 7 0\n% nothing\n");
    assert_same_at_all_threads(path);
    tu_write_file(path, "%%MatrixMarket matrix coordinate real general\n0 0 0\n%\n");
    assert_same_at_all_threads(path);
    write_file(path, "real", "general", 1, 2000, 0, 4);
    assert_same_at_all_threads(path);
    write_file(path, "real", "general", 50000, 400000, 0, 5);   /* ~11 MB */
    assert_same_at_all_threads(path);
}

/* 2^20 columns: a row's offset in its block (2^13 to 2^16 rows) and its
 * column do not fit 32 bits together, so the offsets go to their own
 * array (mm_segs.rib); the same CSR as the serial reader's. */
Test(mm_par, wide_matrices_keep_row_offsets_apart, .timeout = 120)
{
    char dir[256], path[300];
    tu_tempdir(dir, sizeof dir);
    tu_path(path, sizeof path, dir, "w.mtx");
    write_file(path, "real", "general", 1 << 20, 100000, 0, 9);
    assert_same_at_all_threads(path);
    write_file(path, "integer", "symmetric", 1 << 20, 60000, 0, 10);
    assert_same_at_all_threads(path);
    write_file(path, "real", "general", 1 << 20, 50000, 2, 11);  /* duplicates, rows 1..3 */
    assert_same_at_all_threads(path);
}

/* Bad lines in a file of many chunks: the serial reader's message. */
Test(mm_par, errors_in_a_many_chunk_file, .timeout = 120)
{
    char dir[256], path[300];
    tu_tempdir(dir, sizeof dir);
    tu_path(path, sizeof path, dir, "b.mtx");
    write_file(path, "real", "general", 30000, 300000, 0, 6);
    FILE *f = fopen(path, "a");
    cr_assert_not_null(f);
    fputs("1 1 2.5\n", f);              /* one entry more than announced */
    fclose(f);
    assert_same_at_all_threads(path);
    sp_csr A;
    sp_err err;
    uint64_t h;
    cr_assert_eq(read_at(path, 4, &A, &h, &err), -1);
    cr_assert(strstr(err.msg, "more entries than the 300000"), "%s", err.msg);
    cr_assert(strstr(err.msg, ":300004:"), "the line after the last entry: %s", err.msg);
}

/* The COO reader at 1..8 threads: the same entries in file order. */
Test(mm_par, coo_in_file_order_at_every_thread_count, .timeout = 120)
{
    char dir[256], path[300];
    tu_tempdir(dir, sizeof dir);
    tu_path(path, sizeof path, dir, "c.mtx");
    write_file(path, "real", "symmetric", 20000, 200000, 0, 8);
    sp_coo S, P;
    sp_err err;
    sp_mm_opts o = {.quiet = 1, .threads = 1, .par_min_body = 1};
    uint64_t sh = 0;
    cr_assert_eq(sp_mm_read_coo(path, &o, &S, &sh, &err), 0, "%s", err.msg);
    for (int t = 2; t <= 8; t++) {
        o.threads = t;
        uint64_t h = 0;
        cr_assert_eq(sp_mm_read_coo(path, &o, &P, &h, &err), 0, "%s", err.msg);
        cr_assert_eq(sp_mm_last_parse_threads(), t);
        cr_assert_eq(P.nnz, S.nnz, "%d threads", t);
        cr_assert(!memcmp(P.row, S.row, (size_t)S.nnz * sizeof(int32_t)) &&
                  !memcmp(P.col, S.col, (size_t)S.nnz * sizeof(int32_t)) &&
                  !memcmp(P.val, S.val, (size_t)S.nnz * sizeof(double)),
                  "%d threads: entries differ", t);
        cr_assert_eq(h, sh, "%d threads: the source hash differs", t);
        sp_coo_free(&P);
    }
    sp_coo_free(&S);
}
