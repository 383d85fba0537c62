/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_modmap.c - the map of loaded objects (host/modmap.c): its text format line by line,
 * and names through it against a real ELF (tests/fixtures' sym_x86_64 standing in for a
 * shared library placed elsewhere in the process). */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cyg_format.h"
#include "symbols/modmap.h"
#include "suites.h"
#include "symbols/sym.h"

static struct modmap *parse(const char *text, char *err, size_t len)
{
    return modmap_parse(text, strlen(text), err, len);
}

START_TEST(test_modmap_parses_lines)
{
    static const char text[] =
        "cygtrace-maps 1\n"
        "process 41 40 fork /tmp/t.out\n"
        "object 5000 6000 5000 - /bin/prog\n"
        "object 7f0000001000 7f0000003000 7f0000000000 a1b2c3 /usr/lib/lib with space.so\n"
        "future-kind 1 2 3\n"
        "child 42 41 exec /tmp/t.out.42\n"
        "child 43 41 fork /tmp/t.out.43\n";
    char err[128] = "";
    struct modmap *m = parse(text, err, sizeof err);
    const struct modmap_object *o;
    const struct modmap_process *p;

    ck_assert_msg(m != NULL, "%s", err);
    ck_assert_uint_eq(modmap_count(m), 2);
    o = modmap_object(m, 1);
    ck_assert_uint_eq(o->start, 0x7f0000001000ull);
    ck_assert_uint_eq(o->end, 0x7f0000003000ull);
    ck_assert_uint_eq(o->bias, 0x7f0000000000ull);
    ck_assert_uint_eq(o->build_id_len, 3);
    ck_assert_uint_eq(o->build_id[2], 0xc3);
    ck_assert_str_eq(o->path, "/usr/lib/lib with space.so");
    ck_assert_str_eq(o->base, "lib with space.so");
    ck_assert_uint_eq(modmap_object(m, 0)->build_id_len, 0);
    p = modmap_process(m);
    ck_assert_uint_eq(p->pid, 41);
    ck_assert_uint_eq(p->ppid, 40);
    ck_assert_str_eq(p->how, "fork");
    ck_assert_str_eq(p->ring, "/tmp/t.out");
    ck_assert_uint_eq(modmap_children(m), 2);
    ck_assert_uint_eq(modmap_child(m, 0)->pid, 42);
    ck_assert_str_eq(modmap_child(m, 0)->how, "exec");
    ck_assert_str_eq(modmap_child(m, 1)->ring, "/tmp/t.out.43");
    modmap_close(m);
}
END_TEST

/* Paths with \xNN escapes (a newline in a file name stays on its line); a backslash that
 * starts no escape, as maps before the escapes have it, is itself. */
START_TEST(test_modmap_paths_unescaped)
{
    static const char text[] =
        "cygtrace-maps 1\n"
        "process 41 40 fork /tmp/t\\x0actxname 0 INJECTED.out\n"
        "object 5000 6000 5000 - /tmp/a\\x0athread 1 99/prog\n"
        "object 7000 8000 7000 - /tmp/back\\slash\\x5c\\x00\\xz.so\n"
        "child 42 41 fork /tmp/t\\x0a.out.42\n";
    char err[128] = "";
    struct modmap *m = parse(text, err, sizeof err);

    ck_assert_msg(m != NULL, "%s", err);
    ck_assert_uint_eq(modmap_count(m), 2);
    ck_assert_str_eq(modmap_object(m, 0)->path, "/tmp/a\nthread 1 99/prog");
    ck_assert_str_eq(modmap_object(m, 0)->base, "prog");
    ck_assert_str_eq(modmap_object(m, 1)->path, "/tmp/back\\slash\\\\x00\\xz.so");
    ck_assert_str_eq(modmap_process(m)->ring, "/tmp/t\nctxname 0 INJECTED.out");
    ck_assert_str_eq(modmap_child(m, 0)->ring, "/tmp/t\n.out.42");
    ck_assert_ptr_null(modmap_take_names(m));
    modmap_close(m);
}
END_TEST

START_TEST(test_modmap_first_process_has_no_parent)
{
    char err[128] = "";
    struct modmap *m = parse("cygtrace-maps 1\nprocess 7 1 start -\n", err, sizeof err);

    ck_assert_msg(m != NULL, "%s", err);
    ck_assert_str_eq(modmap_process(m)->how, "start");
    ck_assert_str_eq(modmap_process(m)->ring, "");
    ck_assert_uint_eq(modmap_count(m), 0);
    modmap_close(m);
}
END_TEST

