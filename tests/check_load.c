/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_load.c - opening a dump (host/load.c, host/src.c): a header that claims 2^36 records
 * costs what the file really holds (a sparse file's holes are refused, a short file's missing
 * slots are skipped at once); a named pipe is refused without waiting for a writer, as the dump
 * and as DUMP.maps. */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "crc32.h"
#include "cyg_format.h"
#include "source/load.h"
#include "ringgen.h"
#include "suites.h"
#include "testdir.h"

static void setup(void)
{
    testdir_make("load");
}

static void teardown(void)
{
    testdir_remove();
}

static void put_le(uint8_t *p, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++, v >>= 8)
        p[i] = (uint8_t)v;
}

/* A file holding a valid control block (64-bit, overwrite mode) that claims 2^cap_log2
 * records and as many written, then size bytes in all (holes after the block). */
static const char *claim(const char *name, unsigned cap_log2, uint64_t size)
{
    struct ringgen g;
    const char *path = testdir_path(name);
    int fd;

    rg_init(&g, 8, 4, CYG_F_OVERWRITE);
    rg_seal(&g, 0, CYG_S_RUNNING);
    g.buf[CYG_OFF_CAP_LOG2] = (uint8_t)cap_log2;
    put_le(g.buf + CYG_OFF_CHECK, crc32_update(0, g.buf, CYG_OFF_CHECK), 4);
    put_le(g.buf + CYG_OFF_HEAD, (uint64_t)1 << cap_log2, 8);
    fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, g.buf, CYG_HDR_BYTES), CYG_HDR_BYTES);
    ck_assert_int_eq(ftruncate(fd, (off_t)size), 0);
    close(fd);
    rg_free(&g);
    return path;
}

static double now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* 2^36 records of 16 bytes: a terabyte of holes, which took a pass 40 minutes to read. */
START_TEST(test_load_sparse_ring_refused)
{
    const char *path = claim("sparse", 36, CYG_HDR_BYTES + ((uint64_t)16 << 36));
    char err[512];
    struct load l;
    double t0 = now();

    ck_assert_int_eq(load_open(&l, NULL, path, 0, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "holes"), "%s", err);
    ck_assert_msg(now() - t0 < 2, "took %.1f s", now() - t0);
}
END_TEST

/* The same header over a file that stops after it: opened, and a pass skips the 2^36 slots the
 * file does not have in one step, counting them missing. */
START_TEST(test_load_short_ring_decoded_as_far_as_the_file_goes)
{
    const char *path = claim("short", 36, CYG_HDR_BYTES);
    struct source_stats st;
    char err[512];
    struct load l;
    struct ev e;
    double t0 = now();

    ck_assert_msg(load_open(&l, NULL, path, 0, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(source_rewind(l.source), 0);
    ck_assert_int_eq(source_next(l.source, &e, NULL, 0), 0);
    source_stats(l.source, &st);
    ck_assert_uint_eq(st.dec.truncated, (uint64_t)1 << 36);
    load_close(&l);
    ck_assert_msg(now() - t0 < 2, "took %.1f s", now() - t0);
}
END_TEST

/* Holes only where no pass reads (a ring the runtime reserved, barely written) are fine. */
START_TEST(test_load_holes_past_head_are_fine)
{
    const char *path = claim("reserved", 30, CYG_HDR_BYTES + ((uint64_t)16 << 30));
    static const uint8_t zeros[64];
    char err[512];
    struct load l;
    int fd = open(path, O_WRONLY);

    /* head: 4 records, written (zeros: never-written slots, but data, not holes) */
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(pwrite(fd, "\4\0\0\0\0\0\0\0", 8, CYG_OFF_HEAD), 8);
    ck_assert_int_eq(pwrite(fd, zeros, sizeof zeros, CYG_HDR_BYTES), 64);
    close(fd);
    ck_assert_msg(load_open(&l, NULL, path, 0, err, sizeof err) == 0, "%s", err);
    load_close(&l);
}
END_TEST

/* Opening a named pipe for reading waits for a writer: never for a dump. */
START_TEST(test_load_fifo_refused_at_once)
{
    char err[512];
    struct load l;

    ck_assert_int_eq(mkfifo(testdir_path("fifo"), 0600), 0);
    ck_assert_int_eq(load_open(&l, NULL, testdir_path("fifo"), 0, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "a named pipe, not a file"), "%s", err);
}
END_TEST

/* DUMP.maps a named pipe: the dump opens, map_err says why there is no map. */
START_TEST(test_load_map_fifo_is_a_warning)
{
    const char *path = claim("ring", 4, CYG_HDR_BYTES + 16 * 16);
    char maps[160], err[512];
    struct load l;

    snprintf(maps, sizeof maps, "%s.maps", path);
    ck_assert_int_eq(mkfifo(maps, 0600), 0);
    ck_assert_msg(load_open(&l, NULL, path, 0, err, sizeof err) == 0, "%s", err);
    ck_assert_ptr_null(l.map);
    ck_assert_msg(strstr(l.map_err, "ring.maps: a named pipe"), "%s", l.map_err);
    load_close(&l);
}
END_TEST

Suite *load_suite(void)
{
    Suite *s = suite_create("load");
    TCase *tc = tcase_create("core");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_load_sparse_ring_refused);
    tcase_add_test(tc, test_load_short_ring_decoded_as_far_as_the_file_goes);
    tcase_add_test(tc, test_load_holes_past_head_are_fine);
    tcase_add_test(tc, test_load_fifo_refused_at_once);
    tcase_add_test(tc, test_load_map_fifo_is_a_warning);
    suite_add_tcase(s, tc);
    return s;
}
