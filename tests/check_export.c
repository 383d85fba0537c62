/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_export.c - the export writers against fnstat's numbers (the same calls, counted the
 * same way) and the Chrome JSON's begin/end balance, on traces with the tree's repairs. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/export.h"
#include "model/fnstat.h"
#include "symbols/names.h"
#include "suites.h"
#include "model/taskstat.h"
#include "model/tree.h"

/* Feeds the script ("A+@t", "A-@t", functions A=0x10, B=0x20, ...; "A0=7" value 7 of argument
 * 0 of the innermost open call of A, "Ar=-1" its return value) to a tree into sink. */
static void feed(const struct tree_sink *sink, unsigned start_depth, const char *script)
{
    struct tree *t = tree_new(sink, start_depth, NULL, NULL);
    char tok[32];
    int off = 0, len;

    ck_assert_ptr_nonnull(t);
    while (sscanf(script + off, "%31s%n", tok, &len) == 1) {
        struct ev e = {.kind = tok[1] == '+' ? EV_ENTER : EV_EXIT};
        unsigned long long time = 0;

        off += len;
        e.addr = (uint64_t)(tok[0] - 'A' + 1) * 16;
        if (tok[2] == '=') {
            unsigned idx = tok[1] == 'r' ? CYG_VAL_RET : (unsigned)(tok[1] - '0');

            e = (struct ev){.kind = EV_VALUE,
                            .addr = (uint64_t)strtoll(tok + 3, NULL, 10),
                            .data = idx | CYG_VAL_LAST | 8u << CYG_VAL_LEN_SHIFT |
                                    cyg_val_check(e.addr) << CYG_VAL_CHECK_SHIFT};
            ck_assert_int_eq(tree_feed(t, &e), 0);
            continue;
        }
        sscanf(strchr(tok, '@') + 1, "%llu", &time);
        e.time = time;
        ck_assert_int_eq(tree_feed(t, &e), 0);
    }
    tree_finish(t);
    tree_free(t);
}

static char *export_hz(enum export_format fmt, uint64_t hz, unsigned start_depth,
                       const char *script)
{
    struct export_opts o = {.format = fmt, .hz = hz, .pid = 7, .word_bytes = 8};
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    struct export *x = export_new(f, &o);
    char err[256];

    ck_assert_ptr_nonnull(x);
    feed(export_sink(x, 1, 0, 0), start_depth, script);
    ck_assert_int_eq(export_end(x, err, sizeof err), 0);
    export_free(x);
    fclose(f);
    return buf;
}

static char *export_of(enum export_format fmt, unsigned start_depth, const char *script)
{
    return export_hz(fmt, 1000000, start_depth, script);
}

static struct fnstat_row row_of(unsigned start_depth, const char *script, uint64_t addr)
{
    struct fnstat *s = fnstat_new(NULL, 0);
    const struct fnstat_row *rows;
    struct fnstat_row r = {0};
    size_t n;

    feed(fnstat_sink(s, 1), start_depth, script);
    rows = fnstat_rows(s, FNSTAT_BY_TOTAL, &n);
    for (size_t i = 0; i < n; i++)
        if (rows[i].addr == addr)
            r = rows[i];
    fnstat_free(s);
    return r;
}

/* Sum of the folded lines whose last frame is the function at addr ("0x10" without symbols). */
static uint64_t folded_self(const char *out, const char *name)
{
    uint64_t sum = 0;
    const char *line = out;

    while (line && *line) {
        const char *nl = strchr(line, '\n'), *sp, *semi;
        char l[256];

        ck_assert_ptr_nonnull(nl);
        ck_assert_uint_lt((size_t)(nl - line), sizeof l);
        memcpy(l, line, (size_t)(nl - line));
        l[nl - line] = 0;
        sp = strrchr(l, ' ');
        ck_assert_ptr_nonnull(sp);
        for (semi = sp; semi > l && semi[-1] != ';'; semi--)
            ;
        if ((size_t)(sp - semi) == strlen(name) && !strncmp(semi, name, strlen(name)))
            sum += strtoull(sp + 1, NULL, 10);
        line = nl + 1;
    }
    return sum;
}

