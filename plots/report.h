/*
 * report.h — the report step: charts from the results database.
 *
 * Reads the views of db/views.sql (read-only), writes tab-separated data
 * files and gnuplot scripts into out_dir, runs gnuplot and leaves there:
 *   gflops-<matrix>-cpu.png   rate against threads, one line per CPU kernel
 *   gflops-<matrix>-gpu.png   rate against blocksize, one line per GPU kernel
 *   speedup-<class>-N.png     best speedup of each kernel over the serial kernel,
 *   vendor-<class>-N.png      ... and over the vendor library, per size class
 *   summary-best-N.png        best kernel and axes per matrix, its numbers with their
 *                             95 % intervals, tie or win over the runner-up (table
 *                             pages; .tsv too)
 *   summary-geomean-N.png     geomean speedup of each kernel over its baselines, with
 *                             the geomeans of the intervals' ends as a bound
 *   compare-N.png             with a base database: faster/slower/same per combination
 *   roofline.png              GFLOPS against flops per byte, measured bandwidth roofs,
 *                             error bars over each run's 95 % interval
 *   phases-N.png              GPU runs: conversion, host->device, kernel, device->host,
 *                             release; the kernel's interval and the rounds' spread
 *   OP-NAME[-GROUP]-MATRIX.png  the charts the sweep's config asks for in its
 *                             [chart NAME] sections (report_request.c)
 *   failures-N.png            every run and matrix without a measurement, with why
 *   report.pdf                a provenance title page, then every chart
 *   index.html                the same as one self-contained web page: the
 *                             provenance, every figure as inline SVG (BASE.svg,
 *                             from the same scripts) with the SQL of its data,
 *                             every table sortable, the failures (report_html.c)
 *   report-files.txt          every file this report wrote; the next report into
 *                             out_dir removes them first (report_manifest.c)
 * (operations other than spmv add "-<operation>" after the matrix name).
 */
#ifndef SP_REPORT_H
#define SP_REPORT_H

#include <stdint.h>
#include <stdio.h>
#include "../core/sparse.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sp_report_opts {
    int64_t sweep_id;           /* 0: the latest sweep with successful runs, else the
                                   latest (a sweep without any: title and failures) */
    const char *base_db;        /* compare with this database (NULL: no comparison) */
    int64_t base_sweep_id;      /* its sweep (0: the latest with successful runs) */
    FILE *log;                  /* notes (charts skipped); NULL: none */
} sp_report_opts;

/* The report with a change table against o->base_db when given. */
int sp_report_run(const char *db_path, const char *out_dir, const sp_report_opts *o,
                  sp_err *err);

/* Report on the latest sweep with successful runs (else the latest sweep). */
int sp_report(const char *db_path, const char *out_dir, sp_err *err);

/* Report on sweep_id (0: as sp_report). */
int sp_report_sweep(const char *db_path, int64_t sweep_id, const char *out_dir,
                    sp_err *err);

#ifdef __cplusplus
}
#endif
#endif
