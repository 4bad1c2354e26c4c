/*
 * cmd_fetch.c — `spsweep fetch` and the fetch step of a sweep: names and
 * selections (command line or config) resolved against the SuiteSparse
 * index, then brought into the cache by fetch/fetch.c.
 *
 *   spsweep fetch [Group/Name | Name]... [options]
 * (the options: fetch_opts below, which `spsweep fetch --help` prints)
 *
 * A name that cannot be resolved (not in the index, ambiguous, malformed)
 * is reported, with its config line when it came from one, and the others
 * are still listed or fetched; the exit status then says so at the end:
 * 0 everything listed or fetched, 1 some matrix failed to download or
 * unpack, 2 a usage error or an unresolved name.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../fetch/fetch.h"
#include "cli.h"
#include "../exec/datasets.h"
#include "../exec/sweep.h"
#include "commands.h"

enum { F_SELECT = 1, F_LIMIT, F_CONFIG, F_LIST, F_JOBS, F_BASE, F_CACHE, F_DB, F_REFRESH,
       F_ALL, F_KEEP, F_NOVERIFY, F_NOCONVERT, F_MAXSIZE, F_RETRIES, F_DELAY, F_STALL,
       F_QUIET, F_READ_THREADS };

static const sp_cli_opt fetch_opts[] = {
    {"select", "EXPR", F_SELECT, "the matrices of the index for which EXPR holds, e.g. "
     "\"nnz >= 1e6 and nnz <= 1e7 and real and rows = cols\"; fields: group name rows cols "
     "nnz real binary nd posdef psym nsym kind id; and or not, = != < <= > >=, like, "
     "between, in"},
    {"limit", "N", F_LIMIT, "at most N selected matrices, smallest nnz first (default: "
     "all)"},
    {"config", "FILE", F_CONFIG, "the suitesparse: sources, select and limit of a sweep "
     "config, added to any NAME given"},
    {"list", NULL, F_LIST, "fetch nothing: list every matrix named, with rows, cols and "
     "nnz from the index, as cached (with its size) or missing (with its archive's size "
     "when the collection answers), and the names that do not resolve; works offline"},
    {"jobs", "N", F_JOBS, "downloads at once, 1..64 (default 4)"},
    {"base-url", "URL", F_BASE, "collection mirror (default $SPSWEEP_SUITESPARSE_URL, "
     "else https://sparse.tamu.edu); file:// works. When it cannot be reached (no DNS, "
     "connection refused or timed out), the first failure stops the fetch with one line "
     "saying so, rather than each matrix retrying"},
    {"cache-dir", "DIR", F_CACHE, "cache root (default $SPSWEEP_CACHE, "
     "$XDG_CACHE_HOME/spsweep or ~/.cache/spsweep)"},
    {"db", "PATH", F_DB, "record the files' hashes in PATH's datasets table (default "
     "results/results.db; --db '' records nothing)"},
    {"refresh", NULL, F_REFRESH, "download the index now (by default when it is older "
     "than 30 days)"},
    {"all-files", NULL, F_ALL, "keep every file of the archive (right-hand sides, "
     "coordinates, ...), not only the matrix"},
    {"keep-archives", NULL, F_KEEP, "keep the .tar.gz after unpacking"},
    {"no-verify", NULL, F_NOVERIFY, "trust cached matrices without hashing them again"},
    {"no-convert", NULL, F_NOCONVERT, "do not build the binary CSR cache"},
    {"read-threads", "N", F_READ_THREADS, "threads that parse each Matrix Market file "
     "into the CSR cache, 1..4096; 0: the default, $SPSWEEP_THREADS, else every CPU"},
    {"max-size", "SIZE", F_MAXSIZE, "refuse archives that expand past SIZE, e.g. 500M "
     "(default 64G)"},
    {"retries", "N", F_RETRIES, "download attempts after the first, 0..100; 0: none "
     "(default 4); a collection that never answered is not retried"},
    {"retry-delay", "S", F_DELAY, "seconds before the first retry, growing with each "
     "(default 1)"},
    {"stall-timeout", "S", F_STALL, "give a download up when it moves under 1 KiB in S "
     "seconds (default 60)"},
    {"quiet", NULL, F_QUIET, "no progress lines; every failure still says why"},
    {NULL, NULL, 0, NULL},
};

const sp_cli_cmd sp_cli_fetch = {
    .name = "fetch",
    .synopsis = "[NAME...] [options]",
    .summary = "bring SuiteSparse matrices into the cache",
    .about = "Downloads SuiteSparse matrices, by NAME (Group/Name, or a Name unique in "
             "the collection's index, with or without the suitesparse: prefix, e.g. "
             "HB/bcsstk13 Bai/olm1000), by --select over the index, or as a config "
             "names them, into the cache: unpacked, hashed against a manifest, converted "
             "to the binary CSR cache. A sweep fetches what its config needs by itself; "
             "this fetches ahead (on a login node, say). A name that cannot be resolved "
             "is reported and the others are still listed or fetched "
             "(docs/matrices.md).",
    .opts = fetch_opts,
    .exits = "0 everything listed (cached or missing) or fetched; "
             "1 some matrix failed to download or unpack, the collection could not be "
             "reached, or --list could not list a --select (no index); "
             "2 a name not in the index, a bad option value, or a command line that "
             "cannot be parsed",
    .examples = "HB/bcsstk13 Bai/olm1000\n"
                "--select 'nnz between 1e5 and 1e6 and real' --limit 20 --list\n"
                "--config configs/spmv.ini",
};

typedef struct fetch_cli {
    sp_fetch_opts o;
    const char *db_path;    /* results database for the datasets table; NULL: none */
    const char *select, *config;
    long limit;
    int list;
    int incomplete;     /* --list without the index: a --select could not be listed */
    int nnames;
    char **names;
    int *lines;         /* names[i]'s line in the config; 0: the command line */
} fetch_cli;

