/*
 * mkl_lib.c — MKL's version, threading layer and threads as the MKL
 * kernels and the provenance read them (mkl_lib.h). Compiled in every
 * build; without MKL only the empty description remains.
 */
#include <stdio.h>
#include <string.h>

#include "mkl_lib.h"

#ifndef SP_HAVE_MKL
void sp_mkl_describe(char *buf, size_t len)
{
    if (len)
        buf[0] = 0;
}
#else
#include <link.h>
#include <omp.h>

void sp_mkl_version(char *buf, size_t len)
{
    char full[256] = "";
    mkl_get_version_string(full, (int)sizeof full);
    full[sizeof full - 1] = 0;
    const char *v = strstr(full, "Version ");
    v = v ? v + 8 : full;
    const char *end = strstr(v, " for ");
    int n = end ? (int)(end - v) : (int)strcspn(v, "\n");
    snprintf(buf, len, "%.*s", n, v);
}

/* dl_iterate_phdr: note which of MKL's threading layers is loaded. */
static int find_layer(struct dl_phdr_info *info, size_t size, void *data)
{
    static const char *const layers[][2] = {{"libmkl_gnu_thread", "gnu"},
                                            {"libmkl_intel_thread", "intel"},
                                            {"libmkl_tbb_thread", "tbb"},
                                            {"libmkl_sequential", "sequential"}};
    const char **found = data;
    (void)size;
    for (size_t i = 0; info->dlpi_name && i < sizeof layers / sizeof layers[0]; i++)
        if (strstr(info->dlpi_name, layers[i][0]))
            *found = layers[i][1];
    return 0;
}

const char *sp_mkl_threading(void)
{
    const char *layer = "unknown";
    dl_iterate_phdr(find_layer, &layer);
    return layer;
}

void sp_mkl_describe(char *buf, size_t len)
{
    char v[128];
    sp_mkl_version(v, sizeof v);
    snprintf(buf, len, "MKL %s, threading %s", v, sp_mkl_threading());
}

int sp_mkl_threads(const char *who, int threads, sp_err *err)
{
    mkl_set_dynamic(0);
    mkl_set_num_threads_local(threads);
    int got = mkl_get_max_threads(), limit = omp_get_thread_limit();
    if (got != threads || mkl_get_dynamic())
        return sp_fail(err, "%s: threads = %d asked, MKL runs %d%s", who, threads, got,
                       mkl_get_dynamic() ? " (dynamic)" : "");
    if (limit < threads)    /* libgomp would cap MKL's parallel regions */
        return sp_fail(err, "%s: threads = %d asked, OMP_THREAD_LIMIT allows %d", who,
                       threads, limit);
    return 0;
}

void sp_mkl_threads_reset(void)
{
    mkl_set_num_threads_local(0);   /* 0: the global setting again */
}

int sp_mkl_fail(sp_err *err, const char *who, const char *what, sparse_status_t st)
{
    static const char *const words[] = {
        "success",          "not initialized",  "allocation failed", "invalid value",
        "execution failed", "internal error",   "not supported",
    };
    const char *w = (unsigned)st < sizeof words / sizeof words[0] ? words[st] : "unknown";
    return sp_fail(err, "%s: %s: MKL says %s (status %d)", who, what, w, (int)st);
}

int sp_mkl_info(char *json, size_t len, sp_precision prec, int empty, const char *extra)
{
    char v[128];
    sp_mkl_version(v, sizeof v);
    int n = snprintf(json, len,
                     "{\"mkl\":\"%s\",\"threading\":\"%s\",\"threads\":%d,\"precision\":\"%s\","
                     "\"empty\":%d%s}",
                     v, sp_mkl_threading(), mkl_get_max_threads(), sp_precision_name(prec),
                     empty, extra ? extra : "");
    return n > 0 && (size_t)n < len ? 0 : -1;
}
#endif
