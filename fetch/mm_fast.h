/*
 * mm_fast.h — the inline scanning and number parsing behind the reader's
 * fast loops (mm_body.c, mm_count.c).
 *
 * They read past what they parse, up to 32 bytes: the text always has
 * MM_PAD zero bytes after it, and a zero byte stops every scan. They
 * accept only the common shapes (digits, at most 19 significant digits,
 * small exponents) and return NULL on anything else, sending the line to
 * the careful parser (mm_entry.c), which accepts it or says what is wrong.
 *
 * Each loop finds the end of a line (find_eol) from the line's start, so
 * the next line's position never waits on the current line's parsing:
 * the processor overlaps consecutive lines.
 */
#ifndef SP_MM_FAST_H
#define SP_MM_FAST_H

#include <float.h>
#include <stddef.h>
#include <string.h>
#if defined(__AVX2__) || defined(__SSE2__)
#include <immintrin.h>
#endif

#include "mm_read.h"

#define MM_INLINE static inline __attribute__((always_inline))

MM_INLINE int mm_is_digit(char ch)
{
    return (unsigned)(ch - '0') < 10;
}

MM_INLINE const char *mm_blanks(const char *p)
{
    while (mm_is_blank(*p))
        p++;
    return p;
}

/* The first '\n', '\r' or zero byte at or after p, a vector at a time. */
MM_INLINE const char *mm_find_eol(const char *p)
{
#if defined(__AVX2__)
    const __m256i nl = _mm256_set1_epi8('\n'), cr = _mm256_set1_epi8('\r');
    const __m256i zero = _mm256_setzero_si256();
    for (;; p += 32) {
        __m256i x = _mm256_loadu_si256((const __m256i *)p);
        __m256i hit = _mm256_or_si256(
            _mm256_or_si256(_mm256_cmpeq_epi8(x, nl), _mm256_cmpeq_epi8(x, cr)),
            _mm256_cmpeq_epi8(x, zero));
        unsigned mask = (unsigned)_mm256_movemask_epi8(hit);
        if (mask)
            return p + __builtin_ctz(mask);
    }
#elif defined(__SSE2__)
    const __m128i nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r');
    const __m128i zero = _mm_setzero_si128();
    for (;; p += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)p);
        __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, nl), _mm_cmpeq_epi8(x, cr)),
                                   _mm_cmpeq_epi8(x, zero));
        unsigned mask = (unsigned)_mm_movemask_epi8(hit);
        if (mask)
            return p + __builtin_ctz(mask);
    }
#else
    while (*p && !mm_is_eol(*p))
        p++;
    return p;
#endif
}

/* The start of the line after the one ending at eol (\n, \r\n, \r; a
 * zero byte: eol itself). */
MM_INLINE const char *mm_line_after(const char *eol)
{
    return eol + (*eol != 0) + (*eol == '\r' && eol[1] == '\n');
}

/* The end of the line at p: its '\n' (text without '\r': memchr is the
 * fastest scan there is) or its first '\n', '\r' or zero byte; *next is
 * where the next line starts. */
MM_INLINE const char *mm_eol(const mm_text *t, const char *p, const char **next)
{
    if (!t->has_cr) {
        const char *q = memchr(p, '\n', (size_t)(t->end - p));
        *next = q ? q + 1 : t->end;
        return q ? q : t->end;
    }
    const char *q = mm_find_eol(p);
    *next = mm_line_after(q);
    return q;
}

/* The run of up to 8 decimal digits at p, eight bytes at once: its
 * length, and its value in *v. */
MM_INLINE int mm_digits8(const char *p, uint64_t *v)
{
    uint64_t x;
    memcpy(&x, p, sizeof x);
    x ^= 0x3030303030303030ull;         /* digit bytes become 0..9 */
    uint64_t bad = (x | ((x & 0x0F0F0F0F0F0F0F0Full) + 0x0606060606060606ull)) &
                   0xF0F0F0F0F0F0F0F0ull;
    int n = bad ? __builtin_ctzll(bad) / 8 : 8;
    if (n == 0)
        return 0;
    x <<= 8 * (8 - n);                  /* drop what follows; zeros lead */
    x = (x & 0x0F0F0F0F0F0F0F0Full) * 2561 >> 8;
    x = (x & 0x00FF00FF00FF00FFull) * 6553601 >> 16;
    x = (x & 0x0000FFFF0000FFFFull) * 42949672960001ull >> 32;
    *v = x;
    return n;
}

/* A digit run of any length folded into *m (wrapping past 19 digits:
 * callers check the count). Returns its end. */
MM_INLINE const char *mm_digit_run(const char *p, uint64_t *m)
{
    static const uint64_t pow10[9] = {1,      10,      100,      1000,     10000,
                                      100000, 1000000, 10000000, 100000000};
    uint64_t v;
    int n;
    while ((n = mm_digits8(p, &v)) == 8)
        *m = *m * 100000000 + v, p += 8;
    if (n)
        *m = *m * pow10[n] + v;
    return p + n;
}

