/*
 * mm_read.h — internals of the Matrix Market reader shared by its files
 * (the public interface is sp_mm_read in matrix.h):
 *
 *   mm_read.c    the file's bytes (mapped or inflated), sp_mm_read(_coo)
 *   mm_banner.c  banner and size line
 *   mm_fit.c     what the size line asks for, checked against memory first
 *   mm_csr.c     count pass, cursors, fill pass: the CSR
 *   mm_count.c   the count pass: entries per row (per row block for mm_par.c)
 *   mm_body.c    the fill pass: entries into their CSR slots
 *   mm_fast.h    the inline scanning and number parsing of both passes
 *   mm_entry.c   one entry parsed carefully, with the precise error
 *   mm_rows.c    rows sorted, duplicates summed: the finished CSR
 *   mm_number.c  decimal text to double / int64, correctly rounded
 *   mm_par.c     the body split at line boundaries and parsed by threads
 *                (the CSR read's path on one thread too)
 *   mm_par_csr.c the threads' entries into the CSR, a row block at a time
 *
 * Every text buffer ends with at least MM_PAD zero bytes after its last
 * byte (end[0] == 0), so the fast loops stop at a sentinel instead of
 * testing the bound at every byte; careful code still honours end.
 */
#ifndef SP_MM_READ_H
#define SP_MM_READ_H

#include <stdint.h>

#include "matrix.h"

#define MM_PAD 64

typedef enum { MM_REAL, MM_INTEGER, MM_PATTERN, MM_COMPLEX } mm_field;
typedef enum { MM_GENERAL, MM_SYMMETRIC, MM_SKEW, MM_HERMITIAN } mm_symmetry;

typedef struct mm_header {
    int array;                  /* 1: dense column-major, 0: coordinate */
    mm_field field;
    mm_symmetry sym;
    int64_t rows, cols;
    int64_t entries;            /* entry lines (values, for array) that follow */
    const char *size_line;      /* where the size line starts: errors about it name it */
} mm_header;

/* A whole file's text. */
typedef struct mm_text {
    const char *path;
    const char *buf, *end;      /* end[0] .. end[MM_PAD-1] are 0 */
    int has_cr;                 /* some '\r': lines may end in \r\n or \r */
    int unpopulated;            /* a file mapping not paged in: the parallel parse's
                                   threads page in their chunks */
} mm_text;

/* Where entries go: CSR slots (next[i] is row i's next free slot, below
 * nnz) or, when coo is set, appended to a COO. Rows are random, so cache
 * misses, not parsing, would set the pace of CSR stores: each entry waits
 * in a ring while next[i] is prefetched, then while its slot is. */
#define MM_AHEAD 16             /* a power of two */
typedef struct mm_sink {
    int32_t *next;
    int32_t *col;
    double *val;
    int64_t nnz;
    sp_coo *coo;
    uint64_t queued;            /* entries put so far */
    const char *ignored_value;  /* the first pattern entry line with a value (ignored) */
    int32_t qi[MM_AHEAD], qj[MM_AHEAD], qat[MM_AHEAD];
    double qv[MM_AHEAD];
} mm_sink;

static inline int mm_is_eol(char ch)
{
    return ch == '\n' || ch == '\r';
}

static inline int mm_is_blank(char ch)
{
    return ch == ' ' || ch == '\t';
}

