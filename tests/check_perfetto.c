/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_perfetto.c - the Perfetto writer's packets read back by a reader of the wire format
 * written here (protoc reads real traces in tests/e2e/perfetto.sh): the interning table
 * cleared with its sequence's state when full, so that memory stays bounded and every name_iid
 * was interned since its sequence's last clearing; the incremental clock's deltas adding up to
 * the events' times; begins and ends balanced; an RTOS schedule's CPU and blocked tracks;
 * merged inputs, a process each on the common clock. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/export.h"
#include "output/perfetto.h"
#include "suites.h"
#include "model/taskstat.h"
#include "model/tree.h"
#include "symbols/names.h"

struct fld {
    unsigned field, wire;
    uint64_t v;         /* a varint's value */
    const uint8_t *p;   /* a length-delimited field's bytes ... */
    size_t n;           /* ... and length */
};

static uint64_t varint(const uint8_t *p, size_t n, size_t *at)
{
    uint64_t v = 0;

    for (unsigned s = 0; s < 64; s += 7) {
        ck_assert_uint_lt(*at, n);
        v |= (uint64_t)(p[*at] & 0x7f) << s;
        if (!(p[(*at)++] & 0x80))
            return v;
    }
    ck_abort_msg("varint longer than 10 bytes");
    return 0;
}

/* The next field of the message p (n bytes) at *at: 1, or 0 at its end. */
static int next(const uint8_t *p, size_t n, size_t *at, struct fld *f)
{
    uint64_t tag;

    if (*at == n)
        return 0;
    tag = varint(p, n, at);
    f->field = (unsigned)(tag >> 3);
    f->wire = (unsigned)(tag & 7);
    if (f->wire == 0) {
        f->v = varint(p, n, at);
    } else {
        ck_assert_uint_eq(f->wire, 2);
        f->n = varint(p, n, at);
        ck_assert_uint_le(f->n, n - *at);
        f->p = p + *at;
        *at += f->n;
    }
    return 1;
}

#define MAX_SEQ 64

/* What the reader keeps per sequence. */
struct rseq {
    uint64_t clock;   /* the incremental clock */
    uint64_t maxiid;  /* the names interned since the last clearing: iids 1..maxiid */
    unsigned clears;
    int open;         /* slices open */
};

struct read {
    struct rseq s[MAX_SEQ];
    uint64_t times[1 << 16]; /* the begins' and ends' times on sequences other than 1, in order */
    uint8_t tseq[1 << 16];   /* ... their sequences */
    size_t ntimes;
    uint64_t begins, ends, max_iid;
};

/* Reads a TrackEvent: its type and name_iid. */
static void track_event(const uint8_t *p, size_t n, int *type, uint64_t *iid)
{
    struct fld f;
    size_t at = 0;

    while (next(p, n, &at, &f))
        if (f.field == 9)
            *type = (int)f.v;
        else if (f.field == 10)
            *iid = f.v;
}

/* The event names' highest iid in an InternedData. */
static uint64_t interned(const uint8_t *p, size_t n)
{
    struct fld f, g;
    size_t at = 0, at2;
    uint64_t max = 0;

    while (next(p, n, &at, &f))
        if (f.field == 2)
            for (at2 = 0; next(f.p, f.n, &at2, &g);)
                if (g.field == 1 && g.v > max)
                    max = g.v;
    return max;
}

/* A ClockSnapshot's clock 64 (the sequence's). */
static uint64_t snapshot(const uint8_t *p, size_t n)
{
    struct fld f, g;
    size_t at = 0, at2;
    uint64_t id = 0, t = 0;

    while (next(p, n, &at, &f))
        if (f.field == 1) {
            for (at2 = 0, id = 0; next(f.p, f.n, &at2, &g);)
                if (g.field == 1)
                    id = g.v;
                else if (g.field == 2 && id == 64)
                    t = g.v;
        }
    return t;
}

