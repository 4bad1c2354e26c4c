/*
 * gen.c — generator dispatch: parse "kind?key=value&...", look the kind up,
 * check its keys and values, and call the generator (fetch/gen_*.c). The
 * helpers every generator shares are gen_util.c's, below both.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

typedef struct gen_kind {
    const char *name;
    const char *keys[8];        /* accepted keys, NULL-terminated */
    gen_fn fn;
} gen_kind;

static const gen_kind KINDS[] = {
    {"laplace2d", {"n", NULL}, gen_laplace2d},
    {"laplace3d", {"n", "points", NULL}, gen_laplace3d},
    {"rmat", {"scale", "ef", "a", "b", "c", "seed", NULL}, gen_rmat},
    {"uniform", {"rows", "cols", "per_row", "seed", NULL}, gen_uniform},
    {"banded", {"n", "bw", NULL}, gen_banded},
    {"denserow", {"rows", "cols", "per_row", "dense", "seed", NULL}, gen_denserow},
    {"random", {"rows", "cols", "nnz", "seed", NULL}, gen_random},
};
#define NKINDS (sizeof KINDS / sizeof KINDS[0])

/* True when s is a non-empty run of [A-Za-z0-9_]. */
static int is_word(const char *s, size_t len)
{
    if (len == 0)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '_')
            return 0;
    return 1;
}

/* Store one "key=value" segment of length len into p. */
static int param_add(gen_params *p, const char *seg, size_t len, sp_err *err)
{
    const char *eq = memchr(seg, '=', len);
    if (len == 0)
        return sp_fail(err, "gen:%s: empty parameter (stray '&')", p->spec);
    if (!eq)
        return sp_fail(err, "gen:%s: parameter '%.*s' has no value (expected key=value)",
                       p->spec, (int)len, seg);
    size_t klen = (size_t)(eq - seg), vlen = len - klen - 1;
    if (!is_word(seg, klen) || klen >= sizeof p->item[0].key)
        return sp_fail(err, "gen:%s: bad parameter name '%.*s'", p->spec, (int)klen, seg);
    if (vlen == 0 || vlen >= sizeof p->item[0].value)
        return sp_fail(err, "gen:%s: parameter '%.*s': value %s", p->spec, (int)klen, seg,
                       vlen ? "too long" : "missing");
    if (p->count == GEN_MAX_PARAMS)
        return sp_fail(err, "gen:%s: more than %d parameters", p->spec, GEN_MAX_PARAMS);
    gen_param *it = &p->item[p->count];
    memcpy(it->key, seg, klen);
    it->key[klen] = '\0';
    memcpy(it->value, eq + 1, vlen);
    it->value[vlen] = '\0';
    if (gen_param_find(p, it->key))
        return sp_fail(err, "gen:%s: parameter '%s' given twice", p->spec, it->key);
    p->count++;
    return 0;
}

/* Split spec into kind and key=value pairs (syntax only). */
int gen_params_parse(const char *spec, gen_params *p, sp_err *err)
{
    memset(p, 0, sizeof *p);
    p->spec = spec ? spec : "";
    if (!spec || !*spec)
        return sp_fail(err, "gen:: empty generator spec (expected kind?key=value&...)");
    const char *q = strchr(spec, '?');
    size_t klen = q ? (size_t)(q - spec) : strlen(spec);
    if (!is_word(spec, klen) || klen >= sizeof p->kind)
        return sp_fail(err, "gen:%s: bad generator kind '%.*s'", spec, (int)klen, spec);
    memcpy(p->kind, spec, klen);
    if (!q)
        return 0;
    if (q[1] == '\0')
        return sp_fail(err, "gen:%s: no parameters after '?'", spec);
    for (const char *seg = q + 1;;) {
        const char *amp = strchr(seg, '&');
        size_t len = amp ? (size_t)(amp - seg) : strlen(seg);
        if (param_add(p, seg, len, err))
            return -1;
        if (!amp)
            return 0;
        seg = amp + 1;
    }
}

