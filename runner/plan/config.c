/*
 * config.c — sweep configs, read with libinih.
 *
 * libinih reports the line of the first key its handler rejects but passes
 * no line to the handler, and never calls it for a section without keys.
 * So sections are found by a short pre-scan (which knows their lines and
 * registers [kernel NAME] sections even when they are empty), and every
 * key is validated inside the handler, so a rejected key's line comes back
 * from ini_parse_string. The pre-scan also lists, in order, the lines
 * libinih will call the handler for (keys and continuation lines), so the
 * handler knows its line: a source keeps it, and errors about the source
 * (a file that is not there) name it later.
 */
#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "charts.h"
#include "nearest.h"
#include "../../fetch/fetch.h"
#include "plan.h"

/* Lines up to this long are read whole (selection expressions and value
 * lists grow long). libinih's own limit, INI_MAX_LINE (200 bytes with the
 * newline and the NUL: 198 characters), is compiled into the library;
 * Debian's build makes it a variable, ini_max_line, raised here where the
 * library has it. A weak reference: an inih without it links too, and
 * keeps its 198. */
#define CONFIG_MAX_LINE 16384
extern int ini_max_line;
#pragma weak ini_max_line

typedef struct parse_ctx {
    sp_config *cfg;
    sp_kernel_list extra;
    long nproc;
    int failed;
    sp_err err;             /* message of the first rejected key, no line */
    int *call_line;         /* the lines libinih calls on_key for, in order */
    int ncalls, cap_calls, next_call;
} parse_ctx;

/* The longest line libinih reads whole, raising its limit where it can. */
static int line_limit(void)
{
    if (!&ini_max_line)
        return INI_MAX_LINE - 2;
    if (ini_max_line < CONFIG_MAX_LINE + 2)
        ini_max_line = CONFIG_MAX_LINE + 2;
    return CONFIG_MAX_LINE;
}

static const sp_kernel *find_kernel(sp_kernel_list extra, const char *name)
{
    for (int i = 0; extra && extra[i]; i++)
        if (!strcmp(extra[i]->name, name))
            return extra[i];
    return sp_kernel_find(name);
}

/* The registered (or extra) kernel name closest to a misspelt one, or
 * NULL when none is within two edits (runner/plan/nearest.c sp_cli_nearest). */
static const char *nearest_kernel(sp_kernel_list extra, const char *name)
{
    const char *names[512];
    int n = 0;
    for (int i = 0; extra && extra[i] && n < 512; i++)
        names[n++] = extra[i]->name;
    for (int i = 0; sp_kernels[i] && n < 512; i++)
        names[n++] = sp_kernels[i]->name;
    return sp_cli_nearest(name, names, n);
}

/* Normalise a section title: trimmed, inner whitespace collapsed to one
 * space. Returns 0 and the kernel name (or "") in *kname. */
static void section_title(const char *raw, char *out, size_t len, const char **kname)
{
    size_t n = 0;
    int space = 0;
    for (const char *p = raw; *p && n + 1 < len; p++) {
        if (isspace((unsigned char)*p)) {
            space = (n > 0);
            continue;
        }
        if (space && n + 2 < len)
            out[n++] = ' ';
        space = 0;
        out[n++] = *p;
    }
    out[n] = 0;
    *kname = !strncmp(out, "kernel ", 7) ? out + 7 : "";
}

static sp_kernel_spec *spec_for(sp_config *cfg, const char *kname)
{
    for (int i = 0; i < cfg->nkernels; i++)
        if (!strcmp(cfg->kernels[i].kernel->name, kname))
            return &cfg->kernels[i];
    return NULL;
}

/* The [chart NAME] section called name, or NULL. */
static sp_chart_spec *chart_for(sp_config *cfg, const char *name)
{
    for (int i = 0; i < cfg->ncharts; i++)
        if (!strcmp(cfg->charts[i].name, name))
            return &cfg->charts[i];
    return NULL;
}

/* The name of a [chart NAME] title, or NULL for another section. */
static const char *chart_title(const char *title)
{
    if (!strcmp(title, "chart"))
        return "";
    return !strncmp(title, "chart ", 6) ? title + 6 : NULL;
}

/* Register a [chart NAME] section found by the pre-scan. */
static int prescan_chart(parse_ctx *c, const char *name, const char *path, int line,
                         sp_err *err)
{
    if (!sp_chart_name_ok(name))
        return sp_fail(err, "%s:%d: [chart %s]: %s", path, line, name, SP_CHART_NAME_RULE);
    if (chart_for(c->cfg, name))
        return sp_fail(err, "%s:%d: chart '%s' appears twice", path, line, name);
    sp_chart_spec *ch = realloc(c->cfg->charts, (size_t)(c->cfg->ncharts + 1) * sizeof *ch);
    if (!ch)
        return sp_fail(err, "out of memory reading %s", path);
    c->cfg->charts = ch;
    memset(&ch[c->cfg->ncharts], 0, sizeof *ch);
    snprintf(ch[c->cfg->ncharts].name, sizeof ch->name, "%.*s", SP_CHART_NAME_MAX, name);
    ch[c->cfg->ncharts].line = line;
    c->cfg->ncharts++;
    return 0;
}