/* mm_read.c: "PATH:LINE: message" for a position in the text. */
int mm_fail(const mm_text *t, const char *at, sp_err *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* 1-based line of a position: lines end in \n, \r\n or a lone \r. */
long mm_line_of(const mm_text *t, const char *at);

/* mm_banner.c: banner and size line; *body is where the entries start. */
int mm_parse_header(const mm_text *t, mm_header *h, const char **body, sp_err *err);

/* mm_body.c: line helpers and the fill pass. */
const char *mm_skip_blanks(const char *p, const char *end);
const char *mm_next_line(const char *p, const char *end);
/* Skip blank lines and % comment lines: the first other character. */
const char *mm_skip_comments(const char *p, const char *end);
/* mm_csr.c: count pass, allocation, fill pass: A holds every entry in file
 * order within its row. *ignored_value: the first pattern line whose value
 * was ignored, or NULL. */
int mm_fill_csr(const mm_text *t, const mm_header *h, const char *body, sp_csr *A,
                const char **ignored_value, sp_err *err);
/* mm_count.c: entries per row as the fill pass will store them (symmetric kinds
 * mirrored); lines the fill pass will reject are simply not counted. */
void mm_count_rows(const mm_text *t, const mm_header *h, const char *body, uint32_t *count);
/* mm_count.c: a chunk's entries per row block (row >> shift) added to
 * bcount, symmetric kinds mirrored; the chunk's entry lines, or -1 at a
 * line the parse will reject. */
int64_t mm_count_chunk(const mm_text *t, const mm_header *h, const char *from, const char *to,
                       int shift, uint32_t *bcount);
/* Parse every entry into the sink; checks the trailing content. */
int mm_read_entries(const mm_text *t, const mm_header *h, const char *body, mm_sink *s,
                    sp_err *err);

/* A chunk of the body (whole lines) parsed by one thread: its entries
 * as triplets, 0-based, symmetric kinds mirrored, in file order. */
typedef struct mm_chunk {
    const char *from, *to;      /* from: a line start; to: a line start or the end */
    int32_t *row, *col;
    double *val;
    int64_t n, cap;             /* triplets stored, room for */
    int64_t entries;            /* entry lines parsed */
    const char *ignored_value;  /* as in mm_sink */
    int bad;                    /* 1: a line the serial reader rejects; 2: out of memory */
} mm_chunk;
/* mm_body.c: every entry line of the chunk parsed (no error message: a
 * rejected line sets c->bad and stops the chunk; the serial reader then
 * names it). */
void mm_parse_chunk(const mm_text *t, const mm_header *h, mm_chunk *c);
/* mm_par.c: the body split into chunks of whole lines, parsed by threads
 * (staging each chunk's triplets) into a COO (file order) or into
 * row-block-sorted segments that mm_par_csr.c builds the CSR from (entries
 * in file order within each row, as mm_fill_csr leaves them, then sorted
 * and summed as mm_finish_rows does). The source hash (when src_hash is
 * not NULL) is taken by one of the threads. 0: done; -1: failed with
 * err; 1: not taken (too small, one thread for a COO, an array file, or
 * the body has a problem the serial reader must name), nothing allocated
 * and *src_hash not set. */
int mm_par_csr(const mm_text *t, const mm_header *h, const char *body, const sp_mm_opts *o,
               sp_csr *A, const char **ignored_value, uint64_t *src_hash, sp_err *err);
int mm_par_coo(const mm_text *t, const mm_header *h, const char *body, const sp_mm_opts *o,
               sp_coo *T, const char **ignored_value, uint64_t *src_hash, sp_err *err);
/* The threads a parse would use (sp_mm_opts, $SPSWEEP_THREADS, OpenMP). */
int mm_par_threads(const sp_mm_opts *o);
/* Will a body of len bytes be split (threads and size allow it)? A CSR
 * read takes the chunked path on one thread too (csr = 1): it reads the
 * text once, where the serial reader's count and fill passes read it
 * twice; a COO read needs two threads. */
int mm_par_wanted(const sp_mm_opts *o, int64_t len, int csr);

/* The parallel CSR read's entries between the parse and the build: in
 * the CSR's own arrays (no other array as long as the entries), grouped
 * by row block (row >> shift) and in file order within a block: block
 * b's part of chunk k (its segment) starts at beg[b * nchunks + k] and
 * holds len[...] entries; block b's segments follow each other from
 * beg[b * nchunks]. colidx holds the column, with the row's offset in
 * its block above it (row_in_block << colbits | column) when both fit 32
 * bits, else the offset is in rib. Blocks are small enough that one
 * block's entries stay in cache while the build sorts them into rows. */
typedef struct mm_segs {
    int nchunks, blocks, shift, colbits;
    uint32_t *beg, *len;        /* per block and chunk (block-major) */
    uint16_t *rib;              /* rows' offsets in their blocks, unless packed */
    int64_t total;              /* entries in all */
} mm_segs;
/* mm_par_csr.c: the CSR from the grouped entries (A->colidx, A->val as
 * mm_segs says; A->rowptr allocated), on threads, row ranges balanced by
 * entries, one block at a time: copied aside, counted, put back in row
 * order, rows sorted, summed and packed while the block is in cache. */
int mm_segs_to_csr(const mm_text *t, const mm_segs *s, int threads, sp_csr *A, sp_err *err);

/* mm_entry.c: the coordinate entry (or array value) at line, parsed with
 * every check; returns the start of the next line, or NULL with err.
 * *ignored (when not NULL) is 1 for a pattern entry that carries a value
 * column, which is accepted and ignored, 0 otherwise. */
const char *mm_entry_careful(const mm_text *t, const mm_header *h, const char *line,
                             int64_t *i, int64_t *j, double *v, int *ignored, sp_err *err);

/* mm_fit.c: the entries the file can hold at most (what the size line
 * announces, unless the text after it is too short for that many), and
 * the symmetric kinds' mirrors included. */
int64_t mm_entries_bound(const mm_text *t, const mm_header *h, const char *body);
/* Refuse, naming the size line, a read whose arrays (CSR: row pointers
 * plus entries; coo: COO triplets) would not fit in the memory available,
 * before any of them is allocated. */
int mm_check_fit(const mm_text *t, const mm_header *h, const char *body, int coo, sp_err *err);

/* mm_rows.c: sort each row's columns (stably: duplicates are summed in
 * file order), sum duplicates, compact; A->nnz and the arrays shrink. */
int mm_finish_rows(sp_csr *A, sp_err *err);
/* Rows [lo, hi) only, whose entries start at from (rowptr[i + 1] = row
 * i's end), packed from there on: the new end, or -1 out of memory. */
int64_t mm_finish_range(sp_csr *A, int32_t lo, int32_t hi, int32_t from);
/* Entries beyond n given back (the arrays shrink, A->nnz = n). */
void mm_shrink_entries(sp_csr *A, int32_t n);

/* mm_number.c. Parse a decimal number at p (no leading blanks) within
 * [p, end). Returns the first character after it, or NULL when there is
 * no number. *range is 1 when the value overflows, 2 for inf/nan text. */
const char *sp_mm_parse_double(const char *p, const char *end, double *v, int *range);
/* Same for a decimal integer; *range when it does not fit int64. */
const char *sp_mm_parse_int(const char *p, const char *end, int64_t *v, int *range);

#endif
