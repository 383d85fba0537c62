/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_vlines.c - the live view's model without a screen: events in, the lines it shows out.
 * No symbol table, so functions are named by address: A = 0xa00, B = 0xb00, ... Each test
 * compares what is shown, oldest first, as one string: a line per shown line, indented two
 * spaces per depth, " @ticks" after it when it shows a duration. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cyg_format.h"
#include "suites.h"
#include "model/tree.h"
#include "model/vlines.h"
#include "output/graphout.h"

#define FN(c) ((uint64_t)((c) - 'A' + 0xa) << 8)

static void in(struct vlines *m, uint8_t kind, uint32_t ctx, char fn, uint64_t t)
{
    vlines_event(m, &(struct ev){.kind = kind, .ctx = ctx, .addr = FN(fn), .time = t});
}

/* A call of fn with no callees, in context 1. */
static void leaf(struct vlines *m, char fn, uint64_t t0, uint64_t t1)
{
    in(m, EV_ENTER, 1, fn, t0);
    in(m, EV_EXIT, 1, fn, t1);
}

static struct vlines *model(uint64_t max)
{
    struct vlines *m = vlines_new(max);

    ck_assert_ptr_nonnull(m);
    vlines_configure(m, NULL, 0, 1000000, 1, 16);
    return m;
}

/* The shown lines as one string (see the top). */
static const char *shown(struct vlines *m)
{
    static char out[4096];
    size_t n = 0;

    out[0] = 0;
    for (uint64_t id = vlines_next(m, VLINES_NONE); id != VLINES_NONE; id = vlines_next(m, id)) {
        char text[256];
        uint64_t d;

        vlines_text(m, id, text, sizeof text);
        n += (size_t)snprintf(out + n, sizeof out - n, "%*s%s", (int)vlines_depth(m, id) * 2, "",
                              text);
        if (vlines_dur(m, id, &d))
            n += (size_t)snprintf(out + n, sizeof out - n, " @%llu", (unsigned long long)d);
        n += (size_t)snprintf(out + n, sizeof out - n, "\n");
        ck_assert_uint_lt(n, sizeof out);
    }
    return out;
}

/* The first shown line whose text starts with s. */
static uint64_t line_of(struct vlines *m, const char *s)
{
    for (uint64_t id = vlines_next(m, VLINES_NONE); id != VLINES_NONE; id = vlines_next(m, id)) {
        char text[256];

        vlines_text(m, id, text, sizeof text);
        if (!strncmp(text, s, strlen(s)))
            return id;
    }
    ck_abort_msg("no line %s", s);
    return VLINES_NONE;
}

/* The graph pane's text, as the view draws it; NULL when no function is chosen. */
static char *graph_text(struct vlines *m)
{
    struct graph *g = vlines_graph_get(m);
    const struct vlines_conf *c = vlines_conf(m);

    return g ? graphout_pane(g, c->has_time ? c->ts_hz : 0, VLINES_GRAPH_NODES) : NULL;
}

/* The graph pane's model: the graph of a function from its choice on, its calls counted. */
START_TEST(test_vlines_graph)
{
    struct vlines *m = model(100);
    char *text;

    ck_assert_ptr_null(graph_text(m));
    ck_assert_int_eq(vlines_graph(m, FN('A')), 0);
    text = graph_text(m);
    ck_assert_ptr_nonnull(strstr(text, "not called since it was chosen"));
    free(text);
    for (int i = 0; i < 2; i++) {
        in(m, EV_ENTER, 1, 'A', 10 + 10 * i);
        leaf(m, 'B', 11 + 10 * i, 13 + 10 * i);
        in(m, EV_EXIT, 1, 'A', 15 + 10 * i);
    }
    text = graph_text(m);
    ck_assert_msg(strstr(text, ": (2) 0xa00") && strstr(text, ": (2) 0xb00"), "%s", text);
    free(text);
    ck_assert_int_eq(vlines_graph(m, 0), 0);
    ck_assert_ptr_null(graph_text(m));
    vlines_free(m);
}
END_TEST

/* A wrapped call shows its arguments once they come, its return value at its end; a caller's
 * return value is on its closing line. The check bits are of the recorded (biased) address. */
