/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_outfile.c - outputs that never destroy (host/outfile.c): an output that is an input is
 * found through symbolic and hard links; a file is replaced only when the new one is complete,
 * keeps its mode, and a link stays a link; what is not a regular file is written directly. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output/outfile.h"
#include "suites.h"
#include "testdir.h"


static void put(const char *name, const char *text)
{
    FILE *f = fopen(testdir_path(name), "w");

    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static char *get(const char *name)
{
    static char buf[256];
    FILE *f = fopen(testdir_path(name), "r");
    size_t n;

    if (!f)
        return NULL;
    n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

/* How many files the test directory holds, hidden ones (a temporary file) too. */
static int entries(void)
{
    char cmd[160];
    FILE *p;
    int n = 0;

    snprintf(cmd, sizeof cmd, "ls -A %s | wc -l", testdir());
    p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(fscanf(p, "%d", &n), 1);
    pclose(p);
    return n;
}

static void setup(void)
{
    testdir_make("outfile");
}

static void teardown(void)
{
    testdir_remove();
}

START_TEST(test_outfile_same_through_links)
{
    const char *in[2];

    put("dump", "x");
    put("other", "y");
    in[0] = strdup(testdir_path("elf"));
    in[1] = strdup(testdir_path("dump"));
    ck_assert_int_eq(symlink("dump", testdir_path("soft")), 0);
    ck_assert_int_eq(link(testdir_path("dump"), testdir_path("hard")), 0);
    ck_assert_int_eq(outfile_same(testdir_path("dump"), in, 2), 1);
    ck_assert_int_eq(outfile_same(testdir_path("soft"), in, 2), 1);
    ck_assert_int_eq(outfile_same(testdir_path("hard"), in, 2), 1);
    ck_assert_int_eq(outfile_same(testdir_path("other"), in, 2), -1);
    ck_assert_int_eq(outfile_same(testdir_path("new"), in, 2), -1); /* the ELF does not exist */
    free((void *)in[0]);
    free((void *)in[1]);
}
END_TEST

START_TEST(test_outfile_commit_replaces_when_complete)
{
    char err[256];
    struct outfile *o;

    put("out", "old");
    chmod(testdir_path("out"), 0640);
    o = outfile_open(testdir_path("out"), err, sizeof err);
    ck_assert_msg(o != NULL, "%s", err);
    fputs("new", outfile_stream(o));
    fflush(outfile_stream(o));
    ck_assert_str_eq(get("out"), "old"); /* until the commit */
    ck_assert_int_eq(entries(), 2);      /* and the temporary file beside it */
    ck_assert_int_eq(outfile_commit(o, err, sizeof err), 0);
    ck_assert_str_eq(get("out"), "new");
    ck_assert_int_eq(entries(), 1);
    {
        struct stat st;

        ck_assert_int_eq(stat(testdir_path("out"), &st), 0);
        ck_assert_uint_eq(st.st_mode & 07777, 0640);
    }
}
END_TEST

START_TEST(test_outfile_abort_keeps_old)
{
    char err[256];
    struct outfile *o;

    put("out", "old");
    o = outfile_open(testdir_path("out"), err, sizeof err);
    ck_assert_msg(o != NULL, "%s", err);
    fputs("half", outfile_stream(o));
    outfile_abort(o);
    ck_assert_str_eq(get("out"), "old");
    ck_assert_int_eq(entries(), 1);
    o = outfile_open(testdir_path("fresh"), err, sizeof err);
    ck_assert_msg(o != NULL, "%s", err);
    outfile_abort(o);
    ck_assert_ptr_null(get("fresh")); /* nothing where nothing was */
}
END_TEST

START_TEST(test_outfile_symlink_stays_link)
{
    char err[256];
    struct outfile *o;
    struct stat st;

    put("target", "old");
    ck_assert_int_eq(symlink("target", testdir_path("link")), 0);
    o = outfile_open(testdir_path("link"), err, sizeof err);
    ck_assert_msg(o != NULL, "%s", err);
    fputs("new", outfile_stream(o));
    ck_assert_int_eq(outfile_commit(o, err, sizeof err), 0);
    ck_assert_int_eq(lstat(testdir_path("link"), &st), 0);
    ck_assert(S_ISLNK(st.st_mode));
    ck_assert_str_eq(get("target"), "new");
}
END_TEST

START_TEST(test_outfile_device_written_directly)
{
    char err[256];
    struct outfile *o = outfile_open("/dev/null", err, sizeof err);

    ck_assert_msg(o != NULL, "%s", err);
    fputs("gone", outfile_stream(o));
    ck_assert_int_eq(outfile_commit(o, err, sizeof err), 0);
    ck_assert_ptr_null(outfile_open(testdir(), err, sizeof err)); /* a directory */
    ck_assert_msg(strstr(err, "directory"), "%s", err);
}
END_TEST

Suite *outfile_suite(void)
{
    Suite *s = suite_create("outfile");
    TCase *tc = tcase_create("core");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_outfile_same_through_links);
    tcase_add_test(tc, test_outfile_commit_replaces_when_complete);
    tcase_add_test(tc, test_outfile_abort_keeps_old);
    tcase_add_test(tc, test_outfile_symlink_stays_link);
    tcase_add_test(tc, test_outfile_device_written_directly);
    suite_add_tcase(s, tc);
    return s;
}
