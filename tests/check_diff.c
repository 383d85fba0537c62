/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_diff.c - the alignment of two traces' call trees (model/diff.c) and the join of their
 * costs (model/costdiff.c), on event scripts written by hand and run through the real tree
 * builder: "+A" enters function A, "-A" exits it, "2:" before one puts it in context 2 (else
 * 1); each event is 10 ticks after the one before. Trace A's functions sit at 0x10, 0x20, ...
 * and trace B's, in some tests, at other addresses (another build): both name them "fn_A".
 * The divergences are written "K:PATH:A-RUNS/B-RUNS", K one of I (inserted), D (deleted),
 * R (replaced), C (count), E (ended otherwise), joined by ";". */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/costdiff.h"
#include "model/diff.h"
#include "model/tree.h"
#include "suites.h"

#define MAX_CTX 4

struct side {
    uint64_t base; /* the address of function A */
};

static const char *name_of(void *arg, uint64_t addr, char *buf, size_t len)
{
    const struct side *s = arg;

    snprintf(buf, len, "fn_%c", (char)('A' + (addr - s->base) / 0x10));
    return buf;
}

/* Runs script into a new trace of set whose functions start at base, its trees starting
 * start_depth deep; returns the trace (*root: context 1's shape). */
static struct diff_trace *run(struct diff_set *set, struct side *sd, const char *script,
                              unsigned start_depth, uint32_t *root)
{
    struct diff_trace *t = diff_trace_new(set, name_of, sd);
    struct tree *tree[MAX_CTX] = {0};
    uint64_t time = 0;
    const char *p = script;
    size_t n;
    const struct diff_ctxinfo *ci;

    ck_assert_ptr_nonnull(t);
    while (*p) {
        struct ev e = {.ctx = 1};

        if (*p == ' ') {
            p++;
            continue;
        }
        if (p[0] >= '0' && p[0] <= '9' && p[1] == ':') {
            e.ctx = (uint32_t)(p[0] - '0');
            p += 2;
        }
        ck_assert_msg(*p == '+' || *p == '-', "bad script at %s", p);
        e.kind = *p == '+' ? EV_ENTER : EV_EXIT;
        e.addr = sd->base + (uint64_t)(p[1] - 'A') * 0x10;
        e.time = time += 10;
        p += 2;
        if (!tree[e.ctx]) {
            tree[e.ctx] = tree_new(diff_trace_sink(t, e.ctx), start_depth, NULL, NULL);
            ck_assert_ptr_nonnull(tree[e.ctx]);
        }
        ck_assert_int_eq(tree_feed(tree[e.ctx], &e), 0);
    }
    for (unsigned c = 0; c < MAX_CTX; c++) {
        if (tree[c])
            tree_finish(tree[c]);
        tree_free(tree[c]);
    }
    ci = diff_trace_ctxs(t, &n);
    *root = DIFF_NONE;
    for (size_t i = 0; i < n; i++)
        if (ci[i].id == 1)
            *root = ci[i].root;
    ck_assert_uint_eq(diff_trace_dropped(t), 0);
    return t;
}

static void runs_text(const struct diff_set *s, const struct diff_run *r, uint32_t n, char *buf,
                      size_t len)
{
    for (uint32_t i = 0; i < n; i++) {
        const struct diff_shape *h = diff_set_get(s, r[i].shape);
        size_t k = strlen(buf);

        snprintf(buf + k, len - k, "%s%s", i ? "," : "", diff_set_name(s, h->fn) + 3);
        k = strlen(buf);
        if (r[i].count > 1)
            snprintf(buf + k, len - k, "x%u", r[i].count);
    }
}

/* Which calls the last hunk's path holds (diff_result.path_nth), as "1,3". */
static char last_nth[256];