/* A deep start (B's entry is before the trace), a call that never returns (D, left by a
 * longjmp to B) and calls still open at the end. */
static const char trace[] = "C+@10 C-@20 B-@25 A+@30 B+@31 D+@33 C+@34 C-@36 B-@40 "
                            "B+@41 C+@42 C-@50 B-@55 A-@60 A+@61 B+@62 C+@64";

START_TEST(test_export_folded_self_equals_fnstat)
{
    char *out = export_of(EXPORT_FOLDED, 1, trace);
    static const char *const names[] = {"0x10", "0x20", "0x30", "0x40"};

    for (unsigned i = 0; i < 4; i++)
        ck_assert_uint_eq(folded_self(out, names[i]), row_of(1, trace, 16 * (i + 1)).self);
    ck_assert_ptr_nonnull(strstr(out, "0x10;0x20;0x30 8\n")); /* 42..50 under A, B */
    free(out);
}
END_TEST

START_TEST(test_export_callgrind_inclusive_equals_total)
{
    static const char t[] = "A+@0 B+@1 C+@2 C-@5 C+@6 C-@10 B-@12 C+@13 C-@20 A-@30";
    char *out = export_of(EXPORT_CALLGRIND, 0, t);
    char *p;
    uint64_t self_a, incl_b, incl_c;

    /* A's inclusive cost is its self cost and its calls' costs: fnstat's total. */
    ck_assert_ptr_nonnull(strstr(out, "events: Ticks\n"));
    ck_assert_ptr_nonnull(p = strstr(out, "fn=0x10\n0 "));
    self_a = strtoull(p + 10, NULL, 10);
    ck_assert_ptr_nonnull(p = strstr(out, "cfn=0x20\ncalls=1 0\n0 "));
    incl_b = strtoull(p + 21, NULL, 10);
    ck_assert_ptr_nonnull(p = strstr(p, "cfn=0x30\ncalls=1 0\n0 "));
    incl_c = strtoull(p + 21, NULL, 10);
    ck_assert_uint_eq(self_a + incl_b + incl_c, row_of(0, t, 0x10).total);
    ck_assert_uint_eq(incl_b, row_of(0, t, 0x20).total);
    ck_assert_ptr_nonnull(strstr(out, "fn=0x20\n0 4\ncfn=0x30\ncalls=2 0\n0 7\n"));
    ck_assert_ptr_nonnull(strstr(out, "summary: 30\n"));
    free(out);
}
END_TEST

START_TEST(test_export_chrome_balanced)
{
    char *out = export_of(EXPORT_CHROME, 1, trace);
    int b = 0, e = 0, x = 0;

    for (char *p = out; (p = strstr(p, "\"ph\":\"")); p += 6) {
        b += p[6] == 'B';
        e += p[6] == 'E';
        x += p[6] == 'X';
    }
    ck_assert_int_eq(b, 10);
    ck_assert_int_eq(e, b); /* D abandoned, A B C open at the end: all closed */
    ck_assert_int_eq(x, 1); /* B, entered before the trace */
    ck_assert_ptr_nonnull(strstr(out, "\"ts\":10.000,\"dur\":15.000,\"name\":\"0x20\""));
    ck_assert_ptr_nonnull(strstr(out, "{\"ph\":\"E\",\"pid\":7,\"tid\":1,\"ts\":36.000,"
                                      "\"name\":\"0x40\"}"));
    ck_assert_str_eq(out + strlen(out) - 4, "\n]}\n");
    free(out);
}
END_TEST

/* A wrapped call's arguments in its begin event, its return value in its end event. */
START_TEST(test_export_chrome_values)
{
    char *out = export_of(EXPORT_CHROME, 0, "A+@1 B+@2 B0=2 B1=-3 Br=5 B-@3 A-@4");

    ck_assert_ptr_nonnull(strstr(out, "\"ts\":2.000,\"name\":\"0x20\","
                                      "\"args\":{\"arg0\":\"2\",\"arg1\":\"-3\"}}"));
    ck_assert_ptr_nonnull(
        strstr(out, "\"ts\":3.000,\"name\":\"0x20\",\"args\":{\"return\":\"5\"}}"));
    ck_assert_ptr_nonnull(strstr(out, "\"ts\":1.000,\"name\":\"0x10\"}"));
    free(out);
}
END_TEST

