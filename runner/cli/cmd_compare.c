/*
 * cmd_compare.c — `spsweep compare A.db B.db`: every combination of a
 * sweep of A (the base) against the same combination in a sweep of B,
 * judged faster, slower, same or noisy by db/compare.h (one definition,
 * shared with the report's change table), printed as a table like
 * nvbench_compare's or as CSV. Both databases are opened read-only.
 * Exit status: 0 when no combination is slower, SP_COMPARE_SLOWER (3)
 * when one is (for CI scripts), 1 on an error, 2 on a command line that
 * cannot be parsed.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../db/compare.h"
#include "../../db/store.h"
#include "cli.h"
#include "../exec/sweep.h"
#include "commands.h"

#define SP_COMPARE_SLOWER 3

enum { O_SWEEP_A = 1, O_SWEEP_B, O_EFFECT, O_ALPHA, O_NOISE, O_CSV };

static const sp_cli_opt compare_opts[] = {
    {"sweep-a", "ID", O_SWEEP_A, "sweep of A (default: the latest with successful runs)"},
    {"sweep-b", "ID", O_SWEEP_B, "sweep of B (likewise)"},
    {"min-effect", "PCT", O_EFFECT, "smallest difference called, in % of A's median "
     "(default 2)"},
    {"alpha", "P", O_ALPHA, "the rank test's level (default 0.05)"},
    {"max-noise", "PCT", O_NOISE, "half-width of a run's 95% interval, in % of its "
     "median, above which a run is too noisy to judge (default: its sweep's `noisy` "
     "setting, 5 unless the config said otherwise)"},
    {"csv", NULL, O_CSV, "one CSV row per combination instead of the table"},
    {NULL, NULL, 0, NULL},
};

const sp_cli_cmd sp_cli_compare = {
    .name = "compare",
    .synopsis = "A.db B.db [options]",
    .summary = "each combination of one database against the same one in another: "
               "faster, slower, same or noisy",
    .about = "Each combination (matrix source, operation, kernel, axes) of a sweep of A "
             "(the base) against the same combination in a sweep of B: 'noisy' when "
             "either run is (run_stats.noisy: no interval, or a half-width above the "
             "threshold); else B is 'slower' or 'faster' only when a two-sided "
             "Mann-Whitney U test of the two runs' samples gives p < alpha, the medians "
             "differ by more than the minimum effect, and the gap exceeds both runs' "
             "half-width; otherwise 'same'. Both databases are opened read-only.",
    .opts = compare_opts,
    .exits = "0 nothing slower, 3 something slower, 1 an error (a bad value, a database "
             "or sweep that cannot be read), 2 a command line that cannot be parsed",
    .examples = "results/old.db results/results.db\n"
                "base.db new.db --min-effect 5 --csv > changes.csv",
};

typedef struct compare_cli {
    const char *path[2];
    int64_t sweep[2];
    sp_cmp_opts opts;
    int csv;
} compare_cli;

/* A sweep id: digits only, at least 1 (as export's --sweep). */
static int parse_sweep_id(const char *opt, const char *v, int64_t *out)
{
    errno = 0;
    long long x = *v && v[strspn(v, "0123456789")] == '\0' ? strtoll(v, NULL, 10) : 0;
    if (x < 1 || errno) {
        fprintf(stderr, "spsweep compare: --%s '%s': expected a positive integer (a sweep "
                        "id)\n", opt, v);
        return 1;
    }
    *out = x;
    return 0;
}

/* A number in [lo, hi] (a trailing '%' allowed when percent), times scale. */
static int parse_number(const char *opt, const char *v, double lo, double hi, int percent,
                        double *out)
{
    char *end;
    double x = strtod(v, &end);
    if (percent && *end == '%')
        end++;
    if (!*v || *end || !(x >= lo && x <= hi)) {
        fprintf(stderr, "spsweep compare: --%s '%s': expected a number in %g..%g%s\n", opt,
                v, lo, hi, percent ? " (percent)" : "");
        return 1;
    }
    *out = percent ? x / 100 : x;
    return 0;
}

/* 0 parsed, -1 --help printed, else the exit status of a bad command line. */
static int parse_compare(int argc, char **argv, compare_cli *c)
{
    memset(c, 0, sizeof *c);
    sp_cmp_opts_default(&c->opts);
    int opt, bad = 0;
    sp_cli_parser p;
    sp_cli_begin(&p, &sp_cli_compare);
    while (!bad && (opt = sp_cli_next(&p, argc, argv)) != SP_CLI_END) {
        switch (opt) {
        case SP_CLI_HELP: return -1;
        case SP_CLI_BAD: return SP_EXIT_USAGE;
        case O_SWEEP_A: bad = parse_sweep_id("sweep-a", optarg, &c->sweep[0]); break;
        case O_SWEEP_B: bad = parse_sweep_id("sweep-b", optarg, &c->sweep[1]); break;
        case O_EFFECT:
            bad = parse_number("min-effect", optarg, 0, 1000, 1, &c->opts.min_effect);
            break;
        case O_ALPHA: bad = parse_number("alpha", optarg, 1e-300, 1, 0, &c->opts.alpha); break;
        case O_NOISE:
            bad = parse_number("max-noise", optarg, 0, 1000, 1, &c->opts.max_noise);
            break;
        case O_CSV: c->csv = 1; break;
        }
    }
    if (!bad && argc - optind != 2) {
        fprintf(stderr, "spsweep compare: expected two databases, A.db and B.db; see "
                "`spsweep compare --help`\n");
        return 1;
    }
    c->path[0] = bad ? NULL : argv[optind];
    c->path[1] = bad ? NULL : argv[optind + 1];
    return bad;
}

