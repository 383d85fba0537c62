/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_dec.c - the decoder against rings built byte by byte. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cyg_format.h"
#include "decode/dec.h"
#include "decode/hdr.h"
#include "ringgen.h"
#include "suites.h"
#include "model/pipeline.h"
#include "model/tree.h"

struct decoded {
    struct dec_ring r;
    struct ev ev[256];
    unsigned n;
    struct dec_stats st;
};

/* dec_count over the same ring must agree with the events dec_next gave, one by one (the
 * scan that tree, report and export make of a stream, tree_scan_add): the same statistics,
 * and per context the same counts, starting depth, open calls and thread id. */
static void check_count(struct src *s, const struct decoded *d)
{
    struct dec *dc = dec_open(s, &d->r);
    struct dec_counts c = {0};
    struct tree_scan sc = {0};
    struct dec_stats st;
    unsigned enters = 0;

    if (d->n == 256) { /* more than the test kept */
        dec_close(dc);
        return;
    }
    ck_assert_int_eq(dec_count(dc, &c), 0);
    dec_get_stats(dc, &st);
    ck_assert_mem_eq(&st, &d->st, sizeof st);
    for (unsigned i = 0; i < d->n; i++)
        ck_assert_int_eq(tree_scan_add(&sc, &d->ev[i]), 0);
    ck_assert_uint_eq(c.n, sc.n);
    for (unsigned k = 0; k < c.n; k++) {
        const struct dec_ctx *want = &sc.ctx[k];

        ck_assert_uint_eq(c.ctx[k].id, want->id);
        ck_assert_uint_eq(c.ctx[k].events, want->events);
        ck_assert_int_eq(c.ctx[k].min_depth, want->min_depth);
        ck_assert_uint_eq(c.ctx[k].n_open, want->n_open);
        ck_assert_uint_eq(c.ctx[k].os_tid, want->os_tid);
    }
    tree_scan_free(&sc);
    for (unsigned i = 0; i < d->n; i++) { /* every context is there */
        unsigned k = 0;

        while (k < c.n && c.ctx[k].id != d->ev[i].ctx)
            k++;
        ck_assert_uint_lt(k, c.n);
    }
    for (unsigned i = 0; i < d->n; i++)
        if (d->ev[i].kind == EV_ENTER && enters < DEC_COUNT_FIRST)
            ck_assert_uint_eq(c.first[enters++], d->ev[i].addr);
    ck_assert_uint_eq(c.n_first, enters);
    dec_ctx_free(c.ctx, c.n, &c.ctx_ix);
    dec_close(dc);
}

/* Decodes the generated ring (len bytes of it) into d; returns hdr_locate's result. */
static int decode_buf(const uint8_t *buf, size_t len, struct decoded *d)
{
    struct src *s = src_open_mem("test", (void *)buf, len, 0);
    char why[256] = "";
    struct dec *dc;
    int rc;

    memset(d, 0, sizeof *d);
    ck_assert_ptr_nonnull(s);
    rc = hdr_locate(s, &d->r, why, sizeof why);
    if (rc == 0) {
        dc = dec_open(s, &d->r);
        ck_assert_ptr_nonnull(dc);
        while (d->n < 256 && dec_next(dc, &d->ev[d->n]) > 0)
            d->n++;
        dec_get_stats(dc, &d->st);
        dec_close(dc);
        check_count(s, d);
    }
    src_close(s);
    return rc;
}

static void decode(struct ringgen *g, struct decoded *d)
{
    ck_assert_int_eq(decode_buf(g->buf, g->size, d), 0);
}

START_TEST(test_dec_events_in_order)
{
    struct ringgen g;
    struct decoded d;

    rg_init(&g, 8, 4, CYG_F_OVERWRITE);
    rg_special(&g, CYG_SP_THREAD, 0, 4242, 1);
    rg_event(&g, 0, 0x555555555149, 100, 1, 0);
    rg_event(&g, 0, 0x555555555200, 110, 2, 0);
    rg_event(&g, 1, 0x555555555149, 150, 1, 0);
    rg_seal(&g, 0, CYG_S_RUNNING);
    decode(&g, &d);
    ck_assert_uint_eq(d.n, 4);
    ck_assert_uint_eq(d.ev[0].kind, EV_THREAD);
    ck_assert_uint_eq(d.ev[0].addr, 4242);
    ck_assert_uint_eq(d.ev[0].ctx, 1);
    ck_assert_uint_eq(d.ev[1].kind, EV_ENTER);
    ck_assert_uint_eq(d.ev[1].addr, 0x555555555149);
    ck_assert_uint_eq(d.ev[1].time, 100);
    ck_assert_uint_eq(d.ev[2].ctx, 2);
    ck_assert_uint_eq(d.ev[3].kind, EV_EXIT);
    ck_assert_uint_eq(d.ev[3].time, 150);
    ck_assert_uint_eq(d.ev[3].seq, 3);
    ck_assert_uint_eq(d.st.unwritten + d.st.overwritten + d.st.truncated, 0);
    rg_free(&g);
}
END_TEST

START_TEST(test_dec_wrapped_keeps_newest)
{
    struct ringgen g;
    struct decoded d;

    rg_init(&g, 8, 3, CYG_F_OVERWRITE); /* 8 records */
    for (unsigned i = 0; i < 20; i++)
        rg_event(&g, (int)(i & 1), 0x1000 + i, i, 1, 0);
    rg_seal(&g, 0, CYG_S_RUNNING);
    decode(&g, &d);
    ck_assert_uint_eq(d.n, 8);
    ck_assert_uint_eq(d.st.overwritten, 12);
    for (unsigned i = 0; i < 8; i++) {
        ck_assert_uint_eq(d.ev[i].seq, 12 + i);
        ck_assert_uint_eq(d.ev[i].addr, 0x1000 + 12 + i);
    }
    rg_free(&g);
}
END_TEST

/* A slot reserved but never written is skipped, in the first lap (zeroed memory) and in a
 * later one (the previous lap's record is still there, with the other lap bit). */
START_TEST(test_dec_unwritten_slots_skipped)
{
    struct ringgen g;
    struct decoded d;

    rg_init(&g, 8, 2, CYG_F_OVERWRITE); /* 4 records */
    rg_event(&g, 0, 0xa0, 1, 1, 0);
    rg_skip(&g);
    rg_event(&g, 1, 0xa0, 3, 1, 0);
    rg_seal(&g, 0, CYG_S_RUNNING);
    decode(&g, &d);
    ck_assert_uint_eq(d.n, 2);
    ck_assert_uint_eq(d.st.unwritten, 1);

    rg_event(&g, 0, 0xb0, 4, 1, 0); /* seq 3 */
    rg_event(&g, 0, 0xc0, 5, 1, 0); /* seq 4: lap 2 begins at slot 0 */
    rg_skip(&g);                    /* seq 5: slot 1 holds nothing from lap 1 either */
    rg_skip(&g);                    /* seq 6: slot 2 holds lap 1's exit of 0xa0 */
    rg_event(&g, 1, 0xc0, 8, 1, 0); /* seq 7 */
    rg_seal(&g, 0, CYG_S_RUNNING);
    decode(&g, &d);
    ck_assert_uint_eq(d.n, 2);
    ck_assert_uint_eq(d.ev[0].addr, 0xc0);
    ck_assert_uint_eq(d.ev[1].addr, 0xc0);
    ck_assert_uint_eq(d.st.unwritten, 2);
    rg_free(&g);
}
END_TEST

/* A chunked ring (chunks of 4): thread 1 fills chunk 0 but its last slot (a kill between its
 * reservation and its store: a hole), thread 2 pads the end of chunk 1 (it ended), thread 1
 * leaves the end of chunk 2 unused (it was still running). Each thread's events come in its
 * order; the hole is an EV_HOLE of thread 1, where it lies; the unused ends are unwritten, not
 * holes; the padding is no event. */
