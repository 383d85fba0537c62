/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_fnstat.c - per-function statistics on event sequences written by hand, run through the
 * real tree builder (one tree per context), and on random traces checked against a brute-force
 * count. Functions are A = 0x10, B = 0x20, ...; the scripts read "+A@10" (A entered at time
 * 10), "-A@20" (exit), "2:+A@5" (in context 2, else context 1), "L@30" (a loss, given to every
 * context's tree, as the live view does). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "model/fnstat.h"
#include "suites.h"
#include "symbols/sym.h"
#include "model/tree.h"

#define MAX_CTX 8

struct harness {
    struct fnstat *s;
    struct tree *tree[MAX_CTX];
    unsigned start_depth;
};

static struct tree *tree_of(struct harness *h, unsigned ctx)
{
    if (!h->tree[ctx]) {
        const struct tree_sink *sink = fnstat_sink(h->s, ctx);

        ck_assert_ptr_nonnull(sink);
        h->tree[ctx] = tree_new(sink, h->start_depth, NULL, NULL);
        ck_assert_ptr_nonnull(h->tree[ctx]);
    }
    return h->tree[ctx];
}

static void feed(struct harness *h, const struct ev *e)
{
    if (e->kind == EV_LOST) {
        for (unsigned c = 0; c < MAX_CTX; c++)
            if (h->tree[c])
                ck_assert_int_eq(tree_feed(h->tree[c], e), 0);
        return;
    }
    ck_assert_int_eq(tree_feed(tree_of(h, e->ctx), e), 0);
}

static void finish(struct harness *h)
{
    for (unsigned c = 0; c < MAX_CTX; c++) {
        if (h->tree[c])
            tree_finish(h->tree[c]);
        tree_free(h->tree[c]);
        h->tree[c] = NULL;
    }
}

/* Runs a script through a fresh table, trees starting start_depth deep; the table is kept. */
static struct fnstat *run(const char *script, unsigned start_depth)
{
    struct harness h = {.s = fnstat_new(NULL, 0), .start_depth = start_depth};
    const char *p = script;

    ck_assert_ptr_nonnull(h.s);
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
        if (*p == 'L') {
            e.kind = EV_LOST;
            e.addr = 1;
            e.data = EV_LOST_LINK;
            p++;
        } else {
            ck_assert_msg(*p == '+' || *p == '-', "bad script at %s", p);
            e.kind = *p == '+' ? EV_ENTER : EV_EXIT;
            e.addr = (uint64_t)(p[1] - 'A' + 1) << 4;
            p += 2;
        }
        ck_assert_msg(*p == '@', "bad script at %s", p);
        e.time = strtoull(p + 1, &end, 10);
        p = end;
        feed(&h, &e);
    }
    finish(&h);
    return h.s;
}

/* The row of function letter fn (it must be there). */
static const struct fnstat_row *row(struct fnstat *s, char fn)
{
    size_t n;
    const struct fnstat_row *r = fnstat_rows(s, FNSTAT_BY_NAME, &n);

    for (size_t i = 0; i < n; i++)
        if (r[i].addr == (uint64_t)(fn - 'A' + 1) << 4)
            return &r[i];
    ck_abort_msg("no row for %c", fn);
    return NULL;
}

#define ROW_EQ(s, fn, c, p, tot, slf, mx)                                                          \
    do {                                                                                           \
        const struct fnstat_row *r_ = row(s, fn);                                                  \
        ck_assert_msg(r_->calls == (c) && r_->partial == (p) && r_->total == (tot) &&             \
                          r_->self == (slf) && r_->max == (mx),                                    \
                      "%c: calls %llu partial %llu total %llu self %llu max %llu", fn,            \
                      (unsigned long long)r_->calls, (unsigned long long)r_->partial,             \
                      (unsigned long long)r_->total, (unsigned long long)r_->self,                \
                      (unsigned long long)r_->max);                                                \
    } while (0)

