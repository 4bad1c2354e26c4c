/*
 * report_format.c — numbers with their interval as table text, as SQL
 * functions of the report's connection, so that every table query states
 * what it shows and the formatting is written once:
 *   rp_measure(v, lo, hi, unit)  "123.4 [120.1, 126.0] GFLOPS"
 *   rp_ratio(v, lo, hi)          "2.86x [2.51, 3.20]"
 * v NULL gives "-"; lo or hi NULL gives "123.4 GFLOPS (no interval)": a
 * number without its interval says so instead of passing for a sure one.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report_impl.h"

#define MEASURE_DIGITS 4        /* significant digits of a rate or a time */
#define RATIO_DIGITS 3          /* ... of a speedup */

/* Decimals that give v `digits` significant digits; the interval's ends
 * get as many, so that they line up with the value (0 to 9). */
static int decimals(double v, int digits)
{
    if (!(fabs(v) > 0) || !isfinite(v))
        return digits - 1;
    int d = digits - 1 - (int)floor(log10(fabs(v)));
    return d < 0 ? 0 : d > 9 ? 9 : d;
}

/* "V<mark> [LO, HI]<tail>", "V<mark><tail> (no interval)" or "-". */
static void interval_text(char *buf, size_t len, sqlite3_value **argv, int digits,
                          const char *mark, const char *tail)
{
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
        snprintf(buf, len, "-");
        return;
    }
    double v = sqlite3_value_double(argv[0]);
    int d = decimals(v, digits);
    if (sqlite3_value_type(argv[1]) == SQLITE_NULL || sqlite3_value_type(argv[2]) == SQLITE_NULL)
        snprintf(buf, len, "%.*f%s%s (no interval)", d, v, mark, tail);
    else
        snprintf(buf, len, "%.*f%s [%.*f, %.*f]%s", d, v, mark, d,
                 sqlite3_value_double(argv[1]), d, sqlite3_value_double(argv[2]), tail);
}

/* rp_measure(v, lo, hi, unit): the unit after the interval. */
static void sql_measure(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    char buf[256], tail[80] = "";
    const unsigned char *unit = sqlite3_value_text(argv[3]);
    (void)argc;
    if (unit && *unit)
        snprintf(tail, sizeof tail, " %s", (const char *)unit);
    interval_text(buf, sizeof buf, argv, MEASURE_DIGITS, "", tail);
    sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
}

/* rp_ratio(v, lo, hi): "x" on the value, as the other ratios of the report. */
static void sql_ratio(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    char buf[256];
    (void)argc;
    interval_text(buf, sizeof buf, argv, RATIO_DIGITS, "x", "");
    sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
}

int rp_register_formats(rp_report *r, sp_err *err)
{
    int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC;
    if (sqlite3_create_function(r->db, "rp_measure", 4, flags, NULL, sql_measure, NULL,
                                NULL) != SQLITE_OK ||
        sqlite3_create_function(r->db, "rp_ratio", 3, flags, NULL, sql_ratio, NULL,
                                NULL) != SQLITE_OK)
        return rp_db_fail(r, err, "registering the interval formats");
    return 0;
}
