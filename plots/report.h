/*
 * report.h — the report step: charts from the results database.
 *
 * Reads the views of db/views.sql (read-only), writes tab-separated data
 * files and gnuplot scripts into out_dir, runs gnuplot and leaves there:
 *   gflops-<matrix>-cpu.png   rate against threads, one line per CPU kernel
 *   gflops-<matrix>-gpu.png   rate against blocksize, one line per GPU kernel
 *   speedup.png               best speedup of each kernel over spmv_csr_serial
 *   report.pdf                a provenance title page, then every chart
 * (operations other than spmv add "-<operation>" after the matrix name).
 */
#ifndef SP_REPORT_H
#define SP_REPORT_H

#include <stdint.h>
#include "../kernels/sparse.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Report on the latest sweep with successful runs. */
int sp_report(const char *db_path, const char *out_dir, sp_err *err);

/* Report on sweep_id (0 = the latest sweep with successful runs). */
int sp_report_sweep(const char *db_path, int64_t sweep_id, const char *out_dir,
                    sp_err *err);

#ifdef __cplusplus
}
#endif
#endif
