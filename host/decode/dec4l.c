/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dec4l.c - version 4 rings of 64-bit Linux (docs/FORMAT.md section 15), read as the version 3
 * ring they stand for: a view of the source (src_set_view) that turns each chunk of one-word
 * records into 16-byte records with the thread index, the whole address and a 50-bit time, so
 * that the decoder, its index, holes and counts, and every command read both alike.
 *
 * A chunk is read whole, whatever part of it is asked for: its first word names its thread and
 * its epoch. A word that is not its slot's (lap bit, tag), a chunk without its CHUNK word, a
 * special without its extension, reads as a slot never written (zeros). CHUNK, EPOCH and
 * extension words read as PAD records: no event. */
#include "decode/dec4l.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crc32.h"
#include "cyg_format.h"
#include "cyg_v4l.h"
#include "util/le.h"

#define V3_REC 16u

struct v4l {
    uint64_t base;      /* the control block's offset in the source */
    unsigned cap_log2;
    unsigned chunk_log2;
    uint64_t cap;
    uint64_t raw_size;  /* the source's own size, at attach */
    uint8_t blk[CYG_HDR_BYTES]; /* the block as read at attach (the check's fields) */
};

int dec4l_is(const uint8_t *p, size_t len)
{
    return len >= CYG_HDR_BYTES && !memcmp(p, "CYGTRACE", 8) &&
           le_get(p + CYG_OFF_VERSION, 2) == CYG_V4L_VERSION && p[CYG_OFF_WORD] == 8;
}

/* What is wrong with a version 4 block of 64-bit Linux, or NULL. */
static const char *v4l_bad(const uint8_t *p)
{
    if (crc32_bits(0, p, CYG_OFF_CHECK) != (uint32_t)le_get(p + CYG_OFF_CHECK, 4))
        return "control block: check (CRC-32) mismatch";
    if (p[CYG_OFF_REC] != CYG_V4L_REC_BYTES || (p[CYG_OFF_FLAGS] & CYG_F_CALLSITES))
        return "control block: a version 4 record of 64-bit Linux is one 8-byte word";
    if (p[CYG_V4L_OFF_EPOCH_SHIFT] != CYG_V4L_EPOCH_SHIFT ||
        p[CYG_V4L_OFF_REGION_BITS] != CYG_V4L_REGION_BITS ||
        p[CYG_V4L_OFF_REGIONS] != CYG_V4L_REGIONS || p[CYG_V4L_OFF_TAG_BITS] != CYG_V4L_TAG_BITS ||
        p[CYG_OFF_TS_BITS] != CYG_V4L_TS_BITS)
        return "control block: a version 4 layout this cygtrace does not know";
    if (p[CYG_OFF_CAP_LOG2] < 2 || p[CYG_OFF_CAP_LOG2] > 40 || p[CYG_OFF_CHUNK_LOG2] < 1 ||
        p[CYG_OFF_CHUNK_LOG2] > p[CYG_OFF_CAP_LOG2] || p[CYG_OFF_CHUNK_LOG2] > 16 ||
        le_get(p + CYG_OFF_HDR, 4) != CYG_HDR_BYTES)
        return "control block: capacity, chunk or header size out of range";
    return NULL;
}

/* Where the records end in the source, and the control area and the region table start. */
static uint64_t raw_ctrl(const struct v4l *v)
{
    return v->base + CYG_HDR_BYTES + v->cap * 8u;
}

static uint64_t virt_ctrl(const struct v4l *v)
{
    return v->base + CYG_HDR_BYTES + v->cap * V3_REC;
}

static uint64_t v4l_size(void *ctx, const struct src *s)
{
    const struct v4l *v = ctx;
    uint64_t r = v->raw_size, rec_end = raw_ctrl(v);

    (void)s;
    if (r <= v->base + CYG_HDR_BYTES)
        return r;
    if (r < rec_end)
        return v->base + CYG_HDR_BYTES + (r - v->base - CYG_HDR_BYTES) / 8u * V3_REC;
    return virt_ctrl(v) + (r - rec_end < CYG_CTRL_BYTES ? r - rec_end : CYG_CTRL_BYTES);
}

void dec4l_block(const uint8_t *raw, uint8_t *out)
{
    uint32_t crc;

    memmove(out, raw, CYG_HDR_BYTES);
    out[CYG_OFF_VERSION] = 3;
    out[CYG_OFF_VERSION + 1] = 0;
    out[CYG_OFF_REC] = V3_REC;
    out[CYG_OFF_TS_BITS] = CYG_V4L_TIME_BITS;
    out[CYG_OFF_FLAGS] |= CYG_F_LAPTAG | CYG_F_THREADS;
    memset(out + CYG_V4L_OFF_EPOCH_SHIFT, 0, 4); /* reserved in version 3 */
    crc = crc32_bits(0, out, CYG_OFF_CHECK);
    for (unsigned i = 0; i < 4; i++)
        out[CYG_OFF_CHECK + i] = (uint8_t)(crc >> (8 * i));
}

