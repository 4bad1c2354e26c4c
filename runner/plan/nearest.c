/*
 * nearest.c — "did you mean": the candidate nearest to a word that is not
 * one of them (nearest.h). Moved out of runner/cli/cli.c so the config's
 * checks (runner/plan/config.c, charts.c) name the key, section or word a
 * typo was meant to be without including the command line's wing.
 */
#include <ctype.h>
#include <string.h>

#include "nearest.h"

/* Case-insensitive edit distance of a and b (both short). */
static int distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return 99;
    int row[64];
    for (size_t j = 0; j <= lb; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int up = row[j];
            int same = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]);
            int best = diag + !same;
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

const char *sp_cli_nearest(const char *word, const char *const *cand, int n)
{
    const char *best = NULL;
    int dbest = 3;                      /* two edits at most */
    int len = (int)strlen(word);
    for (int i = 0; i < n; i++) {
        int d = distance(word, cand[i]);
        if (d < dbest && d < len)       /* not "x" for "y" */
            best = cand[i], dbest = d;
    }
    return best;
}
