/* testutil.h — helpers shared by the Criterion tests. */
#ifndef SP_TESTUTIL_H
#define SP_TESTUTIL_H

#include <stddef.h>
#include "../kernels/sparse.h"

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

/* One execution of kernel k on state through the harness, as the runner
 * times it (runner/harness.h): a sample of one launch, reset first when k
 * has a reset. Returns 0 and the launch's seconds in *seconds, or -1 with
 * the reason in err. */
struct sp_kernel;
int tu_launch_timed(const struct sp_kernel *k, void *state, double *seconds, sp_err *err);

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

#endif
