/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_tree.c - the tree builder's repairs, on event sequences written by hand. Functions are
 * addresses 0xA, 0xB, ...; the recording sink turns calls into a compact log to compare. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "suites.h"
#include "model/tree.h"

struct log {
    char text[2048];
};

static void add(struct log *l, const char *fmt, unsigned long long a, unsigned b)
{
    size_t n = strlen(l->text);

    snprintf(l->text + n, sizeof l->text - n, fmt, a, b);
}

static void rec_enter(void *arg, const struct tree_frame *f, unsigned depth)
{
    add(arg, "+%llX@%u ", f->addr, depth);
}

static void rec_exit(void *arg, const struct tree_frame *f, unsigned depth, uint64_t t,
                     enum tree_exit_how how)
{
    /* returned, abandoned, before the trace, jumped over, open at a hole; "?": entered while
     * events were lost */
    static const char *const mark[] = {"-", "~", "<", "^", "h"};
    char fmt[16];

    (void)t;
    snprintf(fmt, sizeof fmt, "%s%%llX@%%u ", f->entry_lost ? "?" : mark[how]);
    add(arg, fmt, f->addr, depth);
}

static void rec_special(void *arg, const struct ev *e, unsigned depth)
{
    add(arg, "*%llu@%u ", e->kind, depth);
}

static void rec_finish(void *arg, const struct tree_frame *stack, unsigned n)
{
    add(arg, "| open %llu:", n, 0);
    for (unsigned i = 0; i < n; i++)
        add(arg, " %llX", stack[i].addr, 0);
}

/* Functions 0xA..0xF are 16 bytes long at 0xA0, 0xB0, ...: call sites 0xA5 etc. lie inside. */
static uint64_t fake_func_of(void *arg, uint64_t addr)
{
    (void)arg;
    return (addr >= 0xA0 && addr < 0x100) ? addr >> 4 : 0;
}

/* Runs a script of events ("+A" enter, "-A" exit, "+B/A" enter B called from inside A at
 * 0xA5, "+B/A7" at 0xA7, "m" a mark, "t" a trigger that fired, "L" events lost, "H" a hole, "s1" a
 * setjmp of buffer 1, "j1" a longjmp to it) through a tree that starts `start` deep;
 * returns the log. */
static const char *run(const char *script, unsigned start, int with_sites)
{
    static struct log l;
    struct tree_sink sink = {&l, rec_enter, rec_exit, rec_special, rec_finish, NULL};
    struct tree *t;
    uint64_t time = 0;

    memset(&l, 0, sizeof l);
    t = tree_new(&sink, start, with_sites ? fake_func_of : NULL, NULL);
    ck_assert_ptr_nonnull(t);
    for (const char *p = script; *p; p++) {
        struct ev e = {.time = ++time};

        if (*p == ' ')
            continue;
        if (*p == 'm') {
            e.kind = EV_MARK;
        } else if (*p == 't') {
            e.kind = EV_TRIGGER;
        } else if (*p == 's' || *p == 'j') {
            e.kind = *p == 's' ? EV_SETJMP : EV_LONGJMP;
            e.addr = 0x7ff0 + (uint64_t)(*++p - '0');
        } else if (*p == 'H') {
            e.kind = EV_HOLE;
        } else if (*p == 'L') {
            e.kind = EV_LOST;
            e.addr = 3;
        } else {
            e.kind = *p == '+' ? EV_ENTER : EV_EXIT;
            p++;
            e.addr = (uint64_t)(*p - 'A' + 10);
            if (p[1] == '/') {
                e.site = (uint64_t)(p[2] - 'A' + 10) << 4 | 5;
                p += 2;
                if (p[1] >= '0' && p[1] <= '9')
                    e.site = (e.site & ~(uint64_t)0xF) | (uint64_t)(*++p - '0');
            }
        }
        ck_assert_int_eq(tree_feed(t, &e), 0);
    }
    tree_finish(t);
    tree_free(t);
    return l.text;
}

START_TEST(test_tree_nesting)
{
    ck_assert_str_eq(run("+A +B -B +C +D -D -C -A", 0, 0),
                     "+A@0 +B@1 -B@1 +C@1 +D@2 -D@2 -C@1 -A@0 | open 0:");
}
END_TEST

START_TEST(test_tree_recursion)
{
    ck_assert_str_eq(run("+A +A +A -A -A -A", 0, 0),
                     "+A@0 +A@1 +A@2 -A@2 -A@1 -A@0 | open 0:");
}
END_TEST

