/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_drain.c - the real Linux runtime records, its drain streams, the host's deframer and
 * stream decoder (sframe, sdec) read: the two sides of cyg_stream.h against each other, and
 * against the reference ring decoder (dec) reading the same ring. The hooks are called directly
 * with made-up addresses, on a static buffer; the sink is memory. */
#include <check.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cobs.h"
#include "cyg_format.h"
#include "cyg_stream.h"
#include "cygtrace.h"
#include "cygtrace_config.h"
#include "decode/dec.h"
#include "decode/hdr.h"
#include "decode/sdec.h"
#include "decode/sframe.h"
#include "source/src.h"
#include "suites.h"

void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

#define RING_MAX (CYGTRACE_RING_OVERHEAD + (1u << 18) * 32u)
#define DESC_BYTES 2048u /* CYGTRACE_DRAIN_DESC_BYTES as the runtime is built */

static uint8_t ring[RING_MAX] __attribute__((aligned(64)));

static size_t ring_bytes(unsigned recs, unsigned rec_bytes)
{
    return CYGTRACE_RING_OVERHEAD + (size_t)recs * rec_bytes; /* the control area too */
}

static struct cyg_ctl *ctl_of(void)
{
    return cygtrace_control_block();
}

static void enter(uintptr_t fn, uintptr_t site)
{
    __cyg_profile_func_enter((void *)fn, (void *)site);
}

static void leave(uintptr_t fn, uintptr_t site)
{
    __cyg_profile_func_exit((void *)fn, (void *)site);
}

/* ---- the sink: memory, taking all, some or nothing ----------------------------------------- */

struct msink {
    uint8_t *buf;
    size_t len, cap;
    size_t per_call; /* the most it takes per call; 0: all it is given */
    unsigned refuse; /* the next calls that take nothing */
    unsigned calls;
    unsigned frames; /* calls given a whole frame (a sink taking all gets only those) */
    unsigned bad;    /* such calls whose bytes are not one frame: too long, a 0 inside, no 0
                        at the end */
};

static size_t msink_take(void *arg, const void *buf, size_t len)
{
    struct msink *m = arg;
    const uint8_t *p = buf;

    m->calls++;
    if (m->refuse) {
        m->refuse--;
        return 0;
    }
    if (m->per_call == 0) {
        /* The drain hands over one frame at a time: check it whole. A lone delimiter is
         * the start of a stream. */
        m->frames++;
        if (len > CYG_FRAME_WIRE_MAX || p[len - 1] != 0 || memchr(p, 0, len - 1) != NULL)
            m->bad++;
    } else if (len > m->per_call) {
        len = m->per_call;
    }
    if (m->len + len > m->cap) {
        m->cap = (m->len + len) * 2 + 4096;
        m->buf = realloc(m->buf, m->cap);
        ck_assert_ptr_nonnull(m->buf);
    }
    memcpy(m->buf + m->len, p, len);
    m->len += len;
    return len;
}

/* ---- decoding: the stream with sframe + sdec, the ring with dec ----------------------------- */

struct evs {
    struct ev *ev;
    size_t n, cap;
};

static void evs_add(struct evs *v, const struct ev *e)
{
    if (v->n == v->cap) {
        v->cap = v->cap * 2 + 1024;
        v->ev = realloc(v->ev, v->cap * sizeof *v->ev);
        ck_assert_ptr_nonnull(v->ev);
    }
    v->ev[v->n++] = *e;
}

struct got {
    struct evs all;    /* what sdec delivered, EV_LOST included */
    struct evs events; /* without EV_LOST */
    uint64_t lost;     /* records the target lost (SKIP) */
    struct sframe_stats fs;
    struct sdec_stats ds;
    struct sdec_desc desc;  /* the last description */
    struct sdec_desc first; /* the first one */
    unsigned descs;         /* description frames */
    struct sdec *dec;
};

static void on_event(void *arg, const struct ev *e)
{
    struct got *g = arg;

    evs_add(&g->all, e);
    if (e->kind == EV_LOST)
        ck_assert_uint_eq(e->data, EV_LOST_TARGET); /* memory loses nothing */
    else
        evs_add(&g->events, e);
}

static void on_frame(void *arg, const uint8_t *payload, size_t len)
{
    struct got *g = arg;

    ck_assert_int_eq(sdec_frame(g->dec, payload, len), 0);
    if (payload[0] == CYG_FR_DESC && g->descs++ == 0)
        g->first = *sdec_desc(g->dec);
}

static void got_free(struct got *g)
{
    free(g->all.ev);
    free(g->events.ev);
    memset(g, 0, sizeof *g);
}

/* Decodes the stream the sink holds (g starts zeroed or from an earlier decode); every byte must
 * be in a good frame. */
