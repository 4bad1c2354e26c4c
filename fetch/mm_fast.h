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

#include <stddef.h>
#include <stdint.h>
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

/* The first '\n' at or after p and before end, or NULL: memchr's answer,
 * inline. A line is a few dozen bytes, where a call to memchr costs more
 * than its scan (5 % of a one-thread CSR read of a 1 GB file on the
 * development VM, 60 million calls). The vector loads read at most 31
 * bytes past end, into the text's MM_PAD zero bytes. */
MM_INLINE const char *mm_find_nl(const char *p, const char *end)
{
#if defined(__AVX2__)
    const __m256i nl = _mm256_set1_epi8('\n');
    for (; p < end; p += 32) {
        unsigned mask = (unsigned)_mm256_movemask_epi8(
            _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)p), nl));
        if (mask) {
            const char *q = p + __builtin_ctz(mask);
            return q < end ? q : NULL;
        }
    }
    return NULL;
#elif defined(__SSE2__)
    const __m128i nl = _mm_set1_epi8('\n');
    for (; p < end; p += 16) {
        unsigned mask =
            (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)p), nl));
        if (mask) {
            const char *q = p + __builtin_ctz(mask);
            return q < end ? q : NULL;
        }
    }
    return NULL;
#else
    return p < end ? memchr(p, '\n', (size_t)(end - p)) : NULL;
#endif
}

/* The end of the line at p: its '\n' (text without '\r') or its first
 * '\n', '\r' or zero byte; *next is where the next line starts. */
MM_INLINE const char *mm_eol(const mm_text *t, const char *p, const char **next)
{
    if (!t->has_cr) {
        const char *q = mm_find_nl(p, t->end);
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
 * correctly (Clinger's fast path). Otherwise, for -64 <= e <= 64, the
 * Eisel-Lemire algorithm (D. Lemire, "Number Parsing at a Gigabyte per
 * Second", Software: Practice and Experience 51(8), 2021, sections 5-6,
 * arXiv:2101.11408): m, shifted so its top bit is set, times a 128-bit
 * truncation of 5^e with its top bit set (mm_pow5_128, mm_number.c), of
 * which the top 54 bits decide the rounding. Where the truncated product
 * cannot say which way to round (its low 64 bits all ones, outside the
 * exponents where the table is exact enough) or where x would be
 * subnormal, it declines and strtod decides. Files write 17 significant
 * digits (m > 2^53), so this is the path most values take. It replaced an
 * x87 long double step that reached |e| <= 27 only: a 17-digit value near
 * 1e-15 (e = -31) now takes 26 ns instead of strtod's 139 on the
 * development VM; inside |e| <= 27 the two were level, but for the x87
 * multiply of positive exponents (5 ns a value faster). */
static const double mm_pow10_d[23] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

#define MM_POW5_MIN (-64)
#define MM_POW5_MAX 64
/* 5^q as {high, low} 64-bit words with the top bit set, q = MM_POW5_MIN
 * .. MM_POW5_MAX: exact for 0 <= q <= 55, else truncated (q < 0: one
 * more than the truncated quotient of a power of two by 5^-q). */
extern const uint64_t mm_pow5_128[MM_POW5_MAX - MM_POW5_MIN + 1][2];

__extension__ typedef unsigned __int128 mm_u128;

/* m·10^q for m > 0: 1 and *out, or 0 when strtod must decide. */
MM_INLINE int eisel_lemire(uint64_t m, int q, double *out)
{
    if (q < MM_POW5_MIN || q > MM_POW5_MAX)
        return 0;
    const uint64_t *p5 = mm_pow5_128[q - MM_POW5_MIN];
    int lz = __builtin_clzll(m);
    uint64_t w = m << lz;
    mm_u128 first = (mm_u128)w * p5[0];
    uint64_t lo = (uint64_t)first, hi = (uint64_t)(first >> 64);
    if ((hi & 0x1FF) == 0x1FF) {        /* the 9 bits below the rounding bit: refine */
        uint64_t second = (uint64_t)(((mm_u128)w * p5[1]) >> 64);
        lo += second;
        hi += lo < second;
    }
    if (lo == UINT64_MAX && (q < -27 || q > 55))
        return 0;                       /* the truncation may hide a carry */
    int upper = (int)(hi >> 63);
    uint64_t mant = hi >> (upper + 9);
    /* floor(q · log2(10)) + 63, log2(10) as 217706 / 2^16 (exact here) */
    int power2 = ((q * 217706) >> 16) + 63 + upper - lz + 1023;
    if (power2 <= 0)
        return 0;                       /* subnormal */
    if (lo <= 1 && q >= -4 && q <= 23 && (mant & 3) == 1 && (mant << (upper + 9)) == hi)
        mant &= ~(uint64_t)1;           /* exactly halfway: to even, down */
    mant += mant & 1;
    mant >>= 1;
    if (mant >= (2ull << 52)) {         /* rounding carried into a new bit */
        mant = 1ull << 52;
        power2++;
    }
    if (power2 >= 0x7FF)
        return 0;
    uint64_t bits = (mant & ~(1ull << 52)) | ((uint64_t)power2 << 52);
    memcpy(out, &bits, sizeof bits);
    return 1;
}

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
    return eisel_lemire(m, e, out);
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
