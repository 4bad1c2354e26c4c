/*
 * ssselect.c — `--select` expressions over the SuiteSparse index, e.g.
 *   nnz >= 1e6 and nnz <= 1e7 and real and rows = cols
 *
 * The expression is never pasted into SQL. It is parsed here, token by
 * token, against a small grammar; fields become quoted column names of the
 * index table, literals become bound parameters, and only the grammar's
 * own keywords and operators reach the SQL text. An expression that does
 * not parse is refused with the column where it went wrong.
 *
 *   expr  := and ('or' and)*             pred := sum [cmp sum
 *   and   := not ('and' not)*                         | ['not'] 'like' sum
 *   not   := 'not' not | pred                         | ['not'] 'between' sum 'and' sum
 *   sum   := term (('+'|'-') term)*                   | ['not'] 'in' '(' sum (',' sum)* ')']
 *   term  := unary (('*'|'/') unary)*    cmp  := = == != <> < <= > >=
 *   unary := '-' unary | number | 'string' | field | true | false | '(' expr ')'
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fetch.h"

/* Field names a user may write, and the index column each reads. */
static const struct {
    const char *field, *column;
} FIELDS[] = {
    {"group", "grp"},   {"name", "name"},     {"rows", "rows"},   {"nrows", "rows"},
    {"cols", "cols"},   {"ncols", "cols"},    {"nnz", "nnz"},     {"real", "real"},
    {"binary", "binary"}, {"nd", "nd"},       {"posdef", "posdef"}, {"psym", "psym"},
    {"nsym", "nsym"},   {"kind", "kind"},     {"id", "id"},
    {"pattern_entries", "pattern_entries"},
};

typedef enum { T_END, T_NUM, T_STR, T_WORD, T_OP } tok_kind;

typedef struct parser {
    const char *src, *p;
    tok_kind kind;
    const char *tok;            /* start of the current token in src */
    size_t len;
    char *sql;
    size_t cap, used;
    sp_sql_param *params;
    int maxp, np;
    sp_err *err;
    int failed;
} parser;

/* Record the first error, pointing at the current token. */
static int fail_here(parser *P, const char *what)
{
    if (P->failed++)
        return -1;
    if (P->kind == T_END)
        return sp_fail(P->err, "--select '%s': %s at the end of the expression", P->src, what);
    return sp_fail(P->err, "--select '%s': column %d: %s, found '%.*s'", P->src,
                   (int)(P->tok - P->src) + 1, what, (int)P->len, P->tok);
}

/* Length of a number token at s (digits, '.', exponent), 0 when none. */
static size_t number_length(const char *s)
{
    char *end;
    if (!isdigit((unsigned char)s[0]) && !(s[0] == '.' && isdigit((unsigned char)s[1])))
        return 0;
    strtod(s, &end);
    return (size_t)(end - s);
}

/* Advance to the next token. */
static int next(parser *P)
{
    while (isspace((unsigned char)*P->p))
        P->p++;
    const char *s = P->p;
    P->tok = s;
    size_t n;
    if (!*s) {
        P->kind = T_END, n = 0;
    } else if ((n = number_length(s))) {
        P->kind = T_NUM;
        if (isalnum((unsigned char)s[n]) || s[n] == '_' || s[n] == '.') {
            P->len = n + 1;
            return fail_here(P, "malformed number");
        }
    } else if (isalpha((unsigned char)*s) || *s == '_') {
        P->kind = T_WORD;
        for (n = 1; isalnum((unsigned char)s[n]) || s[n] == '_'; n++)
            ;
    } else if (*s == '\'' || *s == '"') {
        P->kind = T_STR;
        for (n = 1; s[n] && !(s[n] == *s && s[n + 1] != *s); n += s[n] == *s ? 2 : 1)
            ;
        if (!s[n]) {
            P->len = n;
            return fail_here(P, "unterminated string");
        }
        n++;
    } else {
        static const char *const ops[] = {"<=", ">=", "<>", "!=", "==", "=", "<", ">", "+",
                                          "-",  "*",  "/",  "(",  ")",  ",", NULL};
        P->kind = T_OP;
        n = 0;
        for (int i = 0; ops[i] && !n; i++)
            if (!strncmp(s, ops[i], strlen(ops[i])))
                n = strlen(ops[i]);
        if (!n) {
            P->len = 1;
            return fail_here(P, "unexpected character");
        }
    }
    P->len = n;
    P->p = s + n;
    return 0;
}

/* True when the current token is the word or operator w. */
static int is(const parser *P, const char *w)
{
    return (P->kind == T_WORD || P->kind == T_OP) && P->len == strlen(w) &&
           !strncasecmp(P->tok, w, P->len);
}

/* Append text to the SQL being built. */
static int emit(parser *P, const char *text)
{
    size_t n = strlen(text);
    if (P->used + n + 1 > P->cap) {
        P->failed++;
        return sp_fail(P->err, "--select '%.60s...': expression too long", P->src);
    }
    memcpy(P->sql + P->used, text, n + 1);
    P->used += n;
    return 0;
}

/* A literal becomes a bound parameter. */
static int emit_param(parser *P, char kind, const char *text, size_t len)
{
    if (P->np == P->maxp || len >= sizeof P->params[0].text) {
        P->failed++;
        return sp_fail(P->err, "--select '%.60s': too many or too long literals", P->src);
    }
    P->params[P->np].kind = kind;
    snprintf(P->params[P->np].text, sizeof P->params[0].text, "%.*s", (int)len, text);
    P->np++;
    return emit(P, " ?");
}

