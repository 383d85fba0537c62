/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_runtime.c - the real Linux runtime writes, the real decoder reads: the two sides of the
 * format against each other. The hooks are called directly with made-up function addresses,
 * on static buffers (the runtime's exit handler may still look at them). */
#include <check.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "cyg_format.h"
#include "cygtrace.h"
#include "cygtrace_config.h"
#include "decode/dec.h"
#include "decode/hdr.h"
#include "suites.h"
#include "decode/wval.h"

void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

#define RING_MAX (CYGTRACE_RING_OVERHEAD + (1u << 22) * 16u)

static uint8_t ring[RING_MAX] __attribute__((aligned(64)));

struct seen {
    struct dec_ring r;
    struct dec_stats st;
    uint64_t n, enters, exits, specials;
    struct ev first[64];
};

static void enter(uintptr_t fn, uintptr_t site)
{
    __cyg_profile_func_enter((void *)fn, (void *)site);
}

static void leave(uintptr_t fn, uintptr_t site)
{
    __cyg_profile_func_exit((void *)fn, (void *)site);
}

/* Decodes the ring; keeps the first 64 events and counts the rest. */
static void decode_ring(size_t bytes, struct seen *s)
{
    struct src *src = src_open_mem("ring", ring, bytes, 0);
    char why[256] = "";
    struct dec *d;
    struct ev e;

    memset(s, 0, sizeof *s);
    ck_assert_int_eq(hdr_locate(src, &s->r, why, sizeof why), 0);
    d = dec_open(src, &s->r);
    while (dec_next(d, &e) > 0) {
        if (s->n < 64)
            s->first[s->n] = e;
        s->n++;
        s->enters += e.kind == EV_ENTER;
        s->exits += e.kind == EV_EXIT;
        s->specials += e.kind != EV_ENTER && e.kind != EV_EXIT;
    }
    dec_get_stats(d, &s->st);
    dec_close(d);
    src_close(src);
}

static size_t ring_bytes(unsigned recs, unsigned rec_bytes)
{
    return CYGTRACE_RING_OVERHEAD + (size_t)recs * rec_bytes; /* the control area too */
}

START_TEST(test_runtime_roundtrip)
{
    struct seen s;
    size_t bytes = ring_bytes(64, 16);

    ck_assert_int_eq(cygtrace_init(ring, bytes, CYG_F_OVERWRITE), 64);
    enter(0x401000, 0);
    enter(0x402000, 0);
    leave(0x402000, 0);
    leave(0x401000, 0);
    decode_ring(bytes, &s);
    ck_assert_uint_eq(s.r.word_bytes, sizeof(void *));
    ck_assert_uint_eq(s.r.state, CYG_S_RUNNING);
    ck_assert_uint_eq(s.n, 6);
    ck_assert_uint_eq(s.first[0].kind, EV_THREAD); /* the thread says who it is first */
    ck_assert_uint_eq(s.first[1].kind, EV_START);
    ck_assert_uint_eq(s.first[2].kind, EV_ENTER);
    ck_assert_uint_eq(s.first[2].addr, 0x401000);
    ck_assert_uint_eq(s.first[3].addr, 0x402000);
    ck_assert_uint_eq(s.first[4].kind, EV_EXIT);
    ck_assert_uint_eq(s.first[5].addr, 0x401000);
    ck_assert_uint_eq(s.first[5].ctx, s.first[2].ctx);
    ck_assert_uint_ge(s.first[5].time, s.first[2].time);
    ck_assert_uint_gt(s.first[2].time, 0);
}
END_TEST

/* A wrapped call's values as the runtime writes them, read back as the host shows them. */
START_TEST(test_runtime_values)
{
    struct seen s;
    size_t bytes = ring_bytes(256, 16);
    void *fn = (void *)(uintptr_t)0x401230;
    struct wval_set v;
    char text[512];
    unsigned values = 0;

    ck_assert_int_eq(cygtrace_init(ring, bytes, CYG_F_OVERWRITE), 256);
    enter((uintptr_t)fn, 0x400105);
    cygtrace_wrap_value(fn, CYGTRACE_VALUE(0, CYG_VK_INT), (uintptr_t)(intptr_t)-7);
    cygtrace_wrap_string(fn, CYGTRACE_VALUE(1, CYG_VK_STR),
                         "a string that is longer than thirty-two bytes");
    cygtrace_wrap_string(fn, CYGTRACE_VALUE(2, CYG_VK_STR), NULL);
    cygtrace_wrap_string(fn, CYGTRACE_VALUE(3, CYG_VK_STR), "12345678");
    cygtrace_wrap_value64(fn, CYGTRACE_VALUE(4, CYG_VK_INT), (uint64_t)-5000000000LL);
    cygtrace_wrap_value(fn, CYGTRACE_VALUE(CYG_VAL_RET, CYG_VK_PTR), 0x7ffd0000);
    leave((uintptr_t)fn, 0x400105);
    cygtrace_stop();
    /* nothing is recorded while stopped */
    cygtrace_wrap_value(fn, CYGTRACE_VALUE(0, CYG_VK_INT), 1);
    decode_ring(bytes, &s);
    wval_reset(&v);
    for (unsigned i = 0; i < s.n && i < 64; i++) {
        if (s.first[i].kind != EV_VALUE)
            continue;
        values++;
        ck_assert_uint_eq(s.first[i].ctx, s.first[2].ctx);
        ck_assert_int_eq(wval_add(&v, (uintptr_t)fn, s.first[i].data, s.first[i].addr), 0);
    }
    /* the 45-byte string: 32 bytes in 4 or 8 words; "12345678" and an empty word */
    ck_assert_uint_eq(values, 1 + 32 / sizeof(void *) + 1 + (8 / sizeof(void *) + 1) + 1 + 1);
    wval_args_text(&v, NULL, text, sizeof text);
    ck_assert_str_eq(text, "-7, \"a string that is longer than thi\"..., NULL, \"12345678\", "
                           "-5000000000");
    ck_assert_ptr_nonnull(wval_ret(&v));
    wval_text(wval_ret(&v), NULL, text, sizeof text);
    ck_assert_str_eq(text, "0x7ffd0000");
}
END_TEST

START_TEST(test_runtime_wraps_keeping_newest)
{
    struct seen s;
    size_t bytes = ring_bytes(8, 16);

    ck_assert_int_eq(cygtrace_init(ring, bytes, CYG_F_OVERWRITE), 8);
    for (uintptr_t i = 0; i < 50; i++) {
        enter(0x1000 + i, 0);
        leave(0x1000 + i, 0);
    }
    decode_ring(bytes, &s);
    ck_assert_uint_eq(s.n, 8);
    ck_assert_uint_eq(s.st.overwritten, 102 - 8);
    ck_assert_uint_eq(s.first[7].addr, 0x1000 + 49);
    ck_assert_uint_eq(s.first[7].kind, EV_EXIT);
}
END_TEST

START_TEST(test_runtime_stop_when_full)
{
    struct seen s;
    size_t bytes = ring_bytes(8, 16);

    ck_assert_int_eq(cygtrace_init(ring, bytes, 0), 8);
    for (uintptr_t i = 0; i < 10; i++)
        enter(0x1000 + i, 0);
    decode_ring(bytes, &s);
    ck_assert_uint_eq(s.r.state, CYG_S_FULL);
    ck_assert_uint_eq(s.n, 8); /* THREAD, START and the first six entries */
    ck_assert_uint_eq(s.first[7].addr, 0x1005);
    ck_assert_uint_eq(s.r.lost, 4);
}
END_TEST

/* Choosing stop mode after the writer lapped the ring keeps what the ring holds. */
START_TEST(test_runtime_stop_mode_after_wrap)
{
    struct seen s;
    size_t bytes = ring_bytes(8, 16);

    cygtrace_init(ring, bytes, CYG_F_OVERWRITE);
    for (uintptr_t i = 0; i < 20; i++)
        enter(0x1000 + i, 0);
    cygtrace_set_mode(CYGTRACE_MODE_STOP);
    enter(0x9999, 0);
    decode_ring(bytes, &s);
    ck_assert_uint_eq(s.r.state, CYG_S_FULL);
    ck_assert_uint_eq(s.r.lost, 1);
    ck_assert_uint_eq(s.n, 8);
    ck_assert_uint_eq(s.first[7].addr, 0x1000 + 19);
}
END_TEST

/* The runtime's bytes for its first record equal test vector (d) of docs/FORMAT.md but for
 * the OS thread id. */
START_TEST(test_runtime_thread_record_bytes)
{
    uint64_t a = 0, b = 0;

    cygtrace_init(ring, ring_bytes(16, 16), CYG_F_OVERWRITE);
    memcpy(&a, ring + CYG_HDR_BYTES, 8);
    memcpy(&b, ring + CYG_HDR_BYTES + 8, 8);
    ck_assert_uint_eq(a, (uint64_t)gettid());        /* payload: the OS thread id */
    ck_assert_uint_eq(b >> 56, 0xc1);                /* lap 1, special, type THREAD */
    ck_assert_uint_ne(b >> 40 & 0xffff, 0);          /* a thread index */
    ck_assert_uint_eq(b & 0xffffffffull, 0);         /* no data */
    ck_assert_uint_eq(b & CYG64_STAG_MASK, cyg64_special_tag(0, 4) & CYG64_STAG_MASK);
}
END_TEST

START_TEST(test_runtime_stop_start_freeze)
{
    struct seen s;
    size_t bytes = ring_bytes(64, 16);

    cygtrace_init(ring, bytes, CYG_F_OVERWRITE);
    enter(0x1000, 0);
    cygtrace_stop();
    enter(0x2000, 0); /* not recorded */
    cygtrace_start();
    leave(0x1000, 0);
    cygtrace_mark(7, 0x77);
    cygtrace_freeze();
    leave(0x3000, 0); /* not recorded */
    cygtrace_start(); /* frozen stays frozen */
    leave(0x4000, 0);
    decode_ring(bytes, &s);
    ck_assert_uint_eq(s.r.state, CYG_S_FROZEN);
    ck_assert_uint_eq(s.n, 7);
    ck_assert_uint_eq(s.first[3].kind, EV_STOP);
    ck_assert_uint_eq(s.first[4].kind, EV_START);
    ck_assert_uint_eq(s.first[5].kind, EV_EXIT);
    ck_assert_uint_eq(s.first[6].kind, EV_MARK);
    ck_assert_uint_eq(s.first[6].data, 7);
    ck_assert_uint_eq(s.first[6].addr, 0x77);
}
END_TEST

/* Chunks (64-bit Linux): after a start no thread goes on in a chunk it took before, so START
 * comes before the thread's next records; the rest of the old chunk is unused, not a hole. */
START_TEST(test_runtime_start_takes_a_new_chunk)
{
    struct seen s;
    size_t bytes = ring_bytes(64, 16); /* chunks of 16 */

    cygtrace_init(ring, bytes, CYG_F_OVERWRITE);
    enter(0x1000, 0);
    cygtrace_stop();
    cygtrace_start();
    leave(0x1000, 0);
    decode_ring(bytes, &s);
    ck_assert_uint_eq(s.r.chunk_log2, 4);
    ck_assert_uint_eq(s.n, 6); /* THREAD, START, entry, STOP; START, exit */
    ck_assert_uint_eq(s.first[3].kind, EV_STOP);
    ck_assert_uint_eq(s.first[3].seq, 3);
    ck_assert_uint_eq(s.first[4].kind, EV_START);
    ck_assert_uint_eq(s.first[4].seq, 16);
    ck_assert_uint_eq(s.first[5].seq, 17);
    ck_assert_uint_eq(s.st.unwritten, 12 + 14);
    ck_assert_uint_eq(s.st.holes, 0);
}
END_TEST

static void *lap_ring(void *arg)
{
    for (uintptr_t i = 0; i < (uintptr_t)arg; i++)
        enter(0x500000 + 16 * i, 0);
    return NULL;
}

/* A thread that idled in its chunk while another wrote more than half a ring takes a new chunk
 * for its next record: the newest records of the whole process stay, its own included. In its
 * old chunk, whose slots the next lap may own by now, it would write over them, and its records
 * would go as stale. */
START_TEST(test_runtime_idle_thread_takes_a_new_chunk)
{
    struct seen s;
    size_t bytes = ring_bytes(256, 16); /* chunks of 64: half a ring is 128 slots */
    pthread_t t;

    cygtrace_init(ring, bytes, CYG_F_OVERWRITE);
    enter(0x1000, 0); /* slot 2 of the first chunk */
    ck_assert_int_eq(pthread_create(&t, NULL, lap_ring, (void *)(uintptr_t)300), 0);
    pthread_join(t, NULL);
    enter(0x2000, 0);
    decode_ring(bytes, &s);
    ck_assert_uint_eq(s.r.head, 64 + 320 + 64); /* the other's 301 records; our new chunk */
    ck_assert_uint_eq(s.st.holes, 0);
    /* The last chunk is ours: its first record our entry. */
    {
        struct src *src = src_open_mem("ring", ring, bytes, 0);
        struct dec *d = dec_open(src, &s.r);
        struct ev e, last = {0};
        int found = 0;

        while (dec_next(d, &e) > 0) {
            found |= e.kind == EV_ENTER && e.addr == 0x2000;
            last = e;
        }
        ck_assert(found);
        ck_assert_uint_eq(last.addr, 0x2000);
        ck_assert_uint_eq(last.seq, 64 + 320);
        dec_close(d);
        src_close(src);
    }
}
END_TEST

START_TEST(test_runtime_fault_freezes)
{
    struct seen s;
    size_t bytes = ring_bytes(64, 16);

    cygtrace_init(ring, bytes, CYG_F_OVERWRITE);
    enter(0x1000, 0);
    cygtrace_fault(CYG_FAULT_SIGNAL + 11, 0x1234, 0x1100);
    enter(0x2000, 0);
    decode_ring(bytes, &s);
    ck_assert_uint_eq(s.r.state, CYG_S_FROZEN);
    ck_assert_uint_eq(s.n, 5);
    ck_assert_uint_eq(s.first[3].kind, EV_FAULT);
    ck_assert_uint_eq(s.first[3].data, CYG_FAULT_SIGNAL + 11);
    ck_assert_uint_eq(s.first[3].addr, 0x1234);
    ck_assert_uint_eq(s.first[4].kind, EV_FAULT_LR);
    ck_assert_uint_eq(s.first[4].addr, 0x1100);
}
END_TEST

START_TEST(test_runtime_callsites)
{
    struct seen s;
    size_t bytes = ring_bytes(16, 32);

    ck_assert_int_eq(cygtrace_init(ring, bytes, CYG_F_OVERWRITE | CYG_F_CALLSITES), 16);
    enter(0x1000, 0x4321);
    decode_ring(bytes, &s);
    ck_assert_uint_eq(s.r.rec_bytes, 4 * sizeof(void *));
    ck_assert_uint_eq(s.first[2].site, 0x4321);
}
END_TEST

START_TEST(test_runtime_build_id)
{
    static const uint8_t id[20] = {0xde, 0xad, 0xbe, 0xef, 1, 2, 3};
    struct seen s;
    size_t bytes = ring_bytes(16, 16);

    ck_assert_int_lt(cygtrace_init(ring, 100, CYG_F_OVERWRITE), 0);
    cygtrace_init(ring, bytes, CYG_F_OVERWRITE);
    cygtrace_set_build_id(id, sizeof id);
    decode_ring(bytes, &s); /* the checksum still holds after the change */
    ck_assert_uint_eq(s.r.build_id_len, 20);
    ck_assert_mem_eq(s.r.build_id, id, 20);
}
END_TEST

#define THREADS 4
#define PAIRS 200000

static void *worker(void *arg)
{
    uintptr_t base = (uintptr_t)arg;

    for (uintptr_t i = 0; i < PAIRS; i++) {
        enter(base, 0);
        enter(base + 0x10, 0);
        leave(base + 0x10, 0);
        leave(base, 0);
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

/* Concurrent writers in a ring that holds everything: every event arrives, each thread's own
 * index on it, each thread's calls balanced. */
START_TEST(test_runtime_threads_all_kept)
{
    size_t bytes = ring_bytes(1u << 22, 16);
    struct src *src;
    struct dec_ring r;
    struct dec *d;
    struct ev e;
    char why[256] = "";
    long depth[THREADS + 2] = {0};
    uint64_t fn_of[THREADS + 2] = {0}, n = 0;

    ck_assert_uint_le(bytes, sizeof ring);
    cygtrace_init(ring, bytes, CYG_F_OVERWRITE);
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
        ck_assert_uint_eq(e.addr & ~(uint64_t)0xffff, fn_of[e.ctx]); /* never another's */
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

/* Concurrent writers lapping a small ring: kept + overwritten + unwritten + padding == head, and
 * every kept record is one that some thread really wrote. */
START_TEST(test_runtime_threads_overwrite_accounting)
{
    size_t bytes = ring_bytes(1024, 16);
    struct seen s;

    cygtrace_init(ring, bytes, CYG_F_OVERWRITE);
    run_workers();
    decode_ring(bytes, &s);
    ck_assert_uint_eq(s.n + s.st.overwritten + s.st.unwritten + s.st.padding, s.r.head);
    /* head counts slots: the events, and the ends of chunks that held none: a thread's last
     * (padded when it ended), and those a thread left when the others had lapped it (a thread
     * preempted for most of this small ring). */
    ck_assert_uint_ge(s.r.head, (uint64_t)THREADS * PAIRS * 4 + 2 + THREADS);
    ck_assert_uint_le(s.r.head, (uint64_t)THREADS * PAIRS * 4 * 101 / 100);
    for (unsigned i = 0; i < 64 && i < s.n; i++) {
        uint64_t a = s.first[i].addr;

        if (s.first[i].kind == EV_ENTER || s.first[i].kind == EV_EXIT)
            ck_assert_msg((a & 0xffff) <= 0x10 && a >= 0x10000 && a <= 0x40010,
                          "invented address 0x%llx", (unsigned long long)a);
    }
}
END_TEST

Suite *runtime_suite(void)
{
    Suite *s = suite_create("runtime");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_runtime_roundtrip);
    tcase_add_test(tc, test_runtime_values);
    tcase_add_test(tc, test_runtime_wraps_keeping_newest);
    tcase_add_test(tc, test_runtime_stop_when_full);
    tcase_add_test(tc, test_runtime_stop_mode_after_wrap);
    tcase_add_test(tc, test_runtime_thread_record_bytes);
    tcase_add_test(tc, test_runtime_stop_start_freeze);
    tcase_add_test(tc, test_runtime_start_takes_a_new_chunk);
    tcase_add_test(tc, test_runtime_idle_thread_takes_a_new_chunk);
    tcase_add_test(tc, test_runtime_fault_freezes);
    tcase_add_test(tc, test_runtime_callsites);
    tcase_add_test(tc, test_runtime_build_id);
    tcase_add_test(tc, test_runtime_threads_all_kept);
    tcase_add_test(tc, test_runtime_threads_overwrite_accounting);
    suite_add_tcase(s, tc);
    return s;
}
