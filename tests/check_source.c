/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_source.c - the source interface over its file-backed implementations: what a ring
 * says, its events pass after pass, the reasons a file is refused with. (The live stream over
 * a wire: check_stream.c, next to its vectors; a followed ring: e2e live_follow.) */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cyg_format.h"
#include "ringgen.h"
#include "source/source.h"
#include "testdir.h"

/* Two threads' calls: 4 events of thread 0, 2 of thread 1. */
static void two_threads(struct ringgen *g)
{
    rg_two_threads(g, CYG_F_OVERWRITE);
    rg_seal(g, 0, CYG_S_RUNNING);
}

static unsigned drain(struct source *s, struct ev *ev, unsigned max)
{
    char err[256];
    unsigned n = 0;
    struct ev e;
    int rc;

    while ((rc = source_next(s, &e, err, sizeof err)) == 1)
        if (n < max)
            ev[n++] = e;
    ck_assert_int_eq(rc, 0);
    return n;
}

START_TEST(test_source_ring_describes_and_rewinds)
{
    struct ringgen g;
    struct source *s;
    struct source_stats st;
    struct ev a[8], b[8];
    char err[256];

    two_threads(&g);
    s = source_open_src(src_open_mem("ring", g.buf, g.size, 0), err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    ck_assert_str_eq(source_name(s), "ring");
    ck_assert_int_eq(source_is_stream(s), 0);
    ck_assert_ptr_nonnull(source_describe(s));
    ck_assert_uint_eq(source_describe(s)->word_bytes, 8);
    ck_assert_uint_eq(source_describe(s)->head, 6);
    ck_assert_uint_eq(drain(s, a, 8), 6);
    source_stats(s, &st);
    ck_assert_uint_eq(st.dec.decoded, 6);
    /* a new pass: the same events again, the counters from zero */
    ck_assert_int_eq(source_rewind(s), 0);
    ck_assert_uint_eq(drain(s, b, 8), 6);
    ck_assert_mem_eq(a, b, sizeof a[0] * 6);
    /* a pass of one context */
    ck_assert_int_eq(source_rewind(s), 0);
    source_only(s, 1, NULL, NULL);
    ck_assert_uint_eq(drain(s, b, 8), 2);
    ck_assert_uint_eq(b[0].ctx, 1);
    source_close(s);
    rg_free(&g);
}
END_TEST

/* The fast count of a ring's pass; a stream has none (1: go event by event). */
START_TEST(test_source_ring_counts)
{
    struct ringgen g;
    struct source *s;
    struct dec_counts c = {0};
    char err[256];

    two_threads(&g);
    s = source_open_src(src_open_mem("ring", g.buf, g.size, 0), err, sizeof err);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(source_count(s, &c), 0);
    ck_assert_uint_eq(c.n, 2);
    ck_assert_uint_eq(c.ctx[0].events, 4);
    ck_assert_uint_eq(c.ctx[1].events, 2);
    dec_ctx_free(c.ctx, c.n, &c.ctx_ix);
    dec_index_free(&c.index);
    source_close(s);
    rg_free(&g);
}
END_TEST

/* Bytes that are neither a ring nor a stream: the ring's reason, naming the input. */
START_TEST(test_source_refuses_with_reason)
{
    static uint8_t junk[4096];
    char err[256];

    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (uint8_t)(i * 7 + 3);
    ck_assert_ptr_null(source_open_src(src_open_mem("junk", junk, sizeof junk, 0), err,
                                       sizeof err));
    ck_assert_str_eq(err, "junk: not a cygtrace dump (no CYGTRACE control block)");
    ck_assert_ptr_null(source_open_src(src_open_mem("empty", junk, 0, 0), err, sizeof err));
    ck_assert_str_eq(err, "empty: empty file");
    ck_assert_ptr_null(source_open_file("/nonexistent/cygtrace.trace", err, sizeof err));
    ck_assert_str_eq(err, "/nonexistent/cygtrace.trace: No such file or directory");
}
END_TEST

/* A ring file written to the test directory; its path. */
static const char *ring_file(struct ringgen *g)
{
    const char *path = testdir_path("ring.trace");
    FILE *f = fopen(path, "wb");

    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(g->buf, 1, g->size, f), g->size);
    ck_assert_int_eq(fclose(f), 0);
    return path;
}

/* A file cut short between two reads (a program that truncates or replaces a dump under a
 * reader): the read that finds it short fails instead of giving fewer bytes (which the
 * decoder would take for a dump that always ended there), and src_check says what changed;
 * so does a size that changed after the last read. A file left alone, and memory: no change. */
START_TEST(test_source_file_cut_while_read)
{
    struct ringgen g;
    struct src *s;
    uint8_t buf[64];
    char err[512];
    const char *path;

    testdir_make("source");
    two_threads(&g);
    path = ring_file(&g);
    ck_assert_ptr_nonnull(s = src_open_file(path, err, sizeof err));
    ck_assert_int_eq(src_read(s, 0, buf, sizeof buf), sizeof buf);
    ck_assert_int_eq(src_check(s, err, sizeof err), 0);
    ck_assert_int_eq(truncate(path, 100), 0);
    ck_assert_int_eq(src_read(s, 64, buf, sizeof buf), -1); /* bytes 100.. are gone */
    ck_assert_int_eq(src_check(s, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "shrank from") && strstr(err, " to 100 bytes"), "%s", err);
    ck_assert_uint_eq(src_size(s), g.size); /* what every pass reads, as opened */
    /* written again to its old size: still not what was read before */
    ck_assert_int_eq(truncate(path, (off_t)g.size), 0);
    ck_assert_int_eq(src_check(s, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "ended at byte 100"), "%s", err);
    src_close(s);

    /* cut after the last read: the size at the end differs from the size at open */
    path = ring_file(&g);
    ck_assert_ptr_nonnull(s = src_open_file(path, err, sizeof err));
    ck_assert_int_eq(src_read(s, 0, buf, sizeof buf), sizeof buf);
    ck_assert_int_eq(truncate(path, 10), 0);
    ck_assert_int_eq(src_check(s, err, sizeof err), -1);
    src_close(s);

    /* through the source: a pass that meets the cut fails, and says why with the file's name */
    {
        struct source *so;
        struct ev e;
        int rc;

        path = ring_file(&g);
        ck_assert_ptr_nonnull(so = source_open_file(path, err, sizeof err));
        ck_assert_int_eq(source_check(so, err, sizeof err), 0);
        ck_assert_int_eq(truncate(path, CYG_HDR_BYTES + 8), 0);
        ck_assert_int_eq(source_rewind(so), 0);
        while ((rc = source_next(so, &e, err, sizeof err)) == 1)
            ;
        ck_assert_int_eq(rc, -1);
        ck_assert_int_eq(source_check(so, err, sizeof err), -1);
        ck_assert_msg(!strncmp(err, path, strlen(path)) && strstr(err, "shrank"), "%s", err);
        source_close(so);
    }

    ck_assert_ptr_nonnull(s = src_open_mem("mem", g.buf, g.size, 0));
    ck_assert_int_eq(src_check(s, err, sizeof err), 0);
    src_close(s);
    rg_free(&g);
    testdir_remove();
}
END_TEST

Suite *source_suite(void)
{
    Suite *s = suite_create("source");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_source_ring_describes_and_rewinds);
    tcase_add_test(tc, test_source_ring_counts);
    tcase_add_test(tc, test_source_refuses_with_reason);
    tcase_add_test(tc, test_source_file_cut_while_read);
    suite_add_tcase(s, tc);
    return s;
}