static void value(struct vlines *m, uint64_t fn, unsigned idx, uint64_t v)
{
    uint32_t data = idx | CYG_VK_INT << CYG_VAL_KIND_SHIFT | CYG_VAL_LAST |
                    8u << CYG_VAL_LEN_SHIFT | cyg_val_check(fn) << CYG_VAL_CHECK_SHIFT;

    vlines_event(m, &(struct ev){.kind = EV_VALUE, .ctx = 1, .addr = v, .data = data});
}

START_TEST(test_vlines_values)
{
    struct vlines *m = vlines_new(100);
    const uint64_t bias = 0x10000, a = FN('A') + bias, b = FN('B') + bias;

    ck_assert_ptr_nonnull(m);
    vlines_configure(m, NULL, bias, 1000000, 1, 16);
    vlines_event(m, &(struct ev){.kind = EV_ENTER, .ctx = 1, .addr = a, .time = 10});
    ck_assert_str_eq(shown(m), "0xa00()\n");
    value(m, a, 0, 2);
    value(m, a, 1, (uint64_t)-3);
    ck_assert_str_eq(shown(m), "0xa00(2, -3)\n");
    vlines_event(m, &(struct ev){.kind = EV_ENTER, .ctx = 1, .addr = b, .time = 12});
    value(m, b, 0, 7);
    value(m, b, CYG_VAL_RET, 8);
    vlines_event(m, &(struct ev){.kind = EV_EXIT, .ctx = 1, .addr = b, .time = 14});
    value(m, a, CYG_VAL_RET, 5);
    vlines_event(m, &(struct ev){.kind = EV_EXIT, .ctx = 1, .addr = a, .time = 20});
    ck_assert_str_eq(shown(m), "0xa00(2, -3) { @10\n"
                               "  0xb00(7) = 8; @2\n"
                               "} = 5; /* 0xa00 */\n");
    vlines_free(m);
}
END_TEST

/* A leaf reads "name();" with its duration, a caller "name() {" with its duration on that
 * line, down to a closing line; running calls have neither. Addresses are made link-time. */
START_TEST(test_vlines_leaf_and_caller)
{
    struct vlines *m = vlines_new(100);
    const uint64_t bias = 0x10000;

    ck_assert_ptr_nonnull(m);
    vlines_configure(m, NULL, bias, 1000000, 1, 16);
    vlines_event(m, &(struct ev){.kind = EV_ENTER, .ctx = 1, .addr = FN('A') + bias, .time = 10});
    vlines_event(m, &(struct ev){.kind = EV_ENTER, .ctx = 1, .addr = FN('B') + bias, .time = 15});
    ck_assert_str_eq(shown(m), "0xa00() {\n"
                               "  0xb00()\n");
    vlines_event(m, &(struct ev){.kind = EV_EXIT, .ctx = 1, .addr = FN('B') + bias, .time = 25});
    vlines_event(m, &(struct ev){.kind = EV_EXIT, .ctx = 1, .addr = FN('A') + bias, .time = 40});
    ck_assert_str_eq(shown(m), "0xa00() { @30\n"
                               "  0xb00(); @10\n"
                               "} /* 0xa00 */\n");
    ck_assert_uint_eq(vlines_first(m), 0);
    ck_assert_uint_eq(vlines_end(m), 3);
    ck_assert_uint_eq(vlines_contexts(m), 1);
    ck_assert_uint_eq(vlines_ctx(m, 1), 1);
    ck_assert_uint_eq(vlines_flags(m, 0), VLINES_KIDS | VLINES_DONE);
    ck_assert_uint_eq(vlines_flags(m, 1), VLINES_DONE);
    vlines_free(m);
}
END_TEST

/* Before the first vlines_configure, events are not shown (nothing says what they are yet). */
START_TEST(test_vlines_unconfigured)
{
    struct vlines *m = vlines_new(100);

    ck_assert_ptr_nonnull(m);
    ck_assert_int_eq(vlines_conf(m)->configured, 0);
    leaf(m, 'A', 1, 2);
    ck_assert_uint_eq(vlines_end(m), 0);
    vlines_free(m);
}
END_TEST

/* A{B{C} D} E: folding A hides everything under it, its closing line too, and nothing else;
 * folding works from the closing line as well; a leaf has nothing to fold. */