/* A quoted string's contents, doubled quotes undone, as a parameter. */
static int emit_string(parser *P)
{
    char buf[256];
    size_t k = 0;
    for (size_t i = 1; i + 1 < P->len && k + 1 < sizeof buf; i++) {
        buf[k++] = P->tok[i];
        if (P->tok[i] == P->tok[0])
            i++;
    }
    return emit_param(P, 's', buf, k);
}

/* The column of a field name, or NULL. */
static const char *field_column(const parser *P)
{
    for (size_t i = 0; i < sizeof FIELDS / sizeof FIELDS[0]; i++)
        if (strlen(FIELDS[i].field) == P->len && !strncasecmp(P->tok, FIELDS[i].field, P->len))
            return FIELDS[i].column;
    return NULL;
}

/* Consume the keyword/operator w or fail with what was expected. */
static int expect(parser *P, const char *w, const char *what)
{
    if (!is(P, w))
        return fail_here(P, what);
    return next(P);
}

static int parse_or(parser *P);
static int parse_sum(parser *P);

static int parse_atom(parser *P)
{
    const char *col;
    char quoted[64];
    if (P->kind == T_NUM)
        return emit_param(P, 'n', P->tok, P->len) || next(P);
    if (P->kind == T_STR)
        return emit_string(P) || next(P);
    if (is(P, "true") || is(P, "false"))
        return emit(P, is(P, "true") ? " 1" : " 0") || next(P);
    if (P->kind == T_WORD && (col = field_column(P))) {
        snprintf(quoted, sizeof quoted, " \"%s\"", col);
        return emit(P, quoted) || next(P);
    }
    if (is(P, "("))
        return emit(P, " (") || next(P) || parse_or(P) || expect(P, ")", "expected ')'") ||
               emit(P, " )");
    if (P->kind == T_WORD)
        return fail_here(P, "unknown field (fields: group, name, rows, cols, nnz, real, "
                            "binary, nd, posdef, psym, nsym, kind, id, pattern_entries)");
    return fail_here(P, "expected a number, a 'string', a field or '('");
}

static int parse_unary(parser *P)
{
    if (is(P, "-"))
        return emit(P, " -") || next(P) || parse_unary(P);
    return parse_atom(P);
}

static int parse_term(parser *P)
{
    if (parse_unary(P))
        return -1;
    while (is(P, "*") || is(P, "/"))
        if (emit(P, is(P, "*") ? " *" : " /") || next(P) || parse_unary(P))
            return -1;
    return 0;
}

static int parse_sum(parser *P)
{
    if (parse_term(P))
        return -1;
    while (is(P, "+") || is(P, "-"))
        if (emit(P, is(P, "+") ? " +" : " -") || next(P) || parse_term(P))
            return -1;
    return 0;
}

/* The comparison operator at P as SQL, or NULL. */
static const char *comparison(const parser *P)
{
    static const char *const ops[][2] = {{"=", " ="},   {"==", " ="}, {"!=", " <>"},
                                         {"<>", " <>"}, {"<", " <"},  {"<=", " <="},
                                         {">", " >"},   {">=", " >="}};
    if (P->kind != T_OP)
        return NULL;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (is(P, ops[i][0]))
            return ops[i][1];
    return NULL;
}

/* 'in' '(' sum (',' sum)* ')' after the left side. */
static int parse_in_list(parser *P)
{
    if (emit(P, " IN") || next(P) || expect(P, "(", "expected '(' after 'in'") ||
        emit(P, " (") || parse_sum(P))
        return -1;
    while (is(P, ","))
        if (emit(P, " ,") || next(P) || parse_sum(P))
            return -1;
    return expect(P, ")", "expected ',' or ')' in the 'in' list") || emit(P, " )");
}

static int parse_pred(parser *P)
{
    if (parse_sum(P))
        return -1;
    const char *op = comparison(P);
    if (op)
        return emit(P, op) || next(P) || parse_sum(P);
    if (is(P, "not")) {
        if (emit(P, " NOT") || next(P))
            return -1;
        if (!is(P, "like") && !is(P, "between") && !is(P, "in"))
            return fail_here(P, "expected 'like', 'between' or 'in' after 'not'");
    }
    if (is(P, "like"))
        return emit(P, " LIKE") || next(P) || parse_sum(P);
    if (is(P, "between"))
        return emit(P, " BETWEEN") || next(P) || parse_sum(P) ||
               expect(P, "and", "expected 'and' in 'between ... and ...'") ||
               emit(P, " AND") || parse_sum(P);
    if (is(P, "in"))
        return parse_in_list(P);
    return 0;
}

static int parse_not(parser *P)
{
    if (is(P, "not"))
        return emit(P, " NOT") || next(P) || parse_not(P);
    return parse_pred(P);
}

static int parse_and(parser *P)
{
    if (parse_not(P))
        return -1;
    while (is(P, "and"))
        if (emit(P, " AND") || next(P) || parse_not(P))
            return -1;
    return 0;
}

static int parse_or(parser *P)
{
    if (parse_and(P))
        return -1;
    while (is(P, "or"))
        if (emit(P, " OR") || next(P) || parse_and(P))
            return -1;
    return 0;
}

int sp_ss_select_compile(const char *expr, char *sql, size_t len, sp_sql_param *params,
                         int maxp, int *nparams, sp_err *err)
{
    parser P = {.src = expr ? expr : "", .sql = sql, .cap = len, .params = params,
                .maxp = maxp, .err = err};
    P.p = P.src;
    *nparams = 0;
    if (len)
        sql[0] = '\0';
    if (next(&P))
        return -1;
    if (P.kind == T_END)
        return sp_fail(err, "--select: empty expression");
    if (emit(&P, "(") || parse_or(&P))
        return -1;
    if (P.kind != T_END)
        return fail_here(&P, "expected 'and', 'or' or the end of the expression");
    if (emit(&P, " )"))
        return -1;
    *nparams = P.np;
    return 0;
}
