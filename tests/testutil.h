/* testutil.h — helpers shared by the Criterion tests. */
#ifndef SP_TESTUTIL_H
#define SP_TESTUTIL_H

#include <stddef.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include "../core/sparse.h"

/* A fresh directory under $TMPDIR (or /tmp), unique per call; the path is
 * written into buf. Aborts the test on failure. */
void tu_tempdir(char *buf, size_t len);
/* buf = dir + "/" + name */
void tu_path(char *buf, size_t len, const char *dir, const char *name);
/* Write text to a file. */
void tu_write_file(const char *path, const char *text);
/* The test data directory (tests/data), absolute. */
const char *tu_datadir(void);
/* Path of the spsweep binary to test: $SPSWEEP_BIN or bin/spsweep. */
const char *tu_spsweep_bin(void);
/* Run "<spsweep binary> ARGS" through the shell with stderr merged; the
 * exit status (128 when killed) and the output in a malloc'd string. */
int tu_run_spsweep(const char *args, char **out);
/* Inflate the gzip file gz into out (aborts the test on failure). */
void tu_gunzip(const char *gz, const char *out);
/* Dense copy of A (rows x cols, row-major), caller frees. */
double *tu_dense(const sp_csr *A);

/* A kernel driven through the harness exactly as the runner drives it
 * (runner/exec/harness.h: the harness times every phase):
 *   tu_run r;
 *   tu_run_prepare(&r, k, pb, params, &err)   harness opened (warm), then
 *                                             prepare, upload, analyse
 *   tu_run_launch(&r, &seconds, &err)         one sample of one launch
 *                                             (reset first when k has one)
 *   tu_run_result(&r, out, &err)              the result into out
 *   tu_run_end(&r)                            release (state may be NULL)
 *                                             and the harness closed
 * r.state is the kernel's state, r.ph the phases timed so far. Each
 * returns 0, or -1 with the reason in err; tu_run_end is needed after a
 * failed prepare too. */
#include "../runner/exec/harness.h"
typedef struct tu_run {
    sp_harness h;
    void *state;
    sp_phases ph;
    int open;
} tu_run;
int tu_run_prepare(tu_run *r, const sp_kernel *k, const sp_problem *pb, const sp_params *p,
                   sp_err *err);
int tu_run_launch(tu_run *r, double *seconds, sp_err *err);
int tu_run_result(tu_run *r, void *out, sp_err *err);
void tu_run_end(tu_run *r);

/* One execution of kernel k on state through a harness of its own, as the
 * runner times it: a sample of one launch, reset first when k has a reset.
 * Returns 0 and the launch's seconds in *seconds, or -1 with the reason in
 * err. */
int tu_launch_timed(const sp_kernel *k, void *state, double *seconds, sp_err *err);

/* Busy-wait `seconds` of CLOCK_MONOTONIC: a kernel of known length. */
void tu_spin(double seconds);

/* Send this process's stderr into a file of dir until tu_stderr_end, which
 * restores it and returns what was written (malloc'd): a test whose code
 * warns on stderr checks the warning instead of printing it. */
void tu_stderr_begin(const char *dir);
char *tu_stderr_end(void);

/* `spsweep sweep CFG --db DB --quiet` with an optional environment
 * assignment in front (env may be NULL), its output discarded; the exit
 * status as the shell reports it (128 + signal when killed). */
int tu_sweep_cli(const char *env, const char *cfg, const char *db);

/* The whole file at path, NUL-terminated, malloc'd; *len its size (len
 * may be NULL). Asserts that it can be read. */
char *tu_slurp(const char *path, size_t *len);

/* The indices 0 .. n - 1 (n <= 256) as the parameters of a Criterion
 * ParameterizedTest: a test per variant, kernel or case of a table, so
 * --jobs spreads them and a failure names its index. */
struct criterion_test_params tu_index_params(int n);

/* A (rows x cols) from the nnz (row, col) pairs ij, listed row by row with
 * columns sorted; every value 1; asserts the result is a valid CSR. */
void tu_csr_from_pairs(sp_csr *A, int32_t rows, int32_t cols, int32_t nnz,
                       const int32_t (*ij)[2]);

#endif
