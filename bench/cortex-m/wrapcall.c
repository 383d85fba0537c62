/* SPDX-License-Identifier: MIT */
/* wrapcall.c - the wrapped-call benchmark's firmware (bench/cortex-m/wrap.sh): calls
 * bench_inc(i) and then bench_len("temperature") (bench/wrap_work.c) CALLS times each, from a
 * loop that records nothing itself, timed with the board timer as fib.c is: under QEMU
 * -icount shift=0 a tick of the AN385's 25 MHz timer is 40 instructions. Linked with
 * wrap_work.c built plainly, with -finstrument-functions, or wrapped by `cygtrace wrap`
 * (bench/cortex-m/wrap.mk). Prints for each workload
 *     "NAME calls=C rec=R ticks=T hz=H"
 * where rec is the records the ring reserved meanwhile (bench_recorded()), then "done". */
#include "board.h"

#ifndef CALLS
#define CALLS 100000u
#endif

uint32_t cygtrace_user_clock(void); /* the board's timer, counting up */
uint32_t bench_recorded(void);      /* recorded_rt.c */
int bench_inc(int x);
int bench_len(const char *s);

static volatile int result; /* keeps the calls' results alive */

BOARD_NOINSTR static void report(const char *name, uint32_t rec, uint32_t ticks)
{
    board_puts(name);
    board_puts(" calls=");
    board_putu(CALLS);
    board_puts(" rec=");
    board_putu(rec);
    board_puts(" ticks=");
    board_putu(ticks);
    board_puts(" hz=");
    board_putu(board_clock_hz());
    board_puts("\n");
}

BOARD_NOINSTR int main(void)
{
    /* volatile: the string's address is not a constant the compiler could fold into the
     * callee's work (it cannot see it anyway: another file). */
    static const char *volatile text = "temperature";
    uint32_t r0, t0, t1;
    int acc = 0;

    r0 = bench_recorded();
    t0 = cygtrace_user_clock();
    for (uint32_t i = 0; i < CALLS; i++)
        acc += bench_inc((int)i);
    t1 = cygtrace_user_clock();
    report("inc", bench_recorded() - r0, t1 - t0);

    r0 = bench_recorded();
    t0 = cygtrace_user_clock();
    for (uint32_t i = 0; i < CALLS; i++)
        acc += bench_len(text);
    t1 = cygtrace_user_clock();
    report("len", bench_recorded() - r0, t1 - t0);

    result = acc;
    board_puts("done\n");
    return 0;
}
