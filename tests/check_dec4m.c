/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_dec4m.c - version 4 rings of 32-bit targets (docs/FORMAT.md section 14): the format's
 * vectors, and rings written here as the runtime writes them (a TIME record each time the
 * clock's high bits move, specials of one to three words, torn and lapped specials, a counter
 * that wrapped) read back through a source, event for event. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "crc32.h"
#include "cyg_format.h"
#include "decode/hdr.h"
#include "source/source.h"
#include "util/le.h"

#define K4 4u /* cap_log2 of the small rings */

/* A writer of version 4 words, as FORMAT.md 14.3 and 14.4 say. */
struct w4 {
    uint8_t buf[CYG_HDR_BYTES + (4u << 10) + CYG_CTRL_BYTES];
    unsigned k, f, t, flags, ts_bits;
    uint32_t base, epoch;
    uint64_t seq;
    int have_epoch;
};

static uint32_t *slot(struct w4 *g, uint64_t seq)
{
    return (uint32_t *)(void *)(g->buf + CYG_HDR_BYTES + (seq & ((1u << g->k) - 1)) * 4);
}

static void w4_init(struct w4 *g, unsigned k, unsigned f, uint32_t base, unsigned flags)
{
    memset(g, 0, sizeof *g);
    g->k = k;
    g->f = f;
    g->t = 30 - f;
    g->base = base;
    g->flags = flags | CYG_F_TIMESTAMPS;
    g->ts_bits = 32;
    for (uint64_t i = 0; i < (1u << k); i++)
        *slot(g, i) = CYG4_FILL;
}

static void w4_special(struct w4 *g, unsigned type, uint32_t data, uint32_t payload)
{
    unsigned n = cyg4_special_words(data, payload);

    for (unsigned i = n; i-- > 0;) /* the more words first, the header last */
        *slot(g, g->seq + i) = cyg4_special_word(i, type, data, payload, g->seq, g->k, n);
    g->seq += n;
}

/* An event at clock c: a TIME record first when c's bits from t - 1 up moved. */
static void w4_call(struct w4 *g, uint32_t fn, unsigned exit, uint32_t c)
{
    if (!g->have_epoch || c >> (g->t - 1) != g->epoch) {
        w4_special(g, CYG_SP_TIME, 0, c);
        g->epoch = c >> (g->t - 1);
        g->have_epoch = 1;
    }
    *slot(g, g->seq) = cyg4_call((fn & ~1u) | exit, c, g->seq, g->k, g->f);
    g->seq++;
}

/* The control block, sealed: the ring's size (with the control area when area). */
static size_t w4_seal(struct w4 *g, int area)
{
    uint8_t *p = g->buf;

    memset(p, 0, CYG_HDR_BYTES);
    memcpy(p, CYG_MAGIC, 8);
    le_put(p + CYG_OFF_VERSION, 4, 2);
    p[CYG_OFF_WORD] = 4;
    p[CYG_OFF_REC] = 4;
    p[CYG_OFF_CAP_LOG2] = (uint8_t)g->k;
    p[CYG_OFF_FLAGS] = (uint8_t)g->flags;
    le_put(p + CYG_OFF_MACHINE, 40, 2);
    le_put(p + CYG_OFF_HDR, CYG_HDR_BYTES, 4);
    p[CYG_OFF_TS_BITS] = (uint8_t)g->ts_bits;
    p[CYG_OFF_REC4] = (uint8_t)(g->f | (area ? CYG4_AREA : 0));
    le_put(p + CYG_OFF_TEXT_BASE, g->base, 4);
    le_put(p + CYG_OFF_CHECK, crc32_update(0, p, CYG_OFF_CHECK), 4);
    p[CYG_OFF_STATE] = CYG_S_FROZEN;
    le_put(p + CYG_OFF_HEAD, g->seq & 0xffffffffu, 8);
    le_put(p + CYG_OFF_TS_HZ, 100000000, 8);
    if (area) {
        uint8_t *a = g->buf + CYG_HDR_BYTES + (4u << g->k);

        memset(a, 0, CYG_CTRL_BYTES);
        le_put(a + CYG_CTRL_OFF_MAGIC, CYG_CTRL_MAGIC, 4);
        le_put(a + CYG_CTRL_OFF_EVENTS, 0xffffffffu, 4);
    }
    return CYG_HDR_BYTES + (4u << g->k) + (area ? CYG_CTRL_BYTES : 0);
}

