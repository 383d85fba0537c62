/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_stream.c - the live stream pinned: COBS against known vectors and random round trips,
 * frames written byte by byte from cyg_stream.h and decoded to exact events, and what noise,
 * gaps, duplicates and joining mid-stream do to the deframer and the decoder. */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cobs.h"
#include "crc32.h"
#include "cyg_format.h"
#include "cyg_stream.h"
#include "decode/sdec.h"
#include "decode/sframe.h"
#include "source/source.h"
#include "source/sread.h"
#include "source/wire.h"
#include "suites.h"

/* ---- a deterministic PRNG (splitmix64) ---- */

static uint64_t rnd_state;

static uint64_t rnd(void)
{
    uint64_t z = (rnd_state += 0x9e3779b97f4a7c15u);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static unsigned rnd_below(unsigned n)
{
    return (unsigned)(rnd() % n);
}

/* ---- COBS ---- */

struct cobs_vec {
    const char *name;
    uint8_t in[8];
    size_t in_len;
    uint8_t out[8];
    size_t out_len;
};

/* The examples of the COBS article on Wikipedia that fit in a line (the block, without the
 * delimiter); the long ones are built in test_stream_cobs_long_vectors. */
static const struct cobs_vec cobs_vecs[] = {
    {"empty", {0}, 0, {0x01}, 1},
    {"00", {0x00}, 1, {0x01, 0x01}, 2},
    {"00 00", {0x00, 0x00}, 2, {0x01, 0x01, 0x01}, 3},
    {"00 11 00", {0x00, 0x11, 0x00}, 3, {0x01, 0x02, 0x11, 0x01}, 4},
    {"11 22 00 33", {0x11, 0x22, 0x00, 0x33}, 4, {0x03, 0x11, 0x22, 0x02, 0x33}, 5},
    {"11 22 33 44", {0x11, 0x22, 0x33, 0x44}, 4, {0x05, 0x11, 0x22, 0x33, 0x44}, 5},
    {"11 00 00 00", {0x11, 0x00, 0x00, 0x00}, 4, {0x02, 0x11, 0x01, 0x01, 0x01}, 5},
};

static void check_cobs_vector(const char *name, const uint8_t *in, size_t in_len,
                              const uint8_t *out, size_t out_len)
{
    uint8_t enc[600], dec[600];
    size_t n;
    long m;

    n = cobs_encode(in, in_len, enc);
    ck_assert_msg(n == out_len && memcmp(enc, out, n) == 0, "cobs_encode %s: %zu bytes", name,
                  n);
    if (in_len <= 254) {
        memcpy(enc + 1, in, in_len);
        n = cobs_encode_short(enc, in_len);
        ck_assert_msg(n == out_len && memcmp(enc, out, n) == 0, "cobs_encode_short %s", name);
    }
    m = cobs_decode(out, out_len, dec);
    ck_assert_msg(m == (long)in_len && memcmp(dec, in, in_len) == 0, "cobs_decode %s: %ld",
                  name, m);
}

START_TEST(test_stream_cobs_vectors)
{
    for (size_t i = 0; i < sizeof cobs_vecs / sizeof cobs_vecs[0]; i++) {
        const struct cobs_vec *v = &cobs_vecs[i];

        check_cobs_vector(v->name, v->in, v->in_len, v->out, v->out_len);
    }
}
END_TEST

/* Wikipedia's examples 7 to 11: runs of 254 and 255 non-zero bytes. */
START_TEST(test_stream_cobs_long_vectors)
{
    uint8_t in[256], out[260];

    /* 01..FE -> FF 01..FE: a full run that ends the input needs no block after it */
    for (unsigned i = 0; i < 254; i++)
        in[i] = (uint8_t)(i + 1);
    out[0] = 0xff;
    memcpy(out + 1, in, 254);
    check_cobs_vector("01..FE", in, 254, out, 255);

    /* 00 01..FE -> 01 FF 01..FE */
    in[0] = 0;
    for (unsigned i = 1; i < 255; i++)
        in[i] = (uint8_t)i;
    out[0] = 0x01;
    out[1] = 0xff;
    memcpy(out + 2, in + 1, 254);
    check_cobs_vector("00 01..FE", in, 255, out, 256);

    /* 01..FF -> FF 01..FE 02 FF */
    for (unsigned i = 0; i < 255; i++)
        in[i] = (uint8_t)(i + 1);
    out[0] = 0xff;
    memcpy(out + 1, in, 254);
    out[255] = 0x02;
    out[256] = 0xff;
    check_cobs_vector("01..FF", in, 255, out, 257);

    /* 02..FF 00 -> FF 02..FF 01 01 */
    for (unsigned i = 0; i < 254; i++)
        in[i] = (uint8_t)(i + 2);
    in[254] = 0;
    out[0] = 0xff;
    memcpy(out + 1, in, 254);
    out[255] = 0x01;
    out[256] = 0x01;
    check_cobs_vector("02..FF 00", in, 255, out, 257);

    /* 03..FF 00 01 -> FE 03..FF 02 01 */
    for (unsigned i = 0; i < 253; i++)
        in[i] = (uint8_t)(i + 3);
    in[253] = 0;
    in[254] = 1;
    out[0] = 0xfe;
    memcpy(out + 1, in, 253);
    out[254] = 0x02;
    out[255] = 0x01;
    check_cobs_vector("03..FF 00 01", in, 255, out, 256);
}
END_TEST

START_TEST(test_stream_cobs_rejects_malformed)
{
    static const struct {
        uint8_t b[8];
        size_t len;
    } bad[] = {
        {{0x00}, 1},                   /* a code of 0 */
        {{0x03, 0x11, 0x00}, 3},       /* a zero inside a block */
        {{0x05, 0x11, 0x22}, 3},       /* a code that points past the end */
        {{0x02, 0x11, 0x04, 0x22}, 4}, /* the second code points past the end */
        {{0xff, 0x01, 0x02}, 3},       /* a full-run code with two bytes */
    };
    uint8_t dec[16];

    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(cobs_decode(bad[i].b, bad[i].len, dec) == -1, "case %zu", i);
}
END_TEST

START_TEST(test_stream_cobs_random_round_trips)
{
    static uint8_t in[1200], enc[1300], enc2[300], dec[1300];

    rnd_state = 1;
    for (unsigned k = 0; k < 5000; k++) {
        size_t len = rnd_below(k < 2500 ? 300 : 1200);
        unsigned zeros = rnd_below(4); /* none, few, many, mostly */
        size_t n;
        long m;

        for (size_t i = 0; i < len; i++) {
            unsigned z = rnd_below(100);

            in[i] = (zeros == 0 || z >= zeros * 30) ? (uint8_t)(1 + rnd_below(255)) : 0;
        }
        n = cobs_encode(in, len, enc);
        ck_assert_uint_le(n, len + len / 254 + 1);
        ck_assert_ptr_null(memchr(enc, 0, n));
        m = cobs_decode(enc, n, dec);
        ck_assert_msg(m == (long)len && memcmp(dec, in, len) == 0, "round trip %u, len %zu",
                      k, len);
        if (len <= 254) {
            memcpy(enc2 + 1, in, len);
            ck_assert_uint_eq(cobs_encode_short(enc2, len), len + 1);
            ck_assert_mem_eq(enc2, enc, len + 1);
        }
    }
}
END_TEST

/* ---- frames ---- */

/* A payload being built. */
struct pl {
    uint8_t b[512];
    size_t n;
};

/* Bytes on the wire. */
struct wb {
    uint8_t b[1u << 18];
    size_t n;
};

static void put8(struct pl *p, unsigned v)
{
    p->b[p->n++] = (uint8_t)v;
}

static void putv(struct pl *p, uint64_t v)
{
    while (v >= 0x80) {
        put8(p, (unsigned)(v & 0x7f) | 0x80);
        v >>= 7;
    }
    put8(p, (unsigned)v);
}

static void putz(struct pl *p, uint64_t diff)
{
    putv(p, (diff << 1) ^ (0 - (diff >> 63)));
}

/* Appends the wire bytes of payload (n bytes) to w: COBS(payload + CRC) and 0x00. */
static void wire(struct wb *w, const uint8_t *payload, size_t n)
{
    uint8_t raw[CYG_FRAME_RAW_MAX + 1];
    uint32_t crc = crc32_update(0, payload, n);

    ck_assert_uint_le(n, CYG_FRAME_PAYLOAD_MAX);
    memcpy(raw + 1, payload, n);
    for (unsigned i = 0; i < 4; i++)
        raw[1 + n + i] = (uint8_t)(crc >> (8 * i));
    n = cobs_encode_short(raw, n + 4);
    ck_assert_uint_le(w->n + n + 1, sizeof w->b);
    memcpy(w->b + w->n, raw, n);
    w->n += n;
    w->b[w->n++] = 0;
}

/* What came out of a deframer and a decoder. */
struct got {
    struct sframe *fr;
    struct sdec *dec;
    struct ev *ev;
    unsigned n, cap;
    int last_rc;
};

static void got_ev(void *arg, const struct ev *e)
{
    struct got *g = arg;

    ck_assert_uint_lt(g->n, g->cap);
    g->ev[g->n++] = *e;
}

static void got_frame(void *arg, const uint8_t *p, size_t len)
{
    struct got *g = arg;

    g->last_rc = sdec_frame(g->dec, p, len);
}

static void got_init(struct got *g, unsigned cap)
{
    memset(g, 0, sizeof *g);
    g->cap = cap;
    g->ev = calloc(cap, sizeof *g->ev);
    g->fr = sframe_new(got_frame, g);
    g->dec = sdec_new(got_ev, g);
    ck_assert(g->ev && g->fr && g->dec);
}

static void got_free(struct got *g)
{
    sframe_free(g->fr);
    sdec_free(g->dec);
    free(g->ev);
}

static void feed(struct got *g, const struct wb *w)
{
    sframe_feed(g->fr, w->b, w->n);
}

static void expect_ev(const struct ev *e, uint64_t seq, unsigned kind, uint64_t addr,
                      uint64_t site, uint64_t time, uint32_t ctx, uint32_t data)
{
    ck_assert_uint_eq(e->seq, seq);
    ck_assert_uint_eq(e->kind, kind);
    ck_assert_uint_eq(e->addr, addr);
    ck_assert_uint_eq(e->site, site);
    ck_assert_uint_eq(e->time, time);
    ck_assert_uint_eq(e->ctx, ctx);
    ck_assert_uint_eq(e->data, data);
}

/* A 64-bit description, byte by byte: x86-64, overwrite + timestamps + threads, ts_bits 61,
 * running, cap 2^12, build-id de ad be ef, 1 GHz, load bias 0x555555554000, pid 4242,
 * next_seq 100, lost 3. */
static const uint8_t desc64[] = {
    0x44, 0x01, 0x08, 0x0d, 0x3e, 0x00, 0x3d, 0x01, 0x00, 0x0c, 0x04, 0xde, 0xad, 0xbe, 0xef,
    0x80, 0x94, 0xeb, 0xdc, 0x03,             /* ts_hz 1000000000 */
    0x80, 0x80, 0xd5, 0xaa, 0xd5, 0xaa, 0x15, /* load_bias */
    0x92, 0x21,                               /* pid 4242 */
    0x64,                                     /* next_seq 100 */
    0x03,                                     /* lost 3 */
};

/* An events frame of that stream: seq 100, t0 1000, timestamps, call sites, threads. */
static const uint8_t events64[] = {
    0x45, 0x07, 0x64, 0xe8, 0x07,
    0x84, 0x01,                                           /* THREAD 1 */
    0x80, 0x92, 0xc5, 0xaa, 0xd5, 0xaa, 0xd5, 0x2a,       /* ENTER 0x555555555149 (slot 6) */
    0xee, 0x06, 0x05,                                     /*   site +0x1b7, dt 5 */
    0x80, 0xee, 0x02, 0xff, 0x01, 0x0a,                   /* ENTER +0xb7 (slot 36), -0x80, 10 */
    0x64, 0x20, 0x03,                                     /* EXIT cache[36], site +0x10, dt 3 */
    0x82, 0x03, 0x07, 0xb4, 0x24,                         /* SPECIAL MARK id 7 value 0x1234 */
    0x83, 0x05,                                           /* SKIP 5 (seq 104..108) */
    0x84, 0x02,                                           /* THREAD 2 */
    0x46, 0xae, 0x07, 0x02,                               /* EXIT cache[6], site +0x3d7, dt 2 */
};

START_TEST(test_stream_vectors_64)
{
    struct got g;
    struct wb w = {.n = 0};
    struct sframe_stats fs;
    struct sdec_stats ds;
    const struct sdec_desc *d;
    const uint64_t fa = 0x555555555149, fb = 0x555555555200;

    got_init(&g, 64);
    wire(&w, desc64, sizeof desc64);
    wire(&w, events64, sizeof events64);
    feed(&g, &w);
    ck_assert_uint_eq(g.n, 6);
    expect_ev(&g.ev[0], 100, EV_ENTER, fa, 0x555555555300, 1005, 1, 0);
    expect_ev(&g.ev[1], 101, EV_ENTER, fb, 0x555555555180, 1015, 1, 0);
    expect_ev(&g.ev[2], 102, EV_EXIT, fb, 0x555555555210, 1018, 1, 0);
    expect_ev(&g.ev[3], 103, EV_MARK, 0x1234, 0, 1018, 1, 7);
    expect_ev(&g.ev[4], 104, EV_LOST, 5, 0, 1018, 1, EV_LOST_TARGET);
    expect_ev(&g.ev[5], 109, EV_EXIT, fa, 0x555555555320, 1020, 2, 0);

    d = sdec_desc(g.dec);
    ck_assert_ptr_nonnull(d);
    ck_assert_uint_eq(d->version, 1);
    ck_assert_uint_eq(d->ring.word_bytes, 8);
    ck_assert_uint_eq(d->ring.flags, CYG_F_OVERWRITE | CYG_F_TIMESTAMPS | CYG_F_THREADS);
    ck_assert_uint_eq(d->ring.machine, 62);
    ck_assert_uint_eq(d->ring.ts_bits, 61);
    ck_assert_uint_eq(d->ring.state, CYG_S_RUNNING);
    ck_assert_uint_eq(d->ring.cap_log2, 12);
    ck_assert_uint_eq(d->ring.build_id_len, 4);
    ck_assert_mem_eq(d->ring.build_id, "\xde\xad\xbe\xef", 4);
    ck_assert_uint_eq(d->ring.ts_hz, 1000000000u);
    ck_assert_uint_eq(d->ring.load_bias, 0x555555554000u);
    ck_assert_uint_eq(d->ring.pid, 4242);
    ck_assert_uint_eq(d->next_seq, 100);
    ck_assert_uint_eq(d->ring.lost, 3);

    sframe_get_stats(g.fr, &fs);
    ck_assert_uint_eq(fs.bytes, w.n);
    ck_assert_uint_eq(fs.frames, 2);
    ck_assert_uint_eq(fs.bad + fs.skipped, 0);
    sdec_get_stats(g.dec, &ds);
    ck_assert_uint_eq(ds.frames, 2);
    ck_assert_uint_eq(ds.desc, 1);
    ck_assert_uint_eq(ds.events, 5);
    ck_assert_uint_eq(ds.lost_target, 5);
    ck_assert_uint_eq(ds.lost_link + ds.malformed + ds.early, 0);
    got_free(&g);
}
END_TEST

/* Host time frames of a saved stream (cygtrace live --save) read back: each that follows
 * events gives its host time with the target's last time before it; one before any event
 * gives nothing, a malformed one is dropped and counted; the events are as without them. */
struct host_pts {
    int64_t host[8];
    uint64_t target[8];
    unsigned n;
};

static void got_host(void *arg, int64_t host_ns, uint64_t target_time, uint64_t restarts)
{
    struct host_pts *h = arg;

    ck_assert_uint_eq(restarts, 0);
    ck_assert_uint_lt(h->n, 8);
    h->host[h->n] = host_ns;
    h->target[h->n++] = target_time;
}

START_TEST(test_stream_host_times_read_back)
{
    static struct wb w;
    uint8_t h[SFRAME_HOST_MAX], bad[] = {CYG_FR_HOST, 0x80};
    struct host_pts pts = {.n = 0};
    struct sdec_stats ds;
    struct sframe_stats fs;
    struct sread *r;
    struct src *s;
    struct ev e;
    char err[128];
    unsigned n = 0;
    size_t hn;

    w.n = 0;
    hn = sframe_host(h, 7);
    ck_assert_uint_le(hn, SFRAME_HOST_MAX);
    memcpy(w.b + w.n, h, hn), w.n += hn; /* before the description: nothing to map */
    wire(&w, desc64, sizeof desc64);
    hn = sframe_host(h, 123456789012345);
    memcpy(w.b + w.n, h, hn), w.n += hn; /* no event yet: nothing to map */
    wire(&w, events64, sizeof events64);
    hn = sframe_host(h, INT64_MAX);
    memcpy(w.b + w.n, h, hn), w.n += hn;
    wire(&w, bad, sizeof bad); /* its varint cut short */
    s = src_open_mem("saved", w.b, w.n, 0);
    ck_assert_ptr_nonnull(s);
    r = sread_open(s);
    ck_assert_ptr_nonnull(r);
    sread_on_host(r, got_host, &pts);
    while (sread_next(r, &e, err, sizeof err) > 0)
        n++;
    ck_assert_uint_eq(n, 6);
    ck_assert_uint_eq(pts.n, 1);
    ck_assert(pts.host[0] == INT64_MAX);
    ck_assert_uint_eq(pts.target[0], 1020); /* events64's last time */
    sread_get_stats(r, &fs, &ds);
    ck_assert_uint_eq(ds.host, 3);
    ck_assert_uint_eq(ds.malformed, 1);
    ck_assert_uint_eq(fs.bad, 0);
    sread_close(r);
    src_close(s);
}
END_TEST

/* A 32-bit description: ARM, timestamps, ts_bits 24 (SysTick), running, 2 resets, cap 2^10,
 * no build-id, 25 MHz, next_seq 0, then two bytes of a later version's fields. */
static const uint8_t desc32[] = {
    0x44, 0x01, 0x04, 0x04, 0x28, 0x00, 0x18, 0x01, 0x02, 0x0a, 0x00,
    0xc0, 0xf0, 0xf5, 0x0b, /* ts_hz 25000000 */
    0x00, 0x00, 0x00, 0x00, /* load_bias, pid, next_seq, lost */
    0xaa, 0xbb,             /* appended later: ignored */
};

static const uint8_t events32a[] = {
    0x45, 0x01, 0x00, 0xe0, 0xff, 0xff, 0x07,       /* seq 0, t0 0xffffe0 */
    0x82, 0x02, 0x05, 0x80, 0xa0, 0x80, 0x80, 0x02, /* CONTEXT 5, handle 0x20001000 */
    0x80, 0x80, 0x84, 0x80, 0x80, 0x01, 0x10,       /* ENTER 0x08000100, dt 0x10 */
    0x80, 0x88, 0x05, 0x20,                         /* ENTER +0x144, dt 0x20: the clock wraps */
};

static const uint8_t events32b[] = {
    0x45, 0x01, 0x03, 0x10,                         /* seq 3, t0 0x10 */
    0x81, 0x88, 0x89, 0x80, 0x80, 0x01, 0x10,       /* EXIT 0x08000244, dt 0x10 */
    0x81, 0x87, 0x05, 0x05,                         /* EXIT -0x144, dt 5 */
};

/* Context and clock carry over from one frame to the next; the 24-bit clock unwraps. */
START_TEST(test_stream_vectors_32)
{
    struct got g;
    struct wb w = {.n = 0};
    const struct sdec_desc *d;

    got_init(&g, 64);
    wire(&w, desc32, sizeof desc32);
    wire(&w, events32a, sizeof events32a);
    wire(&w, events32b, sizeof events32b);
    feed(&g, &w);
    ck_assert_uint_eq(g.n, 5);
    expect_ev(&g.ev[0], 0, EV_CONTEXT, 0x20001000, 0, 0, 5, 5);
    expect_ev(&g.ev[1], 1, EV_ENTER, 0x08000100, 0, 0xfffff0, 5, 0);
    expect_ev(&g.ev[2], 2, EV_ENTER, 0x08000244, 0, 0x1000010, 5, 0);
    expect_ev(&g.ev[3], 3, EV_EXIT, 0x08000244, 0, 0x1000020, 5, 0);
    expect_ev(&g.ev[4], 4, EV_EXIT, 0x08000100, 0, 0x1000025, 5, 0);
    d = sdec_desc(g.dec);
    ck_assert_ptr_nonnull(d);
    ck_assert_uint_eq(d->ring.word_bytes, 4);
    ck_assert_uint_eq(d->ring.machine, 40);
    ck_assert_uint_eq(d->ring.ts_bits, 24);
    ck_assert_uint_eq(d->ring.resets, 2);
    ck_assert_uint_eq(d->ring.ts_hz, 25000000u);
    got_free(&g);
}
END_TEST

/* A clock counting down (CYG_F_TS_DOWN in the description's flags): the frames above, whose
 * timestamps go up, read inverted, as steps down (a SysTick that counts would give the steps
 * up); the times' summary says the clock moved. */
START_TEST(test_stream_ts_down)
{
    uint8_t desc[sizeof desc32];
    struct sdec_stats st;
    struct got g;
    struct wb w = {.n = 0};

    memcpy(desc, desc32, sizeof desc);
    desc[3] |= CYG_F_TS_DOWN; /* type, version, word, flags */
    got_init(&g, 64);
    wire(&w, desc, sizeof desc);
    wire(&w, events32a, sizeof events32a);
    wire(&w, events32b, sizeof events32b);
    feed(&g, &w);
    ck_assert_uint_eq(g.n, 5);
    /* recorded 0xfffff0, 0x000010, 0x000020, 0x000025: inverted 0x00000f, 0xffffef, ... */
    ck_assert_uint_eq(g.ev[1].time, 0x00000f);
    ck_assert_uint_eq(g.ev[1].time - g.ev[2].time, 0x20);
    ck_assert_uint_eq(g.ev[2].time - g.ev[3].time, 0x10);
    ck_assert_uint_eq(g.ev[3].time - g.ev[4].time, 5);
    sdec_get_stats(g.dec, &st);
    ck_assert_uint_eq(st.calls.n, 4);
    ck_assert(!dec_times_stood(&st.calls));
    got_free(&g);
}
END_TEST

/* After a loss a 32-bit stream does not know whose its next events are (the lost records may
 * have held a CONTEXT): context 0 until the next CONTEXT, after a SKIP in a frame and after
 * frames lost on the link alike. */
static const uint8_t events32_skip[] = {
    0x45, 0x01, 0x00, 0x00,                         /* seq 0, t0 0 */
    0x82, 0x02, 0x05, 0x80, 0xa0, 0x80, 0x80, 0x02, /* CONTEXT 5, handle 0x20001000 */
    0x80, 0x80, 0x84, 0x80, 0x80, 0x01, 0x10,       /* ENTER 0x08000100, dt 0x10 */
    0x83, 0x04,                                     /* SKIP 4 (seq 2..5) */
    0x81, 0x80, 0x84, 0x80, 0x80, 0x01, 0x10,       /* EXIT 0x08000100, dt 0x10 (seq 6) */
};

static const uint8_t events32_after_gap[] = {
    0x45, 0x01, 0x0a, 0x30,                         /* seq 10, t0 0x30: 7..9 lost */
    0x80, 0x80, 0x84, 0x80, 0x80, 0x01, 0x10,       /* ENTER 0x08000100, dt 0x10 */
    0x82, 0x02, 0x07, 0x80, 0xa0, 0x80, 0x80, 0x02, /* CONTEXT 7 */
    0x81, 0x80, 0x84, 0x80, 0x80, 0x01, 0x10,       /* EXIT 0x08000100 */
};

START_TEST(test_stream_context_unknown_after_loss)
{
    struct got g;
    struct wb w = {.n = 0};

    got_init(&g, 64);
    wire(&w, desc32, sizeof desc32);
    wire(&w, events32_skip, sizeof events32_skip);
    wire(&w, events32_after_gap, sizeof events32_after_gap);
    feed(&g, &w);
    ck_assert_uint_eq(g.n, 8);
    ck_assert_uint_eq(g.ev[1].kind, EV_ENTER);
    ck_assert_uint_eq(g.ev[1].ctx, 5);
    ck_assert_uint_eq(g.ev[2].kind, EV_LOST);
    ck_assert_uint_eq(g.ev[2].ctx, 5); /* the loss itself is told where it happened */
    ck_assert_uint_eq(g.ev[3].kind, EV_EXIT);
    ck_assert_uint_eq(g.ev[3].ctx, 0);
    ck_assert_uint_eq(g.ev[4].kind, EV_LOST);
    ck_assert_uint_eq(g.ev[4].data, EV_LOST_LINK);
    ck_assert_uint_eq(g.ev[5].kind, EV_ENTER);
    ck_assert_uint_eq(g.ev[5].ctx, 0);
    ck_assert_uint_eq(g.ev[6].kind, EV_CONTEXT);
    ck_assert_uint_eq(g.ev[7].ctx, 7);
    got_free(&g);
}
END_TEST

/* Events frames before the first description show nothing; a description of an unknown
 * version is ignored whole; one that ends early is malformed. */
START_TEST(test_stream_desc_first)
{
    struct got g;
    struct wb w = {.n = 0};
    struct sdec_stats ds;
    uint8_t v2[sizeof desc32]; /* a version this host does not know */

    got_init(&g, 64);
    wire(&w, events32a, sizeof events32a);
    memcpy(v2, desc32, sizeof v2);
    v2[1] = CYG_STREAM_VERSION + 1;
    wire(&w, v2, sizeof v2);
    wire(&w, desc32, 12); /* cut inside ts_hz */
    wire(&w, events32a, sizeof events32a);
    feed(&g, &w);
    ck_assert_uint_eq(g.n, 0);
    ck_assert_ptr_null(sdec_desc(g.dec));
    sdec_get_stats(g.dec, &ds);
    ck_assert_uint_eq(ds.frames, 4);
    ck_assert_uint_eq(ds.early, 2);
    ck_assert_uint_eq(ds.malformed, 2);
    ck_assert_uint_eq(ds.desc, 0);

    w.n = 0;
    wire(&w, desc32, sizeof desc32);
    wire(&w, events32a, sizeof events32a);
    feed(&g, &w);
    ck_assert_uint_eq(g.n, 3);
    got_free(&g);
}
END_TEST

/* Every single-bit error in a frame on the wire loses that frame and nothing else. */
START_TEST(test_stream_flipped_bit_rejected)
{
    struct wb w = {.n = 0}, good = {.n = 0};
    struct sframe_stats fs;

    wire(&good, desc64, sizeof desc64);
    wire(&w, events64, sizeof events64);
    for (size_t i = 0; i < w.n; i++) {
        for (unsigned bit = 0; bit < 8; bit++) {
            struct got g;

            got_init(&g, 64);
            feed(&g, &good);
            w.b[i] ^= (uint8_t)(1u << bit);
            feed(&g, &w);
            w.b[i] ^= (uint8_t)(1u << bit);
            sframe_get_stats(g.fr, &fs);
            ck_assert_msg(fs.frames == 1 && g.n == 0, "byte %zu bit %u: %u events", i, bit,
                          g.n);
            /* the next frame is not harmed (after a delimiter: a flipped one merges the
             * frame with whatever follows) */
            sframe_feed(g.fr, (const uint8_t *)"", 1);
            feed(&g, &w);
            ck_assert_uint_eq(g.n, 6);
            got_free(&g);
        }
    }
}
END_TEST

/* A flipped bit that leaves the COBS block valid is what the CRC is for. */
START_TEST(test_stream_crc_rejects)
{
    struct got g;
    struct wb w = {.n = 0};
    uint8_t raw[CYG_FRAME_RAW_MAX + 1];
    size_t n = sizeof desc64;
    uint32_t crc = crc32_update(0, desc64, n);
    struct sframe_stats fs;

    memcpy(raw + 1, desc64, n);
    for (unsigned i = 0; i < 4; i++)
        raw[1 + n + i] = (uint8_t)(crc >> (8 * i));
    raw[1 + 20] ^= 0x04; /* load_bias 0x80 -> 0x84: no zero byte, COBS unchanged */
    n = cobs_encode_short(raw, n + 4);
    w.b[0] = 0;
    memcpy(w.b + 1, raw, n);
    w.b[n + 1] = 0;
    w.n = n + 2;
    ck_assert_int_ge(cobs_decode(raw, n, raw), 0);

    got_init(&g, 8);
    feed(&g, &w);
    sframe_get_stats(g.fr, &fs);
    ck_assert_uint_eq(fs.frames, 0);
    ck_assert_uint_eq(fs.bad, 1);
    ck_assert_ptr_null(sdec_desc(g.dec));
    got_free(&g);
}
END_TEST

/* A frame whose CRC checks but whose content does not parse delivers nothing, and leaves the
 * decoder as it was: its CONTEXT special does not change the context, its clock steps do not
 * move the clock, and the next frame decodes as if it had never come. */
START_TEST(test_stream_malformed_token)
{
    static const struct {
        const char *why;
        uint8_t tail[16];
        size_t len;
    } bad[] = {
        {"unknown token", {0x85}, 1},
        {"empty cache slot", {0x47, 0x01}, 2},
        {"ends inside a varint", {0x80, 0x80}, 2},
        {"ends before dt", {0x80, 0x02}, 2},
        {"ends inside SPECIAL", {0x82, 0x03, 0x01}, 3},
        {"SKIP 0", {0x83, 0x00}, 2},
        {"THREAD in a 32-bit stream", {0x84, 0x01}, 2},
        {"special type past 6 bits", {0x82, 0x40, 0x00, 0x00}, 4},
        {"address past 32 bits", {0x80, 0x80, 0x80, 0x80, 0x80, 0x20, 0x01}, 7},
        {"varint past 10 bytes",
         {0x83, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 12},
        {"varint past 64 bits",
         {0x83, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}, 11},
    };
    /* seq 3: CONTEXT 9, ENTER 0x08000100 dt 0x100, then the bad tail */
    static const uint8_t head[] = {0x45, 0x01, 0x03, 0x10, 0x82, 0x02, 0x09, 0x00,
                                   0x80, 0x80, 0x84, 0x80, 0x80, 0x01, 0x80, 0x02};

    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct got g;
        struct wb w = {.n = 0};
        struct pl p = {.n = 0};
        struct sdec_stats ds;

        got_init(&g, 64);
        wire(&w, desc32, sizeof desc32);
        wire(&w, events32a, sizeof events32a);
        feed(&g, &w);
        ck_assert_uint_eq(g.n, 3);

        memcpy(p.b, head, sizeof head);
        memcpy(p.b + sizeof head, bad[i].tail, bad[i].len);
        p.n = sizeof head + bad[i].len;
        w.n = 0;
        wire(&w, p.b, p.n);
        feed(&g, &w);
        ck_assert_msg(g.last_rc == -1 && g.n == 3, "%s: rc %d, %u events", bad[i].why,
                      g.last_rc, g.n);
        sdec_get_stats(g.dec, &ds);
        ck_assert_uint_eq(ds.malformed, 1);

        w.n = 0;
        wire(&w, events32b, sizeof events32b);
        feed(&g, &w);
        ck_assert_uint_eq(g.n, 5);
        expect_ev(&g.ev[3], 3, EV_EXIT, 0x08000244, 0, 0x1000020, 5, 0);
        got_free(&g);
    }
}
END_TEST

/* ---- a test encoder: events in, frames out, as cyg_stream.h says (the real one is the
 * target's drain; this one lets the tests make long streams from known events) ---- */

struct enc {
    struct wb *out;
    unsigned word, ts_bits, ef;
    uint64_t mask;
    struct pl f;           /* the frame being built */
    uint64_t seq;          /* the next record's */
    uint64_t last_raw;     /* the last normal event's raw timestamp, across frames */
    uint64_t raw;          /* within the frame */
    uint64_t cache[CYG_CACHE_SLOTS];
    uint64_t cached, lit;
    uint32_t thread;
    unsigned frames;       /* events frames written */
    unsigned desc_every;   /* a description before every n-th events frame */
};

static void enc_desc(struct enc *e)
{
    struct pl d = {.n = 0};

    put8(&d, CYG_FR_DESC);
    put8(&d, CYG_STREAM_VERSION);
    put8(&d, e->word);
    put8(&d, CYG_F_TIMESTAMPS | CYG_F_CALLSITES | (e->word == 8 ? CYG_F_THREADS : 0));
    put8(&d, e->word == 8 ? 62 : 40);
    put8(&d, 0);
    put8(&d, e->ts_bits);
    put8(&d, CYG_S_RUNNING);
    put8(&d, 0);
    put8(&d, 10);
    put8(&d, 0);
    putv(&d, 1000000);
    putv(&d, 0);
    putv(&d, 0);
    putv(&d, e->seq);
    putv(&d, 0);
    wire(e->out, d.b, d.n);
}

static void enc_begin(struct enc *e)
{
    if (e->frames == 0 || (e->desc_every && e->frames % e->desc_every == 0))
        enc_desc(e);
    e->f.n = 0;
    put8(&e->f, CYG_FR_EVENTS);
    put8(&e->f, e->ef);
    putv(&e->f, e->seq);
    putv(&e->f, e->last_raw);
    e->raw = e->last_raw;
    e->cached = e->lit = 0;
    e->thread = 0;
}

static void enc_flush(struct enc *e)
{
    wire(e->out, e->f.b, e->f.n);
    e->frames++;
}

static void enc_init(struct enc *e, struct wb *out, unsigned word, unsigned ts_bits,
                     unsigned desc_every)
{
    memset(e, 0, sizeof *e);
    e->out = out;
    e->word = word;
    e->ts_bits = ts_bits;
    e->mask = ((uint64_t)1 << ts_bits) - 1;
    e->ef = CYG_EF_TIMESTAMPS | CYG_EF_CALLSITES | (word == 8 ? CYG_EF_THREADS : 0);
    e->desc_every = desc_every;
    enc_begin(e);
}

static const unsigned sp_of_kind[] = {
    [EV_THREAD] = CYG_SP_THREAD, [EV_CONTEXT] = CYG_SP_CONTEXT, [EV_MARK] = CYG_SP_MARK,
    [EV_FAULT] = CYG_SP_FAULT,   [EV_FAULT_LR] = CYG_SP_FAULT_LR, [EV_START] = CYG_SP_START,
    [EV_STOP] = CYG_SP_STOP,     [EV_TRIGGER] = CYG_SP_TRIGGER,
};

/* Adds the tokens of event v to the frame. */
static void enc_tokens(struct enc *e, const struct ev *v)
{
    if (e->word == 8 && v->ctx != e->thread) {
        put8(&e->f, CYG_TK_THREAD);
        putv(&e->f, v->ctx);
        e->thread = v->ctx;
    }
    if (v->kind == EV_ENTER || v->kind == EV_EXIT) {
        unsigned slot = cyg_cache_slot((uint32_t)v->addr);
        uint64_t raw = v->time & e->mask;

        if ((e->cached >> slot & 1) && e->cache[slot] == v->addr) {
            put8(&e->f, slot | (v->kind == EV_EXIT ? CYG_TK_EXIT_BIT : 0));
        } else {
            put8(&e->f, v->kind == EV_EXIT ? CYG_TK_EXIT_LIT : CYG_TK_ENTER_LIT);
            putz(&e->f, v->addr - e->lit);
            e->lit = e->cache[slot] = v->addr;
            e->cached |= (uint64_t)1 << slot;
        }
        putz(&e->f, v->site - v->addr);
        putv(&e->f, (raw - e->raw) & e->mask);
        e->raw = raw;
    } else if (v->kind == EV_LOST) {
        put8(&e->f, CYG_TK_SKIP);
        putv(&e->f, v->addr);
    } else {
        put8(&e->f, CYG_TK_SPECIAL);
        put8(&e->f, v->kind == EV_UNKNOWN ? v->data : sp_of_kind[v->kind]);
        putv(&e->f, v->kind == EV_UNKNOWN ? 0 : v->data);
        putv(&e->f, v->addr);
    }
}

/* Adds event v, in a new frame when it does not fit in this one. */
static void enc_add(struct enc *e, const struct ev *v)
{
    struct enc saved = *e;

    enc_tokens(e, v);
    if (e->f.n > CYG_FRAME_PAYLOAD_MAX) {
        *e = saved;
        enc_flush(e);
        enc_begin(e);
        enc_tokens(e, v);
    }
    if (v->kind == EV_ENTER || v->kind == EV_EXIT)
        e->last_raw = v->time & e->mask;
    e->seq = v->seq + (v->kind == EV_LOST ? v->addr : 1);
}

/* Makes n known events of a 32-bit (contexts) or 64-bit (threads) target, as a decoder must
 * return them: the clock unwrapped, specials at the time of the event before. */
static void make_events(struct ev *ev, unsigned n, unsigned word, unsigned ts_bits)
{
    uint64_t seq = 0, time = ts_bits < 30 ? ((uint64_t)1 << ts_bits) - 50000 : 1000;
    uint64_t last_time = 0;
    uint32_t ctx = word == 8 ? 1 : 0;

    for (unsigned i = 0; i < n; i++) {
        struct ev *v = &ev[i];
        unsigned r = rnd_below(100);

        memset(v, 0, sizeof *v);
        v->seq = seq;
        if (word == 8 && r < 3)
            ctx = 1 + rnd_below(4);
        if (r < 70) {
            uint64_t fn = rnd_below(200) * 0x24;

            v->kind = r & 1 ? EV_EXIT : EV_ENTER;
            v->addr = word == 8 ? 0x555555550000 + fn : 0x08000000 + fn;
            v->site = v->addr + rnd_below(0x40) - (r & 2 ? 0x8000 : 0);
            time += rnd_below(4000);
            if (r % 10 == 0 && time > 1000)
                time -= rnd_below(100); /* an interrupt stepped back in time */
            v->time = last_time = time;
        } else if (r < 80) {
            v->kind = EV_CONTEXT;
            v->data = rnd_below(1000);
            v->addr = 0x20000000 + v->data;
            if (word == 4)
                ctx = v->data;
        } else if (r < 90) {
            v->kind = r < 85 ? EV_MARK : r < 88 ? EV_FAULT : EV_TRIGGER;
            v->data = rnd_below(1u << 20);
            v->addr = rnd();
            if (word == 4)
                v->addr &= 0xffffffffu;
        } else if (r < 95) {
            v->kind = EV_UNKNOWN;
            v->data = 16 + rnd_below(48); /* after CYG_SP_LONGJMP, the last type known */
        } else {
            v->kind = EV_LOST;
            v->data = EV_LOST_TARGET;
            v->addr = 1 + rnd_below(r == 99 ? 100000 : 3);
        }
        if (v->kind != EV_ENTER && v->kind != EV_EXIT)
            v->time = last_time;
        v->ctx = ctx;
        if (word == 4 && v->kind == EV_LOST)
            ctx = 0; /* the lost records may have held a CONTEXT: unknown until the next */
        seq += v->kind == EV_LOST ? v->addr : 1;
    }
}

/* Encodes ev[0..n) into w: a description first and every desc_every frames. */
static void encode_events(struct wb *w, const struct ev *ev, unsigned n, unsigned word,
                          unsigned ts_bits, unsigned desc_every)
{
    struct enc e;

    enc_init(&e, w, word, ts_bits, desc_every);
    for (unsigned i = 0; i < n; i++)
        enc_add(&e, &ev[i]);
    enc_flush(&e);
}

static void assert_same_ev(const struct ev *a, const struct ev *b, int with_ctx)
{
    ck_assert_msg(a->seq == b->seq && a->kind == b->kind && a->addr == b->addr &&
                      a->site == b->site && a->time == b->time && a->data == b->data &&
                      (!with_ctx || a->ctx == b->ctx),
                  "seq %llu kind %u: got addr %llx time %llu ctx %u data %u, want seq %llu "
                  "kind %u addr %llx time %llu ctx %u data %u",
                  (unsigned long long)a->seq, a->kind, (unsigned long long)a->addr,
                  (unsigned long long)a->time, a->ctx, a->data, (unsigned long long)b->seq,
                  b->kind, (unsigned long long)b->addr, (unsigned long long)b->time, b->ctx,
                  b->data);
}

/* What a decoder that joined the stream late knows of the clock: the first normal event it
 * sees is its time base (a multiple of 2^ts_bits away from the sender's clock), and the
 * specials before it have time 0. */
struct joined {
    int seen;       /* a normal event was seen */
    uint64_t shift; /* sender's time minus decoder's */
};

static void assert_joined_ev(const struct ev *got, const struct ev *want, struct joined *j,
                             int with_ctx)
{
    struct ev w = *want;

    if (!j->seen && (w.kind == EV_ENTER || w.kind == EV_EXIT)) {
        j->seen = 1;
        j->shift = w.time - got->time;
    }
    w.time = j->seen ? w.time - j->shift : 0;
    assert_same_ev(got, &w, with_ctx);
}

#define NEV 3000

/* Thousands of events of both widths, through frames and back, exactly. */
START_TEST(test_stream_round_trip)
{
    static const unsigned cfg[][2] = {{4, 24}, {4, 30}, {8, 61}};

    for (size_t c = 0; c < 3; c++) {
        static struct wb w;
        struct ev *ev = calloc(NEV, sizeof *ev);
        struct got g;
        struct sdec_stats ds;

        rnd_state = 100 + c;
        make_events(ev, NEV, cfg[c][0], cfg[c][1]);
        w.n = 0;
        encode_events(&w, ev, NEV, cfg[c][0], cfg[c][1], 8);
        got_init(&g, NEV + 10);
        feed(&g, &w);
        ck_assert_uint_eq(g.n, NEV);
        for (unsigned i = 0; i < NEV; i++)
            assert_same_ev(&g.ev[i], &ev[i], 1);
        sdec_get_stats(g.dec, &ds);
        ck_assert_uint_eq(ds.malformed + ds.lost_link + ds.early, 0);
        got_free(&g);
        free(ev);
    }
}
END_TEST

/* Frames lost on the link: one EV_LOST_LINK where they were, with the exact count. */
START_TEST(test_stream_sequence_gap)
{
    static struct wb w;
    struct ev ev[400];
    struct got g;
    struct sdec_stats ds;
    size_t cut[3], ncut = 0, at = 0;
    uint64_t want_lost;

    rnd_state = 7;
    make_events(ev, 400, 8, 61);
    w.n = 0;
    encode_events(&w, ev, 400, 8, 61, 0);
    /* drop the 3rd events frame (the 4th frame on the wire: the description is first) */
    for (size_t i = 0; i < w.n && ncut < 3; i++)
        if (w.b[i] == 0) {
            if (++at >= 3)
                cut[ncut++] = i + 1;
        }
    ck_assert_uint_eq(ncut, 3);

    got_init(&g, 500);
    sframe_feed(g.fr, w.b, cut[0]);
    sframe_feed(g.fr, w.b + cut[1], w.n - cut[1]);
    sdec_get_stats(g.dec, &ds);
    ck_assert_uint_gt(ds.lost_link, 0);
    /* the events before the gap, one EV_LOST_LINK, then the events after it, unchanged */
    {
        unsigned i = 0, k = 0;

        while (g.ev[i].kind != EV_LOST || g.ev[i].data != EV_LOST_LINK) {
            assert_same_ev(&g.ev[i], &ev[i], 1);
            i++;
        }
        ck_assert_uint_eq(g.ev[i].seq, ev[i].seq);
        k = i;
        while (ev[k].seq < g.ev[i].seq + g.ev[i].addr)
            k++;
        ck_assert_uint_eq(ev[k].seq, g.ev[i].seq + g.ev[i].addr);
        want_lost = g.ev[i].addr;
        ck_assert_uint_eq(ds.lost_link, want_lost);
        for (i++; i < g.n; i++, k++)
            assert_same_ev(&g.ev[i], &ev[k], 1);
        ck_assert_uint_eq(k, 400);
    }
    got_free(&g);

    /* by hand: frames at seq 100, then 110 */
    {
        struct pl p = {.n = 0};
        static const uint8_t e110[] = {0x45, 0x00, 0x6e, 0x00, 0x80, 0x02};

        w.n = 0;
        wire(&w, desc64, sizeof desc64);
        wire(&w, events64, sizeof events64); /* 100..109 */
        memcpy(p.b, e110, sizeof e110);
        p.n = sizeof e110;
        p.b[2] = 0x78; /* seq 120 */
        wire(&w, p.b, p.n);
        got_init(&g, 64);
        feed(&g, &w);
        ck_assert_uint_eq(g.n, 8);
        expect_ev(&g.ev[6], 110, EV_LOST, 10, 0, 1020, 0, EV_LOST_LINK);
        ck_assert_uint_eq(g.ev[7].seq, 120);
        ck_assert_uint_eq(g.ev[7].kind, EV_ENTER);
        ck_assert_uint_eq(g.ev[7].addr, 1);
        sdec_get_stats(g.dec, &ds);
        ck_assert_uint_eq(ds.lost_link, 10);
        ck_assert_uint_eq(ds.lost_target, 5);
        got_free(&g);
    }
}
END_TEST

/* A host that joins mid-stream: garbage, then the end of a frame, then events frames before
 * any description: it shows events from the first description on. */
START_TEST(test_stream_join_mid_stream)
{
    static struct wb w, all;
    struct ev ev[600];
    struct got g;
    struct sframe_stats fs;
    struct sdec_stats ds;
    size_t from, i, garbage = 37;
    unsigned first;
    struct joined j = {0, 0};

    rnd_state = 11;
    make_events(ev, 600, 4, 24);
    all.n = 0;
    encode_events(&all, ev, 600, 4, 24, 5);
    /* start in the middle of the 3rd frame on the wire (an events frame) */
    for (i = 0, first = 0; first < 2; i++)
        first += all.b[i] == 0;
    from = i + 10;
    w.n = 0;
    for (i = 0; i < garbage; i++)
        w.b[w.n++] = (uint8_t)(1 + rnd_below(255));
    memcpy(w.b + w.n, all.b + from, all.n - from);
    w.n += all.n - from;

    got_init(&g, 700);
    /* in pieces of every size, as a serial line delivers them */
    for (size_t off = 0, step = 1; off < w.n; off += step, step = step % 97 + 1)
        sframe_feed(g.fr, w.b + off, off + step > w.n ? w.n - off : step);
    sframe_get_stats(g.fr, &fs);
    sdec_get_stats(g.dec, &ds);
    ck_assert_uint_eq(fs.bad, 0);
    ck_assert_uint_eq(fs.bytes, w.n);
    ck_assert_uint_eq(fs.skipped,
                      (size_t)((const uint8_t *)memchr(w.b + garbage, 0, w.n - garbage) - w.b));
    ck_assert_uint_eq(ds.early, 3); /* frames 4, 5 and 6 of the stream; 7 is a description */
    ck_assert_uint_eq(ds.malformed + ds.lost_link, 0);
    ck_assert_uint_gt(g.n, 100);
    /* from the first description on, every event exactly, to the end */
    for (i = 0; ev[i].seq < g.ev[0].seq; i++)
        ;
    ck_assert_uint_eq(g.n, 600 - i);
    for (unsigned k = 0; k < g.n; k++)
        assert_joined_ev(&g.ev[k], &ev[i + k], &j, 0);
    ck_assert_uint_eq(j.shift & 0xffffff, 0);
    got_free(&g);
}
END_TEST

/* A frame that comes twice is shown once; one that overlaps shows its new tail. */
START_TEST(test_stream_duplicate_dropped)
{
    struct wb w = {.n = 0};
    struct pl p = {.n = 0};
    struct got g;
    struct sdec_stats ds;
    /* seq 105, timestamps and call sites, t0 0 */
    static const uint8_t overlap[] = {
        0x45, 0x03, 0x69, 0x00,
        0x80, 0x20, 0x00, 0x01, /* 105 ENTER 0x10 */
        0x80, 0x20, 0x00, 0x01, /* 106 ENTER 0x20 */
        0x81, 0x00, 0x00, 0x01, /* 107 EXIT 0x20 */
        0x83, 0x03,             /* 108..110 SKIP 3: its last record is new */
        0x81, 0x1f, 0x00, 0x01, /* 111 EXIT 0x10 */
        0x80, 0x1f, 0x00, 0x01, /* 112 ENTER 0x0 */
    };

    got_init(&g, 64);
    wire(&w, desc64, sizeof desc64);
    wire(&w, events64, sizeof events64); /* 100..109 */
    wire(&w, events64, sizeof events64);
    feed(&g, &w);
    ck_assert_uint_eq(g.n, 6);
    sdec_get_stats(g.dec, &ds);
    ck_assert_uint_eq(ds.events, 5);
    ck_assert_uint_eq(ds.malformed + ds.lost_link, 0);

    /* 105..109 again, then 110 to 112 are new */
    memcpy(p.b, overlap, sizeof overlap);
    p.n = sizeof overlap;
    w.n = 0;
    wire(&w, p.b, p.n);
    feed(&g, &w);
    ck_assert_uint_eq(g.n, 9);
    ck_assert_uint_eq(g.ev[6].seq, 110);
    ck_assert_uint_eq(g.ev[6].kind, EV_LOST);
    ck_assert_uint_eq(g.ev[6].data, EV_LOST_TARGET);
    ck_assert_uint_eq(g.ev[6].addr, 1);
    ck_assert_uint_eq(g.ev[7].seq, 111);
    ck_assert_uint_eq(g.ev[7].kind, EV_EXIT);
    ck_assert_uint_eq(g.ev[7].addr, 0x10);
    ck_assert_uint_eq(g.ev[8].seq, 112);
    ck_assert_uint_eq(g.ev[8].kind, EV_ENTER);
    ck_assert_uint_eq(g.ev[8].addr, 0x0);
    sdec_get_stats(g.dec, &ds);
    ck_assert_uint_eq(ds.events, 7);
    ck_assert_uint_eq(ds.lost_target, 6);
    ck_assert_uint_eq(ds.lost_link + ds.malformed, 0);

    /* an older frame again does not move the expectation back: 113 follows without a gap */
    w.n = 0;
    wire(&w, events64, sizeof events64);
    p.b[2] = 0x71; /* the same tokens at 113 */
    wire(&w, p.b, p.n);
    feed(&g, &w);
    ck_assert_uint_eq(g.n, 9 + 6);
    ck_assert_uint_eq(g.ev[9].seq, 113);
    ck_assert_uint_eq(g.ev[9].kind, EV_ENTER);
    sdec_get_stats(g.dec, &ds);
    ck_assert_uint_eq(ds.lost_link + ds.malformed, 0);
    got_free(&g);
}
END_TEST

/* DEFER (stream version 2): the rest of a chunk comes later in frames of its own, each going on
 * where the last stopped; a replayed one is dropped, one that starts further on lost the ones
 * between on the link, and none of them moves the stream's own next seq. */
START_TEST(test_stream_defer)
{
    struct wb w = {.n = 0};
    struct got g;
    struct sdec_stats ds;
    uint8_t desc[sizeof desc64];
    /* timestamps only, t0 0 */
    static const uint8_t front[] = {
        0x45, 0x01, 0x64, 0x00,
        0x80, 0x20, 0x01, /* 100 ENTER 0x10 */
        0x85, 0x0e,       /* 101..114 DEFER 14 */
        0x80, 0x20, 0x01, /* 115 ENTER 0x20 */
    };
    static const uint8_t run1[] = {
        0x45, 0x01, 0x65, 0x00,
        0x80, 0x60, 0x01, /* 101 ENTER 0x30 */
        0x40 | 0x18, 0x01, /* 102 EXIT cache[slot(0x30) = 24] */
        0x85, 0x0c,       /* 103..114 DEFER 12: still being filled */
    };
    static const uint8_t run2[] = {
        0x45, 0x01, 0x69, 0x00,
        0x80, 0x80, 0x01, 0x01, /* 105 ENTER 0x40; 103 and 104 lost on the link */
    };
    static const uint8_t front2[] = {
        0x45, 0x01, 0x74, 0x00,
        0x81, 0x40, 0x01, /* 116 EXIT 0x20 */
    };
    static const uint8_t bad_run[] = {
        0x45, 0x01, 0x6b, 0x00,
        0x80, 0x20, 0x01, /* 107 */
        0x85, 0x03,       /* 108..110: a DEFER that is not the run's rest */
    };

    memcpy(desc, desc64, sizeof desc);
    desc[1] = 2;
    got_init(&g, 64);
    wire(&w, desc, sizeof desc);
    wire(&w, front, sizeof front);
    wire(&w, run1, sizeof run1);
    wire(&w, run1, sizeof run1); /* replayed */
    wire(&w, run2, sizeof run2);
    wire(&w, front2, sizeof front2);
    wire(&w, bad_run, sizeof bad_run);
    feed(&g, &w);
    ck_assert_uint_eq(g.n, 7);
    ck_assert_uint_eq(g.ev[0].seq, 100);
    ck_assert_uint_eq(g.ev[1].seq, 115);
    ck_assert_uint_eq(g.ev[1].addr, 0x20);
    ck_assert_uint_eq(g.ev[2].seq, 101);
    ck_assert_uint_eq(g.ev[2].addr, 0x30);
    ck_assert_uint_eq(g.ev[3].seq, 102);
    ck_assert_uint_eq(g.ev[3].kind, EV_EXIT);
    ck_assert_uint_eq(g.ev[4].kind, EV_LOST);
    ck_assert_uint_eq(g.ev[4].data, EV_LOST_LINK);
    ck_assert_uint_eq(g.ev[4].seq, 103);
    ck_assert_uint_eq(g.ev[4].addr, 2);
    ck_assert_uint_eq(g.ev[5].seq, 105);
    ck_assert_uint_eq(g.ev[5].addr, 0x40);
    ck_assert_uint_eq(g.ev[6].seq, 116);
    ck_assert_uint_eq(g.ev[6].kind, EV_EXIT);
    sdec_get_stats(g.dec, &ds);
    ck_assert_uint_eq(ds.events, 6);
    ck_assert_uint_eq(ds.dup, 1);
    ck_assert_uint_eq(ds.lost_link, 2);
    ck_assert_uint_eq(ds.malformed, 1);
    got_free(&g);

    /* DEFER in a version 1 stream is a malformed frame. */
    got_init(&g, 64);
    w.n = 0;
    wire(&w, desc64, sizeof desc64);
    wire(&w, front, sizeof front);
    feed(&g, &w);
    ck_assert_uint_eq(g.n, 0);
    sdec_get_stats(g.dec, &ds);
    ck_assert_uint_eq(ds.malformed, 1);
    got_free(&g);
}
END_TEST

/* A description whose next_seq is lower than expected: the target started over. */
START_TEST(test_stream_restart)
{
    struct wb w = {.n = 0};
    struct got g;
    struct sdec_stats ds;

    got_init(&g, 64);
    wire(&w, desc32, sizeof desc32);
    wire(&w, events32a, sizeof events32a);
    wire(&w, events32b, sizeof events32b); /* expect 5 now */
    wire(&w, desc32, sizeof desc32);       /* next_seq 0 again */
    wire(&w, events32b, sizeof events32b); /* a frame at 3 after the restart: a link gap */
    feed(&g, &w);
    ck_assert_uint_eq(g.n, 8);
    expect_ev(&g.ev[5], 0, EV_LOST, 3, 0, 0, 0, EV_LOST_LINK);
    /* context and clock started over: the first event after the restart is the time base */
    expect_ev(&g.ev[6], 3, EV_EXIT, 0x08000244, 0, 0x20, 0, 0);
    expect_ev(&g.ev[7], 4, EV_EXIT, 0x08000100, 0, 0x25, 0, 0);
    sdec_get_stats(g.dec, &ds);
    ck_assert_uint_eq(ds.desc, 2);
    ck_assert_uint_eq(ds.lost_link, 3);
    got_free(&g);
}
END_TEST

/* desc64 with next_seq seq (below 128) and the session later drains append. */
static size_t desc_session(uint8_t *out, unsigned seq, unsigned session)
{
    memcpy(out, desc64, sizeof desc64);
    out[29] = (uint8_t)seq; /* next_seq's one byte */
    out[sizeof desc64] = (uint8_t)session;
    return sizeof desc64 + 1;
}

/* events64 (10 records) starting at seq (below 128). */
static size_t events_at(uint8_t *out, unsigned seq)
{
    memcpy(out, events64, sizeof events64);
    out[2] = (uint8_t)seq;
    return sizeof events64;
}

/* Feeds description (next_seq, session) and an events frame at seq each, in turn; -1 ends. */
static void feed_frames(struct got *g, const int *spec)
{
    struct wb w = {.n = 0};
    uint8_t p[128];

    for (; spec[0] >= 0; spec += 2) {
        if (spec[1] >= 0)
            wire(&w, p, desc_session(p, (unsigned)spec[0], (unsigned)spec[1]));
        else
            wire(&w, p, events_at(p, (unsigned)spec[0]));
    }
    feed(g, &w);
}

/* Every event shown once: sequence numbers only go up. */
static void assert_once(const struct got *g)
{
    for (unsigned i = 1; i < g->n; i++)
        ck_assert_msg(g->ev[i].seq >= g->ev[i - 1].seq && (g->ev[i].kind == EV_LOST ||
                                                         g->ev[i].seq > g->ev[i - 1].seq),
                      "event %u: seq %" PRIu64 " after %" PRIu64, i, g->ev[i].seq,
                      g->ev[i - 1].seq);
}

/* A link that plays an old stretch again (its description and events) is no restart: nothing
 * is shown twice, no loss is invented, and the stream goes on where it was. */
START_TEST(test_stream_replay_is_no_restart)
{
    static const int spec[] = {100, 7, 100, -1, 110, 7, 110, -1,
                               100, 7, 100, -1,  /* the replay */
                               120, -1, -1, -1};
    struct got g;
    struct sdec_stats ds;
    unsigned per = 0;

    got_init(&g, 256);
    feed_frames(&g, spec);
    sdec_get_stats(g.dec, &ds);
    ck_assert_uint_eq(ds.restarts, 0);
    ck_assert_uint_eq(ds.replays, 1);
    ck_assert_uint_eq(ds.lost_link, 0);
    ck_assert_uint_eq(ds.dup, 1);
    for (unsigned i = 0; i < g.n; i++)
        per += g.ev[i].seq < 110; /* the first frame's events (its SKIP too) */
    ck_assert_uint_eq(g.n, 3 * per); /* three frames, each once */
    assert_once(&g);
    got_free(&g);
}
END_TEST

/* Another session is a restart, even at the same sequence number; the same session going back
 * to a description never seen is one too (a drain never goes back); a restart into the very
 * description seen before is taken for a replay until the next one, and what was dropped as
 * duplicates meanwhile is then shown as lost (105 events, at seq 0). */
static const struct {
    int spec[20];
    uint64_t replays, dup, lost_link, last_seq;
} session_cases[] = {
    {{100, 7, 100, -1, 100, 9, 100, -1, -1, -1}, 0, 0, 0, 109},
    {{100, 7, 100, -1, 110, 7, 110, -1, 105, 7, 105, -1, -1, -1}, 0, 0, 0, 114},
    {{100, 7, 100, -1, 110, 7, 110, -1, 100, 7, 100, -1, 105, 7, 105, -1, -1, -1}, 1, 1, 105,
     114},
};

START_TEST(test_stream_session_restarts)
{
    struct got g;
    struct sdec_stats ds;
    unsigned lost = 0;

    got_init(&g, 256);
    feed_frames(&g, session_cases[_i].spec);
    sdec_get_stats(g.dec, &ds);
    ck_assert_uint_eq(ds.restarts, 1);
    ck_assert_uint_eq(ds.replays, session_cases[_i].replays);
    ck_assert_uint_eq(ds.dup, session_cases[_i].dup);
    ck_assert_uint_eq(ds.lost_link, session_cases[_i].lost_link);
    ck_assert_uint_eq(g.ev[g.n - 1].seq, session_cases[_i].last_seq);
    for (unsigned i = 0; i < g.n; i++)
        if (g.ev[i].kind == EV_LOST && g.ev[i].data == EV_LOST_LINK) {
            ck_assert_uint_eq(g.ev[i].addr, 105);
            ck_assert_uint_eq(g.ev[i + 1].seq, 105);
            lost++;
        }
    ck_assert_uint_eq(lost, session_cases[_i].lost_link ? 1 : 0);
    got_free(&g);
}
END_TEST

/* A drain of a version 3 ring says so after its session: its marks carry a class, which the
 * host splits from the id; a drain that does not (older ones, version 1 and 2 rings) sends ids
 * whole. TRIGGER records come through as specials. After the version, a drain since issue 31
 * sends the hooks' cost per event (with 3); one before it ends at the version: none known. */
START_TEST(test_stream_ring_version_mark_class)
{
    for (unsigned with = 0; with < 4; with++) {
        struct got g;
        struct pl d = {.n = 0}, e = {.n = 0};

        got_init(&g, 16);
        put8(&d, CYG_FR_DESC);
        put8(&d, 1);
        put8(&d, 4);
        put8(&d, CYG_F_TIMESTAMPS);
        put8(&d, 40);
        put8(&d, 0);
        put8(&d, CYG32_TS_BITS);
        put8(&d, CYG_S_RUNNING);
        put8(&d, 0);
        put8(&d, 10);
        put8(&d, 0);
        putv(&d, 1000000);
        putv(&d, 0);
        putv(&d, 0);
        putv(&d, 50);
        putv(&d, 0);
        if (with) {
            putv(&d, 77);              /* session */
            putv(&d, with != 2 ? 3 : 2); /* the ring's version */
        }
        if (with == 3)
            putv(&d, 5993u | CYG_HOOK_COST_GIVEN); /* the hooks' cost */
        ck_assert_int_eq(sdec_frame(g.dec, d.b, d.n), 0);
        ck_assert_uint_eq(sdec_desc(g.dec)->ring.version, with == 2 ? 2 : with ? 3 : 0);
        ck_assert_uint_eq(sdec_desc(g.dec)->ring.hook_cost,
                          with == 3 ? 5993u | CYG_HOOK_COST_GIVEN : 0);
        put8(&e, CYG_FR_EVENTS);
        put8(&e, 0);
        putv(&e, 50);
        putv(&e, 0);
        put8(&e, CYG_TK_SPECIAL);
        put8(&e, CYG_SP_MARK);
        putv(&e, 3u << CYG_MARK_CLASS_SHIFT | 7);
        putv(&e, 0x2a);
        put8(&e, CYG_TK_SPECIAL);
        put8(&e, CYG_SP_TRIGGER);
        putv(&e, 2 | CYG_TRIG_FREEZE << CYG_TRIGD_KIND_SHIFT);
        putv(&e, 0x8000101);
        ck_assert_int_eq(sdec_frame(g.dec, e.b, e.n), 0);
        ck_assert_uint_eq(g.n, 2);
        ck_assert_uint_eq(g.ev[0].kind, EV_MARK);
        ck_assert_uint_eq(g.ev[0].data, with % 2 ? 7 : 3u << CYG_MARK_CLASS_SHIFT | 7);
        ck_assert_uint_eq(g.ev[0].cls, with % 2 ? 3 : 0);
        ck_assert_uint_eq(g.ev[1].kind, EV_TRIGGER);
        ck_assert_uint_eq(g.ev[1].seq, 51);
        ck_assert_uint_eq(g.ev[1].data, 2 | CYG_TRIG_FREEZE << CYG_TRIGD_KIND_SHIFT);
        ck_assert_uint_eq(g.ev[1].addr, 0x8000101);
        got_free(&g);
    }
}
END_TEST

/* Noise on the link: frames are lost, never invented. Every event shown is one that was
 * sent, in order, and the losses in between account for every record exactly. */
START_TEST(test_stream_noise_never_invents)
{
    static struct wb w;
    static uint8_t noisy[sizeof w.b * 2];
    struct ev *ev = calloc(NEV, sizeof *ev);
    struct got g;
    struct sframe_stats fs;
    struct sdec_stats ds;
    size_t n = 0;
    uint64_t end;
    struct joined j = {0, 0};

    rnd_state = 3;
    make_events(ev, NEV, 8, 61);
    encode_events(&w, ev, NEV, 8, 61, 4);
    for (size_t i = 0; i < w.n; i++) {
        unsigned r = rnd_below(10000);

        if (r < 5)
            continue; /* dropped */
        noisy[n++] = r < 10 ? w.b[i] ^ (uint8_t)(1u << rnd_below(8)) : w.b[i];
        if (r >= 10 && r < 15)
            noisy[n++] = w.b[i]; /* duplicated */
    }
    got_init(&g, NEV + 1000);
    sframe_feed(g.fr, noisy, n);
    sframe_get_stats(g.fr, &fs);
    sdec_get_stats(g.dec, &ds);
    ck_assert_uint_gt(fs.bad, 0);
    ck_assert_uint_gt(ds.lost_link, 0);
    ck_assert_uint_gt(g.n, NEV / 2);
    end = g.ev[0].seq;
    for (unsigned i = 0, k = 0; i < g.n; i++) {
        const struct ev *e = &g.ev[i];

        ck_assert_uint_eq(e->seq, end);
        end = e->seq + (e->kind == EV_LOST ? e->addr : 1);
        if (e->kind == EV_LOST && e->data == EV_LOST_LINK)
            continue;
        while (k < NEV && ev[k].seq < e->seq)
            k++;
        ck_assert_uint_lt(k, NEV);
        assert_joined_ev(e, &ev[k], &j, 1);
    }
    ck_assert_uint_eq(ds.events + ds.lost_target + ds.lost_link, end - g.ev[0].seq);
    ck_assert_uint_eq(j.shift, 0); /* 61 bits: the clock never wraps */
    got_free(&g);
    free(ev);
}
END_TEST

/* Frames too long for the format, empty frames, runs of delimiters. */
START_TEST(test_stream_deframer_edges)
{
    struct wb w = {.n = 0};
    struct got g;
    struct sframe_stats fs;

    w.b[w.n++] = 0;
    memset(w.b + w.n, 0x5a, 300); /* past CYG_FRAME_WIRE_MAX before a delimiter */
    w.n += 300;
    w.b[w.n++] = 0;
    w.b[w.n++] = 0; /* empty frames: no frame at all */
    w.b[w.n++] = 0;
    w.b[w.n++] = 0x01; /* a block that decodes to nothing: too short */
    w.b[w.n++] = 0;
    wire(&w, desc64, sizeof desc64);
    got_init(&g, 8);
    feed(&g, &w);
    sframe_get_stats(g.fr, &fs);
    ck_assert_uint_eq(fs.bad, 2);
    ck_assert_uint_eq(fs.frames, 1);
    ck_assert_uint_eq(fs.skipped, 0);
    ck_assert_ptr_nonnull(sdec_desc(g.dec));
    got_free(&g);

    /* the longest frame the format allows still passes */
    {
        struct pl p = {.n = 0};
        struct sdec_stats ds;

        w.n = 0;
        wire(&w, desc64, sizeof desc64);
        put8(&p, CYG_FR_EVENTS);
        put8(&p, 0);
        putv(&p, 100);
        putv(&p, 0);
        put8(&p, CYG_TK_ENTER_LIT);
        put8(&p, 0x02);
        while (p.n < CYG_FRAME_PAYLOAD_MAX)
            put8(&p, cyg_cache_slot(1));
        wire(&w, p.b, p.n);
        ck_assert_uint_eq(w.n, sizeof desc64 + 6 + CYG_FRAME_WIRE_MAX);
        got_init(&g, 300);
        feed(&g, &w);
        sframe_get_stats(g.fr, &fs);
        sdec_get_stats(g.dec, &ds);
        ck_assert_uint_eq(fs.frames, 2);
        ck_assert_uint_eq(g.n, CYG_FRAME_PAYLOAD_MAX - 5);
        ck_assert_uint_eq(ds.events, CYG_FRAME_PAYLOAD_MAX - 5);
        got_free(&g);
    }
}
END_TEST

/* Random payloads after a description: never a crash, never an event from a frame that was
 * refused. */
START_TEST(test_stream_random_payloads)
{
    struct got g;
    struct wb w = {.n = 0};
    struct pl p;

    rnd_state = 9;
    got_init(&g, 4096);
    wire(&w, desc32, sizeof desc32);
    feed(&g, &w);
    for (unsigned k = 0; k < 20000; k++) {
        unsigned before = g.n;
        int rc;

        p.n = 1 + rnd_below(CYG_FRAME_PAYLOAD_MAX);
        for (size_t i = 0; i < p.n; i++)
            p.b[i] = (uint8_t)(rnd_below(3) ? rnd_below(0x86) : rnd());
        p.b[0] = rnd_below(8) ? CYG_FR_EVENTS : CYG_FR_DESC;
        if (p.b[0] == CYG_FR_EVENTS && p.n > 1)
            p.b[1] &= 0x03;
        rc = sdec_frame(g.dec, p.b, p.n);
        if (rc < 0)
            ck_assert_uint_eq(g.n, before);
        if (g.n > 3000)
            g.n = 0;
    }
    got_free(&g);
}
END_TEST

/* ---- sread ---- */

static void collect_sread(struct src *s, struct ev *out, unsigned cap, unsigned *n)
{
    struct sread *r = sread_open(s);
    int rc;

    ck_assert_ptr_nonnull(r);
    *n = 0;
    while ((rc = sread_next(r, &out[*n], NULL, 0)) == 1) {
        ck_assert_uint_lt(*n, cap);
        (*n)++;
    }
    ck_assert_int_eq(rc, 0);
    sread_close(r);
}

/* A saved stream read back from a file gives what feeding the same bytes gives. */
START_TEST(test_stream_sread_file)
{
    static struct wb w;
    struct ev *ev = calloc(NEV, sizeof *ev), *got = calloc(NEV + 100, sizeof *got);
    char path[] = "/tmp/check_stream_XXXXXX", err[128];
    struct got g;
    struct src *s;
    struct sdec_desc d;
    char why[256] = "";
    unsigned n;
    int fd;

    rnd_state = 5;
    make_events(ev, NEV, 4, 30);
    w.n = 0;
    memset(w.b, 0x77, 20); /* the end of a frame in front */
    w.b[20] = 0;
    w.n = 21;
    encode_events(&w, ev, NEV, 4, 30, 16);
    for (size_t i = 1000;; i++) /* some noise that leaves the delimiters alone */
        if (w.b[i] > 1) {
            w.b[i] ^= 0x01;
            break;
        }
    w.n -= 7; /* and cut in the last frame */
    fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, w.b, w.n), (long)w.n);
    close(fd);

    got_init(&g, NEV + 100);
    feed(&g, &w);
    s = src_open_file(path, err, sizeof err);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(sread_probe(s, &d, why, sizeof why), 0);
    ck_assert_uint_eq(d.ring.word_bytes, 4);
    ck_assert_uint_eq(d.ring.ts_bits, 30);
    ck_assert_uint_eq(d.next_seq, 0);
    collect_sread(s, got, NEV + 100, &n);
    ck_assert_uint_gt(n, NEV / 2);
    ck_assert_uint_eq(n, g.n);
    for (unsigned i = 0; i < n; i++)
        assert_same_ev(&got[i], &g.ev[i], 1);
    {
        struct sread *r = sread_open(s);
        struct sframe_stats fs, fs2;
        struct sdec_stats ds, ds2;
        struct ev e;

        while (sread_next(r, &e, NULL, 0) == 1)
            ;
        sread_get_stats(r, &fs, &ds);
        sframe_get_stats(g.fr, &fs2);
        sdec_get_stats(g.dec, &ds2);
        ck_assert_mem_eq(&fs, &fs2, sizeof fs);
        ck_assert_mem_eq(&ds, &ds2, sizeof ds);
        ck_assert_uint_eq(fs.bad, 1);
        ck_assert_uint_eq(fs.skipped, 20);
        sread_close(r);
    }
    src_close(s);
    unlink(path);
    got_free(&g);
    free(ev);
    free(got);
}
END_TEST

