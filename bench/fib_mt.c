/* SPDX-License-Identifier: MIT */
/* fib_mt.c - the multi-threaded hook-cost workload: fib(n) in THREADS threads at once.
 *
 *   fib_mt [N [THREADS]]      N defaults to 32, THREADS to 2 (1 to 64)
 *
 * Each thread's body is not instrumented, so the events per thread are exactly fib's:
 * 2 * calls(n) with calls(n) = 2 * F(n + 1) - 1; the line printed gives them per thread
 * (events=), which is what bench/run.sh and bench/threads.sh divide by. The time printed is the
 * wall time from before the first pthread_create to after the last join; main's entry
 * (instrumented) sets the runtime up before that. With more threads than cores the threads
 * take turns, so the wall time grows with THREADS / cores even at no cost per event.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOINSTR __attribute__((no_instrument_function))
#define DEFAULT_THREADS 2
#define MAX_THREADS 64

#include "fib_work.h"

NOINSTR static long long now_ns(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

NOINSTR static void *thread_main(void *arg)
{
    int n = *(volatile int *)arg;

    return (void *)fib(n);
}

/* The thread count in S, or 0 when S is not a number from 1 to MAX_THREADS. */
NOINSTR static int threads_parse(const char *s)
{
    char *end;
    long v = strtol(s, &end, 10);

    return (end == s || *end || v < 1 || v > MAX_THREADS) ? 0 : (int)v;
}

int main(int argc, char **argv)
{
    volatile int n = argc > 1 ? atoi(argv[1]) : 32;
    int threads = argc > 2 ? threads_parse(argv[2]) : DEFAULT_THREADS;
    pthread_t th[MAX_THREADS];
    long long t0, t1;
    void *r = NULL;

    if (!threads) {
        fprintf(stderr, "fib_mt: %s: not a thread count from 1 to %d\n", argv[2], MAX_THREADS);
        return 2;
    }
    t0 = now_ns();
    for (int i = 0; i < threads; i++)
        if (pthread_create(&th[i], NULL, thread_main, (void *)&n)) {
            perror("pthread_create");
            return 1;
        }
    for (int i = 0; i < threads; i++)
        pthread_join(th[i], &r);
    t1 = now_ns();
    printf("fib(%d)=%ld threads=%d calls=%ld events=%ld ns=%lld\n", n, (long)r, threads,
           fib_calls(n), 2 * fib_calls(n), t1 - t0);
    return 0;
}