/* A wrapped trace: it starts two calls deep, inside D inside C. The exits name them. */
START_TEST(test_tree_wrapped_start)
{
    ck_assert_str_eq(run("+E -E -D +F -F -C", 2, 0),
                     "+E@2 -E@2 <D@1 +F@1 -F@1 <C@0 | open 0:");
}
END_TEST

/* With no frames left to name, an exit that matches nothing is counted and ignored: the depth
 * never goes below zero. */
START_TEST(test_tree_unmatched_exit_ignored)
{
    struct tree_sink sink = {NULL, rec_enter, rec_exit, rec_special, rec_finish, NULL};
    struct log l = {{0}};
    struct tree *t;
    struct ev e = {.kind = EV_EXIT, .addr = 0xB};

    sink.arg = &l;
    t = tree_new(&sink, 0, NULL, NULL);
    ck_assert_int_eq(tree_feed(t, &e), 0);
    e.kind = EV_ENTER;
    e.addr = 0xA;
    ck_assert_int_eq(tree_feed(t, &e), 0);
    tree_finish(t);
    ck_assert_uint_eq(tree_unmatched(t), 1);
    ck_assert_str_eq(l.text, "+A@0 | open 1: A");
    tree_free(t);
}
END_TEST

/* Entries whose exit never came (a crash): they are the call stack at the end. */
START_TEST(test_tree_open_frames_at_end)
{
    ck_assert_str_eq(run("+A +B -B +C +D", 0, 0), "+A@0 +B@1 -B@1 +C@1 +D@2 | open 3: A C D");
}
END_TEST

/* longjmp without call sites: C and D never exit; B's exit proves them gone. */
START_TEST(test_tree_exit_pops_abandoned)
{
    ck_assert_str_eq(run("+A +B +C +D -B -A", 0, 0),
                     "+A@0 +B@1 +C@2 +D@3 ~D@3 ~C@2 -B@1 -A@0 | open 0:");
}
END_TEST

/* longjmp with call sites: E is called from inside B (from another place than C), so C and D
 * are gone at once, and E appears under B, not under D. */
START_TEST(test_tree_callsite_repairs_longjmp)
{
    ck_assert_str_eq(run("+A +B/A +C/B +D/C +E/B7 -E -B -A", 0, 1),
                     "+A@0 +B@1 +C@2 +D@3 ~D@3 ~C@2 +E@2 -E@2 -B@1 -A@0 | open 0:");
}
END_TEST

/* A longjmp out of six frames to the setjmp in A: the six never return, and the call after
 * the jump is A's callee, without call sites. */
START_TEST(test_tree_longjmp_pops_to_setjmp)
{
    ck_assert_str_eq(run("+A s1 +B +C +D +E +F +E j1 +C -C -A", 0, 0),
                     "+A@0 +B@1 +C@2 +D@3 +E@4 +F@5 +E@6 ^E@6 ^F@5 ^E@4 ^D@3 ^C@2 ^B@1 "
                     "+C@1 -C@1 -A@0 | open 0:");
}
END_TEST

/* Nested buffers: a longjmp to the inner one (set in B) leaves B open; one to the outer one
 * then closes B. A buffer set again later comes back to where it was set last. */
START_TEST(test_tree_longjmp_nested_buffers)
{
    ck_assert_str_eq(run("+A s1 +B s2 +C +D j2 +E -E j1 +F s1 +C j1 -F -A", 0, 0),
                     "+A@0 +B@1 +C@2 +D@3 ^D@3 ^C@2 +E@2 -E@2 ^B@1 +F@1 +C@2 ^C@2 -F@1 "
                     "-A@0 | open 0:");
}
END_TEST

/* A longjmp whose setjmp is not in the trace, or whose frame has returned since (its buffer is
 * dead), closes nothing: it is told to the sink, and counted. */
