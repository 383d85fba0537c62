/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_dec4l.c - version 4 rings of 64-bit Linux (docs/FORMAT.md section 15): the real runtime
 * writes one word a record, the real decoder reads it back through dec4l.c's view; and the
 * view's rules on hand-made chunks (late words, a head without its extension, a chunk without
 * its CHUNK word, epochs). */
#include <check.h>
#include <pthread.h>
#include <string.h>

#include "cyg_format.h"
#include "cyg_v4l.h"
#include "cygtrace.h"
#include "cygtrace_config.h"
#include "decode/dec.h"
#include "decode/dec4l.h"
#include "decode/hdr.h"
#include "suites.h"
#include "util/le.h"

void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

#define INIT_V4L (1u << 6) /* CYGTRACE_INIT_V4L (target/core/cygtrace_internal.h) */
#define THREADS 4
#define PAIRS 20000

static uint8_t ring[CYGTRACE_RING_OVERHEAD + CYG_V4L_TABLE_BYTES + (1u << 21) * 8u]
    __attribute__((aligned(64)));

static size_t ring_bytes(unsigned recs)
{
    return CYGTRACE_RING_OVERHEAD + CYG_V4L_TABLE_BYTES + (size_t)recs * 8u;
}

static void enter(uintptr_t fn)
{
    __cyg_profile_func_enter((void *)fn, NULL);
}

static void leave(uintptr_t fn)
{
    __cyg_profile_func_exit((void *)fn, NULL);
}

/* Decodes the ring's events (up to max) into ev; returns how many there were in all. */
static uint64_t decode(size_t bytes, struct dec_ring *r, struct ev *ev, unsigned max,
                       struct dec_stats *st)
{
    struct src *src = src_open_mem("ring", ring, bytes, 0);
    char why[256] = "";
    struct dec *d;
    struct ev e;
    uint64_t n = 0;

    ck_assert_msg(hdr_locate(src, r, why, sizeof why) == 0, "%s", why);
    d = dec_open(src, r);
    while (dec_next(d, &e) > 0) {
        if (n < max)
            ev[n] = e;
        n++;
    }
    if (st)
        dec_get_stats(d, st);
    dec_close(d);
    src_close(src);
    return n;
}

START_TEST(test_dec4l_roundtrip)
{
    size_t bytes = ring_bytes(256);
    struct dec_ring r;
    struct ev ev[16];
    uint64_t far = (uint64_t)0x7f1234567000;

    ck_assert_int_eq(cygtrace_init(ring, bytes, CYG_F_OVERWRITE | INIT_V4L), 256);
    ck_assert_uint_eq(le_get(ring + CYG_OFF_VERSION, 2), 4);
    ck_assert_uint_eq(ring[CYG_OFF_REC], 8);
    enter(0x401000);
    enter((uintptr_t)far); /* another region */
    cygtrace_mark(7, (uintptr_t)0xfedcba9876543210u); /* a two-word special, 64-bit payload */
    leave((uintptr_t)far);
    leave(0x401000);
    ck_assert_uint_eq(decode(bytes, &r, ev, 16, NULL), 7);
    ck_assert_uint_eq(r.stored_rec, 8);
    ck_assert_uint_eq(r.rec_bytes, 16); /* as the rest of the host reads it */
    ck_assert_uint_eq(ev[0].kind, EV_THREAD);
    ck_assert_uint_eq(ev[1].kind, EV_START);
    ck_assert_uint_eq(ev[2].kind, EV_ENTER);
    ck_assert_uint_eq(ev[2].addr, 0x401000);
    ck_assert_uint_eq(ev[3].addr, far);
    ck_assert_uint_eq(ev[4].kind, EV_MARK);
    ck_assert_uint_eq(ev[4].data, 7);
    ck_assert_uint_eq(ev[4].addr, UINT64_C(0xfedcba9876543210));
    ck_assert_uint_eq(ev[5].kind, EV_EXIT);
    ck_assert_uint_eq(ev[5].addr, far);
    ck_assert_uint_eq(ev[6].addr, 0x401000);
    for (int i = 0; i < 7; i++)
        ck_assert_uint_eq(ev[i].ctx, ev[0].ctx);
    ck_assert_uint_ne(ev[0].ctx, 0);
    ck_assert_uint_gt(ev[2].time, 0);
    ck_assert_uint_ge(ev[6].time, ev[2].time);
    /* the call words are one each: the CHUNK word, THREAD (2), START (2), then the calls */
    ck_assert_uint_eq(le_get(ring + CYG_HDR_BYTES + 5 * 8, 8) >> 62 & 1, 0);
}
END_TEST