/* Register one section found by the pre-scan. */
static int prescan_section(parse_ctx *c, const char *raw, const char *path, int line,
                           sp_err *err)
{
    char title[256];
    const char *kname;
    section_title(raw, title, sizeof title, &kname);
    if (!strcmp(title, "sweep") || !strcmp(title, "matrices") || !strcmp(title, "fetch"))
        return 0;
    if (chart_title(title))
        return prescan_chart(c, chart_title(title), path, line, err);
    if (!*kname) {
        static const char *const sections[] = {"sweep", "matrices", "fetch"};
        const char *near = sp_cli_nearest(title, sections, 3);
        return sp_fail(err, "%s:%d: unknown section [%s]%s%s%s; expected [sweep], [matrices], "
                       "[fetch], [kernel NAME] or [chart NAME]", path, line, title,
                       near ? "; did you mean " : "", near ? near : "", near ? "?" : "");
    }
    const sp_kernel *k = find_kernel(c->extra, kname);
    if (!k) {
        const char *near = nearest_kernel(c->extra, kname);
        return sp_fail(err, "%s:%d: unknown kernel '%s'%s%s%s (`spsweep list` shows them)",
                       path, line, kname, near ? "; did you mean " : "", near ? near : "",
                       near ? "?" : "");
    }
    if (spec_for(c->cfg, kname))
        return sp_fail(err, "%s:%d: kernel '%s' appears twice", path, line, kname);
    sp_kernel_spec *ks = realloc(c->cfg->kernels,
                                 (size_t)(c->cfg->nkernels + 1) * sizeof *ks);
    if (!ks)
        return sp_fail(err, "out of memory reading %s", path);
    c->cfg->kernels = ks;
    memset(&ks[c->cfg->nkernels], 0, sizeof *ks);
    ks[c->cfg->nkernels].kernel = k;
    ks[c->cfg->nkernels].line = line;
    ks[c->cfg->nkernels].max_fill = -1;
    c->cfg->nkernels++;
    return 0;
}

/* Remember that libinih will call on_key for this line. */
static int note_call(parse_ctx *c, int line, sp_err *err)
{
    if (c->ncalls == c->cap_calls) {
        int cap = c->cap_calls ? 2 * c->cap_calls : 64;
        int *grown = realloc(c->call_line, (size_t)cap * sizeof *grown);
        if (!grown)
            return sp_fail(err, "out of memory reading the config");
        c->call_line = grown;
        c->cap_calls = cap;
    }
    c->call_line[c->ncalls++] = line;
    return 0;
}

/* Where libinih splits "name = value": the first '=' or ':' before an
 * inline comment (';' after whitespace); end when there is none. */
static const char *key_separator(const char *p, const char *end)
{
    for (int was_space = 0; p < end; was_space = isspace((unsigned char)*p), p++)
        if (*p == '=' || *p == ':' || (was_space && *p == ';'))
            return *p == ';' ? end : p;
    return end;
}

/* One line [s, end) as libinih (r55) reads it: blank or a comment; with
 * leading whitespace after a key, a continuation of its value; a
 * [section]; a key. *after_key: a key line came last (sections reset it). */
static int prescan_line(parse_ctx *c, const char *path, int line, const char *s,
                        const char *end, int *after_key, sp_err *err)
{
    const char *p = s;
    if (line == 1 && end - s >= 3 && !memcmp(s, "\xEF\xBB\xBF", 3))
        p += 3;                 /* a UTF-8 byte order mark */
    while (p < end && isspace((unsigned char)*p))
        p++;
    if (p == end || *p == ';' || *p == '#')
        return 0;
    if (*after_key && p > s)
        return note_call(c, line, err);
    if (*p == '[') {
        *after_key = 0;
        const char *close = memchr(p, ']', (size_t)(end - p));
        if (!close)
            return sp_fail(err, "%s:%d: section header without ']'", path, line);
        char raw[256];
        snprintf(raw, sizeof raw, "%.*s", (int)(close - p - 1), p + 1);
        return prescan_section(c, raw, path, line, err);
    }
    const char *sep = key_separator(p, end);
    if (sep == end)
        return 0;               /* not a key: libinih reports the line */
    *after_key = sep > p;       /* "= x" has no name to continue */
    return note_call(c, line, err);
}

/* Find sections and the lines keys are on; refuse lines libinih would
 * split. */
