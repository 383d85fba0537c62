/* SPDX-License-Identifier: MIT */
/* fwdiff.c - a firmware built twice, for `cygtrace diff` (tests/e2e/diff_fw.sh, docs/diff.md):
 * fwdiff.elf, the plain build, and fwdiff_b.elf, built with FWDIFF_B: parse spins 100 times
 * longer (one function made slower) and route's third call takes detour, not direct (one call
 * path changed). Prints "fwdiff: done" and sleeps, so that `cygtrace pull` can read the ring.
 * The work is counted in loop turns, not in time: the boards' timer (the trace's clock) is all
 * that times it. */
#include "board_base.h"

#ifdef FWDIFF_B
#define PARSE_TURNS 200000u
#else
#define PARSE_TURNS 2000u
#endif

volatile uint32_t fwdiff_sink;

void step(int i)
{
    for (int k = 0; k < 100; k++)
        fwdiff_sink += (uint32_t)(i * k);
}

void parse(void)
{
    for (uint32_t k = 0; k < PARSE_TURNS; k++)
        fwdiff_sink++;
}

void direct(int i)
{
    fwdiff_sink += (uint32_t)i;
}

void detour(int i)
{
    fwdiff_sink -= (uint32_t)i;
}

void route(int i)
{
#ifdef FWDIFF_B
    if (i == 2) {
        detour(i);
        return;
    }
#endif
    direct(i);
}

int main(void)
{
    for (int i = 0; i < 10; i++)
        step(i);
    parse();
    for (int i = 0; i < 5; i++)
        route(i);
    board_puts("fwdiff: done\n");
    return 0;
}