/* A slow clock: at 1 Hz a tick is a second, and the times of a big counter do not fit in 64
 * bits as nanoseconds (every ts came out 0.000); past 2^64 microseconds they still come out. */
START_TEST(test_export_chrome_slow_clock)
{
    char *out = export_hz(EXPORT_CHROME, 1, 0, "A+@5000000000000 A-@5000000000002");

    ck_assert_ptr_nonnull(strstr(out, "\"ts\":5000000000000000000.000,"));
    ck_assert_ptr_nonnull(strstr(out, "\"ts\":5000000000002000000.000,"));
    free(out);
    out = export_hz(EXPORT_CHROME, 1, 0, "A+@100000000000000 A-@100000000000001");
    ck_assert_ptr_nonnull(strstr(out, "\"ts\":100000000000000000000.000,"));
    free(out);
    out = export_hz(EXPORT_CHROME, 3, 0, "A+@1 A-@2");
    ck_assert_ptr_nonnull(strstr(out, "\"ts\":333333.333,"));
    ck_assert_ptr_nonnull(strstr(out, "\"ts\":666666.667,"));
    free(out);
}
END_TEST

/* Two inputs merged into one Chrome trace: each a process named after it, its times through
 * its own timebase (a line, an offset that puts it before 0), the JSON one document. */
START_TEST(test_export_chrome_merged)
{
    struct timebase tb1 = {.hz = 1000000, .mapped = 1, .slope = 2, .x0 = 0, .y0 = 5000000},
                    tb2 = {.hz = 1000, .offset_ns = -3000000};
    struct export_opts o = {.format = EXPORT_CHROME, .hz = 1000000, .pid = 7, .word_bytes = 8,
                            .tb = &tb1, .process = "fw.cyg"};
    char *buf = NULL, err[256];
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    struct export *x = export_new(f, &o);

    ck_assert_ptr_nonnull(x);
    feed(export_sink(x, 1, 0, 0), 0, "A+@10 A-@20");   /* 10 us, 20 us: 5.020 ms, 5.040 ms */
    o = (struct export_opts){.format = EXPORT_CHROME, .hz = 1000, .pid = 8, .word_bytes = 8,
                             .tb = &tb2, .process = "app.trace"};
    export_input(x, &o);
    feed(export_sink(x, 1, 0, 0), 1, "A-@2 B+@2 B-@4"); /* 2 ms, 4 ms: -1 ms, +1 ms */
    ck_assert_int_eq(export_end(x, err, sizeof err), 0);
    export_free(x);
    fclose(f);
    ck_assert_ptr_nonnull(strstr(buf, "{\"ph\":\"M\",\"pid\":7,\"tid\":0,\"name\":\"process_name\","
                                      "\"args\":{\"name\":\"fw.cyg\"}}"));
    ck_assert_ptr_nonnull(strstr(buf, "\"pid\":8,\"tid\":0,\"name\":\"process_name\","
                                      "\"args\":{\"name\":\"app.trace\"}}"));
    ck_assert_ptr_nonnull(strstr(buf, "\"ph\":\"B\",\"pid\":7,\"tid\":1,\"ts\":5020.000,"));
    ck_assert_ptr_nonnull(strstr(buf, "\"ph\":\"E\",\"pid\":7,\"tid\":1,\"ts\":5040.000,"));
    /* A entered before its trace: an X event from the first event, its duration 0 */
    ck_assert_ptr_nonnull(strstr(buf, "\"ph\":\"X\",\"pid\":8,\"tid\":1,\"ts\":-1000.000,"
                                      "\"dur\":0.000,"));
    ck_assert_ptr_nonnull(strstr(buf, "\"ph\":\"B\",\"pid\":8,\"tid\":1,\"ts\":-1000.000,"));
    ck_assert_ptr_nonnull(strstr(buf, "\"ph\":\"E\",\"pid\":8,\"tid\":1,\"ts\":1000.000,"));
    ck_assert_ptr_nonnull(strstr(buf, "\n]}\n"));
    ck_assert_ptr_null(strstr(buf + 1, "{\"displayTimeUnit\"")); /* one document */
    free(buf);
}
END_TEST