static void decode_stream(const struct msink *m, struct got *g)
{
    struct sframe *f;

    got_free(g);
    g->dec = sdec_new(on_event, g);
    f = sframe_new(on_frame, g);
    ck_assert_ptr_nonnull(g->dec);
    ck_assert_ptr_nonnull(f);
    sframe_feed(f, m->buf, m->len);
    sframe_get_stats(f, &g->fs);
    sdec_get_stats(g->dec, &g->ds);
    ck_assert_ptr_nonnull(sdec_desc(g->dec));
    g->desc = *sdec_desc(g->dec);
    g->lost = g->ds.lost_target;
    ck_assert_uint_eq(g->fs.bad, 0);
    ck_assert_uint_eq(g->fs.skipped, 0);
    ck_assert_uint_eq(g->ds.malformed, 0);
    ck_assert_uint_eq(g->ds.early, 0);
    ck_assert_uint_eq(g->ds.lost_link, 0);
    ck_assert(m->len > 0 && m->buf[m->len - 1] == 0); /* the stream ends with a frame */
    sframe_free(f);
    sdec_free(g->dec);
    g->dec = NULL;
}

/* Decodes the ring with the reference decoder. */
static void decode_ring(size_t bytes, struct evs *v, struct dec_ring *r)
{
    struct src *src = src_open_mem("ring", ring, bytes, 0);
    char why[256] = "";
    struct dec *d;
    struct ev e;

    memset(v, 0, sizeof *v);
    ck_assert_int_eq(hdr_locate(src, r, why, sizeof why), 0);
    d = dec_open(src, r);
    while (dec_next(d, &e) > 0)
        evs_add(v, &e);
    dec_close(d);
    src_close(src);
}

static void same_event(const struct ev *a, const struct ev *b, size_t i)
{
    ck_assert_msg(
        a->seq == b->seq && a->kind == b->kind && a->addr == b->addr && a->site == b->site &&
            a->time == b->time && a->ctx == b->ctx && a->data == b->data,
        "event %zu: seq %llu/%llu kind %u/%u addr %llx/%llx site %llx/%llx time "
        "%llu/%llu ctx %u/%u data %u/%u",
        i, (unsigned long long)a->seq, (unsigned long long)b->seq, a->kind, b->kind,
        (unsigned long long)a->addr, (unsigned long long)b->addr, (unsigned long long)a->site,
        (unsigned long long)b->site, (unsigned long long)a->time, (unsigned long long)b->time,
        a->ctx, b->ctx, a->data, b->data);
}

/* The stream's events are the ring's, field by field. */
static void same_as_ring(const struct got *g, size_t bytes)
{
    struct evs ref;
    struct dec_ring r;

    decode_ring(bytes, &ref, &r);
    ck_assert_uint_eq(g->events.n, ref.n);
    for (size_t i = 0; i < ref.n; i++)
        same_event(&g->events.ev[i], &ref.ev[i], i);
    free(ref.ev);
}

/* Drains until nothing is left: a call that sends nothing may be holding a few records back
 * while the target records (CYGTRACE_DRAIN_BATCH); the next call with nothing recorded in
 * between sends them. */
static size_t drain_all(void)
{
    size_t n, total = 0;
    int idle = 0;

    while (idle < 2) {
        n = cygtrace_drain();
        total += n;
        idle = n ? 0 : idle + 1;
    }
    return total;
}

/* A made-up call tree: 400 functions, more than the 64 cache slots hold, some sharing a slot,
 * nested a few deep. Returns the calls made; fns[] gets the entered functions in order. */
static unsigned record_tree(uintptr_t base, unsigned rounds, uintptr_t site)
{
    unsigned calls = 0;

    for (unsigned r = 0; r < rounds; r++) {
        uintptr_t f = base + (uintptr_t)(r % 400) * 0x40;
        uintptr_t g = base + 0x100000 + (uintptr_t)(r % 7) * 0x2000; /* same slot, 8 KB apart */

        enter(f, site);
        enter(g, site ? site + 0x10 : 0);
        enter(f + 0x20, site);
        leave(f + 0x20, site);
        leave(g, site ? site + 0x10 : 0);
        leave(f, site);
        calls += 3;
    }
    return calls;
}

/* ---- tests ---------------------------------------------------------------------------------- */

