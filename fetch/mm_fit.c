/*
 * mm_fit.c — what the size line asks for, checked before anything is
 * allocated. A 78-byte file may declare 2147483647 rows: the CSR's row
 * pointers alone would then take 8 GiB, all of it written. So the bytes
 * the read will touch are compared with the memory available
 * (core/hostmem.c) and a read that cannot fit is refused, naming the
 * size line, instead of being killed by the OOM killer half way.
 *
 * Entries count by what the file can hold, not by what the size line
 * claims: a short file with a huge entry count is a truncated file, and
 * the fill pass says so at the line where it ends.
 */
#include "../core/hostmem.h"
#include "mm_read.h"

/* The fewest bytes an entry line takes, its line end included: "1 1",
 * then " 1" per value (array files: "1" per value, " 1" more for complex). */
static int64_t shortest_line(const mm_header *h)
{
    int64_t values = h->field == MM_PATTERN ? 0 : h->field == MM_COMPLEX ? 2 : 1;
    return h->array ? 2 * values : 3 + 2 * values + 1;
}

int64_t mm_entries_bound(const mm_text *t, const mm_header *h, const char *body)
{
    /* the last line may lack its line end */
    int64_t room = (int64_t)(t->end - body + 1) / shortest_line(h);
    int64_t n = h->entries < room ? h->entries : room;
    return h->sym == MM_GENERAL ? n : 2 * n;
}

int mm_check_fit(const mm_text *t, const mm_header *h, const char *body, int coo, sp_err *err)
{
    uint64_t entries = (uint64_t)mm_entries_bound(t, h, body), avail;
    uint64_t need = coo ? entries * (2 * sizeof(int32_t) + sizeof(double))
                        : ((uint64_t)h->rows + 1) * sizeof(int32_t) +
                              entries * (sizeof(int32_t) + sizeof(double));
    if (sp_host_mem_available(&avail) || need <= avail)
        return 0;                       /* unknown availability lets the read go ahead */
    char why[160];
    sp_mem_shortfall(why, sizeof why, "host", need, avail);
    return mm_fail(t, h->size_line, err, "a %lld x %lld matrix with %lld entr%s: reading it %s",
                   (long long)h->rows, (long long)h->cols, (long long)h->entries,
                   h->entries == 1 ? "y" : "ies", why);
}