START_TEST(test_stream_sread_probe_rejects)
{
    static uint8_t junk[4096];
    struct wb w = {.n = 0};
    struct sdec_desc d;
    struct src *s;
    char why[256] = "";

    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (uint8_t)(i * 7 + 3);
    s = src_open_mem("junk", junk, sizeof junk, 0);
    ck_assert_int_eq(sread_probe(s, &d, why, sizeof why), SREAD_ENOFRAME);
    ck_assert_str_eq(why, "junk: no stream frame");
    src_close(s);

    s = src_open_mem("empty", junk, 0, 0);
    ck_assert_int_eq(sread_probe(s, &d, why, sizeof why), SREAD_ENOFRAME);
    ck_assert_str_eq(why, "empty: no stream frame");
    src_close(s);

    wire(&w, events32a, sizeof events32a);
    wire(&w, events32b, sizeof events32b);
    s = src_open_mem("nodesc", w.b, w.n, 0);
    ck_assert_int_eq(sread_probe(s, &d, why, sizeof why), -1);
    ck_assert_str_eq(why, "nodesc: no description frame");
    src_close(s);

    /* the first description is the one returned */
    w.n = 0;
    wire(&w, events32a, sizeof events32a);
    wire(&w, desc64, sizeof desc64);
    wire(&w, desc32, sizeof desc32);
    s = src_open_mem("two", w.b, w.n, 0);
    ck_assert_int_eq(sread_probe(s, &d, why, sizeof why), 0);
    ck_assert_uint_eq(d.ring.word_bytes, 8);
    ck_assert_uint_eq(d.next_seq, 100);
    src_close(s);
}
END_TEST