START_TEST(test_tree_longjmp_unresolved)
{
    struct tree_sink sink = {NULL, rec_enter, rec_exit, rec_special, rec_finish, NULL};
    struct log l = {{0}};
    struct tree *t;
    struct ev ev[] = {{.kind = EV_ENTER, .addr = 0xA}, {.kind = EV_ENTER, .addr = 0xB},
                      {.kind = EV_SETJMP, .addr = 1},  {.kind = EV_EXIT, .addr = 0xB},
                      {.kind = EV_ENTER, .addr = 0xC}, {.kind = EV_LONGJMP, .addr = 1},
                      {.kind = EV_LONGJMP, .addr = 2}, {.kind = EV_ENTER, .addr = 0xD}};

    sink.arg = &l;
    t = tree_new(&sink, 0, NULL, NULL);
    for (size_t i = 0; i < sizeof ev / sizeof ev[0]; i++)
        ck_assert_int_eq(tree_feed(t, &ev[i]), 0);
    tree_finish(t);
    ck_assert_uint_eq(tree_jumps_unresolved(t), 2);
    ck_assert_str_eq(l.text, "+A@0 +B@1 -B@1 +C@1 *19@2 *19@2 +D@2 | open 3: A C D");
    tree_free(t);
    /* the same frame's function called again at the setjmp's depth is not the frame */
    ck_assert_str_eq(run("+A +B s1 -B +B +C j1 -C -B -A", 0, 0),
                     "+A@0 +B@1 -B@1 +B@1 +C@2 *19@3 -C@2 -B@1 -A@0 | open 0:");
}
END_TEST

/* A setjmp in a frame entered before the trace: the longjmp closes what the trace shows above
 * it, and the unnamed frames it skipped go without a word; the exits after it name the rest. */
START_TEST(test_tree_longjmp_before_trace)
{
    ck_assert_str_eq(run("+C s1 +D j1 +E -E -C -B -A", 2, 0),
                     "+C@2 +D@3 ^D@3 +E@3 -E@3 -C@2 <B@1 <A@0 | open 0:");
    ck_assert_str_eq(run("+D -D -C s1 +E +F j1 +B -B -A", 3, 0),
                     "+D@3 -D@3 <C@2 +E@2 +F@3 ^F@3 ^E@2 +B@2 -B@2 <A@1 | open 0:");
    ck_assert_str_eq(run("s1 +C +D j1 +E -E -B -A", 2, 0),
                     "+C@2 +D@3 ^D@3 ^C@2 +E@2 -E@2 <B@1 <A@0 | open 0:");
    ck_assert_str_eq(run("+D j1 s1 +E j1 +F -F -B -A", 3, 0),
                     "+D@3 *19@4 +E@4 ^E@4 +F@4 -F@4 ~D@3 <B@2 <A@1 | open 0:");
}
END_TEST

/* A hole in the context's chunk (a late store): the calls open then that close without their
 * exit may have lost it there, and say so, a longjmp's too; a call entered after the hole, or
 * at a depth that returned since, is abandoned (or jumped over) as ever. */
START_TEST(test_tree_hole_may_hold_the_exit)
{
    ck_assert_str_eq(run("+A +B +C H -A", 0, 0), "+A@0 +B@1 +C@2 hC@2 hB@1 -A@0 | open 0:");
    ck_assert_str_eq(run("+A +B H -B +C +D -A", 0, 0),
                     "+A@0 +B@1 -B@1 +C@1 +D@2 ~D@2 ~C@1 -A@0 | open 0:");
    ck_assert_str_eq(run("+A +B H +C +D -A", 0, 0),
                     "+A@0 +B@1 +C@2 +D@3 ~D@3 ~C@2 hB@1 -A@0 | open 0:");
    ck_assert_str_eq(run("+A s1 +B +C H +D j1 +E -E -A", 0, 0),
                     "+A@0 +B@1 +C@2 +D@3 ^D@3 hC@2 hB@1 +E@1 -E@1 -A@0 | open 0:");
}
END_TEST

/* Call sites with inlining: gcc gives the hooks of C, inlined into B, B's own call site (in
 * A). That is no longjmp back into A: with call sites the tree nests as it does without them,
 * whether B calls D after C or C calls D, and through an inlined call inlined in turn (E). */
START_TEST(test_tree_callsite_inlined)
{
    static const char *const scripts[] = {
        "+A +B/A +C/A -C +D/B -D -B -A",
        "+A +B/A +C/A +D/B -D -C -B -A",
        "+A +B/A +C/A +E/A +D/B -D -E +D/B -D -C -B -A",
        "+A +B/A +C/A -C +C/A -C +D/B +C/B -C -D -B -A",
    };
    char without[2048];

    for (size_t i = 0; i < sizeof scripts / sizeof scripts[0]; i++) {
        snprintf(without, sizeof without, "%s", run(scripts[i], 0, 0));
        ck_assert_str_eq(run(scripts[i], 0, 1), without);
    }
    ck_assert_str_eq(run(scripts[1], 0, 1),
                     "+A@0 +B@1 +C@2 +D@3 -D@3 -C@2 -B@1 -A@0 | open 0:");
}
END_TEST

