/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_rtt.c - the RTT sink of the real Linux runtime (target/core/cygtrace_rtt.c): its control
 * block against the offsets of common/cyg_rtt.h at this build's pointer size, the ID, the ring
 * of the up buffer (wrap-around, full, the host's rd_off), a channel of a SEGGER block of the
 * firmware's (cygtrace_rtt_use), and the drain streaming through it to the host's decoder. The
 * host's side is the real one (host/source/rtt.c: the block found, checked, the channel read
 * and rd_off stored), reading this process's memory where a probe would read the target's. */
#include <check.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cyg_rtt.h"
#include "cygtrace.h"
#include "cygtrace_rtt.h"
#include "decode/dec.h"
#include "decode/sdec.h"
#include "decode/sframe.h"
#include "source/rtt.h"
#include "suites.h"

void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

#define W sizeof(void *)
#define SIZE CYGTRACE_RTT_BUFFER /* as the runtime is built */

/* Back to our own block, empty: every test starts there, forked or not (CK_FORK=no). */
static struct cygtrace_rtt_buffer *fresh(void)
{
    struct cygtrace_rtt_buffer *up = &cygtrace_rtt.up[0];

    cygtrace_rtt_init();
    ck_assert_int_eq(cygtrace_rtt_use(&cygtrace_rtt, 0), 0);
    up->wr_off = 0;
    up->rd_off = 0;
    return up;
}

/* The target's memory, as the host reads it: this process's. */
static int self_read(void *arg, uint64_t addr, void *buf, size_t len, char *err, size_t errlen)
{
    (void)arg, (void)err, (void)errlen;
    memcpy(buf, (const void *)(uintptr_t)addr, len);
    return 0;
}

static int self_write(void *arg, uint64_t addr, const void *buf, size_t len, char *err,
                      size_t errlen)
{
    (void)arg, (void)err, (void)errlen;
    memcpy((void *)(uintptr_t)addr, buf, len);
    return 0;
}

static const struct rtt_mem self = {self_read, self_write, NULL};

/* The host finds the channel named "cygtrace" in the control block at cb, as at a symbol. */
static struct rtt_chan host_find(const void *cb)
{
    uint64_t at = (uintptr_t)cb;
    struct rtt_chan ch;
    char err[256];

