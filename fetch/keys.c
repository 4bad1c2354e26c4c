/*
 * keys.c — key workloads: "keys:DIST?n=N&seed=S" names an array of n
 * 32-bit unsigned keys drawn from a distribution, for the sort operation.
 *
 *   uniform   independent uniform 32-bit keys
 *   sorted    ascending, evenly spaced over the 32-bit range (distinct)
 *   reverse   the same keys descending
 *   equal     one value n times
 *   few       16 distinct values (drawn from the seed), uniformly mixed
 *   zipf      Zipf-distributed ranks (exponent s, default 1) over all 2^32
 *             values; rank r becomes a scattered 32-bit value by a
 *             bijective mix, so the most frequent value is not 0
 *
 * n is an integer expression: sums and products of integers and powers
 * ("1000003", "2^28", "2^20+3", "3*2^20"), 0 <= n <= 2^31 - 1. seed (default
 * 1) is a 64-bit integer; s (zipf only) a real in (0, 10]. bins (optional,
 * the same expressions, 1 <= bins <= 2^31 - 2) does not change the keys: it
 * is the index range the GPU primitives read them into (key k in bin
 * k * bins / 2^32; kernels/prim/prim.h), default n / 20.
 *
 * Key i depends only on (distribution, seed, i): a counter-based stream per
 * index (splitmix64, fetch/gen.h), so the array is the same for any thread
 * count. The source text is normalised ("keys:zipf?n=1048579&seed=1&s=1"),
 * so "n=2^20+3" and "n=1048579" name the same workload.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "gen.h"
#include "matrix.h"

static const char *const DISTS[] = {"uniform", "sorted", "reverse", "equal", "few", "zipf"};
#define NDISTS (int)(sizeof DISTS / sizeof DISTS[0])
#define FEW_VALUES 16

/* One integer factor "D" or "D^E" at *s; advances *s. -1 on syntax or overflow. */
static int parse_factor(const char **s, int64_t *out)
{
    if (!isdigit((unsigned char)**s))
        return -1;
    char *end;
    errno = 0;
    long long b = strtoll(*s, &end, 10);
    if (errno == ERANGE)
        return -1;
    *s = end;
    int64_t v = b;
    if (**s == '^') {
        (*s)++;
        if (!isdigit((unsigned char)**s))
            return -1;
        long long e = strtoll(*s, &end, 10);
        if (errno == ERANGE || e > 62)
            return -1;
        *s = end;
        v = 1;
        for (long long i = 0; i < e; i++)
            if (__builtin_mul_overflow(v, (int64_t)b, &v))
                return -1;
    }
    *out = v;
    return 0;
}

/* "t*t*..+t*t-..." over factors; -1 on syntax, overflow or a negative sum. */
static int parse_count(const char *s, int64_t *out)
{
    int64_t sum = 0;
    int sign = 1;
    for (;;) {
        int64_t term, f;
        if (parse_factor(&s, &term))
            return -1;
        while (*s == '*') {
            s++;
            if (parse_factor(&s, &f) || __builtin_mul_overflow(term, f, &term))
                return -1;
        }
        if (__builtin_add_overflow(sum, sign * term, &sum))
            return -1;
        if (*s == '\0')
            break;
        if (*s != '+' && *s != '-')
            return -1;
        sign = *s++ == '+' ? 1 : -1;
    }
    if (sum < 0)
        return -1;
    *out = sum;
    return 0;
}

/* Store one "key=value" of the spec into ks; every problem names the key. */
static int set_param(sp_keys_spec *ks, const char *spec, const char *key, const char *v,
                     unsigned *seen, sp_err *err)
{
    static const char *const KEYS[] = {"n", "seed", "s", "bins"};
    int which = -1;
    for (int i = 0; i < 4; i++)
        which = strcmp(key, KEYS[i]) == 0 ? i : which;
    if (which < 0)
        return sp_fail(err, "keys:%s: unknown parameter '%s' (known: n, seed, s, bins)", spec,
                       key);
    if (*seen & (1u << which))
        return sp_fail(err, "keys:%s: parameter '%s' given twice", spec, key);
    *seen |= 1u << which;
    char *end;
    if (which == 0) {
        if (parse_count(v, &ks->n) || ks->n > INT32_MAX)
            return sp_fail(err, "keys:%s: parameter 'n': '%s' is not a count from 0 to %d "
                           "(an integer, 2^K, or sums and products of them)", spec, v,
                           INT32_MAX);
    } else if (which == 3) {
        if (parse_count(v, &ks->bins) || ks->bins < 1 || ks->bins > INT32_MAX - 1)
            return sp_fail(err, "keys:%s: parameter 'bins': '%s' is not a count from 1 to %d "
                           "(an integer, 2^K, or sums and products of them)", spec, v,
                           INT32_MAX - 1);
    } else if (which == 1) {
        errno = 0;
        unsigned long long x = strtoull(v, &end, 10);
        if (!isdigit((unsigned char)*v) || *end || errno == ERANGE)
            return sp_fail(err, "keys:%s: parameter 'seed': '%s' is not an integer from 0 "
                           "to 2^64-1", spec, v);
        ks->seed = x;
    } else {
        double x = strtod(v, &end);
        if (isspace((unsigned char)*v) || *end || !(x > 0 && x <= 10))
            return sp_fail(err, "keys:%s: parameter 's': '%s' is not a number in (0, 10]",
                           spec, v);
        ks->s = x;
    }
    return 0;
}