/* A longjmp back into B, whose inlined C is open: F, called from B at another place than D,
 * proves D and E gone, not C (the longjmp may have come back into C's code); E again, with
 * B's own call site, is inlined into B: it proves F gone, and nothing below. */
START_TEST(test_tree_callsite_longjmp_into_inlined)
{
    ck_assert_str_eq(run("+A +B/A +C/A +D/B +E/D +F/B7 +E/A -E -C -B -A", 0, 1),
                     "+A@0 +B@1 +C@2 +D@3 +E@4 ~E@4 ~D@3 +F@3 ~F@3 +E@3 -E@3 -C@2 -B@1 "
                     "-A@0 | open 0:");
}
END_TEST

/* A call site outside every frame (a callback from uninstrumented code, say qsort) pops
 * nothing. */
START_TEST(test_tree_callsite_unknown_caller_kept)
{
    ck_assert_str_eq(run("+A +B/A +C +D/C -D -C -B -A", 0, 1),
                     "+A@0 +B@1 +C@2 +D@3 -D@3 -C@2 -B@1 -A@0 | open 0:");
}
END_TEST

/* An exit of a frame from before the trace while known frames sit above it: they are gone. */
START_TEST(test_tree_before_trace_exit_abandons_above)
{
    ck_assert_str_eq(run("+B +C -A", 1, 0), "+B@1 +C@2 ~C@2 ~B@1 <A@0 | open 0:");
}
END_TEST

START_TEST(test_tree_specials_at_depth)
{
    ck_assert_str_eq(run("+A m -A m", 0, 0), "+A@0 *5@1 -A@0 *5@0 | open 0:");
}
END_TEST

/* A trigger is a special like a mark: where it fired, at the depth of the calls open. */
START_TEST(test_tree_trigger_at_depth)
{
    ck_assert_uint_eq(EV_TRIGGER, 14);
    ck_assert_str_eq(run("+A +B t -B t -A", 0, 0), "+A@0 +B@1 *14@2 -B@1 *14@1 -A@0 | open 0:");
}
END_TEST

START_TEST(test_tree_scan_contexts_and_depth)
{
    struct tree_scan sc = {0};
    struct ev evs[] = {
        {.kind = EV_THREAD, .ctx = 1, .addr = 4242},
        {.kind = EV_EXIT, .ctx = 1},  {.kind = EV_EXIT, .ctx = 1},
        {.kind = EV_ENTER, .ctx = 2}, {.kind = EV_ENTER, .ctx = 1},
        {.kind = EV_EXIT, .ctx = 2},  {.kind = EV_EXIT, .ctx = 1},
        {.kind = EV_EXIT, .ctx = 1},
    };

    for (size_t i = 0; i < sizeof evs / sizeof evs[0]; i++)
        ck_assert_int_eq(tree_scan_add(&sc, &evs[i]), 0);
    ck_assert_uint_eq(sc.n, 2);
    ck_assert_uint_eq(sc.ctx[0].id, 1);
    ck_assert_uint_eq(sc.ctx[0].os_tid, 4242);
    ck_assert_int_eq(sc.ctx[0].min_depth, -3);
    ck_assert_uint_eq(sc.ctx[0].events, 5);
    ck_assert_uint_eq(sc.ctx[1].id, 2);
    ck_assert_int_eq(sc.ctx[1].min_depth, 0);
    tree_scan_free(&sc);
}
END_TEST

static void quiet_enter(void *arg, const struct tree_frame *f, unsigned depth)
{
    (void)arg, (void)f, (void)depth;
}

/* Deep recursion grows the stack past its first allocation; the last exit is at depth 0. */
START_TEST(test_tree_deep_stack)
{
    static struct log l;
    struct tree_sink sink = {&l, quiet_enter, rec_exit, rec_special, rec_finish, NULL};
    struct tree *t = tree_new(&sink, 0, NULL, NULL);
    struct ev e = {.addr = 0xA, .kind = EV_ENTER};

    for (int i = 0; i < 10000; i++)
        ck_assert_int_eq(tree_feed(t, &e), 0);
    e.kind = EV_EXIT;
    for (int i = 0; i < 10000; i++) {
        memset(&l, 0, sizeof l);
        ck_assert_int_eq(tree_feed(t, &e), 0);
    }
    ck_assert_str_eq(l.text, "-A@0 ");
    tree_free(t);
}
END_TEST