START_TEST(test_dec_chunks)
{
    struct ringgen g;
    struct decoded d;

    rg_init(&g, 8, 4, CYG_F_OVERWRITE | CYG_F_THREADS | CYG_F_LAPTAG); /* 16 records */
    g.chunk_log2 = 2;
    rg_event(&g, 0, 0xa0, 1, 1, 0); /* chunk 0: thread 1 */
    rg_skip(&g);
    rg_event(&g, 0, 0xb0, 3, 1, 0);
    rg_skip(&g);                    /* the end of chunk 0: after 0xb0, nothing */
    rg_event(&g, 0, 0xc0, 2, 2, 0); /* chunk 1: thread 2 */
    rg_special(&g, CYG_SP_PAD, 0, 0, 2);
    rg_special(&g, CYG_SP_PAD, 0, 0, 2);
    rg_special(&g, CYG_SP_PAD, 0, 0, 2);
    rg_event(&g, 1, 0xb0, 4, 1, 0); /* chunk 2: thread 1 again */
    rg_skip(&g);
    rg_skip(&g);
    rg_skip(&g);
    rg_seal(&g, 0, CYG_S_RUNNING);
    decode(&g, &d);
    ck_assert_uint_eq(d.n, 5);
    ck_assert_uint_eq(d.ev[0].addr, 0xa0);
    ck_assert_uint_eq(d.ev[1].kind, EV_HOLE); /* a record of thread 1's is missing there */
    ck_assert_uint_eq(d.ev[1].ctx, 1);
    ck_assert_uint_eq(d.ev[1].seq, 1);
    ck_assert_uint_eq(d.ev[2].addr, 0xb0);
    ck_assert_uint_eq(d.ev[3].addr, 0xc0);
    ck_assert_uint_eq(d.ev[3].ctx, 2);
    ck_assert_uint_eq(d.ev[4].kind, EV_EXIT);
    ck_assert_uint_eq(d.st.unwritten, 5);
    ck_assert_uint_eq(d.st.holes, 1);
    ck_assert_uint_eq(d.st.padding, 3);
    ck_assert_uint_eq(d.st.decoded + d.st.unwritten + d.st.padding, 12);
    rg_free(&g);
}
END_TEST

/* A chunk's last slot under a record stored two laps late (its lap bit right, its tag not):
 * whatever the chunk's thread stored there is lost, so it is a hole (a gap for every thread),
 * not the unused end of a chunk, which the end of the next chunk shows for comparison: the
 * previous lap's records (_i 0: the other lap bit), or (_i 1) records of two laps before, a
 * run of them with the lap bit of this lap, as an end left unused for two laps holds. */
START_TEST(test_dec_chunk_end_late_store)
{
    struct ringgen g;
    struct decoded d;
    uint64_t a, b, seq;
    uint8_t *p;

    rg_init(&g, 8, 4, CYG_F_OVERWRITE | CYG_F_THREADS | CYG_F_LAPTAG); /* 16 records */
    g.chunk_log2 = 2;
    for (unsigned i = 0; i < 40; i++) /* laps 0 to 2 */
        rg_event(&g, (int)(i & 1), 0x1000 + (i & ~1u) * 16, 100 + i, 1, 0);
    rg_event(&g, 0, 0xa0, 200, 1, 0); /* seq 40..43: chunk 10, thread 1 */
    rg_event(&g, 1, 0xa0, 201, 1, 0);
    rg_event(&g, 0, 0xb0, 202, 1, 0);
    rg_skip(&g); /* seq 43: thread 1's exit of 0xb0 goes here, then a late store covers it */
    rg_event(&g, 0, 0xc0, 204, 2, 0); /* seq 44..47: chunk 11, thread 2, its end unused */
    rg_skip(&g);
    rg_skip(&g);
    rg_skip(&g);
    /* seq 43, the late store; 45..47, chunk 11's unused end as two laps before left it
     * (_i 1): the same lap bit as this lap's, another tag, and a run of them, no late store */
    for (seq = 43; seq < 48; seq++) {
        if (seq == 44 || (seq > 43 && _i == 0))
            continue;
        rg_encode(8, 4, seq - 32, 0, seq == 43 ? 0xdead0 : 0xdead8, 7, 3, &a, &b);
        b = cyg64_lap_tag(seq - 32, 4) | 7;
        p = g.buf + CYG_HDR_BYTES + (seq & 15) * 16;
        memcpy(p, &a, 8);
        memcpy(p + 8, &b, 8);
    }
    rg_seal(&g, 0, CYG_S_FROZEN);
    decode(&g, &d);
    for (unsigned i = 0; i < d.n; i++)
        ck_assert(d.ev[i].addr != 0xdead0 && d.ev[i].addr != 0xdead8);
    /* the hole is the chunk's thread's, 1, not the late store's, 3 */
    ck_assert_uint_eq(d.ev[d.n - 2].kind, EV_HOLE);
    ck_assert_uint_eq(d.ev[d.n - 2].seq, 43);
    ck_assert_uint_eq(d.ev[d.n - 2].ctx, 1);
    ck_assert_uint_eq(d.ev[d.n - 1].addr, 0xc0);
    ck_assert_uint_eq(d.st.unwritten, 4);
    ck_assert_uint_eq(d.st.holes, 1);
    rg_free(&g);
}
END_TEST

/* A writer preempted for two laps stores its record over another thread's, with the lap bit
 * its slot expects again: the lap tag (CYG_F_LAPTAG) tells it is stale, in both decoding loops.
 * A ring without the tag (older runtimes) cannot tell. */
START_TEST(test_dec_stale_record_lap_tag)
{
    for (int tagged = 0; tagged < 2; tagged++) {
        struct ringgen g;
        struct decoded d;
        uint64_t a, b, seq = 60;
        uint8_t *p;

        rg_init(&g, 8, 4, CYG_F_OVERWRITE | (tagged ? CYG_F_LAPTAG : 0)); /* 16 records */
        for (unsigned i = 0; i < 72; i++)
            rg_event(&g, (int)(i & 1), 0x1000 + (i & ~1u) * 16, 100 + i, 1, 0);
        /* seq 60's slot now holds what the writer of seq 28 (two laps before) stores late */
        rg_encode(8, 4, seq - 32, 0, 0xdead0, 7, 2, &a, &b);
        if (tagged)
            b = cyg64_lap_tag(seq - 32, 4) | 7;
        p = g.buf + CYG_HDR_BYTES + (seq & 15) * 16;
        memcpy(p, &a, 8);
        memcpy(p + 8, &b, 8);
        rg_seal(&g, 0, CYG_S_FROZEN);
        decode(&g, &d);
        ck_assert_uint_eq(d.n, tagged ? 15 : 16);
        ck_assert_uint_eq(d.st.unwritten, tagged ? 1 : 0);
        for (unsigned i = 0; i < d.n; i++)
            ck_assert(tagged ? d.ev[i].addr != 0xdead0 : 1);
        if (tagged) { /* the times carry no tag bits */
            ck_assert_uint_eq(d.ev[0].time, 100 + 56);
            ck_assert_uint_eq(d.ev[d.n - 1].time, 100 + 71);
        }
        rg_free(&g);
    }
}
END_TEST

/* The first store of a chunked writer (cyg_store: b ^ CYG64_STORE_FLIP, before word a and b
 * itself) by a writer late by a lap, over the record of the slot's next lap, or in its own
 * lap: no decoder takes it for a record, in any lap (the lap bit alone, flipped, reads as the
 * next lap in every other lap), a call record's or a special's. */
START_TEST(test_dec_store_flip)
{
    for (unsigned lap = 0; lap < 8; lap++)
        for (int late = 0; late < 2; late++)
            for (int special = 0; special < 2; special++) {
                struct ringgen g;
                struct decoded d;
                uint64_t a, b, seq = 16 * lap + 5, now = seq + (late ? 16 : 0);
                uint8_t *p;

                rg_init(&g, 8, 4, CYG_F_OVERWRITE | CYG_F_LAPTAG); /* 16 records */
                for (uint64_t i = 0; i < now + 8; i++)
                    rg_event(&g, (int)(i & 1), 0x1000 + (i & ~(uint64_t)1) * 16, 100 + i, 1, 0);
                rg_encode(8, 4, seq, 0, 0xdead0, 7, 2, &a, &b);
                b = special ? CYG64_SPECIAL | (uint64_t)CYG_SP_MARK << CYG64_TYPE_SHIFT |
                                  cyg64_special_tag(seq, 4) | 1
                            : cyg64_lap_tag(seq, 4) | 7;
                p = g.buf + CYG_HDR_BYTES + (now & 15) * 16;
                memcpy(p + 8, &(uint64_t){b ^ CYG64_STORE_FLIP}, 8);
                if (!late)
                    memcpy(p, &a, 8); /* its own a over the old one: a torn slot either way */
                rg_seal(&g, 0, CYG_S_FROZEN);
                decode(&g, &d);
                ck_assert_msg(d.st.unwritten == 1, "lap %u late %d special %d: %u unwritten",
                              lap, late, special, (unsigned)d.st.unwritten);
                for (unsigned i = 0; i < d.n; i++)
                    ck_assert(d.ev[i].addr != 0xdead0 && d.ev[i].kind != EV_MARK &&
                              d.ev[i].time != 7);
                rg_free(&g);
            }
}
END_TEST

/* The same for a special record: a thread's THREAD record stored laps late (seen in the kill
 * -9 trials) is refused by its 8-bit tag. */
