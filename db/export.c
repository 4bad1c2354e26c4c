/*
 * export.c — `spsweep export --csv|--json|--markdown [--sweep ID] [--what
 * NAME]`: one view or table of one sweep (default: run_stats of the latest
 * sweep) on stdout, rendered by SQLite itself:
 *   JSON — the whole document is one SQL value, json_group_array of
 *          json_object(column, value, ...) over the rows, so numbers, NULLs
 *          and escaping are SQLite's JSON functions' own; the JSON-valued
 *          columns (axes, kernel_info, state_before, state_after) go in as
 *          JSON objects, not as strings holding JSON;
 *   Markdown — a GitHub-flavoured table: a header row, an alignment row
 *          (numbers right-aligned), one row per result row; reals with 6
 *          significant digits, NULL as an empty cell, '|' and '\' escaped,
 *          line breaks as <br>;
 *   CSV  — RFC 4180 as the sqlite3 shell's `.mode csv` writes it: a header
 *          row, every value as SQLite converts it to text (reals with 15
 *          significant digits, as the shell and the JSON functions print
 *          them), NULL as an empty field, fields with a comma, quote, CR or
 *          LF quoted with quotes doubled.
 * NAME comes from a fixed list (never pasted into SQL from the user). The
 * database is opened read-only (sp_store_open_readonly): exporting never
 * writes it, so an archived or shared file without write permission works.
 * Google Benchmark's JSON (--gbench) is export_gbench.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "store_impl.h"

typedef struct export_source {
    const char *name;
    const char *sql;            /* ?1 = sweep id */
} export_source;

static const export_source sources[] = {
    {"run_stats", "SELECT * FROM run_stats WHERE sweep_id = ?1 ORDER BY run_id"},
    {"runs", "SELECT * FROM runs WHERE sweep_id = ?1 ORDER BY id"},
    {"samples", "SELECT s.run_id, s.rep, s.seconds FROM samples s JOIN runs r ON"
                " r.id = s.run_id WHERE r.sweep_id = ?1 ORDER BY s.run_id, s.rep"},
    {"speedup", "SELECT * FROM speedup WHERE sweep_id = ?1 ORDER BY run_id"},
    {"best_runs", "SELECT * FROM best_runs WHERE sweep_id = ?1 ORDER BY matrix_id, operation"},
    {"run_modes", "SELECT * FROM run_modes WHERE sweep_id = ?1 ORDER BY run_id, mode"},
    {"failures", "SELECT * FROM failures WHERE sweep_id = ?1"},
    {"matrices", "SELECT * FROM matrices WHERE id IN (SELECT matrix_id FROM runs"
                 " WHERE sweep_id = ?1) ORDER BY id"},
    {"sweeps", "SELECT * FROM sweeps WHERE id = ?1"},
    {"advise_rates", "SELECT * FROM advise_rates WHERE sweep_id = ?1"
                     " ORDER BY matrix_id, operation, device, precision, place"},
    {"advice_outcome", "SELECT * FROM advice_outcome WHERE sweep_id = ?1 ORDER BY matrix"},
};

/* Write one CSV field the way the sqlite3 shell does. */
static void csv_field(FILE *out, const char *v)
{
    if (!v)
        return;
    if (!strpbrk(v, ",\"\r\n")) {
        fputs(v, out);
        return;
    }
    fputc('"', out);
    for (; *v; v++) {
        if (*v == '"')
            fputc('"', out);
        fputc(*v, out);
    }
    fputc('"', out);
}

/* Header, then every row of s. */
static int write_csv(sp_store *st, sqlite3_stmt *s, FILE *out, sp_err *err)
{
    int n = sqlite3_column_count(s), step;
    for (int c = 0; c < n; c++) {
        csv_field(out, sqlite3_column_name(s, c));
        fputs(c + 1 < n ? "," : "\r\n", out);
    }
    while ((step = sqlite3_step(s)) == SQLITE_ROW)
        for (int c = 0; c < n; c++) {
            csv_field(out, (const char *)sqlite3_column_text(s, c));
            fputs(c + 1 < n ? "," : "\r\n", out);
        }
    return step == SQLITE_DONE ? 0 : store_fail(st, err, "reading the export");
}

/* Is the column `name` JSON text (a column the schema checks with
 * json_valid, or a view's copy of one)? Those are exported as JSON values. */
static int json_column(const char *name)
{
    static const char *const cols[] = {"axes", "kernel_info", "state_before", "state_after"};
    for (size_t i = 0; i < sizeof cols / sizeof *cols; i++)
        if (!strcmp(cols[i], name))
            return 1;
    return 0;
}

/* SQL that renders the rows of `inner` (whose columns s describes) as one
 * JSON array, or NULL (out of memory). sqlite3_free the result. A JSON
 * column's text goes through json() right inside json_object, which then
 * embeds it as JSON (text that is not valid JSON stays a string). */