/* Each a map with one thing wrong, and the line the message must name. */
static const struct {
    const char *text;
    const char *why;
} bad[] = {
    {"", "empty"},
    {"cygtrace-maps 2\n", "no 'cygtrace-maps 1' line"},
    {"CYGTRACE\x01\x00\x00\x00", "no 'cygtrace-maps 1' line"},
    {"cygtrace-maps 1\nobject 5000 4000 0 - /bin/x\n", "line 2:"},
    {"cygtrace-maps 1\nobject 5000 6000 0 -\n", "line 2:"},
    {"cygtrace-maps 1\nobject 5000 60g0 0 - /bin/x\n", "line 2:"},
    {"cygtrace-maps 1\nobject 5000 6000 0 abc /bin/x\n", "line 2:"},
    {"cygtrace-maps 1\nobject 5000 6000 0 zz /bin/x\n", "line 2:"},
    {"cygtrace-maps 1\nprocess 1 2 start -\nchild x 1 fork /t\n", "line 3:"},
    {"cygtrace-maps 1\nprocess 1 2\n", "line 2:"},
    {"cygtrace-maps 1\nthread 0 5\n", "line 2:"},
    {"cygtrace-maps 1\nthread 65536 5\n", "line 2:"},
    {"cygtrace-maps 1\nthread 2 5 fork\n", "line 2:"},
    {"cygtrace-maps 1\nthread 2\n", "line 2:"},
};

/* Thread lines: the OS id of each thread index, the latest line winning (indexes are reused),
 * a vfork child marked. */
START_TEST(test_modmap_thread_lines)
{
    char err[128] = "";
    struct modmap *m = parse("cygtrace-maps 1\nprocess 10 1 start -\nthread 1 10\n"
                             "thread 2 11\nthread 3 12 vfork\nthread 2 13\n",
                             err, sizeof err);
    int vfork = -1;

    ck_assert_msg(m != NULL, "%s", err);
    ck_assert_uint_eq(modmap_thread(m, 1, &vfork), 10);
    ck_assert_int_eq(vfork, 0);
    ck_assert_uint_eq(modmap_thread(m, 2, &vfork), 13);
    ck_assert_uint_eq(modmap_thread(m, 3, &vfork), 12);
    ck_assert_int_eq(vfork, 1);
    ck_assert_uint_eq(modmap_thread(m, 4, &vfork), 0);
    ck_assert_uint_eq(modmap_thread(m, 70000, &vfork), 0);
    ck_assert_uint_eq(modmap_thread(NULL, 1, &vfork), 0);
    modmap_close(m);
}
END_TEST

/* The ring's clock against CLOCK_MONOTONIC: the first and the last pair, 64 bits decimal;
 * a map without them has none, and a malformed one is refused as any bad line is. */
START_TEST(test_modmap_clock_lines)
{
    static const char *const bad[] = {"clock 12\n", "clock x 5\n", "clock 5 -1\n",
                                      "clock 5 9223372036854775808\n", "clock 1 2x\n"};
    char err[128] = "", text[128];
    struct modmap *m = parse("cygtrace-maps 1\nclock 18446744073709551615 7\nthread 1 10\n"
                             "clock 100 200\nclock 300 9223372036854775807\n",
                             err, sizeof err);
    uint64_t ticks[2];
    int64_t ns[2];

    ck_assert_msg(m != NULL, "%s", err);
    ck_assert_uint_eq(modmap_clock(m, ticks, ns), 2);
    ck_assert(ticks[0] == UINT64_MAX && ns[0] == 7);
    ck_assert(ticks[1] == 300 && ns[1] == INT64_MAX);
    modmap_close(m);
    m = parse("cygtrace-maps 1\nclock 5 6\n", err, sizeof err);
    ck_assert_uint_eq(modmap_clock(m, ticks, ns), 1);
    ck_assert(ticks[0] == 5 && ns[0] == 6);
    modmap_close(m);
    m = parse("cygtrace-maps 1\nthread 1 10\n", err, sizeof err);
    ck_assert_uint_eq(modmap_clock(m, ticks, ns), 0);
    ck_assert_uint_eq(modmap_clock(NULL, ticks, ns), 0);
    modmap_close(m);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(text, sizeof text, "cygtrace-maps 1\n%s", bad[i]);
        m = parse(text, err, sizeof err);
        ck_assert_msg(m == NULL, "%s", bad[i]);
        ck_assert_str_eq(err, "line 2: not a valid line of a map of loaded objects");
    }
}
END_TEST