START_TEST(test_dec_stale_special_lap_tag)
{
    struct ringgen g, old;
    struct decoded d;
    uint8_t *p;

    rg_init(&g, 8, 4, CYG_F_OVERWRITE | CYG_F_LAPTAG);
    rg_init(&old, 8, 4, CYG_F_OVERWRITE | CYG_F_LAPTAG);
    for (unsigned i = 0; i < 72; i++)
        rg_event(&g, (int)(i & 1), 0x1000 + (i & ~1u) * 16, 100 + i, 1, 0);
    old.head = 60 - 32; /* the THREAD record of seq 28, stored two laps late over seq 60 */
    rg_special(&old, CYG_SP_THREAD, 0, 4242, 4);
    p = g.buf + CYG_HDR_BYTES + (60 & 15) * 16;
    memcpy(p, old.buf + CYG_HDR_BYTES + (28 & 15) * 16, 16);
    ck_assert_uint_eq(p[15] >> 7, cyg_lap(60, 4)); /* the lap bit alone would pass it */
    rg_seal(&g, 0, CYG_S_FROZEN);
    decode(&g, &d);
    ck_assert_uint_eq(d.n, 15);
    ck_assert_uint_eq(d.st.unwritten, 1);
    for (unsigned i = 0; i < d.n; i++)
        ck_assert_uint_ne(d.ev[i].kind, EV_THREAD);

    rg_special(&g, CYG_SP_CONTEXT, 0xfffffffeu, 7, 1); /* in its place: data keeps 32 bits */
    rg_seal(&g, 0, CYG_S_FROZEN);
    decode(&g, &d);
    ck_assert_uint_eq(d.ev[d.n - 1].kind, EV_CONTEXT);
    ck_assert_uint_eq(d.ev[d.n - 1].data, 0xfffffffeu);
    rg_free(&g);
    rg_free(&old);
}
END_TEST

START_TEST(test_dec_stop_mode)
{
    struct ringgen g;
    struct decoded d;

    rg_init(&g, 8, 2, 0); /* stop when full, 4 records */
    for (unsigned i = 0; i < 4; i++)
        rg_event(&g, 0, 0x10 * (i + 1), i, 1, 0);
    g.head = 6; /* two more reservations were refused */
    rg_seal(&g, 2, CYG_S_FULL);
    decode(&g, &d);
    ck_assert_uint_eq(d.n, 4);
    ck_assert_uint_eq(d.ev[0].addr, 0x10);
    ck_assert_uint_eq(d.ev[3].addr, 0x40);
    ck_assert_uint_eq(d.r.lost, 2);
    ck_assert_uint_eq(d.st.overwritten, 0);
    rg_free(&g);
}
END_TEST

START_TEST(test_dec_truncated_dump)
{
    struct ringgen g;
    struct decoded d;

    rg_init(&g, 8, 3, CYG_F_OVERWRITE);
    for (unsigned i = 0; i < 6; i++)
        rg_event(&g, 0, 0x100 + i, i, 1, 0);
    rg_seal(&g, 0, CYG_S_RUNNING);
    /* cut in the middle of record 3 */
    ck_assert_int_eq(decode_buf(g.buf, CYG_HDR_BYTES + 3 * 16 + 7, &d), 0);
    ck_assert_uint_eq(d.n, 3);
    ck_assert_uint_eq(d.st.truncated, 3);
    rg_free(&g);
}
END_TEST

START_TEST(test_dec_ts_unwrap_32)
{
    struct ringgen g;
    struct decoded d;

    rg_init(&g, 4, 4, CYG_F_OVERWRITE);
    rg_event(&g, 0, 0xc60, CYG32_TS_MASK - 10, 0, 0);
    rg_event(&g, 0, 0xd00, 5, 0, 0); /* the 30-bit counter wrapped: +16 ticks */
    rg_event(&g, 1, 0xd00, 3, 0, 0); /* a small step back (interrupt between reserve and
                                        clock read): -2, not +2^30 */
    rg_event(&g, 1, 0xc60, 40, 0, 0);
    rg_seal(&g, 0, CYG_S_RUNNING);
    decode(&g, &d);
    ck_assert_uint_eq(d.n, 4);
    ck_assert_uint_eq(d.ev[1].time - d.ev[0].time, 16);
    ck_assert_uint_eq(d.ev[1].time - d.ev[2].time, 2);
    ck_assert_uint_eq(d.ev[3].time - d.ev[0].time, 51);
    ck_assert_uint_eq(d.ev[0].addr, 0xc60);
    ck_assert_uint_eq(d.ev[3].kind, EV_EXIT);
    rg_free(&g);
}
END_TEST

/* A 24-bit clock (SysTick): the block says so, and the host unwraps at 24 bits. */
START_TEST(test_dec_ts_unwrap_narrow_clock)
{
    struct ringgen g;
    struct decoded d;

    rg_init(&g, 4, 4, CYG_F_OVERWRITE);
    g.ts_bits = 24;
    rg_event(&g, 0, 0xc60, 0xfffff0, 0, 0);
    rg_event(&g, 1, 0xc60, 0x000010, 0, 0);
    rg_seal(&g, 0, CYG_S_RUNNING);
    decode(&g, &d);
    ck_assert_uint_eq(d.r.ts_bits, 24);
    ck_assert_uint_eq(d.ev[1].time - d.ev[0].time, 0x20);
    rg_free(&g);
}
END_TEST

/* A clock counting down (CYG_F_TS_DOWN: the Cortex-M runtime's SysTick, when the cycle
 * counter did not count): inverted, it goes up, and unwraps at its 24 bits. */
START_TEST(test_dec_ts_down)
{
    struct ringgen g;
    struct decoded d;

    rg_init(&g, 4, 4, CYG_F_OVERWRITE | CYG_F_TIMESTAMPS | CYG_F_TS_DOWN);
    g.ts_bits = 24;
    rg_event(&g, 0, 0xc60, 0x000030, 0, 0);
    rg_event(&g, 0, 0xd00, 0x000020, 0, 0);
    rg_event(&g, 1, 0xd00, 0x000008, 0, 0);
    rg_event(&g, 1, 0xc60, 0xfffff8, 0, 0); /* through 0 and the reload: 16 ticks */
    rg_seal(&g, 0, CYG_S_RUNNING);
    decode(&g, &d);
    ck_assert_uint_eq(d.n, 4);
    ck_assert_uint_eq(d.ev[1].time - d.ev[0].time, 0x10);
    ck_assert_uint_eq(d.ev[2].time - d.ev[1].time, 0x18);
    ck_assert_uint_eq(d.ev[3].time - d.ev[2].time, 0x10);
    ck_assert(!dec_times_stood(&d.st.calls));
    rg_free(&g);
}
END_TEST

/* A clock that never ran (a cycle counter its debug unit keeps off): the pass says so, with
 * the time they all have; one that ran, or a lone event, does not. */
START_TEST(test_dec_clock_stood)
{
    static const uint64_t ts[][4] = {{0, 0, 0, 0}, {7, 7, 7, 7}, {0, 0, 1, 0}, {5, 5, 5, 4}};
    struct ringgen g;
    struct decoded d;

    for (unsigned k = 0; k < 4; k++) {
        for (unsigned w = 4; w <= 8; w += 4) {
            rg_init(&g, w, 4, CYG_F_OVERWRITE | CYG_F_TIMESTAMPS);
            rg_event(&g, 0, 0xc60, ts[k][0], 0, 0);
            rg_special(&g, CYG_SP_MARK, 1, 2, 0);
            rg_event(&g, 0, 0xd00, ts[k][1], 0, 0);
            rg_event(&g, 1, 0xd00, ts[k][2], 0, 0);
            rg_event(&g, 1, 0xc60, ts[k][3], 0, 0);
            rg_seal(&g, 0, CYG_S_RUNNING);
            decode(&g, &d); /* and dec_count says the same (check_count) */
            ck_assert_uint_eq(d.st.calls.n, 4);
            ck_assert_int_eq(dec_times_stood(&d.st.calls), k < 2);
            if (k < 2)
                ck_assert_uint_eq(d.st.calls.ones, ts[k][0]);
            rg_free(&g);
        }
    }
    rg_init(&g, 4, 4, CYG_F_OVERWRITE | CYG_F_TIMESTAMPS);
    rg_event(&g, 0, 0xc60, 0, 0, 0);
    rg_seal(&g, 0, CYG_S_RUNNING);
    decode(&g, &d);
    ck_assert(!dec_times_stood(&d.st.calls));
    rg_free(&g);
}
END_TEST