START_TEST(test_vlines_fold_hides_subtree)
{
    struct vlines *m = model(100);
    const char *all = "0xa00() { @60\n"
                      "  0xb00() { @30\n"
                      "    0xc00(); @10\n"
                      "  } /* 0xb00 */\n"
                      "  0xd00(); @5\n"
                      "} /* 0xa00 */\n"
                      "0xe00(); @1\n";
    uint64_t id;

    in(m, EV_ENTER, 1, 'A', 0);
    in(m, EV_ENTER, 1, 'B', 10);
    leaf(m, 'C', 15, 25);
    in(m, EV_EXIT, 1, 'B', 40);
    leaf(m, 'D', 45, 50);
    in(m, EV_EXIT, 1, 'A', 60);
    leaf(m, 'E', 70, 71);
    ck_assert_str_eq(shown(m), all);

    id = line_of(m, "0xa00");
    ck_assert_int_eq(vlines_fold(m, &id), 0);
    ck_assert_str_eq(shown(m), "0xa00() { ... } @60\n"
                               "0xe00(); @1\n");
    ck_assert(vlines_flags(m, id) & VLINES_FOLD);
    ck_assert_int_eq(vlines_fold(m, &id), 0);
    ck_assert_str_eq(shown(m), all);

    id = line_of(m, "} /* 0xb00");
    ck_assert_int_eq(vlines_fold(m, &id), 0);
    ck_assert_uint_eq(id, line_of(m, "0xb00"));
    ck_assert_str_eq(shown(m), "0xa00() { @60\n"
                               "  0xb00() { ... } @30\n"
                               "  0xd00(); @5\n"
                               "} /* 0xa00 */\n"
                               "0xe00(); @1\n");
    ck_assert(!vlines_shown(m, line_of(m, "0xb00") + 1));

    id = line_of(m, "0xe00");
    ck_assert_int_eq(vlines_fold(m, &id), -1);
    vlines_free(m);
}
END_TEST

/* A filter by name shows the calls of the functions it names with everything under them, and
 * nothing else but alerts. */
START_TEST(test_vlines_filter_by_function)
{
    struct vlines *m = model(100);
    char all[4096];

    in(m, EV_ENTER, 1, 'A', 0);
    in(m, EV_ENTER, 1, 'B', 1);
    leaf(m, 'C', 2, 3);
    in(m, EV_EXIT, 1, 'B', 4);
    in(m, EV_ENTER, 1, 'D', 5);
    leaf(m, 'B', 6, 7);
    in(m, EV_EXIT, 1, 'D', 8);
    in(m, EV_EXIT, 1, 'A', 9);
    leaf(m, 'E', 10, 11);
    snprintf(all, sizeof all, "%s", shown(m));

    vlines_set_filter(m, "0xb00");
    ck_assert_str_eq(vlines_filter(m), "0xb00");
    ck_assert_str_eq(shown(m), "  0xb00() { @3\n"
                               "    0xc00(); @1\n"
                               "  } /* 0xb00 */\n"
                               "    0xb00(); @1\n");
    /* a loss is shown whatever the filter */
    vlines_event(m, &(struct ev){.kind = EV_LOST, .addr = 2, .data = EV_LOST_TARGET});
    ck_assert_str_eq(shown(m), "  0xb00() { @3\n"
                               "    0xc00(); @1\n"
                               "  } /* 0xb00 */\n"
                               "    0xb00(); @1\n"
                               "*** 2 events lost (target)\n");
    vlines_set_filter(m, "0xf00");
    ck_assert_str_eq(shown(m), "*** 2 events lost (target)\n");
    vlines_set_filter(m, "");
    ck_assert_int_eq(strncmp(shown(m), all, strlen(all)), 0);
    vlines_free(m);
}
END_TEST

/* A search goes forward from a line to the next match, around from the oldest, and finds
 * calls and notes by their text; a closing line is never the match, its call is. */
