/*
 * source.c — matrix sources: parse "file:", "gen:" and "suitesparse:"
 * strings, and load them into memory (generate, or read a Matrix Market
 * file through the binary CSR cache), with features and checksum.
 */
#include <ctype.h>
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "fetch.h"
#include "gen.h"
#include "matrix.h"
#include "../core/workload.h"

static const char KNOWN_PREFIXES[] = "file:, gen:, suitesparse:, keys:";

/* True when s starts with prefix. */
static int has_prefix(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Length of a URL-like scheme ("http" in "http://x") before a ':', or 0. */
static size_t scheme_length(const char *s)
{
    if (!isalpha((unsigned char)s[0]))
        return 0;
    size_t n = 1;
    while (isalnum((unsigned char)s[n]) || s[n] == '+' || s[n] == '.' || s[n] == '-')
        n++;
    return s[n] == ':' ? n : 0;
}

/* File stem of path: basename without .mtx.gz / .mtx, characters outside
 * [A-Za-z0-9_.-] mapped to '_'; "matrix" if nothing is left. */
static void file_stem(const char *path, char *stem, size_t len)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    if (n > 7 && strcmp(base + n - 7, ".mtx.gz") == 0)
        n -= 7;
    else if (n > 4 && strcmp(base + n - 4, ".mtx") == 0)
        n -= 4;
    size_t k = 0;
    for (size_t i = 0; i < n && k + 1 < len; i++) {
        char c = base[i];
        stem[k++] = (isalnum((unsigned char)c) || c == '_' || c == '.' || c == '-') ? c : '_';
    }
    stem[k] = '\0';
    if (k == 0)
        snprintf(stem, len, "matrix");
}

/* Fill text ("<prefix><rest>") and path (rest), refusing what does not fit. */
static int set_text(sp_source *src, const char *prefix, const char *rest, sp_err *err)
{
    if (snprintf(src->text, sizeof src->text, "%s%s", prefix, rest) >= (int)sizeof src->text ||
        snprintf(src->path, sizeof src->path, "%s", rest) >= (int)sizeof src->path)
        return sp_fail(err, "%s%.40s...: source too long (at most %zu characters)", prefix,
                       rest, sizeof src->path - 1);
    return 0;
}

/* file:PATH */
static int parse_file(const char *path, sp_source *src, sp_err *err)
{
    if (!*path)
        return sp_fail(err, "file:: no path given");
    src->kind = SP_SRC_FILE;
    file_stem(path, src->name, sizeof src->name);
    return set_text(src, "file:", path, err);
}

/* gen:SPEC, validated fully now so config errors surface before a sweep. */
static int parse_gen(const char *spec, sp_source *src, sp_err *err)
{
    if (gen_check(spec, err) || gen_name(spec, src->name, sizeof src->name, err))
        return -1;
    src->kind = SP_SRC_GEN;
    return set_text(src, "gen:", spec, err);
}

/* suitesparse:Group/Name or suitesparse:Name */
static int parse_suitesparse(const char *rest, sp_source *src, sp_err *err)
{
    const char *slash = strchr(rest, '/');
    int ok = slash ? sp_ss_name_ok(rest, (size_t)(slash - rest)) &&
                         sp_ss_name_ok(slash + 1, strlen(slash + 1))
                   : sp_ss_name_ok(rest, strlen(rest));
    if (!ok)
        return sp_fail(err, "suitesparse:%s: expected suitesparse:Group/Name or "
                       "suitesparse:Name (letters, digits, '_', '-', '.')", rest);
    src->kind = SP_SRC_SUITESPARSE;
    snprintf(src->name, sizeof src->name, "%s", rest);
    return set_text(src, "suitesparse:", rest, err);
}

/* keys:DIST?n=N&seed=S, validated now and normalised. */
static int parse_keys(const char *spec, sp_source *src, sp_err *err)
{
    sp_keys_spec ks;
    if (sp_keys_spec_parse(spec, &ks, err))
        return -1;
    src->kind = SP_SRC_KEYS;
    sp_keys_spec_name(&ks, src->name, sizeof src->name);
    char text[256];
    sp_keys_spec_text(&ks, text, sizeof text);
    return set_text(src, "keys:", text + 5, err);
}

/* SP_WL_KEYS for a keys: source, SP_WL_MATRIX otherwise. */
int sp_source_workload(const sp_source *src)
{
    return src && src->kind == SP_SRC_KEYS ? SP_WL_KEYS : SP_WL_MATRIX;
}

/* Parse a source string; a bare path (or unknown prefix naming an
 * existing file) is a file. */
