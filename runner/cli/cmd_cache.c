/*
 * cmd_cache.c — `spsweep cache list|verify|clean [--cache-dir DIR] [--all]`:
 * what the cache holds, whether every fetched matrix still has the bytes
 * its manifest recorded, and removing what is left over (partial
 * downloads, temporary files, orphaned conversions) or everything.
 */
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../fetch/fetch.h"
#include "cli.h"
#include "../exec/sweep.h"
#include "commands.h"

enum { C_CACHE = 1, C_ALL };

static const sp_cli_opt cache_opts[] = {
    {"cache-dir", "DIR", C_CACHE, "cache root (default $SPSWEEP_CACHE, "
     "$XDG_CACHE_HOME/spsweep or ~/.cache/spsweep)"},
    {"all", NULL, C_ALL, "with clean: remove the whole cache, every matrix and the index "
     "included"},
    {NULL, NULL, 0, NULL},
};

const sp_cli_cmd sp_cli_cache = {
    .name = "cache",
    .synopsis = "list|verify|clean [options]",
    .summary = "what the matrix cache holds; hash it again; remove leftovers",
    .about = "list: every fetched matrix with its size, fetch date and whether its binary "
             "CSR conversion is there.\n"
             "verify: hash every fetched matrix again against its manifest.\n"
             "clean: remove partial downloads, temporary files, leftover archives and "
             "conversions whose matrix is gone; with --all, everything.",
    .opts = cache_opts,
    .exits = "0 done; "
             "1 verify found a matrix whose bytes differ from its manifest; "
             "2 no or an unknown action, or a command line that cannot be parsed",
    .examples = "list\n"
                "verify --cache-dir /scratch/spsweep\n"
                "clean --all",
};

/* Size of the file at path, 0 when absent. */
static int64_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (int64_t)st.st_size : 0;
}

/* Paths matching pattern under root (glob, sorted). */
static int find(const char *root, const char *pattern, glob_t *g)
{
    char full[1400];
    snprintf(full, sizeof full, "%s/%s", root, pattern);
    return glob(full, GLOB_PERIOD, NULL, g);
}

/* "<root>/suitesparse/G/N.manifest" -> "G/N". */
static void label_of(const char *manifest, char *label, size_t len)
{
    const char *end = strrchr(manifest, '.');
    const char *name = strrchr(manifest, '/');
    const char *group = name;
    while (group > manifest && group[-1] != '/')
        group--;
    snprintf(label, len, "%.*s", (int)(end - group), group);
}

/* One fetched matrix: its label ("Group/Name"), manifest path, and the
 * paths of its matrix and conversion beside it. */
typedef struct cache_entry {
    char label[300];
    const char *manifest;
    char mtx[1400], csr[1400];
} cache_entry;

/* Call fn for every manifest under root; the count of entries. */
static int each_entry(const char *root, void (*fn)(const cache_entry *e, void *user),
                      void *user)
{
    glob_t g;
    int n = 0;
    if (find(root, "suitesparse/*/*.manifest", &g) == 0)
        for (size_t i = 0; i < g.gl_pathc; i++, n++) {
            cache_entry e = {.manifest = g.gl_pathv[i]};
            int stem = (int)strlen(e.manifest) - (int)strlen(".manifest");
            label_of(e.manifest, e.label, sizeof e.label);
            snprintf(e.mtx, sizeof e.mtx, "%.*s.mtx", stem, e.manifest);
            snprintf(e.csr, sizeof e.csr, "%.*s.csr", stem, e.manifest);
            fn(&e, user);
        }
    globfree(&g);
    return n;
}

/* `cache list`: one line per matrix; total bytes into *(int64_t *)user. */
static void list_entry(const cache_entry *e, void *user)
{
    sp_manifest m;
    sp_err err;
    if (sp_manifest_read(e->manifest, &m, &err)) {
        printf("%-40s unreadable manifest: %s\n", e->label, err.msg);
        return;
    }
    int64_t cs = file_size(e->csr);
    printf("%-40s %12lld  %-20s %s\n", e->label, (long long)m.mtx_bytes, m.fetched_at,
           cs ? "yes" : "no");
    *(int64_t *)user += m.mtx_bytes + cs;
}

static int cache_list(const char *root)
{
    int64_t total = 0;
    printf("%-40s %12s  %-20s %s\n", "matrix", "mtx bytes", "fetched", "csr cache");
    int n = each_entry(root, list_entry, &total);
    printf("%d matri%s, %.1f MB (with conversions) in %s/suitesparse\n", n,
           n == 1 ? "x" : "ces", total / 1e6, root);
    return 0;
}