/* The divergences of r as "K:PATH:A/B;...". */
static const char *hunks(const struct diff_set *s, const struct diff_result *r)
{
    static char buf[4096];

    buf[0] = 0;
    last_nth[0] = 0;
    for (uint32_t j = 0; r->n && j < r->hunk[r->n - 1].path_len; j++) {
        size_t k = strlen(last_nth);

        snprintf(last_nth + k, sizeof last_nth - k, "%s%llu", j ? "," : "",
                 (unsigned long long)r->path_nth[r->hunk[r->n - 1].path_off + j]);
    }
    for (size_t i = 0; i < r->n; i++) {
        const struct diff_hunk *h = &r->hunk[i];
        size_t k = strlen(buf);

        snprintf(buf + k, sizeof buf - k, "%s%c:", i ? ";" : "", "IDRCEX"[h->kind]);
        for (uint32_t j = 0; j < h->path_len; j++) {
            k = strlen(buf);
            snprintf(buf + k, sizeof buf - k, "%s%s", j ? ">" : "",
                     diff_set_name(s, r->path[h->path_off + j]) + 3);
        }
        strcat(buf, ":");
        runs_text(s, r->runs + h->a_off, h->a_n, buf, sizeof buf);
        strcat(buf, "/");
        runs_text(s, r->runs + h->b_off, h->b_n, buf, sizeof buf);
    }
    return buf;
}

/* Aligns script a (trace A, functions at 0x10) with b (functions at base_b): the divergences. */
static const char *diff2(const char *a, const char *b, uint64_t base_b)
{
    struct diff_set *set = diff_set_new(0);
    struct side sa = {0x10}, sb = {base_b};
    uint32_t ra, rb;
    struct diff_trace *ta = run(set, &sa, a, 0, &ra), *tb = run(set, &sb, b, 0, &rb);
    struct diff_result r = {0};
    const char *out;

    ck_assert_int_eq(diff_align(set, ra, rb, 100, &r), 0);
    out = hunks(set, &r);
    diff_result_free(&r);
    diff_trace_free(ta);
    diff_trace_free(tb);
    diff_set_free(set);
    return out;
}

START_TEST(test_diff_identical)
{
    ck_assert_str_eq(diff2("+A +B -B +C -C -A", "+A +B -B +C -C -A", 0x10), "");
}
END_TEST

START_TEST(test_diff_insertion_deletion)
{
    ck_assert_str_eq(diff2("+A +B -B -A", "+A +B -B +C -C -A", 0x10), "I:A:/C");
    ck_assert_str_eq(diff2("+A +B -B +C -C +D -D -A", "+A +B -B +D -D -A", 0x10), "D:A:C/");
    ck_assert_str_eq(diff2("+A +B -B -A", "+A +C -C -A", 0x10), "R:A:B/C");
}
END_TEST

/* A loop one iteration longer is one call inserted, whatever follows it. */
START_TEST(test_diff_loop_extra_iteration)
{
    char a[4096] = "+A", b[4096] = "+A";

    for (int i = 0; i < 10; i++)
        strcat(a, " +B +D -D -B");
    for (int i = 0; i < 11; i++)
        strcat(b, " +B +D -D -B");
    strcat(a, " +C -C -A");
    strcat(b, " +C -C -A");
    ck_assert_str_eq(diff2(a, b, 0x10), "I:A:/B");
}
END_TEST

/* One iteration that called something else is that call replaced, not a shift. */
START_TEST(test_diff_loop_changed_iteration)
{
    const char *a = "+A +B +D -D -B +B +D -D -B +B +D -D -B +B +D -D -B -A";
    const char *b = "+A +B +D -D -B +B +D -D -B +B +E -E -B +B +D -D -B -A";

    ck_assert_str_eq(diff2(a, b, 0x10), "R:A>B:D/E");
    ck_assert_str_eq(last_nth, "1,3"); /* the third call of B */
    /* the first of two identical iterations changed: aligned with it, not shifted */
    ck_assert_str_eq(diff2("+A +B -B +B -B -A", "+A +B +C -C -B +B -B -A", 0x10), "I:A>B:/C");
    ck_assert_str_eq(diff2("+A +B +C -C -B +B -B -A", "+A +B -B +B -B -A", 0x10), "D:A>B:C/");
}
END_TEST

