/*
 * report_html.c — index.html beside report.pdf: one self-contained page
 * (inline CSS, a little inline JavaScript, a Content-Security-Policy that
 * lets it load nothing, so it works with no network and shows it) with
 *   the provenance (report_title.c, what the PDF's title page shows, and
 *     the whole config text);
 *   every figure as inline SVG, drawn by gnuplot's svg terminal from the
 *     chart's own script (report.gp writes BASE.svg beside BASE.png), with
 *     its title, a caption saying what it shows, links to its files and,
 *     in a <details> block, the SQL that produced its data;
 *   every table of the report (not its text pages: the table itself) as an
 *     HTML table that sorts by a column when its header is clicked (numbers
 *     as numbers, "40.00 [38.46, 41.67]" by 40.00, text in natural order),
 *     with its SQL; the failures last.
 * The SQL is what the report's connection ran, caught by an SQLite trace
 * (each statement with its bound values, so it runs as it is in the
 * sqlite3 shell on the same database, less the report's formatting
 * functions rp_measure and rp_ratio): a chart gets the statements run since
 * the chart before it or since rp_sql_mark (the start of a chart's own
 * queries), a later page of the same data the statements of the page
 * before it; a table the statements run since the last chart or table.
 * Every text from the database is escaped for HTML here; the SVG's text
 * is escaped by gnuplot. The SVGs' element ids are prefixed per chart
 * (gnuplot gives every file the same ids), so one page holds them all.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../db/store.h"
#include "report_impl.h"

#define HTML_FILE "index.html"
#define LONG_TABLE "-all-runs"      /* tables folded away: every run of an operation */

typedef struct html_list {
    int n, cap;
    char **v;
} html_list;

typedef struct html_item {
    char *base;
    int table;                  /* 0: a figure; 1: a table */
    html_list sql;
    char *title;                /* tables */
    int ncols, nrows, formats;  /* formats: RP_TABLE_* */
    char **head, **cell;
} html_item;

typedef struct html_trace {
    rp_report *r;
    const char *db_label;       /* NULL: the report's database; else the base's path */
} html_trace;

struct rp_html {
    html_list pending;          /* statements since the last chart, table or mark */
    int last_chart;             /* the item whose SQL a later page reuses; -1 none */
    int n, cap;
    html_item *items;
    int oom;                    /* a statement could not be recorded */
    html_trace main, base;
};

/* Append a copy of s (text, len bytes) unless the list already holds it. */
static int list_add(html_list *l, const char *s, size_t len)
{
    for (int i = 0; i < l->n; i++)
        if (strlen(l->v[i]) == len && !memcmp(l->v[i], s, len))
            return 0;
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 8;
        char **grown = realloc(l->v, (size_t)cap * sizeof *grown);
        if (!grown)
            return -1;
        l->v = grown;
        l->cap = cap;
    }
    if (!(l->v[l->n] = strndup(s, len)))
        return -1;
    l->n++;
    return 0;
}