/* A number in [lo, hi] for option opt; -1 with a message otherwise. */
static int num_arg(const char *opt, const char *v, double lo, double hi, double *out)
{
    char *end;
    double x = strtod(v, &end);
    if (!*v || *end || !(x >= lo && x <= hi)) {
        fprintf(stderr, "spsweep fetch: --%s: expected a number in %g..%g, not '%s'\n", opt,
                lo, hi, v);
        return -1;
    }
    *out = x;
    return 0;
}

/* "64G", "500M", "1.5T", "123456" into bytes. */
static int parse_size(const char *v, uint64_t *bytes)
{
    char *end;
    double x = strtod(v, &end);
    static const char units[] = "KMGT";
    double mult = 1;
    if (*end) {
        const char *u = strchr(units, *end & ~0x20);
        if (!u || (end[1] && strcmp(end + 1, "B") && strcmp(end + 1, "iB")))
            return -1;
        for (const char *p = units; p <= u; p++)
            mult *= 1024;
    }
    if (end == v || !(x > 0) || x * mult > 1e18)
        return -1;
    *bytes = (uint64_t)(x * mult);
    return 0;
}

/* One option into c; -1 on a bad value. */
static int fetch_option(fetch_cli *c, int opt, const char *v)
{
    double x;
    switch (opt) {
    case F_SELECT: c->select = v; return 0;
    case F_CONFIG: c->config = v; return 0;
    case F_LIST: c->list = 1; return 0;
    case F_BASE: c->o.base_url = v; return 0;
    case F_CACHE: c->o.cache_dir = v; return 0;
    case F_DB: c->db_path = *v ? v : NULL; return 0;
    case F_REFRESH: c->o.refresh = 1; return 0;
    case F_ALL: c->o.all_files = 1; return 0;
    case F_KEEP: c->o.keep_archives = 1; return 0;
    case F_NOVERIFY: c->o.no_verify = 1; return 0;
    case F_NOCONVERT: c->o.no_convert = 1; return 0;
    case F_QUIET: c->o.quiet = 1; return 0;
    case F_LIMIT: return num_arg("limit", v, 1, 1e6, &x) ? -1 : (c->limit = (long)x, 0);
    case F_JOBS: return num_arg("jobs", v, 1, 64, &x) ? -1 : (c->o.jobs = (int)x, 0);
    case F_READ_THREADS:
        if (num_arg("read-threads", v, 0, SP_READ_THREADS_MAX, &x))
            return -1;
        if (x != (int)x) {
            fprintf(stderr, "spsweep fetch: --read-threads: expected a whole number, not "
                    "'%s'\n", v);
            return -1;
        }
        return c->o.read_threads = (int)x, 0;
    case F_RETRIES:         /* the engine reads 0 as "default", < 0 as "none" */
        return num_arg("retries", v, 0, 100, &x) ? -1 : (c->o.retries = x ? (int)x : -1, 0);
    case F_DELAY: return num_arg("retry-delay", v, 0, 3600, &x) ? -1 : (c->o.retry_delay_s = x, 0);
    case F_STALL:
        return num_arg("stall-timeout", v, 1, 86400, &x) ? -1 : (c->o.stall_time_s = (long)x, 0);
    case F_MAXSIZE:
        if (parse_size(v, &c->o.max_bytes) == 0)
            return 0;
        fprintf(stderr, "spsweep fetch: --max-size: expected a size such as 64G or 500M, "
                "not '%s'\n", v);
        return -1;
    default:
        return -1;
    }
}

