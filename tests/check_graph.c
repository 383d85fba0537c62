/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_graph.c - aggregated call graphs on event sequences written by hand, run through the
 * real tree builder (one tree per context) and, for one test, the real filter; the expected
 * graphs are computed by hand, in ticks. Functions are A = 0x10, B = 0x20, ... (no symbols:
 * they print as addresses); the scripts read "+A@10" (A entered at time 10), "-A@20" (exit),
 * "2:+A@5" (in context 2, else context 1). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/filter.h"
#include "model/graph.h"
#include "output/graphout.h"
#include "suites.h"
#include "model/tree.h"

#define MAX_CTX 8
#define FN(c) ((uint64_t)((c) - 'A' + 1) << 4)

struct harness {
    struct graph *g;
    struct tree *tree[MAX_CTX];
    struct filter *filter[MAX_CTX];
    const struct filter_opts *fo;
    unsigned start_depth;
};

static struct tree *tree_of(struct harness *h, unsigned ctx)
{
    if (!h->tree[ctx]) {
        const struct tree_sink *sink = graph_sink(h->g, ctx);

        ck_assert_ptr_nonnull(sink);
        if (h->fo) {
            h->filter[ctx] = filter_new(sink, h->fo);
            ck_assert_ptr_nonnull(h->filter[ctx]);
            sink = filter_sink(h->filter[ctx]);
        }
        h->tree[ctx] = tree_new(sink, h->start_depth, NULL, NULL);
        ck_assert_ptr_nonnull(h->tree[ctx]);
    }
    return h->tree[ctx];
}

/* Runs a script into g through trees starting start_depth deep (behind filter fo, if any). */
static void run_into(struct graph *g, const char *script, unsigned start_depth,
                     const struct filter_opts *fo)
{
    struct harness h = {.g = g, .start_depth = start_depth, .fo = fo};
    const char *p = script;

    while (*p) {
        struct ev e = {.ctx = 1};
        char *end;

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
        e.addr = FN(p[1]);
        p += 2;
        ck_assert_msg(*p == '@', "bad script at %s", p);
        e.time = strtoull(p + 1, &end, 10);
        p = end;
        ck_assert_int_eq(tree_feed(tree_of(&h, e.ctx), &e), 0);
    }
    for (unsigned c = 0; c < MAX_CTX; c++) {
        if (h.tree[c])
            tree_finish(h.tree[c]);
        tree_free(h.tree[c]);
        filter_free(h.filter[c]);
    }
}

/* The graph of function letter fn (0: bottom level) of a script. */
static struct graph *run(char fn, const char *script, unsigned start_depth, unsigned depth,
                         size_t max_nodes)
{
    struct graph *g = graph_new(NULL, 0, fn ? FN(fn) : 0, depth, max_nodes);

    ck_assert_ptr_nonnull(g);
    run_into(g, script, start_depth, NULL);
    ck_assert_uint_eq(graph_dropped(g), 0);
    return g;
}

/* The graphs in the order they are shown. */
static struct graph_stat *shown(struct graph *g, size_t *n)
{
    struct graph_stat *s = graph_stats(g, n);

    graphout_sort(g, s, *n);
    return s;
}

/* What graphout_print writes for graph i as shown (in ticks). */
static char *text(struct graph *g, size_t i, unsigned flags)
{
    char *buf = NULL;
    size_t len = 0, n;
    const struct graph_stat *s = shown(g, &n);
    FILE *f = open_memstream(&buf, &len);

    ck_assert_ptr_nonnull(f);
    ck_assert_uint_lt(i, n);
    ck_assert_int_eq(graphout_print(g, &s[i], f, 0, flags), 0);
    fclose(f);
    return buf;
}

/* A callee line: "TOTAL SELF : TREE", ticks in the columns. */
static void callee(char *out, size_t len, unsigned total, unsigned self, const char *tree)
{
    char t[32], s[32];
    size_t n = strlen(out);

    snprintf(t, sizeof t, "%u ticks", total);
    snprintf(s, sizeof s, "%u ticks", self);
    snprintf(out + n, len - n, "%12s %12s : %s\n", t, s, tree);
}

static void bar(char *out, size_t len, const char *tree)
{
    size_t n = strlen(out);

    snprintf(out + n, len - n, "%12s %12s : %s\n", "", "", tree);
}