START_TEST(test_vlines_find_wraps)
{
    struct vlines *m = model(100);
    uint64_t a1, b, a2, mark;

    in(m, EV_ENTER, 1, 'A', 0);
    leaf(m, 'B', 1, 2);
    in(m, EV_EXIT, 1, 'A', 3);
    leaf(m, 'A', 4, 5);
    vlines_event(m, &(struct ev){.kind = EV_MARK, .ctx = 1, .data = 7, .addr = 0x42});
    ck_assert_str_eq(shown(m), "0xa00() { @3\n"
                               "  0xb00(); @1\n"
                               "} /* 0xa00 */\n"
                               "0xa00(); @1\n"
                               "# mark 7 = 0x42\n");
    a1 = line_of(m, "0xa00() {");
    b = line_of(m, "0xb00");
    a2 = line_of(m, "0xa00();");
    mark = line_of(m, "# mark");
    ck_assert_uint_eq(vlines_find(m, VLINES_NONE, "0xa00"), a1);
    ck_assert_uint_eq(vlines_find(m, a1, "0xa00"), a2); /* not the closing line */
    ck_assert_uint_eq(vlines_find(m, a2, "0xa00"), a1); /* around */
    ck_assert_uint_eq(vlines_find(m, b, "0xb00"), b);   /* the only match: itself */
    ck_assert_uint_eq(vlines_find(m, a1, "mark 7"), mark);
    ck_assert_uint_eq(vlines_find(m, a1, "0xf00"), VLINES_NONE);
    /* hidden lines are not found */
    ck_assert_int_eq(vlines_fold(m, &a1), 0);
    ck_assert_uint_eq(vlines_find(m, a1, "0xb00"), VLINES_NONE);
    vlines_free(m);
}
END_TEST

/* The store keeps the newest lines: each new line beyond the bound drops the oldest one. A
 * call whose line was dropped gets its duration on its closing line. */
START_TEST(test_vlines_bound_drops_oldest)
{
    struct vlines *m = model(4);

    in(m, EV_ENTER, 1, 'A', 0);
    leaf(m, 'B', 1, 2);
    leaf(m, 'C', 3, 4);
    leaf(m, 'D', 5, 6);
    ck_assert_uint_eq(vlines_first(m), 0);
    ck_assert_uint_eq(vlines_end(m), 4);
    leaf(m, 'E', 7, 8);
    ck_assert_uint_eq(vlines_first(m), 1);
    ck_assert_uint_eq(vlines_end(m), 5);
    in(m, EV_EXIT, 1, 'A', 20);
    ck_assert_uint_eq(vlines_first(m), 2);
    ck_assert_str_eq(shown(m), "  0xc00(); @1\n"
                               "  0xd00(); @1\n"
                               "  0xe00(); @1\n"
                               "} /* 0xa00 */ @20\n");
    for (int i = 0; i < 10; i++)
        leaf(m, 'F', 30, 31);
    ck_assert_uint_eq(vlines_first(m), 12);
    ck_assert_uint_eq(vlines_end(m), 16);
    vlines_free(m);
}
END_TEST

/* Paused, the lines shown stay as they were at the pause (a call that ends later still runs),
 * and so does the table; the model goes on. When the store is full, new lines are not kept,
 * and the resume says how many. */
START_TEST(test_vlines_pause)
{
    struct vlines *m = model(4);
    const struct fnstat_row *r;
    size_t n;

    in(m, EV_ENTER, 1, 'A', 0);
    leaf(m, 'B', 1, 2);
    r = vlines_rows(m, FNSTAT_BY_NAME, &n);
    ck_assert_uint_eq(n, 2);
    vlines_pause(m, 1);
    ck_assert_int_eq(vlines_paused(m), 1);
    leaf(m, 'B', 3, 4);
    in(m, EV_EXIT, 1, 'A', 10);
    ck_assert_str_eq(shown(m), "0xa00() {\n"
                               "  0xb00(); @1\n");
    ck_assert_uint_eq(vlines_end(m), 4); /* kept, not shown */
    leaf(m, 'C', 11, 12);
    leaf(m, 'C', 13, 14);
    ck_assert_uint_eq(vlines_first(m), 0);
    ck_assert_uint_eq(vlines_end(m), 4);
    r = vlines_rows(m, FNSTAT_BY_NAME, &n);
    ck_assert_uint_eq(n, 2);
    ck_assert_uint_eq(r[1].addr, FN('B'));
    ck_assert_uint_eq(r[1].calls, 1);
    ck_assert_uint_eq(vlines_nrows(m), 2);

    vlines_pause(m, 0);
    /* the note dropped A's line: its closing line carries the duration now */
    ck_assert_str_eq(shown(m), "  0xb00(); @1\n"
                               "  0xb00(); @1\n"
                               "} /* 0xa00 */ @10\n"
                               "*** 2 lines were not kept while paused (the table counted their "
                               "calls)\n");
    r = vlines_rows(m, FNSTAT_BY_NAME, &n);
    ck_assert_uint_eq(n, 3);
    ck_assert_uint_eq(r[1].calls, 2);
    ck_assert_uint_eq(r[2].calls, 2);
    vlines_free(m);
}
END_TEST

