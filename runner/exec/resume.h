/* resume.h — sweep identity and the combinations a sweep already holds
 * (runner/exec/resume.c). */
#ifndef SP_RESUME_H
#define SP_RESUME_H

#include "../../db/store.h"
#include "../plan/plan.h"

int sp_plan_hash(const sp_config *cfg, const sp_plan *plan, char out[17], sp_err *err);
int sp_binary_hash(char out[17], sp_err *err);

typedef struct sp_done_set {
    char **keys;                /* sorted "source\x1fkernel\x1faxes\x1fround" */
    int n, cap;
} sp_done_set;

int sp_done_load(sp_store *st, int64_t sweep_id, sp_done_set *d, sp_err *err);
int sp_done_has(const sp_done_set *d, const char *source, const sp_combo *c, int round);
void sp_done_free(sp_done_set *d);

#endif
