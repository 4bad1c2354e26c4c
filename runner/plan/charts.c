/*
 * charts.c — the [chart NAME] sections of a config (charts.h): each key
 * checked on its own here; checks against the config's kernels are in
 * config.c; sp_chart_specs_parse reads the sections back for the report.
 */
#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "charts.h"
#include "nearest.h"

static const char *const chart_keys[] = {"y", "x", "split", "kernels", "device", "operation",
                                         "baseline", "stat"};
#define NKEYS (int)(sizeof chart_keys / sizeof *chart_keys)

const char *sp_chart_key_name(int i)
{
    return i >= 0 && i < NKEYS ? chart_keys[i] : NULL;
}

int sp_chart_name_ok(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > SP_CHART_NAME_MAX)
        return 0;
    for (const char *p = name; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-' && *p != '.')
            return 0;
    return 1;
}

/* value must be one of the n words; its index in *out. */
static int one_of(const char *key, const char *v, const char *const *words, int n, int *out,
                  sp_err *err)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(v, words[i]))
            return *out = i, 0;
    char list[128] = "";
    for (int i = 0; i < n; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                 words[i]);
    const char *near = sp_cli_nearest(v, words, n);
    return sp_fail(err, "'%s' must be one of %s, not '%s'%s%s%s", key, list, v,
                   near ? "; did you mean " : "", near ? near : "", near ? "?" : "");
}