static void caller(char *out, size_t len, unsigned calls, unsigned total, const char *name)
{
    char t[32];
    size_t n = strlen(out);

    snprintf(t, sizeof t, "%u ticks", total);
    snprintf(out + n, len - n, "%10u %12s   %s\n", calls, t, name);
}

#define CALLEES_HEAD "========== CALL GRAPH ==========\n#      TOTAL         SELF   FUNCTION\n"
#define CALLERS_HEAD "========== CALLERS ==========\n#    CALLS        TOTAL   FUNCTION\n"
#define BOTTOM "(none: the bottom of the stack)"

static void text_eq(struct graph *g, size_t i, unsigned flags, const char *want)
{
    char *got = text(g, i, flags);

    ck_assert_msg(!strcmp(got, want), "got:\n%s\nwant:\n%s", got, want);
    free(got);
}

#define STAT_EQ(g, i, fn, c, p, b, tot, slf)                                                       \
    do {                                                                                           \
        size_t n_;                                                                                 \
        const struct graph_stat *s_ = shown(g, &n_);                                                \
        ck_assert_msg(s_ && (i) < n_, "no graph %u", (unsigned)(i));                              \
        ck_assert_msg(s_[i].addr == FN(fn) && s_[i].calls == (c) && s_[i].partial == (p) &&       \
                          s_[i].blind == (b) && s_[i].total == (tot) && s_[i].self == (slf),       \
                      "graph %u: addr 0x%llx calls %llu partial %llu blind %llu total %llu "      \
                      "self %llu", (unsigned)(i), (unsigned long long)s_[i].addr,                 \
                      (unsigned long long)s_[i].calls, (unsigned long long)s_[i].partial,         \
                      (unsigned long long)s_[i].blind, (unsigned long long)s_[i].total,           \
                      (unsigned long long)s_[i].self);                                             \
    } while (0)

/* Calls of the same function on the same path merge; children by total, largest first; a
 * node with several children marks them "+-", one with a single child does not indent it. */
START_TEST(test_graph_merges_paths)
{
    struct graph *g = run('A',
                          "+A@0 +B@10 +C@15 -C@20 -B@30 +B@40 +C@42 -C@50 -B@60 "
                          "+C@70 -C@75 -A@100",
                          0, 0, 0);
    char want[2048] = CALLEES_HEAD;

    STAT_EQ(g, 0, 'A', 1, 0, 0, 100, 55);
    callee(want, sizeof want, 100, 55, "(1) 0x10");
    callee(want, sizeof want, 40, 27, " +-(2) 0x20");
    callee(want, sizeof want, 13, 13, " | (2) 0x30");
    bar(want, sizeof want, " |");
    callee(want, sizeof want, 5, 5, " +-(1) 0x30");
    text_eq(g, 0, GRAPHOUT_CALLEES, want);
    ck_assert_uint_eq(graph_nodes(g), 4);
    graph_free(g);
}
END_TEST

/* Deeper levels: "|" carries down under a child that is not the last, spaces under the last. */
START_TEST(test_graph_indentation)
{
    struct graph *g = run('A',
                          "+A@0 +B@1 +C@2 -C@10 +D@10 -D@12 -B@20 "
                          "+E@20 +C@21 -C@23 +D@23 -D@30 -E@35 -A@40",
                          0, 0, 0);
    char want[2048] = CALLEES_HEAD;

    callee(want, sizeof want, 40, 6, "(1) 0x10");
    callee(want, sizeof want, 19, 9, " +-(1) 0x20");
    callee(want, sizeof want, 8, 8, " |  +-(1) 0x30");
    bar(want, sizeof want, " |  |");
    callee(want, sizeof want, 2, 2, " |  +-(1) 0x40");
    bar(want, sizeof want, " |");
    callee(want, sizeof want, 15, 6, " +-(1) 0x50");
    callee(want, sizeof want, 7, 7, "    +-(1) 0x40");
    bar(want, sizeof want, "    |");
    callee(want, sizeof want, 2, 2, "    +-(1) 0x30");
    text_eq(g, 0, GRAPHOUT_CALLEES, want);
    graph_free(g);
}
END_TEST

/* A recursive function: every call counts, its time once (the outermost call's); the nested
 * calls are nodes of its tree; its callers include itself. */