/* Loops longer than DIFF_EXPAND (65536) calls are compared run by run: one count hunk. */
START_TEST(test_diff_long_loop_count)
{
    struct diff_set *set = diff_set_new(0);
    uint32_t b = diff_set_fn(set, "fn_B"), a = diff_set_fn(set, "fn_A");
    uint32_t leaf = diff_set_shape(set, b, 0, NULL, 0);
    struct diff_run ra = {leaf, 70000}, rb = {leaf, 70001};
    uint32_t sa = diff_set_shape(set, a, 0, &ra, 1), sb = diff_set_shape(set, a, 0, &rb, 1);
    struct diff_result r = {0};

    ck_assert_uint_ne(sa, sb);
    ck_assert_uint_eq(diff_set_get(set, sa)->calls, 70001);
    ck_assert_int_eq(diff_align(set, sa, sb, 100, &r), 0);
    ck_assert_str_eq(hunks(set, &r), "C:A:Bx70000/Bx70001");
    diff_result_free(&r);
    diff_set_free(set);
}
END_TEST

START_TEST(test_diff_recursion)
{
    ck_assert_str_eq(diff2("+F +F +F -F -F -F", "+F +F +F +F -F -F -F -F", 0x10), "I:F>F>F:/F");
    /* fib-like: the same subtree under two parents is one shape */
    {
        struct diff_set *set = diff_set_new(0);
        struct side sa = {0x10};
        uint32_t root;
        struct diff_trace *t =
            run(set, &sa, "+F +F +F -F +F -F -F +F -F -F +G +F +F -F +F -F -F -G", 0, &root);

        /* F(F(F F) F), G(F(F F)): shapes F, F(F F), F(F(F F) F), G(...), two roots' worth */
        ck_assert_uint_le(diff_set_shapes(set), 6);
        diff_trace_free(t);
        diff_set_free(set);
    }
}
END_TEST

/* Another build: every function at another address, the same names: nothing differs. */
START_TEST(test_diff_other_addresses)
{
    ck_assert_str_eq(diff2("+A +B -B +C +D -D -C -A", "+A +B -B +C +D -D -C -A", 0x4000), "");
    ck_assert_str_eq(diff2("+A +B -B -A", "+A +C -C -A", 0x4000), "R:A:B/C");
}
END_TEST

/* Calls that did not return in one trace: the same calls, ended otherwise. */
START_TEST(test_diff_never_returned)
{
    ck_assert_str_eq(diff2("+A +B -B -A", "+A +B -B", 0x10), "E:A:/");
    ck_assert_str_eq(diff2("+A +B -B +C", "+A +B -B +C -C -A", 0x10), "E:A:/;E:A>C:/");
}
END_TEST

/* A lapped ring: the trace starts two calls deep, its first exits name calls entered before
 * it. The same lapped trace twice is the same; against the whole run, the calls from before
 * the trace differ in how they ended. */
START_TEST(test_diff_lapped)
{
    struct diff_set *set = diff_set_new(0);
    struct side sa = {0x10}, sb = {0x10};
    uint32_t ra, rb, rc;
    struct diff_trace *ta = run(set, &sa, "+C -C -B +D -D -A", 2, &ra);
    struct diff_trace *tb = run(set, &sb, "+C -C -B +D -D -A", 2, &rb);
    struct diff_trace *tc = run(set, &sb, "+A +B +C -C -B +D -D -A", 0, &rc);
    struct diff_result r = {0};
    const struct diff_run *top = diff_set_runs(set, ra);

    ck_assert_uint_eq(ra, rb);
    ck_assert_uint_eq(diff_set_get(set, ra)->nruns, 1);
    ck_assert(diff_set_get(set, top[0].shape)->flags & DIFF_F_PARTIAL);
    ck_assert_str_eq(diff_set_name(set, diff_set_get(set, top[0].shape)->fn), "fn_A");
    ck_assert_int_eq(diff_align(set, ra, rc, 100, &r), 0);
    ck_assert_str_eq(hunks(set, &r), "E:A:/;E:A>B:/");
    diff_result_free(&r);
    diff_trace_free(ta);
    diff_trace_free(tb);
    diff_trace_free(tc);
    diff_set_free(set);
}
END_TEST

