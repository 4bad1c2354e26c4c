/*
 * report_impl.h — what the files of plots/ share: the report being built
 * and small helpers. Not part of the public interface (see report.h).
 *
 * Every chart is a base name ("spmv-rate-by-matrix-1") with its files in
 * out_dir: BASE.dat (tab-separated data), BASE.gp (the gnuplot commands
 * that draw it, starting with `reset`, independent of the terminal), and
 * what report.gp draws from them: a figure chart in the paper's sizes,
 * BASE.png and BASE.pdf two columns wide (7 in), BASE-1col.png and
 * BASE-1col.pdf one column wide (3.5 in); a text page (a table) BASE.png
 * at the size of a report page; each once more as a page of report.pdf.
 * Fonts are in points at the size printed (report.c). A chart's script
 * may read the gnuplot variable sp_col: 1 one column, 2 two columns, 0 a
 * page of report.pdf.
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
    int *figure;                /* per chart: 1 figure (paper sizes), 0 text page */
    int nfiles, files_cap;
    char **files;               /* every file written into out_dir (the manifest) */
    int owns_dir;               /* the previous report's files are removed */
    struct rp_html *html;       /* index.html being gathered (report_html.c) */
} rp_report;

/* SQL text turning an axes JSON column into "threads=4,blocksize=128". */
#define AXES_TEXT(col)                                                                  \
    "replace(replace(replace(replace(" col ", '{', ''), '}', ''), '\"', ''), ':', '=')"

/* Record a figure chart (drawn in the paper's sizes; report_html.c, as it
 * also enters the HTML page) / a text page (a table page, drawn at the
 * report page's size; report_util.c) for the PNG pass and the PDF (copies
 * base). rp_chart_record is the list both go into (figure 1 or 0). */
int rp_add_chart(rp_report *r, const char *base, sp_err *err);
int rp_add_page(rp_report *r, const char *base, sp_err *err);
int rp_chart_record(rp_report *r, const char *base, int figure, sp_err *err);
/* 1 when base is already a chart of this report. */
int rp_has_chart(const rp_report *r, const char *base);

/* Open out_dir/name for writing (recording it in the manifest) / close it,
 * checking for write errors (report_manifest.c). */
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
/* The charts' look (report_style.c). At most RP_SERIES series on a chart:
 * line types 1..RP_SERIES are a colour-blind-safe palette (Okabe-Ito)
 * with a point type each, so that a grey print tells them apart too. */
#define RP_SERIES 8
void rp_palette(FILE *f);
/* "reset", the tab separator, "# operation: OP" (a chart draws one
 * operation; NULL: none, a table or the title page) and the title. */
void rp_chart_head(FILE *f, const char *op, const char *title);
/* The key below the plot, outside the data, in rows that fit the width. */
void rp_key_below(FILE *f);
/* A name cut to at most max bytes for a tic or a point label: the head and
 * the tail kept, ".." between ("denserow_rows2..._seed1"). */
void rp_short_name(char *dst, size_t len, const char *name, size_t max);
/* Explicit tics for a log axis ("x", "y") over [lo, hi]: 1, 2, 5 a
 * decade, denser over a narrow range; si: 1k, 2M, ... */
void rp_log_tics(FILE *f, const char *axis, double lo, double hi, int si);
/* "set xlabel" (axis "x", "y", ...) with label and a note under it, each
 * wrapped to the characters a line holds one column wide and two columns
 * wide (the script chooses by sp_col). */
#define RP_LINE_1COL 50
#define RP_LINE_2COL 95
void rp_gp_label(FILE *f, const char *axis, const char *label, const char *note);
/* ... wrapped to other widths (a plot narrowed by long tic labels). */
void rp_gp_label_width(FILE *f, const char *axis, const char *label, const char *note,
                       int width_1col, int width_2col);
/* The operation's name in a title: "SpMV", "transposition", ... */
const char *rp_op_title(const char *op);
/* Copy of a column's text ("" for NULL); NULL only when out of memory. */
char *rp_column_dup(sqlite3_stmt *s, int col);

/* A table (report_table.c): BASE.tsv plus text pages BASE-1, BASE-2, ...
 * (only the columns shown, when set: a 0-terminated list of 1-based column
 * numbers), and on request BASE.csv, BASE.md and BASE.tex (booktabs). */
