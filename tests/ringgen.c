/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ringgen.c - see ringgen.h. */
#include "ringgen.h"

#include <stdlib.h>
#include <string.h>

#include "crc32.h"
#include "cyg_format.h"

static void put(uint8_t *p, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++, v >>= 8)
        p[i] = (uint8_t)v;
}

void rg_init(struct ringgen *g, unsigned word, unsigned cap_log2, unsigned flags)
{
    memset(g, 0, sizeof *g);
    g->word = word;
    g->cap_log2 = cap_log2;
    g->flags = flags | CYG_F_TIMESTAMPS | (word == 8 ? CYG_F_THREADS : 0);
    g->rec = word * ((flags & CYG_F_CALLSITES) ? 4 : 2);
    g->version = CYG_VERSION;
    g->size = CYG_HDR_BYTES + ((size_t)g->rec << cap_log2) + CYG_CTRL_BYTES;
    g->buf = calloc(1, g->size);
    if (g->buf) {
        uint8_t *c = rg_ctrl(g);

        put(c + CYG_CTRL_OFF_MAGIC, CYG_CTRL_MAGIC, 4);
        put(c + CYG_CTRL_OFF_EVENTS, 0xffffffffu, 4);
        c[CYG_CTRL_OFF_GATE] = 1;
    }
}

uint8_t *rg_ctrl(struct ringgen *g)
{
    return g->buf + CYG_HDR_BYTES + ((size_t)g->rec << g->cap_log2);
}

void rg_trigger(struct ringgen *g, unsigned i, unsigned kind, uint64_t what, uint32_t after,
                unsigned flags)
{
    uint8_t *c = rg_ctrl(g), *t = c + CYG_CTRL_OFF_TRIG + i * CYG_CTRL_TRIG_BYTES;

    put(t + CYG_TRIG_OFF_WHAT, what, 8);
    put(t + CYG_TRIG_OFF_AFTER, after, 4);
    t[CYG_TRIG_OFF_KIND] = (uint8_t)kind;
    t[CYG_TRIG_OFF_FLAGS] = (uint8_t)flags;
    if (c[CYG_CTRL_OFF_NTRIG] <= i)
        c[CYG_CTRL_OFF_NTRIG] = (uint8_t)(i + 1);
}

void rg_fired(struct ringgen *g, unsigned i, unsigned kind, uint64_t fn, unsigned thread)
{
    rg_special(g, CYG_SP_TRIGGER, i | kind << CYG_TRIGD_KIND_SHIFT, fn, thread);
}

void rg_encode(unsigned word, unsigned cap_log2, uint64_t seq, int exit, uint64_t fn,
               uint64_t ts, unsigned thread, uint64_t *a, uint64_t *b)
{
    uint64_t lap = cyg_lap(seq, cap_log2);

    if (word == 8) {
        *a = (uint64_t)thread << CYG64_THREAD_SHIFT | (fn & CYG64_ADDR_MASK);
        *b = lap << 63 | (exit ? CYG64_EXIT : 0) | (ts & CYG64_TS_MASK);
    } else {
        *a = (fn & ~(uint64_t)1) | (exit ? 1u : 0u);
        *b = lap << 31 | (ts & CYG32_TS_MASK);
    }
}

static uint8_t *slot(struct ringgen *g)
{
    return g->buf + CYG_HDR_BYTES + (g->head & (((uint64_t)1 << g->cap_log2) - 1)) * g->rec;
}

void rg_event(struct ringgen *g, int exit, uint64_t fn, uint64_t ts, unsigned thread,
              uint64_t site)
{
    uint64_t a, b;
    uint8_t *p = slot(g);

    rg_encode(g->word, g->cap_log2, g->head, exit, fn, ts, thread, &a, &b);
    if (g->word == 8 && (g->flags & CYG_F_LAPTAG))
        b = cyg64_lap_tag(g->head, g->cap_log2) | (exit ? CYG64_EXIT : 0) |
            (ts & CYG64_TAGGED_TS_MASK);
    put(p, a, g->word);
    put(p + g->word, b, g->word);
    if (g->flags & CYG_F_CALLSITES) {
        put(p + 2 * g->word, site, g->word);
        put(p + 3 * g->word, 0, g->word);
    }
    g->head++;
}