START_TEST(test_fnstat_nesting)
{
    struct fnstat *s = run("+A@0 +B@10 +C@15 -C@20 -B@30 +C@40 -C@50 -A@100", 0);

    ck_assert_uint_eq(fnstat_count(s), 3);
    ROW_EQ(s, 'A', 1, 0, 100, 70, 100);
    ROW_EQ(s, 'B', 1, 0, 20, 15, 20);
    ROW_EQ(s, 'C', 2, 0, 15, 15, 10);
    ck_assert_uint_eq(fnstat_dropped(s), 0);
    fnstat_free(s);
}
END_TEST

/* A recursive function's inclusive time is its outermost call's; every call still counts, and
 * the self times add up to the outermost duration. */
START_TEST(test_fnstat_recursion_counted_once)
{
    struct fnstat *s = run("+A@0 +A@10 +A@20 -A@30 -A@60 -A@100", 0);

    ROW_EQ(s, 'A', 3, 0, 100, 100, 100);
    fnstat_free(s);
    /* two separate recursions in a row: each adds its own outermost time */
    s = run("+A@0 +A@10 -A@20 -A@30 +A@40 +A@45 -A@50 -A@60", 0);
    ROW_EQ(s, 'A', 4, 0, 50, 50, 30);
    fnstat_free(s);
}
END_TEST

/* Recursion through another function: f calls g calls f. */
START_TEST(test_fnstat_mutual_recursion)
{
    struct fnstat *s = run("+F@0 +G@10 +F@20 +G@22 -G@24 -F@30 -G@90 -F@100", 0);

    ROW_EQ(s, 'F', 2, 0, 100, 20 + 8, 100);
    ROW_EQ(s, 'G', 2, 0, 80, 70 + 2, 80);
    fnstat_free(s);
}
END_TEST

/* B never returns (longjmp): A's exit proves it gone. B's known time ends with the last event
 * inside it (C's exit), not with A's exit. */
START_TEST(test_fnstat_abandoned_frame)
{
    struct fnstat *s = run("+A@0 +B@10 +C@20 -C@30 -A@100", 0);

    ROW_EQ(s, 'A', 1, 0, 100, 80, 100);
    ROW_EQ(s, 'B', 1, 1, 20, 10, 20);
    ROW_EQ(s, 'C', 1, 0, 10, 10, 10);
    fnstat_free(s);
    /* abandoned without children: only its entry is known */
    s = run("+A@0 +B@10 -A@100", 0);
    ROW_EQ(s, 'B', 1, 1, 0, 0, 0);
    ROW_EQ(s, 'A', 1, 0, 100, 100, 100);
    fnstat_free(s);
}
END_TEST

/* The trace starts inside D inside C (the writer lapped their entries): their exits name them;
 * each is known from the trace's first event on. */
START_TEST(test_fnstat_before_trace)
{
    struct fnstat *s = run("+E@10 -E@20 -D@40 +F@50 -F@55 -C@70", 2);

    ROW_EQ(s, 'E', 1, 0, 10, 10, 10);
    ROW_EQ(s, 'D', 1, 1, 30, 20, 30);
    ROW_EQ(s, 'C', 1, 1, 60, 60 - 30 - 5, 60);
    fnstat_free(s);
}
END_TEST

/* A trace that starts inside a recursion of D: the calls of D seen whole are inside the outer
 * ones, which must not add them again. */
START_TEST(test_fnstat_before_trace_recursion)
{
    struct fnstat *s = run("+D@10 -D@20 -D@30 -D@50", 2);

    ROW_EQ(s, 'D', 3, 2, 40, 10 + 10 + 20, 40);
    fnstat_free(s);
}
END_TEST

/* Frames still open when the tree finishes (a crash): counted, with their time up to the last
 * event inside them. */
