/*
 * report_impl.h — what the files of plots/ share: the report being built
 * and small helpers. Not part of the public interface (see report.h).
 *
 * Every chart is a base name ("gflops-laplace-cpu") with three files in
 * out_dir: BASE.dat (tab-separated data), BASE.gp (the gnuplot commands
 * that draw it, starting with `reset`) and BASE.png; report.gp draws each
 * chart once into its PNG and once more as a page of report.pdf.
 */
#ifndef SP_REPORT_IMPL_H
#define SP_REPORT_IMPL_H

#include <sqlite3.h>
#include <stdio.h>
#include "report.h"

typedef struct rp_report {
    struct sp_store *store;     /* opened by sp_store_open_readonly */
    sqlite3 *db;                /* its connection: read-only, TEMP views */
    const char *db_path;
    const char *out_dir;
    int64_t sweep_id;
    int64_t ok_runs;            /* successful runs of the sweep (0: failures only) */
    FILE *log;                  /* notes, or NULL */
    const char *base_db;        /* comparison database, or NULL */
    struct sp_store *base_store;    /* it, opened read-only (report_compare.c) */
    int64_t base_sweep_id;      /* its sweep (0 = latest with ok runs) */
    int ncharts, cap;
    char **charts;              /* base names, in page order */
    int nfiles, files_cap;
    char **files;               /* every file written into out_dir (the manifest) */
    int owns_dir;               /* the previous report's files are removed */
} rp_report;

/* SQL text turning an axes JSON column into "threads=4,blocksize=128". */
#define AXES_TEXT(col)                                                                  \
    "replace(replace(replace(replace(" col ", '{', ''), '}', ''), '\"', ''), ':', '=')"

/* Record a chart for the PNG pass and the PDF (copies base). */
int rp_add_chart(rp_report *r, const char *base, sp_err *err);
/* 1 when base is already a chart of this report. */
int rp_has_chart(const rp_report *r, const char *base);

/* Open out_dir/name for writing (recording it in the manifest) / close it,
 * checking for write errors. */
FILE *rp_create(rp_report *r, const char *name, sp_err *err);
int rp_finish(FILE *f, const rp_report *r, const char *name, sp_err *err);

/* The files of the report in out_dir (report_manifest.c): record one,
 * remove those of the previous report, write the list for the next. */
int rp_manifest_add(rp_report *r, const char *name, sp_err *err);
int rp_manifest_clear(const rp_report *r, sp_err *err);
int rp_manifest_write(rp_report *r, sp_err *err);

/* "DB: what: sqlite message". */
int rp_db_fail(const rp_report *r, sp_err *err, const char *what);
/* Copy src keeping [A-Za-z0-9_.-], every other byte becoming '_'. */
void rp_sanitize(char *dst, size_t len, const char *src);
/* Where a name (matrix, kernel, unit, title, file) goes in gnuplot's
 * input; rp_gp_name escapes it for that place, and every name that reaches
 * gnuplot goes through it. */
typedef enum {
    RP_GP_STRING,   /* a single-quoted string: title, label, key entry, file name */
    RP_GP_TIC,      /* a single-quoted explicit tic label (read as a format) */
    RP_GP_DATA,     /* a field or comment of a tab-separated .dat file */
} rp_gp_where;
void rp_gp_name(FILE *f, const char *s, rp_gp_where where);
/* Axis values as text: {"hack":32,"x":1} -> "hack=32 x=1"; "" for {}. */
void rp_axes_text(char *dst, size_t len, const char *json);
/* Distinct colours for up to 24 series (gnuplot's default cycles 8). */
void rp_palette(FILE *f);
/* Copy of a column's text ("" for NULL); NULL only when out of memory. */
char *rp_column_dup(sqlite3_stmt *s, int col);

/* A table (report_table.c): BASE.tsv plus text pages BASE-1, BASE-2, ... */
typedef struct rp_table {
    const char *base, *title;
    int ncols;
    const char *const *head;
    int nrows, cap;
    char **cell;                /* nrows x ncols, row-major */
} rp_table;
int rp_table_init(rp_table *t, const char *base, const char *title, int ncols,
                  const char *const *head);
int rp_table_add(rp_table *t, const char *const *cells, sp_err *err);
int rp_table_query(rp_table *t, sqlite3_stmt *s, const rp_report *r, sp_err *err);
int rp_table_emit(rp_report *r, const rp_table *t, sp_err *err);
void rp_table_free(rp_table *t);
/* Pages a table of nrows rows takes. */
int rp_table_pages(int nrows);

/* SQL functions rp_measure(v, lo, hi, unit) and rp_ratio(v, lo, hi) on
 * r->db: a number with its interval as table text (report_format.c). */
int rp_register_formats(rp_report *r, sp_err *err);

/* Summary, failure and comparison tables (report_summary.c, report_compare.c). */
int rp_summary_tables(rp_report *r, sp_err *err);
int rp_failure_table(rp_report *r, sp_err *err);
int rp_compare_table(rp_report *r, sp_err *err);
/* Open r->base_db read-only and resolve r->base_sweep_id (no base: 0). */
int rp_open_base(rp_report *r, sp_err *err);
/* Stacked phase bars of the GPU runs (report_phases.c). */
int rp_phase_charts(rp_report *r, sp_err *err);
/* GFLOPS against arithmetic intensity with the measured roofs (report_roofline.c). */
int rp_roofline_chart(rp_report *r, sp_err *err);

/* The charts (report_rate.c, report_speedup.c), the title page
 * (report_title.c, writes title.gp) and the gnuplot run (report_gnuplot.c). */
int rp_rate_charts(rp_report *r, sp_err *err);
int rp_speedup_chart(rp_report *r, sp_err *err);
int rp_title_page(rp_report *r, sp_err *err);
int rp_run_gnuplot(const rp_report *r, const char *script, sp_err *err);

#endif