static int prescan(parse_ctx *c, const char *path, const char *text, sp_err *err)
{
    int line = 1, after_key = 0, limit = line_limit();
    for (const char *s = text; *s; line++) {
        const char *nl = strchr(s, '\n');
        const char *end = nl ? nl : s + strlen(s);
        if (end - s > limit)
            return sp_fail(err, "%s:%d: line is %ld characters; the limit is %d", path, line,
                           (long)(end - s), limit);
        if (prescan_line(c, path, line, s, end, &after_key, err))
            return -1;
        s = nl ? nl + 1 : end;
    }
    return 0;
}

/* `kernels = advised:K` -> K (plan.h). */
int sp_parse_advised(const char *v, int *k, sp_err *err)
{
    const char *p = strncmp(v, "advised:", 8) ? NULL : v + 8;
    char *end;
    long n = p && *p ? strtol(p, &end, 10) : 0;
    if (!p || !*p || *end || n < 1 || n > 1000)
        return sp_fail(err, "'kernels' in [sweep] takes advised:K (K = 1..1000: run the K "
                       "configurations `spsweep advise` ranks first for each matrix, plus "
                       "the vendor library's), not '%s'", v);
    *k = (int)n;
    return 0;
}

static int parse_int_value(const char *key, const char *v, long lo, long hi, int *out,
                           sp_err *err)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (!*v || *end || errno || x < lo || x > hi)
        return sp_fail(err, "'%s' must be an integer in %ld..%ld, not '%s'", key, lo, hi, v);
    *out = (int)x;
    return 0;
}

static int replace_str(char **dst, const char *v, sp_err *err)
{
    char *s = strdup(v);
    if (!s)
        return sp_fail(err, "out of memory");
    free(*dst);
    *dst = s;
    return 0;
}

/* A positive finite number of key `name`. */
static int parse_positive(const char *name, const char *v, double *out, sp_err *err)
{
    char *end;
    double t = strtod(v, &end);
    if (!*v || *end || !(t > 0) || !isfinite(t))
        return sp_fail(err, "'%s' must be a positive number, not '%s'", name, v);
    *out = t;
    return 0;
}

const char *sp_isolate_name(sp_isolate_mode m)
{
    return m == SP_ISOLATE_MATRIX ? "matrix" : m == SP_ISOLATE_COMBINATION ? "combination"
                                                                          : "auto";
}

int sp_isolate_parse(const char *text, sp_isolate_mode *m)
{
    static const sp_isolate_mode modes[] = {SP_ISOLATE_AUTO, SP_ISOLATE_MATRIX,
                                            SP_ISOLATE_COMBINATION};
    for (int i = 0; i < 3; i++)
        if (!strcmp(text, sp_isolate_name(modes[i])))
            return *m = modes[i], 0;
    return -1;
}

/* A duration: a positive number of seconds, or with a unit: "0.5ms",
 * "500us", "2s". */
static int parse_duration(const char *name, const char *v, double *out, sp_err *err)
{
    char *end;
    double t = strtod(v, &end);
    double scale = !strcmp(end, "") || !strcmp(end, "s") ? 1
                   : !strcmp(end, "ms")                 ? 1e-3
                   : !strcmp(end, "us")                 ? 1e-6
                                                        : 0;
    if (end == v || !(scale > 0) || !(t > 0) || !isfinite(t))
        return sp_fail(err, "'%s' must be a positive duration (seconds, or with a unit: "
                       "0.5ms, 500us), not '%s'", name, v);
    *out = t * scale;
    return 0;
}

/* The harness's keys: cache, cache_dir, batch, blocking, min_sample_time, rounds,
 * seed, noisy, energy, max_fill, energy_windows, steps. 1 when name is
 * none of them. */
