/*
 * mm_lex.c — the bottom of the Matrix Market reader: moving over blanks,
 * line ends and comment lines, the line number of a position, and the
 * "PATH:LINE: problem" error every other mm_*.c file reports through.
 * It calls nothing of the reader's (numbers are mm_number.c's, also at the
 * bottom), so the reader's files form a stack: lexer and numbers, entries
 * (mm_entry.c), header (mm_banner.c), the passes (mm_count.c, mm_body.c),
 * memory (mm_fit.c, mm_rows.c), the CSR and parallel builds (mm_csr.c,
 * mm_par*.c), and mm_read.c on top.
 */
#include <stdarg.h>
#include <stdio.h>

#include "mm_fast.h"

const char *mm_skip_blanks(const char *p, const char *end)
{
    while (p < end && mm_is_blank(*p))
        p++;
    return p;
}

const char *mm_next_line(const char *p, const char *end)
{
    while (p < end && !mm_is_eol(*p))
        p++;
    if (p < end && *p == '\r')
        p++;
    if (p < end && *p == '\n')
        p++;
    return p;
}

const char *mm_skip_comments(const char *p, const char *end)
{
    for (;;) {
        p = mm_skip_blanks(p, end);
        if (p < end && (mm_is_eol(*p) || *p == '%'))
            p = mm_next_line(p, end);
        else
            return p;
    }
}

long mm_line_of(const mm_text *t, const char *at)
{
    long line = 1;
    if (at >= t->end && at > t->buf && mm_is_eol(at[-1]))
        at--;                   /* at the end: the last line, not the empty one after it */
    for (const char *q = t->buf; q < at && q < t->end; q++)
        line += (*q == '\n') || (*q == '\r' && (q + 1 == t->end || q[1] != '\n'));
    return line;
}

int mm_fail(const mm_text *t, const char *at, sp_err *err, const char *fmt, ...)
{
    if (!err)
        return -1;              /* a probe (the count pass): no message wanted */
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return sp_fail(err, "%s:%ld: %s", t->path, mm_line_of(t, at), msg);
}
