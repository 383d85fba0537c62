/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dec4m.c - version 4 rings of 32-bit targets, rewritten into 8-byte records (dec4m.h). */
#include "decode/dec4m.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crc32.h"
#include "cyg_format.h"
#include "decode/hdr.h"
#include "util/le.h"

int dec4m_version(const uint8_t *p, unsigned version)
{
    return version == CYG_VERSION4 && p[CYG_OFF_WORD] == 4;
}

void dec4m_parse(const uint8_t *p, struct dec_ring *r)
{
    if (!dec4m_version(p, r->version))
        return;
    r->rec4 = p[CYG_OFF_REC4];
    r->text_base = (uint32_t)le_get(p + CYG_OFF_TEXT_BASE, 4);
}

int dec4m_ring(const struct dec_ring *r)
{
    return r->version == CYG_VERSION4 && r->word_bytes == 4 && !r->expanded;
}

const char *dec4m_check(const struct dec_ring *r)
{
    unsigned f = r->rec4 & CYG4_FN_MASK;

    if (r->rec_bytes != 4 || (r->flags & CYG_F_CALLSITES))
        return "record size does not fit the word size and flags";
    if (r->cap_log2 < 1 || r->cap_log2 > 28)
        return "capacity out of range";
    if (f < CYG4_FN_MIN || f > CYG4_FN_MAX || r->chunk_log2 != 0 || r->ts_bits < 1 ||
        r->ts_bits > 32 || r->build_id_len > CYG_BUILD_ID_MAX || r->state > CYG_S_FULL)
        return "inconsistent fields";
    return NULL;
}

int dec4m_has_area(const struct dec_ring *r)
{
    if (r->version == CYG_VERSION4 && r->word_bytes == 4)
        return (r->rec4 & CYG4_AREA) != 0;
    return 1;
}

/* The rewriting's state: the ring's words in, the 8-byte records out, the clock. */
struct x4 {
    const struct dec_ring *r;
    const uint32_t *w; /* the ring's words, avail of them */
    uint64_t avail;
    uint8_t *out;      /* the records of the new ring */
    unsigned f, t;     /* function and time field widths */
    uint64_t tmask;    /* 2^t - 1 */
    uint64_t cmask;    /* 2^ts_bits - 1: a TIME's payload */
    int down;          /* CYG_F_TS_DOWN */
    int stamps;        /* CYG_F_TIMESTAMPS */
};

static uint32_t lap3(uint64_t seq, unsigned cap_log2)
{
    return (uint32_t)cyg_lap(seq, cap_log2) << 31;
}

/* The word of seq, when it is in the image and of seq's lap; else 0 (the L of a word of lap 1
 * is set, and a word of lap 0 with L clear is returned with bit 30 set by nothing: callers
 * test ok). */
static int word_at(const struct x4 *x, uint64_t seq, uint32_t *w)
{
    uint64_t slot = seq & (x->r->cap - 1);

    if (slot >= x->avail)
        return 0;
    *w = x->w[slot];
    return (*w & CYG4_L) == cyg4_lap(seq, x->r->cap_log2);
}

/* How many slots from seq a special takes (1 + n), when its header at seq is whole: its more
 * words there, of their laps, before end; else 0. */
static unsigned special_len(const struct x4 *x, uint64_t seq, uint64_t end, uint32_t h)
{
    unsigned n = (h >> CYG4_N_SHIFT) & 3u;
    uint32_t m;

    for (unsigned i = 1; i <= n; i++)
        if (seq + i >= end || !word_at(x, seq + i, &m) || !(m & CYG4_S) || (m & CYG4_H))
            return 0;
    return n + 1;
}

static void special_v(const struct x4 *x, uint64_t seq, uint32_t h, unsigned len, uint32_t *data,
                      uint32_t *payload)
{
    uint64_t v = h & ((1u << CYG4_HDR_BITS) - 1u);

    for (unsigned i = 1; i < len; i++)
        v |= (uint64_t)(x->w[(seq + i) & (x->r->cap - 1)] & 0x1fffffffu)
             << (CYG4_HDR_BITS + CYG4_MORE_BITS * (i - 1));
    *payload = (uint32_t)v;
    *data = (uint32_t)(v >> 32) & CYG32_DATA_MASK;
}

static void put(const struct x4 *x, uint64_t seq, uint32_t a, uint32_t b)
{
    uint8_t *p = x->out + (seq & (x->r->cap - 1)) * 8;

    le_put(p, a, 4);
    le_put(p + 4, b, 4);
}

/* A call record's time field, counting up. */
static uint64_t low(const struct x4 *x, uint32_t w)
{
    uint64_t t = (w >> x->f) & x->tmask;

    return x->down ? ~t & x->tmask : t;
}

/* The signed t-bit step from now to the low bits lo. */
static uint64_t step(const struct x4 *x, uint64_t now, uint64_t lo)
{
    uint64_t d = (lo - now) & x->tmask;

    if (d & ((x->tmask >> 1) + 1))
        d -= x->tmask + 1;
    return now + d;
}

/* The seq of the first whole TIME special in [first, end) and its clock (counting up), or
 * end. */