static int harness_key(sp_config *cfg, const char *name, const char *v, sp_err *err)
{
    /* `cache` once named the matrix cache directory: a value other than
     * warm or cold still does, cache_dir is its new name */
    if (!strcmp(name, "cache") && (!strcmp(v, "warm") || !strcmp(v, "cold")))
        return cfg->cold = !strcmp(v, "cold"), 0;
    if (!strcmp(name, "cache") || !strcmp(name, "cache_dir"))
        return *v ? replace_str(&cfg->cache_dir, v, err)
                  : sp_fail(err, "'%s' must not be empty", name);
    if (!strcmp(name, "batch") && !strcmp(v, "auto"))
        return cfg->batch = 0, 0;
    if (!strcmp(name, "batch")) {
        if (parse_int_value(name, v, 1, SP_BATCH_MAX, &cfg->batch, err))
            return sp_fail(err, "'batch' must be 'auto' or launches per sample in 1..%d, "
                           "not '%s'", SP_BATCH_MAX, v);
        return 0;
    }
    if (!strcmp(name, "blocking") && (!strcmp(v, "off") || !strcmp(v, "on")))
        return cfg->blocking = !strcmp(v, "on"), 0;
    if (!strcmp(name, "blocking"))
        return sp_fail(err, "'blocking' must be 'off' or 'on' (GPU samples queued behind a "
                       "blocking kernel), not '%s'", v);
    if (!strcmp(name, "min_sample_time"))
        return parse_duration(name, v, &cfg->min_sample_s, err);
    if (!strcmp(name, "rounds"))
        return parse_int_value(name, v, 1, 1000, &cfg->rounds, err);
    if (!strcmp(name, "seed")) {
        int seed = 0;
        if (parse_int_value(name, v, 0, 2147483647, &seed, err))
            return -1;
        return cfg->seed = seed, 0;
    }
    if (!strcmp(name, "energy") && !strcmp(v, "off"))
        return cfg->energy_s = 0, 0;
    if (!strcmp(name, "energy"))
        return parse_duration(name, v, &cfg->energy_s, err);
    if (!strcmp(name, "max_fill"))
        return sp_parse_max_fill(v, &cfg->max_fill, err);
    if (!strcmp(name, "steps") && parse_int_value(name, v, 0, 1, &cfg->steps, err))
        return sp_fail(err, "'steps' must be 0 or 1 (1: time the steps a kernel marks, one "
                       "launch a sample), not '%s'", v);
    if (!strcmp(name, "steps"))
        return 0;
    if (!strcmp(name, "energy_windows"))
        return parse_int_value(name, v, 1, SP_ENERGY_WINDOWS_MAX, &cfg->energy_windows, err);
    if (!strcmp(name, "noisy")) {
        if (parse_positive(name, v, &cfg->noisy_threshold, err))
            return -1;
        return cfg->noisy_threshold < 1 ? 0
               : sp_fail(err, "'noisy' is a fraction of the median (0.05 = 5 %%), not '%s'", v);
    }
    return 1;
}

void sp_config_load_opts(const sp_config *cfg, sp_load_opts *lo)
{
    memset(lo, 0, sizeof *lo);
    lo->cache_dir = cfg->cache_dir;
    lo->mm.complex = cfg->complex;
    lo->mm.threads = cfg->read_threads;
}

double sp_config_min_sample(const sp_config *cfg, const sp_kernel *k)
{
    if (cfg->min_sample_s > 0)
        return cfg->min_sample_s;
    return k->needs_gpu ? SP_MIN_SAMPLE_GPU_S : SP_MIN_SAMPLE_CPU_S;
}

static int sweep_key(sp_config *cfg, const char *name, const char *v, sp_err *err)
{
    int h = harness_key(cfg, name, v, err);
    if (h <= 0)
        return h;
    if (!strcmp(name, "repetitions") && !strcmp(v, "auto")) {
        cfg->auto_reps = 1;
        cfg->repetitions = 10;
        return 0;
    }
    if (!strcmp(name, "repetitions"))
        return cfg->auto_reps = 0,
               parse_int_value(name, v, 1, 1000000, &cfg->repetitions, err);
    if (!strcmp(name, "timeout"))
        return parse_positive(name, v, &cfg->timeout_s, err);
    if (!strcmp(name, "max_noise"))
        return parse_positive(name, v, &cfg->max_noise, err);
    if (!strcmp(name, "max_time"))
        return parse_positive(name, v, &cfg->max_time_s, err);
    if (!strcmp(name, "warmup"))
        return parse_int_value(name, v, 0, 1000000, &cfg->warmup, err);
    if (!strcmp(name, "tolerance")) {
        char *end;
        double t = strtod(v, &end);
        if (!*v || *end || !(t > 0) || !isfinite(t))
            return sp_fail(err, "'tolerance' must be a positive number, not '%s'", v);
        cfg->tolerance = t;
        return 0;
    }
    if (!strcmp(name, "database"))
        return *v ? replace_str(&cfg->database, v, err)
                  : sp_fail(err, "'database' must not be empty");
    if (!strcmp(name, "complex")) {
        if (!strcmp(v, "real") || !strcmp(v, "refuse")) {
            cfg->complex = !strcmp(v, "refuse") ? SP_COMPLEX_REFUSE : SP_COMPLEX_REAL_PART;
            return 0;
        }
        return sp_fail(err, "'complex' must be 'real' or 'refuse', not '%s'", v);
    }
    if (!strcmp(name, "read_threads"))
        return parse_int_value(name, v, 0, SP_READ_THREADS_MAX, &cfg->read_threads, err);
    if (!strcmp(name, "description"))
        return 0;               /* free text, kept with the config text */
    if (!strcmp(name, "isolate"))
        return sp_isolate_parse(v, &cfg->isolate)
                   ? sp_fail(err, "'isolate' must be 'auto', 'matrix' or 'combination', "
                             "not '%s'", v)
                   : 0;
    if (!strcmp(name, "kernels"))
        return sp_parse_advised(v, &cfg->advised_k, err);
    if (!strcmp(name, "advise_db"))
        return *v ? replace_str(&cfg->advise_db, v, err)
                  : sp_fail(err, "'advise_db' must not be empty");
    static const char *const known[] = {"repetitions", "warmup", "tolerance", "database",
        "cache", "cache_dir", "batch", "blocking", "min_sample_time", "rounds", "seed", "noisy",
        "energy",
        "energy_windows", "complex", "description", "timeout", "max_noise", "max_time",
        "isolate", "max_fill", "read_threads", "steps", "kernels", "advise_db"};
    const char *near = sp_cli_nearest(name, known, (int)(sizeof known / sizeof *known));
    return sp_fail(err, "unknown key '%s' in [sweep]%s%s%s (known: repetitions, warmup, "
                   "tolerance, database, cache, cache_dir, batch, blocking, min_sample_time, rounds, "
                   "seed, noisy, energy, energy_windows, complex, description, timeout, max_noise, "
                   "max_time, isolate, max_fill, read_threads, steps, kernels, advise_db)", name, near ? "; did you mean " : "",
                   near ? near : "", near ? "?" : "");
}