/* More regions than the table holds: the rest are CALL64 pairs, every address kept whole. */
START_TEST(test_dec4l_regions_full)
{
    size_t bytes = ring_bytes(1024);
    struct dec_ring r;
    struct ev ev[128];
    uint64_t n, calls = 0, pairs = 0;

    cygtrace_init(ring, bytes, CYG_F_OVERWRITE | INIT_V4L);
    for (uint64_t i = 0; i < 24; i++)
        enter((uintptr_t)(UINT64_C(0x100000000) + i * UINT64_C(0x4000000) + 0x123));
    n = decode(bytes, &r, ev, 128, NULL);
    for (uint64_t i = 0; i < n && i < 128; i++)
        if (ev[i].kind == EV_ENTER) {
            ck_assert_uint_eq(ev[i].addr, UINT64_C(0x100000000) + calls * UINT64_C(0x4000000) +
                                              0x123);
            calls++;
        }
    ck_assert_uint_eq(calls, 24);
    for (unsigned i = 0; i < 1024; i++) {
        uint64_t w = le_get(ring + CYG_HDR_BYTES + i * 8u, 8);

        pairs += (w >> 62 & 1) && !(w >> 61 & 1) && ((w >> 46) & 63) == CYG_V4L_SP_CALL64;
    }
    ck_assert_uint_ge(pairs, 24 - CYG_V4L_REGIONS);
}
END_TEST

static void *worker(void *arg)
{
    uintptr_t base = (uintptr_t)arg;

    for (uintptr_t i = 0; i < PAIRS; i++) {
        enter(base);
        enter(base + 0x10);
        leave(base + 0x10);
        leave(base);
    }
    return NULL;
}

static void run_workers(void)
{
    pthread_t t[THREADS];

    for (uintptr_t i = 0; i < THREADS; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, worker, (void *)(0x10000 * (i + 1))), 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
}

/* Threads in a ring that holds everything: every event, each with its own thread, balanced. */
START_TEST(test_dec4l_threads_all_kept)
{
    size_t bytes = ring_bytes(1u << 20);
    struct src *src;
    struct dec_ring r;
    struct dec *d;
    struct ev e;
    char why[256] = "";
    long depth[THREADS + 2] = {0};
    uint64_t fn_of[THREADS + 2] = {0}, n = 0;

    cygtrace_init(ring, bytes, CYG_F_OVERWRITE | INIT_V4L);
    run_workers();
    src = src_open_mem("ring", ring, bytes, 0);
    ck_assert_int_eq(hdr_locate(src, &r, why, sizeof why), 0);
    d = dec_open(src, &r);
    while (dec_next(d, &e) > 0) {
        if (e.kind != EV_ENTER && e.kind != EV_EXIT)
            continue;
        n++;
        ck_assert_uint_lt(e.ctx, THREADS + 2);
        if (!fn_of[e.ctx])
            fn_of[e.ctx] = e.addr & ~(uint64_t)0xffff;
        ck_assert_uint_eq(e.addr & ~(uint64_t)0xffff, fn_of[e.ctx]);
        depth[e.ctx] += e.kind == EV_ENTER ? 1 : -1;
        ck_assert_int_ge(depth[e.ctx], 0);
    }
    ck_assert_uint_eq(n, (uint64_t)THREADS * PAIRS * 4);
    for (int i = 0; i < THREADS + 2; i++)
        ck_assert_int_eq(depth[i], 0);
    dec_close(d);
    src_close(src);
}
END_TEST

/* Threads lapping a small ring: every slot accounted for, every call one a thread made. */
START_TEST(test_dec4l_threads_overwrite)
{
    size_t bytes = ring_bytes(1024);
    struct dec_ring r;
    struct dec_stats st;
    struct ev ev[1024];
    uint64_t n, fam_of[THREADS + 2] = {0}, ctx_of[THREADS + 1] = {0};

    cygtrace_init(ring, bytes, CYG_F_OVERWRITE | INIT_V4L);
    run_workers();
    n = decode(bytes, &r, ev, 1024, &st);
    ck_assert_uint_eq(n + st.overwritten + st.unwritten + st.padding, r.head);
    ck_assert_uint_gt(n, 500);
    for (unsigned i = 0; i < n && i < 1024; i++) {
        uint64_t a = ev[i].addr, fam = a >> 16;

        if (ev[i].kind == EV_ENTER || ev[i].kind == EV_EXIT) {
            ck_assert_msg((a & 0xffff) <= 0x10 && a >= 0x10000 && a <= 0x40010,
                          "invented address 0x%llx", (unsigned long long)a);
            /* Each worker's functions under one thread index, and each index one worker's
             * (indices go by the threads' first events, in whatever order they came). */
            ck_assert_uint_lt(ev[i].ctx, THREADS + 2);
            if (!fam_of[ev[i].ctx])
                fam_of[ev[i].ctx] = fam;
            if (!ctx_of[fam])
                ctx_of[fam] = ev[i].ctx;
            ck_assert_uint_eq(fam_of[ev[i].ctx], fam);
            ck_assert_uint_eq(ctx_of[fam], ev[i].ctx);
        }
    }
}
END_TEST

/* A chunk made by hand: CHUNK (thread 3, epoch 5), a call, an EPOCH, a call a little before it,
 * a head with its extension, a head without one, a word of another lap. */
