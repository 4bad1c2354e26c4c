/*
 * report_table.c — tables in the report: the rows of a query written as
 * BASE.tsv (for scripts), on request as BASE.csv, BASE.md (Markdown) and
 * BASE.tex (a LaTeX booktabs tabular, for a paper), and drawn as
 * monospaced text pages BASE-1, BASE-2, ... (PNG and PDF pages of the
 * report's page size, TABLE_ROWS rows each, the columns asked for), so a
 * table of hundreds of rows paginates instead of running off the page.
 */
#include <stdlib.h>
#include <string.h>

#include "report_impl.h"

#define TABLE_ROWS 38           /* rows per page */
#define TABLE_CELL_CHARS 32     /* longer cells are cut with "~" on pages */
/* The rows' monospaced font: 8 points printed (the smallest the report
 * uses), 0.6 em a character: 150 characters across the 11-inch page
 * (report.c), less its margins. A wider table is cut at the right: the
 * pages show the columns a reader scans, the files have them all. */
#define TABLE_FONT_PT 8
#define TABLE_LINE_CHARS 150

int rp_table_init(rp_table *t, const char *base, const char *title, int ncols,
                  const char *const *head)
{
    memset(t, 0, sizeof *t);
    t->base = base;
    t->title = title;
    t->ncols = ncols;
    t->head = head;
    t->formats = RP_TABLE_PAGES;
    return 0;
}

void rp_table_free(rp_table *t)
{
    for (int i = 0; i < t->nrows * t->ncols; i++)
        free(t->cell[i]);
    free(t->cell);
    memset(t, 0, sizeof *t);
}

/* Append one row (ncols strings, NULL read as ""). */
int rp_table_add(rp_table *t, const char *const *cells, sp_err *err)
{
    if (t->nrows == t->cap) {
        int cap = t->cap ? 2 * t->cap : 64;
        char **grown = realloc(t->cell, (size_t)cap * (size_t)t->ncols * sizeof *grown);
        if (!grown)
            return sp_fail(err, "report: out of memory");
        t->cell = grown;
        t->cap = cap;
    }
    for (int c = 0; c < t->ncols; c++) {
        char *s = strdup(cells[c] ? cells[c] : "");
        if (!s) {
            for (int k = 0; k < c; k++)
                free(t->cell[t->nrows * t->ncols + k]);
            return sp_fail(err, "report: out of memory");
        }
        t->cell[t->nrows * t->ncols + c] = s;
    }
    t->nrows++;
    return 0;
}

/* Every row of s (its first ncols columns, as text; at most
 * RP_TABLE_MAX_COLS: a wider table is refused, not read in part). */
int rp_table_query(rp_table *t, sqlite3_stmt *s, const rp_report *r, sp_err *err)
{
    const char *cells[RP_TABLE_MAX_COLS];
    int step;
    if (t->ncols > RP_TABLE_MAX_COLS)
        return sp_fail(err, "report table %s: %d columns, more than %d", t->title, t->ncols,
                       RP_TABLE_MAX_COLS);
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        for (int c = 0; c < t->ncols; c++)
            cells[c] = (const char *)sqlite3_column_text(s, c);
        if (rp_table_add(t, cells, err))
            return -1;
    }
    return step == SQLITE_DONE ? 0 : rp_db_fail(r, err, t->title);
}

/* BASE.tsv: the header and every row, tabs and newlines in cells as spaces. */
static int write_tsv(rp_report *r, const rp_table *t, sp_err *err)
{
    char name[256];
    snprintf(name, sizeof name, "%s.tsv", t->base);
    FILE *f = rp_create(r, name, err);
    if (!f)
        return -1;
    for (int row = -1; row < t->nrows; row++)
        for (int c = 0; c < t->ncols; c++) {
            const char *v = row < 0 ? t->head[c] : t->cell[row * t->ncols + c];
            for (; *v; v++)
                fputc(*v == '\t' || *v == '\n' || *v == '\r' ? ' ' : *v, f);
            fputc(c + 1 < t->ncols ? '\t' : '\n', f);
        }
    return rp_finish(f, r, name, err);
}

/* The number of columns on the pages and the i-th of them (0-based). */
static int shown_count(const rp_table *t)
{
    int n = 0;
    if (!t->shown)
        return t->ncols;
    while (t->shown[n])
        n++;
    return n;
}

static int shown_col(const rp_table *t, int i)
{
    return t->shown ? t->shown[i] - 1 : i;
}

/* Display width of each shown column: the longest cell, at most
 * TABLE_CELL_CHARS. */