/* A loss is a line of no context, shown as an alert. The calls open across it stay open: C's
 * exit, of no open call, closes a call made in the loss, under B; A's exit matches A, and B has
 * an unknown end (its exit may have been lost). */
START_TEST(test_vlines_loss)
{
    struct vlines *m = model(100);
    uint64_t id;

    in(m, EV_ENTER, 1, 'A', 0);
    in(m, EV_ENTER, 1, 'B', 1);
    vlines_event(m, &(struct ev){.kind = EV_LOST, .addr = 12, .data = EV_LOST_LINK});
    in(m, EV_EXIT, 1, 'C', 5);
    in(m, EV_EXIT, 1, 'A', 9);
    ck_assert_str_eq(shown(m), "0xa00() { @9\n"
                               "  0xb00() {  (end not seen)\n"
                               "*** 12 events lost (link)\n"
                               "    } /* 0xc00 */  (entered while events were lost)\n"
                               "} /* 0xa00 */\n");
    id = line_of(m, "***");
    ck_assert_uint_eq(vlines_ctx(m, id), VLINES_NO_CTX);
    ck_assert(vlines_flags(m, id) & VLINES_ALERT);
    vlines_free(m);
}
END_TEST

/* A fault is an alert at the left edge, whatever the depth; its LR record completes the line. */
START_TEST(test_vlines_fault)
{
    struct vlines *m = model(100);
    uint64_t id;

    in(m, EV_ENTER, 1, 'A', 0);
    in(m, EV_ENTER, 1, 'B', 1);
    vlines_event(m, &(struct ev){.kind = EV_FAULT, .ctx = 1, .data = CYG_FAULT_HARD,
                                 .addr = FN('B') + 4});
    id = line_of(m, "***");
    ck_assert_str_eq(shown(m), "0xa00() {\n"
                               "  0xb00()\n"
                               "*** HardFault at 0xb04\n");
    vlines_event(m, &(struct ev){.kind = EV_FAULT_LR, .ctx = 1, .data = CYG_FAULT_HARD,
                                 .addr = FN('A') + 8});
    ck_assert_str_eq(shown(m), "0xa00() {\n"
                               "  0xb00()\n"
                               "*** HardFault at 0xb04, called from 0xa08\n");
    ck_assert_uint_eq(vlines_depth(m, id), 0);
    ck_assert_uint_eq(vlines_ctx(m, id), 1);
    ck_assert(vlines_flags(m, id) & VLINES_ALERT);
    vlines_set_filter(m, "0xf00");
    ck_assert_str_eq(shown(m), "*** HardFault at 0xb04, called from 0xa08\n");
    vlines_free(m);
}
END_TEST

/* A trigger that fired is an alert, shown whatever the filter; a mark of a class says it. */
START_TEST(test_vlines_trigger_and_mark_class)
{
    struct vlines *m = model(100);
    uint64_t id;

    in(m, EV_ENTER, 1, 'A', 0);
    in(m, EV_ENTER, 1, 'B', 1);
    vlines_event(m, &(struct ev){.kind = EV_MARK, .ctx = 1, .data = 7, .cls = 3, .addr = 0x2a});
    vlines_event(m, &(struct ev){.kind = EV_TRIGGER, .ctx = 1,
                                 .data = 2 | CYG_TRIG_FREEZE << CYG_TRIGD_KIND_SHIFT,
                                 .addr = FN('B')});
    id = line_of(m, "***");
    ck_assert_str_eq(shown(m), "0xa00() {\n"
                               "  0xb00()\n"
                               "    # mark 7 class 3 = 0x2a\n"
                               "*** trigger 2 (freeze) fired at 0xb00\n");
    ck_assert(vlines_flags(m, id) & VLINES_ALERT);
    ck_assert_uint_eq(vlines_depth(m, id), 0);
    vlines_set_filter(m, "0xf00");
    ck_assert_str_eq(shown(m), "*** trigger 2 (freeze) fired at 0xb00\n");
    vlines_free(m);
}
END_TEST

/* What the scheduler did is a line at its depth, with the names the NAME records gave; the
 * contexts go by their names. */