/* select = EXPR over the SuiteSparse index (checked now, evaluated at
 * fetch time); limit = N. */
static int selection_key(sp_config *cfg, const char *name, const char *v, sp_err *err)
{
    if (!strcmp(name, "limit")) {
        int limit = 0;
        if (parse_int_value(name, v, 1, 1000000, &limit, err))
            return -1;
        cfg->fetch.limit = limit;
        return 0;
    }
    if (cfg->fetch.select)
        return sp_fail(err, "'select' given twice (combine them with 'or')");
    char sql[4096];
    sp_sql_param params[64];
    int np;
    if (sp_ss_select_compile(v, sql, sizeof sql, params, 64, &np, err))
        return -1;
    return replace_str(&cfg->fetch.select, v, err);
}

/* [fetch]: where and how matrices are downloaded. */
static int fetch_key(sp_config *cfg, const char *name, const char *v, sp_err *err)
{
    if (!strcmp(name, "base_url"))
        return *v ? replace_str(&cfg->fetch.base_url, v, err)
                  : sp_fail(err, "'base_url' must not be empty");
    if (!strcmp(name, "jobs"))
        return parse_int_value(name, v, 1, 64, &cfg->fetch.jobs, err);
    return sp_fail(err, "unknown key '%s' in [fetch] (known: base_url, jobs)", name);
}

/* Keep the config line of the source just added: errors about it (a file
 * that is not there) name it as config errors do. */
static int keep_source_line(sp_config *cfg, int line, sp_err *err)
{
    int *grown = realloc(cfg->source_line, (size_t)cfg->nmatrices * sizeof *grown);
    if (!grown)
        return sp_fail(err, "out of memory");
    cfg->source_line = grown;
    cfg->source_line[cfg->nmatrices - 1] = line;
    cfg->nsource_lines = cfg->nmatrices;
    return 0;
}

static int matrices_key(sp_config *cfg, const char *name, const char *v, int line,
                        sp_err *err)
{
    if (!strcmp(name, "select") || !strcmp(name, "limit"))
        return selection_key(cfg, name, v, err);
    if (strcmp(name, "source"))
        return sp_fail(err, "unknown key '%s' in [matrices] (use: source = gen:... | "
                       "file:... | suitesparse:...; select = EXPR; limit = N)", name);
    if (!*v)                    /* first line of a multi-line list */
        return 0;
    sp_source src;
    if (sp_source_parse(v, &src, err))
        return -1;
    sp_source *m = realloc(cfg->matrices, (size_t)(cfg->nmatrices + 1) * sizeof *m);
    if (!m)
        return sp_fail(err, "out of memory");
    cfg->matrices = m;
    cfg->matrices[cfg->nmatrices++] = src;
    return keep_source_line(cfg, line, err);
}

/* `max_fill = 10` (times the CSR's entries) or `none` (0). */
int sp_parse_max_fill(const char *v, double *out, sp_err *err)
{
    char *end;
    double f = strtod(v, &end);
    if (!strcmp(v, "none"))
        return *out = 0, 0;
    if (!*v || *end || !(f >= 1) || !isfinite(f))
        return sp_fail(err, "'max_fill' is how many times the CSR's entries a padded layout "
                       "(ELL, HLL, SELL, DIA) may store, a number >= 1, or none; not '%s'", v);
    return *out = f, 0;
}

/* `cache = warm,cold`, `batch = auto,1` or `blocking = off,on` in a
 * kernel's section. */