START_TEST(test_dec_thumb_bit_and_contexts_32)
{
    struct ringgen g;
    struct decoded d;

    rg_init(&g, 4, 4, CYG_F_OVERWRITE);
    rg_event(&g, 0, 0xc61, 1, 0, 0); /* Thumb function address: bit 0 set */
    rg_special(&g, CYG_SP_CONTEXT, 7, 0x20001000, 0);
    rg_event(&g, 0, 0xd01, 2, 0, 0);
    rg_special(&g, CYG_SP_CONTEXT, 0, 0, 0);
    rg_event(&g, 1, 0xc61, 3, 0, 0);
    rg_seal(&g, 0, CYG_S_RUNNING);
    decode(&g, &d);
    ck_assert_uint_eq(d.n, 5);
    ck_assert_uint_eq(d.ev[0].addr, 0xc60);
    ck_assert_uint_eq(d.ev[0].ctx, 0);
    ck_assert_uint_eq(d.ev[1].kind, EV_CONTEXT);
    ck_assert_uint_eq(d.ev[1].data, 7);
    ck_assert_uint_eq(d.ev[2].ctx, 7);
    ck_assert_uint_eq(d.ev[4].ctx, 0);
    ck_assert_uint_eq(d.ev[4].kind, EV_EXIT);
    rg_free(&g);
}
END_TEST

/* A 32-bit target's counter wrapped past 2^32: head is small again, the ring is still full. */
START_TEST(test_dec_counter_wrap_32)
{
    struct ringgen g;
    struct decoded d;

    rg_init(&g, 4, 2, CYG_F_OVERWRITE);
    g.head = ((uint64_t)1 << 32) - 6;
    for (unsigned i = 0; i < 8; i++)
        rg_event(&g, 0, 0x100 + 2 * i, i, 0, 0);
    rg_seal(&g, 0, CYG_S_RUNNING); /* head stored as 2 */
    decode(&g, &d);
    ck_assert_uint_eq(d.r.head, 2);
    ck_assert_uint_eq(d.n, 4);
    ck_assert_uint_eq(d.ev[0].addr, 0x108);
    ck_assert_uint_eq(d.ev[3].addr, 0x10e);
    ck_assert_uint_eq(d.st.unwritten, 0);
    rg_free(&g);
}
END_TEST

START_TEST(test_dec_specials)
{
    struct ringgen g;
    struct decoded d;

    rg_init(&g, 4, 4, CYG_F_OVERWRITE);
    rg_event(&g, 0, 0x100, 9, 0, 0);
    rg_special(&g, CYG_SP_MARK, 3, 0xdeadbeef, 0);
    rg_special(&g, CYG_SP_FAULT, CYG_FAULT_HARD, 0x1235, 0);
    rg_special(&g, CYG_SP_FAULT_LR, CYG_FAULT_HARD, 0x1301, 0);
    rg_special(&g, 63, 1, 0, 0);
    rg_seal(&g, 0, CYG_S_FROZEN);
    decode(&g, &d);
    ck_assert_uint_eq(d.n, 5);
    ck_assert_uint_eq(d.ev[1].kind, EV_MARK);
    ck_assert_uint_eq(d.ev[1].data, 3);
    ck_assert_uint_eq(d.ev[1].addr, 0xdeadbeef);
    ck_assert_uint_eq(d.ev[1].time, 9); /* a special takes the time before it */
    ck_assert_uint_eq(d.ev[2].kind, EV_FAULT);
    ck_assert_uint_eq(d.ev[2].addr, 0x1235);
    ck_assert_uint_eq(d.ev[3].kind, EV_FAULT_LR);
    ck_assert_uint_eq(d.ev[4].kind, EV_UNKNOWN);
    ck_assert_uint_eq(d.ev[4].data, 63);
    rg_free(&g);
}
END_TEST

/* RTOS records (FORMAT.md 7.5), 32-bit: a TIME record is no event, but the clock: the CONTEXT
 * and SCHED records after it take its time, and the next call unwraps from it. */
START_TEST(test_dec_rtos_records_32)
{
    struct ringgen g;
    struct decoded d;

    rg_init(&g, 4, 5, CYG_F_OVERWRITE | CYG_F_TIMESTAMPS);
    rg_event(&g, 0, 0x100, 100, 0, 0);
    rg_special(&g, CYG_SP_TIME, 0, 5000, 0);
    rg_special(&g, CYG_SP_CONTEXT, 3, 0x20001000, 0);
    rg_special(&g, CYG_SP_SCHED, CYG_SCHED_RESUME | 7u << CYG_SCHED_ID_SHIFT, 0x20002000, 0);
    rg_special(&g, CYG_SP_NAME, CYG_NAME_OBJECT | 1u << CYG_NAME_OBJ_SHIFT, 0x20003000, 0);
    rg_special(&g, CYG_SP_NAME, 1 | CYG_NAME_LAST | 4u << CYG_NAME_LEN_SHIFT, 0x73626f6a, 0);
    rg_event(&g, 1, 0x100, 5010, 0, 0);
    rg_seal(&g, 0, CYG_S_FROZEN);
    decode(&g, &d);
    ck_assert_uint_eq(d.n, 6); /* the TIME record is none of them */
    ck_assert_uint_eq(d.ev[1].kind, EV_CONTEXT);
    ck_assert_uint_eq(d.ev[1].time, 5000);
    ck_assert_uint_eq(d.ev[2].kind, EV_SCHED);
    ck_assert_uint_eq(d.ev[2].data, CYG_SCHED_RESUME | 7u << CYG_SCHED_ID_SHIFT);
    ck_assert_uint_eq(d.ev[2].addr, 0x20002000);
    ck_assert_uint_eq(d.ev[2].ctx, 3);
    ck_assert_uint_eq(d.ev[2].time, 5000);
    ck_assert_uint_eq(d.ev[3].kind, EV_NAME);
    ck_assert_uint_eq(d.ev[3].addr, 0x20003000);
    ck_assert_uint_eq(d.ev[4].kind, EV_NAME);
    ck_assert_uint_eq(d.ev[4].data, 1 | CYG_NAME_LAST | 4u << CYG_NAME_LEN_SHIFT);
    ck_assert_uint_eq(d.ev[5].kind, EV_EXIT);
    ck_assert_uint_eq(d.ev[5].time, 5010);
    ck_assert_uint_eq(d.st.decoded, 6);
    rg_free(&g);
}
END_TEST

/* A TIME record of a narrow clock: two of them in a row step the clock further than half its
 * range, which no call record between says; the specials take each step. Without timestamps
 * it is skipped all the same. */
START_TEST(test_dec_rtos_time_narrow_clock)
{
    struct ringgen g;
    struct decoded d;

    rg_init(&g, 4, 5, CYG_F_OVERWRITE | CYG_F_TIMESTAMPS);
    g.ts_bits = 16;
    rg_event(&g, 0, 0x100, 60000, 0, 0);
    rg_special(&g, CYG_SP_TIME, 0, (60000 + 30000) & 0xffff, 0);
    rg_special(&g, CYG_SP_TIME, 0, (60000 + 60000) & 0xffff, 0);
    rg_special(&g, CYG_SP_CONTEXT, 2, 0x20001000, 0);
    rg_event(&g, 1, 0x100, (60000 + 60010) & 0xffff, 0, 0);
    rg_seal(&g, 0, CYG_S_FROZEN);
    decode(&g, &d);
    ck_assert_uint_eq(d.n, 3);
    ck_assert_uint_eq(d.ev[1].time, 120000);
    ck_assert_uint_eq(d.ev[2].time, 120010);
    rg_free(&g);

    rg_init(&g, 4, 5, CYG_F_OVERWRITE);
    rg_event(&g, 0, 0x100, 0, 0, 0);
    rg_special(&g, CYG_SP_TIME, 0, 0, 0);
    rg_event(&g, 1, 0x100, 0, 0, 0);
    rg_seal(&g, 0, CYG_S_FROZEN);
    decode(&g, &d);
    ck_assert_uint_eq(d.n, 2);
    rg_free(&g);
}
END_TEST

START_TEST(test_dec_callsites)
{
    struct ringgen g;
    struct decoded d;

    rg_init(&g, 4, 4, CYG_F_OVERWRITE | CYG_F_CALLSITES);
    rg_event(&g, 0, 0xc61, 1, 0, 0xd0f);
    rg_seal(&g, 0, CYG_S_RUNNING);
    decode(&g, &d);
    ck_assert_uint_eq(d.r.rec_bytes, 16);
    ck_assert_uint_eq(d.n, 1);
    ck_assert_uint_eq(d.ev[0].site, 0xd0f);
    rg_free(&g);
}
END_TEST

/* A whole-RAM image: the block sits somewhere inside; a lookalike with a bad checksum comes
 * first and must be passed over. */
