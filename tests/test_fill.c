/* test_fill.c — the fill limit for padded layouts (`max_fill`, issue 21):
 * every padded kernel states the entries its layout stores; a sweep skips
 * a combination whose layout would store more than max_fill times the
 * matrix's entries, with the reason, before any conversion; `none` and a
 * kernel section's own limit override [sweep]'s; bad values are refused
 * with the key named. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "../kernels/kernel.h"
#include "../runner/runner.h"
#include "testutil.h"
#include "util_db.h"

/* A 64 x 64 matrix: a diagonal plus one row of 64 entries (row 5). */
static sp_csr one_dense_row(int32_t *rowptr, int32_t *col, double *val)
{
    int32_t n = 64, k = 0;
    for (int32_t i = 0; i < n; i++) {
        rowptr[i] = k;
        for (int32_t j = 0; j < n; j++)
            if (i == 5 || j == i)
                col[k] = j, val[k++] = 1.0;
    }
    rowptr[n] = k;
    return (sp_csr){.rows = n, .cols = n, .nnz = k, .rowptr = rowptr, .colidx = col, .val = val};
}

/* Every padded layout states what it stores: at least the entries, and
 * for this matrix with one row of 64 the ELL stores 64 x 64. */
Test(fill, padded_kernels_state_their_stored_entries)
{
    int32_t rowptr[65], col[64 * 2];
    double val[64 * 2];
    sp_csr A = one_dense_row(rowptr, col, val);
    double x[64];
    for (int i = 0; i < 64; i++)
        x[i] = 1.0;
    sp_problem pb = {.A = &A, .x = x};
    struct {
        const char *kernel;
        long hack;
        uint64_t at_least;
    } want[] = {{"spmv_ell_serial", 0, 64 * 64}, {"spmv_hll_serial", 32, (uint64_t)A.nnz},
                {"spmv_dia_serial", 0, 64 * 64}, {"spmv_ell_cuda", 0, 64 * 64},
                {"spmv_hll_cuda_warp", 32, (uint64_t)A.nnz}, {"spmv_dia_cuda", 0, 64 * 64},
                {"spmv_sell_cuda", 32, (uint64_t)A.nnz}};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        const sp_kernel *k = sp_kernel_find(want[i].kernel);
        cr_assert_not_null(k, "%s", want[i].kernel);
        sp_params p = {0};
        for (int a = 0; a < k->naxes; a++) {
            p.name[p.n] = k->axes[a].name;
            p.value[p.n++] = !strcmp(k->axes[a].name, "hack") ? want[i].hack
                             : !strcmp(k->axes[a].name, "threads") ? 1
                             : !strcmp(k->axes[a].name, "blocksize") ? 128 : 1;
        }
        sp_need need = {0};
        sp_err err;
        cr_assert_eq(k->need(&pb, &p, &need, &err), 0, "%s: %s", k->name, err.msg);
        cr_assert_geq(need.stored, want[i].at_least, "%s stores %llu", k->name,
                      (unsigned long long)need.stored);
    }
    sp_need need = {0};
    sp_err err;
    sp_params none = {0};
    const sp_kernel *csr = sp_kernel_find("spmv_csr_serial");
    cr_assert(!csr->need || csr->need(&pb, &none, &need, &err) == 0);
    cr_assert_eq(need.stored, 0, "CSR is not a padded layout");
}

static void sweep_config(const char *dir, const char *sweep_extra, const char *dia_extra,
                         char *cfg, size_t len)
{
    char text[1024];
    snprintf(text, sizeof text,
             "[sweep]\nrepetitions = 3\nwarmup = 0\n%s\n"
             "[matrices]\nsource = gen:uniform?rows=3000&per_row=4&seed=3\n"
             "source = gen:banded?n=3000&bw=2\n"
             "[kernel spmv_dia_serial]\n%s\n[kernel spmv_csr_serial]\n",
             sweep_extra, dia_extra);
    tu_path(cfg, len, dir, "fill.ini");
    tu_write_file(cfg, text);
}

/* DIA of a random matrix (thousands of diagonals) is skipped with the
 * reason; DIA of a band is run; `none` runs both. */
Test(fill, sweep_skips_layouts_above_max_fill_with_the_reason, .timeout = 120)
{
    char dir[256], cfg[300], db[300];
    tu_tempdir(dir, sizeof dir);
    sweep_config(dir, "", "", cfg, sizeof cfg);
    tu_path(db, sizeof db, dir, "a.db");
    cr_assert_eq(tu_sweep_cli(NULL, cfg, db), 0);
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM runs WHERE kernel = 'spmv_dia_serial' AND "
                                 "status = 'skipped' AND error LIKE '%above max_fill = 10%'"), 1);
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM runs r JOIN matrices m ON m.id = "
                                 "r.matrix_id WHERE r.kernel = 'spmv_dia_serial' AND r.status = 'ok' "
                                 "AND m.name LIKE 'banded%'"), 1);
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM runs WHERE status = 'ok'"), 3);

    sweep_config(dir, "", "max_fill = none", cfg, sizeof cfg);
    tu_path(db, sizeof db, dir, "b.db");
    cr_assert_eq(tu_sweep_cli(NULL, cfg, db), 0);
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM runs WHERE status = 'ok'"), 4,
                 "the kernel's own max_fill = none overrides [sweep]'s");

    /* [sweep]'s limit applies to every padded kernel: a band of 5
     * diagonals stores a little more than its entries (the corners). */
    sweep_config(dir, "max_fill = 1", "", cfg, sizeof cfg);
    tu_path(db, sizeof db, dir, "c.db");
    cr_assert_eq(tu_sweep_cli(NULL, cfg, db), 0);
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM runs WHERE status = 'skipped' AND "
                                 "error LIKE '%above max_fill = 1 (%'"), 2);
}

/* A bad max_fill is refused with the key and the value named. */
Test(fill, bad_values_are_refused)
{
    const char *bad[] = {"0", "0.5", "-3", "lots", ""};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        double f = 7;
        sp_err err;
        cr_assert_eq(sp_parse_max_fill(bad[i], &f, &err), -1, "'%s'", bad[i]);
        cr_assert_not_null(strstr(err.msg, "max_fill"), "%s", err.msg);
        cr_assert_eq(f, 7, "unchanged on error");
    }
    double f = 0;
    sp_err err;
    cr_assert_eq(sp_parse_max_fill("2.5", &f, &err), 0);
    cr_assert_float_eq(f, 2.5, 1e-15);
    cr_assert_eq(sp_parse_max_fill("none", &f, &err), 0);
    cr_assert_eq(f, 0);
}