START_TEST(test_modmap_rejects_bad_lines)
{
    char err[128] = "";
    struct modmap *m =
        modmap_parse(bad[_i].text, strlen(bad[_i].text) + (_i == 2 ? 4 : 0), err, sizeof err);

    ck_assert_msg(m == NULL, "case %d parsed", _i);
    ck_assert_msg(strstr(err, bad[_i].why), "case %d: '%s' lacks '%s'", _i, err, bad[_i].why);
}
END_TEST

/* ctxname and objname lines: names with spaces and escapes, a round trip through the writer. */
START_TEST(test_modmap_names_round_trip)
{
    static const char text[] =
        "cygtrace-maps 1\n"
        "ctxname 3 consumer\n"
        "ctxname 4 two words\\x5cx\n"
        "objname 20001234 1 jobs\n"
        "objname 20001300 2 \\x01sem\n"
        "ctxname 3 the consumer\n";
    char err[128] = "", *out = NULL;
    size_t len = 0;
    struct modmap *m = parse(text, err, sizeof err), *m2;
    struct names *n, *n2;
    unsigned t = 0;
    FILE *f;

    ck_assert_msg(m != NULL, "%s", err);
    n = modmap_take_names(m);
    ck_assert_ptr_nonnull(n);
    ck_assert_ptr_null(modmap_take_names(m));
    ck_assert_uint_eq(modmap_count(m), 0);
    ck_assert_str_eq(names_ctx(n, 3), "the consumer");
    ck_assert_str_eq(names_ctx(n, 4), "two words\\x");
    ck_assert_str_eq(names_obj(n, 0x20001234, &t), "jobs");
    ck_assert_uint_eq(t, CYG_OBJ_QUEUE);
    ck_assert_str_eq(names_obj(n, 0x20001300, &t), "?sem"); /* shown printable */
    ck_assert_uint_eq(t, CYG_OBJ_SEMAPHORE);
    f = open_memstream(&out, &len);
    ck_assert_int_eq(modmap_write_names(f, n), 0);
    fclose(f);
    ck_assert_str_eq(out, "cygtrace-maps 1\n"
                          "ctxname 3 the consumer\n"
                          "ctxname 4 two words\\x5cx\n"
                          "objname 20001234 1 jobs\n"
                          "objname 20001300 2 ?sem\n");
    m2 = parse(out, err, sizeof err);
    ck_assert_msg(m2 != NULL, "%s", err);
    n2 = modmap_take_names(m2);
    ck_assert_str_eq(names_ctx(n2, 4), "two words\\x");
    ck_assert_str_eq(names_obj(n2, 0x20001234, NULL), "jobs");
    free(out);
    names_free(n);
    names_free(n2);
    modmap_close(m);
    modmap_close(m2);
    /* a map of no names gives none */
    m = parse("cygtrace-maps 1\nprocess 41 40 fork -\n", err, sizeof err);
    ck_assert_ptr_null(modmap_take_names(m));
    modmap_close(m);
}
END_TEST

START_TEST(test_modmap_names_malformed)
{
    static const char *const bad[] = {
        "cygtrace-maps 1\nctxname 3\n",               /* no name */
        "cygtrace-maps 1\nctxname x consumer\n",      /* not a number */
        "cygtrace-maps 1\nctxname 99999999999 a\n",   /* too big */
        "cygtrace-maps 1\nctxname 3 bad\\x4\n",       /* a short escape */
        "cygtrace-maps 1\nctxname 3 bad\\n\n",        /* not an escape */
        "cygtrace-maps 1\nctxname 3 nul\\x00\n",      /* a NUL */
        "cygtrace-maps 1\nobjname 2000 1\n",          /* no name */
        "cygtrace-maps 1\nobjname 2000 16 q\n",       /* no such type */
        "cygtrace-maps 1\nobjname zz 1 q\n",
    };

    for (unsigned i = 0; i < sizeof bad / sizeof *bad; i++) {
        char err[128] = "";
        struct modmap *m = parse(bad[i], err, sizeof err);

        ck_assert_msg(m == NULL, "case %u parsed", i);
        ck_assert_msg(strstr(err, "line 2"), "case %u: '%s'", i, err);
    }
}
END_TEST

START_TEST(test_modmap_open_missing_is_no_map)
{
    char err[128] = "x";

    ck_assert_ptr_null(modmap_open("/nonexistent/cygtrace.out.maps", err, sizeof err));
    ck_assert_str_eq(err, "");
}
END_TEST