/* Everything recorded arrives, exactly as the ring holds it, with the description first. */
START_TEST(test_drain_roundtrip)
{
    static const uint8_t id[20] = {0xb1, 0xd0, 0x0d, 1, 2, 3, 4, 5};
    struct msink m = {0};
    struct got g = {0};
    struct cyg_ctl *ctl;
    size_t bytes = ring_bytes(1u << 14, 16), took;
    unsigned calls;

    ck_assert_int_eq(cygtrace_init(ring, bytes, CYG_F_OVERWRITE), 1 << 14);
    cygtrace_set_build_id(id, sizeof id);
    ctl = ctl_of();
    calls = record_tree(0x400000, 500, 0);
    cygtrace_mark(42, 0xfeedface);
    cygtrace_context(3, 0x1234);
    enter(0x7ffff0001000, 0); /* a 47-bit address, far from the others */
    leave(0x7ffff0001000, 0);
    cygtrace_drain_init(msink_take, &m);
    took = drain_all();
    ck_assert_uint_eq(took, m.len);
    ck_assert_uint_eq(m.bad, 0);
    ck_assert_uint_eq(m.buf[0], 0); /* a lone delimiter opens the stream */
    decode_stream(&m, &g);
    ck_assert_uint_eq(g.events.n, 2 + calls * 2 + 2 + 2);
    ck_assert_uint_eq(g.lost, 0);
    same_as_ring(&g, bytes);
    ck_assert_uint_eq(g.events.ev[0].kind, EV_THREAD);
    ck_assert_uint_eq(g.events.ev[0].addr, (uint64_t)gettid());
    ck_assert_uint_eq(g.events.ev[2].kind, EV_ENTER);
    ck_assert_uint_eq(g.events.ev[2].addr, 0x400000);
    ck_assert_uint_gt(g.events.ev[2].time, 0);
    /* the description is the control block */
    ck_assert_uint_eq(g.desc.ring.word_bytes, 8);
    ck_assert_uint_eq(g.desc.ring.flags, ctl->flags);
    ck_assert_uint_eq(g.desc.ring.machine, ctl->machine);
    ck_assert_uint_eq(g.desc.ring.ts_bits, ctl->ts_bits);
    ck_assert_uint_eq(g.desc.ring.state, CYG_S_RUNNING);
    ck_assert_uint_eq(g.desc.ring.cap_log2, 14);
    ck_assert_uint_eq(g.desc.ring.ts_hz, ctl->ts_hz);
    ck_assert_uint_eq(g.desc.ring.pid, ctl->pid);
    ck_assert_uint_eq(g.first.next_seq, 0);
    ck_assert_uint_gt(g.desc.next_seq, 0); /* a later one: where the stream was then */
    ck_assert_uint_eq(g.desc.ring.build_id_len, 20);
    ck_assert_mem_eq(g.desc.ring.build_id, id, 20);
    ck_assert_uint_ge(g.descs, 1);

    /* Nothing new: nothing sent. Then only what is new, carrying on. */
    m.calls = 0;
    ck_assert_uint_eq(cygtrace_drain(), 0);
    ck_assert_uint_eq(m.calls, 0);
    enter(0x500000, 0);
    leave(0x500000, 0);
    ck_assert_uint_gt(drain_all(), 0);
    decode_stream(&m, &g);
    ck_assert_uint_eq(g.events.n, 2 + calls * 2 + 4 + 2);
    ck_assert_uint_eq(g.events.ev[g.events.n - 1].addr, 0x500000);
    same_as_ring(&g, bytes);
    free(m.buf);
    got_free(&g);
}
END_TEST

START_TEST(test_drain_callsites)
{
    struct msink m = {0};
    struct got g = {0};
    size_t bytes = ring_bytes(1u << 12, 32);

    ck_assert_int_eq(cygtrace_init(ring, bytes, CYG_F_OVERWRITE | CYG_F_CALLSITES), 1 << 12);
    record_tree(0x400000, 200, 0x401234);
    enter(0x600000, 0); /* a site of 0, far below the function */
    enter(0x600100, 0x7fffffff0000);
    leave(0x600100, 0x7fffffff0000);
    leave(0x600000, 0);
    cygtrace_drain_init(msink_take, &m);
    drain_all();
    decode_stream(&m, &g);
    ck_assert_uint_eq(g.events.n, 2 + 200 * 6 + 4);
    same_as_ring(&g, bytes);
    ck_assert_uint_eq(g.events.ev[2].site, 0x401234);
    ck_assert_uint_eq(g.events.ev[g.events.n - 3].site, 0x7fffffff0000);
    ck_assert_uint_eq(g.events.ev[g.events.n - 1].site, 0);
    free(m.buf);
    got_free(&g);
}
END_TEST

#define THREADS 3

static void *tree_worker(void *arg)
{
    record_tree((uintptr_t)arg, 2000, 0);
    return NULL;
}

/* Threads: each event carries its thread's index (THREAD tokens), each thread's THREAD
 * special names it. */