    ck_assert_msg(rtt_find(&self, W, &at, 1, NULL, 0, &ch, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(ch.named, 1);
    return ch;
}

/* The host takes what the channel holds into out (at most cap), then stores rd_off. */
static size_t host_read(struct rtt_chan *ch, uint8_t *out, size_t cap)
{
    struct rtt_read_info info;
    char err[256];
    long n = rtt_read(&self, ch, out, cap, &info, err, sizeof err);

    ck_assert_msg(n >= 0, "%s", err);
    return (size_t)n;
}

static void pattern(uint8_t *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(seed + i * 7u);
}

START_TEST(test_rtt_layout)
{
    ck_assert_uint_eq(offsetof(struct cygtrace_rtt_cb, id), 0);
    ck_assert_uint_eq(sizeof cygtrace_rtt.id, CYG_RTT_ID_BYTES);
    ck_assert_uint_eq(offsetof(struct cygtrace_rtt_cb, max_up), CYG_RTT_OFF_MAX_UP);
    ck_assert_uint_eq(offsetof(struct cygtrace_rtt_cb, max_down), CYG_RTT_OFF_MAX_DOWN);
    ck_assert_uint_eq(offsetof(struct cygtrace_rtt_cb, up), CYG_RTT_OFF_BUFFERS);
    ck_assert_uint_eq(offsetof(struct cygtrace_rtt_cb, down),
                      CYG_RTT_OFF_BUFFERS + CYG_RTT_DESC_BYTES(W));
    ck_assert_uint_eq(sizeof(struct cygtrace_rtt_cb),
                      CYG_RTT_OFF_BUFFERS + 2 * CYG_RTT_DESC_BYTES(W));
    ck_assert_uint_eq(sizeof(struct cygtrace_rtt_buffer), CYG_RTT_DESC_BYTES(W));
    ck_assert_uint_eq(offsetof(struct cygtrace_rtt_buffer, name), CYG_RTT_DESC_NAME(W));
    ck_assert_uint_eq(offsetof(struct cygtrace_rtt_buffer, buffer), CYG_RTT_DESC_BUFFER(W));
    ck_assert_uint_eq(offsetof(struct cygtrace_rtt_buffer, size), CYG_RTT_DESC_SIZE(W));
    ck_assert_uint_eq(offsetof(struct cygtrace_rtt_buffer, wr_off), CYG_RTT_DESC_WR_OFF(W));
    ck_assert_uint_eq(offsetof(struct cygtrace_rtt_buffer, rd_off), CYG_RTT_DESC_RD_OFF(W));
    ck_assert_uint_eq(offsetof(struct cygtrace_rtt_buffer, flags), CYG_RTT_DESC_FLAGS(W));
    /* The Cortex-M figures, as the probes have them: 24-byte descriptors from offset 24. */
    ck_assert_uint_eq(CYG_RTT_DESC_BYTES(4), 24);
    ck_assert_uint_eq(CYG_RTT_DESC_WR_OFF(4), 12);
    ck_assert_uint_eq(CYG_RTT_DESC_RD_OFF(4), 16);
}
END_TEST

START_TEST(test_rtt_init_writes_id_last)
{
    char want[CYG_RTT_ID_BYTES] = CYG_RTT_ID;
    const struct cygtrace_rtt_buffer *up = &cygtrace_rtt.up[0], *down = &cygtrace_rtt.down[0];

    /* Forked, nothing has made the block yet: no ID in .bss (nor any initial copy of it). */
    if (up->buffer == NULL)
        ck_assert_int_eq(cygtrace_rtt.id[0], 0);
    fresh();
    ck_assert_mem_eq(cygtrace_rtt.id, want, CYG_RTT_ID_BYTES); /* NUL-padded */
    ck_assert_int_eq(cygtrace_rtt.max_up, 1);
    ck_assert_int_eq(cygtrace_rtt.max_down, 1);
    ck_assert_str_eq(up->name, CYG_RTT_CHANNEL_NAME);
    ck_assert_ptr_nonnull(up->buffer);
    ck_assert_uint_eq(up->size, SIZE);
    ck_assert_uint_eq(up->flags & CYG_RTT_MODE_MASK, CYG_RTT_MODE_TRIM);
    /* the down buffer: there, with no bytes, which every tool takes as inactive */
    ck_assert_ptr_null(down->buffer);
    ck_assert_uint_eq(down->size, 0);
    /* idempotent: a second init leaves the channel as it is */
    cygtrace_rtt.up[0].wr_off = 5;
    cygtrace_rtt_init();
    ck_assert_uint_eq(up->wr_off, 5);
    cygtrace_rtt.up[0].wr_off = 0;
}
END_TEST

START_TEST(test_rtt_sink_wraps_at_the_end)
{
    struct cygtrace_rtt_buffer *up = fresh();
    struct rtt_chan ch = host_find(&cygtrace_rtt);
    uint8_t in[100], out[200];

    up->wr_off = up->rd_off = SIZE - 10;
    pattern(in, 30, 1);
    ck_assert_uint_eq(cygtrace_rtt_sink(NULL, in, 30), 30);
    ck_assert_uint_eq(up->wr_off, 20);
    ck_assert_mem_eq(up->buffer + SIZE - 10, in, 10);
    ck_assert_mem_eq(up->buffer, in + 10, 20);
    ck_assert_uint_eq(host_read(&ch, out, sizeof out), 30);
    ck_assert_mem_eq(out, in, 30);
    ck_assert_uint_eq(up->rd_off, 20);
    /* a store that ends exactly at the end leaves wr_off at 0, not at size */
    up->wr_off = up->rd_off = SIZE - 16;
    ck_assert_uint_eq(cygtrace_rtt_sink(NULL, in, 16), 16);
    ck_assert_uint_eq(up->wr_off, 0);
}
END_TEST

START_TEST(test_rtt_sink_full_takes_less)
{
    struct cygtrace_rtt_buffer *up = fresh();
    struct rtt_chan ch = host_find(&cygtrace_rtt);
    static uint8_t in[SIZE + 100], out[SIZE];

    pattern(in, sizeof in, 3);
    /* size - 1 at most: wr_off == rd_off is empty */
    ck_assert_uint_eq(cygtrace_rtt_sink(NULL, in, sizeof in), SIZE - 1);
    ck_assert_uint_eq(up->wr_off, SIZE - 1);
    ck_assert_uint_eq(cygtrace_rtt_sink(NULL, in, 10), 0);
    ck_assert_uint_eq(cygtrace_rtt_sink(NULL, in, 0), 0);
    /* the host takes 50: 50 fit again, wrapping */
    ck_assert_uint_eq(host_read(&ch, out, 50), 50);
    ck_assert_mem_eq(out, in, 50);
    ck_assert_uint_eq(cygtrace_rtt_sink(NULL, in + SIZE - 1, 80), 50);
    ck_assert_uint_eq(up->wr_off, 49);
    ck_assert_uint_eq(cygtrace_rtt_sink(NULL, in, 1), 0);
    ck_assert_uint_eq(host_read(&ch, out, sizeof out), SIZE - 1);
    ck_assert_mem_eq(out, in + 50, SIZE - 1);
    ck_assert_uint_eq(up->rd_off, up->wr_off);
    /* a host that stored nonsense in rd_off gets nothing, and nothing is stored */
    up->rd_off = SIZE + 3;
    ck_assert_uint_eq(cygtrace_rtt_sink(NULL, in, 10), 0);
    ck_assert_uint_eq(up->wr_off, 49);
}
END_TEST

/* SEGGER's block as SEGGER_RTT.c lays it out by default: 3 up and 3 down buffers. */
struct segger_cb {
    char id[16];
    int32_t max_up, max_down;
    struct cygtrace_rtt_buffer up[3], down[3];
};

START_TEST(test_rtt_use_segger_channel)
{
    static struct segger_cb seg = {.id = "SEGGER RTT", .max_up = 3, .max_down = 3};
    static uint8_t term[64], chan1[48];
    /* as long as the host reads of a name (RTT_NAME_MAX): this process is the target memory,
     * and ASan would see the read run past a string literal */
    static const char term_name[RTT_NAME_MAX] = "Terminal", chan_name[RTT_NAME_MAX] = "cygtrace";
    uint8_t in[100], out[100];
    struct rtt_chan ch;

    seg.up[0] = (struct cygtrace_rtt_buffer){term_name, term, sizeof term, 0, 0, 0};
    seg.up[1] = (struct cygtrace_rtt_buffer){chan_name, chan1, sizeof chan1, 0, 0, 0};
    fresh(); /* ours made: using SEGGER's must take our ID away */
    ck_assert_int_eq(cygtrace_rtt_use(NULL, 0), -1);
    ck_assert_int_eq(cygtrace_rtt_use(&seg, 3), -1); /* no such channel */
    ck_assert_int_eq(cygtrace_rtt_use(&seg, 2), -1); /* no buffer */
    ck_assert_int_eq(cygtrace_rtt.id[0], 'S');       /* a failed use changes nothing */
    ck_assert_int_eq(cygtrace_rtt_use(&seg, 1), 0);
    ck_assert_int_ne(cygtrace_rtt.id[0], 'S');
    pattern(in, sizeof in, 9);
    ck_assert_uint_eq(cygtrace_rtt_sink(NULL, in, sizeof in), sizeof chan1 - 1);
    ck_assert_uint_eq(seg.up[1].wr_off, sizeof chan1 - 1);
    ck_assert_uint_eq(seg.up[0].wr_off, 0); /* the terminal untouched */
    ch = host_find(&seg);
    ck_assert_uint_eq(ch.index, 1);
    ck_assert_uint_eq(host_read(&ch, out, sizeof out), sizeof chan1 - 1);
    ck_assert_mem_eq(out, in, sizeof chan1 - 1);
    /* init does nothing now: the channel stays SEGGER's */
    cygtrace_rtt_init();
    ck_assert_uint_eq(cygtrace_rtt_sink(NULL, in, 5), 5);
    ck_assert_uint_eq(seg.up[1].wr_off, 4); /* 47 + 5 - 48 */
    /* a SEGGER block not set up yet (its init is lazy) has no channel */
    memset(&seg, 0, sizeof seg);
    ck_assert_int_eq(cygtrace_rtt_use(&seg, 0), -1);
    fresh();
}
END_TEST

/* ---- the drain through the channel, a host polling it --------------------------------------- */

static uint8_t ring[CYGTRACE_RING_OVERHEAD + 4096u * 32u] __attribute__((aligned(64)));

struct got {
    uint8_t *buf;
    size_t len, cap;
    uint64_t enters, exits;
    struct ev last; /* the event before, to check the order */
    unsigned events;
};

static void got_poll(struct got *g, struct rtt_chan *ch)
{
    if (g->cap - g->len < SIZE) {
        g->cap = g->cap * 2 + SIZE;
        g->buf = realloc(g->buf, g->cap);
        ck_assert_ptr_nonnull(g->buf);
    }
    g->len += host_read(ch, g->buf + g->len, g->cap - g->len);
}

/* Each event after the one before it, each exit of the function entered just before. */
static void on_event(void *arg, const struct ev *e)
{
    struct got *g = arg;

    if (g->events++ > 0)
        ck_assert_uint_gt(e->seq, g->last.seq);
    if (e->kind == EV_EXIT && g->last.kind == EV_ENTER && e->seq == g->last.seq + 1)
        ck_assert_uint_eq(e->addr, g->last.addr);
    g->enters += e->kind == EV_ENTER;
    g->exits += e->kind == EV_EXIT;
    g->last = *e;
}

static struct sdec *the_dec;

static void on_frame(void *arg, const uint8_t *payload, size_t len)
{
    (void)arg;
    ck_assert_int_eq(sdec_frame(the_dec, payload, len), 0);
}

/* Decodes what the host took; every byte must be in a good frame. */
static void decode(struct got *g, struct sdec_stats *ds)
{
    struct sframe_stats fs;
    struct sframe *f;

    the_dec = sdec_new(on_event, g);
    f = sframe_new(on_frame, NULL);
    ck_assert_ptr_nonnull(the_dec);
    ck_assert_ptr_nonnull(f);
    sframe_feed(f, g->buf, g->len);
    sframe_get_stats(f, &fs);
    sdec_get_stats(the_dec, ds);
    ck_assert_uint_eq(fs.bad, 0);
    ck_assert_uint_eq(ds->malformed, 0);
    ck_assert_uint_eq(ds->lost_link, 0);
    ck_assert_uint_gt(ds->desc, 0);
    sframe_free(f);
    sdec_free(the_dec);
}

/* n calls of made-up functions, drained after each; the host polls every `every` drains. */
static void stream(struct got *g, unsigned n, unsigned every)
{
    struct rtt_chan ch;

    fresh();
    ck_assert_int_gt(cygtrace_init(ring, sizeof ring, CYG_F_OVERWRITE), 0);
    cygtrace_drain_init(cygtrace_rtt_sink, NULL);
    ch = host_find(&cygtrace_rtt);
    for (unsigned i = 0; i < n; i++) {
        uintptr_t fn = 0x400000 + (i % 97) * 16;

        __cyg_profile_func_enter((void *)fn, 0);
        __cyg_profile_func_exit((void *)fn, 0);
        cygtrace_drain();
        if (i % every == 0)
            got_poll(g, &ch);
    }
    /* cygtrace_drain_flush() would spin while the channel is full, with no host reading in
     * this one thread: poll and drain by turns until the drain, given room, has nothing left */
    do
        got_poll(g, &ch);
    while (cygtrace_drain() > 0);
    got_poll(g, &ch);
    cygtrace_stop();
}

START_TEST(test_rtt_drain_streams_through_the_channel)
{
    struct got g = {0};
    struct sdec_stats ds;

    stream(&g, 20000, 1);
    decode(&g, &ds);
    ck_assert_uint_eq(ds.lost_target, 0);
    ck_assert_uint_eq(g.enters, 20000);
    ck_assert_uint_eq(g.exits, 20000);
    free(g.buf);
}
END_TEST

START_TEST(test_rtt_slow_host_counts_losses)
{
    struct got g = {0};
    struct sdec_stats ds;

    /* 4096 records of ring, a channel of 1 KB, a host that reads once every 2000 calls */
    stream(&g, 20000, 2000);
    decode(&g, &ds);
    ck_assert_uint_gt(ds.lost_target, 0);
    ck_assert_uint_gt(g.enters, 0);
    ck_assert_uint_lt(g.enters, 20000);
    /* every record is either decoded or counted lost (one thread: no chunk is left idle) */
    ck_assert_uint_eq(g.enters + g.exits + ds.lost_target, 40000);
    free(g.buf);
}
END_TEST

Suite *rtt_suite(void)
{
    Suite *s = suite_create("rtt");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_rtt_layout);
    tcase_add_test(tc, test_rtt_init_writes_id_last);
    tcase_add_test(tc, test_rtt_sink_wraps_at_the_end);
    tcase_add_test(tc, test_rtt_sink_full_takes_less);
    tcase_add_test(tc, test_rtt_use_segger_channel);
    tcase_add_test(tc, test_rtt_drain_streams_through_the_channel);
    tcase_add_test(tc, test_rtt_slow_host_counts_losses);
    suite_add_tcase(s, tc);
    return s;
}