/* After a loss (a live stream's EV_LOST), the open frames stay open: an exit of one of them
 * closes it (the frames above it are gone without a word: their exits may be what was lost);
 * an exit of a function not open was a call made in the loss, shown on top of them. */
START_TEST(test_tree_after_loss)
{
    /* A's exit after the loss closes A, 0 deep: B's exit was lost. */
    ck_assert_str_eq(run("+A +B L -A +C -C", 0, 0),
                     "+A@0 +B@1 *11@2 -A@0 +C@0 -C@0 | open 0:");
    /* An exit of C, never entered: a call made in the loss, above B. */
    ck_assert_str_eq(run("+A +B L -C -A", 0, 0), "+A@0 +B@1 *11@2 ?C@2 -A@0 | open 0:");
    /* Without a loss the same exit matches nothing and is skipped. */
    ck_assert_str_eq(run("+A +B -C -B -A", 0, 0), "+A@0 +B@1 -B@1 -A@0 | open 0:");
}
END_TEST

/* The stack survives a gap: main (A) loops over rounds (B) calling C; the loss took a round's
 * start. Its exits do not close main, the next round is still under main, and main is on the
 * stack at the end. */
START_TEST(test_tree_loss_keeps_stack)
{
    ck_assert_str_eq(run("+A +B +C -C -B L -C -B +B +C -C -B", 0, 0),
                     "+A@0 +B@1 +C@2 -C@2 -B@1 *11@1 ?C@1 ?B@1 +B@1 +C@2 -C@2 -B@1 | open 1: A");
    /* Open across the loss, so open at the end. */
    ck_assert_str_eq(run("+A +B L +C -C", 0, 0), "+A@0 +B@1 *11@2 +C@2 -C@2 | open 2: A B");
    /* A call made after the loss, open when a call made in the loss returns, was made inside
     * that one: it never returned. */
    ck_assert_str_eq(run("+A L +B -C -A", 0, 0), "+A@0 *11@1 +B@1 ~B@1 ?C@1 -A@0 | open 0:");
    /* Two losses: what the second finds open stays, the first's frames included. */
    ck_assert_str_eq(run("+A L +B L -C -D -A", 0, 0),
                     "+A@0 *11@1 +B@1 *11@2 ?C@2 ?D@2 -A@0 | open 0:");
    /* Frames entered before the trace are still named by the exits that come. */
    ck_assert_str_eq(run("+C -C L -D -A", 1, 0), "+C@1 -C@1 *11@1 <D@0 | open 0:");
}
END_TEST

/* Scans a script (run's syntax) as tree_scan_add does; returns the depth the trace starts at. */
static unsigned scan_depth(const char *script)
{
    struct tree_scan sc = {0};
    long d;

    for (const char *p = script; *p; p++) {
        struct ev e = {0};

        if (*p == ' ')
            continue;
        if (*p == 'L') {
            e.kind = EV_LOST;
        } else {
            e.kind = *p == '+' ? EV_ENTER : EV_EXIT;
            e.addr = (uint64_t)(*++p - 'A' + 10);
        }
        ck_assert_int_eq(tree_scan_add(&sc, &e), 0);
    }
    ck_assert_uint_eq(sc.n, 1);
    d = -sc.ctx[0].min_depth;
    tree_scan_free(&sc);
    return (unsigned)d;
}

/* A wrapped trace holding a longjmp: it starts inside work (C), outer (B) and main (A);
 * protect (D) longjmps out of a recursion (E), whose exits never come. Calls minus returns
 * would start it one deep, and outer's and main's exits would match nothing; the scan matches
 * exits as the tree does, and the end nests under main. */
START_TEST(test_tree_scan_depth_after_longjmp)
{
    const char *script = "-C +D +E +E +E -D +C -C -B -A";
    unsigned start = scan_depth(script);

    ck_assert_uint_eq(start, 3);
    ck_assert_str_eq(run(script, start, 0), "<C@2 +D@2 +E@3 +E@4 +E@5 ~E@5 ~E@4 ~E@3 -D@2 "
                                            "+C@2 -C@2 <B@1 <A@0 | open 0:");
    /* A loss: the exit of a call made in it names no frame the trace starts inside. */
    ck_assert_uint_eq(scan_depth("+A +B L -C -A -Z"), 1);
    ck_assert_uint_eq(scan_depth("-A +B -B -C"), 2);
}
END_TEST