/* `cache verify`: re-hash one matrix; bad ones counted in *(int *)user. */
static void verify_entry(const cache_entry *e, void *user)
{
    sp_manifest m;
    sp_err err;
    int rc = sp_manifest_read(e->manifest, &m, &err);
    if (rc == 0)
        rc = sp_manifest_verify(&m, e->mtx, &err);
    printf("%-8s %-40s %s\n", rc ? "BAD" : "ok", e->label, rc ? err.msg : m.mtx_sha256);
    *(int *)user += rc != 0;
}

static int cache_verify(const char *root)
{
    int bad = 0;
    int n = each_entry(root, verify_entry, &bad);
    printf("%d checked, %d bad%s\n", n, bad,
           bad ? " (a fetch of those matrices downloads them again)" : "");
    return bad ? 1 : 0;
}

/* Remove every path matching pattern; add the bytes freed. */
static void remove_matching(const char *root, const char *pattern, int *count, int64_t *bytes,
                            int (*keep)(const char *path))
{
    glob_t g;
    if (find(root, pattern, &g) == 0)
        for (size_t i = 0; i < g.gl_pathc; i++) {
            if (keep && keep(g.gl_pathv[i]))
                continue;
            int64_t sz = file_size(g.gl_pathv[i]);
            if (unlink(g.gl_pathv[i]) == 0) {
                printf("removed %s\n", g.gl_pathv[i]);
                (*count)++;
                *bytes += sz;
            }
        }
    globfree(&g);
}

/* A conversion is kept while its matrix is there. */
static int has_matrix(const char *csr)
{
    char mtx[1400];
    snprintf(mtx, sizeof mtx, "%.*s.mtx", (int)strlen(csr) - 4, csr);
    return access(mtx, F_OK) == 0;
}

static int cache_clean(const char *root, int all)
{
    int n = 0;
    int64_t bytes = 0;
    static const char *const leftovers[] = {
        "suitesparse/*/*.part", "suitesparse/*/.*.mtx.*", "suitesparse/*/*.tmp.*",
        "suitesparse/*/*.tar.gz", "suitesparse/ssstats.csv.new*", NULL};
    static const char *const everything[] = {
        "suitesparse/*/*.mtx", "suitesparse/*/*.csr", "suitesparse/*/*.manifest",
        "suitesparse/*/*.files/*", "suitesparse/ssstats.csv", "*.csr", NULL};
    for (int i = 0; leftovers[i]; i++)
        remove_matching(root, leftovers[i], &n, &bytes, NULL);
    remove_matching(root, "suitesparse/*/*.csr", &n, &bytes, has_matrix);
    for (int i = 0; all && everything[i]; i++)
        remove_matching(root, everything[i], &n, &bytes, NULL);
    printf("%d file%s removed, %.1f MB freed from %s\n", n, n == 1 ? "" : "s", bytes / 1e6,
           root);
    return 0;
}

int sp_cmd_cache(int argc, char **argv)
{
    const char *dir = NULL;
    int all = 0, opt;
    sp_cli_parser p;
    sp_cli_begin(&p, &sp_cli_cache);
    while ((opt = sp_cli_next(&p, argc, argv)) != SP_CLI_END) {
        if (opt == SP_CLI_HELP)
            return 0;
        if (opt == SP_CLI_BAD)
            return SP_EXIT_USAGE;
        if (opt == C_CACHE)
            dir = optarg;
        else if (opt == C_ALL)
            all = 1;
    }
    const char *what = optind < argc ? argv[optind] : "";
    char root[1024];
    sp_err err;
    if (sp_cache_root(dir, root, sizeof root, &err)) {
        fprintf(stderr, "spsweep cache: %s\n", err.msg);
        return 2;
    }
    if (optind + 1 != argc || (all && strcmp(what, "clean"))) {
        fprintf(stderr, "spsweep cache: expected one action, list, verify or clean (--all "
                "only with clean); see `spsweep cache --help`\n");
        return SP_EXIT_USAGE;
    }
    if (!strcmp(what, "list"))
        return cache_list(root);
    if (!strcmp(what, "verify"))
        return cache_verify(root);
    if (!strcmp(what, "clean"))
        return cache_clean(root, all);
    fprintf(stderr, "spsweep cache: unknown action '%s'; see `spsweep cache --help`\n", what);
    return SP_EXIT_USAGE;
}