START_TEST(test_dec4l_chunk_rules)
{
    const unsigned cap_log2 = 8;
    uint64_t w[8], regions[CYG_V4L_REGIONS] = {0x400000};
    uint8_t out[8 * 16];
    struct dec_ring r = {.version = 3, .word_bytes = 8, .rec_bytes = 16, .cap_log2 = cap_log2,
                         .chunk_log2 = 3, .flags = CYG_F_TIMESTAMPS | CYG_F_LAPTAG |
                                                   CYG_F_THREADS | CYG_F_OVERWRITE,
                         .ts_bits = 50, .cap = 256};
    struct dec_state ds;
    struct ev e;
    uint64_t seq0 = 256 + 8; /* the second lap */
    uint64_t b5 = (uint64_t)5 << 20, b9 = (uint64_t)9 << 20;

#define L(i) cyg_v4l_laps(seq0 + (i), cap_log2)
    w[0] = L(0) | cyg_v4l_head(CYG_V4L_SP_CHUNK, (uint64_t)3 << CYG_V4L_THREAD_SHIFT | 5, 0);
    w[1] = L(1) | (uint64_t)0x1234 << CYG_V4L_OFF_SHIFT | ((b5 + 100) & CYG_V4L_TS_MASK);
    w[2] = L(2) | cyg_v4l_head(CYG_V4L_SP_EPOCH, 9, 0);
    w[3] = L(3) | CYG_V4L_EXIT | (uint64_t)0x1234 << CYG_V4L_OFF_SHIFT |
           ((b9 - 50) & CYG_V4L_TS_MASK); /* a step back under the new epoch */
    w[4] = L(4) | cyg_v4l_head(CYG_SP_MARK, 42, UINT64_C(0x8000000000000001));
    w[5] = L(5) | cyg_v4l_ext(UINT64_C(0x8000000000000001));
    w[6] = L(6) | cyg_v4l_head(CYG_SP_MARK, 43, 1); /* its extension is missing */
    w[7] = cyg_v4l_laps(seq0 + 7 - 256, cap_log2) | 0x1234; /* a lap late */
#undef L
    /* the words of FORMAT.md 15.6 */
    ck_assert_uint_eq(w[0], UINT64_C(0x5fff8000c0000005));
    ck_assert_uint_eq(w[1], UINT64_C(0x1ff0001234500064));
    ck_assert_uint_eq(w[4], UINT64_C(0x5ff0c8000000002a));
    ck_assert_uint_eq(w[5], UINT64_C(0x7ff0000000000001));
    dec4l_chunk(w, 8, seq0, cap_log2, regions, out);
    dec_state_init(&ds, &r);
    ck_assert_int_eq(dec_record(&ds, out, seq0, &e), 1);
    ck_assert_uint_eq(e.kind, EV_PAD);
    ck_assert_int_eq(dec_record(&ds, out + 16, seq0 + 1, &e), 1);
    ck_assert_uint_eq(e.kind, EV_ENTER);
    ck_assert_uint_eq(e.addr, 0x401234);
    ck_assert_uint_eq(e.ctx, 3);
    ck_assert_uint_eq(e.time, b5 + 100);
    ck_assert_int_eq(dec_record(&ds, out + 32, seq0 + 2, &e), 1);
    ck_assert_uint_eq(e.kind, EV_PAD);
    ck_assert_int_eq(dec_record(&ds, out + 48, seq0 + 3, &e), 1);
    ck_assert_uint_eq(e.kind, EV_EXIT);
    ck_assert_uint_eq(e.time, b9 - 50);
    ck_assert_int_eq(dec_record(&ds, out + 64, seq0 + 4, &e), 1);
    ck_assert_uint_eq(e.kind, EV_MARK);
    ck_assert_uint_eq(e.addr, UINT64_C(0x8000000000000001));
    ck_assert_uint_eq(e.ctx, 3);
    ck_assert_int_eq(dec_record(&ds, out + 80, seq0 + 5, &e), 1);
    ck_assert_uint_eq(e.kind, EV_PAD); /* the extension */
    ck_assert_int_eq(dec_record(&ds, out + 96, seq0 + 6, &e), 0);  /* dropped */
    ck_assert_int_eq(dec_record(&ds, out + 112, seq0 + 7, &e), 0); /* late */
    /* without its CHUNK word nothing of the chunk is taken */
    w[0] = 0;
    dec4l_chunk(w, 8, seq0, cap_log2, regions, out);
    for (unsigned i = 0; i < 8; i++)
        ck_assert_int_eq(dec_record(&ds, out + 16 * i, seq0 + i, &e), 0);
}
END_TEST

Suite *dec4l_suite(void)
{
    Suite *s = suite_create("dec4l");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_dec4l_roundtrip);
    tcase_add_test(tc, test_dec4l_regions_full);
    tcase_add_test(tc, test_dec4l_threads_all_kept);
    tcase_add_test(tc, test_dec4l_threads_overwrite);
    tcase_add_test(tc, test_dec4l_chunk_rules);
    suite_add_tcase(s, tc);
    return s;
}