/* Comma-separated list of the known generator kinds into buf. */
static void list_kinds(char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < NKINDS && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", KINDS[i].name);
}

/* Refuse any key the kind does not accept, listing those it does. */
static int check_keys(const gen_kind *k, const gen_params *p, sp_err *err)
{
    for (int i = 0; i < p->count; i++) {
        int known = 0;
        for (int j = 0; k->keys[j]; j++)
            known |= strcmp(k->keys[j], p->item[i].key) == 0;
        if (known)
            continue;
        char list[256];
        size_t n = 0;
        list[0] = '\0';
        for (int j = 0; k->keys[j] && n < sizeof list; j++)
            n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", j ? ", " : "",
                                  k->keys[j]);
        return sp_fail(err, "gen:%s: unknown parameter '%s' for %s (known: %s)", p->spec,
                       p->item[i].key, k->name, list);
    }
    return 0;
}

/* Parse spec and find its generator; unknown kinds and keys are errors. */
int gen_resolve(const char *spec, gen_params *p, gen_fn *fn, sp_err *err)
{
    if (gen_params_parse(spec, p, err))
        return -1;
    for (size_t i = 0; i < NKINDS; i++) {
        if (strcmp(KINDS[i].name, p->kind) == 0) {
            *fn = KINDS[i].fn;
            return check_keys(&KINDS[i], p, err);
        }
    }
    char list[256];
    list_kinds(list, sizeof list);
    return sp_fail(err, "gen:%s: unknown generator '%s' (known: %s)", spec, p->kind, list);
}

/* Generate the matrix spec describes; A is left empty on failure. */
int sp_generate(const char *spec, sp_csr *A, sp_err *err)
{
    gen_params p;
    gen_fn fn;
    if (!A)
        return sp_fail(err, "gen:%s: no output matrix given", spec ? spec : "");
    memset(A, 0, sizeof *A);
    if (gen_resolve(spec, &p, &fn, err))
        return -1;
    if (fn(&p, A, err)) {
        sp_csr_free(A);
        return -1;
    }
    return 0;
}

/* Validate spec completely (sizes included) without allocating. */
int gen_check(const char *spec, sp_err *err)
{
    gen_params p;
    gen_fn fn;
    if (gen_resolve(spec, &p, &fn, err))
        return -1;
    return fn(&p, NULL, err);
}

/* The validation pass with p.size set: every generator notes its shape
 * and temporaries from its own parameter parsing, so the estimate and
 * the generator cannot disagree on what a spec means. */
int sp_generate_shape(const char *spec, sp_gen_shape *shape, sp_err *err)
{
    gen_params p;
    gen_fn fn;
    memset(shape, 0, sizeof *shape);
    if (gen_resolve(spec, &p, &fn, err))
        return -1;
    p.size = shape;
    return fn(&p, NULL, err) ? -1 : 0;
}

/* Append s to name (at *n), mapping characters outside [A-Za-z0-9_.-]
 * to '_', so the name is safe in file names and chart titles. */
static void name_append(char *name, size_t len, size_t *n, const char *s)
{
    for (; *s && *n + 1 < len; s++) {
        int ok = isalnum((unsigned char)*s) || *s == '_' || *s == '.' || *s == '-';
        name[(*n)++] = ok ? *s : '_';
    }
    name[*n] = '\0';
}

/* Readable name: kind, then key and value of each pair, "_"-joined. */
int gen_name(const char *spec, char *name, size_t len, sp_err *err)
{
    gen_params p;
    size_t n = 0;
    if (len == 0)
        return sp_fail(err, "gen:%s: no room for a name", spec ? spec : "");
    if (gen_params_parse(spec, &p, err))
        return -1;
    name_append(name, len, &n, p.kind);
    for (int i = 0; i < p.count; i++) {
        name_append(name, len, &n, "_");
        name_append(name, len, &n, p.item[i].key);
        name_append(name, len, &n, p.item[i].value);
    }
    return 0;
}
