/* SPDX-License-Identifier: MIT */
/* fib.c - the hook-cost workload: a recursive fib(n), every call instrumented.
 *
 * Built with -finstrument-functions and linked with each hook variant in turn. main is
 * instrumented too, so the runtime under test sets itself up on main's entry, before the clock
 * starts; only fib() is timed. Prints the calls fib() made and the events they produced
 * (each call is one enter and one exit), computed from the closed form, not counted, so that
 * counting costs nothing: calls(n) = 2 * F(n + 1) - 1.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOINSTR __attribute__((no_instrument_function))

#include "fib_work.h"

NOINSTR static long long now_ns(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv)
{
    volatile int n = argc > 1 ? atoi(argv[1]) : 34; /* volatile: no constant folding */
    long long t0, t1;
    long r;

    t0 = now_ns();
    r = fib(n);
    t1 = now_ns();
    printf("fib(%d)=%ld calls=%ld events=%ld ns=%lld\n", n, r, fib_calls(n), 2 * fib_calls(n),
           t1 - t0);
    return 0;
}