int sp_source_parse(const char *text, sp_source *src, sp_err *err)
{
    memset(src, 0, sizeof *src);
    if (!text || !*text)
        return sp_fail(err, "empty matrix source (expected %s or a file path)",
                       KNOWN_PREFIXES);
    if (has_prefix(text, "file:"))
        return parse_file(text + 5, src, err);
    if (has_prefix(text, "gen:"))
        return parse_gen(text + 4, src, err);
    if (has_prefix(text, "suitesparse:"))
        return parse_suitesparse(text + 12, src, err);
    if (has_prefix(text, "keys:"))
        return parse_keys(text + 5, src, err);
    size_t n = scheme_length(text);
    if (n > 0 && access(text, F_OK) != 0)
        return sp_fail(err, "%s: unknown source prefix '%.*s:' (known: %s; a bare path "
                       "is read as a file)", text, (int)n, text, KNOWN_PREFIXES);
    return parse_file(text, src, err);
}

/* The cache root (fetch/cache_root.c: opts, the environment, ~/.cache). */
static int cache_dir(const sp_load_opts *opts, char *dir, size_t len, sp_err *err)
{
    return sp_cache_root(opts->cache_dir, dir, len, err);
}

/* <dir>/<stem>-<16 hex of XXH3(realpath)>.csr: one entry per source file,
 * whatever relative path named it. */
static int cache_path(const char *path, const char *dir, char *out, size_t len, sp_err *err)
{
    char real[PATH_MAX], stem[128];
    if (!realpath(path, real))
        return sp_fail(err, "%s: %s", path, strerror(errno));
    file_stem(path, stem, sizeof stem);
    if (snprintf(out, len, "%s/%s-%016llx.csr", dir, stem,
                 (unsigned long long)XXH3_64bits(real, strlen(real))) >= (int)len)
        return sp_fail(err, "%s: cache path too long", path);
    return 0;
}