/* Open side i read-only, pick its sweep, load its runs. */
static int load_side(compare_cli *c, int i, sp_cmp_set *set, sp_err *err)
{
    sp_store *st;
    if (sp_store_open_readonly(c->path[i], &st, err))
        return -1;
    int rc = sp_cmp_pick_sweep(sp_store_db(st), c->path[i], i ? "--sweep-b" : "--sweep-a",
                               &c->sweep[i], err) ||
             sp_cmp_load(sp_store_db(st), c->path[i], c->sweep[i], set, err);
    sp_store_close(st);
    return rc ? -1 : 0;
}

/* {"threads":4,"blocksize":128} -> threads=4 blocksize=128; "-" for {}. */
static void axes_text(const char *json, char *out, size_t len)
{
    size_t n = 0;
    for (const char *p = json; *p && n + 1 < len; p++)
        if (*p == ':')
            out[n++] = '=';
        else if (*p == ',')
            out[n++] = ' ';
        else if (!strchr("{}\"", *p))
            out[n++] = *p;
    out[n] = '\0';
    if (!n)
        snprintf(out, len, "-");
}

/* Seconds with a unit that keeps 4 significant digits readable. */
static void time_text(double s, char *out, size_t len)
{
    if (s < 1e-3)
        snprintf(out, len, "%.4g us", s * 1e6);
    else if (s < 1)
        snprintf(out, len, "%.4g ms", s * 1e3);
    else
        snprintf(out, len, "%.4g s", s);
}

enum { NCOLS = 12, CELL = 96 };
static const char *const table_head[NCOLS] = {
    "matrix", "operation", "kernel", "axes", "A median", "A noise", "B median", "B noise",
    "B/A", "B/A bounds", "p", "verdict"};

/* The cells of one row of the table. */
static void row_cells(const sp_cmp_row *r, char cell[NCOLS][CELL])
{
    const sp_cmp_run *k = r->b ? r->b : r->a;
    snprintf(cell[0], CELL, "%s", k->matrix);
    snprintf(cell[1], CELL, "%s", k->operation);
    snprintf(cell[2], CELL, "%s", k->kernel);
    axes_text(k->axes, cell[3], CELL);
    for (int side = 0; side < 2; side++) {
        const sp_cmp_run *x = side ? r->b : r->a;
        if (!x) {
            snprintf(cell[4 + 2 * side], CELL, "-");
            snprintf(cell[5 + 2 * side], CELL, "-");
            continue;
        }
        time_text(x->median, cell[4 + 2 * side], CELL);
        snprintf(cell[5 + 2 * side], CELL, "%s%.2f%%", x->from_range ? "range " : "",
                 100 * sp_cmp_noise(x));
    }
    int both = r->a && r->b;
    snprintf(cell[8], CELL, both ? "%.3f" : "-", r->ratio);
    snprintf(cell[9], CELL, both ? "[%.3f, %.3f]" : "-", r->ratio_lo, r->ratio_hi);
    snprintf(cell[10], CELL, both ? "%.2g" : "-", r->p);
    snprintf(cell[11], CELL, "%s", sp_cmp_verdict_name(r->verdict));
}

/* One line of the Markdown table, cells padded to widths w. */
static void table_line(FILE *f, const char *const *cells, const int *w)
{
    for (int c = 0; c < NCOLS; c++)
        fprintf(f, "| %-*s ", w[c], cells[c]);
    fputs("|\n", f);
}

static int print_table(const compare_cli *c, const sp_cmp_row *rows, int n)
{
    char(*cells)[NCOLS][CELL] = malloc((size_t)(n ? n : 1) * sizeof *cells);
    if (!cells)
        return -1;
    int w[NCOLS];
    for (int k = 0; k < NCOLS; k++)
        w[k] = (int)strlen(table_head[k]);
    for (int i = 0; i < n; i++) {
        row_cells(&rows[i], cells[i]);
        for (int k = 0; k < NCOLS; k++)
            w[k] = (int)strlen(cells[i][k]) > w[k] ? (int)strlen(cells[i][k]) : w[k];
    }
    printf("A: %s, sweep %lld    B: %s, sweep %lld\n", c->path[0], (long long)c->sweep[0],
           c->path[1], (long long)c->sweep[1]);
    char limit[64];
    if (c->opts.max_noise >= 0)
        snprintf(limit, sizeof limit, "above %g%% of its median", 100 * c->opts.max_noise);
    else
        snprintf(limit, sizeof limit, "above its sweep's noisy threshold");
    printf("noisy: a run without an interval, or its half-width %s; else slower/faster: "
           "Mann-Whitney p < %g, |B/A - 1| > %g%%, gap beyond both runs' half-width\n\n",
           limit, c->opts.alpha, 100 * c->opts.min_effect);
    table_line(stdout, table_head, w);
    for (int k = 0; k < NCOLS; k++)
        printf("|%.*s", w[k] + 2, "--------------------------------------------------------"
                                  "--------------------------------------------------------");
    puts("|");
    for (int i = 0; i < n; i++) {
        const char *p[NCOLS];
        for (int k = 0; k < NCOLS; k++)
            p[k] = cells[i][k];
        table_line(stdout, p, w);
    }
    free(cells);
    return 0;
}