/* 0 parsed, 1 --help printed, -1 a bad command line or value (said). */
static int parse_fetch_cli(int argc, char **argv, fetch_cli *c)
{
    memset(c, 0, sizeof *c);
    c->o.retries = 0;           /* the download default */
    c->o.progress = -1;
    c->db_path = "results/results.db";
    sp_cli_parser p;
    int opt;
    sp_cli_begin(&p, &sp_cli_fetch);
    while ((opt = sp_cli_next(&p, argc, argv)) != SP_CLI_END) {
        if (opt == SP_CLI_HELP)
            return 1;
        if (opt == SP_CLI_BAD || fetch_option(c, opt, optarg))
            return -1;
    }
    c->nnames = argc - optind;
    c->names = argv + optind;
    return 0;
}

/* Does this name need the index (no group given)? */
static int needs_index(const char *name)
{
    const char *gname = strncmp(name, "suitesparse:", 12) ? name : name + 12;
    return strchr(gname, '/') == NULL;
}

/* A character that can continue a Group/Name. */
static int name_char(char ch)
{
    return isalnum((unsigned char)ch) || ch == '_' || ch == '-' || ch == '.' || ch == '/';
}

/* The line of the config text that names source src ("suitesparse:..."),
 * as a whole word on a line that is not a comment; 0 when none does. */
static int config_line(const char *text, const char *src)
{
    size_t n = strlen(src);
    int line = 1;
    for (const char *p = text; *p; line++) {
        size_t len = strcspn(p, "\n");
        const char *q = p + strspn(p, " \t"), *at = q;
        while (*q != ';' && *q != '#' && (at = memmem(at, (size_t)(p + len - at), src, n))) {
            if (!name_char(at[n]) && (at == p || !name_char(at[-1])))
                return line;
            at++;
        }
        p += len + (p[len] == '\n');
    }
    return 0;
}

/* Names, select and limit from the config at path, merged into c. The
 * names (and their config lines) are kept in *owned and c->lines, freed by
 * the caller. */