/* The block as a version 3 ring's: 16-byte records, 50-bit times; sealed again. */
static int virt_block(struct v4l *v, struct src *s, uint8_t *out)
{
    if (src_read_raw(s, v->base, out, CYG_HDR_BYTES) != CYG_HDR_BYTES)
        return -1;
    dec4l_block(out, out);
    return 0;
}

/* The sequence number slot holds as head h stands: the newest lap's. */
static uint64_t seq_of(const struct v4l *v, uint64_t slot, uint64_t h, int overwrite)
{
    if (!overwrite || h <= v->cap)
        return slot;
    return slot + ((h - 1 - slot) >> v->cap_log2 << v->cap_log2);
}

static int word_ok(const struct v4l *v, uint64_t w, uint64_t seq)
{
    return w != 0 && (w & CYG_V4L_LAPS) == cyg_v4l_laps(seq, v->cap_log2);
}

static void put_rec(uint8_t *o, uint64_t a, uint64_t b)
{
    le_put(o, a, 8);
    le_put(o + 8, b, 8);
}

/* A version 3 special of seq (FORMAT.md 3.2, tagged). */
static void put_special(uint8_t *o, uint64_t seq, unsigned cap_log2, unsigned type,
                        uint32_t thread, uint32_t data, uint64_t payload)
{
    put_rec(o, payload,
            cyg64_special_tag(seq, cap_log2) | CYG64_SPECIAL | (uint64_t)type << CYG64_TYPE_SHIFT |
                (uint64_t)thread << CYG64_STHREAD_SHIFT | data);
}

/* A version 3 call of seq; t the time in 50 bits. */
static void put_call(uint8_t *o, uint64_t seq, unsigned cap_log2, uint32_t thread, int exit,
                     uint64_t addr, uint64_t t)
{
    put_rec(o, (addr & CYG64_ADDR_MASK) | (uint64_t)thread << CYG64_THREAD_SHIFT,
            cyg64_lap_tag(seq, cap_log2) | (exit ? CYG64_EXIT : 0) | (t & CYG64_TAGGED_TS_MASK));
}

/* The time of low bits l under epoch base b: b plus (l - b) as a signed 24-bit step. */
static uint64_t time_of(uint64_t b, uint64_t l)
{
    uint64_t d = (l - b) & CYG_V4L_TS_MASK, sign = UINT64_C(1) << (CYG_V4L_TS_BITS - 1);

    return (b + ((d ^ sign) - sign)) & CYG64_TAGGED_TS_MASK;
}