static struct source *w4_open(struct w4 *g, int area, char *err, size_t errlen)
{
    size_t n = w4_seal(g, area);

    return source_open_src(src_open_mem("v4", g->buf, n, 0), err, errlen);
}

static unsigned all(struct source *s, struct ev *ev, unsigned max)
{
    char err[256];
    unsigned n = 0;
    struct ev e;
    int rc;

    while ((rc = source_next(s, &e, err, sizeof err)) == 1)
        if (n < max)
            ev[n++] = e;
    ck_assert_msg(rc == 0, "%s", err);
    return n;
}

START_TEST(test_dec4m_vectors)
{
    /* FORMAT.md 14.5 */
    ck_assert_uint_eq(cyg4_call(0xC61u & ~1u, 0x12345678u, 0, 4, 17), 0x2CF00C60u);
    ck_assert_uint_eq(cyg4_call(0xC61u, 0x12345678u, 17, 4, 17), 0x6CF00C61u);
    ck_assert_uint_eq(cyg4_special_words(5, 0x20001000u), 2);
    ck_assert_uint_eq(cyg4_special_word(0, CYG_SP_CONTEXT, 5, 0x20001000u, 2, 4, 2), 0xA1201000u);
    ck_assert_uint_eq(cyg4_special_word(1, CYG_SP_CONTEXT, 5, 0x20001000u, 2, 4, 2), 0x80002900u);
    /* lengths: START fits the header, a TIME one more word, a classed mark two */
    ck_assert_uint_eq(cyg4_special_words(0, 0), 1);
    ck_assert_uint_eq(cyg4_special_words(0, 0xffffffffu), 2);
    ck_assert_uint_eq(cyg4_special_words((1u << 18) - 1, 0xffffffffu), 2);
    ck_assert_uint_eq(cyg4_special_words(2u << 19 | 7, 42), 3);
    ck_assert_uint_eq(cyg4_special_words(0xffffffu, 0xffffffffu), 3);
    /* the fill is a more word of lap 1: unwritten in lap 0, a stray word in lap 1 */
    ck_assert_uint_eq(CYG4_FILL & (CYG4_S | CYG4_L | CYG4_H), CYG4_S | CYG4_L);
}
END_TEST