START_TEST(test_fnstat_open_at_end)
{
    struct fnstat *s = run("+A@0 +B@10 -B@20 +C@30", 0);

    ROW_EQ(s, 'A', 1, 1, 30, 20, 30);
    ROW_EQ(s, 'B', 1, 0, 10, 10, 10);
    ROW_EQ(s, 'C', 1, 1, 0, 0, 0);
    fnstat_free(s);
}
END_TEST

/* Each context has its own stack: calls of the same function in two threads at the same time
 * all add up, and one thread's call of A is not taken as recursion inside the other's. */
START_TEST(test_fnstat_contexts)
{
    struct fnstat *s = run("1:+A@0 2:+A@10 2:+B@12 1:+B@20 2:-B@14 2:-A@30 1:-B@25 1:-A@100", 0);

    ROW_EQ(s, 'A', 2, 0, 100 + 20, 95 + 18, 100);
    ROW_EQ(s, 'B', 2, 0, 7, 7, 5);
    fnstat_free(s);
}
END_TEST

/* A loss in the middle: the exits that come name the frames open before it; a call made in
 * the loss (D) is known from the first event after the loss, and B, whose exit was lost, is
 * not counted. */
START_TEST(test_fnstat_loss)
{
    struct fnstat *s = run("+A@0 +B@10 L@15 -B@30 -A@50", 0);

    ROW_EQ(s, 'A', 1, 0, 50, 30, 50);
    ROW_EQ(s, 'B', 1, 0, 20, 20, 20);
    fnstat_free(s);
    s = run("+A@0 +B@10 +X@11 -X@12 L@15 +C@20 -C@25 -D@30 -A@50", 0);
    ROW_EQ(s, 'D', 1, 1, 10, 10, 10); /* shown on top of B: C, before it, was no callee */
    ROW_EQ(s, 'A', 1, 0, 50, 50, 50); /* B's time, its end unknown, stays in A's own */
    ROW_EQ(s, 'B', 0, 0, 0, 0, 0);
    fnstat_free(s);
}
END_TEST

/* Without timestamps every time is 0 and the calls are still counted. */
START_TEST(test_fnstat_no_time)
{
    struct fnstat *s = run("+A@0 +B@0 -B@0 +B@0 -B@0 -A@0", 0);

    ROW_EQ(s, 'A', 1, 0, 0, 0, 0);
    ROW_EQ(s, 'B', 2, 0, 0, 0, 0);
    fnstat_free(s);
}
END_TEST

START_TEST(test_fnstat_sort_keys)
{
    /* A: 1 call of 100 (self 10); B: 3 calls, 60 in all (self 60, max 40); C: 2 calls, 30 */
    struct fnstat *s = run("+A@0 +B@0 -B@40 +B@40 -B@50 +C@50 -C@70 +B@70 -B@80 +C@80 -C@90 "
                           "-A@100",
                           0);
    static const struct {
        enum fnstat_key key;
        const char *order;
    } want[] = {{FNSTAT_BY_CALLS, "BCA"}, {FNSTAT_BY_TOTAL, "ABC"}, {FNSTAT_BY_SELF, "BCA"},
                {FNSTAT_BY_MAX, "ABC"}, {FNSTAT_BY_NAME, "ABC"}};

    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        size_t n;
        const struct fnstat_row *r = fnstat_rows(s, want[k].key, &n);
        char got[8] = "";

        ck_assert_uint_eq(n, 3);
        for (size_t i = 0; i < n; i++)
            got[i] = (char)('A' + (r[i].addr >> 4) - 1);
        ck_assert_msg(!strcmp(got, want[k].order), "by %s: %s, expected %s",
                      fnstat_key_name(want[k].key), got, want[k].order);
    }
    /* a copy sorted again (a table frozen on screen) sorts the same */
    {
        struct fnstat_row copy[3];
        size_t n;

        memcpy(copy, fnstat_rows(s, FNSTAT_BY_CALLS, &n), sizeof copy);
        fnstat_sort(copy, 3, FNSTAT_BY_MAX);
        ck_assert_uint_eq(copy[0].addr, 0x10);
        ck_assert_uint_eq(copy[1].addr, 0x20);
        ck_assert_uint_eq(copy[2].addr, 0x30);
    }
    fnstat_free(s);
}
END_TEST

