/*
 * mm_number.c — decimal text to double and int64 with every case handled:
 * the careful path of the reader (mm_entry.c, the banner's size line).
 * The common case converts without strtod, correctly rounded
 * (mm_fast_scale in mm_fast.h says why that is exact); more than 19
 * significant digits, exponents beyond its range, midpoints, hex floats
 * and inf/nan text go to strtod.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mm_fast.h"

/* strtod on [p, end): copies the token so the text need not be terminated. */
static const char *strtod_path(const char *p, const char *end, double *v, int *range)
{
    char buf[512];
    const char *q = p;
    while (q < end && (size_t)(q - p) < sizeof buf - 1 && *q != ' ' && *q != '\t' &&
           *q != '\n' && *q != '\r')
        q++;
    size_t n = (size_t)(q - p);
    memcpy(buf, p, n);
    buf[n] = 0;
    char *stop;
    errno = 0;
    double x = strtod(buf, &stop);
    if (stop == buf)
        return NULL;
    /* 1: overflow; 2: inf or nan written out (benchmarks need finite values) */
    *range = errno == ERANGE && fabs(x) > 1.0 ? 1 : !isfinite(x) ? 2 : 0;
    *v = x;
    return p + (stop - buf);
}

/* Digits at p into m (the first 19 significant ones; later nonzero ones
 * set *dropped). *e counts the digits not kept (integer part) or kept
 * (fraction part, frac = 1) as powers of ten. */
static const char *scan_digits(const char *p, const char *end, int frac, uint64_t *m,
                               int *sig, int *e, int *dropped)
{
    for (; p < end && (unsigned)(*p - '0') < 10; p++) {
        if (*sig < 19) {
            *m = *m * 10 + (uint64_t)(*p - '0');
            *sig += (*m != 0);          /* leading zeros are not significant */
            *e -= frac;
        } else {
            *dropped |= (*p != '0');
            *e += !frac && *e < 1000000;
        }
    }
    return p;
}

/* An exponent "e[+-]ddd" at p; NULL when the digits are missing. */
static const char *scan_exponent(const char *p, const char *end, int *e)
{
    int neg = 0, x = 0;
    if (p < end && (*p == '-' || *p == '+'))
        neg = (*p++ == '-');
    const char *digits = p;
    for (; p < end && (unsigned)(*p - '0') < 10; p++)
        if (x < 1000000)
            x = x * 10 + (*p - '0');
    if (p == digits)
        return NULL;
    *e += neg ? -x : x;
    return p;
}

const char *sp_mm_parse_double(const char *p, const char *end, double *v, int *range)
{
    const char *start = p;
    int neg = 0, sig = 0, e = 0, dropped = 0;
    uint64_t m = 0;
    *range = 0;
    if (p < end && (*p == '-' || *p == '+'))
        neg = (*p++ == '-');
    const char *digits = p;
    p = scan_digits(p, end, 0, &m, &sig, &e, &dropped);
    int any = p > digits;
    if (p < end && *p == '.') {
        const char *q = scan_digits(p + 1, end, 1, &m, &sig, &e, &dropped);
        any |= q > p + 1;
        p = q;
    }
    if (!any)
        return strtod_path(start, end, v, range);     /* inf, nan, or no number */
    if (p < end && (*p == 'x' || *p == 'X'))
        return strtod_path(start, end, v, range);     /* hexadecimal float */
    if (p < end && (*p == 'e' || *p == 'E') && !(p = scan_exponent(p + 1, end, &e)))
        return NULL;
    double d;
    if (dropped || !mm_fast_scale(m, e, &d))
        return strtod_path(start, end, v, range);
    *v = neg ? -d : d;
    return p;
}

const char *sp_mm_parse_int(const char *p, const char *end, int64_t *v, int *range)
{
    int neg = 0;
    *range = 0;
    if (p < end && (*p == '-' || *p == '+'))
        neg = (*p++ == '-');
    const char *digits = p;
    uint64_t x = 0;
    for (; p < end && (unsigned)(*p - '0') < 10; p++) {
        uint64_t d = (uint64_t)(*p - '0');
        if (x > (UINT64_MAX - d) / 10)
            *range = 1;                 /* keeps scanning to the token's end */
        else
            x = x * 10 + d;
    }
    if (p == digits)
        return NULL;
    if (x > (uint64_t)INT64_MAX + (uint64_t)neg)
        *range = 1;
    *v = neg ? (int64_t)(0 - x) : (int64_t)x;
    return p;
}
