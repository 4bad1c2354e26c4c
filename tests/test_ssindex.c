/* test_ssindex.c — the SuiteSparse index (fetch/ssindex.c) and --select
 * expressions (fetch/ssselect.c), on the collection's real ssstats.csv. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fetch/fetch.h"
#include "testutil.h"

/* The real index (2893 matrices, 08-Oct-2020), inflated into a temp dir. */
static void real_index_path(char *path, size_t len)
{
    char dir[512], gz[1024];
    tu_tempdir(dir, sizeof dir);
    snprintf(gz, sizeof gz, "%s/ss/ssstats-2020.csv.gz", tu_datadir());
    tu_path(path, len, dir, "ssstats.csv");
    tu_gunzip(gz, path);
}

static sp_ss_index *load_real(void)
{
    char path[1024];
    real_index_path(path, sizeof path);
    sp_ss_index *ix;
    sp_err err;
    int skipped = -1;
    cr_assert_eq(sp_ss_index_load(path, NULL, &skipped, &ix, &err), 0, "%s", err.msg);
    cr_assert_eq(skipped, 0);
    return ix;
}

Test(ssindex, reads_the_collections_real_index)
{
    sp_ss_index *ix = load_real();
    cr_assert_eq(sp_ss_index_size(ix), 2893);
    cr_assert_str_eq(sp_ss_index_date(ix), "08-Oct-2020 17:09:58");
    sp_ss_entry e;
    sp_err err;
    cr_assert_eq(sp_ss_index_lookup(ix, "HB/bcsstk13", &e, &err), 0, "%s", err.msg);
    cr_assert(e.rows == 2003 && e.cols == 2003 && e.nnz == 83883, "%lld %lld %lld",
              (long long)e.rows, (long long)e.cols, (long long)e.nnz);
    cr_assert(e.real && !e.binary && e.posdef);
    cr_assert_str_eq(e.kind, "computational fluid dynamics problem");
    cr_assert_eq(sp_ss_index_lookup(ix, "olm1000", &e, &err), 0, "%s", err.msg);
    cr_assert_str_eq(e.group, "Bai");
    cr_assert_eq(e.nnz, 3996);
    cr_assert_eq(e.id, 319, "line 321 of the file is matrix 319");
    cr_assert_eq(sp_ss_index_lookup(ix, "HB/1138_bus", &e, &err), 0);
    cr_assert_eq(e.id, 1, "the first matrix of the file is id 1");
    sp_ss_index_free(ix);
}

Test(ssindex, names_resolve_exactly_then_case_insensitively)
{
    sp_ss_index *ix = load_real();
    sp_ss_entry e;
    sp_err err;
    cr_assert_eq(sp_ss_index_lookup(ix, "ml_laplace", &e, &err), 0, "%s", err.msg);
    cr_assert(!strcmp(e.group, "Janna") && !strcmp(e.name, "ML_Laplace"));
    cr_assert_eq(sp_ss_index_lookup(ix, "suitesparse_not_a_matrix", &e, &err), -1);
    cr_assert(strstr(err.msg, "not in the SuiteSparse index (2893 matrices"), "%s", err.msg);
    cr_assert_eq(sp_ss_index_lookup(ix, "HB/olm1000", &e, &err), -1, "wrong group");
    /* barth, barth4 and barth5 exist in two groups each */
    cr_assert_eq(sp_ss_index_lookup(ix, "barth", &e, &err), -1);
    cr_assert(strstr(err.msg, "ambiguous, 2 matrices") && strstr(err.msg, "Pothen/barth") &&
              strstr(err.msg, "Group/Name"), "%s", err.msg);
    sp_ss_index_free(ix);
}

/* Count by reading the CSV here, independently of SQLite. */
static int count_by_hand(const char *path, long lo, long hi)
{
    FILE *f = fopen(path, "r");
    char line[4096];
    int n = 0, lineno = 0;
    while (fgets(line, sizeof line, f)) {
        if (++lineno <= 2)
            continue;
        char group[128], name[128];
        long rows, cols, nnz;
        int real;
        if (sscanf(line, "%127[^,],%127[^,],%ld,%ld,%ld,%d", group, name, &rows, &cols, &nnz,
                   &real) == 6 &&
            nnz >= lo && nnz <= hi && real && rows == cols)
            n++;
    }
    fclose(f);
    return n;
}

