/* SPDX-License-Identifier: GPL-3.0-or-later */
/* pbenc.c - protocol buffers fields into a growing buffer (pbenc.h). */
#include "output/pbenc.h"

#include <stdlib.h>
#include <string.h>

enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

size_t pbenc_put_varint(uint8_t *p, uint64_t v)
{
    size_t n = 0;

    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

unsigned pbenc_varint_size(uint64_t v)
{
    unsigned n = 1;

    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

void pbenc_init(struct pbenc *b)
{
    memset(b, 0, sizeof *b);
}

/* Room for need more bytes; 0, or -1 (failed set) when out of memory. */
static int room(struct pbenc *b, size_t need)
{
    size_t cap;
    uint8_t *p;

    if (b->failed)
        return -1;
    if (b->cap - b->n >= need)
        return 0;
    for (cap = b->cap ? b->cap : 4096; cap - b->n < need; cap *= 2)
        if (cap > SIZE_MAX / 4) {
            b->failed = 1;
            return -1;
        }
    if (!(p = realloc(b->buf, cap))) {
        b->failed = 1;
        return -1;
    }
    b->buf = p;
    b->cap = cap;
    return 0;
}

static void tag(struct pbenc *b, unsigned field, unsigned wire)
{
    b->n += pbenc_put_varint(b->buf + b->n, (uint64_t)field << 3 | wire);
}

void pbenc_varint(struct pbenc *b, unsigned field, uint64_t v)
{
    if (room(b, 20) < 0)
        return;
    tag(b, field, WIRE_VARINT);
    b->n += pbenc_put_varint(b->buf + b->n, v);
}

void pbenc_bytes(struct pbenc *b, unsigned field, const void *p, size_t n)
{
    if (n > SIZE_MAX - 20 || room(b, n + 20) < 0)
        return;
    tag(b, field, WIRE_LEN);
    b->n += pbenc_put_varint(b->buf + b->n, n);
    if (n)
        memcpy(b->buf + b->n, p, n);
    b->n += n;
}

void pbenc_string(struct pbenc *b, unsigned field, const char *s)
{
    pbenc_bytes(b, field, s, strlen(s));
}

void pbenc_begin(struct pbenc *b, unsigned field)
{
    if (b->depth == PBENC_DEPTH)
        b->failed = 1;
    if (room(b, 11) < 0)
        return;
    tag(b, field, WIRE_LEN);
    b->open[b->depth++] = b->n;
    b->buf[b->n++] = 0; /* the length, when it fits in one byte */
}

void pbenc_end(struct pbenc *b)
{
    size_t at, len;
    unsigned k;

    if (b->failed || !b->depth)
        return;
    at = b->open[--b->depth];
    len = b->n - at - 1;
    if (len < 0x80) {
        b->buf[at] = (uint8_t)len;
        return;
    }
    k = pbenc_varint_size(len);
    if (room(b, k - 1) < 0)
        return;
    memmove(b->buf + at + k, b->buf + at + 1, len);
    pbenc_put_varint(b->buf + at, len);
    b->n += k - 1;
}

int pbenc_flush(struct pbenc *b, FILE *f)
{
    if (b->failed || b->depth)
        return -1;
    if (b->n && fwrite_unlocked(b->buf, 1, b->n, f) != b->n)
        return -1;
    b->n = 0;
    return 0;
}

void pbenc_free(struct pbenc *b)
{
    free(b->buf);
    pbenc_init(b);
}