static void count_bytes(void *arg, const void *buf, size_t len)
{
    (void)buf;
    *(size_t *)arg += len;
}

/* A live stream over a wire (a file, here): each round reads the wire once and gives that
 * read's events, then SOURCE_AGAIN; the description shows once it came; the end is 0. */
START_TEST(test_stream_source_over_wire)
{
    static struct wb w;
    char path[] = "/tmp/check_stream_XXXXXX", err[256];
    struct source_stats st;
    struct source *s;
    struct wire *l;
    size_t tapped = 0;
    unsigned n = 0, rounds = 0;
    struct ev e;
    int fd, rc;

    w.n = 0;
    wire(&w, desc32, sizeof desc32);
    wire(&w, events32a, sizeof events32a);
    wire(&w, events32b, sizeof events32b);
    fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, w.b, w.n), (long)w.n);
    close(fd);
    ck_assert_ptr_nonnull(l = wire_open_file(path, err, sizeof err));
    ck_assert_ptr_nonnull(s = source_open_wire(l, count_bytes, &tapped, err, sizeof err));
    ck_assert_ptr_null(source_describe(s));
    ck_assert_int_eq(source_is_stream(s), 1);
    ck_assert_int_eq(source_rewind(s), -1); /* one pass only */
    while ((rc = source_next(s, &e, err, sizeof err)) != 0) {
        if (rc == SOURCE_AGAIN) {
            rounds++;
            continue;
        }
        ck_assert_int_eq(rc, 1);
        ck_assert_ptr_nonnull(source_describe(s));
        n++;
    }
    ck_assert_uint_eq(n, 5);      /* CONTEXT, two entries, two exits */
    ck_assert_uint_ge(rounds, 1); /* the file's bytes, then its end */
    ck_assert_uint_eq(tapped, w.n);
    ck_assert_uint_eq(source_describe(s)->word_bytes, 4);
    ck_assert_uint_eq(source_describe(s)->ts_hz, 25000000u);
    source_stats(s, &st);
    ck_assert_uint_eq(st.fr.bytes, w.n);
    ck_assert_uint_eq(st.sd.desc, 1);
    source_close(s);
    unlink(path);
}
END_TEST