static void packet(struct read *r, const uint8_t *p, size_t n)
{
    uint64_t seq = 0, flags = 0, ts = 0, clock_id = 0, iid = 0, newmax = 0, snap = 0;
    const uint8_t *te = NULL;
    size_t ten = 0, at = 0;
    int type = 0, has_ts = 0, has_snap = 0;
    struct rseq *s;
    struct fld f;

    while (next(p, n, &at, &f)) {
        switch (f.field) {
        case 10: seq = f.v; break;
        case 13: flags = f.v; break;
        case 8: ts = f.v; has_ts = 1; break;
        case 58: clock_id = f.v; break;
        case 11: te = f.p; ten = f.n; break;
        case 12: newmax = interned(f.p, f.n); break;
        case 6: snap = snapshot(f.p, f.n); has_snap = 1; break;
        }
    }
    ck_assert_uint_gt(seq, 0);
    ck_assert_uint_lt(seq, MAX_SEQ);
    s = &r->s[seq];
    if (flags & 1) {
        s->maxiid = 0;
        s->clears++;
    }
    if (has_snap)
        s->clock = snap;
    if (newmax > s->maxiid)
        s->maxiid = newmax;
    if (newmax > r->max_iid)
        r->max_iid = newmax;
    if (!te)
        return;
    track_event(te, ten, &type, &iid);
    ck_assert_uint_le(iid, s->maxiid); /* interned since the last clearing */
    ck_assert(has_ts);
    if (seq != 1 && !clock_id) {
        s->clock += ts;
        ts = s->clock;
    }
    if (type == 1) {
        r->begins++;
        s->open++;
    } else if (type == 2) {
        r->ends++;
        ck_assert_int_gt(s->open, 0);
        s->open--;
    }
    if (seq != 1 && r->ntimes < sizeof r->times / sizeof *r->times) {
        r->tseq[r->ntimes] = (uint8_t)seq;
        r->times[r->ntimes++] = ts;
    }
}

/* Reads a whole trace (a Trace: packets, field 1). */
static void read_trace(struct read *r, const char *buf, size_t len)
{
    struct fld f;
    size_t at = 0;

    memset(r, 0, sizeof *r);
    while (next((const uint8_t *)buf, len, &at, &f)) {
        ck_assert_uint_eq(f.field, 1);
        packet(r, f.p, f.n);
    }
}

struct out {
    char *buf;
    size_t len;
    FILE *f;
    struct export *x;
    struct tree *t;
};

static void out_open(struct out *o, uint64_t hz)
{
    struct export_opts eo = {.format = EXPORT_PERFETTO, .hz = hz, .pid = 7, .word_bytes = 8};

    o->f = open_memstream(&o->buf, &o->len);
    ck_assert_ptr_nonnull(o->x = export_new(o->f, &eo));
    ck_assert_ptr_nonnull(o->t = tree_new(export_sink(o->x, 1, 77, 0), 0, NULL, NULL));
}

static void call(struct out *o, uint64_t addr, uint64_t from, uint64_t to)
{
    struct ev e = {.kind = EV_ENTER, .addr = addr, .time = from};

    ck_assert_int_eq(tree_feed(o->t, &e), 0);
    e.kind = EV_EXIT;
    e.time = to;
    ck_assert_int_eq(tree_feed(o->t, &e), 0);
}

static void out_close(struct out *o)
{
    char err[128];

    tree_finish(o->t);
    tree_free(o->t);
    ck_assert_int_eq(export_end(o->x, err, sizeof err), 0);
    export_free(o->x);
    fclose(o->f);
}

/* 10 000 distinct functions: the context's sequence is cleared when its table is full (its
 * first packet and twice more), no iid beyond the bound, every iid interned since. */
START_TEST(test_perfetto_intern_bounded)
{
    struct read *r = malloc(sizeof *r);
    struct out o;

    out_open(&o, 1000000000);
    for (uint64_t i = 0; i < 10000; i++)
        call(&o, 0x1000 + i * 16, 100 + 10 * i, 105 + 10 * i);
    out_close(&o);
    read_trace(r, o.buf, o.len);
    ck_assert_uint_eq(r->begins, 10000);
    ck_assert_uint_eq(r->ends, 10000);
    ck_assert_uint_eq(r->s[2].clears, 3);
    ck_assert_uint_eq(r->max_iid, PERFETTO_INTERN_MAX);
    ck_assert_int_eq(r->s[2].open, 0);
    free(o.buf);
    free(r);
}
END_TEST

/* The deltas add up to the events' times in nanoseconds (a 1 MHz clock: 1000 ns a tick),
 * through a clearing too; one function called over and over is interned once. */
