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

#endif