START_TEST(test_dec_locate_in_ram_image)
{
    struct ringgen g;
    struct decoded d;
    size_t at = 0x11004, len = at + 0x8000;
    uint8_t *ram = malloc(len);

    for (size_t i = 0; i < len; i++)
        ram[i] = (uint8_t)(i * 2654435761u >> 13);
    rg_init(&g, 4, 5, CYG_F_OVERWRITE);
    rg_event(&g, 0, 0x200, 1, 0, 0);
    rg_event(&g, 1, 0x200, 2, 0, 0);
    rg_seal(&g, 0, CYG_S_FROZEN);
    memcpy(ram + 0x40, g.buf, CYG_HDR_BYTES);
    ram[0x40 + CYG_OFF_FLAGS] ^= 0x10; /* the lookalike */
    memcpy(ram + at, g.buf, g.size);
    ck_assert_int_eq(decode_buf(ram, len, &d), 0);
    ck_assert_uint_eq(d.r.off, at);
    ck_assert_uint_eq(d.n, 2);
    ck_assert_uint_eq(d.ev[1].kind, EV_EXIT);
    free(ram);
    rg_free(&g);
}
END_TEST

START_TEST(test_dec_refuses_junk)
{
    uint8_t junk[4096];
    struct decoded d;

    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (uint8_t)(i * 7 + 3);
    ck_assert_int_eq(decode_buf(junk, sizeof junk, &d), -1);
}
END_TEST

/* The depth a wrapped trace starts at, when a longjmp inside it skipped exits: main (0xA00)
 * -> outer (0xB00) -> work (0xC00, leaf calls of 0xF00), then protect (0xD00) longjmps out of
 * a five-deep recursion (0xE00), then work again. The ring keeps the end of the first work:
 * the trace starts three calls deep (work, outer, main), not one as calls minus returns say. */
START_TEST(test_dec_count_depth_after_longjmp)
{
    struct ringgen g;
    struct decoded d;
    struct src *s;
    struct dec *dc;
    struct dec_counts c = {0};
    uint64_t t = 0;

    rg_init(&g, 8, 4, CYG_F_OVERWRITE); /* 16 records */
    rg_event(&g, 0, 0xA00, t++, 1, 0);
    rg_event(&g, 0, 0xB00, t++, 1, 0);
    rg_event(&g, 0, 0xC00, t++, 1, 0);
    for (int i = 0; i < 10; i++) {
        rg_event(&g, 0, 0xF00, t++, 1, 0);
        rg_event(&g, 1, 0xF00, t++, 1, 0);
    }
    rg_event(&g, 1, 0xC00, t++, 1, 0);
    rg_event(&g, 0, 0xD00, t++, 1, 0);
    for (int i = 0; i < 5; i++)
        rg_event(&g, 0, 0xE00, t++, 1, 0);
    rg_event(&g, 1, 0xD00, t++, 1, 0); /* the longjmp skipped five exits */
    rg_event(&g, 0, 0xC00, t++, 1, 0);
    rg_event(&g, 0, 0xF00, t++, 1, 0);
    rg_event(&g, 1, 0xF00, t++, 1, 0);
    rg_event(&g, 1, 0xC00, t++, 1, 0);
    rg_event(&g, 1, 0xB00, t++, 1, 0);
    rg_event(&g, 1, 0xA00, t++, 1, 0);
    rg_seal(&g, 0, CYG_S_RUNNING);
    decode(&g, &d); /* dec_count and the scan of the events agree */
    ck_assert_uint_eq(d.n, 16);
    s = src_open_mem("test", g.buf, g.size, 0);
    ck_assert_ptr_nonnull(s);
    dc = dec_open(s, &d.r);
    ck_assert_ptr_nonnull(dc);
    ck_assert_int_eq(dec_count(dc, &c), 0);
    ck_assert_uint_eq(c.n, 1);
    ck_assert_int_eq(c.ctx[0].min_depth, -3);
    ck_assert_uint_eq(c.ctx[0].n_open, 0);
    dec_ctx_free(c.ctx, c.n, &c.ctx_ix);
    dec_close(dc);
    src_close(s);
    rg_free(&g);
}
END_TEST

/* The depth a trace starts at, when a longjmp the runtime recorded skipped a recursion's
 * exits: main (0xA00) -> parse (0xB00) -> parse, entered before the trace; the inner parse
 * sets a buffer, calls parse and expr (0xC00) again, which longjmps back. The exits of the two
 * parses and main then close the calls the trace starts inside: three, where the calls the
 * longjmp skipped, left open, would take the first parse exit for theirs and say two. */
START_TEST(test_dec_count_depth_setjmp_longjmp)
{
    struct ringgen g;
    struct decoded d;
    struct src *s;
    struct dec *dc;
    struct dec_counts c = {0};

    rg_init(&g, 8, 4, CYG_F_OVERWRITE); /* 16 records */
    rg_special(&g, CYG_SP_SETJMP, 0, 0x7ff000, 1);
    rg_event(&g, 0, 0xB00, 1, 1, 0);
    rg_event(&g, 0, 0xC00, 2, 1, 0);
    rg_special(&g, CYG_SP_LONGJMP, 0, 0x7ff000, 1);
    rg_event(&g, 1, 0xB00, 3, 1, 0);
    rg_event(&g, 1, 0xB00, 4, 1, 0);
    rg_event(&g, 1, 0xA00, 5, 1, 0);
    rg_seal(&g, 0, CYG_S_RUNNING);
    decode(&g, &d); /* dec_count and the scan of the events agree */
    ck_assert_uint_eq(d.n, 7);
    ck_assert_uint_eq(d.ev[0].kind, EV_SETJMP);
    ck_assert_uint_eq(d.ev[0].addr, 0x7ff000);
    ck_assert_uint_eq(d.ev[3].kind, EV_LONGJMP);
    s = src_open_mem("test", g.buf, g.size, 0);
    ck_assert_ptr_nonnull(s);
    dc = dec_open(s, &d.r);
    ck_assert_ptr_nonnull(dc);
    ck_assert_int_eq(dec_count(dc, &c), 0);
    ck_assert_uint_eq(c.n, 1);
    ck_assert_int_eq(c.ctx[0].min_depth, -3);
    ck_assert_uint_eq(c.ctx[0].n_open, 0);
    dec_ctx_free(c.ctx, c.n, &c.ctx_ix);
    dec_close(dc);
    src_close(s);
    rg_free(&g);
}
END_TEST

/* Random record bytes behind a valid header: whatever comes out obeys the lap rule, and the
 * decoder neither crashes nor returns more events than slots. */
START_TEST(test_dec_random_records)
{
    struct ringgen g;
    struct decoded d;

    srand(1234);
    for (int round = 0; round < 50; round++) {
        rg_init(&g, round & 1 ? 4 : 8, 6, round & 2 ? CYG_F_OVERWRITE : 0);
        for (size_t i = CYG_HDR_BYTES; i < g.size; i++)
            g.buf[i] = (uint8_t)rand();
        g.head = (uint64_t)rand() % 300;
        rg_seal(&g, 0, CYG_S_RUNNING);
        decode(&g, &d);
        ck_assert_uint_le(d.n, 64);
        ck_assert_uint_eq(d.n + d.st.unwritten + d.st.padding + d.st.times,
                          d.st.end_seq - d.st.first_seq);
        rg_free(&g);
    }
}
END_TEST

/* The events of one context, from a pass over all: what dec_only must give. */
static unsigned events_of(struct src *s, const struct dec_ring *r, uint32_t id, struct ev *v,
                          unsigned max)
{
    struct dec *dc = dec_open(s, r);
    unsigned n = 0;
    struct ev e;

    ck_assert_ptr_nonnull(dc);
    while (dec_next(dc, &e) > 0)
        if (e.ctx == id) {
            ck_assert_uint_lt(n, max);
            v[n++] = e;
        }
    dec_close(dc);
    return n;
}

/* Opens the generated ring as s, r and counts it into c (its want_index set by the caller). */
static void count_ring(const struct ringgen *g, struct src **s, struct dec_ring *r,
                       struct dec_counts *c)
{
    struct dec *dc;
    char why[256] = "";

    *s = src_open_mem("test", g->buf, g->size, 0);
    ck_assert_ptr_nonnull(*s);
    ck_assert_int_eq(hdr_locate(*s, r, why, sizeof why), 0);
    dc = dec_open(*s, r);
    ck_assert_ptr_nonnull(dc);
    ck_assert_int_eq(dec_count(dc, c), 0);
    dec_close(dc);
}

/* Frees what count_ring made, and the ring. */
static void uncount_ring(struct ringgen *g, struct src *s, struct dec_counts *c)
{
    dec_ctx_free(c->ctx, c->n, &c->ctx_ix);
    dec_index_free(&c->index);
    src_close(s);
    rg_free(g);
}

