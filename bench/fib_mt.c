/* fib_mt.c - the two-thread hook-cost workload: fib(n) in two threads at once.
 *
 * Each thread's body is not instrumented, so the events per thread are exactly fib's:
 * 2 * calls(n) with calls(n) = 2 * F(n + 1) - 1. The time printed is the wall time from before
 * the first pthread_create to after the last join; main's entry (instrumented) sets the runtime
 * up before that.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOINSTR __attribute__((no_instrument_function))
#define THREADS 2

__attribute__((noinline)) long fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

NOINSTR static long fib_calls(int n)
{
    long a = 0, b = 1;

    for (int i = 0; i < n + 1; i++) {
        long t = a + b;
        a = b;
        b = t;
    }
    return 2 * a - 1;
}

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

int main(int argc, char **argv)
{
    volatile int n = argc > 1 ? atoi(argv[1]) : 32;
    pthread_t th[THREADS];
    long long t0, t1;
    void *r = NULL;

    t0 = now_ns();
    for (int i = 0; i < THREADS; i++)
        if (pthread_create(&th[i], NULL, thread_main, (void *)&n)) {
            perror("pthread_create");
            return 1;
        }
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], &r);
    t1 = now_ns();
    printf("fib(%d)=%ld threads=%d calls=%ld events=%ld ns=%lld\n", n, (long)r, THREADS,
           fib_calls(n), 2 * fib_calls(n), t1 - t0);
    return 0;
}
