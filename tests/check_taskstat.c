/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_taskstat.c - the per-context scheduling accounting against 32-bit rings built byte by
 * byte, as an RTOS glue writes them: TIME then CONTEXT at each switch, SCHED BLOCK in the
 * blocking context, WAKE in the waker's, RESUME right after the woken one's CONTEXT. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "cyg_format.h"
#include "decode/dec.h"
#include "decode/hdr.h"
#include "source/load.h"
#include "ringgen.h"
#include "suites.h"
#include "model/taskstat.h"
#include "output/fmt.h"

#define PROD 1u /* a task */
#define CONS 2u /* a task that blocks on a queue, then on a delay */
#define ISR 3u  /* an interrupt: wakes CONS */
#define JOBS 0x20003000u

static void sw(struct ringgen *g, uint64_t t, unsigned id, uint64_t handle)
{
    rg_special(g, CYG_SP_TIME, 0, t, 0);
    rg_special(g, CYG_SP_CONTEXT, id, handle, 0);
}

static void sched(struct ringgen *g, uint64_t t, unsigned kind, unsigned arg, uint64_t a)
{
    rg_special(g, CYG_SP_TIME, 0, t, 0);
    rg_special(g, CYG_SP_SCHED, kind | arg, a, 0);
}

static unsigned block(unsigned obj, unsigned op)
{
    return obj << CYG_SCHED_OBJ_SHIFT | op << CYG_SCHED_OP_SHIFT;
}

static unsigned other(unsigned id)
{
    return id << CYG_SCHED_ID_SHIFT;
}

/* Two tasks and an interrupt, from 10 to 60:
 *   10 CONS in; 15 CONS blocks on the queue JOBS; 20 PROD in; 30 ISR in, 32 wakes CONS;
 *   35 back to PROD; 40 CONS in (RESUME: woken by ISR); 50 CONS delays 5 ticks; 52 PROD in,
 *   runs to the end (60), CONS still delayed.
 * PROD runs 10 + 5 + 8 (cut by the end), CONS 10 + 12, ISR 5; CONS is blocked 17 + 10 (cut). */
static void two_tasks_and_isr(struct ringgen *g, unsigned flags)
{
    rg_init(g, 4, 6, CYG_F_OVERWRITE);
    g->flags = (g->flags & ~CYG_F_TIMESTAMPS) | flags;
    sw(g, 10, CONS, 0x20002000);
    rg_event(g, 0, 0x1100, 12, 0, 0);
    sched(g, 15, CYG_SCHED_BLOCK, block(CYG_OBJ_QUEUE, CYG_OP_RECEIVE), JOBS);
    sw(g, 20, PROD, 0x20001000);
    rg_event(g, 0, 0x1200, 22, 0, 0);
    sw(g, 30, ISR, 0x1000);
    rg_event(g, 0, 0x1000, 31, 0, 0);
    sched(g, 32, CYG_SCHED_WAKE, other(CONS), 0x20002000);
    rg_event(g, 1, 0x1000, 33, 0, 0);
    sw(g, 35, PROD, 0x20001000);
    sw(g, 40, CONS, 0x20002000);
    rg_special(g, CYG_SP_SCHED, CYG_SCHED_RESUME | other(ISR), 0x1000, 0);
    rg_event(g, 1, 0x1100, 45, 0, 0);
    sched(g, 50, CYG_SCHED_BLOCK, block(CYG_OBJ_DELAY, 0), 5);
    sw(g, 52, PROD, 0x20001000);
    rg_event(g, 0, 0x1300, 55, 0, 0);
    rg_event(g, 1, 0x1300, 60, 0, 0);
    rg_seal(g, 0, CYG_S_FROZEN);
}

struct spans {
    struct taskstat_span v[64];
    unsigned n;
};

static void keep(void *arg, const struct taskstat_span *sp)
{
    struct spans *s = arg;

    ck_assert_uint_lt(s->n, 64);
    s->v[s->n++] = *sp;
}

/* Decodes the ring into a new accounting (spans, may be NULL, gets the intervals). */
static struct taskstat *account(struct ringgen *g, struct spans *spans)
{
    struct src *src = src_open_mem("test", g->buf, g->size, 0);
    struct taskstat *s = taskstat_new(spans ? keep : NULL, spans);
    struct dec_ring r;
    char why[256] = "";
    struct dec *d;
    struct ev e;

    ck_assert_ptr_nonnull(src);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(hdr_locate(src, &r, why, sizeof why), 0);
    ck_assert_ptr_nonnull(d = dec_open(src, &r));
    while (dec_next(d, &e) > 0)
        ck_assert_int_eq(taskstat_feed(s, &e), 0);
    taskstat_end(s);
    dec_close(d);
    src_close(src);
    return s;
}

