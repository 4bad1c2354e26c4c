/*
 * wire.c — the frames a combination's child sends its parent (isolate.h):
 * an 8-byte header (magic, type, length) and a payload. The writer loops
 * over short writes; the reader buffers bytes until a frame is whole.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "isolate.h"

#define WIRE_MAGIC 0x5350u

typedef struct wire_header {
    uint16_t magic, type;
    uint32_t len;
} wire_header;

/* Write all n bytes of p, retrying EINTR and short writes. */
static int write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n > 0) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

/* One frame: header, then payload. */
int sp_wire_send(int fd, unsigned type, const void *payload, size_t len)
{
    if (len > SP_WIRE_MAX_PAYLOAD || type > 0xffffu)
        return -1;
    wire_header h = {WIRE_MAGIC, (uint16_t)type, (uint32_t)len};
    if (write_all(fd, &h, sizeof h))
        return -1;
    return len ? write_all(fd, payload, len) : 0;
}

/* Append n bytes to the reader's buffer. */
int sp_wire_feed(sp_wire_reader *r, const void *data, size_t n)
{
    if (r->len + n > r->cap) {
        size_t cap = r->cap ? r->cap : 4096;
        while (cap < r->len + n)
            cap *= 2;
        unsigned char *grown = realloc(r->buf, cap);
        if (!grown)
            return -1;
        r->buf = grown;
        r->cap = cap;
    }
    memcpy(r->buf + r->len, data, n);
    r->len += n;
    return 0;
}

/* Take the first whole frame out of the buffer. The payload stays valid
 * until the next call, which shifts the frame's bytes out. */
int sp_wire_next(sp_wire_reader *r, unsigned *type, const unsigned char **payload,
                 uint32_t *len)
{
    static const size_t hs = sizeof(wire_header);
    if (r->taken) {
        memmove(r->buf, r->buf + r->taken, r->len - r->taken);
        r->len -= r->taken;
        r->taken = 0;
    }
    if (r->len < hs)
        return 0;
    wire_header h;
    memcpy(&h, r->buf, hs);
    if (h.magic != WIRE_MAGIC || h.len > SP_WIRE_MAX_PAYLOAD)
        return -1;
    if (r->len < hs + h.len)
        return 0;
    *type = h.type;
    *len = h.len;
    *payload = r->buf + hs;
    r->taken = hs + h.len;
    return 1;
}

void sp_wire_reader_free(sp_wire_reader *r)
{
    free(r->buf);
    memset(r, 0, sizeof *r);
}
