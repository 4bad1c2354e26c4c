/*
 * axis.c — axis value lists: "1,2,4", "1..8", "1..nproc", "32..1024:*2",
 * "64..512:+64", and the words of a word axis ("double,single"). The syntax
 * follows nvbench's typed lists and ranges.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"

/* Axes whose values are words (kernel.h): the word is what configs,
 * `spsweep plan` and the database say, the integer what a kernel reads. */
static const struct {
    const char *axis, *word;
    long value;
} axis_words[] = {
    {SP_AXIS_PRECISION, "double", SP_DOUBLE},
    {SP_AXIS_PRECISION, "single", SP_SINGLE},
    {SP_AXIS_LOADS, "cached", SP_LOADS_CACHED},
    {SP_AXIS_LOADS, "stream", SP_LOADS_STREAM},
    {SP_AXIS_LOADS, "auto", SP_LOADS_AUTO},
    {SP_AXIS_SCAN_THREADS, "chunks", SP_SCAN_THREADS_CHUNKS},
    {SP_AXIS_SCAN_THREADS, "auto", SP_SCAN_THREADS_AUTO},
    {SP_AXIS_MEMORY, "device", SP_MEMORY_DEVICE},
    {SP_AXIS_MEMORY, "managed", SP_MEMORY_MANAGED},
};

/* Axes that take counts (1 or more) beside their words. */
static int takes_counts(const char *axis)
{
    return !strcmp(axis, SP_AXIS_SCAN_THREADS);
}
#define N_AXIS_WORDS ((int)(sizeof axis_words / sizeof axis_words[0]))

const char *sp_axis_word(const char *axis, long value)
{
    for (int i = 0; axis && i < N_AXIS_WORDS; i++)
        if (!strcmp(axis_words[i].axis, axis) && axis_words[i].value == value)
            return axis_words[i].word;
    return NULL;
}

/* The value of word [s, s + len) on a word axis: 0, 1 when axis takes no
 * words, -1 with the words it takes when it is none of them. */
static int axis_word_value(const char *axis, const char *s, int len, long *v, sp_err *err)
{
    char words[128] = "";
    for (int i = 0; i < N_AXIS_WORDS; i++) {
        if (strcmp(axis_words[i].axis, axis))
            continue;
        if ((int)strlen(axis_words[i].word) == len && !strncmp(axis_words[i].word, s, len))
            return *v = axis_words[i].value, 0;
        snprintf(words + strlen(words), sizeof words - strlen(words), "%s%s",
                 *words ? ", " : "", axis_words[i].word);
    }
    if (!*words)
        return 1;
    if (takes_counts(axis)) {   /* a count, if it is an integer (parse_bound) */
        char *stop;
        char buf[64];
        snprintf(buf, sizeof buf, "%.*s", len, s);
        long x = strtol(buf, &stop, 10);
        if (len > 0 && len < (int)sizeof buf && !*stop && x >= 1)
            return 1;
        return sp_fail(err, "axis '%s': '%.*s' is not one of %s, nor a count of 1 or more",
                       axis, len, s, words);
    }
    return sp_fail(err, "axis '%s': '%.*s' is not one of %s", axis, len, s, words);
}

/* Bounds of the axes the runner knows; any other axis takes [1, 2^30].
 * `values` (sort kernels) is a switch: 0 keys only, 1 key-value pairs. */
static void axis_bounds(const char *axis, long *lo, long *hi)
{
    *lo = 1;
    *hi = 1L << 30;
    if (!strcmp(axis, "threads"))
        *hi = 4096;
    else if (!strcmp(axis, "blocksize"))
        *hi = 1024;             /* CUDA's limit on threads per block */
    else if (!strcmp(axis, "values") || !strcmp(axis, "tune") || !strcmp(axis, SP_AXIS_CACHE) ||
             !strcmp(axis, SP_AXIS_BLOCKING))
        *lo = 0, *hi = 1;
    else if (!strcmp(axis, SP_AXIS_BATCH))
        *lo = 0, *hi = SP_BATCH_MAX;    /* 0: auto */
    else if (!strcmp(axis, SP_AXIS_PRECISION))
        *lo = SP_DOUBLE, *hi = SP_SINGLE;
    else if (!strcmp(axis, SP_AXIS_SCAN_THREADS))     /* its words are 0 and -1 */
        *lo = SP_SCAN_THREADS_AUTO, *hi = SP_SCAN_THREADS_MAX;
    else if (!strcmp(axis, SP_AXIS_MEMORY))
        *lo = SP_MEMORY_DEVICE, *hi = SP_MEMORY_MANAGED;
}

/* Parse an integer or `nproc` from [s, end); on a word axis, one of its
 * words only. */