static int kernel_harness_key(sp_kernel_spec *ks, const char *name, const char *v, sp_err *err)
{
    sp_axis_values *a = !strcmp(name, SP_AXIS_CACHE)      ? &ks->cache
                        : !strcmp(name, SP_AXIS_BLOCKING) ? &ks->blocking
                                                          : &ks->batch;
    if (a->n)
        return sp_fail(err, "axis '%s' of kernel '%s' given twice", name, ks->kernel->name);
    return sp_harness_axis_parse(name, v, a, err);
}

static int kernel_key(parse_ctx *c, sp_kernel_spec *ks, const char *name, const char *v,
                      sp_err *err)
{
    const sp_kernel *k = ks->kernel;
    if (sp_is_harness_axis(name))
        return kernel_harness_key(ks, name, v, err);
    if (!strcmp(name, "max_fill")) {
        if (ks->max_fill >= 0)
            return sp_fail(err, "'max_fill' of kernel '%s' given twice", k->name);
        return sp_parse_max_fill(v, &ks->max_fill, err);
    }
    for (int a = 0; a < k->naxes; a++) {
        if (strcmp(k->axes[a].name, name))
            continue;
        if (ks->axis_text[a])
            return sp_fail(err, "axis '%s' of kernel '%s' given twice", name, k->name);
        if (sp_axis_parse(name, v, c->nproc, &ks->axes[a], err) ||
            sp_axis_check_valid(k, a, &ks->axes[a], c->nproc, err))
            return -1;
        return replace_str(&ks->axis_text[a], v, err);
    }
    char known[256] = "";
    for (int a = 0; a < k->naxes; a++)
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s",
                 a ? ", " : "", k->axes[a].name);
    const char *names[SP_MAX_AXES + 4];
    int nn = 0;
    for (int a = 0; a < k->naxes; a++)
        names[nn++] = k->axes[a].name;
    names[nn++] = SP_AXIS_CACHE, names[nn++] = SP_AXIS_BATCH, names[nn++] = SP_AXIS_BLOCKING;
    names[nn++] = "max_fill";
    const char *near = sp_cli_nearest(name, names, nn);
    return sp_fail(err, "kernel '%s' has no axis '%s'%s%s%s (its axes: %s%scache, batch, blocking; "
                   "its setting: max_fill)", k->name, name, near ? "; did you mean " : "",
                   near ? near : "", near ? "?" : "", known, k->naxes ? ", " : "");
}

/* libinih handler: returns 0 to reject the key at the current line. */
static int on_key(void *user, const char *section, const char *name, const char *value)
{
    parse_ctx *c = user;
    int line = c->next_call < c->ncalls ? c->call_line[c->next_call] : 0;
    c->next_call++;
    if (c->failed)
        return 1;               /* keep the first error only */
    char title[256];
    const char *kname;
    section_title(section, title, sizeof title, &kname);
    int rc;
    if (!*title)
        rc = sp_fail(&c->err, "key '%s' outside any section", name);
    else if (!strcmp(title, "sweep"))
        rc = sweep_key(c->cfg, name, value, &c->err);
    else if (!strcmp(title, "matrices"))
        rc = matrices_key(c->cfg, name, value, line, &c->err);
    else if (!strcmp(title, "fetch"))
        rc = fetch_key(c->cfg, name, value, &c->err);
    else if (chart_title(title) && chart_for(c->cfg, chart_title(title)))
        rc = sp_chart_key(chart_for(c->cfg, chart_title(title)), name, value, line, &c->err);
    else if (!spec_for(c->cfg, kname))  /* inih truncates titles over 50 chars */
        rc = sp_fail(&c->err, "section [%s] not understood", title);
    else
        rc = kernel_key(c, spec_for(c->cfg, kname), name, value, &c->err);
    if (rc)
        c->failed = 1;
    return rc == 0;
}

/* ---- [chart NAME] against the config's kernels --------------------------- */

typedef struct glob_check {
    const sp_config *cfg;
    const char *bad;            /* the first glob that matches no kernel */
    char copy[128];
} glob_check;

static int glob_matches_none(const char *glob, void *user)
{
    glob_check *g = user;
    for (int i = 0; i < g->cfg->nkernels; i++)
        if (sp_chart_glob_matches(glob, g->cfg->kernels[i].kernel->name))
            return 0;
    snprintf(g->copy, sizeof g->copy, "%s", glob);
    g->bad = g->copy;
    return 1;
}

/* "; did you mean WORD?" for the nearest of n names, or "". */
static void did_you_mean(char *buf, size_t len, const char *word, const char *const *names,
                         int n)
{
    const char *near = sp_cli_nearest(word, names, n);
    snprintf(buf, len, "%s%s%s", near ? "; did you mean " : "", near ? near : "",
             near ? "?" : "");
}

