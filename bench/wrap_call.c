/* SPDX-License-Identifier: MIT */
/* wrap_call.c - the wrapped-call benchmark on Linux (bench/wrap.sh): calls bench_inc(i) and then
 * bench_len("temperature") (wrap_work.c) N times each from a loop that records nothing itself,
 * and prints the nanoseconds of each loop:
 *     "inc calls=N ns=T" and "len calls=N ns=T"
 * Linked with wrap_work.c built plainly, with -finstrument-functions and the runtime, or wrapped
 * by `cygtrace wrap` (bench/wrap.mk). The loop is not instrumented. The runtime sets its ring
 * up at the first call it records: one call before the clock starts. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOINSTR __attribute__((no_instrument_function))

int bench_inc(int x);
int bench_len(const char *s);

static volatile int result; /* keeps the calls' results alive */

NOINSTR static long long now_ns(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 10000000;
    /* volatile: the string's address is loaded on every call, as the M3 benchmark does. */
    static const char *volatile text = "temperature";
    long long t0, t1, t2;
    int acc = 0;

    /* The first recorded call sets the ring up (a file, mapped): not inside the timing. */
    acc += bench_inc(0);
    t0 = now_ns();
    for (long i = 0; i < n; i++)
        acc += bench_inc((int)i);
    t1 = now_ns();
    for (long i = 0; i < n; i++)
        acc += bench_len(text);
    t2 = now_ns();
    result = acc;
    printf("inc calls=%ld ns=%lld\nlen calls=%ld ns=%lld\n", n, t1 - t0, n, t2 - t1);
    return 0;
}
