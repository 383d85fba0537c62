/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sframe.c - the deframer: 0x00 delimiters, COBS, CRC-32; one frame of memory. */
#include "decode/sframe.h"

#include <stdlib.h>
#include <string.h>

#include "cobs.h"
#include "crc32.h"
#include "cyg_stream.h"
#include "util/le.h"

/* The longest COBS block a frame can have: the delimiter is not stored. */
#define BLOCK_MAX (CYG_FRAME_WIRE_MAX - 1u)

struct sframe {
    sframe_fn fn;
    void *arg;
    int synced;         /* a delimiter was seen: what follows starts a frame */
    size_t len;         /* bytes of the current block so far; blk holds them up to BLOCK_MAX */
    uint8_t blk[BLOCK_MAX];
    uint8_t raw[BLOCK_MAX];
    struct sframe_stats st;
};

struct sframe *sframe_new(sframe_fn fn, void *arg)
{
    struct sframe *f = calloc(1, sizeof *f);

    if (!f)
        return NULL;
    f->fn = fn;
    f->arg = arg;
    return f;
}

/* Checks the block in f->blk and delivers its payload; 0, or -1 when it does not check. */
static int deliver(struct sframe *f)
{
    long n;
    uint32_t crc;
    const uint8_t *c;

    if (f->len > BLOCK_MAX)
        return -1;
    n = cobs_decode(f->blk, f->len, f->raw);
    if (n < (long)CYG_FRAME_CRC_BYTES + 1 || n > (long)CYG_FRAME_RAW_MAX)
        return -1;
    n -= CYG_FRAME_CRC_BYTES;
    c = f->raw + n;
    crc = (uint32_t)le_get(c, 4);
    if (crc32_update(0, f->raw, (size_t)n) != crc)
        return -1;
    f->st.frames++;
    f->fn(f->arg, f->raw, (size_t)n);
    return 0;
}

/* A delimiter ended the current block. Before the first delimiter the block is most likely
 * the end of a frame the host joined in the middle of: its bytes count as skipped, unless
 * they check as a whole frame (a stream read from its very first byte). Empty blocks (two
 * delimiters in a row, which a drain may send to resynchronise a host) are no frame at all. */
static void end_block(struct sframe *f)
{
    if (!f->synced) {
        if (f->len && deliver(f) == 0)
            f->st.skipped -= f->len;
        f->synced = 1;
    } else if (f->len && deliver(f) < 0) {
        f->st.bad++;
    }
    f->len = 0;
}

void sframe_feed(struct sframe *f, const uint8_t *p, size_t n)
{
    f->st.bytes += n;
    while (n) {
        const uint8_t *z = memchr(p, 0, n);
        size_t run = z ? (size_t)(z - p) : n;

        /* counted at once, so that a link that never sends a delimiter shows it */
        if (!f->synced)
            f->st.skipped += run;
        if (f->len + run <= BLOCK_MAX)
            memcpy(f->blk + f->len, p, run);
        /* past BLOCK_MAX the length only has to say "too long" */
        f->len = run > BLOCK_MAX || f->len + run > BLOCK_MAX ? BLOCK_MAX + 1 : f->len + run;
        if (!z)
            return;
        end_block(f);
        p = z + 1;
        n -= run + 1;
    }
}

void sframe_get_stats(const struct sframe *f, struct sframe_stats *st)
{
    *st = f->st;
}

void sframe_free(struct sframe *f)
{
    free(f);
}

size_t sframe_host(uint8_t out[SFRAME_HOST_MAX], int64_t ns)
{
    uint8_t *p = out + 1; /* cobs_encode_short encodes buf + 1 in place */
    uint64_t v = ns < 0 ? 0 : (uint64_t)ns;
    size_t n = 0;
    uint32_t crc;

    p[n++] = CYG_FR_HOST;
    do { /* varint: 7 bits a byte, the lowest first */
        p[n] = (uint8_t)(v & 0x7f);
        v >>= 7;
        p[n++] |= v ? 0x80 : 0;
    } while (v);
    crc = crc32_update(0, p, n);
    le_put(p + n, crc, 4);
    n = cobs_encode_short(out, n + 4);
    out[n++] = 0;
    return n;
}