/* The hooks' cost taken out (tree_set_hook_cost): events fed at given times (and seqs), the
 * times the sink is told back, entries and exits alike, in a string. */
struct hooked {
    char text[512];
};

static void hk_enter(void *arg, const struct tree_frame *f, unsigned depth)
{
    struct hooked *h = arg;
    size_t n = strlen(h->text);

    (void)depth;
    snprintf(h->text + n, sizeof h->text - n, "+%llX@%llu ", (unsigned long long)f->addr,
             (unsigned long long)f->t_enter);
}

static void hk_exit(void *arg, const struct tree_frame *f, unsigned depth, uint64_t t,
                    enum tree_exit_how how)
{
    struct hooked *h = arg;
    size_t n = strlen(h->text);

    (void)depth;
    (void)how;
    snprintf(h->text + n, sizeof h->text - n, "-%llX@%llu ", (unsigned long long)f->addr,
             (unsigned long long)t);
}

static void hk_special(void *arg, const struct ev *e, unsigned depth)
{
    (void)arg;
    (void)e;
    (void)depth;
}

static void hk_finish(void *arg, const struct tree_frame *stack, unsigned n)
{
    (void)arg;
    (void)stack;
    (void)n;
}

/* Feeds n events ("+A"/"-A" at times[i], seqs[i] or i when seqs is NULL) through a tree that
 * takes h out; returns what the sink saw. */
static const char *hooked(const struct tree_hook *h, const char *const *evs,
                          const uint64_t *times, const uint64_t *seqs, unsigned n)
{
    static struct hooked out;
    struct tree_sink sink = {&out, hk_enter, hk_exit, hk_special, hk_finish, NULL};
    struct tree *t = tree_new(&sink, 0, NULL, NULL);

    memset(&out, 0, sizeof out);
    ck_assert_ptr_nonnull(t);
    tree_set_hook_cost(t, h);
    for (unsigned i = 0; i < n; i++) {
        struct ev e = {.kind = evs[i][0] == '+' ? EV_ENTER : EV_EXIT,
                       .addr = (uint64_t)(evs[i][1] - 'A' + 10),
                       .time = times[i],
                       .seq = seqs ? seqs[i] : i};

        ck_assert_int_eq(tree_feed(t, &e), 0);
    }
    tree_finish(t);
    tree_free(t);
    return out.text;
}

/* A call with k calls nested inside it loses (2k + 1) hook costs of its duration, its self time
 * (m + 1) for m direct children: A (k = 1) 100 - 3 * 4 = 88, B 10 - 4 = 6, A's self 90 - 2 * 4.
 * Without a cost (or a cost of 0) the times are as recorded. */
START_TEST(test_tree_hook_cost_model)
{
    static const char *const evs[] = {"+A", "+B", "-B", "-A"};
    static const uint64_t times[] = {1000, 1010, 1020, 1100};
    struct tree_hook h = {.cost = 4 * 256};

    ck_assert_str_eq(hooked(&h, evs, times, NULL, 4), "+A@1000 +B@1006 -B@1012 -A@1088 ");
    h.cost = 0;
    ck_assert_str_eq(hooked(&h, evs, times, NULL, 4), "+A@1000 +B@1010 -B@1020 -A@1100 ");
    ck_assert_str_eq(hooked(NULL, evs, times, NULL, 4), "+A@1000 +B@1010 -B@1020 -A@1100 ");
    /* 1/256 ticks add up: 2.5 ticks an event, A loses 7.5 */
    h.cost = 640;
    ck_assert_str_eq(hooked(&h, evs, times, NULL, 4), "+A@1000 +B@1007 -B@1015 -A@1092 ");
}
END_TEST

/* A gap shorter than what is owed pays what it can (no time goes back: B lasts 0, never less),
 * and the rest is owed to the next gap, so that A still loses 3 costs: 100 - 48. A clock that
 * steps back (a signal handler's record) steps back as recorded. */