START_TEST(test_dec4m_calls_specials_times)
{
    struct w4 g;
    struct source *s;
    struct source_stats st;
    struct ev e[16];
    char err[256];

    w4_init(&g, K4, 17, 0, 0);
    w4_special(&g, CYG_SP_CONTEXT, 5, 0x20001000u);        /* 2 words */
    w4_call(&g, 0xC61, 0, 0x12345010u);                     /* TIME (2) + 1 */
    w4_special(&g, CYG_SP_MARK, 2u << 19 | 7, 42);          /* 3 words */
    w4_call(&g, 0xC61, 1, 0x12345100u);                     /* same epoch: 1 */
    w4_call(&g, 0x1F00D, 0, 0x12346100u);                   /* new epoch: TIME + 1 */
    w4_special(&g, CYG_SP_START, 0, 0);                     /* 1 word */
    ck_assert_uint_eq(g.seq, 13);
    s = w4_open(&g, 1, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    ck_assert_uint_eq(source_describe(s)->version, 4);
    ck_assert_uint_eq(source_describe(s)->expanded, 4);
    ck_assert_uint_eq(source_describe(s)->ctrl_state, DEC_CTRL_OK);
    ck_assert_uint_eq(all(s, e, 16), 6);
    ck_assert_uint_eq(e[0].kind, EV_CONTEXT);
    ck_assert_uint_eq(e[0].data, 5);
    ck_assert_uint_eq(e[0].addr, 0x20001000u);
    ck_assert_uint_eq(e[1].kind, EV_ENTER);
    ck_assert_uint_eq(e[1].addr, 0xC60);
    ck_assert_uint_eq(e[1].ctx, 5);
    ck_assert_uint_eq(e[2].kind, EV_MARK);
    ck_assert_uint_eq(e[2].cls, 2);
    ck_assert_uint_eq(e[2].data, 7);
    ck_assert_uint_eq(e[2].addr, 42);
    ck_assert_uint_eq(e[3].kind, EV_EXIT);
    ck_assert_uint_eq(e[3].addr, 0xC60);
    ck_assert_uint_eq(e[3].time - e[1].time, 0xF0);
    ck_assert_uint_eq(e[4].kind, EV_ENTER);
    ck_assert_uint_eq(e[4].addr, 0x1F00C);
    ck_assert_uint_eq(e[4].time - e[1].time, 0x10F0);
    ck_assert_uint_eq(e[5].kind, EV_START);
    source_stats(s, &st);
    ck_assert_uint_eq(st.dec.unwritten, 0);
    ck_assert_uint_eq(st.dec.times, 2);
    ck_assert_uint_eq(st.dec.padding, 1 + 1 + 2 + 1); /* the more words */
    source_close(s);
}
END_TEST

/* Addresses past 2^F come back from text_base, which need not be aligned. */
START_TEST(test_dec4m_text_base)
{
    struct w4 g;
    struct source *s;
    struct ev e[4];
    char err[256];

    w4_init(&g, K4, 17, 0x08010000u, 0);
    w4_call(&g, 0x08025001u, 0, 100);
    w4_call(&g, 0x0802FFFFu, 1, 200);
    w4_call(&g, 0x08010001u, 1, 300);
    s = w4_open(&g, 0, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    ck_assert_uint_eq(source_describe(s)->ctrl_state, DEC_CTRL_NONE);
    ck_assert_uint_eq(all(s, e, 4), 3);
    ck_assert_uint_eq(e[0].addr, 0x08025000u);
    ck_assert_uint_eq(e[1].addr, 0x0802FFFEu);
    ck_assert_uint_eq(e[2].addr, 0x08010000u);
    ck_assert_uint_eq(e[2].kind, EV_EXIT);
    source_close(s);
}
END_TEST

/* A writer that died between its more words and its header (a fault in the middle), and a
 * header whose more word never came: neither is an event, and the calls around them are. */
START_TEST(test_dec4m_torn_special)
{
    struct w4 g;
    struct source *s;
    struct source_stats st;
    struct ev e[8];
    char err[256];
    unsigned n;

    w4_init(&g, K4, 17, 0, 0);
    w4_call(&g, 0x101, 0, 10); /* TIME (1 word) + call: seq 0..1 */
    /* a mark of 3 words whose header was never stored: seq 2..4 */
    w4_special(&g, CYG_SP_MARK, 2u << 19 | 7, 0xC0000000u);
    *slot(&g, 2) = CYG4_FILL;
    /* a header whose more word was never stored: seq 5..6 */
    w4_special(&g, CYG_SP_CONTEXT, 3, 0x20000000u);
    *slot(&g, 6) = CYG4_FILL;
    w4_call(&g, 0x101, 1, 20); /* seq 7 */
    s = w4_open(&g, 0, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    n = all(s, e, 8);
    ck_assert_uint_eq(n, 2);
    ck_assert_uint_eq(e[0].kind, EV_ENTER);
    ck_assert_uint_eq(e[1].kind, EV_EXIT);
    ck_assert_uint_eq(e[1].seq, 7);
    ck_assert_uint_eq(e[1].time - e[0].time, 10);
    source_stats(s, &st);
    ck_assert_uint_eq(st.dec.unwritten, 5); /* 3 + 2 */
    source_close(s);
}
END_TEST

/* Overwrite mode, many laps: the oldest slots are more words of a special whose header the
 * newest lap overwrote; the calls before the first TIME record left keep their steps and lie
 * just before it; every exit is named. */
START_TEST(test_dec4m_lapped)
{
    struct w4 g;
    struct source *s;
    struct source_stats st;
    struct ev e[32];
    uint32_t clk[64];
    unsigned n, calls = 0;
    char err[256];

    w4_init(&g, K4, 17, 0, CYG_F_OVERWRITE);
    for (unsigned i = 0; i < 40; i++) {
        uint32_t c = 0x7ffff000u + i * 700u; /* crosses 2^31, and an epoch every 6 calls */

        if (i % 5 == 4)
            w4_special(&g, CYG_SP_MARK, 2u << 19 | i, i); /* 3 words */
        w4_call(&g, 0x200 + (i & 3) * 0x40 + 1, i & 1, c);
        clk[i] = c;
    }
    s = w4_open(&g, 0, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    n = all(s, e, 32);
    ck_assert_uint_gt(n, 4);
    source_stats(s, &st);
    ck_assert_uint_eq(st.dec.first_seq, g.seq - 16);
    for (unsigned i = 0; i < n; i++) {
        ck_assert_uint_ge(e[i].seq, g.seq - 16);
        ck_assert(e[i].kind == EV_ENTER || e[i].kind == EV_EXIT || e[i].kind == EV_MARK);
        if (e[i].kind == EV_MARK) {
            ck_assert_uint_eq(e[i].cls, 2);
            ck_assert_uint_eq(e[i].data, e[i].addr);
            continue;
        }
        ck_assert_uint_eq(e[i].addr & ~0xc0u, 0x200);
        calls++;
    }
    /* the last call's steps back to the earlier ones are the clock's, exactly: each call of
     * the loop is 700 ticks after the one before */
    for (unsigned i = 0, last = n; i < n; i++)
        if (e[i].kind != EV_MARK) {
            if (last != n)
                ck_assert_uint_eq(e[i].time - e[last].time, 700);
            last = i;
        }
    (void)clk;
    ck_assert_uint_ge(calls, 4);
    source_close(s);
}
END_TEST

/* TIMELO: a glue's TIME within the epoch, one word: the specials after it take its time, and
 * the calls after it step from it. */
START_TEST(test_dec4m_timelo)
{
    struct w4 g;
    struct source *s;
    struct source_stats st;
    struct ev e[8];
    char err[256];

    w4_init(&g, K4, 17, 0, 0);
    w4_call(&g, 0x501, 0, 0x40000);                      /* TIME + call */
    w4_special(&g, CYG4_SP_TIMELO, 0, (0x40000 + 3000) & 0x1fff);
    ck_assert_uint_eq(cyg4_special_words(0, 0x1fff), 1); /* one word */
    w4_special(&g, CYG_SP_CONTEXT, 2, 0x20000100u);
    w4_call(&g, 0x541, 0, 0x40000 + 3100);
    s = w4_open(&g, 0, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    ck_assert_uint_eq(all(s, e, 8), 3);
    ck_assert_uint_eq(e[1].kind, EV_CONTEXT);
    ck_assert_uint_eq(e[1].time - e[0].time, 3000);
    ck_assert_uint_eq(e[2].time - e[0].time, 3100);
    source_stats(s, &st);
    ck_assert_uint_eq(st.dec.times, 2);
    source_close(s);
}
END_TEST

/* A clock that counts down (SysTick, 24 bits): the host inverts the low bits and the TIME
 * records, and the steps come out as they were. */
START_TEST(test_dec4m_down)
{
    struct w4 g;
    struct source *s;
    struct ev e[8];
    char err[256];

    w4_init(&g, K4, 17, 0, CYG_F_TS_DOWN);
    g.ts_bits = 24;
    w4_call(&g, 0x301, 0, 0xFFFFFFu - 1000);
    w4_call(&g, 0x301, 1, 0xFFFFFFu - 1300);
    w4_call(&g, 0x341, 0, 0xFFFFFFu - 9300); /* a new epoch */
    s = w4_open(&g, 0, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    ck_assert_uint_eq(all(s, e, 8), 3);
    ck_assert_uint_eq(e[1].time - e[0].time, 300);
    ck_assert_uint_eq(e[2].time - e[0].time, 8300);
    source_close(s);
}
END_TEST

/* The 32-bit head wrapped: slot head holds a record, not the fill. */
START_TEST(test_dec4m_wrapped_head)
{
    struct w4 g;
    struct source *s;
    struct source_stats st;
    struct ev e[32];
    char err[256];

    w4_init(&g, K4, 17, 0, CYG_F_OVERWRITE);
    g.seq = ((uint64_t)1 << 32) - 40; /* laps before, so that slot head holds no fill */
    for (unsigned i = 0; i < 45; i++)
        w4_call(&g, 0x401, i & 1, 1000 + i * 10);
    ck_assert_uint_eq(g.seq, ((uint64_t)1 << 32) + 6); /* a TIME of 1 word, 45 calls */
    s = w4_open(&g, 0, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    ck_assert_uint_eq(source_describe(s)->head, g.seq & 0xffffffffu);
    ck_assert_uint_eq(all(s, e, 32), 16);
    source_stats(s, &st);
    ck_assert_uint_eq(st.dec.end_seq, g.seq);
    ck_assert_uint_eq(e[15].time - e[0].time, 150);
    source_close(s);
}
END_TEST

/* A dump that ends amid the records: the slots past its end are truncated, and the control
 * area is missing where the dump itself ends (not where its rewriting does). */
START_TEST(test_dec4m_truncated)
{
    struct w4 g;
    struct source *s;
    struct source_stats st;
    struct ev e[16];
    char err[256];
    size_t n = CYG_HDR_BYTES + 4 * 6;

    w4_init(&g, K4, 17, 0, 0);
    for (unsigned i = 0; i < 8; i++)
        w4_call(&g, 0x601, i & 1, 50 + i);
    (void)w4_seal(&g, 1);
    s = source_open_src(src_open_mem("short", g.buf, n, 0), err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    ck_assert_uint_eq(source_describe(s)->ctrl_state, DEC_CTRL_SHORT);
    ck_assert_uint_eq(source_describe(s)->ctrl_end, n);
    ck_assert_uint_eq(all(s, e, 16), 5); /* slot 0 the TIME, 1..5 calls */
    source_stats(s, &st);
    ck_assert_uint_eq(st.dec.truncated, g.seq - 6);
    source_close(s);
}
END_TEST

START_TEST(test_dec4m_refused)
{
    struct w4 g;
    struct dec_ring r;
    char err[256];
    size_t n;

    w4_init(&g, K4, 17, 0, 0);
    n = w4_seal(&g, 0);
    ck_assert_int_eq(hdr_parse(g.buf, n, &r, err, sizeof err), 0);
    ck_assert_uint_eq(r.rec4, 17);
    /* a function field out of range */
    g.buf[CYG_OFF_REC4] = 30;
    le_put(g.buf + CYG_OFF_CHECK, crc32_update(0, g.buf, CYG_OFF_CHECK), 4);
    ck_assert_int_eq(hdr_parse(g.buf, n, &r, err, sizeof err), -1);
    ck_assert_str_eq(err, "control block: inconsistent fields");
    /* 8-byte records with version 4 and 4-byte words */
    g.buf[CYG_OFF_REC4] = 17;
    g.buf[CYG_OFF_REC] = 8;
    le_put(g.buf + CYG_OFF_CHECK, crc32_update(0, g.buf, CYG_OFF_CHECK), 4);
    ck_assert_int_eq(hdr_parse(g.buf, n, &r, err, sizeof err), -1);
    ck_assert_str_eq(err, "control block: record size does not fit the word size and flags");
    /* version 5 */
    g.buf[CYG_OFF_REC] = 4;
    le_put(g.buf + CYG_OFF_VERSION, 5, 2);
    le_put(g.buf + CYG_OFF_CHECK, crc32_update(0, g.buf, CYG_OFF_CHECK), 4);
    ck_assert_int_eq(hdr_parse(g.buf, n, &r, err, sizeof err), -1);
    ck_assert_str_eq(err, "dump format is newer than this cygtrace (update it)");
}
END_TEST

Suite *dec4m_suite(void)
{
    Suite *s = suite_create("dec4m");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_dec4m_vectors);
    tcase_add_test(tc, test_dec4m_calls_specials_times);
    tcase_add_test(tc, test_dec4m_text_base);
    tcase_add_test(tc, test_dec4m_torn_special);
    tcase_add_test(tc, test_dec4m_lapped);
    tcase_add_test(tc, test_dec4m_timelo);
    tcase_add_test(tc, test_dec4m_down);
    tcase_add_test(tc, test_dec4m_wrapped_head);
    tcase_add_test(tc, test_dec4m_truncated);
    tcase_add_test(tc, test_dec4m_refused);
    suite_add_tcase(s, tc);
    return s;
}