static void list_free(html_list *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

/* SQLITE_TRACE_STMT: a statement begins to run; record it with its
 * bound values (sqlite3_expanded_sql), once per chart. */
static int trace_stmt(unsigned type, void *ctx, void *p, void *x)
{
    html_trace *t = ctx;
    const char *text = x;
    if (type != SQLITE_TRACE_STMT || !t->r->html || (text && !strncmp(text, "--", 2)))
        return 0;
    char *expanded = sqlite3_expanded_sql(p);
    const char *sql = expanded ? expanded : sqlite3_sql(p);
    char *line = NULL;
    if (sql && t->db_label) {
        size_t n = strlen(sql) + strlen(t->db_label) + 32;
        if ((line = malloc(n)))
            snprintf(line, n, "-- on the base database %s\n%s", t->db_label, sql);
        sql = line;
    }
    if (!sql || list_add(&t->r->html->pending, sql, strlen(sql)))
        t->r->html->oom = 1;
    free(line);
    sqlite3_free(expanded);
    return 0;
}

int rp_html_begin(rp_report *r, sp_err *err)
{
    if (!(r->html = calloc(1, sizeof *r->html)))
        return sp_fail(err, "report: out of memory");
    r->html->last_chart = -1;
    r->html->main = (html_trace){r, NULL};
    r->html->base = (html_trace){r, r->base_db};
    sqlite3_trace_v2(r->db, SQLITE_TRACE_STMT, trace_stmt, &r->html->main);
    if (r->base_store)
        sqlite3_trace_v2(sp_store_db(r->base_store), SQLITE_TRACE_STMT, trace_stmt,
                         &r->html->base);
    return 0;
}

void rp_sql_mark(rp_report *r)
{
    if (!r->html)
        return;
    list_free(&r->html->pending);
    r->html->last_chart = -1;
}

/* A new item; the statements pending go to it. */
static html_item *add_item(rp_report *r, const char *base, int table, sp_err *err)
{
    struct rp_html *h = r->html;
    if (h->n == h->cap) {
        int cap = h->cap ? 2 * h->cap : 32;
        html_item *grown = realloc(h->items, (size_t)cap * sizeof *grown);
        if (!grown) {
            sp_fail(err, "report: out of memory for %d HTML sections", cap);
            return NULL;
        }
        h->items = grown;
        h->cap = cap;
    }
    html_item *it = &h->items[h->n];
    memset(it, 0, sizeof *it);
    if (!(it->base = strdup(base))) {
        sp_fail(err, "report: out of memory");
        return NULL;
    }
    it->table = table;
    it->sql = h->pending;
    memset(&h->pending, 0, sizeof h->pending);
    h->n++;
    return it;
}

int rp_html_chart(rp_report *r, const char *base, sp_err *err)
{
    if (!r->html)
        return 0;
    int reuse = r->html->pending.n == 0 ? r->html->last_chart : -1;
    html_item *it = add_item(r, base, 0, err);
    if (!it)
        return -1;
    if (reuse >= 0) {
        const html_list *from = &r->html->items[reuse].sql;
        for (int i = 0; i < from->n; i++)
            if (list_add(&it->sql, from->v[i], strlen(from->v[i])))
                return sp_fail(err, "report: out of memory");
    }
    r->html->last_chart = r->html->n - 1;
    return 0;
}

/* A copy of n strings (NULL: ""). */
static char **copy_strings(const char *const *v, int n)
{
    char **c = calloc((size_t)(n ? n : 1), sizeof *c);
    for (int i = 0; c && i < n; i++)
        if (!(c[i] = strdup(v[i] ? v[i] : ""))) {
            while (i--)
                free(c[i]);
            free(c);
            return NULL;
        }
    return c;
}

int rp_html_table(rp_report *r, const rp_table *t, sp_err *err)
{
    if (!r->html || !strcmp(t->base, "contents"))   /* the PDF's pages, not the page's */
        return 0;
    html_item *it = add_item(r, t->base, 1, err);
    if (!it)
        return -1;
    r->html->last_chart = -1;
    it->ncols = t->ncols;
    it->nrows = t->nrows;
    it->formats = t->formats;
    if (!(it->title = strdup(t->title)) || !(it->head = copy_strings(t->head, t->ncols)) ||
        !(it->cell = copy_strings((const char *const *)t->cell, t->nrows * t->ncols)))
        return sp_fail(err, "report: out of memory for table %s", t->base);
    return 0;
}

void rp_html_free(rp_report *r)
{
    struct rp_html *h = r->html;
    if (!h)
        return;
    if (r->db)
        sqlite3_trace_v2(r->db, 0, NULL, NULL);
    if (r->base_store)
        sqlite3_trace_v2(sp_store_db(r->base_store), 0, NULL, NULL);
    for (int i = 0; i < h->n; i++) {
        html_item *it = &h->items[i];
        free(it->base);
        free(it->title);
        list_free(&it->sql);
        for (int k = 0; it->head && k < it->ncols; k++)
            free(it->head[k]);
        for (int k = 0; it->cell && k < it->nrows * it->ncols; k++)
            free(it->cell[k]);
        free(it->head);
        free(it->cell);
    }
    free(h->items);
    list_free(&h->pending);
    free(h);
    r->html = NULL;
}

/* The chart's title: its script's "set title '...'" (rp_chart_head, quoted
 * by rp_gp_name: '' is one quote); the base name without one. */
static void chart_title(const rp_report *r, const char *base, char *buf, size_t len)
{
    char path[4096], line[2048];
    snprintf(buf, len, "%s", base);
    snprintf(path, sizeof path, "%s/%s.gp", r->out_dir, base);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "set title '", 11)) {
            size_t n = 0;
            for (const char *p = line + 11; *p && n + 1 < len; p++) {
                if (*p == '\'' && p[1] != '\'')
                    break;
                buf[n++] = *p;
                p += *p == '\'';
            }
            buf[n] = '\0';
            break;
        }
    fclose(f);
}