static void column_widths(const rp_table *t, int *w)
{
    for (int i = 0; i < shown_count(t); i++) {
        int c = shown_col(t, i);
        w[i] = (int)strlen(t->head[c]);
        for (int row = 0; row < t->nrows; row++) {
            int n = (int)strlen(t->cell[row * t->ncols + c]);
            w[i] = n > w[i] ? n : w[i];
        }
        w[i] = w[i] > TABLE_CELL_CHARS ? TABLE_CELL_CHARS : w[i];
    }
}

/* One row of shown cells padded to their widths, at most TABLE_LINE_CHARS
 * characters (cut cells end in "~"). */
static void format_line(const rp_table *t, const char *const *cells, const int *w, char *line)
{
    size_t used = 0;
    int chars = TABLE_LINE_CHARS;
    line[0] = '\0';
    for (int i = 0; i < shown_count(t) && (int)used + 4 < chars; i++) {
        const char *v = cells[shown_col(t, i)] ? cells[shown_col(t, i)] : "";
        int n = (int)strlen(v), cut = n > w[i];
        int room = chars - (int)used - 3;
        int shown = (cut ? w[i] - 1 : n) < room ? (cut ? w[i] - 1 : n) : room;
        used += (size_t)snprintf(line + used, (size_t)chars + 1 - used, "%.*s%s%*s  ",
                                 shown, v, cut ? "~" : "", w[i] - shown - cut, "");
    }
}

/* One label at screen height y. */
static void put_line(FILE *f, int *tag, double y, const char *font, const char *text)
{
    fprintf(f, "set label %d ", ++*tag);
    rp_gp_name(f, text, RP_GP_STRING);
    fprintf(f, " at screen 0.04, %.3f left font '%s'\n", y, font);
}

/* The header and rows [first, first + TABLE_ROWS) of a page. */
static void put_rows(FILE *f, int *tag, const rp_table *t, const int *w, int first)
{
    char line[TABLE_LINE_CHARS + 8], font[16];
    snprintf(font, sizeof font, "Mono,%d", TABLE_FONT_PT);
    format_line(t, t->head, w, line);
    put_line(f, tag, 0.90, font, line);
    for (int i = 0; i < TABLE_ROWS && first + i < t->nrows; i++) {
        format_line(t, (const char *const *)&t->cell[(first + i) * t->ncols], w, line);
        put_line(f, tag, 0.87 - 0.022 * i, font, line);
    }
    if (t->nrows == 0)
        put_line(f, tag, 0.87, font, "(none)");
}

/* BASE-<page>.gp: the title, the header and the page's rows. */
static int write_page(rp_report *r, const rp_table *t, const int *w, int page, int pages,
                      sp_err *err)
{
    char base[256], name[300], title[512];
    snprintf(base, sizeof base, "%s-%d", t->base, page + 1);
    snprintf(name, sizeof name, "%s.gp", base);
    FILE *f = rp_create(r, name, err);
    if (!f)
        return -1;
    int tag = 0;
    fprintf(f, "reset\nunset border\nunset tics\nunset key\nset xrange [0:1]\n"
               "set yrange [0:1]\n");
    snprintf(title, sizeof title, "%s (%d row%s%s)", t->title, t->nrows,
             t->nrows == 1 ? "" : "s", pages > 1 ? ", continued over pages" : "");
    if (pages > 1)
        snprintf(title + strlen(title), sizeof title - strlen(title), " — page %d of %d",
                 page + 1, pages);
    put_line(f, &tag, 0.95, "Sans,11", title);
    put_rows(f, &tag, t, w, page * TABLE_ROWS);
    fprintf(f, "plot -1 notitle\n");
    if (rp_finish(f, r, name, err))
        return -1;
    return rp_add_page(r, base, err);
}

int rp_table_pages(int nrows)
{
    return nrows ? (nrows + TABLE_ROWS - 1) / TABLE_ROWS : 1;
}

/* Write the cells of every row (and the header first) through put, a
 * cell at a time, into BASE.suffix. */
static int write_rows(rp_report *r, const rp_table *t, const char *suffix,
                      void (*put)(FILE *, const rp_table *, int row, int col), sp_err *err)
{
    char name[256];
    snprintf(name, sizeof name, "%s%s", t->base, suffix);
    FILE *f = rp_create(r, name, err);
    if (!f)
        return -1;
    for (int row = -1; row < t->nrows; row++)
        for (int c = 0; c < t->ncols; c++)
            put(f, t, row, c);
    return rp_finish(f, r, name, err);
}

