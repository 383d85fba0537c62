/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_filter.c - the filter layer between the tree builder and a sink: --only, --hide,
 * --depth, --min-time (with its bounded hold), and the parsing of durations and ranges. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "model/filter.h"
#include "suites.h"
#include "model/tree.h"

/* A sink that writes what it gets as text: "+A0" enter A at depth 0, "-A0" exit, "!0" a
 * special, "$n" finish with n frames. Functions are addresses 0x10 (A), 0x20 (B), ... */
static char log_buf[65536];

static void put(const char *s)
{
    if (strlen(log_buf) + strlen(s) + 2 < sizeof log_buf) {
        if (log_buf[0])
            strcat(log_buf, " ");
        strcat(log_buf, s);
    }
}

static void s_enter(void *arg, const struct tree_frame *f, unsigned d)
{
    char b[32];

    (void)arg;
    snprintf(b, sizeof b, "+%c%u", (char)('A' + f->addr / 16 - 1), d);
    put(b);
}

static void s_exit(void *arg, const struct tree_frame *f, unsigned d, uint64_t t,
                   enum tree_exit_how how)
{
    char b[32];

    (void)arg, (void)t, (void)how;
    snprintf(b, sizeof b, "-%c%u", (char)('A' + f->addr / 16 - 1), d);
    put(b);
}

static void s_special(void *arg, const struct ev *e, unsigned d)
{
    char b[32];

    (void)arg, (void)e;
    snprintf(b, sizeof b, "!%u", d);
    put(b);
}

static void s_finish(void *arg, const struct tree_frame *s, unsigned n)
{
    char b[32];

    (void)arg, (void)s;
    snprintf(b, sizeof b, "$%u", n);
    put(b);
}

static const struct tree_sink rec = {NULL, s_enter, s_exit, s_special, s_finish, NULL};

/* Runs "A+ B+ B- A-"-like scripts: each token is a function letter, + or -, and @time. */
static uint64_t run(const struct filter_opts *o, const char *script)
{
    struct filter *f = filter_new(&rec, o);
    struct tree *t;
    char tok[32];
    int off = 0, len;
    uint64_t forced;

    ck_assert_ptr_nonnull(f);
    t = tree_new(filter_sink(f), 0, NULL, NULL);
    ck_assert_ptr_nonnull(t);
    log_buf[0] = 0;
    while (sscanf(script + off, "%31s%n", tok, &len) == 1) {
        struct ev e = {0};
        unsigned long long time = 0;

        off += len;
        if (tok[0] == 'M') {
            e.kind = EV_MARK;
        } else {
            e.kind = tok[1] == '+' ? EV_ENTER : EV_EXIT;
            e.addr = (uint64_t)(tok[0] - 'A' + 1) * 16;
        }
        if (strchr(tok, '@'))
            sscanf(strchr(tok, '@') + 1, "%llu", &time);
        e.time = time;
        ck_assert_int_eq(tree_feed(t, &e), 0);
    }
    tree_finish(t);
    forced = filter_forced(f);
    ck_assert_int_eq(filter_failed(f), 0);
    tree_free(t);
    filter_free(f);
    return forced;
}

START_TEST(test_filter_only_keeps_subtrees_from_depth_0)
{
    struct filter_opts o = {.have_only = 1, .only = 0x20};

    run(&o, "A+ B+ C+ C- B- D+ B+ M B- D- A-");
    ck_assert_str_eq(log_buf, "+B0 +C1 -C1 -B0 +B0 !1 -B0 $0");
}
END_TEST

START_TEST(test_filter_only_nested_stays_in_outer)
{
    struct filter_opts o = {.have_only = 1, .only = 0x20};

    run(&o, "B+ C+ B+ B- C- B- C+ C-");
    ck_assert_str_eq(log_buf, "+B0 +C1 +B2 -B2 -C1 -B0 $0");
}
END_TEST

START_TEST(test_filter_hide_drops_subtree)
{
    struct filter_opts o = {.have_hide = 1, .hide = 0x20};

    run(&o, "A+ B+ C+ C- B- C+ M C- A-");
    ck_assert_str_eq(log_buf, "+A0 +C1 !2 -C1 -A0 $0");
}
END_TEST

START_TEST(test_filter_depth_limits_levels)
{
    struct filter_opts o = {.max_depth = 2};

    run(&o, "A+ B+ C+ C- B- A- A+");
    ck_assert_str_eq(log_buf, "+A0 +B1 -B1 -A0 +A0 $1");
}
END_TEST

START_TEST(test_filter_min_time_drops_short_calls)
{
    struct filter_opts o = {.min = 10};

    /* A is long; B (5) is short with its child C; D (10) is long enough; E is long, but its
     * child F (2) is short. */
    run(&o, "A+@0 B+@1 C+@2 C-@3 B-@6 D+@7 D-@17 E+@20 F+@21 F-@23 E-@40 A-@50");
    ck_assert_str_eq(log_buf, "+A0 +D1 -D1 +E1 -E1 -A0 $0");
}
END_TEST

