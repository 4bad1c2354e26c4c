/*
 * report_style.c — what every chart of the report shares in its look: the
 * colour-blind-safe palette with a point type per series, the head of a
 * chart's script (one operation, its title), the key outside the data,
 * names cut for tics and labels, the operations' names in titles.
 */
#include <math.h>
#include <string.h>

#include "report_impl.h"

/* Okabe and Ito's eight colours, told apart with any colour vision; the
 * yellow last (the palest on white). Point types: filled circle, square,
 * triangle up, diamond, triangle down, open circle, open square, cross. */
void rp_palette(FILE *f)
{
    static const char *const colours[RP_SERIES] = {
        "#0072B2", "#E69F00", "#009E73", "#D55E00",
        "#CC79A7", "#56B4E9", "#000000", "#F0E442"};
    static const int points[RP_SERIES] = {7, 5, 9, 13, 11, 6, 4, 2};
    for (int i = 0; i < RP_SERIES; i++)
        fprintf(f, "set linetype %d lc rgb '%s' lw 1.5 pt %d ps 0.8\n", i + 1, colours[i],
                points[i]);
    fprintf(f, "set linetype cycle %d\n", RP_SERIES);
}

void rp_chart_head(FILE *f, const char *op, const char *title)
{
    fprintf(f, "reset\nset datafile separator tab\n");
    if (op) {
        fprintf(f, "# operation: ");
        rp_gp_name(f, op, RP_GP_DATA);
        fputc('\n', f);
    }
    if (title) {
        fprintf(f, "set title ");
        rp_gp_name(f, title, RP_GP_STRING);
        fputc('\n', f);
    }
}

/* Below the plot, left to right; gnuplot wraps the entries into as many
 * columns as the width holds. */
void rp_key_below(FILE *f)
{
    fprintf(f, "set key outside below center horizontal Left reverse noautotitle "
               "samplen 1.5 spacing 1 width -1\n");
}

void rp_short_name(char *dst, size_t len, const char *name, size_t max)
{
    size_t n = strlen(name);
    if (max >= len)
        max = len - 1;
    if (n <= max || max < 8) {
        snprintf(dst, len, "%.*s", (int)max, name);
        return;
    }
    size_t tail = (max - 2) / 3, head = max - 2 - tail;
    snprintf(dst, len, "%.*s..%s", (int)head, name, name + n - tail);
}

const char *rp_op_title(const char *op)
{
    static const struct {
        const char *op, *title;
    } names[] = {{"spmv", "SpMV"}, {"transpose", "Transposition"}, {"sort", "Sort"}};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!strcmp(op, names[i].op))
            return names[i].title;
    return op;
}

/* Tic values v with v / 10^k in one of the mantissa sets, sparse to
 * dense: the first set that puts three tics or more in [lo, hi]. */
void rp_log_tics(FILE *f, const char *axis, double lo, double hi, int si)
{
    static const double sets[][12] = {
        {1}, {1, 2, 5}, {1, 1.5, 2, 3, 5, 7}, {1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8, 9}};
    static const int sizes[] = {1, 3, 6, 12};
    if (!(lo > 0) || !(hi > lo))
        return;
    int set = 0, count = 0;
    for (set = 0; set < 4; set++) {
        count = 0;
        for (int e = (int)floor(log10(lo)); e <= (int)ceil(log10(hi)); e++)
            for (int m = 0; m < sizes[set]; m++) {
                double v = sets[set][m] * pow(10, e);
                count += v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9);
            }
        if (count >= 3)
            break;
    }
    if (set == 4)
        set = 3;
    fprintf(f, "set %stics (", axis);
    int n = 0;
    for (int e = (int)floor(log10(lo)); e <= (int)ceil(log10(hi)); e++)
        for (int m = 0; m < sizes[set]; m++) {
            double v = sets[set][m] * pow(10, e);
            if (v < lo * (1 - 1e-9) || v > hi * (1 + 1e-9))
                continue;
            char label[32];
            if (si && v >= 1e9)
                snprintf(label, sizeof label, "%gG", v / 1e9);
            else if (si && v >= 1e6)
                snprintf(label, sizeof label, "%gM", v / 1e6);
            else if (si && v >= 1e3)
                snprintf(label, sizeof label, "%gk", v / 1e3);
            else
                snprintf(label, sizeof label, "%.6g", v);
            fprintf(f, "%s'%s' %.9g", n++ ? ", " : "", label, v);
        }
    fprintf(f, ")\n");
}

/* Words of text into lines of at most width characters, joined by "\n"
 * in a gnuplot string expression; a word longer than a line is cut. */
static void wrapped(FILE *f, const char *text, int width, int *lines)
{
    char line[256];
    size_t used = 0;
    if (width > (int)sizeof line - 1)
        width = (int)sizeof line - 1;
    while (*text) {
        while (*text == ' ')
            text++;
        size_t n = strcspn(text, " ");
        if (!n)
            break;
        if (used && used + 1 + n > (size_t)width) {
            line[used] = '\0';
            fprintf(f, "%s", (*lines)++ ? " . \"\\n\" . " : "");
            rp_gp_name(f, line, RP_GP_STRING);
            used = 0;
        }
        size_t take = n > (size_t)width ? (size_t)width : n;
        used += (size_t)snprintf(line + used, sizeof line - used, "%s%.*s", used ? " " : "",
                                 (int)take, text);
        text += n;
    }
    if (used) {
        line[used] = '\0';
        fprintf(f, "%s", (*lines)++ ? " . \"\\n\" . " : "");
        rp_gp_name(f, line, RP_GP_STRING);
    }
}

/* The axis label and its note wrapped to the width of one column, of two
 * columns and of a report page (sp_col 1, else). */
void rp_gp_label(FILE *f, const char *axis, const char *label, const char *note)
{
    rp_gp_label_width(f, axis, label, note, RP_LINE_1COL, RP_LINE_2COL);
}

void rp_gp_label_width(FILE *f, const char *axis, const char *label, const char *note,
                       int width_1col, int width_2col)
{
    const int widths[2] = {width_1col, width_2col};
    for (int i = 0; i < 2; i++) {
        int lines = 0;
        fprintf(f, i ? "} else {\n  set %slabel " : "if (exists('sp_col') && sp_col == 1) {\n"
                                                     "  set %slabel ", axis);
        wrapped(f, label, widths[i], &lines);
        if (note && *note)
            wrapped(f, note, widths[i], &lines);
        if (!lines)
            fprintf(f, "''");
        fputc('\n', f);
    }
    fprintf(f, "}\n");
}
