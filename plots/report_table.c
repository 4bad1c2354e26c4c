/*
 * report_table.c — tables in the report: the rows of a query written as
 * BASE.tsv (for scripts) and drawn as monospaced text pages BASE-1, BASE-2,
 * ... (PNG and PDF pages, TABLE_ROWS rows each), so a table of hundreds of
 * rows paginates instead of running off the page (and a wide one gets a
 * smaller font instead of being cut).
 */
#include <stdlib.h>
#include <string.h>

#include "report_impl.h"

#define TABLE_ROWS 38           /* rows per page */
#define TABLE_CELL_CHARS 48     /* longer cells are cut with "~" on pages */
/* The rows' monospaced font: 8 pt, 190 characters on a 1200-pixel PNG
 * (6 pixels each); a wider table (numbers with their intervals) gets 6 pt,
 * 5 pixels a character: 228. (7 pt is hinted to 6 pixels too, no gain;
 * the PDF, at half the font scale, has room for either.) */
#define TABLE_FONT_PT 8
#define TABLE_LINE_CHARS 190
#define TABLE_SMALL_FONT_PT 6
#define TABLE_MAX_CHARS 228

int rp_table_init(rp_table *t, const char *base, const char *title, int ncols,
                  const char *const *head)
{
    memset(t, 0, sizeof *t);
    t->base = base;
    t->title = title;
    t->ncols = ncols;
    t->head = head;
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

/* Every row of s (its first ncols columns, as text). */
int rp_table_query(rp_table *t, sqlite3_stmt *s, const rp_report *r, sp_err *err)
{
    const char *cells[16];
    int step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        for (int c = 0; c < t->ncols && c < 16; c++)
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

/* Display width of each column: the longest cell, at most TABLE_CELL_CHARS. */
static void column_widths(const rp_table *t, int *w)
{
    for (int c = 0; c < t->ncols; c++) {
        w[c] = (int)strlen(t->head[c]);
        for (int row = 0; row < t->nrows; row++) {
            int n = (int)strlen(t->cell[row * t->ncols + c]);
            w[c] = n > w[c] ? n : w[c];
        }
        w[c] = w[c] > TABLE_CELL_CHARS ? TABLE_CELL_CHARS : w[c];
    }
}

/* The font size a line of the table's widths fits the page at, and the
 * characters a line then holds. */
static int table_font(const rp_table *t, const int *w, int *chars)
{
    int width = 0;
    for (int c = 0; c < t->ncols; c++)
        width += w[c] + 2;
    int wide = width > TABLE_LINE_CHARS;
    *chars = wide ? TABLE_MAX_CHARS : TABLE_LINE_CHARS;
    return wide ? TABLE_SMALL_FONT_PT : TABLE_FONT_PT;
}

/* One row of cells padded to their widths, at most chars characters (cut
 * cells end in "~"). */
static void format_line(const rp_table *t, const char *const *cells, const int *w, int chars,
                        char *line)
{
    size_t used = 0;
    line[0] = '\0';
    for (int c = 0; c < t->ncols && (int)used + 4 < chars; c++) {
        const char *v = cells[c] ? cells[c] : "";
        int n = (int)strlen(v), cut = n > w[c];
        int room = chars - (int)used - 3;
        int shown = (cut ? w[c] - 1 : n) < room ? (cut ? w[c] - 1 : n) : room;
        used += (size_t)snprintf(line + used, (size_t)chars + 1 - used, "%.*s%s%*s  ",
                                 shown, v, cut ? "~" : "", w[c] - shown - cut, "");
    }
}

/* One label at screen height y. */
static void put_line(FILE *f, int *tag, double y, const char *font, const char *text)
{
    fprintf(f, "set label %d ", ++*tag);
    rp_gp_name(f, text, RP_GP_STRING);
    fprintf(f, " at screen 0.04, %.3f left font '%s'\n", y, font);
}

/* The header and rows [first, first + TABLE_ROWS) of a page, in a font
 * that fits the table's width. */
static void put_rows(FILE *f, int *tag, const rp_table *t, const int *w, int first)
{
    char line[TABLE_MAX_CHARS + 8], font[16];
    int chars;
    snprintf(font, sizeof font, "Mono,%d", table_font(t, w, &chars));
    format_line(t, t->head, w, chars, line);
    put_line(f, tag, 0.90, font, line);
    for (int i = 0; i < TABLE_ROWS && first + i < t->nrows; i++) {
        format_line(t, (const char *const *)&t->cell[(first + i) * t->ncols], w, chars, line);
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
    put_line(f, &tag, 0.95, "Sans,12", title);
    put_rows(f, &tag, t, w, page * TABLE_ROWS);
    fprintf(f, "plot -1 notitle\n");
    if (rp_finish(f, r, name, err))
        return -1;
    return rp_add_chart(r, base, err);
}

int rp_table_pages(int nrows)
{
    return nrows ? (nrows + TABLE_ROWS - 1) / TABLE_ROWS : 1;
}

/* The TSV and every page of t, pages added to the report in order. */
int rp_table_emit(rp_report *r, const rp_table *t, sp_err *err)
{
    int w[16];
    if (t->ncols > 16)
        return sp_fail(err, "report: table %s has more than 16 columns", t->base);
    if (write_tsv(r, t, err))
        return -1;
    column_widths(t, w);
    int pages = rp_table_pages(t->nrows);
    for (int p = 0; p < pages; p++)
        if (write_page(r, t, w, p, pages, err))
            return -1;
    return 0;
}
