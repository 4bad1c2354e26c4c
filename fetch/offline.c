/*
 * offline.c — what the fetcher does when the collection cannot be reached
 * (no network, no DNS, a firewall): it remembers, for the rest of the
 * process, that the base URL is unreachable, so the index, the HEAD
 * requests of `fetch --list` and the downloads of a sweep do not each try
 * again, and it says once, in one line, what to do instead (a mirror
 * through --base-url or $SPSWEEP_SUITESPARSE_URL, a file:// directory, or
 * a cache filled where there is network: docs/troubleshooting.md).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "fetch.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static char dead_base[1024];    /* the base URL found unreachable, "" none */
static char dead_cause[400];
static int hinted;              /* the one line was printed */

void sp_fetch_offline_hint(const char *base, const char *cause, const char *what, char *buf,
                           size_t len)
{
    snprintf(buf, len,
             "spsweep: cannot reach the SuiteSparse collection at %.300s (%.300s)%s%.200s; "
             "offline? point --base-url or SPSWEEP_SUITESPARSE_URL at a mirror (a "
             "file:///path/to/mirror directory works) or fill the cache where there is "
             "network (docs/troubleshooting.md)",
             base, cause, what && *what ? ": " : "", what ? what : "");
}

void sp_fetch_mark_unreachable(const char *base, const char *cause)
{
    pthread_mutex_lock(&mu);
    if (!dead_base[0]) {
        snprintf(dead_base, sizeof dead_base, "%s", base);
        snprintf(dead_cause, sizeof dead_cause, "%s", cause);
    }
    pthread_mutex_unlock(&mu);
}

int sp_fetch_known_unreachable(const char *base, char *cause, size_t len)
{
    pthread_mutex_lock(&mu);
    int dead = dead_base[0] && strcmp(dead_base, base) == 0;
    if (dead && cause)
        snprintf(cause, len, "%s", dead_cause);
    pthread_mutex_unlock(&mu);
    return dead;
}

int sp_fetch_hint_once(const char *base, const char *what, FILE *log)
{
    char cause[sizeof dead_cause], line[1400];
    if (!sp_fetch_known_unreachable(base, cause, sizeof cause))
        return 0;
    pthread_mutex_lock(&mu);
    int first = !hinted;
    hinted = 1;
    pthread_mutex_unlock(&mu);
    if (!first)
        return 0;
    sp_fetch_offline_hint(base, cause, what, line, sizeof line);
    fprintf(log ? log : stderr, "%s\n", line);
    fflush(log ? log : stderr);
    return 1;
}