/* What a kind of chart shows, by its name (docs/report.md, "The charts"). */
static const char *chart_caption(const char *base)
{
    static const struct {
        const char *part, *caption;
    } kinds[] = {
        {"-geomean-vs-", "Each kernel's geomean speedup over the baseline, at its best axis "
                         "values on each matrix. The error bar is a conservative bound (the "
                         "geomeans of the intervals' ends), not a confidence interval; (n) is "
                         "the number of matrices."},
        {"-speedup-vs-", "Per matrix (by nnz), each series' speedup over the baseline; the "
                         "last group is the geomean over all the matrices, with its bound."},
        {"-rate-by-matrix-", "Per matrix (by nnz), each series' median rate with its 95 % "
                             "interval."},
        {"-rate-vs-nnz-per-row", "The rate against the matrix's mean nonzeros per row, "
                                 "log-log, with 95 % intervals."},
        {"-rate-vs-nnz", "The rate against the matrix's nonzeros, log-log, with 95 % "
                         "intervals."},
        {"-performance-profile", "Dolan and Moré's performance profile: for each series the "
                                 "fraction of the matrices on which its median time is "
                                 "within a factor τ of the fastest kernel's."},
        {"-roofline-", "GFLOPS against arithmetic intensity under the roofs measured in the "
                       "sweep (memory dashed, the cache dotted); circled points lie above the "
                       "memory roof (the note under the chart says why)."},
        {"-gpu-phases-", "GPU runs as stacked bars of the median round: conversion, upload, "
                         "kernel, download, release; the kernel's 95 % interval and, with 3 "
                         "rounds or more, the spread of the rounds' end-to-end times."},
        {"-rate-vs-threads-", "The rate against the thread count, one line per kernel at the "
                              "best of its other axes."},
        {"-rate-vs-blocksize-", "The rate against the block size, one line per kernel at "
                                "the best of its other axes."},
        {"-heatmap-", "Each cell: the geomean over the matrices of the kernel's rate there "
                      "relative to its best rate on the matrix (1: the best setting "
                      "everywhere)."},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (strstr(base, kinds[i].part))
            return kinds[i].caption;
    return "";
}

/* The SQL of a section, folded. */
static void write_sql(FILE *f, const html_list *sql)
{
    if (sql->n == 0)
        return;
    fprintf(f, "<details class=\"sql\"><summary>SQL: the %d quer%s that produced this</summary>\n",
            sql->n, sql->n == 1 ? "y" : "ies");
    for (int i = 0; i < sql->n; i++) {
        fputs("<pre><code>", f);
        rp_html_text(f, sql->v[i]);
        fputs(";</code></pre>\n", f);
    }
    fputs("</details>\n", f);
}

/* out_dir/name, read whole (NUL-terminated); NULL with err set. */
static char *read_file(const rp_report *r, const char *name, sp_err *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", r->out_dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        sp_fail(err, "%s: %s", path, strerror(errno));
        return NULL;
    }
    char *buf = NULL;
    size_t n = 0, cap = 0, got;
    do {
        if (n + 65536 + 1 > cap) {
            cap = 2 * cap + 65536 + 1;
            char *grown = realloc(buf, cap);
            if (!grown) {
                free(buf);
                fclose(f);
                sp_fail(err, "%s: out of memory", path);
                return NULL;
            }
            buf = grown;
        }
        got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
    } while (got > 0);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        sp_fail(err, "%s: read error", path);
        return NULL;
    }
    buf[n] = '\0';
    return buf;
}