static int parse_bound(const char *axis, const char *s, const char *end, long nproc,
                       long *v, sp_err *err)
{
    while (s < end && isspace((unsigned char)*s))
        s++;
    while (end > s && isspace((unsigned char)end[-1]))
        end--;
    int len = (int)(end - s);
    int word = axis_word_value(axis, s, len, v, err);
    if (word <= 0)
        return word;
    if (len == 5 && !strncmp(s, "nproc", 5)) {
        *v = nproc;
        return 0;
    }
    char buf[64];
    if (len <= 0 || len >= (int)sizeof buf)
        return sp_fail(err, "axis '%s': empty or overlong value '%.*s'", axis, len, s);
    memcpy(buf, s, (size_t)len);
    buf[len] = 0;
    char *stop;
    errno = 0;
    long x = strtol(buf, &stop, 10);
    if (*stop || errno)
        return sp_fail(err, "axis '%s': '%s' is not an integer (nor nproc)", axis, buf);
    *v = x;
    return 0;
}

static int push_value(sp_axis_values *a, int *cap, long v, sp_err *err)
{
    if (a->n == *cap) {
        int nc = *cap ? *cap * 2 : 16;
        long *nv = realloc(a->v, (size_t)nc * sizeof(long));
        if (!nv)
            return sp_fail(err, "out of memory expanding axis values");
        a->v = nv;
        *cap = nc;
    }
    a->v[a->n++] = v;
    return 0;
}

/* One item ("8", "1..nproc", "1..64:*2", "32..1024:+32") as a range: lo,
 * hi, the step and whether it multiplies (a single value is lo = hi). */
typedef struct axis_range {
    long lo, hi, step;
    int geometric;
} axis_range;

static int parse_range(const char *axis, const char *s, const char *end, long nproc,
                       axis_range *r, sp_err *err)
{
    const char *dots = NULL;
    for (const char *p = s; p + 1 < end; p++)
        if (p[0] == '.' && p[1] == '.') {
            dots = p;
            break;
        }
    *r = (axis_range){0, 0, 1, 0};
    if (!dots) {
        if (parse_bound(axis, s, end, nproc, &r->lo, err))
            return -1;
        r->hi = r->lo;
        return 0;
    }
    const char *colon = memchr(dots, ':', (size_t)(end - dots));
    const char *hi_end = colon ? colon : end;
    if (parse_bound(axis, s, dots, nproc, &r->lo, err) ||
        parse_bound(axis, dots + 2, hi_end, nproc, &r->hi, err))
        return -1;
    if (colon) {
        const char *st = colon + 1;
        if (st < end && (*st == '*' || *st == '+')) {
            r->geometric = (*st == '*');
            st++;
        }
        if (parse_bound(axis, st, end, nproc, &r->step, err))
            return -1;
        if (r->step < (r->geometric ? 2 : 1))
            return sp_fail(err, "axis '%s': step '%.*s' must be %s", axis,
                           (int)(end - colon - 1), colon + 1, r->geometric ? ">= 2" : ">= 1");
    }
    if (r->lo > r->hi)
        return sp_fail(err, "axis '%s': empty range %ld..%ld", axis, r->lo, r->hi);
    if (r->lo < 1 && r->geometric)
        return sp_fail(err, "axis '%s': a geometric range must start at 1 or more", axis);
    return 0;
}

/* Expand one item into a. */
static int parse_item(const char *axis, const char *s, const char *end, long nproc,
                      sp_axis_values *a, int *cap, sp_err *err)
{
    axis_range r;
    if (parse_range(axis, s, end, nproc, &r, err))
        return -1;
    if (r.lo == r.hi)
        return push_value(a, cap, r.lo, err);
    if (takes_counts(axis) && r.lo < 1)
        return sp_fail(err, "axis '%s': a range spans counts (1 or more), not words", axis);
    long min, max;
    axis_bounds(axis, &min, &max);
    if (r.lo < min || r.hi > max)       /* before expanding a huge range */
        return sp_fail(err, "axis '%s': range %ld..%ld outside %ld..%ld", axis, r.lo, r.hi,
                       min, max);
    for (long v = r.lo; v <= r.hi; v = r.geometric ? v * r.step : v + r.step) {
        if (push_value(a, cap, v, err))
            return -1;
        if (a->n > 100000)
            return sp_fail(err, "axis '%s': more than 100000 values", axis);
    }
    return 0;
}

/* Is v one of the values of range r? */
static int in_range(const axis_range *r, long v)
{
    if (v < r->lo || v > r->hi)
        return 0;
    if (!r->geometric)
        return (v - r->lo) % r->step == 0;
    for (long x = r->lo; x <= v; x *= r->step)
        if (x == v)
            return 1;
    return 0;
}

/* 1 when v is one of the values the list `domain` names, 0 when not, -1
 * when the list does not parse. */
static int in_domain(const char *axis, const char *domain, long v, long nproc, sp_err *err)
{
    for (const char *s = domain; *s;) {
        const char *end = s + strcspn(s, ",");
        axis_range r;
        if (parse_range(axis, s, end, nproc, &r, err))
            return -1;
        if (in_range(&r, v))
            return 1;
        s = *end ? end + 1 : end;
    }
    return 0;
}