/* Names come from the symbol table: the test runner's own functions, sorted A to Z, and an
 * address no symbol starts at after them. */
START_TEST(test_fnstat_names_from_symbols)
{
    char err[256];
    struct sym_table *sym = sym_open("/proc/self/exe", err, sizeof err);
    static const char *const names[] = {"fnstat_rows", "fnstat_free", "fnstat_new"};
    uint64_t addr[3], size;
    struct fnstat *s;
    struct tree *t;
    const struct fnstat_row *r;
    size_t n;

    ck_assert_msg(sym != NULL, "%s", err);
    s = fnstat_new(sym, 0x1000);
    t = tree_new(fnstat_sink(s, 0), 0, NULL, NULL);
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(sym_find(sym, names[i], &addr[i], &size), 0);
        ck_assert_int_eq(tree_feed(t, &(struct ev){.kind = EV_ENTER, .addr = addr[i] + 0x1000}),
                         0);
        ck_assert_int_eq(tree_feed(t, &(struct ev){.kind = EV_EXIT, .addr = addr[i] + 0x1000}),
                         0);
    }
    ck_assert_int_eq(tree_feed(t, &(struct ev){.kind = EV_ENTER, .addr = addr[0] + 0x1001}), 0);
    tree_finish(t);
    r = fnstat_rows(s, FNSTAT_BY_NAME, &n);
    ck_assert_uint_eq(n, 4);
    ck_assert_str_eq(r[0].name, "fnstat_free");
    ck_assert_str_eq(r[1].name, "fnstat_new");
    ck_assert_str_eq(r[2].name, "fnstat_rows");
    ck_assert_ptr_null(r[3].name);
    ck_assert_uint_eq(r[3].addr, addr[0] + 0x1001);
    tree_free(t);
    fnstat_free(s);
    sym_close(sym);
}
END_TEST

/* Random well-nested traces in three interleaved contexts, against a brute-force count: a
 * function's total is the length of the union of its calls' intervals per context, found by
 * walking each call's ancestors; self is each call's time minus its children's. */
struct call {
    unsigned fn, ctx;
    int parent; /* index, -1 at the bottom */
    uint64_t start, end, kids;
};

#define RND_CALLS 3000
#define RND_FNS 5

static unsigned rnd_next(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return (*seed >> 16) & 0x7fff;
}