/* gnuplot's SVG inline: from <svg on (no XML declaration), the element ids
 * and the references to them (id='X', href='#X', url(#X), inside tags
 * only) prefixed by "cN-", its <title> the chart's. */
static void write_svg(FILE *f, const char *svg, int chart, const char *title)
{
    static const char *const refs[] = {" id='", " id=\"", "href='#", "href=\"#", "url(#"};
    const char *p = strstr(svg, "<svg");
    int in_tag = 0, titled = 0;
    while (p && *p) {
        if (!titled && !strncmp(p, "<title>", 7)) {
            const char *end = strstr(p, "</title>");
            if (end) {
                fputs("<title>", f);
                rp_html_text(f, title);
                p = end;
                titled = 1;
                continue;
            }
        }
        if (*p == '<')
            in_tag = 1;
        else if (*p == '>')
            in_tag = 0;
        size_t i = 0, k = 0;
        while (in_tag && i < sizeof refs / sizeof *refs &&
               strncmp(p, refs[i], k = strlen(refs[i])))
            i++;
        if (in_tag && i < sizeof refs / sizeof *refs) {
            fprintf(f, "%s%s%d-", refs[i], "c", chart);
            p += k;
            continue;
        }
        fputc(*p++, f);
    }
}

/* One figure: its title, caption, SVG, files and SQL. */
static int write_chart(FILE *f, rp_report *r, const html_item *it, int chart, sp_err *err)
{
    char title[1024], name[400];
    chart_title(r, it->base, title, sizeof title);
    snprintf(name, sizeof name, "%s.svg", it->base);
    char *svg = read_file(r, name, err);
    if (!svg)
        return -1;
    fprintf(f, "<section class=\"chart\" id=\"%s\">\n<h3>", it->base);
    rp_html_text(f, title);
    fputs("</h3>\n", f);
    const char *caption = chart_caption(it->base);
    if (*caption)
        fprintf(f, "<p class=\"caption\">%s</p>\n", caption);
    fputs("<figure>", f);
    write_svg(f, svg, chart, title);
    free(svg);
    fprintf(f, "</figure>\n<p class=\"files\">files: <a href=\"%s.png\">PNG</a> "
               "<a href=\"%s.pdf\">PDF</a> <a href=\"%s.svg\">SVG</a> (one column: "
               "<a href=\"%s-1col.png\">PNG</a> <a href=\"%s-1col.pdf\">PDF</a>), data "
               "<a href=\"%s.dat\">%s.dat</a>, script <a href=\"%s.gp\">%s.gp</a></p>\n",
            it->base, it->base, it->base, it->base, it->base, it->base, it->base, it->base,
            it->base);
    write_sql(f, &it->sql);
    fputs("</section>\n", f);
    return 0;
}

/* A table's section: sortable by any column; the long tables of every run
 * folded away. */