enum { RP_TABLE_PAGES = 1, RP_TABLE_CSV = 2, RP_TABLE_MD = 4, RP_TABLE_TEX = 8 };
#define RP_TABLE_MAX_COLS 32    /* columns rp_table_query reads */
typedef struct rp_table {
    const char *base, *title;
    int ncols;
    const char *const *head;
    const int *shown;           /* columns on the pages (NULL: all) */
    int formats;                /* RP_TABLE_* beside the .tsv (rp_table_init: pages) */
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

/* The series of one operation's charts (report_series.c): its kernels at
 * their best axis values when it has RP_SERIES or fewer, else its kernel
 * families (format/backend) at their best kernels, at most RP_SERIES of
 * them, the best first (series_best_runs: the mean over the operation's
 * matrices of 1 / ratio, 0 where the series did not run). */
typedef struct rp_series rp_series;
/* "plot" and one clause per series i of s that has a block in dat
 * (blocks[i] >= 0: its gnuplot index; -1: none), drawn `how` ("using 1:2
 * with steps lw 2") in line type i + 1 and titled by its name; no newline,
 * so a chart can add clauses of its own. */
void rp_plot_blocks(FILE *f, const rp_series *s, const char *dat, const int *blocks,
                    const char *how);

typedef struct rp_series {
    const char *op;             /* the operation */
    char file[64];              /* ... as the start of its charts' file names */
    const char *level;          /* "kernel" or "family" (series_best_runs.level) */
    int n;                      /* series drawn */
    char name[RP_SERIES][128];
    int total;                  /* series of that level the operation has */
    int kernels;                /* kernels of the operation */
    int matrices;               /* matrices with an ok run of it */
    char unit[32];              /* its rate unit */
} rp_series;
int rp_series_pick(rp_report *r, const char *op, rp_series *s, sp_err *err);
/* The index of name among the series drawn, -1 if not drawn. */
int rp_series_index(const rp_series *s, const char *name);
/* "drawn: the 8 best of 12 families; the rest in OP-all-runs.tsv" for a
 * note, "" when every series is drawn. */
void rp_series_note(char *buf, size_t len, const rp_series *s);

/* One operation's charts: rate and speedup bars per matrix
 * (report_bars.c), the geomean speedup with its tables (report_geomean.c),
 * rate against nnz and nnz per row, the performance profile
 * (report_scatter.c), the rooflines (report_roofline.c), the GPU phases
 * (report_phases.c), per-matrix rate against the parallel axis in small
 * sweeps (report_rate.c), heatmaps of two tuning axes and every run as a
 * table (report_heatmap.c). */
int rp_rate_bars(rp_report *r, const rp_series *s, sp_err *err);
int rp_speedup_bars(rp_report *r, const rp_series *s, sp_err *err);
int rp_geomean_chart(rp_report *r, const rp_series *s, sp_err *err);
int rp_scatter_charts(rp_report *r, const rp_series *s, sp_err *err);
int rp_profile_chart(rp_report *r, const rp_series *s, sp_err *err);
int rp_roofline_charts(rp_report *r, const rp_series *s, sp_err *err);
int rp_phase_charts(rp_report *r, const char *op, sp_err *err);
int rp_rate_charts(rp_report *r, const rp_series *s, sp_err *err);
int rp_heatmaps(rp_report *r, const rp_series *s, sp_err *err);
int rp_all_runs_table(rp_report *r, const char *op, sp_err *err);
/* The charts the sweep's config asks for, of one operation: its
 * [chart NAME] sections (report_request.c, runner/plan/charts.h). */
int rp_requested_charts(rp_report *r, const char *op, sp_err *err);

/* Summary, failure and comparison tables (report_summary.c, report_compare.c). */
int rp_summary_tables(rp_report *r, sp_err *err);
/* The advice of a `kernels = advised:K` sweep against what it measured
 * (report_advice.c); nothing without advice. */
int rp_advice_table(rp_report *r, sp_err *err);
int rp_failure_table(rp_report *r, sp_err *err);
int rp_compare_table(rp_report *r, sp_err *err);
/* Open r->base_db read-only and resolve r->base_sweep_id (no base: 0). */
int rp_open_base(rp_report *r, sp_err *err);
/* The title page (report_title.c, writes title.gp) and the gnuplot run
 * (report_gnuplot.c). */
int rp_title_page(rp_report *r, sp_err *err);
/* The same provenance as an HTML section, with the whole config text. */
int rp_provenance_html(rp_report *r, FILE *f, sp_err *err);

/* index.html (report_html.c): every figure's SVG with the SQL that made
 * its data, every table sortable, the provenance, the failures.
 * rp_html_begin starts recording the statements r->db (and the base
 * database) run; rp_sql_mark drops those run so far (a chart's own queries
 * start here); rp_html_chart (rp_add_chart calls it for a figure) and
 * rp_html_table (rp_table_emit) take the statements since the last chart,
 * table or mark (a chart without any: those of the chart before it, a
 * later page of the same data); rp_html_write writes the page once gnuplot
 * has drawn the SVGs. */
int rp_html_begin(rp_report *r, sp_err *err);
void rp_sql_mark(rp_report *r);
int rp_html_chart(rp_report *r, const char *base, sp_err *err);
int rp_html_table(rp_report *r, const rp_table *t, sp_err *err);
int rp_html_write(rp_report *r, sp_err *err);
void rp_html_free(rp_report *r);
/* Text escaped for HTML (& < > " '; control characters but tab and
 * newline as spaces; report_util.c: the title page writes it too). */
void rp_html_text(FILE *f, const char *s);
int rp_run_gnuplot(const rp_report *r, const char *script, sp_err *err);

#endif