START_TEST(test_perfetto_incremental_clock)
{
    struct read *r = malloc(sizeof *r);
    size_t bytes;
    struct out o;

    out_open(&o, 1000000);
    for (uint64_t i = 0; i < 1000; i++)
        call(&o, 0x40, 5000 + 3 * i, 5001 + 3 * i);
    out_close(&o);
    read_trace(r, o.buf, o.len);
    ck_assert_uint_eq(r->ntimes, 2000);
    for (size_t i = 0; i < 1000; i++) {
        ck_assert_uint_eq(r->times[2 * i], (5000 + 3 * i) * 1000);
        ck_assert_uint_eq(r->times[2 * i + 1], (5001 + 3 * i) * 1000);
    }
    ck_assert_uint_eq(r->max_iid, 1);
    /* a begin is 15 bytes here (a 2-byte delta), an end 13: the packets carry nothing else */
    bytes = o.len;
    ck_assert_uint_lt(bytes, 1000 * (15 + 13) + 200);
    free(o.buf);
    free(r);
}
END_TEST

static int has(const char *buf, size_t len, const char *s)
{
    return memmem(buf, len, s, strlen(s)) != NULL;
}

/* An RTOS schedule (check_export.c's, for Chrome): the CPU track's slices one after the other
 * on a sequence of their own, the blocked one on the task's "blocked" track with its "woken
 * by" annotation, the tracks named as the tree heads the contexts. */
START_TEST(test_perfetto_schedule)
{
    static const struct ev evs[] = {
        {.kind = EV_CONTEXT, .time = 10, .ctx = 2, .data = 2, .addr = 0x20002000},
        {.kind = EV_ENTER, .time = 12, .ctx = 2, .addr = 0x10},
        {.kind = EV_SCHED, .time = 15, .ctx = 2, .addr = 0x20003000,
         .data = CYG_SCHED_BLOCK | CYG_OBJ_QUEUE << CYG_SCHED_OBJ_SHIFT},
        {.kind = EV_CONTEXT, .time = 20, .ctx = 1, .data = 1, .addr = 0x20001000},
        {.kind = EV_CONTEXT, .time = 30, .ctx = 3, .data = 3, .addr = 0x1000},
        {.kind = EV_SCHED, .time = 32, .ctx = 3, .addr = 0x20002000,
         .data = CYG_SCHED_WAKE | 2u << CYG_SCHED_ID_SHIFT},
        {.kind = EV_CONTEXT, .time = 35, .ctx = 2, .data = 2, .addr = 0x20002000},
        {.kind = EV_SCHED, .time = 35, .ctx = 2, .addr = 0x1000,
         .data = CYG_SCHED_RESUME | 3u << CYG_SCHED_ID_SHIFT},
        {.kind = EV_EXIT, .time = 40, .ctx = 2, .addr = 0x10},
    };
    static const uint64_t cpu[] = {10, 20, 20, 30, 30, 35, 35, 40}; /* us */
    struct export_opts o = {.format = EXPORT_PERFETTO, .hz = 1000000, .pid = 7, .word_bytes = 4};
    struct read *r = malloc(sizeof *r);
    struct names *nm = names_new();
    struct out w = {0};
    struct taskstat *s;
    unsigned k = 0, cpu_seq = 0;
    char err[128];

    ck_assert_ptr_nonnull(nm);
    ck_assert_int_eq(names_set_ctx(nm, 1, "prod"), 0);
    ck_assert_int_eq(names_set_ctx(nm, 2, "cons"), 0);
    ck_assert_int_eq(names_set_obj(nm, 0x20003000, CYG_OBJ_QUEUE, "jobs"), 0);
    w.f = open_memstream(&w.buf, &w.len);
    ck_assert_ptr_nonnull(w.x = export_new(w.f, &o));
    export_names(w.x, nm);
    ck_assert_ptr_nonnull(w.t = tree_new(export_sink(w.x, 2, 0, 0), 0, NULL, NULL));
    call(&w, 0x10, 12, 40);
    tree_finish(w.t);
    tree_free(w.t);
    ck_assert_ptr_nonnull(s = taskstat_new(export_taskstat_span, w.x));
    for (unsigned i = 0; i < sizeof evs / sizeof evs[0]; i++)
        ck_assert_int_eq(taskstat_feed(s, &evs[i]), 0);
    taskstat_end(s);
    taskstat_free(s);
    ck_assert_int_eq(export_end(w.x, err, sizeof err), 0);
    export_free(w.x);
    fclose(w.f);
    read_trace(r, w.buf, w.len);
    ck_assert_uint_eq(r->begins, r->ends);
    ck_assert_uint_eq(r->begins, 1 + 4 + 1); /* the call, the CPU's, the blocked interval */
    for (size_t i = 0; i < r->ntimes; i++) {
        if (r->tseq[i] == 2) /* the context's: the call from 12 to 40 */
            continue;
        if (!cpu_seq)
            cpu_seq = r->tseq[i];
        if (r->tseq[i] == cpu_seq) {
            ck_assert_uint_lt(k, 8);
            ck_assert_uint_eq(r->times[i], cpu[k++] * 1000);
        } else { /* blocked from 15 to 32 */
            ck_assert_uint_eq(r->times[i], r->times[i] == 15000 ? 15000 : 32000);
        }
    }
    ck_assert_uint_eq(k, 8);
    ck_assert(has(w.buf, w.len, "context 2 \"cons\""));
    ck_assert(has(w.buf, w.len, "context 1 \"prod\""));
    ck_assert(has(w.buf, w.len, "CPU"));
    ck_assert(has(w.buf, w.len, "context 2 \"cons\": blocked"));
    ck_assert(has(w.buf, w.len, "blocked on queue \"jobs\""));
    ck_assert(has(w.buf, w.len, "woken by"));
    free(w.buf);
    free(r);
    names_free(nm);
}
END_TEST