void dec4l_chunk(const uint64_t *w, unsigned n, uint64_t seq0, unsigned cap_log2,
                 const uint64_t *regions, uint8_t *out)
{
    uint64_t h = w[0], b;
    uint32_t thread;

    memset(out, 0, (size_t)n * V3_REC);
    if (!word_ok(&(struct v4l){.cap_log2 = cap_log2}, h, seq0) ||
        (h & (CYG_V4L_SPECIAL | CYG_V4L_EXT)) != CYG_V4L_SPECIAL ||
        ((h >> CYG_V4L_TYPE_SHIFT) & 63u) != CYG_V4L_SP_CHUNK)
        return; /* no CHUNK word: nothing of the chunk is known to be whose */
    thread = (uint32_t)(h >> CYG_V4L_THREAD_SHIFT) & 0xffffu;
    b = (h & CYG_V4L_EPOCH_MASK) << CYG_V4L_EPOCH_SHIFT;
    put_special(out, seq0, cap_log2, CYG_SP_PAD, thread, 0, 0);
    for (unsigned i = 1; i < n; i++) {
        uint64_t x = w[i], seq = seq0 + i, data, payload, e;
        unsigned type;
        uint8_t *o = out + (size_t)i * V3_REC;

        if (!word_ok(&(struct v4l){.cap_log2 = cap_log2}, x, seq))
            continue;
        if (!(x & CYG_V4L_SPECIAL)) {
            uint64_t base = regions[(x >> CYG_V4L_REG_SHIFT) & 15u];

            if (base != 0)
                put_call(o, seq, cap_log2, thread, (x & CYG_V4L_EXIT) != 0,
                         base + ((x >> CYG_V4L_OFF_SHIFT) & CYG_V4L_OFF_MASK),
                         time_of(b, x & CYG_V4L_TS_MASK));
            continue;
        }
        if (x & CYG_V4L_EXT)
            continue; /* an extension without its head */
        type = (unsigned)(x >> CYG_V4L_TYPE_SHIFT) & 63u;
        data = x & CYG_V4L_DATA_MASK;
        if (type == CYG_V4L_SP_EPOCH) {
            b = (data & CYG_V4L_EPOCH_MASK) << CYG_V4L_EPOCH_SHIFT;
            put_special(o, seq, cap_log2, CYG_SP_PAD, thread, 0, 0);
            continue;
        }
        if (type == CYG_SP_PAD) {
            put_special(o, seq, cap_log2, CYG_SP_PAD, thread, 0, 0);
            continue;
        }
        if (type == CYG_V4L_SP_CHUNK)
            continue; /* only a chunk's first word */
        if (i + 1 >= n || !word_ok(&(struct v4l){.cap_log2 = cap_log2}, e = w[i + 1], seq + 1) ||
            (e & (CYG_V4L_SPECIAL | CYG_V4L_EXT)) != (CYG_V4L_SPECIAL | CYG_V4L_EXT))
            continue; /* a head without its extension */
        payload = ((data >> CYG_V4L_PHI_SHIFT) & 0xfffu) << 52 | (e & CYG_V4L_EXT_MASK);
        if (type == CYG_V4L_SP_CALL64)
            put_call(o, seq, cap_log2, thread, (data >> 31) & 1u, payload,
                     time_of(b, data & CYG_V4L_TS_MASK));
        else
            put_special(o, seq, cap_log2, type, thread, (uint32_t)data, payload);
        i++;
        put_special(o + V3_REC, seq + 1, cap_log2, CYG_SP_PAD, thread, 0, 0);
    }
}

void dec4l_copy(const uint8_t *recs, const uint8_t *table, unsigned cap_log2,
                unsigned chunk_log2, uint64_t seq, size_t n, uint8_t *out)
{
    const uint64_t chunk = UINT64_C(1) << chunk_log2, mask = (UINT64_C(1) << cap_log2) - 1;
    const uint64_t *r = (const void *)recs, *t = (const void *)table;
    uint64_t regions[CYG_V4L_REGIONS], *w = malloc((size_t)chunk * 8u);
    uint8_t *v = malloc((size_t)chunk * V3_REC);

    if (!w || !v) {
        memset(out, 0, n * V3_REC);
        goto out;
    }
    for (size_t done = 0; done < n;) {
        uint64_t at = seq + done, c = at & ~(chunk - 1), k = at - c,
                 m = chunk - k < n - done ? chunk - k : n - done;

        /* each word read once, whole; the table after them (an entry comes before its use) */
        for (uint64_t i = 0; i < chunk; i++)
            w[i] = __atomic_load_n(&r[(c + i) & mask], __ATOMIC_ACQUIRE);
        for (unsigned i = 0; i < CYG_V4L_REGIONS; i++)
            regions[i] = __atomic_load_n(&t[i], __ATOMIC_ACQUIRE);
        dec4l_chunk(w, (unsigned)chunk, c, cap_log2, regions, v);
        memcpy(out + done * V3_REC, v + k * V3_REC, (size_t)m * V3_REC);
        done += m;
    }
out:
    free(w);
    free(v);
}

/* Virtual slots [s0, s1) into out (16 bytes each): their chunks read whole, then cut. */
static int virt_records(struct v4l *v, struct src *s, uint64_t s0, uint64_t s1, uint8_t *out)
{
    uint64_t chunk = UINT64_C(1) << v->chunk_log2, c0 = s0 & ~(chunk - 1),
             c1 = (s1 + chunk - 1) & ~(chunk - 1), n = c1 - c0, h, regions[CYG_V4L_REGIONS];
    uint8_t hb[8], tb[CYG_V4L_TABLE_BYTES] = {0};
    uint64_t *w = malloc((size_t)n * 8u);
    uint8_t *vrec = malloc((size_t)n * V3_REC);
    long got;
    int overwrite, rc = -1;

    if (!w || !vrec)
        goto out;
    got = src_read_raw(s, v->base + CYG_HDR_BYTES + c0 * 8u, w, (size_t)n * 8u);
    if (got < 0)
        goto out;
    memset((uint8_t *)w + got, 0, (size_t)n * 8u - (size_t)got);
    for (uint64_t i = 0; i < n; i++)
        w[i] = le_get((uint8_t *)&w[i], 8);
    /* head after the words: a slot written since is a newer lap's, and reads as unwritten */
    if (src_read_raw(s, v->base + CYG_OFF_HEAD, hb, 8) != 8 ||
        src_read_raw(s, v->base + CYG_OFF_FLAGS, tb, 1) != 1)
        goto out;
    overwrite = (tb[0] & CYG_F_OVERWRITE) != 0;
    h = le_get(hb, 8);
    memset(tb, 0, sizeof tb);
    if (src_read_raw(s, raw_ctrl(v) + CYG_CTRL_BYTES, tb, sizeof tb) < 0)
        goto out;
    for (unsigned i = 0; i < CYG_V4L_REGIONS; i++)
        regions[i] = le_get(tb + 8 * i, 8);
    for (uint64_t c = 0; c < n; c += chunk)
        dec4l_chunk(w + c, (unsigned)chunk, seq_of(v, c0 + c, h, overwrite), v->cap_log2, regions,
                    vrec + c * V3_REC);
    memcpy(out, vrec + (s0 - c0) * V3_REC, (size_t)(s1 - s0) * V3_REC);
    rc = 0;
out:
    free(w);
    free(vrec);
    return rc;
}