START_TEST(test_drain_threads)
{
    struct msink m = {0};
    struct got g = {0};
    pthread_t t[THREADS];
    size_t bytes = ring_bytes(1u << 16, 16);
    unsigned ctxs = 0;

    cygtrace_init(ring, bytes, CYG_F_OVERWRITE);
    for (uintptr_t i = 0; i < THREADS; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, tree_worker, (void *)(0x1000000 * (i + 1))),
                         0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    cygtrace_drain_init(msink_take, &m);
    drain_all();
    decode_stream(&m, &g);
    ck_assert_uint_eq(g.events.n, 2 + THREADS * (1 + 2000 * 6));
    same_as_ring(&g, bytes);
    for (size_t i = 0; i < g.events.n; i++)
        if (g.events.ev[i].kind == EV_THREAD)
            ctxs |= 1u << g.events.ev[i].ctx;
    ck_assert_uint_eq(ctxs, 0xfu << 1); /* indexes 1 (main) to 4 */
    free(m.buf);
    got_free(&g);
}
END_TEST

/* A sink that takes one byte at a time, and nothing for a while, gets the very bytes a sink
 * that takes everything gets: frames resume where they stopped. */
START_TEST(test_drain_trickle_resumes_exactly)
{
    struct msink all = {0}, few = {.per_call = 1};
    struct got g = {0};
    size_t bytes = ring_bytes(1u << 14, 16), calls = 0;

    cygtrace_init(ring, bytes, CYG_F_OVERWRITE);
    record_tree(0x400000, 1000, 0);
    cygtrace_freeze(); /* the same ring for both */
    cygtrace_drain_init(msink_take, &all);
    drain_all();
    cygtrace_drain_init(msink_take, &few);
    while (few.len < all.len && calls++ < 10 * all.len) {
        if (calls % 97 == 0)
            few.refuse = 5;
        cygtrace_drain();
    }
    ck_assert_uint_eq(few.len, all.len);
    ck_assert_mem_eq(few.buf, all.buf, all.len);
    ck_assert_uint_eq(cygtrace_drain(), 0);
    decode_stream(&few, &g);
    same_as_ring(&g, bytes);
    free(all.buf);
    free(few.buf);
    got_free(&g);
}
END_TEST

/* Recording between drains into a trickling sink loses nothing while the ring holds it all. */
START_TEST(test_drain_trickle_while_recording)
{
    struct msink m = {.per_call = 7};
    struct got g = {0};
    size_t bytes = ring_bytes(1u << 16, 16);

    cygtrace_init(ring, bytes, CYG_F_OVERWRITE);
    cygtrace_drain_init(msink_take, &m);
    for (unsigned i = 0; i < 3000; i++) {
        record_tree(0x400000 + i * 8, 1 + i % 5, 0);
        cygtrace_drain();
        if (i % 13 == 0)
            m.refuse = 3;
    }
    cygtrace_drain_flush();
    decode_stream(&m, &g);
    ck_assert_uint_eq(g.lost, 0);
    same_as_ring(&g, bytes);
    free(m.buf);
    got_free(&g);
}
END_TEST

/* The address the test's single writer gives event j: enters and exits of 300 functions. */
static uintptr_t lap_fn(uint64_t j)
{
    return 0x400000 + (uintptr_t)(j / 2 % 300) * 0x30;
}