/* Contexts: each its own tree; paired by name, then in order. */
START_TEST(test_diff_contexts)
{
    const char *na[] = {"main", NULL, "worker", NULL};
    const char *nb[] = {NULL, "worker", "main", NULL, NULL};
    size_t pair[4];

    diff_pair_ctx(na, 4, nb, 5, pair);
    ck_assert_uint_eq(pair[0], 2);
    ck_assert_uint_eq(pair[1], 0);
    ck_assert_uint_eq(pair[2], 1);
    ck_assert_uint_eq(pair[3], 3);
    diff_pair_ctx(nb, 2, na, 1, pair);
    ck_assert_uint_eq(pair[0], 0);
    ck_assert_uint_eq(pair[1], SIZE_MAX);
    {
        struct diff_set *set = diff_set_new(0);
        struct side sa = {0x10};
        uint32_t root;
        struct diff_trace *t = run(set, &sa, "+A 2:+B -A 2:-B 3:+C 3:-C", 0, &root);
        size_t n;
        const struct diff_ctxinfo *ci = diff_trace_ctxs(t, &n);

        ck_assert_uint_eq(n, 3);
        ck_assert_uint_eq(ci[1].id, 2);
        ck_assert_uint_ne(ci[0].root, ci[1].root);
        ck_assert_str_eq(diff_set_name(set, diff_set_get(set, diff_set_runs(set, ci[2].root)[0]
                                                                   .shape)->fn), "fn_C");
        diff_trace_free(t);
        diff_set_free(set);
    }
}
END_TEST

/* Sequences too different for Myers' bound: the greedy alignment, in bounded time. */
START_TEST(test_diff_greedy_fallback)
{
    struct diff_set *set = diff_set_new(0);
    enum { N = 6000 };
    struct diff_run *a = calloc(N, sizeof *a), *b = calloc(N, sizeof *b);
    struct diff_result r = {0};
    uint32_t sa, sb, root = diff_set_fn(set, "fn_A");

    for (int i = 0; i < N; i++) {
        char name[32];

        snprintf(name, sizeof name, "fn_%d", i);
        a[i] = (struct diff_run){diff_set_shape(set, diff_set_fn(set, name), 0, NULL, 0), 1};
        b[N - 1 - i] = a[i];
    }
    sa = diff_set_shape(set, root, 0, a, N);
    sb = diff_set_shape(set, root, 0, b, N);
    ck_assert_int_eq(diff_align(set, sa, sb, 50, &r), 0);
    ck_assert_uint_gt(r.greedy, 0);
    /* no order in common but the middle, where the window finds it: two stretches replaced */
    ck_assert_uint_eq(r.n, 2);
    ck_assert_uint_eq(r.hunk[0].kind, DIFF_REPLACED);
    ck_assert_uint_eq(r.hunk[0].calls_a + r.hunk[1].calls_a, N - 1);
    diff_result_free(&r);
    free(a);
    free(b);
    diff_set_free(set);
}
END_TEST

/* Past the cap, calls are kept without their children, counted. */
START_TEST(test_diff_cap)
{
    struct diff_set *set = diff_set_new(256);
    uint32_t f = diff_set_fn(set, "fn_F"), prev = diff_set_shape(set, f, 0, NULL, 0);

    for (int i = 0; i < 1000; i++) {
        struct diff_run r[2] = {{prev, 1}, {prev, 2}};

        prev = diff_set_shape(set, f, 0, r, 2);
        ck_assert_uint_ne(prev, DIFF_NONE);
    }
    ck_assert_uint_le(diff_set_nruns(set), 256);
    ck_assert_uint_gt(diff_set_cut(set), 0);
    ck_assert(diff_set_get(set, prev)->flags & DIFF_F_CUT);
    {
        /* a cut call against a whole one of the same function: not compared below, no hunk */
        struct diff_set *big = diff_set_new(0);
        uint32_t fb = diff_set_fn(big, "fn_F"), g = diff_set_fn(big, "fn_G");
        struct diff_run kid = {diff_set_shape(big, g, 0, NULL, 0), 3};
        uint32_t whole = diff_set_shape(big, fb, 0, &kid, 1);
        uint32_t cut = diff_set_shape(big, fb, DIFF_F_CUT, NULL, 0);
        struct diff_result r = {0};

        ck_assert_int_eq(diff_align(big, whole, cut, 10, &r), 0);
        ck_assert_uint_eq(r.n, 0);
        diff_result_free(&r);
        diff_set_free(big);
    }
    diff_set_free(set);
}
END_TEST