/* x is an axis of a kernel the chart selects (by name and device). */
static int check_chart_axis(const sp_config *cfg, const sp_chart_spec *ch, const char *path,
                            sp_err *err)
{
    const char *names[512];
    int n = 0;
    if (!strcmp(ch->x, SP_CHART_X_KERNEL)) {
        if (ch->split != SP_CHART_SPLIT_NONE)
            return sp_fail(err, "%s:%d: [chart %s]: x = kernel draws every kernel on one "
                           "chart; split does not apply (leave it out, or narrow with "
                           "kernels = ...)", path, sp_chart_line(ch, SP_CHART_KEY_SPLIT),
                           ch->name);
        return 0;
    }
    for (int i = 0; i < cfg->nkernels; i++) {
        const sp_kernel *k = cfg->kernels[i].kernel;
        if (!sp_chart_selects(ch, k->name) ||
            (ch->device[0] && !strcmp(ch->device, "gpu") != !!k->needs_gpu))
            continue;
        for (int a = 0; a < k->naxes; a++) {
            if (!strcmp(k->axes[a].name, ch->x))
                return 0;
            if (n < 512)
                names[n++] = k->axes[a].name;
        }
    }
    char hint[128];
    did_you_mean(hint, sizeof hint, ch->x, names, n);
    return sp_fail(err, "%s:%d: [chart %s]: x = %s: no kernel %s has that axis%s", path,
                   sp_chart_line(ch, SP_CHART_KEY_X), ch->name, ch->x,
                   ch->kernels[0] || ch->device[0] ? "the chart selects" : "of this config",
                   hint);
}

static int check_chart(const sp_config *cfg, const sp_chart_spec *ch, const char *path,
                       sp_err *err)
{
    if (sp_chart_finish(ch, err))
        return sp_fail_prefix(err, "%s:%d", path, ch->line);
    glob_check g = {.cfg = cfg};
    if (sp_chart_each_glob(ch, glob_matches_none, &g))
        return sp_fail(err, "%s:%d: [chart %s]: kernels: '%s' matches no kernel of this "
                       "config", path, sp_chart_line(ch, SP_CHART_KEY_KERNELS), ch->name,
                       g.bad);
    const char *names[512];
    int n = 0;
    for (int i = 0; i < cfg->nkernels && n < 512; i++)
        names[n++] = cfg->kernels[i].kernel->name;
    if (ch->baseline[0] && !spec_for((sp_config *)cfg, ch->baseline)) {
        char hint[200];
        did_you_mean(hint, sizeof hint, ch->baseline, names, n);
        return sp_fail(err, "%s:%d: [chart %s]: baseline = %s is not a kernel of this "
                       "config%s", path, sp_chart_line(ch, SP_CHART_KEY_BASELINE), ch->name,
                       ch->baseline, hint);
    }
    if (ch->operation[0] && !sp_operation_find(ch->operation))
        return sp_fail(err, "%s:%d: [chart %s]: operation = %s: no such operation (spmv, "
                       "transpose, sort, ...)", path, sp_chart_line(ch, SP_CHART_KEY_OPERATION),
                       ch->name, ch->operation);
    return check_chart_axis(cfg, ch, path, err);
}

static int check_charts(const sp_config *cfg, const char *path, sp_err *err)
{
    for (int i = 0; i < cfg->ncharts; i++)
        if (check_chart(cfg, &cfg->charts[i], path, err))
            return -1;
    return 0;
}

/* Axes the config left out take the kernel's declared defaults. */
static int apply_defaults(parse_ctx *c, const char *path, sp_err *err)
{
    for (int i = 0; i < c->cfg->nkernels; i++) {
        sp_kernel_spec *ks = &c->cfg->kernels[i];
        for (int a = 0; a < ks->kernel->naxes; a++) {
            if (ks->axis_text[a])
                continue;
            const sp_axis *ax = &ks->kernel->axes[a];
            if (sp_axis_parse(ax->name, ax->defaults, c->nproc, &ks->axes[a], err) ||
                sp_axis_check_valid(ks->kernel, a, &ks->axes[a], c->nproc, err))
                return sp_fail_prefix(err, "%s:%d: default of kernel '%s'", path, ks->line,
                                      ks->kernel->name);
        }
    }
    return 0;
}

static void config_defaults(sp_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->repetitions = 10;
    cfg->warmup = 2;
    cfg->energy_windows = 3;
    cfg->max_fill = SP_MAX_FILL_DEFAULT;
    cfg->rounds = 1;
    cfg->seed = 1;
    cfg->noisy_threshold = 0.05;
    cfg->tolerance = 1e-12;
    cfg->timeout_s = 600;
    cfg->max_noise = 0.01;
    cfg->max_time_s = 2;
    cfg->complex = SP_COMPLEX_REAL_PART;
    cfg->blocking = 1;
}

