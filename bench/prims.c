/* SPDX-License-Identifier: MIT */
/* prims.c - what the hook's fast path is made of, each alone in a loop: the clock read, the
 * reservation (an atomic add), and the reservation when two threads share the counter as they
 * share the ring's head. Explains the hook-cost table; prints one line per primitive.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define LOOPS 20000000L

struct line {
    _Alignas(64) volatile uint64_t v;
};

#define RING_RECS (1u << 20) /* 16 MB of 16-byte records, as the default ring */

static struct line shared, own[2];
static pthread_barrier_t start;
static uint64_t *ring;

static long long now_ns(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static double time_rdtsc(void)
{
    long long t0 = now_ns();
    uint64_t sink = 0;

    for (long i = 0; i < LOOPS; i++)
        sink += __builtin_ia32_rdtsc();
    __asm__ volatile("" ::"r"(sink));
    return (double)(now_ns() - t0) / LOOPS;
}

static double time_xadd(volatile uint64_t *p)
{
    long long t0 = now_ns();

    for (long i = 0; i < LOOPS; i++)
        __atomic_fetch_add(p, 1, __ATOMIC_RELAXED);
    return (double)(now_ns() - t0) / LOOPS;
}

/* The hook's core without the clock: reserve a slot, store a 16-byte record into it. */
static void reserve_store(volatile uint64_t *p)
{
    for (long i = 0; i < LOOPS; i++) {
        uint64_t seq = __atomic_fetch_add(p, 1, __ATOMIC_RELAXED);
        uint64_t *r = ring + 2 * (seq & (RING_RECS - 1));

        r[0] = (uint64_t)i;
        __atomic_signal_fence(__ATOMIC_RELEASE);
        *(volatile uint64_t *)&r[1] = seq;
    }
}

static double time_reserve_store(volatile uint64_t *p)
{
    long long t0 = now_ns();

    reserve_store(p);
    return (double)(now_ns() - t0) / LOOPS;
}

static int with_store;

static void *xadd_thread(void *arg)
{
    volatile uint64_t *p = arg;

    pthread_barrier_wait(&start);
    if (with_store) {
        reserve_store(p);
        return NULL;
    }
    for (long i = 0; i < LOOPS; i++)
        __atomic_fetch_add(p, 1, __ATOMIC_RELAXED);
    return NULL;
}

/* Two threads at once, each on its counter (p[0], p[1]); returns wall ns per op per thread. */
static double time_xadd2(volatile uint64_t *p0, volatile uint64_t *p1)
{
    pthread_t th[2];
    long long t0;

    pthread_barrier_init(&start, NULL, 3);
    if (pthread_create(&th[0], NULL, xadd_thread, (void *)p0) ||
        pthread_create(&th[1], NULL, xadd_thread, (void *)p1)) {
        perror("pthread_create");
        exit(1);
    }
    pthread_barrier_wait(&start);
    t0 = now_ns();
    pthread_join(th[0], NULL);
    pthread_join(th[1], NULL);
    pthread_barrier_destroy(&start);
    return (double)(now_ns() - t0) / LOOPS;
}

int main(void)
{
    ring = calloc(RING_RECS, 16);
    if (!ring) {
        perror("calloc");
        return 1;
    }
    printf("rdtsc %.2f\n", time_rdtsc());
    printf("xadd %.2f\n", time_xadd(&own[0].v));
    printf("xadd_2threads_own_lines %.2f\n", time_xadd2(&own[0].v, &own[1].v));
    printf("xadd_2threads_shared %.2f\n", time_xadd2(&shared.v, &shared.v));
    shared.v = 0;
    printf("reserve_store %.2f\n", time_reserve_store(&shared.v));
    with_store = 1;
    printf("reserve_store_2threads_shared %.2f\n", time_xadd2(&shared.v, &shared.v));
    free(ring);
    return 0;
}