static const char *cell_text(const rp_table *t, int row, int c)
{
    return row < 0 ? t->head[c] : t->cell[row * t->ncols + c];
}

/* CSV (RFC 4180): a cell with a comma, a quote or a line break quoted. */
static void put_csv(FILE *f, const rp_table *t, int row, int c)
{
    const char *v = cell_text(t, row, c);
    int quote = strpbrk(v, ",\"\r\n") != NULL;
    if (quote)
        fputc('"', f);
    for (; *v; v++) {
        if (*v == '"')
            fputc('"', f);
        fputc(*v, f);
    }
    if (quote)
        fputc('"', f);
    fputs(c + 1 < t->ncols ? "," : "\r\n", f);
}

/* Markdown: '|' escaped, line breaks as spaces; the rule after the header. */
static void put_md(FILE *f, const rp_table *t, int row, int c)
{
    fputs(c ? " | " : "| ", f);
    for (const char *v = cell_text(t, row, c); *v; v++) {
        if (*v == '|')
            fputc('\\', f);
        fputc(*v == '\n' || *v == '\r' || *v == '\t' ? ' ' : *v, f);
    }
    if (c + 1 < t->ncols)
        return;
    fputs(" |\n", f);
    if (row < 0) {
        for (int k = 0; k < t->ncols; k++)
            fputs(k ? " --- |" : "| --- |", f);
        fputc('\n', f);
    }
}

/* A column all of whose cells are numbers (or "-"): aligned right in LaTeX. */
static int numeric_column(const rp_table *t, int c)
{
    for (int row = 0; row < t->nrows; row++) {
        const char *v = t->cell[row * t->ncols + c];
        char *end;
        if (strcmp(v, "-") && (strtod(v, &end), end == v || *end))
            return 0;
    }
    return t->nrows > 0;
}

/* LaTeX: TeX's special characters escaped; booktabs rules. */
static void put_tex(FILE *f, const rp_table *t, int row, int c)
{
    static const struct {
        char c;
        const char *tex;
    } special[] = {{'\\', "\\textbackslash{}"}, {'&', "\\&"},  {'%', "\\%"},
                   {'$', "\\$"},                {'#', "\\#"},  {'_', "\\_"},
                   {'{', "\\{"},                {'}', "\\}"},  {'~', "\\textasciitilde{}"},
                   {'^', "\\textasciicircum{}"}};
    if (row < 0 && c == 0) {
        fprintf(f, "%% %s: written by spsweep report (needs \\usepackage{booktabs})\n"
                   "\\begin{tabular}{", t->title);
        for (int k = 0; k < t->ncols; k++)
            fputc(numeric_column(t, k) ? 'r' : 'l', f);
        fprintf(f, "}\n\\toprule\n");
    }
    for (const char *v = cell_text(t, row, c); *v; v++) {
        size_t i = 0;
        while (i < sizeof special / sizeof *special && special[i].c != *v)
            i++;
        if (i < sizeof special / sizeof *special)
            fputs(special[i].tex, f);
        else
            fputc(*v == '\n' || *v == '\r' || *v == '\t' ? ' ' : *v, f);
    }
    if (c + 1 < t->ncols) {
        fputs(" & ", f);
        return;
    }
    fputs(" \\\\\n", f);
    if (row < 0)
        fputs("\\midrule\n", f);
    if (row == t->nrows - 1)
        fputs("\\bottomrule\n\\end{tabular}\n", f);
}

/* The TSV, the formats asked for and every page of t, pages added to the
 * report in order. */
int rp_table_emit(rp_report *r, const rp_table *t, sp_err *err)
{
    int w[16];
    if (t->ncols > 16)
        return sp_fail(err, "report: table %s has more than 16 columns", t->base);
    if (rp_html_table(r, t, err) || write_tsv(r, t, err) ||
        ((t->formats & RP_TABLE_CSV) && write_rows(r, t, ".csv", put_csv, err)) ||
        ((t->formats & RP_TABLE_MD) && write_rows(r, t, ".md", put_md, err)) ||
        ((t->formats & RP_TABLE_TEX) && write_rows(r, t, ".tex", put_tex, err)))
        return -1;
    if (!(t->formats & RP_TABLE_PAGES))
        return 0;
    column_widths(t, w);
    int pages = rp_table_pages(t->nrows);
    for (int p = 0; p < pages; p++)
        if (write_page(r, t, w, p, pages, err))
            return -1;
    return 0;
}