/* Context k of the count c, in a pass of its own through c's index (dec_only), gets the events
 * a pass over all gives it, times included; they are in want (room for max). Returns how
 * many. */
static unsigned only_agrees(struct src *s, const struct dec_ring *r, const struct dec_counts *c,
                            unsigned k, struct ev *want, struct ev *got, unsigned max)
{
    unsigned nw = events_of(s, r, c->ctx[k].id, want, max), ng = 0;
    struct dec *dc = dec_open(s, r);

    ck_assert_ptr_nonnull(dc);
    dec_only(dc, c->ctx[k].id, &c->index, c->ctx[k].segs);
    while (ng < max && dec_next(dc, &got[ng]) > 0)
        ng++;
    dec_close(dc);
    ck_assert_uint_eq(ng, nw);
    for (unsigned i = 0; i < nw; i++) {
        ck_assert_uint_eq(got[i].seq, want[i].seq);
        ck_assert_uint_eq(got[i].time, want[i].time);
        ck_assert_uint_eq(got[i].kind, want[i].kind);
        ck_assert_uint_eq(got[i].addr, want[i].addr);
    }
    return nw;
}

/* The ring of test_dec_only_index: 100000 events into 2^16 slots (it wraps), a 20-bit clock
 * that wraps every few thousand records. late: thread 1 alone for the first 50000 events, of
 * which the ring keeps the last 15535 (the index starts late, in the fourth window); else
 * threads 2 and 3 in runs of a few calls from the start, thread 1 now and then; a mark of
 * thread 1 at event 50000. */
static void only_ring(struct ringgen *g, int late)
{
    uint64_t t = 0;

    rg_init(g, 8, 16, CYG_F_OVERWRITE | CYG_F_TIMESTAMPS);
    g->ts_bits = 20;
    srand(99);
    for (unsigned n = 0; n < 100000; n += 2) {
        unsigned th =
            late ? (n < 50000 ? 1 : 2 + (n / 5) % 2) : (n % 20000 < 300 ? 1 : 2 + (n / 7) % 2);

        rg_event(g, 0, 0x1000 + 16 * th, t, th, 0);
        t += 1 + (unsigned)rand() % 700;
        rg_event(g, 1, 0x1000 + 16 * th, t, th, 0);
        t += 1 + (unsigned)rand() % 700;
        if (n == 50000)
            rg_special(g, CYG_SP_MARK, 7, 0x1234, 1);
    }
    rg_seal(g, 0, CYG_S_RUNNING);
}

/* A pass restricted to one thread, with the index dec_count built, gives that thread's events
 * exactly as a pass over all would, times included, while it skips the segments that hold
 * none of its records, and the clock wraps many times over what it skips. */
START_TEST(test_dec_only_index)
{
    static struct ev want[100000], got[100000];
    struct ringgen g;
    struct dec_ring r;
    struct src *s;

    for (int late = 0; late < 2; late++) {
        struct dec_counts c = {.want_index = 1};

        only_ring(&g, late);
        count_ring(&g, &s, &r, &c);
        ck_assert_uint_eq(c.index.n, 16); /* 2^16 slots, segments of 4096 */
        ck_assert_uint_eq(c.n, 3);
        for (unsigned k = 0; k < c.n; k++) {
            unsigned segs = 0;

            ck_assert_ptr_nonnull(c.ctx[k].segs);
            for (unsigned i = 0; i < c.index.n; i++)
                segs += (unsigned)(c.ctx[k].segs[0] >> i & 1);
            if (c.ctx[k].id == 1) /* its stretches and the mark, or its first 15535 slots */
                ck_assert_uint_le(segs, 4);
            ck_assert_uint_gt(only_agrees(s, &r, &c, k, want, got, 100000), 0);
        }
        uncount_ring(&g, s, &c);
    }
}
END_TEST

/* 64-bit rings, with and without lap tags: the same, and a pass of one thread (dec_only, with
 * the index) unwraps every time as a pass over all does, though the TIME records that step
 * the clock are another thread's. */
START_TEST(test_dec_rtos_time_64_only)
{
    static struct ev want[40000], got[40000];

    for (int tag = 0; tag < 2; tag++) {
        struct dec_counts c = {.want_index = 1};
        struct ringgen g;
        struct dec_ring r;
        struct src *s;
        uint64_t t = 0;

        rg_init(&g, 8, 15, CYG_F_OVERWRITE | CYG_F_TIMESTAMPS | (tag ? CYG_F_LAPTAG : 0));
        g.ts_bits = 20;
        for (unsigned n = 0; n < 40000; n++) {
            unsigned th = n % 9000 < 100 ? 1 : 2;

            rg_event(&g, n & 1, 0x1000 + 16 * th, t & 0xfffff, th, 0);
            t += 1 + n % 300;
            if (n % 50 == 49 && th == 2) { /* 800000 ticks: more than half the clock's range */
                t += 400000;
                rg_special(&g, CYG_SP_TIME, 0, t & 0xfffff, 2);
                t += 400000;
                rg_special(&g, CYG_SP_TIME, 0, t & 0xfffff, 2);
                rg_special(&g, CYG_SP_CONTEXT, 5, 0x20001000, 2);
            }
        }
        rg_seal(&g, 0, CYG_S_RUNNING);
        count_ring(&g, &s, &r, &c);
        ck_assert_uint_gt(c.index.n, 1);
        for (unsigned k = 0; k < c.n; k++) {
            unsigned nw = only_agrees(s, &r, &c, k, want, got, 40000);

            for (unsigned i = 0; i < nw; i++)
                ck_assert_uint_ne(want[i].kind, EV_TIME);
            if (c.ctx[k].id == 1) { /* its calls after a jump: the clock went on */
                ck_assert_uint_gt(nw, 100);
                ck_assert_uint_gt(want[nw - 1].time, (uint64_t)1 << 20);
            }
        }
        uncount_ring(&g, s, &c);
    }
}
END_TEST

/* A ring of one thread gets no index: its passes have nothing to skip. */
START_TEST(test_dec_index_one_context)
{
    struct ringgen g;
    struct dec_ring r;
    struct dec_counts c = {.want_index = 1};
    struct src *s;

    rg_init(&g, 8, 12, CYG_F_TIMESTAMPS);
    for (unsigned i = 0; i < 3000; i++)
        rg_event(&g, i & 1, 0x1000, i, 1, 0);
    rg_seal(&g, 0, CYG_S_RUNNING);
    count_ring(&g, &s, &r, &c);
    ck_assert_uint_eq(c.n, 1);
    ck_assert_uint_eq(c.index.n, 0);
    ck_assert_ptr_null(c.ctx[0].segs);
    uncount_ring(&g, s, &c);
}
END_TEST

/* A 64-bit ring whose head is near the counter's end, 2^64: the index's last segment then
 * ends past it, where the sequence numbers wrap, and dec_count went on for ever, taking every
 * record for the start of a segment it had started already (a 16-slot ring whose head is 5
 * short of 2^64: /tmp/core-hang/near.trace). Such a ring decodes as any other, each thread's
 * pass through the index included: rings of one segment (smaller than a segment, as that one)
 * and of several, heads at the very end and short of it by more than a segment. */
START_TEST(test_dec_index_head_near_2p64)
{
    static const struct {
        unsigned cap_log2, events;
        uint64_t short_of; /* the head is 2^64 minus this */
    } cases[] = {{4, 40, 5}, {4, 40, 1}, {4, 40, 4000}, {11, 5000, 1}, {11, 5000, 2000},
                 {4, 40, 5000}, {14, 20000, 1}};
    static struct ev want[20000], got[20000];

    for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct dec_counts c = {.want_index = 1};
        struct ringgen g;
        struct dec_ring r;
        struct src *s;

        rg_init(&g, 8, cases[i].cap_log2, CYG_F_OVERWRITE | CYG_F_TIMESTAMPS);
        g.head = UINT64_MAX - cases[i].short_of + 1 - cases[i].events;
        for (unsigned n = 0; n < cases[i].events; n++) /* threads 0 and 1 in runs of 7 */
            rg_event(&g, n & 1, 0x1000 + 16 * (n / 7 % 2), n, n / 7 % 2, 0);
        rg_seal(&g, 0, CYG_S_RUNNING);
        count_ring(&g, &s, &r, &c);
        ck_assert_uint_eq(r.head, -cases[i].short_of);
        ck_assert_uint_eq(c.n, 2);
        ck_assert_uint_gt(c.index.n, 0);
        for (unsigned k = 0; k < c.n; k++)
            ck_assert_uint_eq(only_agrees(s, &r, &c, k, want, got, 20000), c.ctx[k].events);
        uncount_ring(&g, s, &c);
    }
}
END_TEST