/* An index: 1 to 10 digits, no sign. */
MM_INLINE const char *mm_fast_index(const char *p, uint64_t *x)
{
    uint64_t v = 0;
    const char *q = mm_digit_run(p, &v);
    if (q == p || q - p > 10)
        return NULL;
    *x = v;
    return q;
}

/* An integer value of at most 18 digits (exact in int64). */
MM_INLINE const char *mm_fast_integer(const char *p, double *v)
{
    int neg = *p == '-';
    p += (*p == '-' || *p == '+');
    uint64_t x = 0;
    const char *q = mm_digit_run(p, &x);
    if (q == p || q - p > 18)
        return NULL;
    int64_t y = (int64_t)x;
    *v = (double)(neg ? -y : y);        /* "-0" is 0, as in mm_entry.c */
    return q;
}

/* The exponent after an 'e': sign and 1 to 5 digits, added to *e. */
MM_INLINE const char *mm_fast_exponent(const char *p, int *e)
{
    int neg = *p == '-';
    p += (*p == '-' || *p == '+');
    uint64_t x = 0;
    const char *q = mm_digit_run(p, &x);
    if (q == p || q - p > 5)
        return NULL;
    *e += neg ? -(int)x : (int)x;
    return q;
}

/* Decimal to double without strtod, correctly rounded. Up to 19
 * significant digits fit a uint64 m, and x = m · 10^e. When m <= 2^53 and
 * |e| <= 22 both factors are exact doubles and one IEEE operation rounds
 * correctly (Clinger's fast path). Otherwise, for |e| <= 27, the same
 * operation in x87 long double (64-bit significand; 10^27 = 5^27 · 2^27
 * with 5^27 < 2^64 is exact) rounds once to 64 bits. Rounding that to 53
 * bits gives the correctly rounded double unless the 64-bit result lies
 * on a midpoint between two doubles (then the first rounding may have
 * decided the tie); the low 11 bits show that, and anything within 1 of
 * the midpoint pattern goes to strtod. 1 <= m < 10^19 and |e| <= 27 keep
 * the result normal and finite, so no range check is needed. */
static const double mm_pow10_d[23] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

#if LDBL_MANT_DIG == 64
/* Exact in a 64-bit significand (the literals are exact, so no rounding). */
static const long double mm_pow10_ld[28] = {
    1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,  1e7L,  1e8L,  1e9L,
    1e10L, 1e11L, 1e12L, 1e13L, 1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L,
    1e20L, 1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L,
};

/* m·10^e via one long double operation; 0 when double rounding could err. */
MM_INLINE int long_double_scale(uint64_t m, int e, double *out)
{
    long double x = e < 0 ? (long double)m / mm_pow10_ld[-e] : (long double)m * mm_pow10_ld[e];
    uint64_t sig;
    memcpy(&sig, &x, sizeof sig);       /* x87 layout: the significand first */
    uint64_t low = sig & 0x7FF;         /* the 11 bits rounding to double drops */
    if (low >= 0x3FF && low <= 0x401)
        return 0;                       /* at (or next to) a midpoint */
    *out = (double)x;
    return 1;
}
#else
MM_INLINE int long_double_scale(uint64_t m, int e, double *out)
{
    (void)m, (void)e, (void)out;
    return 0;
}
#endif

/* m·10^e: 1 and *out, or 0 when the caller must use strtod. */
MM_INLINE int mm_fast_scale(uint64_t m, int e, double *out)
{
    if (m == 0) {
        *out = 0.0;
        return 1;
    }
    if (m <= (1ull << 53) && e >= -22 && e <= 22) {
        *out = e < 0 ? (double)m / mm_pow10_d[-e] : (double)m * mm_pow10_d[e];
        return 1;
    }
    if (e >= -27 && e <= 27)
        return long_double_scale(m, e, out);
    return 0;
}

/* A real value with at most 19 significant digits that mm_fast_scale
 * converts exactly-rounded without strtod. */
MM_INLINE const char *mm_fast_double(const char *p, double *v)
{
    int neg = *p == '-', e = 0;
    p += (*p == '-' || *p == '+');
    const char *s = p;
    uint64_t m = 0;
    while (*p == '0')
        p++;
    const char *sig = p;
    p = mm_digit_run(p, &m);
    ptrdiff_t nsig = p - sig, any = p - s;
    if (*p == '.') {
        const char *f = ++p;
        if (nsig == 0)
            while (*p == '0')
                p++;                    /* the zeros of 0.000123 do not count */
        const char *fs = p;
        p = mm_digit_run(p, &m);
        nsig += p - fs;
        any |= p - f;
        if (p - f > 400)
            return NULL;
        e = -(int)(p - f);
    }
    if (!any || nsig > 19 || ((*p | 0x20) == 'e' && !(p = mm_fast_exponent(p + 1, &e))))
        return NULL;
    double d;
    if (!mm_fast_scale(m, e, &d))
        return NULL;
    *v = neg ? -d : d;
    return p;
}

#endif