/* A CSV field, quoted as RFC 4180 wants when needed. */
static void csv_text(const char *v, int last)
{
    if (strpbrk(v, ",\"\r\n")) {
        putchar('"');
        for (; *v; v++) {
            if (*v == '"')
                putchar('"');
            putchar(*v);
        }
        putchar('"');
    } else {
        fputs(v, stdout);
    }
    fputs(last ? "\r\n" : ",", stdout);
}

/* A number field; empty for NaN or a missing side. */
static void csv_number(int present, double x)
{
    if (present && !isnan(x))
        printf("%.9g", x);
    putchar(',');
}

static void print_csv(const sp_cmp_row *rows, int n)
{
    fputs("matrix,source,operation,kernel,axes,a_run_id,a_n,a_median_s,a_ci_lo_s,a_ci_hi_s,"
          "a_noise,a_from_range,b_run_id,b_n,b_median_s,b_ci_lo_s,b_ci_hi_s,b_noise,"
          "b_from_range,ratio,ratio_lo,ratio_hi,p_value,test,verdict\r\n", stdout);
    for (int i = 0; i < n; i++) {
        const sp_cmp_row *r = &rows[i];
        const sp_cmp_run *k = r->b ? r->b : r->a;
        csv_text(k->matrix, 0);
        csv_text(k->source, 0);
        csv_text(k->operation, 0);
        csv_text(k->kernel, 0);
        csv_text(k->axes, 0);
        for (int side = 0; side < 2; side++) {
            const sp_cmp_run *x = side ? r->b : r->a;
            if (x)
                printf("%lld,%d,", (long long)x->run_id, x->n);
            else
                fputs(",,", stdout);
            csv_number(!!x, x ? x->median : 0);
            csv_number(!!x, x ? x->lo : 0);
            csv_number(!!x, x ? x->hi : 0);
            csv_number(!!x, x ? sp_cmp_noise(x) : 0);
            if (x)
                printf("%d", x->from_range);
            putchar(',');
        }
        int both = r->a && r->b;
        csv_number(both, r->ratio);
        csv_number(both, r->ratio_lo);
        csv_number(both, r->ratio_hi);
        csv_number(both, r->p);
        csv_text(both ? sp_mwu_method_name(r->method) : "", 0);
        csv_text(sp_cmp_verdict_name(r->verdict), 1);
    }
}

/* "12 compared: 1 slower, 2 faster, 0 noisy, 9 same; 0 only in A, 1 only in B". */
static void print_summary(const int *k)
{
    int compared = k[SP_CMP_SLOWER] + k[SP_CMP_FASTER] + k[SP_CMP_NOISY] + k[SP_CMP_SAME];
    printf("\n%d compared: %d slower, %d faster, %d noisy, %d same; %d only in A (gone), "
           "%d only in B (new)\n", compared, k[SP_CMP_SLOWER], k[SP_CMP_FASTER],
           k[SP_CMP_NOISY], k[SP_CMP_SAME], k[SP_CMP_GONE], k[SP_CMP_NEW]);
}

int sp_cmd_compare(int argc, char **argv)
{
    compare_cli c;
    int parsed = parse_compare(argc, argv, &c);
    if (parsed)
        return parsed < 0 ? 0 : parsed;
    sp_err err;
    sp_cmp_set a = {0}, b = {0};
    sp_cmp_row *rows = NULL;
    int n = 0, counts[SP_CMP_NVERDICTS];
    int rc = load_side(&c, 0, &a, &err) || load_side(&c, 1, &b, &err) ||
             sp_cmp_pair(&a, &b, &c.opts, &rows, &n, &err);
    if (!rc && !c.csv && print_table(&c, rows, n))
        rc = sp_fail(&err, "compare: out of memory printing the table");
    if (!rc && c.csv)
        print_csv(rows, n);
    if (!rc) {
        sp_cmp_count(rows, n, counts);
        if (!c.csv)
            print_summary(counts);
    }
    free(rows);
    sp_cmp_set_free(&a);
    sp_cmp_set_free(&b);
    if (rc) {
        fprintf(stderr, "spsweep compare: %s\n", err.msg);
        return 1;
    }
    if (fflush(stdout) || ferror(stdout)) {
        fprintf(stderr, "spsweep compare: writing the output failed\n");
        return 1;
    }
    return counts[SP_CMP_SLOWER] ? SP_COMPARE_SLOWER : 0;
}