/* Sections, then keys (libinih), then defaults and what a sweep needs. */
static int parse_text(parse_ctx *c, const char *path, const char *text, sp_err *err)
{
    if (prescan(c, path, text, err))
        return -1;
    int line = ini_parse_string(text, on_key, c);
    if (line > 0 && c->failed)
        return sp_fail(err, "%s:%d: %s", path, line, c->err.msg);
    if (line > 0)
        return sp_fail(err, "%s:%d: syntax error (expected 'key = value' or [section])",
                       path, line);
    if (line < 0)
        return sp_fail(err, "%s: cannot parse (out of memory)", path);
    if (apply_defaults(c, path, err) || check_charts(c->cfg, path, err))
        return -1;
    if (c->cfg->nmatrices == 0 && !c->cfg->fetch.select)
        return sp_fail(err, "%s: no matrices: add a [matrices] section with source = ... or "
                       "select = ...", path);
    if (c->cfg->nkernels == 0)
        return sp_fail(err, "%s: no kernels: add [kernel NAME] sections (`spsweep list`)",
                       path);
    return 0;
}

int sp_config_parse(const char *path, const char *text, sp_kernel_list extra,
                    sp_config *cfg, sp_err *err)
{
    config_defaults(cfg);
    parse_ctx c = {.cfg = cfg, .extra = extra, .nproc = omp_get_num_procs()};
    if (!(cfg->path = strdup(path)) || !(cfg->text = strdup(text)) ||
        !(cfg->database = strdup("results/results.db"))) {
        sp_config_free(cfg);
        return sp_fail(err, "out of memory reading %s", path);
    }
    int rc = parse_text(&c, path, text, err);
    free(c.call_line);
    if (rc)
        sp_config_free(cfg);
    return rc;
}

int sp_config_load(const char *path, sp_kernel_list extra, sp_config *cfg, sp_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return sp_fail(err, "%s: cannot open config: %s", path, strerror(errno));
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    char buf[65536];
    size_t n;
    int bad = !mem;
    while (!bad && (n = fread(buf, 1, sizeof buf, f)) > 0)
        bad = fwrite(buf, 1, n, mem) != n || len > (16u << 20);
    bad |= ferror(f);
    fclose(f);
    if (mem)
        fclose(mem);
    if (bad || !text) {
        free(text);
        return sp_fail(err, "%s: cannot read config (unreadable or over 16 MiB)", path);
    }
    if (strlen(text) != len) {
        free(text);
        return sp_fail(err, "%s: not a text file (contains NUL bytes)", path);
    }
    int rc = sp_config_parse(path, text, extra, cfg, err);
    free(text);
    return rc;
}

int sp_config_override_axis(sp_config *cfg, const char *name, const char *values,
                            sp_err *err)
{
    int hits = 0;
    long nproc = omp_get_num_procs();
    for (int i = 0; i < cfg->nkernels; i++) {
        sp_kernel_spec *ks = &cfg->kernels[i];
        for (int a = 0; a < ks->kernel->naxes; a++) {
            if (strcmp(ks->kernel->axes[a].name, name))
                continue;
            sp_axis_values v;
            if (sp_axis_parse(name, values, nproc, &v, err) ||
                sp_axis_check_valid(ks->kernel, a, &v, nproc, err)) {
                sp_axis_values_free(&v);
                return sp_fail_prefix(err, "--axis %s=%s", name, values);
            }
            sp_axis_values_free(&ks->axes[a]);
            ks->axes[a] = v;
            if (replace_str(&ks->axis_text[a], values, err))
                return -1;
            hits++;
        }
    }
    if (!hits)
        return sp_fail(err, "--axis %s=%s: no kernel in %s has an axis '%s'", name, values,
                       cfg->path, name);
    return 0;
}

void sp_config_free(sp_config *cfg)
{
    if (!cfg)
        return;
    for (int i = 0; i < cfg->nkernels; i++) {
        for (int a = 0; a < SP_MAX_AXES; a++) {
            sp_axis_values_free(&cfg->kernels[i].axes[a]);
            free(cfg->kernels[i].axis_text[a]);
        }
        sp_axis_values_free(&cfg->kernels[i].cache);
        sp_axis_values_free(&cfg->kernels[i].batch);
        sp_axis_values_free(&cfg->kernels[i].blocking);
    }
    free(cfg->kernels);
    free(cfg->charts);
    free(cfg->matrices);
    free(cfg->source_line);
    free(cfg->path);
    free(cfg->text);
    free(cfg->database);
    free(cfg->advise_db);
    free(cfg->cache_dir);
    free(cfg->fetch.select);
    free(cfg->fetch.base_url);
    memset(cfg, 0, sizeof *cfg);
}

int sp_config_source_line(const sp_config *cfg, int m)
{
    return m >= 0 && m < cfg->nsource_lines ? cfg->source_line[m] : 0;
}