void rg_special(struct ringgen *g, unsigned type, uint64_t data, uint64_t payload,
                unsigned thread)
{
    uint64_t lap = cyg_lap(g->head, g->cap_log2), b;
    uint8_t *p = slot(g);

    if (g->word == 8 && (g->flags & CYG_F_LAPTAG))
        b = cyg64_special_tag(g->head, g->cap_log2) | CYG64_SPECIAL |
            (uint64_t)type << CYG64_TYPE_SHIFT | (uint64_t)thread << CYG64_STHREAD_SHIFT |
            (data & CYG64_TAGGED_DATA_MASK);
    else if (g->word == 8)
        b = lap << 63 | CYG64_SPECIAL | (uint64_t)type << CYG64_TYPE_SHIFT |
            (uint64_t)thread << CYG64_STHREAD_SHIFT | (data & CYG64_DATA_MASK);
    else
        b = lap << 31 | CYG32_SPECIAL | (uint64_t)type << CYG32_TYPE_SHIFT |
            (data & CYG32_DATA_MASK);
    put(p, payload, g->word);
    put(p + g->word, b, g->word);
    g->head++;
}

void rg_skip(struct ringgen *g)
{
    g->head++;
}

void rg_seal(struct ringgen *g, uint64_t lost, unsigned state)
{
    uint8_t *p = g->buf;

    memcpy(p, CYG_MAGIC, 8);
    put(p + CYG_OFF_VERSION, g->version, 2);
    if (g->version < 3)
        g->size = CYG_HDR_BYTES + ((size_t)g->rec << g->cap_log2);
    p[CYG_OFF_WORD] = (uint8_t)g->word;
    p[CYG_OFF_REC] = (uint8_t)g->rec;
    p[CYG_OFF_CAP_LOG2] = (uint8_t)g->cap_log2;
    p[CYG_OFF_FLAGS] = (uint8_t)g->flags;
    put(p + CYG_OFF_MACHINE, g->word == 8 ? 62 : 40, 2);
    put(p + CYG_OFF_HDR, CYG_HDR_BYTES, 4);
    p[CYG_OFF_CHUNK_LOG2] = (uint8_t)g->chunk_log2;
    p[CYG_OFF_TS_BITS] =
        (uint8_t)(g->ts_bits                      ? g->ts_bits
                  : g->word == 4                  ? CYG32_TS_BITS
                  : (g->flags & CYG_F_LAPTAG)     ? CYG64_TAGGED_TS_BITS
                                                  : CYG64_TS_BITS);
    put(p + CYG_OFF_CHECK, crc32_update(0, p, CYG_OFF_CHECK), 4);
    p[CYG_OFF_STATE] = (uint8_t)state;
    put(p + CYG_OFF_HEAD, g->word == 4 ? (g->head & 0xffffffffu) : g->head, 8);
    put(p + CYG_OFF_LOST, lost, 8);
    put(p + CYG_OFF_TS_HZ, 1000000000u, 8);
}

void rg_two_threads(struct ringgen *g, unsigned flags)
{
    rg_init(g, 8, 4, flags);
    rg_event(g, 0, 0x1000, 1, 0, 0);
    rg_event(g, 0, 0x2000, 2, 1, 0);
    rg_event(g, 0, 0x1100, 3, 0, 0);
    rg_event(g, 1, 0x1100, 4, 0, 0);
    rg_event(g, 1, 0x2000, 5, 1, 0);
    rg_event(g, 1, 0x1000, 6, 0, 0);
}

void rg_free(struct ringgen *g)
{
    free(g->buf);
    g->buf = NULL;
}