/* No call at all (a --time-range past the end): every format still writes its frame. */
START_TEST(test_export_empty)
{
    char *out = export_of(EXPORT_CALLGRIND, 0, "");

    ck_assert_ptr_nonnull(strstr(out, "summary: 0\n"));
    free(out);
    out = export_of(EXPORT_FOLDED, 0, "");
    ck_assert_str_eq(out, "");
    free(out);
    out = export_of(EXPORT_CHROME, 0, "");
    ck_assert_str_eq(out + strlen(out) - 4, "\n]}\n");
    free(out);
}
END_TEST

/* An RTOS trace's schedule: the tasks' tracks named, who ran when on a CPU track of its own,
 * the blocked intervals on the tasks' tracks (events as the decoder gives them: a switch's
 * CONTEXT carries the time of the TIME record before it). */
START_TEST(test_export_chrome_schedule)
{
    static const struct ev evs[] = {
        {.kind = EV_CONTEXT, .time = 10, .ctx = 2, .data = 2, .addr = 0x20002000},
        {.kind = EV_ENTER, .time = 12, .ctx = 2, .addr = 0x10},
        {.kind = EV_SCHED,
         .time = 15,
         .ctx = 2,
         .addr = 0x20003000,
         .data = CYG_SCHED_BLOCK | CYG_OBJ_QUEUE << CYG_SCHED_OBJ_SHIFT},
        {.kind = EV_CONTEXT, .time = 20, .ctx = 1, .data = 1, .addr = 0x20001000},
        {.kind = EV_CONTEXT, .time = 30, .ctx = 3, .data = 3, .addr = 0x1000},
        {.kind = EV_SCHED,
         .time = 32,
         .ctx = 3,
         .addr = 0x20002000,
         .data = CYG_SCHED_WAKE | 2u << CYG_SCHED_ID_SHIFT},
        {.kind = EV_CONTEXT, .time = 35, .ctx = 2, .data = 2, .addr = 0x20002000},
        {.kind = EV_SCHED,
         .time = 35,
         .ctx = 2,
         .addr = 0x1000,
         .data = CYG_SCHED_RESUME | 3u << CYG_SCHED_ID_SHIFT},
        {.kind = EV_EXIT, .time = 40, .ctx = 2, .addr = 0x10},
    };
    struct export_opts o = {
        .format = EXPORT_CHROME, .hz = 1000000, .pid = 7, .word_bytes = 4};
    struct names *nm = names_new();
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    struct export *x = export_new(f, &o);
    struct taskstat *s;
    char err[256];

    ck_assert_ptr_nonnull(x);
    ck_assert_ptr_nonnull(nm);
    ck_assert_int_eq(names_set_ctx(nm, 1, "prod"), 0);
    ck_assert_int_eq(names_set_ctx(nm, 2, "cons"), 0);
    ck_assert_int_eq(names_set_obj(nm, 0x20003000, CYG_OBJ_QUEUE, "jobs"), 0);
    export_names(x, nm);
    feed(export_sink(x, 2, 0, 0), 0, "A+@12 A-@40");
    ck_assert_ptr_nonnull(s = taskstat_new(export_taskstat_span, x));
    for (unsigned i = 0; i < sizeof evs / sizeof evs[0]; i++)
        ck_assert_int_eq(taskstat_feed(s, &evs[i]), 0);
    taskstat_end(s);
    taskstat_free(s);
    ck_assert_int_eq(export_end(x, err, sizeof err), 0);
    export_free(x);
    fclose(f);
    ck_assert_ptr_nonnull(strstr(out,
                                 "\n{\"ph\":\"M\",\"pid\":7,\"tid\":2,\"name\":\"thread_name\","
                                 "\"args\":{\"name\":\"context 2 \\\"cons\\\"\"}},"));
    ck_assert_ptr_nonnull(strstr(out, "\n{\"ph\":\"M\",\"pid\":7,\"tid\":16777216,"
                                      "\"name\":\"thread_name\",\"args\":{\"name\":\"CPU\"}},"));
    ck_assert_ptr_nonnull(strstr(out,
                                 "\n{\"ph\":\"M\",\"pid\":7,\"tid\":1,\"name\":\"thread_name\","
                                 "\"args\":{\"name\":\"context 1 \\\"prod\\\"\"}},"));
    ck_assert_ptr_nonnull(strstr(out,
                                 "\n{\"ph\":\"M\",\"pid\":7,\"tid\":3,\"name\":\"thread_name\","
                                 "\"args\":{\"name\":\"context 3\"}},"));
    ck_assert_ptr_nonnull(strstr(out, "\n{\"ph\":\"X\",\"pid\":7,\"tid\":16777216,\"ts\":10.000,"
                                      "\"dur\":10.000,\"name\":\"cons\"},"));
    ck_assert_ptr_nonnull(strstr(out, "\n{\"ph\":\"X\",\"pid\":7,\"tid\":16777216,\"ts\":20.000,"
                                      "\"dur\":10.000,\"name\":\"prod\"},"));
    ck_assert_ptr_nonnull(strstr(out, "\n{\"ph\":\"X\",\"pid\":7,\"tid\":16777216,\"ts\":30.000,"
                                      "\"dur\":5.000,\"name\":\"context 3\"},"));
    ck_assert_ptr_nonnull(strstr(out, "\n{\"ph\":\"X\",\"pid\":7,\"tid\":16777216,\"ts\":35.000,"
                                      "\"dur\":5.000,\"name\":\"cons\"}\n]}\n"));
    ck_assert_ptr_nonnull(strstr(out, "\n{\"ph\":\"X\",\"pid\":7,\"tid\":2,\"ts\":15.000,"
                                      "\"dur\":17.000,\"name\":\"blocked on queue \\\"jobs\\\"\","
                                      "\"args\":{\"woken by\":\"context 3\"}},"));
    ck_assert_ptr_nonnull(strstr(out, "\"tid\":2,\"ts\":12.000,\"name\":\"0x10\"}"));
    free(out);
    names_free(nm);
}
END_TEST