START_TEST(test_fnstat_random_against_brute_force)
{
    static struct call calls[RND_CALLS];
    static struct ev evs[2 * RND_CALLS];
    static struct ev merged[2 * RND_CALLS];
    unsigned seed = 12345u + (unsigned)_i;
    unsigned ncalls = 0, nev = 0;
    uint64_t want_total[RND_FNS] = {0}, want_self[RND_FNS] = {0}, want_max[RND_FNS] = {0};
    uint64_t want_calls[RND_FNS] = {0};

    /* Each context: a random walk that enters (below depth 8) or exits, its own clock. */
    for (unsigned ctx = 1; ctx <= 3; ctx++) {
        int stack[16], depth = 0;
        uint64_t now = 0;

        while (ncalls < RND_CALLS * ctx / 3 || depth) {
            now += 1 + rnd_next(&seed) % 50;
            if (depth < 8 && ncalls < RND_CALLS * ctx / 3 && (depth == 0 || rnd_next(&seed) % 2)) {
                struct call *c = &calls[ncalls];

                *c = (struct call){rnd_next(&seed) % RND_FNS, ctx, depth ? stack[depth - 1] : -1,
                                   now, 0, 0};
                stack[depth++] = (int)ncalls++;
                evs[nev++] = (struct ev){.kind = EV_ENTER, .ctx = ctx, .time = now,
                                         .addr = (c->fn + 1) << 4};
            } else {
                struct call *c = &calls[stack[--depth]];

                c->end = now;
                if (c->parent >= 0)
                    calls[c->parent].kids += c->end - c->start;
                evs[nev++] = (struct ev){.kind = EV_EXIT, .ctx = ctx, .time = now,
                                         .addr = (c->fn + 1) << 4};
            }
        }
    }
    for (unsigned i = 0; i < ncalls; i++) {
        const struct call *c = &calls[i];
        uint64_t dur = c->end - c->start;
        int outer = 1;

        for (int p = c->parent; p >= 0; p = calls[p].parent)
            outer &= calls[p].fn != c->fn;
        want_calls[c->fn]++;
        want_total[c->fn] += outer ? dur : 0;
        want_self[c->fn] += dur - c->kids;
        if (dur > want_max[c->fn])
            want_max[c->fn] = dur;
    }
    /* Interleave the contexts' events at random, each context's in its order. */
    {
        unsigned pos[4] = {0}, end[4] = {0}, m = 0;

        for (unsigned i = 0; i < nev; i++)
            end[evs[i].ctx] = i + 1;
        pos[1] = 0;
        pos[2] = end[1];
        pos[3] = end[2];
        while (m < nev) {
            unsigned c = 1 + rnd_next(&seed) % 3;

            if (pos[c] < end[c])
                merged[m++] = evs[pos[c]++];
        }
    }
    {
        struct harness h = {.s = fnstat_new(NULL, 0)};

        for (unsigned i = 0; i < nev; i++)
            feed(&h, &merged[i]);
        finish(&h);
        for (unsigned f = 0; f < RND_FNS; f++) {
            const struct fnstat_row *r = row(h.s, (char)('A' + f));

            ck_assert_uint_eq(r->calls, want_calls[f]);
            ck_assert_uint_eq(r->partial, 0);
            ck_assert_uint_eq(r->total, want_total[f]);
            ck_assert_uint_eq(r->self, want_self[f]);
            ck_assert_uint_eq(r->max, want_max[f]);
        }
        fnstat_free(h.s);
    }
}
END_TEST

/* A sink asked for again is the same one; each context's is its own. */
START_TEST(test_fnstat_sink_per_context)
{
    struct fnstat *s = fnstat_new(NULL, 0);
    const struct tree_sink *a = fnstat_sink(s, 1), *b = fnstat_sink(s, 2);

    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    ck_assert_ptr_ne(a, b);
    ck_assert_ptr_eq(fnstat_sink(s, 1), a);
    ck_assert_ptr_eq(fnstat_sink(s, 2), b);
    ck_assert_ptr_null(fnstat_rows(s, FNSTAT_BY_TOTAL, &(size_t){1}));
    fnstat_free(s);
    fnstat_free(NULL);
}
END_TEST

Suite *fnstat_suite(void)
{
    Suite *s = suite_create("fnstat");
    TCase *tc = tcase_create("fnstat");

    tcase_add_test(tc, test_fnstat_nesting);
    tcase_add_test(tc, test_fnstat_recursion_counted_once);
    tcase_add_test(tc, test_fnstat_mutual_recursion);
    tcase_add_test(tc, test_fnstat_abandoned_frame);
    tcase_add_test(tc, test_fnstat_before_trace);
    tcase_add_test(tc, test_fnstat_before_trace_recursion);
    tcase_add_test(tc, test_fnstat_open_at_end);
    tcase_add_test(tc, test_fnstat_contexts);
    tcase_add_test(tc, test_fnstat_loss);
    tcase_add_test(tc, test_fnstat_no_time);
    tcase_add_test(tc, test_fnstat_sort_keys);
    tcase_add_test(tc, test_fnstat_names_from_symbols);
    tcase_add_loop_test(tc, test_fnstat_random_against_brute_force, 0, 5);
    tcase_add_test(tc, test_fnstat_sink_per_context);
    suite_add_tcase(s, tc);
    return s;
}