/* Two inputs merged (export_input): a process each (its pid and name), the second's contexts
 * on sequences of their own, each input's times through its timebase (the second shifted by
 * 1 ms); a time before the common clock's 0 written as 0, and counted. */
START_TEST(test_perfetto_inputs)
{
    struct timebase tb1 = {.hz = 1000000000}, tb2 = {.hz = 1000000000, .offset_ns = 1000000};
    struct timebase tb3 = {.hz = 1000000000, .offset_ns = -1000000};
    struct export_opts o = {.format = EXPORT_PERFETTO, .hz = 1000000000, .pid = 7,
                            .word_bytes = 8, .tb = &tb1, .process = "first.out"};
    struct read *r = malloc(sizeof *r);
    struct out w = {0};
    char err[128];

    w.f = open_memstream(&w.buf, &w.len);
    ck_assert_ptr_nonnull(w.x = export_new(w.f, &o));
    ck_assert_ptr_nonnull(w.t = tree_new(export_sink(w.x, 1, 77, 0), 0, NULL, NULL));
    call(&w, 0x10, 100, 200);
    tree_finish(w.t);
    tree_free(w.t);
    o.pid = 8, o.tb = &tb2, o.process = "second.out";
    export_input(w.x, &o);
    ck_assert_ptr_nonnull(w.t = tree_new(export_sink(w.x, 1, 88, 0), 0, NULL, NULL));
    call(&w, 0x10, 100, 200);
    tree_finish(w.t);
    tree_free(w.t);
    o.pid = 9, o.tb = &tb3, o.process = "third.out";
    export_input(w.x, &o);
    ck_assert_ptr_nonnull(w.t = tree_new(export_sink(w.x, 1, 99, 0), 0, NULL, NULL));
    call(&w, 0x10, 100, 2000000);
    tree_finish(w.t);
    tree_free(w.t);
    ck_assert_int_eq(export_end(w.x, err, sizeof err), 0);
    ck_assert_uint_eq(export_early(w.x), 1);
    export_free(w.x);
    fclose(w.f);
    read_trace(r, w.buf, w.len);
    ck_assert_uint_eq(r->ntimes, 6);
    ck_assert_uint_eq(r->tseq[0], 2);
    ck_assert_uint_eq(r->times[0], 100);
    ck_assert_uint_eq(r->times[1], 200);
    ck_assert_uint_eq(r->tseq[2], 3); /* the second input's context: a sequence of its own */
    ck_assert_uint_eq(r->times[2], 1000100);
    ck_assert_uint_eq(r->times[3], 1000200);
    ck_assert_uint_eq(r->tseq[4], 4);
    ck_assert_uint_eq(r->times[4], 0); /* -999900 ns */
    ck_assert_uint_eq(r->times[5], 1000000);
    ck_assert(has(w.buf, w.len, "first.out"));
    ck_assert(has(w.buf, w.len, "second.out"));
    ck_assert(has(w.buf, w.len, "third.out"));
    free(w.buf);
    free(r);
}
END_TEST

Suite *perfetto_suite(void)
{
    Suite *s = suite_create("perfetto");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_perfetto_intern_bounded);
    tcase_add_test(tc, test_perfetto_incremental_clock);
    tcase_add_test(tc, test_perfetto_schedule);
    tcase_add_test(tc, test_perfetto_inputs);
    suite_add_tcase(s, tc);
    return s;
}