START_TEST(test_tree_hook_cost_owed)
{
    static const char *const evs[] = {"+A", "+B", "-B", "-A"};
    static const uint64_t times[] = {1000, 1010, 1020, 1100};
    static const uint64_t back[] = {1000, 1050, 1040, 1100};
    struct tree_hook h = {.cost = 16 * 256};

    ck_assert_str_eq(hooked(&h, evs, times, NULL, 4), "+A@1000 +B@1000 -B@1000 -A@1052 ");
    h.cost = 4 * 256;
    ck_assert_str_eq(hooked(&h, evs, back, NULL, 4), "+A@1000 +B@1046 -B@1036 -A@1088 ");
}
END_TEST

/* One core (global): the records other contexts reserved inside a gap (seqs skipped) cost too;
 * threads side by side (not global) count their own events only. A record that starts a memory
 * page in the first lap costs its page more: with 16-byte records after the 128-byte block,
 * record 248 starts the first 4 KiB page, and 248 + 256 the next; not in the second lap. */
START_TEST(test_tree_hook_cost_global_and_pages)
{
    static const char *const evs[] = {"+A", "-A"};
    static const uint64_t times[] = {1000, 1100};
    static const uint64_t seqs[] = {10, 15};
    static const uint64_t at_page[] = {248, 249};
    static const uint64_t next_lap[] = {248 + 1024, 249 + 1024};
    struct tree_hook h = {.cost = 4 * 256, .global = 1};

    ck_assert_str_eq(hooked(&h, evs, times, seqs, 2), "+A@1000 -A@1080 "); /* 5 records */
    h.global = 0;
    ck_assert_str_eq(hooked(&h, evs, times, seqs, 2), "+A@1000 -A@1096 ");
    h = (struct tree_hook){.cost = 4 * 256, .page_cost = 50, .page_log2 = 12, .rec_bytes = 16,
                           .cap_log2 = 10};
    ck_assert_str_eq(hooked(&h, evs, times, at_page, 2), "+A@1000 -A@1046 ");
    ck_assert_str_eq(hooked(&h, evs, times, seqs, 2), "+A@1000 -A@1096 ");
    ck_assert_str_eq(hooked(&h, evs, times, next_lap, 2), "+A@1000 -A@1096 ");
    h.global = 1; /* records 248 and 504 in the gap: two pages */
    {
        static const uint64_t wide[] = {200, 600};

        ck_assert_str_eq(hooked(&h, evs, times, wide, 2), "+A@1000 -A@1000 ");
    }
}
END_TEST

Suite *tree_suite(void)
{
    Suite *s = suite_create("tree");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_tree_nesting);
    tcase_add_test(tc, test_tree_hook_cost_model);
    tcase_add_test(tc, test_tree_hook_cost_owed);
    tcase_add_test(tc, test_tree_hook_cost_global_and_pages);
    tcase_add_test(tc, test_tree_recursion);
    tcase_add_test(tc, test_tree_wrapped_start);
    tcase_add_test(tc, test_tree_unmatched_exit_ignored);
    tcase_add_test(tc, test_tree_open_frames_at_end);
    tcase_add_test(tc, test_tree_exit_pops_abandoned);
    tcase_add_test(tc, test_tree_callsite_repairs_longjmp);
    tcase_add_test(tc, test_tree_longjmp_pops_to_setjmp);
    tcase_add_test(tc, test_tree_longjmp_nested_buffers);
    tcase_add_test(tc, test_tree_longjmp_unresolved);
    tcase_add_test(tc, test_tree_longjmp_before_trace);
    tcase_add_test(tc, test_tree_hole_may_hold_the_exit);
    tcase_add_test(tc, test_tree_callsite_unknown_caller_kept);
    tcase_add_test(tc, test_tree_before_trace_exit_abandons_above);
    tcase_add_test(tc, test_tree_specials_at_depth);
    tcase_add_test(tc, test_tree_trigger_at_depth);
    tcase_add_test(tc, test_tree_scan_contexts_and_depth);
    tcase_add_test(tc, test_tree_deep_stack);
    tcase_add_test(tc, test_tree_after_loss);
    tcase_add_test(tc, test_tree_callsite_inlined);
    tcase_add_test(tc, test_tree_callsite_longjmp_into_inlined);
    tcase_add_test(tc, test_tree_loss_keeps_stack);
    tcase_add_test(tc, test_tree_scan_depth_after_longjmp);
    suite_add_tcase(s, tc);
    return s;
}