static int merge_config(fetch_cli *c, char ***owned, sp_config *cfg)
{
    sp_err err;
    if (sp_config_load(c->config, NULL, cfg, &err)) {
        fprintf(stderr, "spsweep fetch: %s\n", err.msg);
        return -1;
    }
    char **names = calloc((size_t)(c->nnames + cfg->nmatrices + 1), sizeof *names);
    int *lines = calloc((size_t)(c->nnames + cfg->nmatrices + 1), sizeof *lines);
    *owned = names;
    c->lines = lines;
    if (!names || !lines)
        return -1;
    int n = 0;
    for (int i = 0; i < c->nnames; i++)
        names[n++] = c->names[i];
    for (int i = 0; i < cfg->nmatrices; i++)
        if (cfg->matrices[i].kind == SP_SRC_SUITESPARSE) {
            lines[n] = config_line(cfg->text, cfg->matrices[i].text);
            names[n++] = cfg->matrices[i].path;
        }
    c->names = names;
    c->nnames = n;
    if (!c->select)
        c->select = cfg->fetch.select;
    if (!c->limit)
        c->limit = cfg->fetch.limit;
    if (!c->o.base_url)
        c->o.base_url = cfg->fetch.base_url;
    if (!c->o.jobs)
        c->o.jobs = cfg->fetch.jobs;
    if (!c->o.read_threads)
        c->o.read_threads = cfg->read_threads;
    if (!c->o.cache_dir)
        c->o.cache_dir = cfg->cache_dir;
    return 0;
}

/* Append it to items unless the same Group/Name is there already. */
static int append_item(sp_fetch_item **items, int *n, const sp_fetch_item *it)
{
    for (int i = 0; i < *n; i++)
        if (!(*items)[i].unresolved && !it->unresolved && !strcmp((*items)[i].label, it->label))
            return 0;
    sp_fetch_item *grown = realloc(*items, (size_t)(*n + 1) * sizeof *grown);
    if (!grown)
        return -1;
    *items = grown;
    (*items)[(*n)++] = *it;
    return 0;
}

/* Resolve each name on its own, in order. One that does not resolve is
 * reported (with its config line) and counted in *missing; with --list it
 * stays in the list, marked unresolved with the reason, so the listing
 * shows everything the config names. */
static int resolve_names(fetch_cli *c, sp_ss_index *ix, sp_fetch_item **items, int *n,
                         int *missing)
{
    for (int i = 0; i < c->nnames; i++) {
        const char *name = c->names[i];
        sp_fetch_item *one = NULL, bad;
        int got = 0, rc = 0;
        sp_err err;
        if (sp_fetch_resolve(ix, &name, 1, NULL, 0, &one, &got, &err) == 0) {
            for (int k = 0; k < got && !rc; k++)
                rc = append_item(items, n, &one[k]);
            free(one);
            if (rc)
                return -1;
            continue;
        }
        ++*missing;
        if (c->lines && c->lines[i])
            fprintf(stderr, "spsweep fetch: %s:%d: %s\n", c->config, c->lines[i], err.msg);
        else
            fprintf(stderr, "spsweep fetch: %s\n", err.msg);
        if (!c->list)
            continue;
        memset(&bad, 0, sizeof bad);
        bad.unresolved = 1;
        bad.lock_fd = -1;
        bad.state = SP_FETCH_FAILED;
        snprintf(bad.label, sizeof bad.label, "%.199s", name);
        snprintf(bad.error, sizeof bad.error, "%s", err.msg);
        if (append_item(items, n, &bad))
            return -1;
    }
    return 0;
}

/* Resolve c's names and selection into items (index loaded when needed);
 * names that do not resolve are reported (*missing) and, but for --list,
 * left out. -1 when nothing can be resolved at all (a bad expression, no
 * index for --select when fetching). With --list and no index, a
 * --select is reported and the names are still listed. */