static uint64_t first_time(const struct x4 *x, uint64_t first, uint64_t end, uint64_t *clock)
{
    for (uint64_t seq = first; seq < end; seq++) {
        uint32_t w, data, payload;
        unsigned len;

        if (!word_at(x, seq, &w) || !(w & CYG4_S) || !(w & CYG4_H))
            continue;
        if (!(len = special_len(x, seq, end, w)))
            continue;
        if (((w >> CYG4_TYPE_SHIFT) & 63u) == CYG_SP_TIME) {
            special_v(x, seq, w, len, &data, &payload);
            *clock = x->down ? ~(uint64_t)payload & x->cmask : payload & x->cmask;
            return seq;
        }
        seq += len - 1;
    }
    return end;
}

/* Whether word w is a point of the clock's low bits (a call record, a TIMELO), and its bits. */
static int time_point(const struct x4 *x, uint32_t w, uint64_t *lo)
{
    if (!(w & CYG4_S)) {
        *lo = low(x, w);
        return 1;
    }
    if ((w & CYG4_H) && ((w >> CYG4_TYPE_SHIFT) & 63u) == CYG4_SP_TIMELO &&
        !((w >> CYG4_N_SHIFT) & 3u)) {
        *lo = (x->down ? ~w : w) & x->tmask;
        return 1;
    }
    return 0;
}

/* Where the records before the first TIME record lie: the time of the first of them, so that
 * the last lies less than 2^t ticks before that TIME (FORMAT.md 14.3). */
static uint64_t start_time(const struct x4 *x, uint64_t first, uint64_t tseq, uint64_t tclock)
{
    uint64_t rel = 0, lo, lo_first = 0, lo_last = 0;
    int any = 0;

    for (uint64_t seq = first; seq < tseq; seq++) {
        uint32_t w;

        if (!word_at(x, seq, &w) || !time_point(x, w, &lo))
            continue;
        rel = any ? step(x, rel, lo) : lo;
        if (!any)
            lo_first = lo;
        lo_last = lo;
        any = 1;
    }
    if (!any)
        return 0;
    /* the last at tclock - ((tclock - its bits) mod 2^t), the first rel - its bits before */
    return tclock - ((tclock - lo_last) & x->tmask) - (rel - lo_first);
}

static void rewrite(struct x4 *x, uint64_t first, uint64_t end)
{
    const struct dec_ring *r = x->r;
    uint64_t fmask = ((uint64_t)1 << x->f) - 1, tclock = 0, now = 0, tnow = 0;
    uint64_t tseq = x->stamps ? first_time(x, first, end, &tclock) : end;
    int have_time = 0, have_call = 0;

    if (x->stamps && tseq < end)
        now = start_time(x, first, tseq, tclock);
    for (uint64_t seq = first; seq < end; seq++) {
        uint32_t w, data, payload;
        unsigned len, type;

        if (!word_at(x, seq, &w))
            continue; /* unwritten, or past the image: left zero */
        if (!(w & CYG4_S)) {
            uint32_t fn = (uint32_t)(r->text_base + ((w - r->text_base) & fmask));

            /* The first point before the first TIME: where start_time() put it, or, without
             * any TIME, its own bits; every later one, a step from the last. */
            if (x->stamps)
                now = have_call ? step(x, now, low(x, w)) : tseq < end ? now : low(x, w);
            have_call = 1;
            put(x, seq, (fn & ~1u) | (w & CYG4_X), lap3(seq, r->cap_log2) |
                (uint32_t)(now & CYG32_TS_MASK));
            continue;
        }
        if (!(w & CYG4_H) || !(len = special_len(x, seq, end, w)))
            continue; /* a more word no header took, or a header without its words */
        special_v(x, seq, w, len, &data, &payload);
        type = (w >> CYG4_TYPE_SHIFT) & 63u;
        if (type == CYG4_SP_TIMELO) {
            /* the low bits, as a call record's: a TIME of the clock it gives */
            type = CYG_SP_TIME;
            data = 0;
            if (x->stamps) {
                uint64_t lo = (x->down ? ~payload : payload) & x->tmask;

                (void)time_point(x, w, &lo);
                now = have_call ? step(x, now, lo) : tseq < end ? now : lo;
                have_call = 1;
                payload = (uint32_t)(now & CYG32_TS_MASK);
            }
        } else if (type == CYG_SP_TIME && x->stamps) {
            uint64_t c = x->down ? ~(uint64_t)payload & x->cmask : payload & x->cmask;

            if (!have_time) {
                tnow = c;
            } else {
                uint64_t d = (c - tnow) & x->cmask;

                if (d & ((x->cmask >> 1) + 1))
                    d -= x->cmask + 1;
                tnow += d;
            }
            have_time = 1;
            now = tnow;
            have_call = 1; /* the next call steps from here */
            payload = (uint32_t)(now & CYG32_TS_MASK);
        }
        put(x, seq, payload, lap3(seq, r->cap_log2) | CYG32_SPECIAL |
            type << CYG32_TYPE_SHIFT | data);
        for (unsigned i = 1; i < len; i++)
            put(x, seq + i, 0, lap3(seq + i, r->cap_log2) | CYG32_SPECIAL |
                CYG_SP_PAD << CYG32_TYPE_SHIFT);
        seq += len - 1;
    }
}