/* The chunk that ends at 2^64 (its last slot is 2^64 - 1): a slot of it that its writer left
 * before writing the next is a hole, as in any other chunk (the end of the chunk, one past its
 * last slot, is 0 there). */
START_TEST(test_dec_hole_in_last_chunk_before_2p64)
{
    struct ringgen g;
    struct decoded d;

    rg_init(&g, 8, 4, CYG_F_OVERWRITE);
    g.chunk_log2 = 2;
    g.head = UINT64_MAX - 7; /* 2^64 - 8: two chunks of 4 */
    for (unsigned n = 0; n < 4; n++)
        rg_event(&g, n & 1, 0x1000, n, 1, 0);
    rg_skip(&g);
    rg_event(&g, 0, 0x1000, 5, 1, 0);
    rg_event(&g, 1, 0x1000, 6, 1, 0);
    rg_seal(&g, 0, CYG_S_RUNNING); /* the head: 2^64 - 1 */
    decode(&g, &d);
    ck_assert_uint_eq(d.n, 7);
    ck_assert_uint_eq(d.ev[4].kind, EV_HOLE);
    ck_assert_uint_eq(d.ev[4].ctx, 1);
    ck_assert_uint_eq(d.st.unwritten, 9 + 1); /* the 9 slots before the first record too */
    ck_assert_uint_eq(d.st.holes, 1);
    rg_free(&g);
}
END_TEST

static double cpu_seconds(void)
{
    struct timespec t;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void n_enter(void *arg, const struct tree_frame *f, unsigned depth)
{
    (void)f;
    (void)depth;
    (*(unsigned *)arg)++;
}

static void n_exit(void *arg, const struct tree_frame *f, unsigned depth, uint64_t t,
                   enum tree_exit_how how)
{
    (void)arg;
    (void)f;
    (void)depth;
    (void)t;
    (void)how;
}

static void n_special(void *arg, const struct ev *e, unsigned depth)
{
    (void)arg;
    (void)e;
    (void)depth;
}

static void n_finish(void *arg, const struct tree_frame *stack, unsigned n)
{
    (void)arg;
    (void)stack;
    (void)n;
}

/* pipeline_run's sink: every context's calls into one count. */
static const struct tree_sink *count_of(void *arg, const struct dec_ctx *c)
{
    (void)c;
    return arg;
}

#define MANY_CTX 200000u

/* A crafted 32-bit ring that switches to 200000 contexts, each one new, and now and then back
 * to context 7, the one that makes calls. Every record looks its context up: in the scan (the
 * fast one, and the one event by event that a time range takes), in the pass over every
 * context (report, export, graph); tree's pass of context 7 decodes them all too. Through
 * load and the pipeline, as tree and report drive them, in well under a second of CPU: with a
 * search through the contexts per lookup it took minutes. */
START_TEST(test_dec_many_contexts)
{
    struct filter_time ft = {0}, all = {.on = 1};
    struct filter_opts fo = {0};
    struct pipeline_tally t = {0, 0, 0};
    struct source_stats st;
    struct ringgen g;
    struct load l;
    unsigned checked = 0, known = 0, calls = 0;
    struct tree_sink sink = {&calls, n_enter, n_exit, n_special, n_finish, NULL};
    char err[256];
    double t0;
    size_t pos;

    rg_init(&g, 4, 19, CYG_F_TIMESTAMPS);
    for (unsigned k = 0; k < MANY_CTX; k++) {
        rg_special(&g, CYG_SP_CONTEXT, 1000 + k, 0, 0);
        if (k % 1000 == 0) {
            rg_special(&g, CYG_SP_CONTEXT, 7, 0, 0);
            rg_event(&g, 0, 0x1000, k, 0, 0);
            rg_event(&g, 1, 0x1000, k + 1, 0, 0);
        }
    }
    rg_seal(&g, 0, CYG_S_RUNNING);
    t0 = cpu_seconds();
    ck_assert_msg(load_attach(&l, NULL, src_open_mem("ring", g.buf, g.size, 0), 0, err,
                              sizeof err) == 0,
                  "%s", err);
    for (int slow = 0; slow < 2; slow++) {
        struct tree_scan sc = {.want_index = 1};

        ck_assert_int_eq(pipeline_scan(&l, slow ? all : ft, &sc, &st, &checked, &known), 0);
        ck_assert_uint_eq(sc.n, MANY_CTX + 1);
        ck_assert_uint_ne(pos = dec_ctx_find(sc.ctx, &sc.ctx_ix, 7), SIZE_MAX);
        ck_assert_uint_eq(sc.ctx[pos].events, 2 * MANY_CTX / 1000);
        ck_assert_uint_eq(dec_ctx_find(sc.ctx, &sc.ctx_ix, 1000 + MANY_CTX - 1), MANY_CTX);
        ck_assert_uint_eq(dec_ctx_find(sc.ctx, &sc.ctx_ix, 1000 + MANY_CTX), SIZE_MAX);
        calls = 0;
        ck_assert_int_eq(pipeline_ctx(&l, &sc, &sc.ctx[pos], &sink, &fo, ft, &t), 0);
        ck_assert_uint_eq(calls, MANY_CTX / 1000);
        calls = 0;
        ck_assert_int_eq(pipeline_run(&l, &sc, &fo, ft, NULL, count_of, &sink, &t, err,
                                      sizeof err),
                         1);
        ck_assert_uint_eq(calls, MANY_CTX / 1000);
        tree_scan_free(&sc);
    }
    /* about a tenth of a second (half of one under ASan); a search per event takes tens */
    ck_assert_double_lt(cpu_seconds() - t0, 5.0);
    load_close(&l);
    rg_free(&g);
}
END_TEST

/* A version 3 ring: the control area after the records (on both word sizes, in a RAM image
 * too), TRIGGER records, and marks that carry their class. */
START_TEST(test_dec_v3_control_area)
{
    static const unsigned words[] = {4, 8};

    for (unsigned k = 0; k < 2; k++) {
        unsigned w = words[k], t = w == 8 ? 1 : 0;
        struct ringgen g;
        struct decoded d;
        uint8_t *ram;

        rg_init(&g, w, 4, CYG_F_OVERWRITE);
        rg_trigger(&g, 0, CYG_TRIG_START, 0x1000, 0, CYG_TRIGF_FIRED);
        rg_trigger(&g, 1, CYG_TRIG_FREEZE_MARK, 7, 100, 0);
        rg_trigger(&g, 2, CYG_TRIG_FREEZE, 0x1100, 10, CYG_TRIGF_FIRED);
        rg_ctrl(&g)[CYG_CTRL_OFF_FIRED] = 3;
        rg_ctrl(&g)[CYG_CTRL_OFF_NFIRED] = 2;
        rg_event(&g, 0, 0x1000, 1, t, 0);
        rg_fired(&g, 0, CYG_TRIG_START, 0x1000, t);
        rg_special(&g, CYG_SP_MARK, 3u << CYG_MARK_CLASS_SHIFT | 7, 0x2a, t);
        rg_special(&g, CYG_SP_MARK, 5, 0x2b, t);
        rg_event(&g, 0, 0x1100, 2, t, 0);
        rg_fired(&g, 2, CYG_TRIG_FREEZE, 0x1100, t);
        rg_special(&g, CYG_SP_MARK, 31u << CYG_MARK_CLASS_SHIFT | CYG_MARK_ID_MASK, 0x2c, t);
        rg_seal(&g, 0, CYG_S_FROZEN);
        decode(&g, &d);
        ck_assert_uint_eq(d.r.version, 3);
        ck_assert_uint_eq(d.r.ctrl_state, DEC_CTRL_OK);
        ck_assert_uint_eq(d.r.ctrl.ntrig, 3);
        ck_assert_uint_eq(d.r.ctrl.trig[1].kind, CYG_TRIG_FREEZE_MARK);
        ck_assert_uint_eq(d.r.ctrl.trig[2].after, 10);
        ck_assert_uint_eq(d.r.ctrl.fired, 3);
        ck_assert_uint_eq(d.n, 7);
        ck_assert_uint_eq(d.ev[1].kind, EV_TRIGGER);
        ck_assert_uint_eq(d.ev[1].data, 0 | CYG_TRIG_START << CYG_TRIGD_KIND_SHIFT);
        ck_assert_uint_eq(d.ev[1].addr, 0x1000);
        ck_assert_uint_eq(d.ev[1].time, 1);
        ck_assert_uint_eq(d.ev[1].ctx, t);
        ck_assert_uint_eq(d.ev[2].kind, EV_MARK);
        ck_assert_uint_eq(d.ev[2].data, 7);
        ck_assert_uint_eq(d.ev[2].cls, 3);
        ck_assert_uint_eq(d.ev[3].data, 5);
        ck_assert_uint_eq(d.ev[3].cls, 0);
        ck_assert_uint_eq(d.ev[5].kind, EV_TRIGGER);
        ck_assert_uint_eq(d.ev[5].data, 2 | CYG_TRIG_FREEZE << CYG_TRIGD_KIND_SHIFT);
        ck_assert_uint_eq(d.ev[6].data, CYG_MARK_ID_MASK);
        ck_assert_uint_eq(d.ev[6].cls, 31);

        /* inside a RAM image, the area is found from where the block is */
        ram = calloc(1, g.size + 4096);
        memcpy(ram + 1024, g.buf, g.size);
        ck_assert_int_eq(decode_buf(ram, g.size + 4096, &d), 0);
        ck_assert_uint_eq(d.r.off, 1024);
        ck_assert_uint_eq(d.r.ctrl_state, DEC_CTRL_OK);
        ck_assert_uint_eq(d.r.ctrl.ntrig, 3);
        free(ram);
        rg_free(&g);
    }
}
END_TEST

/* A dump cut short before or inside the control area still decodes its records, and says
 * where it ends; it never makes an area up. */
START_TEST(test_dec_v3_control_area_cut_short)
{
    struct ringgen g;
    struct decoded d;
    size_t cuts[4];

    rg_init(&g, 8, 4, CYG_F_OVERWRITE);
    rg_trigger(&g, 0, CYG_TRIG_FREEZE, 0x1000, 0, 0);
    for (unsigned i = 0; i < 6; i++)
        rg_event(&g, (int)(i & 1), 0x1000, i, 1, 0);
    rg_seal(&g, 0, CYG_S_RUNNING);
    cuts[0] = g.size - 1;                    /* the area's last byte */
    cuts[1] = g.size - CYG_CTRL_BYTES + 1;   /* one byte of it */
    cuts[2] = g.size - CYG_CTRL_BYTES;       /* none of it */
    cuts[3] = CYG_HDR_BYTES + 5 * 16;        /* and the last record too */
    for (unsigned i = 0; i < 4; i++) {
        ck_assert_int_eq(decode_buf(g.buf, cuts[i], &d), 0);
        ck_assert_msg(d.r.ctrl_state == DEC_CTRL_SHORT, "cut %u", i);
        ck_assert_uint_eq(d.r.ctrl_end, cuts[i]);
        ck_assert_uint_eq(d.r.ctrl.ntrig, 0);
        ck_assert_uint_eq(d.n, i < 3 ? 6 : 5);
        ck_assert_uint_eq(d.st.truncated, i < 3 ? 0 : 1);
    }
    /* longer than the ring and its area: the rest is not the ring's, and harms nothing */
    {
        uint8_t *big = calloc(1, g.size + 100);

        memcpy(big, g.buf, g.size);
        memset(big + g.size, 0xee, 100);
        ck_assert_int_eq(decode_buf(big, g.size + 100, &d), 0);
        ck_assert_uint_eq(d.r.ctrl_state, DEC_CTRL_OK);
        ck_assert_uint_eq(d.n, 6);
        free(big);
    }
    rg_free(&g);
}
END_TEST

/* An area that is not one: said why, and the records decode all the same. */
START_TEST(test_dec_v3_control_area_damaged)
{
    static const struct {
        unsigned off;
        uint8_t v;
        const char *why;
    } cases[] = {
        {CYG_CTRL_OFF_MAGIC + 3, 0x00, "no magic"},
        {CYG_CTRL_OFF_NTRIG, CYG_CTRL_TRIGS + 1, "more triggers"},
        {CYG_CTRL_OFF_NEXCL, 200, "more triggers or exclusions"},
        {CYG_CTRL_OFF_TRIG + CYG_TRIG_OFF_KIND, 9, "unknown kind"},
    };

    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct ringgen g;
        struct decoded d;

        rg_init(&g, 4, 3, 0);
        rg_trigger(&g, 0, CYG_TRIG_STOP, 0x1000, 0, 0);
        rg_event(&g, 0, 0x1000, 1, 0, 0);
        rg_event(&g, 1, 0x1000, 2, 0, 0);
        rg_seal(&g, 0, CYG_S_RUNNING);
        rg_ctrl(&g)[cases[i].off] = cases[i].v;
        decode(&g, &d);
        ck_assert_msg(d.r.ctrl_state == DEC_CTRL_BAD, "case %u", i);
        ck_assert_msg(strstr(d.r.ctrl_why, cases[i].why), "case %u: %s", i, d.r.ctrl_why);
        ck_assert_uint_eq(d.n, 2);
        rg_free(&g);
    }
}
END_TEST