static const struct taskstat_ctx *ctx_of(const struct taskstat_ctx *v, unsigned n, uint32_t id)
{
    for (unsigned i = 0; i < n; i++)
        if (v[i].id == id)
            return &v[i];
    ck_abort_msg("no context %u", id);
    return NULL;
}

START_TEST(test_taskstat_running_and_blocked_times)
{
    struct ringgen g;
    struct taskstat *s;
    struct taskstat_info in;
    const struct taskstat_ctx *v, *c;
    unsigned n;

    two_tasks_and_isr(&g, CYG_F_TIMESTAMPS);
    s = account(&g, NULL);
    ck_assert_ptr_nonnull(v = taskstat_contexts(s, &n));
    ck_assert_uint_eq(n, 3);
    ck_assert_uint_eq(v[0].id, PROD); /* by running time */
    ck_assert_uint_eq(v[1].id, CONS);
    ck_assert_uint_eq(v[2].id, ISR);
    c = ctx_of(v, n, PROD);
    ck_assert_uint_eq(c->run, 23);
    ck_assert_uint_eq(c->blocked, 0);
    ck_assert_uint_eq(c->switches, 3);
    ck_assert_uint_eq(c->blocks, 0);
    ck_assert_uint_eq(c->waker_n, 0);
    ck_assert_uint_eq(c->cut, TASKSTAT_CUT_END);
    c = ctx_of(v, n, CONS);
    ck_assert_uint_eq(c->run, 22);
    ck_assert_uint_eq(c->blocked, 27);
    ck_assert_uint_eq(c->switches, 2);
    ck_assert_uint_eq(c->blocks, 2);
    ck_assert_uint_eq(c->wakes, 1); /* the WAKE and its RESUME: one wake */
    ck_assert_uint_eq(c->waker, ISR);
    ck_assert_uint_eq(c->waker_n, 1);
    ck_assert_uint_eq(c->cut, TASKSTAT_BLOCKED_END);
    c = ctx_of(v, n, ISR);
    ck_assert_uint_eq(c->run, 5);
    ck_assert_uint_eq(c->switches, 1);
    ck_assert_uint_eq(c->cut, 0);
    taskstat_get_info(s, &in);
    ck_assert_uint_eq(in.t_first, 10);
    ck_assert_uint_eq(in.t_last, 60);
    ck_assert_uint_eq(in.switches, 6);
    ck_assert_uint_eq(in.rtos, 4);
    ck_assert_int_eq(in.have_first, 0); /* the trace starts with a switch */
    taskstat_free(s);
    rg_free(&g);
}
END_TEST

/* The intervals, as they close, in ring order: what the Chrome export draws. */
START_TEST(test_taskstat_spans)
{
    static const struct {
        unsigned kind;
        uint32_t id;
        uint64_t from, to;
        unsigned cut;
    } want[] = {
        {TASKSTAT_RUN, CONS, 10, 20, 0},
        {TASKSTAT_RUN, PROD, 20, 30, 0},
        {TASKSTAT_BLOCKED, CONS, 15, 32, 0},
        {TASKSTAT_RUN, ISR, 30, 35, 0},
        {TASKSTAT_RUN, PROD, 35, 40, 0},
        {TASKSTAT_RUN, CONS, 40, 52, 0},
        {TASKSTAT_RUN, PROD, 52, 60, TASKSTAT_CUT_END},
        {TASKSTAT_BLOCKED, CONS, 50, 60, TASKSTAT_BLOCKED_END},
    };
    struct spans sp = {.n = 0};
    struct ringgen g;

    two_tasks_and_isr(&g, CYG_F_TIMESTAMPS);
    taskstat_free(account(&g, &sp));
    ck_assert_uint_eq(sp.n, sizeof want / sizeof want[0]);
    for (unsigned i = 0; i < sp.n; i++) {
        ck_assert_uint_eq(sp.v[i].kind, want[i].kind);
        ck_assert_uint_eq(sp.v[i].id, want[i].id);
        ck_assert_uint_eq(sp.v[i].from, want[i].from);
        ck_assert_uint_eq(sp.v[i].to, want[i].to);
        ck_assert_uint_eq(sp.v[i].cut, want[i].cut);
    }
    ck_assert_uint_eq(sp.v[2].objtype, CYG_OBJ_QUEUE);
    ck_assert_uint_eq(sp.v[2].obj, JOBS);
    ck_assert_uint_eq(sp.v[2].op, CYG_OP_RECEIVE);
    ck_assert_int_eq(sp.v[2].have_waker, 1);
    ck_assert_uint_eq(sp.v[2].waker, ISR);
    ck_assert_uint_eq(sp.v[7].objtype, CYG_OBJ_DELAY);
    ck_assert_uint_eq(sp.v[7].obj, 5);
    ck_assert_int_eq(sp.v[7].have_waker, 0);
    rg_free(&g);
}
END_TEST

