/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_pipeline.c - the pipeline over a ring: the scan's contexts and starting depths, a
 * context's own pass, the pass that feeds every context, the filters in the chain. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "cyg_format.h"
#include "model/pipeline.h"
#include "ringgen.h"

/* Calls seen by a sink, per context. */
struct count {
    uint32_t ctx;
    unsigned enters, exits;
};

static void c_enter(void *arg, const struct tree_frame *f, unsigned depth)
{
    (void)f;
    (void)depth;
    ((struct count *)arg)->enters++;
}

static void c_exit(void *arg, const struct tree_frame *f, unsigned depth, uint64_t t,
                   enum tree_exit_how how)
{
    (void)f;
    (void)depth;
    (void)t;
    (void)how;
    ((struct count *)arg)->exits++;
}

static void c_special(void *arg, const struct ev *e, unsigned depth)
{
    (void)arg;
    (void)e;
    (void)depth;
}

static void c_finish(void *arg, const struct tree_frame *stack, unsigned n)
{
    (void)arg;
    (void)stack;
    (void)n;
}

struct counts {
    struct count c[4];
    struct tree_sink s[4];
    unsigned n;
};

static const struct tree_sink *sink_of(void *arg, const struct dec_ctx *ctx)
{
    struct counts *k = arg;
    unsigned i = k->n++;

    k->c[i] = (struct count){.ctx = ctx->id};
    k->s[i] = (struct tree_sink){&k->c[i], c_enter, c_exit, c_special, c_finish, NULL};
    return &k->s[i];
}

/* Thread 0: f -> g, then the exit of h, entered before the trace; thread 1: one call. */
static void open_ring(struct ringgen *g, struct load *l)
{
    char err[256];

    rg_two_threads(g, CYG_F_OVERWRITE | CYG_F_TIMESTAMPS);
    rg_event(g, 1, 0x3000, 7, 0, 0); /* h */
    rg_seal(g, 0, CYG_S_RUNNING);
    ck_assert_msg(load_attach(l, NULL, src_open_mem("ring", g->buf, g->size, 0), 0, err,
                              sizeof err) == 0,
                  "%s", err);
}

START_TEST(test_pipeline_scan_and_run)
{
    struct filter_opts fo = {0};
    struct pipeline_tally t = {0, 0, 0};
    struct tree_scan sc = {0};
    struct source_stats st;
    struct counts k = {.n = 0};
    struct ringgen g;
    struct load l;
    unsigned checked = 0, known = 0;
    char err[256];

    open_ring(&g, &l);
    ck_assert_int_eq(pipeline_scan(&l, (struct filter_time){0}, &sc, &st, &checked, &known), 0);
    ck_assert_uint_eq(st.dec.decoded, 7);
    ck_assert_uint_eq(sc.n, 2);
    ck_assert_int_eq(sc.ctx[0].min_depth, -1); /* thread 0 starts one call deep */
    ck_assert_uint_eq(known, 0);               /* no ELF: nothing checked */
    ck_assert_int_eq(pipeline_run(&l, &sc, &fo, (struct filter_time){0}, NULL, sink_of, &k,
                                  &t, err, sizeof err),
                     2);
    ck_assert_uint_eq(k.c[0].enters, 2);
    ck_assert_uint_eq(k.c[0].exits, 3);
    ck_assert_uint_eq(k.c[1].enters, 1);
    ck_assert_uint_eq(t.unmatched, 0);
    /* one context only: the other gets no chain */
    k.n = 0;
    ck_assert_int_eq(pipeline_run(&l, &sc, &fo, (struct filter_time){0}, &sc.ctx[1].id,
                                  sink_of, &k, &t, err, sizeof err),
                     1);
    ck_assert_uint_eq(k.c[0].ctx, 1);
    tree_scan_free(&sc);
    load_close(&l);
    rg_free(&g);
}
END_TEST

/* A context's own pass, behind a filter: --hide of g leaves f alone. */
START_TEST(test_pipeline_ctx_filtered)
{
    struct filter_opts fo = {.have_hide = 1, .hide = 0x1100};
    struct pipeline_tally t = {0, 0, 0};
    struct tree_scan sc = {.want_index = 1};
    struct source_stats st;
    struct counts k = {.n = 0};
    struct ringgen g;
    struct load l;
    unsigned checked = 0, known = 0;

    open_ring(&g, &l);
    ck_assert_int_eq(pipeline_scan(&l, (struct filter_time){0}, &sc, &st, &checked, &known), 0);
    ck_assert_int_eq(pipeline_ctx(&l, &sc, &sc.ctx[0], sink_of(&k, &sc.ctx[0]), &fo,
                                  (struct filter_time){0}, &t),
                     0);
    ck_assert_uint_eq(k.c[0].enters, 1); /* f; g hidden */
    tree_scan_free(&sc);
    load_close(&l);
    rg_free(&g);
}
END_TEST

Suite *pipeline_suite(void)
{
    Suite *s = suite_create("pipeline");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_pipeline_scan_and_run);
    tcase_add_test(tc, test_pipeline_ctx_filtered);
    suite_add_tcase(s, tc);
    return s;
}
