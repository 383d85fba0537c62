/* SPDX-License-Identifier: MIT */
/* diffdemo.c - a program built twice, for `cygtrace diff` (docs/diff.md, tests/e2e/diff.sh):
 * build/examples/diffdemo, the plain build, and build/examples/diffdemo-b, built with
 * -DSLOWER (parse spins 40 ms instead of 1 ms: one function made slower), -DDETOUR (route's
 * third call takes detour, not direct: one call path changed) and -DEXTRA (the loop of step
 * runs once more: one extra iteration, which `cygtrace diff` must count as one difference). */
#include <time.h>

#ifndef SLOWER
#define PARSE_NS 1000000L
#else
#define PARSE_NS 40000000L
#endif
#ifndef EXTRA
#define STEPS 10
#else
#define STEPS 11
#endif

__attribute__((no_instrument_function)) static long now_ns(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000L + t.tv_nsec;
}

volatile long sink;

void step(int i)
{
    for (int k = 0; k < 1000; k++)
        sink += i * k;
}

void parse(void)
{
    long end = now_ns() + PARSE_NS;

    while (now_ns() < end)
        sink++;
}

void direct(int i)
{
    sink += i;
}

void detour(int i)
{
    sink -= i;
}

void route(int i)
{
#ifdef DETOUR
    if (i == 2) {
        detour(i);
        return;
    }
#endif
    direct(i);
}

int main(void)
{
    for (int i = 0; i < STEPS; i++)
        step(i);
    parse();
    for (int i = 0; i < 5; i++)
        route(i);
    return 0;
}
