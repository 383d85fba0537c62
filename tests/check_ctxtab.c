/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_ctxtab.c - the per-context table: entries found by id, the last one first, and a
 * trace of 200 000 distinct contexts (a crafted dump can name that many) through the table
 * and the sinks that keep one, which a search per event made quadratic. */
#include <check.h>
#include <stdlib.h>
#include <time.h>

#include "cyg_format.h"
#include "model/ctxtab.h"
#include "model/fnstat.h"
#include "model/graph.h"
#include "model/taskstat.h"
#include "suites.h"

#define MANY 200000u

/* CPU seconds the test may take: it takes about a tenth of one; a search per event takes tens
 * (2 * 10^10 comparisons), and a loaded machine's system time once took a whole one. */
#define MANY_CPU_S 5.0

static double now_s(void)
{
    struct timespec ts;

    /* CPU time: a busy machine's waits are not ours */
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

START_TEST(test_ctxtab_find_add)
{
    struct ctxtab t = {0};
    int *a, *b;

    ck_assert_ptr_null(ctxtab_find(&t, 7));
    ck_assert_ptr_nonnull(a = ctxtab_add(&t, 7, sizeof *a));
    ck_assert_int_eq(*a, 0); /* zeroed */
    ck_assert_ptr_nonnull(b = ctxtab_add(&t, 0, sizeof *b));
    *a = 70;
    *b = 1;
    ck_assert_ptr_eq(ctxtab_find(&t, 7), a);
    ck_assert_ptr_eq(ctxtab_find(&t, 0), b);
    ck_assert_ptr_eq(ctxtab_find(&t, 0), b); /* the last found, again */
    ck_assert_ptr_null(ctxtab_find(&t, 8));
    ck_assert_uint_eq(t.n, 2);
    ck_assert_ptr_eq(t.v[0], a); /* in the order they were added */
    ctxtab_free(&t);
    ck_assert_uint_eq(t.n, 0);
}
END_TEST

/* Ids spread over the whole 32 bits, and ids that differ in high bits only, land apart. The
 * loops count what is wrong and assert once: Check's every assertion costs a message. */
START_TEST(test_ctxtab_many)
{
    struct ctxtab t = {0};
    double t0 = now_s();
    unsigned bad = 0;

    for (uint32_t i = 0; i < MANY; i++) {
        uint32_t *e = ctxtab_add(&t, i * 0x9e3779b1u, sizeof *e);

        if (!e)
            break;
        *e = i;
    }
    ck_assert_uint_eq(t.n, MANY);
    for (uint32_t i = MANY; i-- > 0;) {
        uint32_t *e = ctxtab_find(&t, i * 0x9e3779b1u);

        bad += !e || *e != i;
    }
    ck_assert_uint_eq(bad, 0);
    ck_assert_ptr_null(ctxtab_find(&t, 1));
    ck_assert_double_lt(now_s() - t0, MANY_CPU_S);
    ctxtab_free(&t);
}
END_TEST

/* A call in each of MANY contexts into fnstat and graph, and a switch to each into taskstat:
 * every context is new, and each event looks its context up. */
START_TEST(test_ctxtab_many_contexts_sinks)
{
    struct fnstat *fs = fnstat_new(NULL, 0);
    struct graph *g = graph_new(NULL, 0, 0, 0, 0);
    struct taskstat *ts = taskstat_new(NULL, NULL);
    struct tree_frame f = {.addr = 0x10};
    double t0 = now_s();
    unsigned bad = 0, k;
    size_t n;

    ck_assert_ptr_nonnull(fs);
    ck_assert_ptr_nonnull(g);
    ck_assert_ptr_nonnull(ts);
    for (uint32_t i = 0; i < MANY && !bad; i++) {
        const struct tree_sink *a = fnstat_sink(fs, i), *b = graph_sink(g, i);
        struct ev e = {.kind = EV_CONTEXT, .ctx = i, .time = 2 * i};

        if (!a || !b) {
            bad++;
            break;
        }
        f.t_enter = 2 * i;
        a->enter(a->arg, &f, 0);
        b->enter(b->arg, &f, 0);
        a->exit(a->arg, &f, 0, 2 * i + 1, TREE_RETURNED);
        b->exit(b->arg, &f, 0, 2 * i + 1, TREE_RETURNED);
        bad += taskstat_feed(ts, &e) < 0;
        bad += fnstat_sink(fs, i) != a; /* found again, not made again */
    }
    taskstat_end(ts);
    ck_assert_uint_eq(bad, 0);
    ck_assert_double_lt(now_s() - t0, MANY_CPU_S);
    ck_assert_ptr_nonnull(fnstat_rows(fs, FNSTAT_BY_CALLS, &n));
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(fnstat_rows(fs, FNSTAT_BY_CALLS, &n)[0].calls, MANY);
    ck_assert_uint_eq(fnstat_rows(fs, FNSTAT_BY_CALLS, &n)[0].total, MANY);
    ck_assert_ptr_nonnull(graph_stats(g, &n));
    ck_assert_uint_eq(graph_stats(g, &n)[0].calls, MANY);
    ck_assert_ptr_nonnull(taskstat_contexts(ts, &k));
    ck_assert_uint_eq(k, MANY);
    fnstat_free(fs);
    graph_free(g);
    taskstat_free(ts);
}
END_TEST

Suite *ctxtab_suite(void)
{
    Suite *s = suite_create("ctxtab");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_ctxtab_find_add);
    tcase_add_test(tc, test_ctxtab_many);
    tcase_add_test(tc, test_ctxtab_many_contexts_sinks);
    suite_add_tcase(s, tc);
    return s;
}
