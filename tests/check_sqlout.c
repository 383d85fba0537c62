/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_sqlout.c - the SQLite tables of sqlout.h read back through SQLite: the calls' times,
 * depths and parents, a caller entered before the trace, one that never shows up, marks and
 * faults with the call they came in, the time units, a second trace appended, and files that
 * are not cygtrace databases. */
#include <check.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/sqlout.h"
#include "suites.h"
#include "testdir.h"

/* Feeds the script to a tree into sink: "A+@t", "A-@t" (functions A = 0x10, B = 0x20, ...),
 * "M5=42@t" mark 5 of value 42, "F@t" a SIGSEGV at 0x99, "L@t" its LR record (0x88). */
static void feed(const struct tree_sink *sink, unsigned start_depth, const char *script)
{
    struct tree *t = tree_new(sink, start_depth, NULL, NULL);
    char tok[32];
    int off = 0, len;

    ck_assert_ptr_nonnull(sink);
    ck_assert_ptr_nonnull(t);
    while (sscanf(script + off, "%31s%n", tok, &len) == 1) {
        struct ev e = {0};
        unsigned long long time = 0;

        off += len;
        if (tok[0] == 'M') {
            unsigned id, v;

            sscanf(tok, "M%u=%u", &id, &v);
            e = (struct ev){.kind = EV_MARK, .data = id, .addr = v};
        } else if (tok[0] == 'F' || tok[0] == 'L') {
            e = (struct ev){.kind = tok[0] == 'F' ? EV_FAULT : EV_FAULT_LR,
                            .data = CYG_FAULT_SIGNAL + 11,
                            .addr = tok[0] == 'F' ? 0x99 : 0x88};
        } else {
            e.kind = tok[1] == '+' ? EV_ENTER : EV_EXIT;
            e.addr = (uint64_t)(tok[0] - 'A' + 1) * 16;
        }
        sscanf(strchr(tok, '@') + 1, "%llu", &time);
        e.time = time;
        ck_assert_int_eq(tree_feed(t, &e), 0);
    }
    tree_finish(t);
    tree_free(t);
}

/* Writes the script as a trace of the database at path (new_db: a fresh file); its id. */
static int64_t write_trace(const char *path, int new_db, uint64_t hz, int timestamps,
                           unsigned start_depth, const char *script)
{
    struct sqlout_opts o = {.hz = hz, .timestamps = timestamps, .word_bytes = 8, .dump = "t.out"};
    char err[256];
    struct sqlout *s = sqlout_open(path, new_db, &o, err, sizeof err);
    int64_t id;

    ck_assert_msg(s != NULL, "%s", err);
    feed(sqlout_sink(s, 1, 77, 0), start_depth, script);
    ck_assert_msg(sqlout_end(s, err, sizeof err) == 0, "%s", err);
    id = sqlout_trace(s);
    sqlout_free(s);
    return id;
}

