/*
 * manifest.c — the record kept beside every fetched matrix
 * (<Group>/<Name>.manifest): where it came from, when, and the SHA-256 of
 * the archive and of the .mtx, so a later fetch or `cache verify` can tell
 * a good copy from a damaged one. Plain "key = value" lines, written to a
 * temporary file and renamed, so a reader never sees half of one.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fetch.h"
#include "sha256.h"

/* ISO-8601 UTC, e.g. 2026-11-21T10:00:00Z. */
void sp_utc_now(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int sp_manifest_write(const char *path, const sp_manifest *m, sp_err *err)
{
    char tmp[1200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f)
        return sp_fail(err, "%s: %s", tmp, strerror(errno));
    fprintf(f, "# spsweep fetch manifest\nsource = %s\nurl = %s\narchive_bytes = %" PRId64
               "\narchive_sha256 = %s\nmtx_bytes = %" PRId64 "\nmtx_sha256 = %s\n"
               "fetched_at = %s\n",
            m->source, m->url, m->archive_bytes, m->archive_sha256, m->mtx_bytes,
            m->mtx_sha256, m->fetched_at);
    int bad = fflush(f) != 0 || fsync(fileno(f)) != 0;
    int e = errno;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        e = bad ? e : errno;
        unlink(tmp);
        return sp_fail(err, "%s: cannot write: %s", path, strerror(e));
    }
    return 0;
}

/* Copy value v of key k into m; 0 when k is known and v well-formed. */
static int manifest_field(sp_manifest *m, const char *k, const char *v)
{
    struct { const char *key; char *dst; size_t len; } text[] = {
        {"source", m->source, sizeof m->source},
        {"url", m->url, sizeof m->url},
        {"archive_sha256", m->archive_sha256, sizeof m->archive_sha256},
        {"mtx_sha256", m->mtx_sha256, sizeof m->mtx_sha256},
        {"fetched_at", m->fetched_at, sizeof m->fetched_at},
    };
    for (size_t i = 0; i < sizeof text / sizeof text[0]; i++)
        if (!strcmp(k, text[i].key))
            return snprintf(text[i].dst, text[i].len, "%s", v) >= (int)text[i].len;
    int64_t *num = !strcmp(k, "archive_bytes") ? &m->archive_bytes
                   : !strcmp(k, "mtx_bytes")   ? &m->mtx_bytes : NULL;
    if (!num)
        return 0;       /* unknown keys: written by a newer spsweep, ignored */
    char *end;
    *num = strtoll(v, &end, 10);
    return *v == '\0' || *end != '\0' || *num < -1;
}

/* Strip surrounding white space in place. */
static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

int sp_manifest_read(const char *path, sp_manifest *m, sp_err *err)
{
    memset(m, 0, sizeof *m);
    m->archive_bytes = m->mtx_bytes = -1;
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT)
            return 1;
        return sp_fail(err, "%s: %s", path, strerror(errno));
    }
    char line[1400];
    int lineno = 0, rc = 0;
    while (!rc && fgets(line, sizeof line, f)) {
        lineno++;
        char *s = trim(line), *eq = strchr(s, '=');
        if (!*s || *s == '#')
            continue;
        if (!eq) {
            rc = sp_fail(err, "%s:%d: expected 'key = value'", path, lineno);
            break;
        }
        *eq = '\0';
        if (manifest_field(m, trim(s), trim(eq + 1)))
            rc = sp_fail(err, "%s:%d: bad value for '%s'", path, lineno, trim(s));
    }
    fclose(f);
    if (!rc && (strlen(m->mtx_sha256) != 64 || m->mtx_bytes < 0))
        rc = sp_fail(err, "%s: no mtx_sha256 / mtx_bytes recorded", path);
    return rc;
}

int sp_manifest_verify(const sp_manifest *m, const char *mtx_path, sp_err *err)
{
    struct stat st;
    if (stat(mtx_path, &st) != 0)
        return sp_fail(err, "%s: %s", mtx_path, strerror(errno));
    if ((int64_t)st.st_size != m->mtx_bytes)
        return sp_fail(err, "%s: %lld bytes, the manifest says %" PRId64, mtx_path,
                       (long long)st.st_size, m->mtx_bytes);
    char hex[65];
    if (sp_sha256_file(mtx_path, hex, NULL, err))
        return -1;
    if (strcmp(hex, m->mtx_sha256) != 0)
        return sp_fail(err, "%s: SHA-256 %.16s... differs from the manifest's %.16s...",
                       mtx_path, hex, m->mtx_sha256);
    return 0;
}