/* Split "k=v&k=v" into ks. */
static int parse_params(sp_keys_spec *ks, const char *spec, const char *q, unsigned *seen,
                        sp_err *err)
{
    for (const char *seg = q; seg;) {
        const char *amp = strchr(seg, '&');
        size_t len = amp ? (size_t)(amp - seg) : strlen(seg);
        char buf[128];
        if (len == 0)
            return sp_fail(err, "keys:%s: empty parameter (stray '&' or '?')", spec);
        if (len >= sizeof buf)
            return sp_fail(err, "keys:%s: parameter '%.20s...' too long", spec, seg);
        memcpy(buf, seg, len);
        buf[len] = '\0';
        char *eq = strchr(buf, '=');
        if (!eq || eq == buf || !eq[1])
            return sp_fail(err, "keys:%s: parameter '%s': expected key=value", spec, buf);
        *eq = '\0';
        if (set_param(ks, spec, buf, eq + 1, seen, err))
            return -1;
        seg = amp ? amp + 1 : NULL;
    }
    return 0;
}

int sp_keys_spec_parse(const char *spec, sp_keys_spec *ks, sp_err *err)
{
    memset(ks, 0, sizeof *ks);
    ks->seed = 1;
    ks->s = 1.0;
    if (!spec)
        spec = "";
    const char *q = strchr(spec, '?');
    size_t dlen = q ? (size_t)(q - spec) : strlen(spec);
    ks->dist = -1;
    for (int i = 0; i < NDISTS; i++)
        if (strlen(DISTS[i]) == dlen && !strncmp(spec, DISTS[i], dlen))
            ks->dist = i;
    if (ks->dist < 0)
        return sp_fail(err, "keys:%s: unknown distribution '%.*s' (known: uniform, sorted, "
                       "reverse, equal, few, zipf)", spec, (int)dlen, spec);
    unsigned seen = 0;
    if (q && parse_params(ks, spec, q + 1, &seen, err))
        return -1;
    if (!(seen & 1u))
        return sp_fail(err, "keys:%s: missing required parameter 'n' (e.g. keys:%s?n=2^20)",
                       spec, DISTS[ks->dist]);
    if ((seen & 4u) && ks->dist != SP_KEYS_ZIPF)
        return sp_fail(err, "keys:%s: parameter 's' (the Zipf exponent) applies to zipf "
                       "only", spec);
    return 0;
}

const char *sp_keys_dist_name(int dist)
{
    return dist >= 0 && dist < NDISTS ? DISTS[dist] : "?";
}

void sp_keys_spec_text(const sp_keys_spec *ks, char *text, size_t len)
{
    int n = snprintf(text, len, "keys:%s?n=%lld&seed=%llu", DISTS[ks->dist], (long long)ks->n,
                     (unsigned long long)ks->seed);
    if (ks->dist == SP_KEYS_ZIPF && n >= 0 && (size_t)n < len)
        n += snprintf(text + n, len - (size_t)n, "&s=%g", ks->s);
    if (ks->bins > 0 && n >= 0 && (size_t)n < len)
        snprintf(text + n, len - (size_t)n, "&bins=%lld", (long long)ks->bins);
}

void sp_keys_spec_name(const sp_keys_spec *ks, char *name, size_t len)
{
    int n = snprintf(name, len, "keys_%s_n%lld", DISTS[ks->dist], (long long)ks->n);
    if (ks->dist == SP_KEYS_ZIPF && ks->s != 1.0 && n >= 0 && (size_t)n < len)
        n += snprintf(name + n, len - (size_t)n, "_s%g", ks->s);
    if (ks->seed != 1 && n >= 0 && (size_t)n < len)
        n += snprintf(name + n, len - (size_t)n, "_seed%llu", (unsigned long long)ks->seed);
    if (ks->bins > 0 && n >= 0 && (size_t)n < len)
        snprintf(name + n, len - (size_t)n, "_bins%lld", (long long)ks->bins);
}

/* murmur3's 32-bit finaliser: a bijection on 32-bit values. */
static uint32_t mix32(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    return h ^ (h >> 16);
}

/* ---- Zipf ranks by rejection-inversion (Hörmann and Derflinger 1996, as
 * in Apache Commons' RejectionInversionZipfSampler): O(1) expected per
 * draw for any number of elements. */
typedef struct zipf {
    double e, m, h_x1, h_n, s;
} zipf;

static double helper1(double x)     /* log1p(x) / x */
{
    return fabs(x) > 1e-8 ? log1p(x) / x : 1 - x * (0.5 - x * (1.0 / 3 - 0.25 * x));
}