START_TEST(test_filter_min_time_decides_before_the_exit)
{
    struct filter_opts o = {.min = 10};

    /* A is known to be long at the mark at 15, long before its exit: what came before is
     * passed on then, in order; an open call at the end is kept. */
    run(&o, "A+@0 B+@1 B-@2 C+@3 C-@14 M@15 D+@16");
    ck_assert_str_eq(log_buf, "+A0 +C1 -C1 !1 +D1 $2");
}
END_TEST

START_TEST(test_filter_min_time_hold_is_bounded)
{
    struct filter_opts o = {.min = 1000000};
    static char script[(FILTER_HOLD + 16) * 16];
    size_t n = 0;
    uint64_t forced;

    /* A call with more events inside than the hold keeps (marks, here) is kept, and
     * counted; its short children are still left out. */
    n += (size_t)sprintf(script + n, "A+@0 ");
    for (unsigned i = 0; i < FILTER_HOLD + 4; i++)
        n += (size_t)sprintf(script + n, "M@%u ", i + 1);
    sprintf(script + n, "B+@%u B-@%u A-@%u", FILTER_HOLD + 5, FILTER_HOLD + 6, FILTER_HOLD + 7);
    forced = run(&o, script);
    ck_assert_uint_eq(forced, 1);
    ck_assert_uint_eq(strlen(log_buf), strlen("+A0 -A0 $0") + (FILTER_HOLD + 4) * 3);
    ck_assert_str_eq(log_buf + strlen(log_buf) - strlen(" !1 -A0 $0"), " !1 -A0 $0");
    ck_assert_ptr_null(strchr(log_buf, 'B'));
}
END_TEST

START_TEST(test_filter_durations_parse)
{
    struct filter_dur d;
    uint64_t t;

    ck_assert_int_eq(filter_parse_duration("10us", &d), 0);
    ck_assert_int_eq(d.unit, 1);
    ck_assert_uint_eq(d.value, 10000);
    ck_assert_int_eq(filter_ticks(&d, 1000000000, &t), 0);
    ck_assert_uint_eq(t, 10000);
    ck_assert_int_eq(filter_ticks(&d, 25000000, &t), 0);
    ck_assert_uint_eq(t, 250);
    ck_assert_int_eq(filter_ticks(&d, 0, &t), -1);
    ck_assert_int_eq(filter_parse_duration("1.5ms", &d), 0);
    ck_assert_uint_eq(d.value, 1500000);
    ck_assert_int_eq(filter_parse_duration("2s", &d), 0);
    ck_assert_uint_eq(d.value, 2000000000);
    ck_assert_int_eq(filter_parse_duration("1234", &d), 0);
    ck_assert_int_eq(d.unit, 0);
    ck_assert_int_eq(filter_ticks(&d, 0, &t), 0);
    ck_assert_uint_eq(t, 1234);
    ck_assert_int_eq(filter_parse_duration("12ticks", &d), 0);
    ck_assert_uint_eq(d.value, 12);
    ck_assert_int_eq(filter_parse_duration("1.5", &d), -1);
    ck_assert_int_eq(filter_parse_duration("10xs", &d), -1);
    ck_assert_int_eq(filter_parse_duration("-3us", &d), -1);
    ck_assert_int_eq(filter_parse_duration("", &d), -1);
}
END_TEST

START_TEST(test_filter_range_keeps_events_between)
{
    struct filter_time t;
    struct filter_dur a, b;
    struct ev e = {.kind = EV_ENTER};
    int kept = 0;

    ck_assert_int_eq(filter_parse_range("x..3", &t, &a, &b), -1);
    ck_assert_int_eq(filter_parse_range("10", &t, &a, &b), -1);
    ck_assert_int_eq(filter_parse_range("..", &t, &a, &b), 0);
    ck_assert_int_eq(t.have_from || t.have_to, 0);
    ck_assert_int_eq(filter_parse_range("10..20", &t, &a, &b), 0);
    ck_assert_int_eq(filter_ticks(&a, 0, &t.from), 0);
    ck_assert_int_eq(filter_ticks(&b, 0, &t.to), 0);
    for (uint64_t i = 0; i < 40; i++) {
        e.time = 1000 + i;
        kept += filter_time_keep(&t, &e);
    }
    ck_assert_int_eq(kept, 11); /* 1010..1020 */
    e.kind = EV_THREAD;
    ck_assert_int_eq(filter_time_keep(&t, &e), 1);
    ck_assert_int_eq(filter_parse_range("5us..", &t, &a, &b), 0);
    ck_assert_int_eq(t.have_from && !t.have_to, 1);
}
END_TEST

Suite *filter_suite(void)
{
    Suite *s = suite_create("filter");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_filter_only_keeps_subtrees_from_depth_0);
    tcase_add_test(tc, test_filter_only_nested_stays_in_outer);
    tcase_add_test(tc, test_filter_hide_drops_subtree);
    tcase_add_test(tc, test_filter_depth_limits_levels);
    tcase_add_test(tc, test_filter_min_time_drops_short_calls);
    tcase_add_test(tc, test_filter_min_time_decides_before_the_exit);
    tcase_add_test(tc, test_filter_min_time_hold_is_bounded);
    tcase_add_test(tc, test_filter_durations_parse);
    tcase_add_test(tc, test_filter_range_keeps_events_between);
    suite_add_tcase(s, tc);
    return s;
}