/* Versions 1 and 2 have no control area, and all of a mark's data is its id; a TRIGGER type
 * in them is still a trigger (the special types are the same in every version). */
START_TEST(test_dec_v2_marks_and_no_area)
{
    for (unsigned v = 1; v <= 2; v++) {
        struct ringgen g;
        struct decoded d;

        rg_init(&g, 8, 4, CYG_F_OVERWRITE);
        g.version = v;
        rg_special(&g, CYG_SP_MARK, 3u << CYG_MARK_CLASS_SHIFT | 7, 0x2a, 1);
        rg_fired(&g, 1, CYG_TRIG_STOP, 0x1000, 1);
        rg_seal(&g, 0, CYG_S_RUNNING);
        ck_assert_uint_eq(g.size, CYG_HDR_BYTES + 16 * 16);
        decode(&g, &d);
        ck_assert_uint_eq(d.r.version, v);
        ck_assert_uint_eq(d.r.ctrl_state, DEC_CTRL_NONE);
        ck_assert_uint_eq(d.ev[0].data, 3u << CYG_MARK_CLASS_SHIFT | 7);
        ck_assert_uint_eq(d.ev[0].cls, 0);
        ck_assert_uint_eq(d.ev[1].kind, EV_TRIGGER);
        rg_free(&g);
    }
}
END_TEST

Suite *dec_suite(void)
{
    Suite *s = suite_create("dec");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_dec_events_in_order);
    tcase_add_test(tc, test_dec_wrapped_keeps_newest);
    tcase_add_test(tc, test_dec_unwritten_slots_skipped);
    tcase_add_test(tc, test_dec_chunks);
    tcase_add_test(tc, test_dec_stale_record_lap_tag);
    tcase_add_loop_test(tc, test_dec_chunk_end_late_store, 0, 2);
    tcase_add_test(tc, test_dec_store_flip);
    tcase_add_test(tc, test_dec_stale_special_lap_tag);
    tcase_add_test(tc, test_dec_stop_mode);
    tcase_add_test(tc, test_dec_truncated_dump);
    tcase_add_test(tc, test_dec_ts_unwrap_32);
    tcase_add_test(tc, test_dec_ts_unwrap_narrow_clock);
    tcase_add_test(tc, test_dec_ts_down);
    tcase_add_test(tc, test_dec_clock_stood);
    tcase_add_test(tc, test_dec_thumb_bit_and_contexts_32);
    tcase_add_test(tc, test_dec_counter_wrap_32);
    tcase_add_test(tc, test_dec_specials);
    tcase_add_test(tc, test_dec_callsites);
    tcase_add_test(tc, test_dec_rtos_records_32);
    tcase_add_test(tc, test_dec_rtos_time_narrow_clock);
    tcase_add_test(tc, test_dec_locate_in_ram_image);
    tcase_add_test(tc, test_dec_refuses_junk);
    tcase_add_test(tc, test_dec_random_records);
    tcase_add_test(tc, test_dec_count_depth_after_longjmp);
    tcase_add_test(tc, test_dec_count_depth_setjmp_longjmp);
    tcase_add_test(tc, test_dec_only_index);
    tcase_add_test(tc, test_dec_index_one_context);
    tcase_add_test(tc, test_dec_rtos_time_64_only);
    tcase_add_test(tc, test_dec_v3_control_area);
    tcase_add_test(tc, test_dec_v3_control_area_cut_short);
    tcase_add_test(tc, test_dec_v3_control_area_damaged);
    tcase_add_test(tc, test_dec_v2_marks_and_no_area);
    tcase_add_test(tc, test_dec_hole_in_last_chunk_before_2p64);
    suite_add_tcase(s, tc);
    /* bad input that made the decoder hang (the default timeout fails them) */
    tc = tcase_create("hang");
    tcase_add_test(tc, test_dec_index_head_near_2p64);
    tcase_add_test(tc, test_dec_many_contexts);
    suite_add_tcase(s, tc);
    return s;
}