START_TEST(test_vlines_sched_and_names)
{
    struct vlines *m = model(100);
    char buf[64];

    /* context 3 is "cons" (NAME words of 32-bit target), queue 0x2000 "q" */
    vlines_event(m, &(struct ev){.kind = EV_NAME, .ctx = 1, .data = 0, .addr = 3});
    vlines_event(m, &(struct ev){.kind = EV_NAME, .ctx = 1,
                                 .data = 1 | CYG_NAME_LAST | 4u << CYG_NAME_LEN_SHIFT,
                                 .addr = 0x736e6f63});
    vlines_event(m, &(struct ev){.kind = EV_NAME, .ctx = 1,
                                 .data = CYG_NAME_OBJECT | CYG_OBJ_QUEUE << CYG_NAME_OBJ_SHIFT,
                                 .addr = 0x2000});
    vlines_event(m, &(struct ev){.kind = EV_NAME, .ctx = 1,
                                 .data = 1 | CYG_NAME_LAST | 1u << CYG_NAME_LEN_SHIFT,
                                 .addr = 'q'});
    in(m, EV_ENTER, 1, 'A', 0);
    vlines_event(m, &(struct ev){.kind = EV_SCHED, .ctx = 1,
                                 .data = CYG_SCHED_BLOCK | CYG_OBJ_QUEUE << CYG_SCHED_OBJ_SHIFT,
                                 .addr = 0x2000});
    vlines_event(m, &(struct ev){.kind = EV_SCHED, .ctx = 1,
                                 .data = CYG_SCHED_WAKE | 3u << CYG_SCHED_ID_SHIFT});
    ck_assert_str_eq(shown(m), "0xa00()\n"
                               "  -- blocked on queue \"q\" (receive)\n"
                               "  -- wakes cons\n");
    ck_assert_str_eq(vlines_ctx_name(m, 3, buf, sizeof buf), "cons");
    ck_assert_ptr_null(vlines_ctx_name(m, 1, buf, sizeof buf));
    vlines_free(m);
}
END_TEST

/* Two contexts, interleaved: each its own tree (depths, durations), lines in arrival order. */
START_TEST(test_vlines_two_contexts)
{
    struct vlines *m = model(100);

    in(m, EV_ENTER, 1, 'A', 0);
    in(m, EV_ENTER, 2, 'C', 1);
    in(m, EV_ENTER, 1, 'B', 2);
    in(m, EV_EXIT, 2, 'C', 3);
    in(m, EV_EXIT, 1, 'B', 5);
    in(m, EV_EXIT, 1, 'A', 10);
    ck_assert_str_eq(shown(m), "0xa00() { @10\n"
                               "0xc00(); @2\n"
                               "  0xb00(); @3\n"
                               "} /* 0xa00 */\n");
    ck_assert_uint_eq(vlines_contexts(m), 2);
    ck_assert_uint_eq(vlines_ctx(m, 0), 1);
    ck_assert_uint_eq(vlines_ctx(m, 1), 2);
    ck_assert_uint_eq(vlines_ctx(m, 2), 1);
    ck_assert_uint_eq(vlines_ctx(m, 3), 1);
    vlines_free(m);
}
END_TEST

/* A new description starts the trees over: calls still open are left with an unknown end, a
 * line says so, and the lines stay. */
START_TEST(test_vlines_configure_again)
{
    struct vlines *m = model(100);

    in(m, EV_ENTER, 1, 'A', 0);
    ck_assert_int_eq(vlines_configure(m, NULL, 0, 1000000, 1, 16), 0);
    leaf(m, 'B', 1, 2);
    ck_assert_str_eq(shown(m), "0xa00();  (end not seen)\n"
                               "# the trace starts over (a new description of the stream)\n"
                               "0xb00(); @1\n");
    vlines_free(m);
}
END_TEST

/* The hooks' cost taken out (vlines_set_hook_cost, as live does with the trace's figure): a
 * cost of 2 ticks an event leaves A, with one call inside, 40 - 3 * 2 ticks and B 10 - 2; the
 * table's times too, and the note is given back. Without a cost (--raw-times), the times as
 * recorded and no note; a new configuration keeps the cost for its new trees. */
