/* SPDX-License-Identifier: MIT */
/* diffgen.c - a workload for `cygtrace diff` that does not repeat itself: CALLS calls (argv[1],
 * default 5000000: twice as many events) through 16 functions that call each other in an order
 * a pseudo-random generator (seed argv[2], default 1) decides, up to 8 deep, so that few
 * subtrees are alike. With argv[3] = N > 0, every Nth top-level call first calls extra(), a
 * leaf that takes nothing from the generator: the "other build" to compare, whose calls are
 * otherwise the same. Built with -finstrument-functions (bench/bench.mk's rule for it is
 * the one of fib: `make -f bench/bench.mk O=build build/bench/diffgen_cygtrace`). */
#include <stdio.h>
#include <stdlib.h>

#define NOINSTR __attribute__((no_instrument_function))

static unsigned long long state;
static long left, every, tops;
volatile long sink;

NOINSTR static unsigned next(void)
{
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)(state >> 33);
}

typedef void fn_t(int depth);
static fn_t *const table[16];

void extra(void)
{
    sink++;
}

/* Calls 0 to 3 children. */
static void children(int depth)
{
    int n = depth < 8 ? (int)(next() % 4) : 0;

    for (int i = 0; i < n && left > 0; i++) {
        left--;
        table[next() % 16](depth + 1);
    }
}

#define FN(k)                                                                                      \
    void f##k(int depth)                                                                           \
    {                                                                                              \
        sink += k;                                                                                 \
        children(depth);                                                                            \
    }
FN(0) FN(1) FN(2) FN(3) FN(4) FN(5) FN(6) FN(7)
FN(8) FN(9) FN(10) FN(11) FN(12) FN(13) FN(14) FN(15)

static fn_t *const table[16] = {f0, f1, f2,  f3,  f4,  f5,  f6,  f7,
                                f8, f9, f10, f11, f12, f13, f14, f15};

void top(void)
{
    if (every && ++tops % every == 0)
        extra();
    children(0);
}

int main(int argc, char **argv)
{
    left = argc > 1 ? atol(argv[1]) : 5000000;
    state = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
    every = argc > 3 ? atol(argv[3]) : 0;
    while (left > 0) {
        left--;
        top();
    }
    printf("done\n");
    return 0;
}