/* The rows of sql as "a|b|c" lines (NULL as "-"), in a static buffer. */
static const char *rows(const char *path, const char *sql)
{
    static char out[4096];
    sqlite3 *db;
    sqlite3_stmt *st;
    size_t n = 0;

    out[0] = 0;
    ck_assert_int_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    ck_assert_msg(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK, "%s",
                  sqlite3_errmsg(db));
    while (sqlite3_step(st) == SQLITE_ROW) {
        for (int i = 0; i < sqlite3_column_count(st); i++) {
            const unsigned char *t = sqlite3_column_text(st, i);

            n += (size_t)snprintf(out + n, sizeof out - n, "%s%s", i ? "|" : "",
                                  t ? (const char *)t : "-");
        }
        n += (size_t)snprintf(out + n, sizeof out - n, "\n");
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return out;
}

#define CALLS                                                                                      \
    "SELECT call, depth, name, start, duration, self, parent, ended FROM calls "                   \
    "JOIN functions USING (trace, function) ORDER BY call"

static void setup(void)
{
    testdir_make("sqlout");
}

static void teardown(void)
{
    testdir_remove();
}

START_TEST(test_sqlout_calls)
{
    const char *db = testdir_path("a.db");

    ck_assert_int_eq(
        write_trace(db, 1, 1000000000, 1, 0, "A+@0 B+@10 B-@30 B+@40 C+@50 C-@55 B-@60 A-@100"), 1);
    ck_assert_str_eq(rows(db, CALLS), "1|0|0x10|0|100|60|-|returned\n"
                                      "2|1|0x20|10|20|20|1|returned\n"
                                      "3|1|0x20|40|20|15|1|returned\n"
                                      "4|2|0x30|50|5|5|3|returned\n");
    ck_assert_str_eq(rows(db, "SELECT trace, time_unit, clock_hz, calls, contexts, functions, "
                              "dump FROM traces"),
                     "1|ns|1000000000|4|1|3|t.out\n");
    ck_assert_str_eq(rows(db, "SELECT context, kind, os_tid, label FROM contexts"),
                     "1|thread|77|thread 1 (tid 77)\n");
    ck_assert_str_eq(rows(db, "PRAGMA application_id"), "1129924436\n");
}
END_TEST

/* A caller entered before the trace gets its row when it exits, under the id its children
 * named; one that never exits in the trace has no row, and its children no parent. */
START_TEST(test_sqlout_before_trace)
{
    const char *db = testdir_path("b.db");

    write_trace(db, 1, 1000000000, 1, 2, "C+@10 C-@20 B-@30 D+@40 D-@50");
    ck_assert_str_eq(rows(db, CALLS), "1|2|0x30|10|10|10|2|returned\n"
                                      "2|1|0x20|10|20|10|-|entered-before\n"
                                      "4|1|0x40|40|10|10|-|returned\n");
}
END_TEST

START_TEST(test_sqlout_marks_faults)
{
    const char *db = testdir_path("c.db");

    write_trace(db, 1, 1000000000, 1, 0, "A+@0 M5=42@10 B+@20 F@30 L@30");
    ck_assert_str_eq(rows(db, CALLS), "1|0|0x10|0|20|20|-|no-exit\n"
                                      "2|1|0x20|20|0|0|1|no-exit\n");
    ck_assert_str_eq(rows(db, "SELECT context, time, call, id, class, value FROM marks"),
                     "1|10|1|5|0|42\n");
    ck_assert_str_eq(rows(db, "SELECT context, time, call, kind, code, pc, lr, "
                              "text LIKE '*** signal 11 (SIGSEGV)%' FROM faults"),
                     "1|30|2|fault|267|153|136|1\n");
}
END_TEST

/* Ticks when the clock rate is unknown; NULL times without timestamps. */
START_TEST(test_sqlout_units)
{
    const char *db = testdir_path("d.db"), *db2 = testdir_path("e.db");

    write_trace(db, 1, 0, 1, 0, "A+@5 A-@9");
    ck_assert_str_eq(rows(db, "SELECT time_unit, clock_hz FROM traces"), "ticks|-\n");
    ck_assert_str_eq(rows(db, "SELECT start, duration, self FROM calls"), "5|4|4\n");
    write_trace(db2, 1, 1000000, 1, 0, "A+@5 A-@9");
    ck_assert_str_eq(rows(db2, "SELECT start, duration, self FROM calls"), "5000|4000|4000\n");
    write_trace(db2, 0, 0, 0, 0, "A+@0 A-@0");
    ck_assert_str_eq(rows(db2, "SELECT trace, time_unit, start, duration FROM traces "
                               "JOIN calls USING (trace) ORDER BY trace"),
                     "1|ns|5000|4000\n2|-|-|-\n");
}
END_TEST

/* A second trace: the next id, call ids after the first trace's, the first left as it was;
 * functions numbered per trace (in the order their first call ended). */
START_TEST(test_sqlout_append)
{
    const char *db = testdir_path("f.db");
    char err[128];

    write_trace(db, 1, 1000000000, 1, 0, "A+@0 B+@1 B-@2 A-@3");
    ck_assert_int_eq(sqlout_is_ours(db, err, sizeof err), 1);
    ck_assert_int_eq(write_trace(db, 0, 1000000000, 1, 0, "C+@0 C-@7"), 2);
    ck_assert_str_eq(rows(db, "SELECT trace, call, function, duration, parent FROM calls "
                              "ORDER BY call"),
                     "1|1|2|3|-\n1|2|1|1|1\n2|3|1|7|-\n");
    ck_assert_str_eq(rows(db, "SELECT trace, function, name FROM functions "
                              "ORDER BY trace, function"),
                     "1|1|0x20\n1|2|0x10\n2|1|0x30\n");
}
END_TEST

START_TEST(test_sqlout_not_ours)
{
    const char *txt = testdir_path("x.txt"), *other = testdir_path("o.db");
    struct sqlout_opts o = {.word_bytes = 8};
    FILE *f = fopen(txt, "w");
    char err[256];
    sqlite3 *db;

    ck_assert_ptr_nonnull(f);
    fputs("not a database at all, but long enough to have a header's worth of bytes: "
          "0123456789012345678901234567890123456789\n",
          f);
    fclose(f);
    ck_assert_int_eq(sqlout_is_ours(txt, err, sizeof err), 0);
    ck_assert_msg(strstr(err, "not a cygtrace database"), "%s", err);
    ck_assert_int_eq(sqlite3_open(other, &db), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(db, "CREATE TABLE t(a)", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    ck_assert_int_eq(sqlout_is_ours(other, err, sizeof err), 0);
    ck_assert_msg(strstr(err, "another application"), "%s", err);
    /* and sqlout_open itself refuses to add to it */
    ck_assert_ptr_null(sqlout_open(other, 0, &o, err, sizeof err));
    ck_assert_msg(strstr(err, "not a cygtrace database"), "%s", err);
}
END_TEST

/* Two traces in one export (sqlout_next), on a common clock: the second's times shifted by
 * its offset (a negative start stays negative), a rate applied to durations, the clock and
 * offset said in traces; a trace on its own clock says 'own'. */
START_TEST(test_sqlout_next)
{
    const char *db = testdir_path("g.db");
    struct timebase tb1 = {.hz = 1000000000, .offset_ns = 0};
    struct timebase tb2 = {
        .hz = 1000000, .mapped = 1, .slope = 2.0, .x0 = 0, .y0 = 5000, .offset_ns = -10000};
    struct sqlout_opts o = {
        .hz = 1000000000, .timestamps = 1, .word_bytes = 8, .dump = "a.out", .tb = &tb1};
    char err[256];
    struct sqlout *s = sqlout_open(db, 1, &o, err, sizeof err);

    ck_assert_msg(s != NULL, "%s", err);
    feed(sqlout_sink(s, 1, 77, 0), 0, "A+@10 A-@30");
    o.hz = 1000000, o.dump = "b.out", o.tb = &tb2;
    ck_assert_msg(sqlout_next(s, &o, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(sqlout_trace(s), 2);
    feed(sqlout_sink(s, 1, 88, 0), 0, "B+@1 C+@2 C-@3 B-@4");
    ck_assert_msg(sqlout_end(s, err, sizeof err) == 0, "%s", err);
    sqlout_free(s);
    ck_assert_str_eq(rows(db, "SELECT trace, dump, time_unit, clock, offset, calls, contexts, "
                              "functions FROM traces"),
                     "1|a.out|ns|own|0|1|1|1\n2|b.out|ns|host-monotonic|-10000|2|1|2\n");
    /* b: 1 us -> 5000 + 2 * 1000 - 10000 = -3000 ns, 3 us long -> 6000 ns, C inside 2000 */
    ck_assert_str_eq(rows(db, "SELECT trace, call, name, start, duration, self, parent FROM calls "
                              "JOIN functions USING (trace, function) ORDER BY call"),
                     "1|1|0x10|10|20|20|-\n2|2|0x20|-3000|6000|4000|-\n"
                     "2|3|0x30|-1000|2000|2000|2\n");
}
END_TEST

Suite *sqlout_suite(void)
{
    Suite *s = suite_create("sqlout");
    TCase *tc = tcase_create("core");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_sqlout_calls);
    tcase_add_test(tc, test_sqlout_before_trace);
    tcase_add_test(tc, test_sqlout_marks_faults);
    tcase_add_test(tc, test_sqlout_units);
    tcase_add_test(tc, test_sqlout_append);
    tcase_add_test(tc, test_sqlout_not_ours);
    tcase_add_test(tc, test_sqlout_next);
    suite_add_tcase(s, tc);
    return s;
}