static void hooked_calls(struct vlines *m, uint64_t t0)
{
    in(m, EV_ENTER, 1, 'A', t0);
    in(m, EV_ENTER, 1, 'B', t0 + 10);
    in(m, EV_EXIT, 1, 'B', t0 + 20);
    in(m, EV_EXIT, 1, 'A', t0 + 40);
}

static uint64_t row_total(struct vlines *m, char fn)
{
    size_t n;
    const struct fnstat_row *r = vlines_rows(m, FNSTAT_BY_NAME, &n);

    for (size_t i = 0; i < n; i++)
        if (r[i].addr == FN(fn))
            return r[i].total;
    ck_abort_msg("no row for %c", fn);
    return 0;
}

START_TEST(test_vlines_hook_cost)
{
    struct vlines *m = model(100), *raw = model(100);
    const struct tree_hook h = {.cost = 2u << 8}; /* 1/256 tick: 2 ticks; its own events only */

    vlines_set_hook_cost(m, &h, "durations corrected for hook cost: 2.0 ns per event");
    ck_assert_str_eq(vlines_hook_note(m), "durations corrected for hook cost: 2.0 ns per event");
    hooked_calls(m, 100);
    ck_assert_str_eq(shown(m), "0xa00() { @34\n"
                               "  0xb00(); @8\n"
                               "} /* 0xa00 */\n");
    ck_assert_uint_eq(row_total(m, 'A'), 34);
    ck_assert_uint_eq(row_total(m, 'B'), 8);
    /* a new description: the new trees take the cost too */
    vlines_configure(m, NULL, 0, 1000000, 1, 16);
    leaf(m, 'C', 500, 510);
    ck_assert_ptr_nonnull(strstr(shown(m), "0xc00(); @8\n"));

    /* --raw-times: no cost, as recorded, no note */
    vlines_set_hook_cost(raw, NULL, "ignored");
    ck_assert_ptr_null(vlines_hook_note(raw));
    hooked_calls(raw, 100);
    ck_assert_str_eq(shown(raw), "0xa00() { @40\n"
                                 "  0xb00(); @10\n"
                                 "} /* 0xa00 */\n");
    ck_assert_uint_eq(row_total(raw, 'A'), 40);
    /* a cost of 0 is none too */
    vlines_set_hook_cost(raw, &(struct tree_hook){0}, "ignored");
    ck_assert_ptr_null(vlines_hook_note(raw));
    vlines_free(m);
    vlines_free(raw);
}
END_TEST

/* A new description with another bias (the program started again, loaded elsewhere): the
 * contexts' new trees check the values against the new recorded addresses. */
START_TEST(test_vlines_values_after_new_bias)
{
    struct vlines *m = model(100);
    const uint64_t bias = 0x10000, a = FN('A') + bias;

    leaf(m, 'A', 1, 2);
    ck_assert_int_eq(vlines_configure(m, NULL, bias, 1000000, 1, 16), 0);
    vlines_event(m, &(struct ev){.kind = EV_ENTER, .ctx = 1, .addr = a, .time = 10});
    value(m, a, 0, 2);
    ck_assert_str_eq(shown(m), "0xa00(); @1\n"
                               "# the trace starts over (a new description of the stream)\n"
                               "0xa00(2)\n");
    vlines_free(m);
}
END_TEST

Suite *vlines_suite(void)
{
    Suite *s = suite_create("vlines");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_vlines_leaf_and_caller);
    tcase_add_test(tc, test_vlines_values);
    tcase_add_test(tc, test_vlines_values_after_new_bias);
    tcase_add_test(tc, test_vlines_graph);
    tcase_add_test(tc, test_vlines_unconfigured);
    tcase_add_test(tc, test_vlines_fold_hides_subtree);
    tcase_add_test(tc, test_vlines_filter_by_function);
    tcase_add_test(tc, test_vlines_find_wraps);
    tcase_add_test(tc, test_vlines_bound_drops_oldest);
    tcase_add_test(tc, test_vlines_pause);
    tcase_add_test(tc, test_vlines_loss);
    tcase_add_test(tc, test_vlines_fault);
    tcase_add_test(tc, test_vlines_trigger_and_mark_class);
    tcase_add_test(tc, test_vlines_sched_and_names);
    tcase_add_test(tc, test_vlines_two_contexts);
    tcase_add_test(tc, test_vlines_configure_again);
    tcase_add_test(tc, test_vlines_hook_cost);
    suite_add_tcase(s, tc);
    return s;
}
