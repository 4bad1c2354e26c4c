/*
 * mm_read.h — internals of the Matrix Market reader shared by its files
 * (the public interface is sp_mm_read in matrix.h).
 */
#ifndef SP_MM_READ_H
#define SP_MM_READ_H

#include <stdint.h>

/* Parse a decimal number starting at p (no leading whitespace) within
 * [p, end). Returns the first character after it, or NULL when there is no
 * number. *range is 1 when the value overflows, 2 for inf/nan text. */
const char *sp_mm_parse_double(const char *p, const char *end, double *v, int *range);
/* Same for a decimal integer; *range when it does not fit int64. */
const char *sp_mm_parse_int(const char *p, const char *end, int64_t *v, int *range);

#endif