static long v4l_read(void *ctx, struct src *s, uint64_t off, void *buf, size_t len)
{
    struct v4l *v = ctx;
    uint64_t size = v4l_size(ctx, s), recs = v->base + CYG_HDR_BYTES, ctrl = virt_ctrl(v);
    uint8_t *o = buf;
    size_t done = 0;

    if (off >= size)
        return 0;
    if (len > size - off)
        len = (size_t)(size - off);
    while (done < len) {
        uint64_t at = off + done;
        size_t want = len - done, n;

        if (at < v->base) { /* before the ring: the bytes as they are */
            n = want < v->base - at ? want : (size_t)(v->base - at);
            if (src_read_raw(s, at, o + done, n) != (long)n)
                return -1;
        } else if (at < recs) {
            uint8_t blk[CYG_HDR_BYTES];

            if (virt_block(v, s, blk) < 0)
                return -1;
            n = want < recs - at ? want : (size_t)(recs - at);
            memcpy(o + done, blk + (at - v->base), n);
        } else if (at < ctrl) {
            uint64_t s0 = (at - recs) / V3_REC, e = at + want < ctrl ? at + want : ctrl,
                     s1 = (e - recs + V3_REC - 1) / V3_REC, skip = (at - recs) % V3_REC;
            uint8_t *tmp;

            if (s1 - s0 > 65536) /* a window at a time */
                s1 = s0 + 65536;
            if (!(tmp = malloc((size_t)(s1 - s0) * V3_REC)))
                return -1;
            if (virt_records(v, s, s0, s1, tmp) < 0) {
                free(tmp);
                return -1;
            }
            n = (size_t)((s1 - s0) * V3_REC - skip);
            if (n > want)
                n = want;
            if (n > e - at)
                n = (size_t)(e - at);
            memcpy(o + done, tmp + skip, n);
            free(tmp);
        } else { /* the control area */
            n = want;
            if (src_read_raw(s, raw_ctrl(v) + (at - ctrl), o + done, n) != (long)n)
                return -1;
        }
        done += n;
    }
    return (long)len;
}

/* The virtual records hold as much data as the words behind them. */
static uint64_t v4l_data(void *ctx, struct src *s, uint64_t off, uint64_t len)
{
    struct v4l *v = ctx;
    uint64_t recs = v->base + CYG_HDR_BYTES;

    if (off < recs || off >= virt_ctrl(v))
        return len;
    return 2 * src_data_bytes_raw(s, recs + (off - recs) / 2, len / 2);
}

static const struct src_view v4l_view = {v4l_read, v4l_data, v4l_size, free};

int dec4l_attach(struct src *s, char *why, size_t whylen)
{
    uint8_t blk[CYG_HDR_BYTES];
    const char *bad;
    struct v4l *v;

    if (src_read_raw(s, 0, blk, sizeof blk) != (long)sizeof blk || !dec4l_is(blk, sizeof blk))
        return 0;
    if ((bad = v4l_bad(blk)) != NULL) {
        snprintf(why, whylen, "%s", bad);
        return -1;
    }
    if (!(v = calloc(1, sizeof *v))) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    v->base = 0;
    v->cap_log2 = blk[CYG_OFF_CAP_LOG2];
    v->chunk_log2 = blk[CYG_OFF_CHUNK_LOG2];
    v->cap = UINT64_C(1) << v->cap_log2;
    v->raw_size = src_size_raw(s);
    memcpy(v->blk, blk, sizeof blk);
    src_set_view(s, &v4l_view, v);
    return 1;
}
