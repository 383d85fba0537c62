/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_timebase.c - the lower-envelope fit (exact lines, jitter with a known offset and
 * skew, outliers, two, one and no points), the map it gives, and --offset's parser. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "model/timebase.h"
#include "suites.h"

/* A deterministic generator (xorshift64), the runs alike on every machine. */
static uint64_t rnd_state;

static uint64_t rnd(void)
{
    rnd_state ^= rnd_state << 13;
    rnd_state ^= rnd_state >> 7;
    rnd_state ^= rnd_state << 17;
    return rnd_state;
}

/* |a - b| <= tol */
static int near(double a, double b, double tol)
{
    return a - b <= tol && b - a <= tol;
}

START_TEST(test_timebase_exact_line)
{
    struct timebase_pt p[50];
    struct timebase_fit f;

    for (int i = 0; i < 50; i++) { /* y = 1000 + 1.0001 x, given out of order */
        int64_t x = (int64_t)((i * 37) % 50) * 1000000;

        p[i] = (struct timebase_pt){x, 1000 + x + x / 10000};
    }
    ck_assert_int_eq(timebase_fit(p, 50, &f), 0);
    ck_assert_uint_eq(f.n, 50);
    ck_assert(near(f.slope, 1.0001, 1e-12));
    ck_assert(near((double)f.y0 + f.slope * (double)(0 - f.x0), 1000, 1));
    ck_assert(f.max <= 1 && f.median <= 1);
}
END_TEST

/* A link whose latency is 100 us plus up to 5 ms of jitter (exponential-ish: most frames
 * fast, a few very late), clocks 30 ppm apart and 7 s apart: the line found is the true one
 * shifted by the fastest latency, within a few us over the whole 10 s. */
START_TEST(test_timebase_jitter_recovered)
{
    enum { N = 2000 };
    static struct timebase_pt p[N];
    const double skew = 1.00003;
    const int64_t off = 7000000000, lat = 100000;
    struct timebase_fit f;

    rnd_state = 88172645463325252u;
    for (int i = 0; i < N; i++) {
        int64_t x = (int64_t)i * 5000000; /* a frame every 5 ms */
        uint64_t r = rnd();
        int64_t jit = (int64_t)(r % 1000) * (int64_t)(r >> 60); /* 0 to 15 ms, mostly small */

        p[i] = (struct timebase_pt){x, off + (int64_t)((double)x * skew) + lat + jit};
    }
    ck_assert_int_eq(timebase_fit(p, N, &f), 0);
    ck_assert(near(f.slope, skew, 2e-9));
    for (int64_t x = 0; x <= (int64_t)N * 5000000; x += 1000000000) {
        double y = (double)f.y0 + f.slope * (double)(x - f.x0);
        double truth = (double)off + (double)x * skew + (double)lat;

        ck_assert_msg(near(y, truth, 5000), "x %lld: %.0f against %.0f", (long long)x, y, truth);
        ck_assert(y <= truth + 1);
    }
    ck_assert(f.median > 0 && f.median < 5000000);
    ck_assert(f.max >= f.median && f.max <= 15000000 + 10);
}
END_TEST

/* Outliers late by seconds (a frame that waited in a buffer) move nothing. */
START_TEST(test_timebase_outliers)
{
    struct timebase_pt p[100];
    struct timebase_fit f;

    for (int i = 0; i < 100; i++) {
        int64_t x = (int64_t)i * 1000000;

        p[i] = (struct timebase_pt){x, x + 500 + (i % 10 == 3 ? 3000000000 : (i % 3) * 50)};
    }
    ck_assert_int_eq(timebase_fit(p, 100, &f), 0);
    ck_assert(near(f.slope, 1, 1e-9));
    ck_assert(near((double)f.y0 - (double)f.x0 * f.slope, 500, 1));
    ck_assert(near(f.max, 3000000000.0, 200));
    ck_assert(near(f.median, 50, 1));
}
END_TEST

START_TEST(test_timebase_two_points)
{
    struct timebase_pt p[2] = {{2000, 10000}, {1000, 8000}};
    struct timebase_fit f;

    ck_assert_int_eq(timebase_fit(p, 2, &f), 0);
    ck_assert(near(f.slope, 2, 1e-12));
    ck_assert(near((double)f.y0 + f.slope * (double)(1500 - f.x0), 9000, 1e-6));
    ck_assert(f.max == 0 && f.median == 0);
}
END_TEST