static char *json_sql(sqlite3_stmt *s, const char *inner)
{
    sqlite3_str *q = sqlite3_str_new(NULL);
    sqlite3_str_appendall(q, "SELECT json_group_array(json_object(");
    for (int c = 0; c < sqlite3_column_count(s); c++) {
        const char *name = sqlite3_column_name(s, c);
        sqlite3_str_appendf(q, "%s%Q, ", c ? ", " : "", name);
        if (json_column(name))
            sqlite3_str_appendf(q, "CASE WHEN json_valid(\"c%d\") THEN json(\"c%d\")"
                                " ELSE \"c%d\" END", c, c, c);
        else
            sqlite3_str_appendf(q, "\"c%d\"", c);
    }
    sqlite3_str_appendall(q, ")) FROM (SELECT ");
    for (int c = 0; c < sqlite3_column_count(s); c++)
        sqlite3_str_appendf(q, "%sx.\"%w\" AS \"c%d\"", c ? ", " : "",
                            sqlite3_column_name(s, c), c);
    sqlite3_str_appendf(q, " FROM (%s) AS x)", inner);
    return sqlite3_str_finish(q);
}

/* The whole result as one JSON array. */
static int write_json(sp_store *st, sqlite3_stmt *s, const char *inner, int64_t sweep,
                      FILE *out, sp_err *err)
{
    char *sql = json_sql(s, inner);
    if (!sql)
        return sp_fail(err, "out of memory building the JSON export");
    sqlite3_stmt *j;
    int rc = store_prepare(st, sql, &j, "preparing the JSON export", err);
    sqlite3_free(sql);
    if (rc)
        return -1;
    sqlite3_bind_int64(j, 1, sweep);
    if (sqlite3_step(j) == SQLITE_ROW)
        fprintf(out, "%s\n", (const char *)sqlite3_column_text(j, 0));
    else
        rc = store_fail(st, err, "running the JSON export");
    sqlite3_finalize(j);
    return rc;
}

/* One Markdown table cell: '|' and '\' escaped, line breaks as <br>. */
static void md_text(FILE *out, const char *v)
{
    for (; v && *v; v++) {
        if (*v == '|' || *v == '\\')
            fputc('\\', out);
        if (*v == '\n')
            fputs("<br>", out);
        else if (*v != '\r')
            fputc(*v, out);
    }
}

/* Column c of the current row as a cell: reals with 6 significant digits
 * (%.6g, enough to read and to compare), NULL empty, the rest as text. */
static void md_cell(FILE *out, sqlite3_stmt *s, int c)
{
    fputc(' ', out);
    switch (sqlite3_column_type(s, c)) {
    case SQLITE_NULL: break;
    case SQLITE_FLOAT: fprintf(out, "%.6g", sqlite3_column_double(s, c)); break;
    default: md_text(out, (const char *)sqlite3_column_text(s, c)); break;
    }
    fputs(" |", out);
}

/* A GitHub-flavoured Markdown table: the header, the alignment row (a
 * column whose first value is a number is right-aligned), every row. */
static int write_markdown(sp_store *st, sqlite3_stmt *s, FILE *out, sp_err *err)
{
    int n = sqlite3_column_count(s), step = sqlite3_step(s);
    fputc('|', out);
    for (int c = 0; c < n; c++) {
        fputc(' ', out);
        md_text(out, sqlite3_column_name(s, c));
        fputs(" |", out);
    }
    fputs("\n|", out);
    for (int c = 0; c < n; c++) {
        int type = step == SQLITE_ROW ? sqlite3_column_type(s, c) : SQLITE_NULL;
        fputs(type == SQLITE_INTEGER || type == SQLITE_FLOAT ? " ---: |" : " --- |", out);
    }
    fputc('\n', out);
    for (; step == SQLITE_ROW; step = sqlite3_step(s)) {
        fputc('|', out);
        for (int c = 0; c < n; c++)
            md_cell(out, s, c);
        fputc('\n', out);
    }
    return step == SQLITE_DONE ? 0 : store_fail(st, err, "reading the export");
}

/* The query for `what`, or NULL. */
static const char *source_sql(const char *what)
{
    for (size_t i = 0; i < sizeof sources / sizeof *sources; i++)
        if (!strcmp(sources[i].name, what))
            return sources[i].sql;
    return NULL;
}

int sp_store_export(const char *path, const char *what, int64_t sweep, int format, FILE *out,
                    sp_err *err)
{
    if (format == SP_EXPORT_GBENCH) {
        if (what && strcmp(what, "run_stats"))
            return sp_fail(err, "export: the Google Benchmark format is of run_stats only,"
                           " not --what '%s'", what);
        return sp_store_export_gbench(path, sweep, NULL, out, err);
    }
    const char *inner = source_sql(what ? what : "run_stats");
    if (!inner)
        return sp_fail(err, "export: unknown --what '%s' (run_stats, runs, samples, speedup,"
                       " best_runs, run_modes, failures, matrices, sweeps, advise_rates,"
                       " advice_outcome)", what);
    sp_store *st;
    if (store_export_open(path, &sweep, &st, err))
        return -1;
    sqlite3_stmt *s = NULL;
    int rc = store_prepare(st, inner, &s, "preparing the export", err);
    if (rc == 0) {
        sqlite3_bind_int64(s, 1, sweep);
        rc = format == SP_EXPORT_JSON       ? write_json(st, s, inner, sweep, out, err)
             : format == SP_EXPORT_MARKDOWN ? write_markdown(st, s, out, err)
                                            : write_csv(st, s, out, err);
    }
    sqlite3_finalize(s);
    sp_store_close(st);
    return rc;
}
