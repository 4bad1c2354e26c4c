/*
 * report_util.c — small helpers of the report: the chart list, escaping
 * names for gnuplot and text for HTML, safe file names. It calls no other
 * file of plots/ (the report's files are opened in report_manifest.c,
 * which records them; a figure enters the HTML page in report_html.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report_impl.h"

/* Record a chart or page (a copy of base) in page order (report_impl.h). */
int rp_chart_record(rp_report *r, const char *base, int figure, sp_err *err)
{
    if (r->ncharts == r->cap) {
        int cap = r->cap ? 2 * r->cap : 16;
        char **grown = realloc(r->charts, (size_t)cap * sizeof *grown);
        int *kinds = grown ? realloc(r->figure, (size_t)cap * sizeof *kinds) : NULL;
        if (grown)
            r->charts = grown;
        if (!kinds)
            return sp_fail(err, "report: out of memory for %d charts", cap);
        r->figure = kinds;
        r->cap = cap;
    }
    if (!(r->charts[r->ncharts] = strdup(base)))
        return sp_fail(err, "report: out of memory");
    r->figure[r->ncharts++] = figure;
    return 0;
}

int rp_add_page(rp_report *r, const char *base, sp_err *err)
{
    return rp_chart_record(r, base, 0, err);
}

/* 1 when base names a chart already recorded. */
int rp_has_chart(const rp_report *r, const char *base)
{
    for (int i = 0; i < r->ncharts; i++)
        if (strcmp(r->charts[i], base) == 0)
            return 1;
    return 0;
}

/* Report an SQLite failure on the report's database. */
int rp_db_fail(const rp_report *r, sp_err *err, const char *what)
{
    if (sqlite3_errcode(r->db) == SQLITE_NOTADB)
        return sp_fail(err, "%s: not an SQLite database (%s)", r->db_path,
                       sqlite3_errmsg(r->db));
    return sp_fail(err, "%s: %s: %s", r->db_path, what, sqlite3_errmsg(r->db));
}

/* File-name-safe copy: [A-Za-z0-9_.-] kept, anything else '_'. */
void rp_sanitize(char *dst, size_t len, const char *src)
{
    size_t n = 0;
    for (; src && *src && n + 1 < len; src++, n++) {
        char c = *src;
        int keep = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                   (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
        dst[n] = keep ? c : '_';
    }
    if (len)
        dst[n] = '\0';
}

/* Names come from the database, which may be a foreign or merged one, so
 * any byte may be in them:
 *   control characters (newline, tab, CR) end a command, a data line or a
 *     field: written as spaces, everywhere;
 *   in a single-quoted string only the quote is special ('' is one quote;
 *     backslash and double quote are plain there);
 *   explicit tic labels are formats given the tic position, so '%' is
 *     written '%%' ("100%" stopped gnuplot: "Bad format character"; a
 *     label with '%' is then cut at 50 characters by gnuplot 5.4);
 *   a data field that starts with '"' is read up to the next '"',
 *     swallowing the columns after it: written as '.
 * The terminals are noenhanced (report.c), so '_', '^', '@', '&', '{', '}'
 * and '~' are plain characters; a backslash before them would be printed.
 * ('@' expands macros only outside quotes.) */
void rp_gp_name(FILE *f, const char *s, rp_gp_where where)
{
    int quoted = where != RP_GP_DATA;
    if (quoted)
        fputc('\'', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20 || c == 0x7f)
            fputc(' ', f);
        else if (c == '\'' && quoted)
            fputs("''", f);
        else if (c == '%' && where == RP_GP_TIC)
            fputs("%%", f);
        else if (c == '"' && where == RP_GP_DATA)
            fputc('\'', f);
        else
            fputc(c, f);
    }
    if (quoted)
        fputc('\'', f);
}

/* {"hack":32,"x":1} -> "hack=32 x=1": drop braces and quotes. */
void rp_axes_text(char *dst, size_t len, const char *json)
{
    size_t n = 0;
    for (; json && *json && n + 1 < len; json++) {
        char c = *json;
        if (c == '{' || c == '}' || c == '"')
            continue;
        dst[n++] = c == ':' ? '=' : c == ',' ? ' ' : c;
    }
    if (len)
        dst[n] = '\0';
}

/* strdup of a text column; "" for NULL. */
char *rp_column_dup(sqlite3_stmt *s, int col)
{
    const unsigned char *t = sqlite3_column_text(s, col);
    return strdup(t ? (const char *)t : "");
}

void rp_plot_blocks(FILE *f, const rp_series *s, const char *dat, const int *blocks,
                    const char *how)
{
    fprintf(f, "plot");
    int n = 0;
    for (int i = 0; i < s->n; i++) {
        if (blocks[i] < 0)
            continue;
        fprintf(f, "%s \\\n  ", n++ ? "," : "");
        rp_gp_name(f, dat, RP_GP_STRING);
        fprintf(f, " index %d %s lt %d title ", blocks[i], how, i + 1);
        rp_gp_name(f, s->name[i], RP_GP_STRING);
    }
}

/* s as HTML text (report_impl.h). */
void rp_html_text(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default:    /* control characters (not tab, newline) are no HTML text */
            fputc((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f ? ' ' : c, f);
        }
    }
}