START_TEST(test_timebase_one_point)
{
    struct timebase_pt p[3] = {{5000, 9000}, {5000, 9500}, {5000, 12000}}; /* one x */
    struct timebase_fit f;
    struct timebase tb = {.hz = 1000000000u};

    ck_assert_int_eq(timebase_fit(p, 1, &f), 0);
    ck_assert(f.slope == 1 && f.x0 == 5000 && f.y0 == 9000);
    ck_assert_int_eq(timebase_fit(p, 3, &f), 0); /* the lowest of one x */
    ck_assert(f.slope == 1 && f.x0 == 5000 && f.y0 == 9000);
    ck_assert(near(f.median, 500, 1e-9) && near(f.max, 3000, 1e-9));
    timebase_set_fit(&tb, &f);
    ck_assert_int_eq(timebase_ns(&tb, 6000), 10000);
}
END_TEST

START_TEST(test_timebase_no_points)
{
    struct timebase_pt p[1];
    struct timebase_fit f;

    ck_assert_int_eq(timebase_fit(p, 0, &f), -1);
}
END_TEST

/* A Linux ring's pairs: a 3 GHz TSC read against CLOCK_MONOTONIC, the rate off by 1e-4. */
START_TEST(test_timebase_pairs)
{
    struct timebase tb = {.hz = 3000300000u};
    uint64_t ticks[2] = {3000000000000u, 3030000000000u}; /* 10 s of a true 3 GHz */
    int64_t ns[2] = {50000000000, 60000000000};

    ck_assert_int_eq(timebase_set_pairs(&tb, ticks, ns, 2), 0);
    ck_assert(near((double)timebase_ns(&tb, 3015000000000u), 55000000000.0, 2));
    ck_assert_int_eq(timebase_set_pairs(&tb, ticks, ns, 1), 0); /* one: the rate as said */
    ck_assert_int_eq(timebase_ns(&tb, ticks[0]), ns[0]);
    tb.offset_ns = -20;
    ck_assert_int_eq(timebase_ns(&tb, ticks[0]), ns[0] - 20);
    ns[1] = 40000000000; /* the monotonic clock went back: no line */
    ck_assert_int_eq(timebase_set_pairs(&tb, ticks, ns, 2), -1);
    ck_assert_int_eq(timebase_set_pairs(&tb, ticks, ns, 0), -1);
    ck_assert_int_eq(timebase_own_ns(0, 1234), 1234);
    ck_assert_int_eq(timebase_own_ns(25000000u, 25000000u * 3u + 1u), 3000000040);
}
END_TEST

START_TEST(test_timebase_offset_parse)
{
    static const char *const bad[] = {"", "5", "ms", "1.5 ms", " 1ms", "1msx", "nanms", "1e30s",
                                      "--1ms", "1m", "0x10us"};
    int64_t ns;

    ck_assert_int_eq(timebase_parse_offset("-1.5ms", &ns), 0);
    ck_assert_int_eq(ns, -1500000);
    ck_assert_int_eq(timebase_parse_offset("250us", &ns), 0);
    ck_assert_int_eq(ns, 250000);
    ck_assert_int_eq(timebase_parse_offset("+2s", &ns), 0);
    ck_assert_int_eq(ns, 2000000000);
    ck_assert_int_eq(timebase_parse_offset("7ns", &ns), 0);
    ck_assert_int_eq(ns, 7);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(timebase_parse_offset(bad[i], &ns) < 0, "%s", bad[i]);
}
END_TEST

Suite *timebase_suite(void)
{
    Suite *s = suite_create("timebase");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_timebase_exact_line);
    tcase_add_test(tc, test_timebase_jitter_recovered);
    tcase_add_test(tc, test_timebase_outliers);
    tcase_add_test(tc, test_timebase_two_points);
    tcase_add_test(tc, test_timebase_one_point);
    tcase_add_test(tc, test_timebase_no_points);
    tcase_add_test(tc, test_timebase_pairs);
    tcase_add_test(tc, test_timebase_offset_parse);
    suite_add_tcase(s, tc);
    return s;
}
