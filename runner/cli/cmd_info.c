/*
 * cmd_info.c — `spsweep info SOURCE [options]`: one matrix or key array
 * loaded as a sweep would load it (behind the same memory guard), and its
 * features printed.
 */
#include <stdio.h>

#include "../../fetch/fetch.h"
#include "../plan/load_guard.h"
#include "args.h"
#include "commands.h"

static const sp_cli_opt info_opts[] = {
    {"cache-dir", "DIR", OPT_CACHE, "matrix cache for suitesparse: sources (default "
     "$SPSWEEP_CACHE, $XDG_CACHE_HOME/spsweep or ~/.cache/spsweep)"},
    OPT_ROW_COMPLEX, OPT_ROW_READ_THREADS,
    {NULL, NULL, 0, NULL},
};

const sp_cli_cmd sp_cli_info = {
    .name = "info",
    .synopsis = "SOURCE [options]",
    .summary = "load one matrix or key array and print its features",
    .about = "Loads SOURCE as a sweep would (gen:KIND?key=value..., file:PATH, PATH, "
             "suitesparse:GROUP/NAME from the cache, keys:DIST?n=...) and prints its "
             "features: shape, nonzeros per row, bandwidth, symmetry, size class, "
             "checksum (for keys: the distribution's statistics).",
    .opts = info_opts,
    .exits = "0 printed; "
             "1 the source cannot be parsed or loaded, or would not fit in memory; "
             "2 a command line that cannot be parsed",
    .examples = "'gen:laplace2d?n=100'\n"
                "suitesparse:HB/bcsstk13",
};

/* The memory guard before info loads src (runner/isolate/load_guard.c): refuse,
 * naming both numbers, what would get this process OOM-killed. A key
 * workload's statistics sort a copy (2 x 4n bytes of scratch). */
static int info_too_big(const sp_source *src, const sp_load_opts *lo, sp_err *err)
{
    sp_keys_spec ks;
    uint64_t scratch = src->kind == SP_SRC_KEYS && !sp_keys_spec_parse(src->path, &ks, NULL)
                           ? 8 * (uint64_t)ks.n : 0;
    char why[900];
    if (!sp_load_mem_short(src, lo, scratch, NULL, 0, "the statistics' scratch", why,
                           sizeof why))
        return 0;
    return sp_fail(err, "%s: %s", src->text, why);
}

static int cmd_info(const cli *c)
{
    sp_source src;
    sp_matrix M;
    sp_err err;
    sp_load_opts lo = {.cache_dir = c->cache_dir};
    if (c->nargs != 1)
        return sp_args_die("expected one SOURCE (gen:..., file:..., keys:..., or a path)");
    if (sp_args_complex(c->complex, &lo.mm.complex) ||
        (c->read_threads &&
         sp_args_int("read-threads", c->read_threads, 0, SP_READ_THREADS_MAX, &lo.mm.threads)))
        return 1;
    if (sp_source_parse(c->args[0], &src, &err) || info_too_big(&src, &lo, &err) ||
        sp_matrix_load(&src, &lo, &M, &err))
        return sp_args_die(err.msg);
    printf("source: %s\nname: %s\n", M.src.text, M.src.name);
    if (M.src.kind == SP_SRC_KEYS) {
        sp_keys_spec ks;
        sp_keys_stats st;
        if (sp_keys_spec_parse(M.src.path, &ks, &err) || sp_keys_stats_compute(&M.keys, &st, &err)) {
            sp_matrix_free(&M);
            return sp_args_die(err.msg);
        }
        printf("workload: keys (32-bit unsigned)\ndistribution: %s\nseed: %llu\n",
               sp_keys_dist_name(ks.dist), (unsigned long long)ks.seed);
        if (ks.dist == SP_KEYS_ZIPF)
            printf("zipf_exponent: %g\n", ks.s);
        sp_keys_stats_print(&st, stdout);
        printf("size_class: %s\n", M.feat.size_class);
    } else {
        sp_features_print(&M.feat, stdout);
    }
    printf("checksum: %016llx\nfrom_cache: %s\n", (unsigned long long)M.checksum,
           M.from_cache ? "yes" : "no");
    sp_matrix_free(&M);
    return 0;
}

int sp_cmd_info(int argc, char **argv)
{
    return sp_args_run(&sp_cli_info, cmd_info, argc, argv);
}