/* Copy a name-like value (an axis, a kernel, an operation) into dst. */
static int word_value(const char *key, const char *v, char *dst, size_t len, sp_err *err)
{
    if (!*v)
        return sp_fail(err, "'%s' must not be empty", key);
    if (strlen(v) >= len)
        return sp_fail(err, "'%s' is longer than %zu characters", key, len - 1);
    for (const char *p = v; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-' && *p != '.')
            return sp_fail(err, "'%s' = '%s': a single name expected (letters, digits, "
                           "'_', '-', '.')", key, v);
    snprintf(dst, len, "%s", v);
    return 0;
}

/* `kernels = GLOB, GLOB`: no empty entry, kept as written. */
static int kernels_value(sp_chart_spec *c, const char *v, sp_err *err)
{
    if (strlen(v) >= sizeof c->kernels)
        return sp_fail(err, "'kernels' is longer than %zu characters", sizeof c->kernels - 1);
    const char *p = v;
    for (;;) {
        const char *comma = strchr(p, ',');
        const char *end = comma ? comma : p + strlen(p);
        int empty = 1;
        for (const char *q = p; q < end; q++)
            empty &= isspace((unsigned char)*q) != 0;
        if (empty)
            return sp_fail(err, "'kernels' = '%s': an empty entry (expected kernel names or "
                           "globs, comma-separated)", v);
        if (!comma)
            break;
        p = comma + 1;
    }
    snprintf(c->kernels, sizeof c->kernels, "%s", v);
    return 0;
}

int sp_chart_key(sp_chart_spec *c, const char *key, const char *v, int line, sp_err *err)
{
    int k = 0;
    while (k < NKEYS && strcmp(chart_keys[k], key))
        k++;
    if (k == NKEYS) {
        const char *near = sp_cli_nearest(key, chart_keys, NKEYS);
        return sp_fail(err, "unknown key '%s' in [chart %s]%s%s%s (known: y, x, split, "
                       "kernels, device, operation, baseline, stat)", key, c->name,
                       near ? "; did you mean " : "", near ? near : "", near ? "?" : "");
    }
    if (c->given & (1u << k))
        return sp_fail(err, "'%s' of [chart %s] given twice", key, c->name);
    c->given |= 1u << k;
    c->key_line[k] = line;
    static const char *const ys[] = {"rate", "time", "speedup"};
    static const char *const splits[] = {"none", "family", "kernel"};
    static const char *const devices[] = {"cpu", "gpu"};
    static const char *const stats[] = {"median", "mean"};
    int i = 0;
    switch (1u << k) {
    case SP_CHART_KEY_Y:
        return one_of(key, v, ys, 3, &i, err) ? -1 : (c->y = (sp_chart_y)i, 0);
    case SP_CHART_KEY_X:
        return word_value(key, v, c->x, sizeof c->x, err);
    case SP_CHART_KEY_SPLIT:
        return one_of(key, v, splits, 3, &i, err) ? -1 : (c->split = (sp_chart_split)i, 0);
    case SP_CHART_KEY_KERNELS:
        return kernels_value(c, v, err);
    case SP_CHART_KEY_DEVICE:
        return one_of(key, v, devices, 2, &i, err) ? -1
                                                   : (snprintf(c->device, sizeof c->device,
                                                               "%s", devices[i]), 0);
    case SP_CHART_KEY_OPERATION:
        return word_value(key, v, c->operation, sizeof c->operation, err);
    case SP_CHART_KEY_BASELINE:
        return word_value(key, v, c->baseline, sizeof c->baseline, err);
    default:
        return one_of(key, v, stats, 2, &i, err) ? -1 : (c->mean = i, 0);
    }
}

int sp_chart_finish(const sp_chart_spec *c, sp_err *err)
{
    if (!(c->given & SP_CHART_KEY_X))
        return sp_fail(err, "[chart %s] has no 'x': the axis to draw against (threads, "
                       "blocksize, hack, window, ...)", c->name);
    if ((c->given & SP_CHART_KEY_BASELINE) && c->y != SP_CHART_SPEEDUP)
        return sp_fail(err, "[chart %s]: 'baseline' is for y = speedup", c->name);
    return 0;
}

int sp_chart_line(const sp_chart_spec *c, unsigned key)
{
    for (int k = 0; k < NKEYS; k++)
        if ((1u << k) == key && c->key_line[k] > 0)
            return c->key_line[k];
    return c->line;
}

int sp_chart_each_glob(const sp_chart_spec *c, int (*fn)(const char *glob, void *user),
                       void *user)
{
    const char *p = c->kernels;
    while (*p) {
        while (isspace((unsigned char)*p) || *p == ',')
            p++;
        size_t n = strcspn(p, ",");
        while (n > 0 && isspace((unsigned char)p[n - 1]))
            n--;
        if (n > 0) {
            char glob[sizeof c->kernels];
            snprintf(glob, sizeof glob, "%.*s", (int)n, p);
            int rc = fn(glob, user);
            if (rc)
                return rc;
        }
        p += strcspn(p, ",");
    }
    return 0;
}

int sp_chart_glob_matches(const char *glob, const char *name)
{
    return fnmatch(glob, name, 0) == 0;
}

static int glob_hit(const char *glob, void *user)
{
    return sp_chart_glob_matches(glob, user);
}

int sp_chart_selects(const sp_chart_spec *c, const char *kernel)
{
    return !c->kernels[0] || sp_chart_each_glob(c, glob_hit, (void *)kernel) != 0;
}

void sp_chart_family(const char *kernel, const char *format, char *out, size_t len)
{
    const char *f = format && *format ? format : "other";
    if (strstr(kernel, "_aligned"))
        snprintf(out, len, "%s-aligned", f);
    else
        snprintf(out, len, "%s", f);
}

/* ---- reading the sections back ------------------------------------------ */

/* [s, e) with the whitespace around it removed. */
static void trim(const char **s, const char **e)
{
    while (*s < *e && isspace((unsigned char)**s))
        (*s)++;
    while (*e > *s && isspace((unsigned char)(*e)[-1]))
        (*e)--;
}

/* A section header [title]: a new chart (added to *out) or NULL in *cur. */
static int chart_section(const char *path, int line, const char *s, const char *e,
                         sp_chart_spec **out, int *n, sp_chart_spec **cur, sp_err *err)
{
    *cur = NULL;
    s++;
    const char *close = memchr(s, ']', (size_t)(e - s));
    if (!close)
        return sp_fail(err, "%s:%d: section header without ']'", path, line);
    trim(&s, &close);
    if (close - s < 6 || strncmp(s, "chart", 5) || !isspace((unsigned char)s[5]))
        return 0;
    const char *name = s + 5;
    trim(&name, &close);
    sp_chart_spec *grown = realloc(*out, (size_t)(*n + 1) * sizeof *grown);
    if (!grown)
        return sp_fail(err, "%s: out of memory", path);
    *out = grown;
    *cur = &grown[(*n)++];
    memset(*cur, 0, sizeof **cur);
    snprintf((*cur)->name, sizeof (*cur)->name, "%.*s", (int)(close - name), name);
    (*cur)->line = line;
    if ((size_t)(close - name) >= sizeof (*cur)->name || !sp_chart_name_ok((*cur)->name))
        return sp_fail(err, "%s:%d: [chart %.*s]: %s", path, line, (int)(close - name), name,
                       SP_CHART_NAME_RULE);
    return 0;
}

/* One `key = value` line of a chart section (inline comments after ';'
 * removed, as libinih does). */
static int chart_line(const char *path, int line, const char *s, const char *e,
                      sp_chart_spec *c, sp_err *err)
{
    const char *sep = s;
    while (sep < e && *sep != '=' && *sep != ':')
        sep++;
    if (sep == e)
        return sp_fail(err, "%s:%d: syntax error (expected 'key = value' or [section])", path,
                       line);
    const char *ks = s, *ke = sep, *vs = sep + 1, *ve = e;
    for (const char *p = vs; p < ve; p++)
        if (*p == ';' && p > vs && isspace((unsigned char)p[-1])) {
            ve = p;
            break;
        }
    trim(&ks, &ke);
    trim(&vs, &ve);
    char key[64], value[1024];
    snprintf(key, sizeof key, "%.*s", (int)(ke - ks), ks);
    snprintf(value, sizeof value, "%.*s", (int)(ve - vs), vs);
    if (sp_chart_key(c, key, value, line, err))
        return sp_fail_prefix(err, "%s:%d", path, line);
    return 0;
}

int sp_chart_specs_parse(const char *path, const char *text, sp_chart_spec **out, int *n,
                         sp_err *err)
{
    *out = NULL;
    *n = 0;
    sp_chart_spec *cur = NULL;
    int line = 1, rc = 0;
    for (const char *s = text ? text : ""; *s && rc == 0; line++) {
        const char *nl = strchr(s, '\n');
        const char *e = nl ? nl : s + strlen(s), *b = s;
        trim(&b, &e);
        if (b < e && *b == '[')
            rc = chart_section(path, line, b, e, out, n, &cur, err);
        else if (cur && b < e && *b != ';' && *b != '#')
            rc = chart_line(path, line, b, e, cur, err);
        s = nl ? nl + 1 : s + strlen(s);
    }
    for (int i = 0; i < *n && rc == 0; i++)
        if (sp_chart_finish(&(*out)[i], err))
            rc = sp_fail_prefix(err, "%s:%d", path, (*out)[i].line);
    if (rc) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return rc;
}