Test(ssindex, select_evaluates_the_issue_example)
{
    char path[1024];
    real_index_path(path, sizeof path);
    sp_ss_index *ix;
    sp_err err;
    cr_assert_eq(sp_ss_index_load(path, NULL, NULL, &ix, &err), 0, "%s", err.msg);
    const char *expr = "nnz >= 1e6 and nnz <= 1e7 and real and rows = cols";
    sp_ss_entry *sel;
    int n;
    cr_assert_eq(sp_ss_index_select(ix, expr, 0, &sel, &n, &err), 0, "%s", err.msg);
    int expect = count_by_hand(path, 1000000, 10000000);
    cr_assert_gt(expect, 100);
    cr_assert_eq(n, expect);
    free(sel);
    cr_assert_eq(sp_ss_index_select(ix, expr, 20, &sel, &n, &err), 0, "%s", err.msg);
    cr_assert_eq(n, 20);
    for (int i = 0; i < n; i++) {
        cr_assert(sel[i].nnz >= 1000000 && sel[i].nnz <= 10000000 && sel[i].real &&
                  sel[i].rows == sel[i].cols, "%s/%s", sel[i].group, sel[i].name);
        cr_assert(i == 0 || sel[i - 1].nnz <= sel[i].nnz, "ordered by nnz");
    }
    free(sel);
    sp_ss_index_free(ix);
}

/* Matrices selected by expr (no limit); their count. */
static int select_count(sp_ss_index *ix, const char *expr, sp_ss_entry **sel)
{
    int n;
    sp_err err;
    cr_assert_eq(sp_ss_index_select(ix, expr, 0, sel, &n, &err), 0, "%s: %s", expr, err.msg);
    return n;
}

Test(ssindex, select_operators)
{
    sp_ss_index *ix = load_real();
    sp_ss_entry *s;
    int n = select_count(ix, "group = 'HB' and name like 'bcsstk%'", &s);
    cr_assert_gt(n, 30);
    for (int i = 0; i < n; i++)
        cr_assert(!strcmp(s[i].group, "HB") && !strncmp(s[i].name, "bcsstk", 6));
    free(s);
    n = select_count(ix, "nnz between 100 and 200 and not real", &s);
    for (int i = 0; i < n; i++)
        cr_assert(s[i].nnz >= 100 && s[i].nnz <= 200 && !s[i].real);
    free(s);
    n = select_count(ix, "group in ('Bai', \"Schmid\") and (psym = 1 or nnz > 2 * 1e5)", &s);
    cr_assert_gt(n, 0);
    for (int i = 0; i < n; i++)
        cr_assert((!strcmp(s[i].group, "Bai") || !strcmp(s[i].group, "Schmid")) &&
                  (s[i].psym == 1 || s[i].nnz > 200000));
    free(s);
    n = select_count(ix, "rows <> cols and kind like '%linear programming%'", &s);
    for (int i = 0; i < n; i++)
        cr_assert(s[i].rows != s[i].cols && strstr(s[i].kind, "linear programming"));
    free(s);
    sp_ss_index_free(ix);
}

Test(ssindex, literals_are_bound_never_spliced)
{
    sp_ss_index *ix = load_real();
    sp_ss_entry *s;
    /* the classic injection is just a name that no matrix has */
    cr_assert_eq(select_count(ix, "name = 'x'' or ''1''=''1'", &s), 0);
    free(s);
    char sql[512];
    sp_sql_param p[8];
    int np;
    sp_err err;
    cr_assert_eq(sp_ss_select_compile("group = 'HB' and nnz > 1e3", sql, sizeof sql, p, 8, &np,
                                      &err), 0, "%s", err.msg);
    cr_assert_str_eq(sql, "( \"grp\" = ? AND \"nnz\" > ? )");
    cr_assert_eq(np, 2);
    cr_assert(p[0].kind == 's' && !strcmp(p[0].text, "HB"));
    cr_assert(p[1].kind == 'n' && !strcmp(p[1].text, "1e3"));
    sp_ss_index_free(ix);
}