static void write_table(FILE *f, const html_item *it)
{
    int failures = !strcmp(it->base, "failures");
    size_t n = strlen(it->base), k = strlen(LONG_TABLE);
    int folded = n > k && !strcmp(it->base + n - k, LONG_TABLE);
    fprintf(f, "<section class=\"table\" id=\"%s\">\n<%s>", it->base, failures ? "h2" : "h3");
    rp_html_text(f, it->title);
    fprintf(f, " (%d row%s)</%s>\n<p class=\"files\">files:", it->nrows,
            it->nrows == 1 ? "" : "s", failures ? "h2" : "h3");
    static const struct {
        int format;
        const char *suffix;
    } files[] = {{0, ".tsv"}, {RP_TABLE_CSV, ".csv"}, {RP_TABLE_MD, ".md"}, {RP_TABLE_TEX, ".tex"}};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++)
        if (!files[i].format || (it->formats & files[i].format))
            fprintf(f, " <a href=\"%s%s\">%s%s</a>", it->base, files[i].suffix, it->base,
                    files[i].suffix);
    fputs("</p>\n", f);
    if (folded)
        fprintf(f, "<details><summary>every run: %d rows</summary>\n", it->nrows);
    if (it->nrows == 0)
        fputs("<p>(none)</p>\n", f);
    else {
        fputs("<table class=\"sortable\">\n<thead><tr>", f);
        for (int c = 0; c < it->ncols; c++) {
            fputs("<th scope=\"col\" tabindex=\"0\" aria-sort=\"none\">", f);
            rp_html_text(f, it->head[c]);
            fputs("</th>", f);
        }
        fputs("</tr></thead>\n<tbody>\n", f);
        for (int row = 0; row < it->nrows; row++) {
            fputs("<tr>", f);
            for (int c = 0; c < it->ncols; c++) {
                fputs("<td>", f);
                rp_html_text(f, it->cell[row * it->ncols + c]);
                fputs("</td>", f);
            }
            fputs("</tr>\n", f);
        }
        fputs("</tbody>\n</table>\n", f);
    }
    if (folded)
        fputs("</details>\n", f);
    write_sql(f, &it->sql);
    fputs("</section>\n", f);
}

static const char STYLE[] =
    "body{font-family:sans-serif;margin:1.5rem auto;max-width:64rem;padding:0 1rem;"
    "color:#111;line-height:1.4}\n"
    "h1{font-size:1.6rem}h2{margin-top:2.5rem;border-bottom:1px solid #ccc}\n"
    "h3{margin-top:2rem}\n"
    "figure{margin:0.5rem 0;background:#fff}\n"
    "figure svg{display:block;width:100%;max-width:56rem;height:auto}\n"
    ".caption{color:#333;max-width:56rem}.files{font-size:0.85rem;color:#555}\n"
    "details.sql pre{white-space:pre-wrap;word-break:break-word;background:#f6f6f6;"
    "padding:0.5rem;font-size:0.8rem}\n"
    "table{border-collapse:collapse;font-size:0.85rem;margin:0.5rem 0}\n"
    "th,td{border:1px solid #ccc;padding:0.2rem 0.5rem;text-align:left;vertical-align:top}\n"
    "th{background:#eee;cursor:pointer;user-select:none}\n"
    "th[aria-sort=ascending]::after{content:' \\25B2'}"
    "th[aria-sort=descending]::after{content:' \\25BC'}\n"
    "table.provenance th{cursor:auto;white-space:nowrap}\n"
    "pre.config{background:#f6f6f6;padding:0.5rem;font-size:0.8rem;overflow-x:auto}\n"
    "nav ol{columns:2}\n";

/* Click (or Enter on) a header: sort the rows by that column, ascending,
 * then descending. A column is numeric when each of its cells starts with
 * a number or is empty or "-" (those go last either way); else natural
 * text order ("m9" before "m10"). Equal keys keep their order. */
static const char SCRIPT[] =
    "(function () {\n"
    "  'use strict';\n"
    "  var text = new Intl.Collator(undefined, {numeric: true, sensitivity: 'base'});\n"
    "  var number = /^\\s*([-+]?(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][-+]?\\d+)?)/;\n"
    "  function key(s) { var m = number.exec(s); return m ? parseFloat(m[1]) : NaN; }\n"
    "  function blank(s) { s = s.trim(); return s === '' || s === '-'; }\n"
    "  function sortBy(th) {\n"
    "    var table = th.closest('table'), body = table.tBodies[0], col = th.cellIndex;\n"
    "    var dir = th.getAttribute('aria-sort') === 'ascending' ? -1 : 1;\n"
    "    var rows = Array.prototype.slice.call(body.rows);\n"
    "    var cells = rows.map(function (r) {\n"
    "      return r.cells[col] ? r.cells[col].textContent : '';\n"
    "    });\n"
    "    var numeric = cells.every(function (s) { return blank(s) || !isNaN(key(s)); });\n"
    "    var order = rows.map(function (r, i) { return i; });\n"
    "    order.sort(function (a, b) {\n"
    "      var x = cells[a], y = cells[b], bx = blank(x), by = blank(y);\n"
    "      if (bx || by) return bx - by;\n"
    "      return dir * (numeric ? key(x) - key(y) : text.compare(x, y));\n"
    "    });\n"
    "    order.forEach(function (i) { body.appendChild(rows[i]); });\n"
    "    Array.prototype.forEach.call(th.parentNode.cells, function (h) {\n"
    "      h.setAttribute('aria-sort', 'none');\n"
    "    });\n"
    "    th.setAttribute('aria-sort', dir > 0 ? 'ascending' : 'descending');\n"
    "  }\n"
    "  document.querySelectorAll('table.sortable th').forEach(function (th) {\n"
    "    th.addEventListener('click', function () { sortBy(th); });\n"
    "    th.addEventListener('keydown', function (e) {\n"
    "      if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); sortBy(th); }\n"
    "    });\n"
    "  });\n"
    "})();\n";