int sp_axis_check_valid(const sp_kernel *k, int a, const sp_axis_values *v, long nproc,
                        sp_err *err)
{
    const sp_axis *ax = &k->axes[a];
    if (!ax->valid)
        return 0;
    for (int i = 0; i < v->n; i++) {
        int in = in_domain(ax->name, ax->valid, v->v[i], nproc, err);
        if (in < 0)
            return sp_fail_prefix(err, "kernel '%s' declares axis '%s' valid as '%s'", k->name,
                                  ax->name, ax->valid);
        if (!in) {
            const char *word = sp_axis_word(ax->name, v->v[i]);
            char value[64];
            if (word)
                snprintf(value, sizeof value, "%s", word);
            else
                snprintf(value, sizeof value, "%ld", v->v[i]);
            return sp_fail(err, "kernel '%s': %s = %s is not among the values it takes, %s",
                           k->name, ax->name, value, ax->valid);
        }
    }
    return 0;
}

static int cmp_long(const void *x, const void *y)
{
    long a = *(const long *)x, b = *(const long *)y;
    return (a > b) - (a < b);
}

/* Sort, drop duplicates and check every value against the axis's bounds. */
static int normalise(const char *axis, sp_axis_values *a, sp_err *err)
{
    long lo, hi;
    axis_bounds(axis, &lo, &hi);
    qsort(a->v, (size_t)a->n, sizeof(long), cmp_long);
    int m = 0;
    for (int i = 0; i < a->n; i++) {
        if (a->v[i] < lo || a->v[i] > hi)
            return sp_fail(err, "axis '%s': value %ld outside %ld..%ld", axis, a->v[i], lo, hi);
        if (m == 0 || a->v[m - 1] != a->v[i])
            a->v[m++] = a->v[i];
    }
    a->n = m;
    return 0;
}

int sp_axis_parse(const char *axis, const char *text, long nproc, sp_axis_values *out,
                  sp_err *err)
{
    memset(out, 0, sizeof *out);
    int cap = 0;
    const char *s = text;
    for (;;) {
        const char *comma = strchr(s, ',');
        const char *end = comma ? comma : s + strlen(s);
        if (parse_item(axis, s, end, nproc, out, &cap, err))
            goto fail;
        if (!comma)
            break;
        s = comma + 1;
    }
    if (out->n == 0) {
        sp_fail(err, "axis '%s': no values in '%s'", axis, text);
        goto fail;
    }
    if (normalise(axis, out, err))
        goto fail;
    return 0;
fail:
    sp_axis_values_free(out);
    return -1;
}

void sp_axis_values_free(sp_axis_values *a)
{
    free(a->v);
    a->v = NULL;
    a->n = 0;
}

/* One item of a harness axis as the integer syntax: cache warm/cold -> 0/1,
 * batch auto -> 0 (a literal 0 is refused: it would read as auto). */
static int harness_item(const char *axis, const char *s, size_t len, char *buf, size_t cap,
                        sp_err *err)
{
    while (len && isspace((unsigned char)*s))
        s++, len--;
    while (len && isspace((unsigned char)s[len - 1]))
        len--;
    int cache = !strcmp(axis, SP_AXIS_CACHE), blocking = !strcmp(axis, SP_AXIS_BLOCKING);
    const char *named = cache      ? (len == 4 && !strncmp(s, "warm", 4)   ? "0"
                                      : len == 4 && !strncmp(s, "cold", 4) ? "1"
                                                                           : NULL)
                        : blocking ? (len == 3 && !strncmp(s, "off", 3)  ? "0"
                                      : len == 2 && !strncmp(s, "on", 2) ? "1"
                                                                         : NULL)
                                   : (len == 4 && !strncmp(s, "auto", 4) ? "0" : NULL);
    if (cache && !named)
        return sp_fail(err, "axis 'cache': '%.*s' is not warm or cold", (int)len, s);
    if (blocking && !named)
        return sp_fail(err, "axis 'blocking': '%.*s' is not off or on", (int)len, s);
    if (!named && len == 1 && *s == '0')
        return sp_fail(err, "axis 'batch': 0 launches a sample (write auto for the "
                       "calibrated batch)");
    if (!named && len >= cap)
        return sp_fail(err, "axis '%s': overlong value '%.*s'", axis, (int)len, s);
    snprintf(buf, cap, "%.*s", named ? 1 : (int)len, named ? named : s);
    return 0;
}

int sp_harness_axis_parse(const char *axis, const char *text, sp_axis_values *out,
                          sp_err *err)
{
    char mapped[1024] = "", item[64];
    memset(out, 0, sizeof *out);
    for (const char *s = text;;) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        if (harness_item(axis, s, len, item, sizeof item, err))
            return -1;
        if (strlen(mapped) + strlen(item) + 2 > sizeof mapped)
            return sp_fail(err, "axis '%s': too many values in '%s'", axis, text);
        strcat(strcat(mapped, *mapped ? "," : ""), item);
        if (!comma)
            break;
        s = comma + 1;
    }
    return sp_axis_parse(axis, mapped, 1, out, err);
}

int sp_is_harness_axis(const char *name)
{
    return !strcmp(name, SP_AXIS_CACHE) || !strcmp(name, SP_AXIS_BATCH) ||
           !strcmp(name, SP_AXIS_BLOCKING);
}
