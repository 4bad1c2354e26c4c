/*
 * mm_number.c — fast, correctly rounded number parsing for the Matrix
 * Market reader.
 *
 * Decimal text to double: up to 19 significant digits fit a uint64 m, and
 * x = m · 10^e. When m < 2^53 and |e| <= 22 both factors are exact doubles
 * and one IEEE operation rounds correctly (Clinger's fast path). Otherwise,
 * for |e| <= 27, the same product in x87 long double (64-bit significand,
 * 10^27 exact) rounds once to 64 bits; rounding that to 53 bits is correct
 * unless the 64-bit value sits exactly on a midpoint between two doubles,
 * which the low 11 bits reveal. Everything else (more digits, larger
 * exponents, midpoints, inf/nan text) goes to strtod.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mm_read.h"

static const double pow10_d[23] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

#if LDBL_MANT_DIG == 64
/* 10^k for k <= 27 is exact in a 64-bit significand (5^27 < 2^64). */
static long double pow10_ld(int k)
{
    long double p = 1.0L;
    for (int i = 0; i < k; i++)
        p *= 10.0L;
    return p;
}

/* Round m·10^e via long double; 0 when the result needs strtod. */
static int long_double_path(uint64_t m, int e, double *out)
{
    static long double table[28];
    static int ready;
    if (!ready) {                   /* idempotent, so a race is harmless */
        for (int k = 0; k < 28; k++)
            table[k] = pow10_ld(k);
        ready = 1;
    }
    long double x = e < 0 ? (long double)m / table[-e] : (long double)m * table[e];
    uint64_t sig;
    memcpy(&sig, &x, sizeof sig);   /* x87 layout: significand in the low 8 bytes */
    if ((sig & 0x7FF) == 0x400)
        return 0;                   /* a midpoint: double rounding could differ */
    double d = (double)x;
    if (!(fabs(d) >= DBL_MIN) || isinf(d))
        return 0;                   /* subnormal, zero or overflow: leave to strtod */
    *out = d;
    return 1;
}
#else
static int long_double_path(uint64_t m, int e, double *out)
{
    (void)m, (void)e, (void)out;
    return 0;
}
#endif

/* strtod on [p, end): copies the token so the file need not be terminated. */
static const char *slow_path(const char *p, const char *end, double *v, int *range)
{
    char buf[512];
    size_t n = (size_t)(end - p);
    const char *q = p;
    while (q < end && (size_t)(q - p) < sizeof buf - 1 && *q != ' ' && *q != '\t' &&
           *q != '\n' && *q != '\r')
        q++;
    n = (size_t)(q - p);
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

const char *sp_mm_parse_double(const char *p, const char *end, double *v, int *range)
{
    const char *start = p;
    int neg = 0;
    *range = 0;
    if (p < end && (*p == '-' || *p == '+'))
        neg = (*p++ == '-');
    uint64_t m = 0;
    int digits = 0, dropped = 0, e = 0, any = 0;
    while (p < end && (unsigned)(*p - '0') < 10) {
        if (digits < 19) {
            m = m * 10 + (uint64_t)(*p - '0');
            digits += (m != 0);
        } else {
            dropped |= (*p != '0');
            e++;
        }
        p++, any = 1;
    }
    if (p < end && *p == '.') {
        p++;
        while (p < end && (unsigned)(*p - '0') < 10) {
            if (digits < 19) {
                m = m * 10 + (uint64_t)(*p - '0');
                digits += (m != 0);
                e--;
            } else {
                dropped |= (*p != '0');
            }
            p++, any = 1;
        }
    }
    if (!any)
        return slow_path(start, end, v, range);     /* inf, nan, or not a number */
    if (p < end && (*p == 'e' || *p == 'E')) {
        const char *q = p + 1;
        int eneg = 0, ex = 0, edig = 0;
        if (q < end && (*q == '-' || *q == '+'))
            eneg = (*q++ == '-');
        while (q < end && (unsigned)(*q - '0') < 10) {
            if (ex < 100000)
                ex = ex * 10 + (*q - '0');
            q++, edig = 1;
        }
        if (!edig)
            return NULL;
        e += eneg ? -ex : ex;
        p = q;
    }
    if (p < end && (*p == 'x' || *p == 'X' || *p == 'p' || *p == 'P'))
        return slow_path(start, end, v, range);     /* hexadecimal floats */
    double d;
    if (m == 0)
        d = 0.0;
    else if (!dropped && m <= (1ull << 53) && e >= -22 && e <= 22)
        d = e < 0 ? (double)m / pow10_d[-e] : (double)m * pow10_d[e];
    else if (dropped || e < -27 || e > 27 || !long_double_path(m, e, &d))
        return slow_path(start, end, v, range);
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
    while (p < end && (unsigned)(*p - '0') < 10) {
        uint64_t d = (uint64_t)(*p - '0');
        if (x > (UINT64_MAX - d) / 10)
            *range = 1;                 /* keeps scanning to the token's end */
        else
            x = x * 10 + d;
        p++;
    }
    if (p == digits)
        return NULL;
    if (x > (uint64_t)INT64_MAX)
        *range = 1;
    *v = neg ? -(int64_t)x : (int64_t)x;
    return p;
}