/* Without timestamps: the same counts, no time. */
START_TEST(test_taskstat_counts_without_times)
{
    struct ringgen g;
    struct taskstat *s;
    const struct taskstat_ctx *v, *c;
    unsigned n;

    two_tasks_and_isr(&g, 0);
    s = account(&g, NULL);
    ck_assert_ptr_nonnull(v = taskstat_contexts(s, &n));
    ck_assert_uint_eq(n, 3);
    ck_assert_uint_eq(v[0].id, PROD); /* by switches then */
    c = ctx_of(v, n, CONS);
    ck_assert_uint_eq(c->run + c->blocked, 0);
    ck_assert_uint_eq(c->switches, 2);
    ck_assert_uint_eq(c->blocks, 2);
    ck_assert_uint_eq(c->waker, ISR);
    ck_assert_uint_eq(ctx_of(v, n, ISR)->switches, 1);
    taskstat_free(s);
    rg_free(&g);
}
END_TEST

/* A wrapped ring starts inside a context (the decoder calls it 0): counted from the first
 * event and said; a switch-in with no WAKE ends the block, its RESUME says who woke it; a
 * task woken before it ever ran was blocked since before the trace. */
START_TEST(test_taskstat_cut_by_the_start)
{
    struct ringgen g;
    struct taskstat *s;
    struct taskstat_info in;
    const struct taskstat_ctx *v, *c;
    unsigned n;

    rg_init(&g, 4, 4, CYG_F_OVERWRITE);
    rg_event(&g, 0, 0x1100, 5, 0, 0);
    sw(&g, 8, 1, 0x20001000);
    sched(&g, 9, CYG_SCHED_BLOCK, block(CYG_OBJ_SEMAPHORE, 0), 0x20004000);
    sw(&g, 10, 2, 0x20002000);
    sched(&g, 12, CYG_SCHED_WAKE, other(4), 0x20005000);
    sw(&g, 14, 1, 0x20001000);
    rg_special(&g, CYG_SP_SCHED, CYG_SCHED_RESUME | other(2), 0x20002000, 0);
    rg_event(&g, 1, 0x1100, 20, 0, 0);
    rg_seal(&g, 0, CYG_S_FROZEN);
    s = account(&g, NULL);
    ck_assert_ptr_nonnull(v = taskstat_contexts(s, &n));
    ck_assert_uint_eq(n, 4);
    c = ctx_of(v, n, 0);
    ck_assert_uint_eq(c->run, 3);
    ck_assert_uint_eq(c->switches, 0);
    ck_assert_uint_eq(c->cut, TASKSTAT_CUT_START);
    c = ctx_of(v, n, 1);
    ck_assert_uint_eq(c->run, 2 + 6);
    ck_assert_uint_eq(c->blocked, 5);
    ck_assert_uint_eq(c->wakes, 1);
    ck_assert_uint_eq(c->waker, 2);
    ck_assert_uint_eq(c->waker_n, 1);
    c = ctx_of(v, n, 4);
    ck_assert_uint_eq(c->run, 0);
    ck_assert_uint_eq(c->blocked, 7);
    ck_assert_uint_eq(c->cut, TASKSTAT_BLOCKED_START);
    ck_assert_uint_eq(c->waker, 2);
    taskstat_get_info(s, &in);
    ck_assert_int_eq(in.have_first, 1);
    ck_assert_uint_eq(in.first, 0);
    taskstat_free(s);
    rg_free(&g);
}
END_TEST

/* The pass that report and export make: through load, as the commands open a dump. */
START_TEST(test_taskstat_run_over_a_load)
{
    struct ringgen g;
    struct load l;
    struct taskstat *s;
    const struct taskstat_ctx *v;
    struct filter_time ft = {0};
    char err[256];
    unsigned n;

    two_tasks_and_isr(&g, CYG_F_TIMESTAMPS);
    ck_assert_int_eq(
        load_attach(&l, NULL, src_open_mem("test", g.buf, g.size, 0), 0, err, sizeof err), 0);
    ck_assert_ptr_nonnull(s = taskstat_new(NULL, NULL));
    ck_assert_int_eq(taskstat_run(&l, ft, s, err, sizeof err), 0);
    ck_assert_ptr_nonnull(v = taskstat_contexts(s, &n));
    ck_assert_uint_eq(n, 3);
    ck_assert_uint_eq(ctx_of(v, n, PROD)->run, 23);
    ck_assert_uint_eq(ctx_of(v, n, CONS)->blocked, 27);
    taskstat_free(s);
    load_close(&l);
    rg_free(&g);
}
END_TEST