START_TEST(test_modmap_open_reads_file)
{
    char path[] = "/tmp/check_modmap_XXXXXX", err[128] = "";
    int fd = mkstemp(path);
    FILE *f;
    struct modmap *m;

    ck_assert_int_ge(fd, 0);
    f = fdopen(fd, "w");
    fputs("cygtrace-maps 1\nprocess 9 8 exec /r\n", f);
    for (int i = 0; i < 500; i++) /* more than one read's worth */
        fprintf(f, "object %x %x 0 - /lib/l%d.so\n", 0x10000 * (i + 1), 0x10000 * (i + 1) + 64, i);
    fclose(f);
    m = modmap_open(path, err, sizeof err);
    unlink(path);
    ck_assert_msg(m != NULL, "%s", err);
    ck_assert_uint_eq(modmap_count(m), 500);
    ck_assert_str_eq(modmap_object(m, 499)->base, "l499.so");
    modmap_close(m);
}
END_TEST

/* A named pipe (the open must not wait for a writer) and a file larger than any map: refused
 * with a reason, at once. */
START_TEST(test_modmap_open_refuses_pipes_and_huge_files)
{
    char dir[] = "/tmp/check_modmap_XXXXXX", path[64], err[160] = "";
    int fd;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/fifo.maps", dir);
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    ck_assert_ptr_null(modmap_open(path, err, sizeof err));
    ck_assert_msg(strstr(err, "named pipe"), "%s", err);
    unlink(path);
    ck_assert_ptr_null(modmap_open("/dev/zero", err, sizeof err));
    ck_assert_msg(strstr(err, "character device"), "%s", err);
    snprintf(path, sizeof path, "%s/huge.maps", dir);
    fd = open(path, O_CREAT | O_WRONLY, 0600);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, "cygtrace-maps 1\n", 16), 16);
    ck_assert_int_eq(ftruncate(fd, MODMAP_MAX_BYTES + 1), 0); /* sparse: no disk */
    close(fd);
    ck_assert_ptr_null(modmap_open(path, err, sizeof err));
    ck_assert_msg(strstr(err, "larger than"), "%s", err);
    unlink(path);
    rmdir(dir);
}
END_TEST

static void fixture(char *buf, size_t len)
{
    const char *dir = getenv("CYGTRACE_BUILD");

    snprintf(buf, len, "%s/tests/fixtures/sym_x86_64", dir && *dir ? dir : "build");
}

#define MAIN_BIAS 0x555555550000ull
#define LIB_BIAS 0x7f1234560000ull

/* The fixture as both the program (at MAIN_BIAS) and a library (at LIB_BIAS); build-id as
 * given ("-" for none). */
static struct modmap *two_objects(const char *path, const char *id)
{
    char text[2048], err[128] = "";
    struct modmap *m;

    snprintf(text, sizeof text,
             "cygtrace-maps 1\nprocess 5 4 start -\n"
             "object %llx %llx %llx - %s\n"
             "object %llx %llx %llx %s %s\n",
             MAIN_BIAS, MAIN_BIAS + 0x100000, MAIN_BIAS, path, LIB_BIAS, LIB_BIAS + 0x100000,
             LIB_BIAS, id, path);
    m = parse(text, err, sizeof err);
    ck_assert_msg(m != NULL, "%s", err);
    return m;
}

START_TEST(test_modmap_names_library_functions)
{
    char path[512], err[128] = "", id[80] = "-";
    struct sym_table *prog;
    struct modmap *m;
    const struct sym_info *s, *again;
    const uint8_t *bid;
    uint64_t fn, size;
    size_t n;

    fixture(path, sizeof path);
    prog = sym_open(path, err, sizeof err);
    ck_assert_msg(prog != NULL, "%s: %s (make sym-fixtures)", path, err);
    ck_assert_int_eq(sym_find(prog, "sym_static_fn", &fn, &size), 0);
    n = sym_build_id(prog, &bid);
    for (size_t i = 0; i < n; i++)
        sprintf(id + 2 * i, "%02x", bid[i]);
    m = two_objects(path, id);
    /* Inside the library: named with it, the start where the program's table would put it. */
    s = modmap_lookup(m, LIB_BIAS + fn + 1, MAIN_BIAS);
    ck_assert_ptr_nonnull(s);
    ck_assert_str_eq(s->name, "sym_x86_64:sym_static_fn");
    ck_assert_uint_eq(s->start, fn + LIB_BIAS - MAIN_BIAS);
    ck_assert_uint_eq(s->size, size);
    again = modmap_lookup(m, LIB_BIAS + fn, MAIN_BIAS);
    ck_assert_ptr_eq(s, again); /* one entry per function: the renderer keeps the pointer */
    /* The program itself is not the map's business; outside every object nothing. */
    ck_assert_ptr_null(modmap_lookup(m, MAIN_BIAS + fn, MAIN_BIAS));
    ck_assert_ptr_null(modmap_lookup(m, LIB_BIAS + 0x200000, MAIN_BIAS));
    /* Through the program's table, as render and the tree ask. */
    ck_assert_ptr_null(sym_lookup(prog, LIB_BIAS + fn - MAIN_BIAS));
    modmap_attach(m, prog, MAIN_BIAS);
    ck_assert_ptr_eq(sym_lookup(prog, LIB_BIAS + fn - MAIN_BIAS), s);
    ck_assert_str_eq(sym_lookup(prog, fn)->name, "sym_static_fn");
    sym_close(prog);
    modmap_close(m);
}
END_TEST