Suite *stream_suite(void)
{
    Suite *s = suite_create("stream");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_stream_cobs_vectors);
    tcase_add_test(tc, test_stream_cobs_long_vectors);
    tcase_add_test(tc, test_stream_cobs_rejects_malformed);
    tcase_add_test(tc, test_stream_cobs_random_round_trips);
    tcase_add_test(tc, test_stream_vectors_64);
    tcase_add_test(tc, test_stream_host_times_read_back);
    tcase_add_test(tc, test_stream_vectors_32);
    tcase_add_test(tc, test_stream_ts_down);
    tcase_add_test(tc, test_stream_context_unknown_after_loss);
    tcase_add_test(tc, test_stream_desc_first);
    tcase_add_test(tc, test_stream_flipped_bit_rejected);
    tcase_add_test(tc, test_stream_crc_rejects);
    tcase_add_test(tc, test_stream_malformed_token);
    tcase_add_test(tc, test_stream_round_trip);
    tcase_add_test(tc, test_stream_sequence_gap);
    tcase_add_test(tc, test_stream_join_mid_stream);
    tcase_add_test(tc, test_stream_duplicate_dropped);
    tcase_add_test(tc, test_stream_restart);
    tcase_add_test(tc, test_stream_defer);
    tcase_add_test(tc, test_stream_replay_is_no_restart);
    tcase_add_loop_test(tc, test_stream_session_restarts, 0,
                        (int)(sizeof session_cases / sizeof session_cases[0]));
    tcase_add_test(tc, test_stream_noise_never_invents);
    tcase_add_test(tc, test_stream_ring_version_mark_class);
    tcase_add_test(tc, test_stream_deframer_edges);
    tcase_add_test(tc, test_stream_random_payloads);
    tcase_add_test(tc, test_stream_sread_file);
    tcase_add_test(tc, test_stream_sread_probe_rejects);
    tcase_add_test(tc, test_stream_source_over_wire);
    suite_add_tcase(s, tc);
    return s;
}
