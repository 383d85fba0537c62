/* SPDX-License-Identifier: MIT */
/* fib_work.h - the hook-cost workload of every benchmark: a recursive fib(n), every call
 * instrumented, and how many calls it makes. Each program that times it includes it once, so
 * that it is built (instrumented) with it: bench/fib.c and bench/fib_mt.c on the host,
 * bench/cortex-m/fib.c and bench/riscv/fib.c (through fib_fw.h) on a firmware. */
#ifndef FIB_WORK_H
#define FIB_WORK_H

/* noinline: the compiler may not fold recursion levels into one, which would drop events. */
__attribute__((noinline)) long fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

/* The calls fib(n) makes, each one enter and one exit event: calls(n) = 2 * F(n + 1) - 1,
 * computed from the closed form, not counted, so that counting costs nothing. */
__attribute__((no_instrument_function)) static long fib_calls(int n)
{
    long a = 0, b = 1; /* F(0), F(1) */

    for (int i = 0; i < n + 1; i++) {
        long t = a + b;
        a = b;
        b = t;
    }
    return 2 * a - 1; /* a = F(n + 1) */
}

#endif