START_TEST(test_modmap_other_build_stays_unnamed)
{
    char path[512], err[128] = "";
    struct sym_table *prog;
    struct modmap *m;
    uint64_t fn, size;

    fixture(path, sizeof path);
    prog = sym_open(path, err, sizeof err);
    ck_assert_msg(prog != NULL, "%s: %s", path, err);
    ck_assert_int_eq(sym_find(prog, "sym_static_fn", &fn, &size), 0);
    m = two_objects(path, "00112233445566778899aabbccddeeff00112233");
    ck_assert_ptr_null(modmap_lookup(m, LIB_BIAS + fn, MAIN_BIAS));
    modmap_close(m);
    m = two_objects("/nonexistent/libgone.so", "-");
    ck_assert_ptr_null(modmap_lookup(m, LIB_BIAS + fn, MAIN_BIAS));
    modmap_close(m);
    sym_close(prog);
}
END_TEST

START_TEST(test_modmap_later_object_wins)
{
    char path[512], text[2048], err[128] = "";
    struct modmap *m;
    struct sym_table *t;
    uint64_t fn, size;
    const struct sym_info *s;

    fixture(path, sizeof path);
    t = sym_open(path, err, sizeof err);
    ck_assert_msg(t != NULL, "%s: %s", path, err);
    ck_assert_int_eq(sym_find(t, "sym_static_fn", &fn, &size), 0);
    sym_close(t);
    /* libgone.so was there first (dlclose'd); the fixture loaded over it later. */
    snprintf(text, sizeof text,
             "cygtrace-maps 1\nobject 1000 2000 0 - /bin/prog\n"
             "object %llx %llx %llx - /nonexistent/libgone.so\n"
             "object %llx %llx %llx - %s\n",
             LIB_BIAS, LIB_BIAS + 0x100000, LIB_BIAS, LIB_BIAS, LIB_BIAS + 0x100000, LIB_BIAS,
             path);
    m = parse(text, err, sizeof err);
    ck_assert_msg(m != NULL, "%s", err);
    s = modmap_lookup(m, LIB_BIAS + fn, 0);
    ck_assert_ptr_nonnull(s);
    ck_assert_str_eq(s->name, "sym_x86_64:sym_static_fn");
    ck_assert_uint_eq(s->start, LIB_BIAS + fn);
    modmap_close(m);
}
END_TEST

Suite *modmap_suite(void)
{
    Suite *s = suite_create("modmap");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_modmap_parses_lines);
    tcase_add_test(tc, test_modmap_clock_lines);
    tcase_add_test(tc, test_modmap_paths_unescaped);
    tcase_add_test(tc, test_modmap_first_process_has_no_parent);
    tcase_add_loop_test(tc, test_modmap_rejects_bad_lines, 0, (int)(sizeof bad / sizeof bad[0]));
    tcase_add_test(tc, test_modmap_thread_lines);
    tcase_add_test(tc, test_modmap_open_missing_is_no_map);
    tcase_add_test(tc, test_modmap_open_reads_file);
    tcase_add_test(tc, test_modmap_open_refuses_pipes_and_huge_files);
    tcase_add_test(tc, test_modmap_names_library_functions);
    tcase_add_test(tc, test_modmap_other_build_stays_unnamed);
    tcase_add_test(tc, test_modmap_later_object_wins);
    tcase_add_test(tc, test_modmap_names_round_trip);
    tcase_add_test(tc, test_modmap_names_malformed);
    suite_add_tcase(s, tc);
    return s;
}
