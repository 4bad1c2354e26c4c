/*
 * status.c — the names of the run statuses (status.h): the one table
 * the database's strings and the runner's messages come from.
 */
#include <string.h>

#include "status.h"

static const char *const names[] = {"ok", "failed", "error", "skipped", "crashed", "timeout",
                                    "aborted"};
#define NNAMES ((int)(sizeof names / sizeof *names))

const char *sp_run_status_name(sp_run_status s)
{
    return (int)s >= 0 && (int)s < NNAMES ? names[s] : "?";
}

int sp_run_status_parse(const char *name, sp_run_status *out)
{
    for (int i = 0; name && i < NNAMES; i++)
        if (!strcmp(name, names[i]))
            return *out = (sp_run_status)i, 0;
    return -1;
}
