/* test_precision_series.c — a sweep in both precisions (issue 22 item 1):
 * each run stored with its precision, the byte model counting the run's
 * value size (4 bytes a value in single), each precision a series of its
 * own in the views (" (single)") and so in the report's charts. CPU
 * kernels, so it runs without a GPU. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "util_db.h"

Test(precision_series, single_runs_have_their_bytes_and_their_series, .timeout = 120)
{
    char dir[256], cfg[400], db[400], out[400];
    tu_tempdir(dir, sizeof dir);
    tu_path(cfg, sizeof cfg, dir, "p.ini");
    tu_path(db, sizeof db, dir, "p.db");
    tu_path(out, sizeof out, dir, "report");
    tu_write_file(cfg, "[sweep]\nrepetitions = 5\nwarmup = 1\n"
                       "[matrices]\nsource = gen:laplace2d?n=60\n"
                       "[kernel transpose_serial]\nprecision = double,single\n"
                       "[kernel transpose_scantrans]\nthreads = 1\n");
    cr_assert_eq(tu_sweep_cli(NULL, cfg, db), 0);
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM runs WHERE status = 'ok'"), 3);
    /* laplace2d n=60: 3600 rows, 17760 nonzeros; 2 · nnz · (v + 4) + the
     * two pointers' (3601 + 3601) · 4 */
    int64_t nnz = ud_file_int(db, "SELECT nnz FROM matrices");
    int64_t ptrs = 2 * 3601 * 4;
    cr_assert_eq(ud_file_int(db, "SELECT bytes FROM runs WHERE kernel = 'transpose_serial' AND "
                                 "json_extract(axes, '$.precision') = 'double'"),
                 2 * nnz * 12 + ptrs);
    cr_assert_eq(ud_file_int(db, "SELECT bytes FROM runs WHERE kernel = 'transpose_serial' AND "
                                 "json_extract(axes, '$.precision') = 'single'"),
                 2 * nnz * 8 + ptrs, "a single run moves 4-byte values");
    cr_assert_eq(ud_file_int(db, "SELECT bytes FROM runs WHERE kernel = 'transpose_scantrans'"),
                 2 * nnz * 12 + ptrs, "no precision axis set: double");
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM series_best_runs WHERE level = 'kernel' "
                                 "AND series = 'transpose_serial (single)' AND "
                                 "kernel = 'transpose_serial'"), 1);
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM series_best_runs WHERE level = 'kernel' "
                                 "AND series = 'transpose_serial'"), 1, "double its own series");
    cr_assert_eq(ud_file_int(db, "SELECT count(*) FROM series_best_runs WHERE level = 'family' "
                                 "AND series LIKE '% (single)'"), 1);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "report --db '%s' --out '%s'", db, out);
    char *log = NULL;
    cr_assert_eq(tu_run_spsweep(cmd, &log), 0, "%s", log ? log : "");
    free(log);
    char dat[500];
    tu_path(dat, sizeof dat, out, "transpose-rate-by-matrix-1.dat");
    size_t len = 0;
    char *t = tu_slurp(dat, &len);
    cr_assert_not_null(t, "%s", dat);
    cr_assert(strstr(t, "transpose_serial (single)") || strstr(t, "csc/serial (single)"),
              "the chart's series: %s", t);
    free(t);
}