struct src *dec4m_expand(struct src *s, const struct dec_ring *r, struct dec_ring *out, char *err,
                         size_t errlen)
{
    uint64_t size = src_size(s), recs = size > r->off + CYG_HDR_BYTES
                                            ? (size - r->off - CYG_HDR_BYTES) / 4 : 0;
    uint64_t avail = recs < r->cap ? recs : r->cap, head = r->head, first, end;
    int area = (r->rec4 & CYG4_AREA) && recs >= r->cap + CYG_CTRL_BYTES / 4;
    /* at the block's own offset: a RAM image's ring keeps its place (pull --ram checks it) */
    size_t n = (size_t)r->off + CYG_HDR_BYTES + (size_t)avail * 8 + (area ? CYG_CTRL_BYTES : 0);
    uint8_t *buf = calloc(1, n), *blk;
    uint32_t *w = malloc((size_t)(avail ? avail : 1) * 4);
    struct x4 x = {0};
    char why[256];
    struct src *m;

    if (!buf || !w) {
        free(buf);
        free(w);
        snprintf(err, errlen, "%s: out of memory", src_name(s));
        return NULL;
    }
    blk = buf + r->off;
    if (src_read(s, r->off, blk, CYG_HDR_BYTES) != CYG_HDR_BYTES ||
        src_read(s, r->off + CYG_HDR_BYTES, blk + CYG_HDR_BYTES, (size_t)avail * 4) !=
            (long)(avail * 4) ||
        (area && src_read(s, r->off + CYG_HDR_BYTES + r->cap * 4,
                          blk + CYG_HDR_BYTES + avail * 8, CYG_CTRL_BYTES) != CYG_CTRL_BYTES)) {
        free(buf);
        free(w);
        snprintf(err, errlen, "%s: read error", src_name(s));
        return NULL;
    }
    for (uint64_t i = 0; i < avail; i++)
        w[i] = (uint32_t)le_get(blk + CYG_HDR_BYTES + i * 4, 4);
    memset(blk + CYG_HDR_BYTES, 0, (size_t)avail * 8);
    /* The 32-bit head wrapped: slot head holds something other than the fill (14.4). */
    if ((r->flags & CYG_F_OVERWRITE) && head < r->cap && head < avail && w[head] != CYG4_FILL)
        head += (uint64_t)1 << 32;
    if (r->flags & CYG_F_OVERWRITE) {
        end = head;
        first = end > r->cap ? end - r->cap : 0;
    } else {
        end = head < r->cap ? head : r->cap;
        first = 0;
    }
    x.r = r;
    x.w = w;
    x.avail = avail;
    x.out = blk + CYG_HDR_BYTES;
    x.f = r->rec4 & CYG4_FN_MASK;
    x.t = 30 - x.f;
    x.tmask = ((uint64_t)1 << x.t) - 1;
    x.cmask = r->ts_bits >= 32 ? 0xffffffffu : ((uint64_t)1 << r->ts_bits) - 1;
    x.down = (r->flags & CYG_F_TS_DOWN) != 0;
    x.stamps = (r->flags & CYG_F_TIMESTAMPS) != 0;
    rewrite(&x, first, end);
    /* The slot head of a wrapped counter must read as written to the decoder's same test. */
    if (head >= ((uint64_t)1 << 32) && le_get(blk + CYG_HDR_BYTES + r->head * 8, 8) == 0)
        le_put(blk + CYG_HDR_BYTES + r->head * 8, 1, 4);
    free(w);
    /* The block of a version 1 (3 with the area) ring of 8-byte records, resealed. */
    le_put(blk + CYG_OFF_VERSION, area || (r->rec4 & CYG4_AREA) ? 3 : 1, 2);
    blk[CYG_OFF_REC] = 8;
    blk[CYG_OFF_REC4] = 0;
    blk[CYG_OFF_TS_BITS] = CYG32_TS_BITS;
    blk[CYG_OFF_FLAGS] = (uint8_t)(r->flags & ~CYG_F_TS_DOWN);
    le_put(blk + CYG_OFF_TEXT_BASE, 0, 4);
    le_put(blk + CYG_OFF_CHECK, crc32_update(0, blk, CYG_OFF_CHECK), 4);
    if (!(m = src_open_mem(src_name(s), buf, n, 1))) {
        free(buf);
        snprintf(err, errlen, "%s: out of memory", src_name(s));
        return NULL;
    }
    if (hdr_locate(m, out, why, sizeof why) < 0) {
        snprintf(err, errlen, "%s", why);
        src_close(m);
        return NULL;
    }
    if (out->ctrl_state == DEC_CTRL_SHORT)
        out->ctrl_end = size; /* where the dump itself ends, not its rewriting */
    out->version = CYG_VERSION4;
    out->rec4 = r->rec4;
    out->text_base = r->text_base;
    out->expanded = 4;
    return m;
}