START_TEST(test_graph_recursion)
{
    struct graph *g = run('A', "+A@0 +A@10 +A@20 -A@30 -A@60 -A@100", 0, 0, 0);
    char want[2048] = CALLERS_HEAD;

    STAT_EQ(g, 0, 'A', 3, 0, 0, 100, 100);
    caller(want, sizeof want, 1, 100, BOTTOM);
    caller(want, sizeof want, 2, 60, "0x10");
    strcat(want, "\n" CALLEES_HEAD);
    callee(want, sizeof want, 100, 50, "(1) 0x10");
    callee(want, sizeof want, 50, 40, "(1) 0x10");
    callee(want, sizeof want, 10, 10, "(1) 0x10");
    text_eq(g, 0, GRAPHOUT_CALLERS | GRAPHOUT_CALLEES, want);
    graph_free(g);
}
END_TEST

/* D reached through B and through C: two nodes under A; in D's own graph, one node and two
 * callers. Callers aggregate: B calls D twice. */
START_TEST(test_graph_two_paths_and_callers)
{
    const char *script = "+A@0 +B@0 +D@1 -D@3 +D@4 -D@8 -B@10 +C@10 +D@11 -D@20 -C@21 -A@30";
    struct graph *g = run('A', script, 0, 0, 0);
    char want[2048] = CALLEES_HEAD;

    callee(want, sizeof want, 30, 9, "(1) 0x10");
    callee(want, sizeof want, 11, 2, " +-(1) 0x30");
    callee(want, sizeof want, 9, 9, " | (1) 0x40");
    bar(want, sizeof want, " |");
    callee(want, sizeof want, 10, 4, " +-(1) 0x20");
    callee(want, sizeof want, 6, 6, "   (2) 0x40");
    text_eq(g, 0, GRAPHOUT_CALLEES, want);
    graph_free(g);

    g = run('D', script, 0, 0, 0);
    STAT_EQ(g, 0, 'D', 3, 0, 0, 15, 15);
    strcpy(want, CALLERS_HEAD);
    caller(want, sizeof want, 1, 9, "0x30");
    caller(want, sizeof want, 2, 6, "0x20");
    strcat(want, "\n" CALLEES_HEAD);
    callee(want, sizeof want, 15, 15, "(3) 0x40");
    text_eq(g, 0, GRAPHOUT_CALLERS | GRAPHOUT_CALLEES, want);
    graph_free(g);
}
END_TEST

/* Calls open at the end count up to the last event inside them, as partial. */
START_TEST(test_graph_open_at_end)
{
    struct graph *g = run('A', "+A@0 +B@10 -B@20 +C@30", 0, 0, 0);
    char want[2048] = CALLEES_HEAD;

    STAT_EQ(g, 0, 'A', 1, 1, 0, 30, 20);
    callee(want, sizeof want, 30, 20, "(1) 0x10");
    callee(want, sizeof want, 10, 10, " +-(1) 0x20");
    bar(want, sizeof want, " |");
    callee(want, sizeof want, 0, 0, " +-(1) 0x30");
    text_eq(g, 0, GRAPHOUT_CALLEES, want);
    graph_free(g);
}
END_TEST

/* A call entered before the trace: counted from the trace's first event, partial and blind
 * (what it called before its exit named it is in no node); its caller is the bottom. */
START_TEST(test_graph_before_trace)
{
    struct graph *g = run('A', "+B@10 -B@20 -A@50", 1, 0, 0);
    char want[2048] = CALLERS_HEAD;

    STAT_EQ(g, 0, 'A', 1, 1, 1, 40, 30);
    caller(want, sizeof want, 1, 40, BOTTOM);
    strcat(want, "\n" CALLEES_HEAD);
    callee(want, sizeof want, 40, 30, "(1) 0x10");
    text_eq(g, 0, GRAPHOUT_CALLERS | GRAPHOUT_CALLEES, want);
    graph_free(g);

    /* its caller, entered before the trace too, is known once it exits */
    g = run('B', "+B@10 -B@20 -A@50", 1, 0, 0);
    strcpy(want, CALLERS_HEAD);
    caller(want, sizeof want, 1, 10, "0x10");
    text_eq(g, 0, GRAPHOUT_CALLERS, want);
    graph_free(g);
}
END_TEST

/* Without a function: a graph per bottom-level function, the largest first; the contexts'
 * paths merge into one graph object fed by several trees. */
