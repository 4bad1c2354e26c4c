/*
 * status.h — the status of a run, one enum and one name table for the
 * whole pipeline: what a measuring child reports (ok, failed, error,
 * skipped: the wire values, runner/isolate/isolate.h), what the parent concludes
 * when the child did not report (crashed, timeout, aborted), and what the
 * database stores and the views count (runs.status: every one but
 * aborted, which is never stored: resume runs it again). A matrix that
 * could not be loaded is skipped or error (matrix_failures.status).
 */
#ifndef SP_STATUS_H
#define SP_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sp_run_status {
    SP_RUN_OK = 0,          /* measured and checked */
    SP_RUN_FAILED = 1,      /* its result is wrong (above the tolerance) */
    SP_RUN_ERROR = 2,       /* it could not run (a refusal, an API error) */
    SP_RUN_SKIPPED = 3,     /* not run on purpose (no GPU, not enough memory) */
    SP_RUN_CRASHED = 4,     /* its child died or broke the protocol */
    SP_RUN_TIMEOUT = 5,     /* killed after the sweep's timeout */
    SP_RUN_ABORTED = 6,     /* stopped by a second interrupt: not stored */
} sp_run_status;

/* Statuses a stored run may have: SP_RUN_OK .. SP_RUN_TIMEOUT. */
#define SP_RUN_STORED 6

/* "ok", "failed", "error", "skipped", "crashed", "timeout", "aborted";
 * "?" for a value outside the enum. */
const char *sp_run_status_name(sp_run_status s);
/* The status named name into *out: 0, or -1 for a name that is none. */
int sp_run_status_parse(const char *name, sp_run_status *out);

#ifdef __cplusplus
}
#endif

#endif