static int by_seq(const void *x, const void *y)
{
    const struct ev *a = x, *b = y;

    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Checks every delivered event against what the writer wrote at its sequence number (the
 * writer's event j is record first + j) and the accounting: read + lost == written, but for
 * the unused end of the writer's last chunk. The rest of a chunk that the drain deferred comes
 * later in the stream: in sequence order, nothing is twice and nothing missing. */
static void check_single_writer(const struct got *g, uint64_t first, uint64_t written)
{
    uint64_t seq = 0, last_time = 0;
    struct ev *all = malloc(g->all.n * sizeof *all + 1);

    ck_assert_ptr_nonnull(all);
    memcpy(all, g->all.ev, g->all.n * sizeof *all);
    qsort(all, g->all.n, sizeof *all, by_seq);
    for (size_t i = 0; i < g->all.n; i++) {
        const struct ev *e = &all[i];

        /* Nothing twice, nothing missing; but the unused end of a chunk, which ends where the
         * next chunk starts. */
        if (e->seq != seq && e->seq % ((uint64_t)1 << ctl_of()->chunk_log2) == 0 &&
            e->seq > seq)
            seq = e->seq;
        ck_assert_uint_eq(e->seq, seq);
        if (e->kind == EV_LOST) {
            seq += e->addr;
            continue;
        }
        seq++;
        if (e->seq < first)
            continue; /* the runtime's own THREAD and START */
        ck_assert_uint_eq(e->kind, (e->seq - first) % 2 ? EV_EXIT : EV_ENTER);
        ck_assert_uint_eq(e->addr, lap_fn(e->seq - first));
        ck_assert_uint_ge(e->time, last_time); /* one thread: time never goes back */
        last_time = e->time;
    }
    free(all);
    ck_assert_uint_le(seq, written);
    ck_assert_uint_lt(written - seq, (uint64_t)1 << ctl_of()->chunk_log2);
    ck_assert_uint_le(g->events.n + g->lost, seq);
}

/* A writer that laps the drain: the stream says exactly how many records it lost. */
START_TEST(test_drain_lapped_skip_exact)
{
    struct msink m = {.per_call = 60};
    struct got g = {0};
    size_t bytes = ring_bytes(64, 16);
    uint64_t j = 0;
    unsigned rng = 12345;

    cygtrace_init(ring, bytes, CYG_F_OVERWRITE);
    cygtrace_drain_init(msink_take, &m);
    for (unsigned round = 0; round < 2000; round++) {
        rng = rng * 1103515245u + 12345u;
        for (unsigned k = (rng >> 16) % 150; k > 0; k--, j++) {
            if (j % 2)
                leave(lap_fn(j), 0);
            else
                enter(lap_fn(j), 0);
        }
        cygtrace_drain();
    }
    cygtrace_drain_flush();
    decode_stream(&m, &g);
    ck_assert_uint_gt(g.lost, 0);
    ck_assert_uint_gt(g.events.n, 10000);
    check_single_writer(&g, 2, ctl_of()->head.v);
    free(m.buf);
    got_free(&g);
}
END_TEST

/* Reserves the next slot the way a hook does, without writing it: a writer preempted (or
 * killed) between its reservation and its store. Returns its sequence number. */
/* The runtime's words of the calling thread, as target/linux/cygtrace_port.h has them. */
extern __thread struct cyg_linux_tls {
    uintptr_t tid, cursor, end;
} cyg_linux_tls;

/* Takes this thread's next slot, as a hook does, and writes nothing there: a hole in the middle
 * of its chunk once the next events fill the slots after it. */
static uint64_t reserve_hole(void)
{
    uintptr_t p = cyg_linux_tls.cursor++;

    ck_assert_msg(p < cyg_linux_tls.end, "the thread's chunk has no slot left");
    return p & (((uint64_t)1 << 48) - 1); /* cursors count from a base of the ring's own */
}

/* What the hook would have stored in the hole: an entry of fn, by thread index 1. */
static void fill_hole(uint64_t seq, uintptr_t fn)
{
    struct cyg_ctl *ctl = ctl_of();
    uint64_t *r =
        (uint64_t *)(void *)(ring + CYG_HDR_BYTES) + (seq & ((1u << ctl->cap_log2) - 1)) * 2;

    r[0] = fn | (uint64_t)1 << CYG64_THREAD_SHIFT;
    __atomic_store_n(&r[1], cyg64_lap_tag(seq, ctl->cap_log2) | 12345, __ATOMIC_RELEASE);
}

static void record_n(unsigned n, uintptr_t fn)
{
    for (unsigned i = 0; i < n; i++)
        enter(fn + i * 0x10, 0);
}

/* A slot reserved but not written yet: the stream stops before it and waits; once written, it
 * and what follows come, nothing skipped. */
START_TEST(test_drain_unwritten_waits)
{
    struct msink m = {0};
    struct got g = {0};
    size_t bytes = ring_bytes(64, 16);
    uint64_t hole;

    cygtrace_init(ring, bytes, CYG_F_OVERWRITE);
    cygtrace_drain_init(msink_take, &m);
    record_n(5, 0x10000);
    hole = reserve_hole();
    record_n(5, 0x20000);
    drain_all();
    decode_stream(&m, &g);
    ck_assert_uint_eq(g.events.n, hole);
    ck_assert_uint_eq(g.lost, 0);
    ck_assert_uint_eq(cygtrace_drain(), 0); /* still waiting */
    fill_hole(hole, 0x30000);
    drain_all();
    decode_stream(&m, &g);
    ck_assert_uint_eq(g.lost, 0);
    ck_assert_uint_eq(g.events.n, hole + 6);
    ck_assert_uint_eq(g.events.ev[hole].addr, 0x30000);
    ck_assert_uint_eq(g.events.ev[hole].time, 12345);
    ck_assert_uint_eq(g.events.ev[hole + 1].addr, 0x20000);
    free(m.buf);
    got_free(&g);
}
END_TEST

/* A chunked ring (64-bit Linux) does not batch: its head moves a chunk at a time, and says
 * neither how many records wait nor whether the target is busy. Every call sends what there
 * is, the rest of a chunk as it fills. (Batching is the firmware's: fw_* and live_stream.) */
START_TEST(test_drain_chunked_sends_at_once)
{
    struct msink m = {0};
    struct got g = {0};
    size_t bytes = ring_bytes(1024, 16), n;

    cygtrace_init(ring, bytes, CYG_F_OVERWRITE);
    cygtrace_drain_init(msink_take, &m);
    drain_all(); /* the delimiter, the description, THREAD and START */
    record_n(10, 0x10000);
    ck_assert_uint_gt(cygtrace_drain(), 0);
    ck_assert_uint_eq(cygtrace_drain(), 0); /* nothing left */
    record_n(CYGTRACE_DRAIN_BATCH, 0x20000); /* the rest of the chunk, and into the next */
    ck_assert_uint_gt(cygtrace_drain(), 0);
    ck_assert_uint_eq(cygtrace_drain(), 0);
    decode_stream(&m, &g);
    n = 0;
    for (size_t i = 0; i < g.events.n; i++)
        n += g.events.ev[i].kind == EV_ENTER;
    ck_assert_uint_eq(n, 10 + CYGTRACE_DRAIN_BATCH);
    ck_assert_uint_eq(g.lost, 0);
    free(m.buf);
    got_free(&g);
}
END_TEST

/* ... but not once the writers are more than half a ring further: then it is skipped, one
 * record, and the rest comes. */
START_TEST(test_drain_unwritten_skipped_half_ring)
{
    struct msink m = {0};
    struct got g = {0};
    size_t bytes = ring_bytes(64, 16);
    uint64_t hole;

    cygtrace_init(ring, bytes, CYG_F_OVERWRITE);
    cygtrace_drain_init(msink_take, &m);
    record_n(5, 0x10000);
    hole = reserve_hole();
    /* Chunks of 16: the rest of the first, then a chunk more: head - hole == 25, not more
     * than half a ring. */
    record_n(15 - hole + 16, 0x20000);
    ck_assert_uint_eq(ctl_of()->head.v - hole, 25);
    drain_all();
    decode_stream(&m, &g);
    ck_assert_uint_eq(g.events.n, hole);
    record_n(1, 0x40000); /* a chunk more: head - hole == 41 */
    drain_all();
    decode_stream(&m, &g);
    ck_assert_uint_eq(g.lost, 1);
    ck_assert_uint_eq(g.events.n, 32);
    ck_assert_uint_eq(g.events.ev[hole].addr, 0x20000);
    ck_assert_uint_eq(g.events.ev[hole].seq, hole + 1);
    ck_assert_uint_eq(g.events.ev[g.events.n - 1].addr, 0x40000);
    free(m.buf);
    got_free(&g);
}
END_TEST

/* A fault froze the ring with a record never written: nobody will write it, so even a plain
 * drain skips it, and the fault records come. */
START_TEST(test_drain_frozen_drains_fault)
{
    struct msink m = {0};
    struct got g = {0};
    size_t bytes = ring_bytes(64, 16);
    uint64_t hole;
    const struct ev *e;

    cygtrace_init(ring, bytes, CYG_F_OVERWRITE);
    cygtrace_drain_init(msink_take, &m);
    record_n(3, 0x10000);
    drain_all();
    hole = reserve_hole();
    record_n(2, 0x20000);
    cygtrace_fault(CYG_FAULT_SIGNAL + 11, 0xbad0, 0xbad4);
    enter(0x50000, 0); /* not recorded: frozen */
    drain_all();
    decode_stream(&m, &g);
    ck_assert_uint_eq(g.lost, 1);
    ck_assert_uint_eq(g.events.n, hole + 4);
    e = &g.events.ev[g.events.n - 2];
    ck_assert_uint_eq(e->kind, EV_FAULT);
    ck_assert_uint_eq(e->data, CYG_FAULT_SIGNAL + 11);
    ck_assert_uint_eq(e->addr, 0xbad0);
    ck_assert_uint_eq(e[1].kind, EV_FAULT_LR);
    ck_assert_uint_eq(e[1].addr, 0xbad4);
    ck_assert_uint_eq(e[1].time, g.events.ev[hole + 1].time); /* the event's before it */
    ck_assert_uint_eq(g.desc.ring.state, CYG_S_RUNNING); /* the last description was sent before */
    free(m.buf);
    got_free(&g);
}
END_TEST

/* flush sends all of a frozen ring through a sink that is full most of the time. */
START_TEST(test_drain_flush_spins)
{
    struct msink m = {.per_call = 3};
    struct got g = {0};
    size_t bytes = ring_bytes(1u << 12, 16);

    cygtrace_init(ring, bytes, CYG_F_OVERWRITE);
    record_tree(0x400000, 500, 0);
    cygtrace_fault(CYG_FAULT_SIGNAL + 6, 0x1234, 0);
    cygtrace_drain_init(msink_take, &m);
    cygtrace_drain_flush();
    ck_assert_uint_gt(m.calls, m.len / 3 - 1);
    decode_stream(&m, &g);
    same_as_ring(&g, bytes);
    ck_assert_uint_eq(g.events.ev[g.events.n - 1].kind, EV_FAULT_LR);
    ck_assert_uint_eq(g.desc.ring.state, CYG_S_FROZEN);
    free(m.buf);
    got_free(&g);
}
END_TEST

/* Stop mode: the ring keeps its first records; the refused ones are the ring's lost counter,
 * not the stream's SKIPs. */
START_TEST(test_drain_stop_mode)
{
    struct msink m = {0};
    struct got g = {0};
    size_t bytes = ring_bytes(64, 16);

    cygtrace_init(ring, bytes, 0);
    cygtrace_drain_init(msink_take, &m);
    record_n(40, 0x10000);
    drain_all();
    record_n(60, 0x20000);
    drain_all();
    decode_stream(&m, &g);
    ck_assert_uint_eq(g.events.n, 64);
    ck_assert_uint_eq(g.lost, 0);
    same_as_ring(&g, bytes);
    cygtrace_drain_init(msink_take, &m); /* a fresh description: the lost count is now 38 */
    m.len = 0;
    drain_all();
    decode_stream(&m, &g);
    ck_assert_uint_eq(g.desc.ring.state, CYG_S_FULL);
    ck_assert_uint_eq(g.desc.ring.lost, 100 + 2 - 64);
    ck_assert_uint_eq(g.events.n, 64);
    free(m.buf);
    got_free(&g);
}
END_TEST

/* With a known clock rate, the description also comes every half second of it, even when
 * nothing else does (a host joining a quiet target); without one, only by bytes. */
START_TEST(test_drain_description_by_time)
{
    struct msink m = {0};
    struct got g = {0};
    struct cyg_ctl *ctl;
    size_t bytes = ring_bytes(1024, 16), before;

    cygtrace_init(ring, bytes, CYG_F_OVERWRITE);
    ctl = cygtrace_control_block();
    ctl->ts_hz = 0; /* outside the sealed bytes: the runtime may set it at any time */
    cygtrace_drain_init(msink_take, &m);
    drain_all();
    before = m.len;
    ck_assert_uint_eq(cygtrace_drain(), 0); /* quiet, no clock rate: nothing */
    /* A clock of 1000 ticks a second: half a second is 500 ticks of it, here of the TSC,
     * a fraction of a microsecond. */
    ctl->ts_hz = 1000;
    for (int i = 0; i < 1000000 && m.len == before; i++)
        cygtrace_drain();
    ck_assert_uint_gt(m.len, before);
    decode_stream(&m, &g);
    ck_assert_uint_eq(g.desc.ring.ts_hz, 1000);
    for (size_t i = 0; i < g.events.n; i++) /* specials (START, THREAD); no call came */
        ck_assert_uint_ge(g.events.ev[i].kind, EV_THREAD);
    free(m.buf);
    got_free(&g);
}
END_TEST

/* The description comes first and again after every CYGTRACE_DRAIN_DESC_BYTES of stream. */
START_TEST(test_drain_description_repeats)
{
    struct msink m = {0};
    struct got g = {0};
    size_t bytes = ring_bytes(1u << 16, 16), since = 0, at = 0;
    unsigned descs = 0;
    uint8_t raw[CYG_FRAME_WIRE_MAX];

    cygtrace_init(ring, bytes, CYG_F_OVERWRITE);
    record_tree(0x400000, 5000, 0);
    cygtrace_drain_init(msink_take, &m);
    drain_all();
    ck_assert_uint_gt(m.len, 5 * DESC_BYTES);
    ck_assert_uint_eq(m.bad, 0);
    /* walk the frames: the lone delimiter, then D, then D at most every DESC_BYTES + a frame */
    ck_assert_uint_eq(m.buf[0], 0);
    for (size_t i = 1; i < m.len; i++) {
        if (m.buf[i] != 0)
            continue;
        ck_assert_int_gt(cobs_decode(m.buf + at + 1, i - at - 1, raw), 0);
        if (raw[0] == CYG_FR_DESC) {
            descs++;
            ck_assert_uint_ge(since, descs == 1 ? 0 : DESC_BYTES);
            since = 0;
        } else {
            ck_assert_uint_eq(raw[0], CYG_FR_EVENTS);
            ck_assert_uint_gt(descs, 0);
        }
        since += i - at;
        ck_assert_uint_le(since, DESC_BYTES + CYG_FRAME_WIRE_MAX);
        at = i;
    }
    ck_assert_uint_ge(descs, m.len / (DESC_BYTES + CYG_FRAME_WIRE_MAX));
    decode_stream(&m, &g);
    ck_assert_uint_eq(g.descs, descs);
    same_as_ring(&g, bytes);
    free(m.buf);
    got_free(&g);
}
END_TEST

/* Before cygtrace_init there is nothing to drain and the sink is never called; after it, the
 * stream starts. A ring made anew starts the stream over, description first. */
START_TEST(test_drain_before_init_and_restart)
{
    struct msink m = {0};
    struct got g = {0};
    size_t bytes = ring_bytes(64, 16);

    ck_assert_ptr_null(cygtrace_control_block());
    cygtrace_drain_init(msink_take, &m);
    ck_assert_uint_eq(cygtrace_drain(), 0);
    cygtrace_drain_flush();
    ck_assert_uint_eq(m.calls, 0);
    cygtrace_init(ring, bytes, CYG_F_OVERWRITE);
    record_n(20, 0x10000);
    drain_all();
    decode_stream(&m, &g);
    ck_assert_uint_eq(g.events.n, 22);
    cygtrace_init(ring, bytes, CYG_F_OVERWRITE); /* head back to 0 */
    record_n(3, 0x20000);
    drain_all();
    decode_stream(&m, &g);
    ck_assert_uint_eq(g.descs, 2);
    ck_assert_uint_eq(g.desc.next_seq, 0);
    ck_assert_uint_eq(g.events.n, 22 + 4); /* START and three entries; the thread has its index */
    ck_assert_uint_eq(g.events.ev[22].kind, EV_START);
    ck_assert_uint_eq(g.events.ev[25].addr, 0x20020);
    free(m.buf);
    got_free(&g);
}
END_TEST

/* A writer thread laps a small ring while the drain reads it from another thread: every
 * record that arrives is the one written at its sequence number (no torn copy), and
 * read + lost == written. */
static volatile int writer_done;

static void *lap_writer(void *arg)
{
    uint64_t n = (uint64_t)(uintptr_t)arg;

    for (uint64_t j = 0; j < n; j++) {
        if (j % 2)
            leave(lap_fn(j), 0);
        else
            enter(lap_fn(j), 0);
    }
    __atomic_store_n(&writer_done, 1, __ATOMIC_RELEASE);
    return NULL;
}

START_TEST(test_drain_concurrent_writer)
{
    struct msink m = {.per_call = 200};
    struct got g = {0};
    pthread_t t;
    /* A small ring, so that the writer is often on the slot the drain copies: without the
     * second look at head, torn copies show up in every run. */
    size_t bytes = ring_bytes(32, 16);
    const uint64_t n = 3000000;

    cygtrace_init(ring, bytes, CYG_F_OVERWRITE);
    cygtrace_drain_init(msink_take, &m);
    ck_assert_int_eq(pthread_create(&t, NULL, lap_writer, (void *)(uintptr_t)n), 0);
    while (!__atomic_load_n(&writer_done, __ATOMIC_ACQUIRE))
        cygtrace_drain();
    pthread_join(t, NULL);
    cygtrace_drain_flush();
    decode_stream(&m, &g);
    /* THREAD and START of the main thread, then the rest of its chunk, which it never used;
     * the writer's THREAD, then its events */
    check_single_writer(&g, ((uint64_t)1 << ctl_of()->chunk_log2) + 1, ctl_of()->head.v);
    ck_assert_uint_gt(g.events.n, 3);
    ck_assert_uint_gt(g.lost, 0);
    free(m.buf);
    got_free(&g);
}
END_TEST

Suite *drain_suite(void)
{
    Suite *s = suite_create("drain");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_drain_roundtrip);
    tcase_add_test(tc, test_drain_callsites);
    tcase_add_test(tc, test_drain_threads);
    tcase_add_test(tc, test_drain_trickle_resumes_exactly);
    tcase_add_test(tc, test_drain_trickle_while_recording);
    tcase_add_test(tc, test_drain_lapped_skip_exact);
    tcase_add_test(tc, test_drain_unwritten_waits);
    tcase_add_test(tc, test_drain_unwritten_skipped_half_ring);
    tcase_add_test(tc, test_drain_chunked_sends_at_once);
    tcase_add_test(tc, test_drain_frozen_drains_fault);
    tcase_add_test(tc, test_drain_flush_spins);
    tcase_add_test(tc, test_drain_stop_mode);
    tcase_add_test(tc, test_drain_description_repeats);
    tcase_add_test(tc, test_drain_description_by_time);
    tcase_add_test(tc, test_drain_before_init_and_restart);
    tcase_add_test(tc, test_drain_concurrent_writer);
    suite_add_tcase(s, tc);
    return s;
}