/* What the report and the export call things: a blocked interval is said as the state it
 * is in (fmt_block's FMT_BLOCK_INTERVAL). */
START_TEST(test_taskstat_names)
{
    struct names *nm = names_new();
    struct taskstat_span sp = {
        .kind = TASKSTAT_BLOCKED, .id = CONS, .obj = JOBS, .objtype = CYG_OBJ_QUEUE};
    char buf[128];

    ck_assert_ptr_nonnull(nm);
    ck_assert_int_eq(names_set_ctx(nm, CONS, "cons"), 0);
    ck_assert_int_eq(names_set_obj(nm, JOBS, CYG_OBJ_QUEUE, "jobs"), 0);
    names_ctx_text(nm, NULL, 0, CONS, 0, buf, sizeof buf);
    ck_assert_str_eq(buf, "cons");
    names_ctx_text(nm, NULL, 0, ISR, 0, buf, sizeof buf);
    ck_assert_str_eq(buf, "context 3");
    names_ctx_text(NULL, NULL, 0, ISR, 0, buf, sizeof buf);
    ck_assert_str_eq(buf, "context 3");
    fmt_block(nm, sp.objtype, sp.obj, sp.op, FMT_BLOCK_INTERVAL, buf, sizeof buf);
    ck_assert_str_eq(buf, "blocked on queue \"jobs\"");
    sp.obj = 0x20009000;
    fmt_block(nm, sp.objtype, sp.obj, sp.op, FMT_BLOCK_INTERVAL, buf, sizeof buf);
    ck_assert_str_eq(buf, "blocked on queue 0x20009000");
    sp.objtype = CYG_OBJ_DELAY;
    sp.obj = 5;
    fmt_block(nm, sp.objtype, sp.obj, sp.op, FMT_BLOCK_INTERVAL, buf, sizeof buf);
    ck_assert_str_eq(buf, "delayed (5 ticks)");
    sp.objtype = CYG_OBJ_NOTIFY;
    fmt_block(NULL, sp.objtype, sp.obj, sp.op, FMT_BLOCK_INTERVAL, buf, sizeof buf);
    ck_assert_str_eq(buf, "waiting for a notification");
    /* Zephyr's objects by their type names, with their operations. */
    ck_assert_int_eq(names_set_obj(nm, JOBS, CYG_OBJ_K_MSGQ, "jobs"), 0);
    fmt_block(nm, CYG_OBJ_K_MSGQ, JOBS, CYG_OP_RECEIVE, FMT_BLOCK_RECORD, buf, sizeof buf);
    ck_assert_str_eq(buf, "blocked on k_msgq \"jobs\" (get)");
    fmt_block(nm, CYG_OBJ_K_MSGQ, JOBS, CYG_OP_SEND, FMT_BLOCK_INTERVAL, buf, sizeof buf);
    ck_assert_str_eq(buf, "blocked on k_msgq \"jobs\"");
    fmt_block(nm, CYG_OBJ_K_MUTEX, 0x20009000, 0, FMT_BLOCK_RECORD, buf, sizeof buf);
    ck_assert_str_eq(buf, "blocked on k_mutex 0x20009000 (lock)");
    fmt_block(nm, CYG_OBJ_K_PIPE, 0x20009000, CYG_OP_SEND, FMT_BLOCK_RECORD, buf, sizeof buf);
    ck_assert_str_eq(buf, "blocked on k_pipe 0x20009000 (write)");
    fmt_block(nm, CYG_OBJ_K_SEM, 0x20009000, 0, FMT_BLOCK_RECORD, buf, sizeof buf);
    ck_assert_str_eq(buf, "blocked on k_sem 0x20009000 (take)");
    names_free(nm);
}
END_TEST

Suite *taskstat_suite(void)
{
    Suite *s = suite_create("taskstat");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_taskstat_running_and_blocked_times);
    tcase_add_test(tc, test_taskstat_spans);
    tcase_add_test(tc, test_taskstat_counts_without_times);
    tcase_add_test(tc, test_taskstat_cut_by_the_start);
    tcase_add_test(tc, test_taskstat_run_over_a_load);
    tcase_add_test(tc, test_taskstat_names);
    suite_add_tcase(s, tc);
    return s;
}