/* The contents: provenance, then every section in order. */
static void write_nav(FILE *f, rp_report *r)
{
    fputs("<nav><h2>Contents</h2>\n<ol>\n<li><a href=\"#provenance\">Provenance</a></li>\n", f);
    for (int i = 0; i < r->html->n; i++) {
        const html_item *it = &r->html->items[i];
        char title[1024];
        if (it->table)
            snprintf(title, sizeof title, "%s", it->title);
        else
            chart_title(r, it->base, title, sizeof title);
        fprintf(f, "<li class=\"%s\"><a href=\"#%s\">", it->table ? "table" : "chart", it->base);
        rp_html_text(f, title);
        fputs("</a></li>\n", f);
    }
    fputs("</ol></nav>\n", f);
}

static int write_page(FILE *f, rp_report *r, sp_err *err)
{
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
               "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
               "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
               "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
               "<title>spsweep report: sweep %lld</title>\n<style>\n%s</style>\n</head>\n"
               "<body>\n<h1>spsweep report: sweep %lld</h1>\n<p>From <code>",
            (long long)r->sweep_id, STYLE, (long long)r->sweep_id);
    rp_html_text(f, r->db_path);
    int figures = 0;
    for (int i = 0; i < r->html->n; i++)
        figures += !r->html->items[i].table;
    fprintf(f, "</code>: <span id=\"chart-count\">%d</span> chart%s; each as PNG and PDF "
               "too, and every page in <a href=\"report.pdf\">report.pdf</a>, in this "
               "folder.</p>\n", figures, figures == 1 ? "" : "s");
    write_nav(f, r);
    rp_sql_mark(r);
    if (rp_provenance_html(r, f, err))
        return -1;
    write_sql(f, &r->html->pending);
    rp_sql_mark(r);
    int chart = 0, heading = 0;
    for (int i = 0; i < r->html->n; i++) {
        const html_item *it = &r->html->items[i];
        if (!heading && strcmp(it->base, "failures")) {
            fputs("<h2 id=\"results\">Results</h2>\n", f);
            heading = 1;
        }
        if (it->table)
            write_table(f, it);
        else if (write_chart(f, r, it, ++chart, err))
            return -1;
    }
    fprintf(f, "<script>\n%s</script>\n</body>\n</html>\n", SCRIPT);
    return 0;
}

int rp_html_write(rp_report *r, sp_err *err)
{
    if (!r->html)
        return 0;
    if (r->html->oom)
        return sp_fail(err, "report: out of memory recording the charts' SQL");
    FILE *f = rp_create(r, HTML_FILE, err);
    if (!f)
        return -1;
    int rc = write_page(f, r, err);
    if (rc) {
        fclose(f);
        return -1;
    }
    return rp_finish(f, r, HTML_FILE, err);
}

/* A figure: recorded in page order, and its entry in the HTML page. */
int rp_add_chart(rp_report *r, const char *base, sp_err *err)
{
    return rp_chart_record(r, base, 1, err) || rp_html_chart(r, base, err) ? -1 : 0;
}