static int resolve_items(fetch_cli *c, sp_fetch_item **items, int *n, int *missing)
{
    sp_err err;
    sp_ss_index *ix = NULL;
    int want_index = c->select != NULL || c->list;
    *items = NULL;
    *n = 0;
    for (int i = 0; i < c->nnames; i++)
        want_index |= needs_index(c->names[i]);
    if (want_index && sp_fetch_index(&c->o, &ix, &err)) {
        char base[1024];
        sp_ss_base_url(c->o.base_url, base, sizeof base);
        if (c->list && sp_fetch_known_unreachable(base, NULL, 0))
            fprintf(stderr, "spsweep fetch: no SuiteSparse index: rows, cols and nnz "
                    "unknown\n");
        else
            fprintf(stderr, "spsweep fetch: %s\n", err.msg);
        if (c->select && !c->list)
            return -1;
    }
    int rc = resolve_names(c, ix, items, n, missing);
    if (!rc && c->select && !ix) {
        fprintf(stderr, "spsweep fetch: select = %s: not listed: it needs the SuiteSparse "
                "index, which is not available\n", c->select);
        c->incomplete = 1;
    } else if (!rc && c->select) {
        sp_fetch_item *sel = NULL;
        int ns = 0;
        rc = sp_fetch_resolve(ix, NULL, 0, c->select, c->limit, &sel, &ns, &err);
        for (int i = 0; i < ns && !rc; i++)
            rc = append_item(items, n, &sel[i]);
        free(sel);
        if (rc)
            fprintf(stderr, "spsweep fetch: %s\n", err.msg);
    }
    sp_ss_index_free(ix);
    if (rc) {
        free(*items);
        *items = NULL;
        *n = 0;
    }
    return rc;
}

/* List or fetch the items: 0, or 1 when some failed (each with its reason). */
static int list_or_fetch(fetch_cli *c, sp_fetch_item *items, int n)
{
    sp_err err;
    if (c->list) {
        if (sp_fetch_list(items, n, &c->o, 1, stdout, &err) == 0)
            return 0;
        fprintf(stderr, "spsweep fetch: %s\n", err.msg);
        return 1;
    }
    if (n == 0)
        return 0;
    int failed = sp_fetch_run(items, n, &c->o, &err);
    if (failed >= 0)
        sp_record_datasets(c->db_path, items, n, stderr);
    if (failed < 0)
        fprintf(stderr, "spsweep fetch: %s\n", err.msg);
    else if (failed > 0)
        fprintf(stderr, "spsweep fetch: %d of %d matri%s failed\n", failed, n,
                n == 1 ? "x" : "ces");
    return failed != 0;
}

int sp_cmd_fetch(int argc, char **argv)
{
    fetch_cli c;
    sp_config cfg = {0};
    char **owned = NULL;
    int rc = 2, missing = 0;
    int parsed = parse_fetch_cli(argc, argv, &c);
    if (parsed > 0)
        return 0;
    if (parsed || (c.config && merge_config(&c, &owned, &cfg)))
        goto out;
    if (c.nnames == 0 && !c.select && c.config) {
        /* a config of generated or local matrices: nothing to do, not an error
         * (the fetch step of `spsweep slurm` runs for every config) */
        printf("%s names no SuiteSparse matrix: nothing to fetch\n", c.config);
        rc = 0;
        goto out;
    }
    if (c.nnames == 0 && !c.select) {
        fprintf(stderr, "spsweep fetch: name matrices (HB/bcsstk13 ...), --select EXPR or "
                "--config FILE; see `spsweep fetch --help`\n");
        goto out;
    }
    sp_fetch_item *items = NULL;
    int n = 0;
    if (resolve_items(&c, &items, &n, &missing)) {
        free(items);
        goto out;
    }
    rc = list_or_fetch(&c, items, n);
    free(items);
    if (c.incomplete && rc == 0)
        rc = 1;
    if (missing) {
        fprintf(stderr, "spsweep fetch: %d name%s not resolved (above)\n", missing,
                missing == 1 ? "" : "s");
        rc = 2;
    }
out:
    free(owned);
    free(c.lines);
    sp_config_free(&cfg);
    return rc;
}