/* A trace without names: the tracks are called as they always were. */
START_TEST(test_export_chrome_unnamed_tracks)
{
    struct export_opts o = {
        .format = EXPORT_CHROME, .hz = 1000000, .pid = 7, .word_bytes = 4};
    struct names *nm = names_new();
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    struct export *x = export_new(f, &o);
    char err[256];

    ck_assert_ptr_nonnull(nm);
    export_names(x, nm);
    feed(export_sink(x, 5, 0, 0), 0, "A+@1 A-@2");
    ck_assert_int_eq(export_end(x, err, sizeof err), 0);
    export_free(x);
    fclose(f);
    ck_assert_str_eq(out,
                     "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n{\"ph\":\"M\",\"pid\":7,"
                     "\"tid\":5,\"name\":\"thread_name\",\"args\":{\"name\":\"context 5\"}},\n"
                     "{\"ph\":\"B\",\"pid\":7,\"tid\":5,\"ts\":1.000,\"name\":\"0x10\"},\n"
                     "{\"ph\":\"E\",\"pid\":7,\"tid\":5,\"ts\":2.000,\"name\":\"0x10\"}\n]}\n");
    free(out);
    names_free(nm);
}
END_TEST

Suite *export_suite(void)
{
    Suite *s = suite_create("export");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_export_folded_self_equals_fnstat);
    tcase_add_test(tc, test_export_callgrind_inclusive_equals_total);
    tcase_add_test(tc, test_export_chrome_balanced);
    tcase_add_test(tc, test_export_chrome_values);
    tcase_add_test(tc, test_export_chrome_slow_clock);
    tcase_add_test(tc, test_export_chrome_merged);
    tcase_add_test(tc, test_export_empty);
    tcase_add_test(tc, test_export_chrome_schedule);
    tcase_add_test(tc, test_export_chrome_unnamed_tracks);
    suite_add_tcase(s, tc);
    return s;
}
