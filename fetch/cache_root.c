/*
 * cache_root.c — where fetched and converted matrices live, and the names
 * of one SuiteSparse matrix's files inside it (layout in fetch.h).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fetch.h"

/* The first non-empty environment variable of names, or NULL. */
static const char *first_env(const char *const *names)
{
    for (; *names; names++) {
        const char *v = getenv(*names);
        if (v && *v)
            return v;
    }
    return NULL;
}

/* The cache root: dir, else $SPSWEEP_CACHE / $SPSWEEP_CACHE_DIR, else
 * $XDG_CACHE_HOME/spsweep, else $HOME/.cache/spsweep. */
int sp_cache_root(const char *dir, char *out, size_t len, sp_err *err)
{
    static const char *const explicit_env[] = {"SPSWEEP_CACHE", "SPSWEEP_CACHE_DIR", NULL};
    static const char *const xdg[] = {"XDG_CACHE_HOME", NULL};
    static const char *const home[] = {"HOME", NULL};
    const char *v;
    int n;
    if (dir && *dir)
        n = snprintf(out, len, "%s", dir);
    else if ((v = first_env(explicit_env)))
        n = snprintf(out, len, "%s", v);
    else if ((v = first_env(xdg)))
        n = snprintf(out, len, "%s/spsweep", v);
    else if ((v = first_env(home)))
        n = snprintf(out, len, "%s/.cache/spsweep", v);
    else
        return sp_fail(err, "no cache directory: give --cache-dir or set SPSWEEP_CACHE "
                       "(HOME is not set)");
    if (n < 0 || (size_t)n >= len)
        return sp_fail(err, "cache directory path too long");
    while (n > 1 && out[n - 1] == '/')
        out[--n] = '\0';
    return 0;
}

/* True when s[0..len) is a usable Group or Name of the collection. */
int sp_ss_name_ok(const char *s, size_t len)
{
    if (len == 0 || len > 120 || (len <= 2 && strncmp(s, "..", len) == 0))
        return 0;
    for (size_t i = 0; i < len; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-' && s[i] != '.')
            return 0;
    return 1;
}

/* Every path of one matrix in the cache. */
int sp_ss_paths_make(const char *root, const char *group, const char *name, sp_ss_paths *p,
                     sp_err *err)
{
    if (!sp_ss_name_ok(group, strlen(group)) || !sp_ss_name_ok(name, strlen(name)))
        return sp_fail(err, "'%s/%s': not a SuiteSparse Group/Name", group, name);
    if (snprintf(p->dir, sizeof p->dir, "%s/suitesparse/%s", root, group) >=
        (int)sizeof p->dir)
        return sp_fail(err, "%s/%s: cache path too long", group, name);
    snprintf(p->mtx, sizeof p->mtx, "%s/%s.mtx", p->dir, name);
    snprintf(p->csr, sizeof p->csr, "%s/%s.csr", p->dir, name);
    snprintf(p->manifest, sizeof p->manifest, "%s/%s.manifest", p->dir, name);
    snprintf(p->archive, sizeof p->archive, "%s/%s.tar.gz", p->dir, name);
    snprintf(p->lock, sizeof p->lock, "%s/.%s.lock", p->dir, name);
    snprintf(p->files, sizeof p->files, "%s/%s.files", p->dir, name);
    return 0;
}

/* url, else $SPSWEEP_SUITESPARSE_URL, else the collection; no trailing '/'. */
void sp_ss_base_url(const char *url, char *out, size_t len)
{
    if (!url || !*url)
        url = getenv("SPSWEEP_SUITESPARSE_URL");
    if (!url || !*url)
        url = SP_SS_DEFAULT_URL;
    snprintf(out, len, "%s", url);
    size_t n = strlen(out);
    while (n > 0 && out[n - 1] == '/')
        out[--n] = '\0';
}