START_TEST(test_graph_bottom_level_and_contexts)
{
    struct graph *g = run(0,
                          "1:+A@0 1:+B@1 1:-B@5 1:-A@10 2:+C@0 2:+B@2 2:-B@3 2:-C@50 "
                          "1:+A@60 1:+B@61 1:-B@62 1:-A@70",
                          0, 0, 0);
    char want[2048] = CALLEES_HEAD;
    size_t n;

    graph_stats(g, &n);
    ck_assert_uint_eq(n, 2);
    STAT_EQ(g, 0, 'C', 1, 0, 0, 50, 49);
    STAT_EQ(g, 1, 'A', 2, 0, 0, 20, 15);
    callee(want, sizeof want, 20, 15, "(2) 0x10");
    callee(want, sizeof want, 5, 5, "(2) 0x20");
    text_eq(g, 1, GRAPHOUT_CALLERS | GRAPHOUT_CALLEES, want); /* no callers at the bottom */
    graph_free(g);
}
END_TEST

/* --depth: the tree stops N levels below the function; self times stay exact. */
START_TEST(test_graph_depth_limit)
{
    struct graph *g = run('A', "+A@0 +B@1 +C@2 +D@3 -D@4 -C@5 -B@6 -A@10", 0, 1, 0);
    char want[2048] = CALLEES_HEAD;

    callee(want, sizeof want, 10, 5, "(1) 0x10");
    callee(want, sizeof want, 5, 2, "(1) 0x20");
    text_eq(g, 0, GRAPHOUT_CALLEES, want);
    ck_assert_uint_eq(graph_left_out(g), 0);
    graph_free(g);
}
END_TEST

/* The node cap: calls on new paths beyond it are counted as left out, not shown. */
START_TEST(test_graph_node_cap)
{
    struct graph *g = run('A', "+A@0 +B@1 +C@2 -C@3 -B@4 +D@5 +B@6 -B@7 -D@8 +B@9 -B@10 -A@20", 0,
                          0, 2);
    char want[2048] = CALLEES_HEAD;

    ck_assert_uint_eq(graph_nodes(g), 2);
    ck_assert_uint_eq(graph_left_out(g), 3); /* C under B, D, B under D */
    callee(want, sizeof want, 20, 13, "(1) 0x10");
    callee(want, sizeof want, 4, 3, "(2) 0x20");
    text_eq(g, 0, GRAPHOUT_CALLEES, want);
    graph_free(g);
}
END_TEST

/* Behind the filter: --hide=C leaves C and its callees out of the graph (and of A's self
 * time's children: what a hidden call took is A's own, as in report). */
START_TEST(test_graph_filter_hide)
{
    struct filter_opts fo = {.have_hide = 1, .hide = FN('C')};
    struct graph *g = graph_new(NULL, 0, FN('A'), 0, 0);
    char want[2048] = CALLEES_HEAD;

    ck_assert_ptr_nonnull(g);
    run_into(g, "+A@0 +B@1 -B@3 +C@4 +D@5 -D@6 -C@9 -A@10", 0, &fo);
    STAT_EQ(g, 0, 'A', 1, 0, 0, 10, 8);
    callee(want, sizeof want, 10, 8, "(1) 0x10");
    callee(want, sizeof want, 2, 2, "(1) 0x20");
    text_eq(g, 0, GRAPHOUT_CALLEES, want);
    graph_free(g);
}
END_TEST

/* A function never called: no graph. */
START_TEST(test_graph_not_called)
{
    struct graph *g = run('E', "+A@0 +B@1 -B@3 -A@10", 0, 0, 0);
    size_t n = 7;

    ck_assert_ptr_null(graph_stats(g, &n));
    ck_assert_uint_eq(n, 0);
    graph_free(g);
}
END_TEST

Suite *graph_suite(void)
{
    Suite *s = suite_create("graph");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_graph_merges_paths);
    tcase_add_test(tc, test_graph_indentation);
    tcase_add_test(tc, test_graph_recursion);
    tcase_add_test(tc, test_graph_two_paths_and_callers);
    tcase_add_test(tc, test_graph_open_at_end);
    tcase_add_test(tc, test_graph_before_trace);
    tcase_add_test(tc, test_graph_bottom_level_and_contexts);
    tcase_add_test(tc, test_graph_depth_limit);
    tcase_add_test(tc, test_graph_node_cap);
    tcase_add_test(tc, test_graph_filter_hide);
    tcase_add_test(tc, test_graph_not_called);
    suite_add_tcase(s, tc);
    return s;
}