/* st's modification time in nanoseconds. */
static int64_t mtime_ns(const struct stat *st)
{
    return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

/* The cache stamp of the source file st describes. */
static sp_cache_info stamp(const struct stat *st, uint64_t src_hash)
{
    sp_cache_info info = {(uint64_t)st->st_size, mtime_ns(st), src_hash, 0};
    return info;
}

/* The Matrix Market file at path through its binary cache file cpath:
 * read the cache when it matches the file's size and time, else parse the
 * file and save the cache (a failed save costs speed only: a warning). */
static int load_via_cache(const char *path, const char *cpath, const sp_load_opts *opts,
                          sp_matrix *M, sp_err *err)
{
    struct stat st;
    if (stat(path, &st))
        return sp_fail(err, "%s: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return sp_fail(err, "%s: not a regular file", path);
    if (opts->no_cache)
        return sp_mm_read(path, &opts->mm, &M->A, NULL, err);
    sp_cache_info expect = stamp(&st, 0), got;
    sp_err cerr;
    int rc = sp_cache_read(cpath, &expect, &M->A, &got, &cerr);
    if (rc == 0) {
        M->from_cache = 1;
        M->checksum = got.data_hash;    /* verified equal to sp_csr_checksum */
        return 0;
    }
    if (rc < 0)
        fprintf(stderr, "spsweep: cache %s: %s; rebuilding\n", cpath, cerr.msg);
    uint64_t src_hash = 0;
    if (sp_mm_read(path, &opts->mm, &M->A, &src_hash, err))
        return -1;
    sp_cache_info info = stamp(&st, src_hash);
    if (sp_cache_write(cpath, &M->A, &info, &cerr))
        fprintf(stderr, "spsweep: warning: cache not written: %s\n", cerr.msg);
    return 0;
}

/* A file: source's Matrix Market file and its cache file under the cache
 * root ("" without the cache). */
static int file_files(const char *path, const sp_load_opts *opts, char *mtx, size_t mlen,
                      char *csr, size_t clen, sp_err *err)
{
    char dir[PATH_MAX];
    snprintf(mtx, mlen, "%s", path);
    csr[0] = '\0';
    if (opts->no_cache)
        return 0;
    if (access(path, F_OK) != 0)
        return sp_fail(err, "%s: %s", path, strerror(errno));
    if (cache_dir(opts, dir, sizeof dir, err) || cache_path(path, dir, csr, clen, err))
        return -1;
    return 0;
}

int sp_csr_cache_build(const char *mtx, const char *csr, const sp_mm_opts *mm, sp_err *err)
{
    struct stat st;
    sp_csr A = {0};
    uint64_t src_hash = 0;
    if (stat(mtx, &st))
        return sp_fail(err, "%s: %s", mtx, strerror(errno));
    if (sp_mm_read(mtx, mm, &A, &src_hash, err))
        return -1;
    sp_cache_info info = stamp(&st, src_hash);
    int rc = sp_cache_write(csr, &A, &info, err);
    sp_csr_free(&A);
    return rc;
}

/* <root>/suitesparse/<Group>/<Name>.mtx; a group-less name matches any
 * group. Fills found (the first match) or, when none, shown (the place
 * looked at, for the message). Returns 1 when found. */
static int find_suitesparse(const char *root, const char *gname, char *found, char *shown,
                            size_t len)
{
    const char *slash = strchr(gname, '/');
    const char *name = slash ? slash + 1 : gname;
    char pattern[PATH_MAX];
    if (snprintf(pattern, sizeof pattern, "%s/suitesparse/%.*s/%s.mtx", root,
                 slash ? (int)(slash - gname) : 1, slash ? gname : "*", name) >=
        (int)sizeof pattern)
        return 0;
    snprintf(shown, len, "%s", pattern);
    glob_t g;
    int hit = glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc > 0;
    if (hit)
        snprintf(found, len, "%s", g.gl_pathv[0]);
    globfree(&g);
    return hit;
}

/* A SuiteSparse matrix in the cache and the CSR cache file beside it. */
static int suitesparse_files(const sp_source *src, const sp_load_opts *opts, char *mtx,
                             size_t mlen, char *csr, size_t clen, sp_err *err)
{
    char root[PATH_MAX], found[PATH_MAX], shown[PATH_MAX];
    if (src->unavailable[0])
        return sp_fail(err, "%s: %s", src->text, src->unavailable);
    if (cache_dir(opts, root, sizeof root, err))
        return -1;
    if (!find_suitesparse(root, src->path, found, shown, sizeof found))
        return sp_fail(err, "%s: not in the local cache (%s); `spsweep fetch %s` brings it in",
                       src->text, shown, src->path);
    snprintf(mtx, mlen, "%s", found);
    snprintf(csr, clen, "%.*s.csr", (int)strlen(found) - 4, found);
    return 0;
}

int sp_source_files(const sp_source *src, const sp_load_opts *opts, char *mtx, size_t mlen,
                    char *csr, size_t clen, sp_err *err)
{
    static const sp_load_opts defaults;
    opts = opts ? opts : &defaults;
    if (src->kind == SP_SRC_FILE)
        return file_files(src->path, opts, mtx, mlen, csr, clen, err);
    if (src->kind == SP_SRC_SUITESPARSE)
        return suitesparse_files(src, opts, mtx, mlen, csr, clen, err);
    return sp_fail(err, "%s: not read from a file", src->text);
}

/* A file: or suitesparse: source, through its CSR cache. */
static int load_from_files(const sp_source *src, const sp_load_opts *opts, sp_matrix *M,
                           sp_err *err)
{
    char mtx[PATH_MAX], csr[PATH_MAX + 256];
    if (sp_source_files(src, opts, mtx, sizeof mtx, csr, sizeof csr, err))
        return -1;
    return load_via_cache(mtx, csr, opts, M, err);
}

/* A key workload: generated (never cached: generating is as fast as reading). */
static int load_keys(const sp_source *src, sp_matrix *M, sp_err *err)
{
    sp_keys_spec ks;
    if (sp_keys_spec_parse(src->path, &ks, err) || sp_keys_generate(&ks, &M->keys, err))
        return -1;
    sp_keys_features(&M->keys, &M->feat);
    M->checksum = sp_keys_checksum(&M->keys);
    return 0;
}

/* Resolve src to a matrix with its features and checksum. */
int sp_matrix_load(const sp_source *src, const sp_load_opts *opts, sp_matrix *M,
                   sp_err *err)
{
    static const sp_load_opts defaults;
    memset(M, 0, sizeof *M);
    if (!src)
        return sp_fail(err, "no matrix source given");
    opts = opts ? opts : &defaults;
    M->src = *src;
    if (src->kind == SP_SRC_KEYS) {
        if (load_keys(src, M, err)) {
            sp_matrix_free(M);
            return -1;
        }
        return 0;
    }
    int rc = src->kind == SP_SRC_GEN ? sp_generate(src->path, &M->A, err)
             : src->kind == SP_SRC_FILE || src->kind == SP_SRC_SUITESPARSE
                 ? load_from_files(src, opts, M, err)
                 : sp_fail(err, "%s: unknown source kind %d", src->text, (int)src->kind);
    if (rc) {
        sp_matrix_free(M);
        return -1;
    }
    sp_features_compute(&M->A, &M->feat);
    if (!M->from_cache)
        M->checksum = sp_csr_checksum(&M->A);
    return 0;
}

/* Release M's matrix and clear it. */
void sp_matrix_free(sp_matrix *M)
{
    if (!M)
        return;
    sp_csr_free(&M->A);
    sp_keys_free(&M->keys);
    memset(M, 0, sizeof *M);
}