static double helper2(double x)     /* expm1(x) / x */
{
    return fabs(x) > 1e-8 ? expm1(x) / x : 1 + x * 0.5 * (1 + x * (1.0 / 3) * (1 + 0.25 * x));
}

static double zipf_h(const zipf *z, double x)
{
    return exp(-z->e * log(x));
}

static double zipf_hint(const zipf *z, double x)
{
    double lx = log(x);
    return helper2((1 - z->e) * lx) * lx;
}

static double zipf_hinv(const zipf *z, double x)
{
    double t = x * (1 - z->e);
    return exp(helper1(t < -1 ? -1 : t) * x);
}

static void zipf_init(zipf *z, double exponent, double elements)
{
    z->e = exponent;
    z->m = elements;
    z->h_x1 = zipf_hint(z, 1.5) - 1;
    z->h_n = zipf_hint(z, elements + 0.5);
    z->s = 2 - zipf_hinv(z, zipf_hint(z, 2.5) - zipf_h(z, 2));
}

/* A rank in [1, m] drawn from *state. */
static double zipf_rank(const zipf *z, uint64_t *state)
{
    for (;;) {
        double u01 = (double)(gen_next(state) >> 11) * 0x1.0p-53;
        double u = z->h_n + u01 * (z->h_x1 - z->h_n);
        double x = zipf_hinv(z, u), k = floor(x + 0.5);
        k = k < 1 ? 1 : k > z->m ? z->m : k;
        if (k - x <= z->s || u >= zipf_hint(z, k + 0.5) - zipf_h(z, k))
            return k;
    }
}

/* 16 distinct values drawn from seed. */
static void few_values(uint64_t seed, uint32_t v[FEW_VALUES])
{
    uint64_t st = gen_stream(seed, UINT64_MAX);
    for (int i = 0; i < FEW_VALUES; i++) {
        int dup;
        do {
            v[i] = (uint32_t)(gen_next(&st) >> 32);
            dup = 0;
            for (int j = 0; j < i; j++)
                dup |= v[j] == v[i];
        } while (dup);
    }
}

/* Fill key[0..n) for ks; each key from its own index's stream. */
static void fill(const sp_keys_spec *ks, uint32_t *key, int64_t n)
{
    uint64_t seed = ks->seed;
    uint32_t few[FEW_VALUES], one = (uint32_t)(gen_stream(seed, 0) >> 32);
    few_values(seed, few);
    zipf z;
    zipf_init(&z, ks->s, 4294967296.0);
    uint32_t offset = (uint32_t)(gen_stream(seed, 1) >> 32);
    int dist = ks->dist;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++) {
        uint64_t st = gen_stream(seed, (uint64_t)i);
        int64_t j = dist == SP_KEYS_REVERSE ? n - 1 - i : i;
        switch (dist) {
        case SP_KEYS_UNIFORM: key[i] = (uint32_t)(st >> 32); break;
        case SP_KEYS_SORTED:
        case SP_KEYS_REVERSE: key[i] = (uint32_t)(((uint64_t)j << 32) / (uint64_t)n); break;
        case SP_KEYS_EQUAL: key[i] = one; break;
        case SP_KEYS_FEW: key[i] = few[st >> 60]; break;
        default: key[i] = mix32((uint32_t)(zipf_rank(&z, &st) - 1) + offset); break;
        }
    }
}

int sp_keys_generate(const sp_keys_spec *ks, sp_keys *K, sp_err *err)
{
    memset(K, 0, sizeof *K);
    if (ks->dist < 0 || ks->dist >= NDISTS || ks->n < 0 || ks->n > INT32_MAX)
        return sp_fail(err, "keys: bad specification (distribution %d, n %lld)", ks->dist,
                       (long long)ks->n);
    K->key = sp_alloc_large((size_t)(ks->n ? ks->n : 1) * sizeof *K->key);
    if (!K->key) {
        char text[256];
        sp_keys_spec_text(ks, text, sizeof text);
        return sp_fail(err, "%s: out of memory for %lld keys", text, (long long)ks->n);
    }
    K->n = ks->n;
    K->bins = ks->bins;
    fill(ks, K->key, K->n);
    return 0;
}

void sp_keys_free(sp_keys *K)
{
    if (!K)
        return;
    free(K->key);
    memset(K, 0, sizeof *K);
}

uint64_t sp_keys_checksum(const sp_keys *K)
{
    uint64_t h = XXH3_64bits(K->key, (size_t)K->n * sizeof *K->key);
    return h ^ ((uint64_t)K->n * 0x9e3779b97f4a7c15ull);
}

/* As features: an n x 1 column with one entry per row, so the matrices
 * table and the views hold a key workload like any other. */
void sp_keys_features(const sp_keys *K, sp_features *f)
{
    memset(f, 0, sizeof *f);
    f->rows = (int32_t)K->n;
    f->cols = 1;
    f->nnz = (int32_t)K->n;
    f->row_min = f->row_max = K->n > 0;
    f->row_mean = K->n > 0;
    f->pattern_symmetry = K->n == 1;
    f->size_class = sp_size_class(K->n);
}