START_TEST(test_diff_spread)
{
    struct diff_set *set = diff_set_new(0);
    struct side sa = {0x10};
    uint32_t root;
    /* B's calls: 10 and 30 ticks long (entered and left 10 ticks apart, or 30 around C) */
    struct diff_trace *t = run(set, &sa, "+A +B -B +B +C -C -B -A", 0, &root);
    double sd = diff_trace_stddev(t, diff_set_fn(set, "fn_B"));

    ck_assert_double_eq_tol(sd, 14.1421, 0.001);
    ck_assert_double_eq(diff_trace_stddev(t, diff_set_fn(set, "fn_A")), -1);
    diff_trace_free(t);
    diff_set_free(set);
}
END_TEST

START_TEST(test_costdiff_join_and_limits)
{
    struct costdiff_in a[] = {{"f", 10, 1000, 800, 5}, {"g", 4, 400, 400, 100}, {"h", 1, 50, 50, -1}};
    struct costdiff_in b[] = {{"g", 4, 500, 500, 100}, {"f", 10, 2000, 1500, 5}, {"k", 2, 30, 30, 1}};
    struct costdiff_row *r;
    size_t n;
    struct costdiff_limit pct = {1, 10, 0}, time = {0, 150, 0}, floor = {1, 10, 2000};

    ck_assert_int_eq(costdiff_join(a, 3, b, 3, &r, &n), 0);
    ck_assert_uint_eq(n, 4);
    ck_assert_str_eq(r[0].key, "f"); /* +1000 */
    ck_assert_str_eq(r[1].key, "g"); /* +100, within 100 * sqrt(4) = 200 */
    ck_assert_str_eq(r[2].key, "h"); /* -50: gone */
    ck_assert_str_eq(r[3].key, "k"); /* +30: new */
    ck_assert_int_eq(r[0].delta, 1000);
    ck_assert_double_eq_tol(r[0].ratio, 2.0, 1e-9);
    ck_assert(!r[0].noise);
    ck_assert(r[1].noise);
    ck_assert(!r[2].in_b && r[3].in_b && !r[3].in_a);
    ck_assert(costdiff_offends(&r[0], &pct));
    ck_assert(!costdiff_offends(&r[1], &pct)); /* within the spread */
    ck_assert(!costdiff_offends(&r[2], &pct)); /* faster */
    ck_assert(costdiff_offends(&r[3], &pct));  /* new: from nothing */
    ck_assert(costdiff_offends(&r[0], &time));
    ck_assert(!costdiff_offends(&r[3], &time));
    ck_assert(!costdiff_offends(&r[0], &floor)); /* 1000 is under the floor */
    free(r);
    /* two functions of one name (static, in two files) in one run: one row, added up */
    ck_assert_int_eq(costdiff_join(b, 2, (struct costdiff_in[]){{"g", 1, 50, 50, 200}, {"g", 2, 50, 50, 1}}, 2, &r, &n), 0);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(r[1].key, "g");
    ck_assert_uint_eq(r[1].calls[1], 3);
    ck_assert_uint_eq(r[1].total[1], 100);
    ck_assert_double_eq(r[1].sd[1], 200);
    free(r);
}
END_TEST

Suite *diff_suite(void)
{
    Suite *s = suite_create("diff");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_diff_identical);
    tcase_add_test(tc, test_diff_insertion_deletion);
    tcase_add_test(tc, test_diff_loop_extra_iteration);
    tcase_add_test(tc, test_diff_loop_changed_iteration);
    tcase_add_test(tc, test_diff_long_loop_count);
    tcase_add_test(tc, test_diff_recursion);
    tcase_add_test(tc, test_diff_other_addresses);
    tcase_add_test(tc, test_diff_never_returned);
    tcase_add_test(tc, test_diff_lapped);
    tcase_add_test(tc, test_diff_contexts);
    tcase_add_test(tc, test_diff_greedy_fallback);
    tcase_add_test(tc, test_diff_cap);
    tcase_add_test(tc, test_diff_spread);
    tcase_add_test(tc, test_costdiff_join_and_limits);
    suite_add_tcase(s, tc);
    return s;
}