Test(ssindex, bad_expressions_name_the_place)
{
    static const struct {
        const char *expr, *msg;
    } cases[] = {
        {"nnz >= ", "at the end of the expression"},
        {"nnz >> 5", "column 6: expected a number, a 'string', a field or '('"},
        {"size > 5", "column 1: unknown field"},
        {"nnz > 1; drop table ssindex", "column 8: unexpected character, found ';'"},
        {"nnz > 1 real", "column 9: expected 'and', 'or' or the end"},
        {"(nnz > 1", "expected ')' at the end"},
        {"name = 'abc", "unterminated string"},
        {"nnz > 1e", "malformed number"},
        {"nnz between 1 or 5", "expected 'and' in 'between"},
        {"nnz not 5", "expected 'like', 'between' or 'in' after 'not'"},
        {"", "empty expression"},
        {"   ", "empty expression"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char sql[512];
        sp_sql_param p[8];
        int np;
        sp_err err = {{0}};
        cr_assert_eq(sp_ss_select_compile(cases[i].expr, sql, sizeof sql, p, 8, &np, &err), -1,
                     "'%s' compiled", cases[i].expr);
        cr_assert(strstr(err.msg, cases[i].msg), "'%s': %s", cases[i].expr, err.msg);
    }
}

Test(ssindex, malformed_lines_are_skipped_with_their_line_number)
{
    char dir[512], path[1024];
    tu_tempdir(dir, sizeof dir);
    tu_path(path, sizeof path, dir, "ssstats.csv");
    tu_write_file(path, "5\n21-Nov-2026 10:00:00\n"
                        "HB,good1,10,10,30,1,0,0,1,1,1,structural problem,30\n"
                        "HB,short,10,10\n"
                        "HB,badnum,ten,10,30,1,0,0,1,1,1,x,30\n"
                        "../etc,passwd,1,1,1,1,0,0,0,0,0,x,1\n"
                        "HB,good2,5,6,7,0,1,0,0,0.5,0,graph,7\n"
                        "HB,good1,10,10,30,1,0,0,1,1,1,structural problem,30\n");
    char wpath[1024];
    tu_path(wpath, sizeof wpath, dir, "warnings");
    FILE *w = fopen(wpath, "w+");
    sp_ss_index *ix;
    sp_err err;
    int skipped = 0;
    cr_assert_eq(sp_ss_index_load(path, w, &skipped, &ix, &err), 0, "%s", err.msg);
    cr_assert_eq(skipped, 4);
    cr_assert_eq(sp_ss_index_size(ix), 2);
    rewind(w);
    char text[4096] = "";
    size_t got = fread(text, 1, sizeof text - 1, w);
    text[got] = 0;
    fclose(w);
    cr_assert(strstr(text, "ssstats.csv:4: expected 12 or 13"), "%s", text);
    cr_assert(strstr(text, "ssstats.csv:5: rows, cols or nnz"), "%s", text);
    cr_assert(strstr(text, "ssstats.csv:6: group or name"), "%s", text);
    cr_assert(strstr(text, "ssstats.csv:8: Group/Name listed twice"), "%s", text);
    sp_ss_entry e;
    cr_assert_eq(sp_ss_index_lookup(ix, "good2", &e, &err), 0);
    cr_assert(e.rows == 5 && e.cols == 6 && e.binary && e.psym == 0.5);
    sp_ss_index_free(ix);
}

Test(ssindex, a_file_that_is_not_an_index_is_refused)
{
    char dir[512], path[1024];
    tu_tempdir(dir, sizeof dir);
    tu_path(path, sizeof path, dir, "ssstats.csv");
    tu_write_file(path, "<html><body>502 Bad Gateway</body></html>\n");
    sp_ss_index *ix;
    sp_err err;
    cr_assert_eq(sp_ss_index_load(path, NULL, NULL, &ix, &err), -1);
    cr_assert(strstr(err.msg, "ssstats.csv:1: expected the number of matrices"), "%s", err.msg);
    tu_path(path, sizeof path, dir, "absent.csv");
    cr_assert_eq(sp_ss_index_load(path, NULL, NULL, &ix, &err), -1);
    cr_assert(strstr(err.msg, "absent.csv: No such file"), "%s", err.msg);
}
