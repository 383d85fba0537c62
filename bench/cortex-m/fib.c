/* SPDX-License-Identifier: MIT */
/* fib.c - the hook-cost workload (bench/fib_work.h) on a Cortex-M firmware, timed with the
 * board's timer (cygtrace_user_clock() of boards/cmsdk.c or boards/nrf51.c). Under
 * qemu-system-arm -icount shift=0 each guest instruction takes exactly 1 ns of virtual time and
 * the timers count that time (25 MHz on the AN385 and AN386, 20 MHz on the AN505, 16 MHz on the
 * micro:bit), so ticks * 1e9 / hz is an instruction count (run.sh). Prints fib_fw.h's line and
 * sleeps. */
#include "../fib_fw.h"

uint32_t cygtrace_user_clock(void); /* the board's timer, counting up */

#ifdef BENCH_ARMED
#include "cygtrace.h"

int main(void);

/* Armed and waiting: triggers and exclusions on a function the workload never calls (main,
 * not instrumented), so every event takes the slow path and is recorded. BENCH_ARMED=1: one
 * freeze trigger and one exclusion; 2: the control area full (6 triggers, 12 exclusions). */
BOARD_NOINSTR static void bench_arm(void)
{
    int full = BENCH_ARMED == 2;

    for (int i = 0; i < (full ? 6 : 1); i++)
        cygtrace_trigger_freeze((void *)main, 100);
    for (int i = 0; i < (full ? 12 : 1); i++)
        cygtrace_exclude((void *)main, 0);
}
#endif

BOARD_NOINSTR int main(void)
{
    volatile int n = 20; /* volatile: no constant folding */
    uint32_t t0, t1;
    long r;

#ifdef BENCH_ARMED
    bench_arm();
#endif

    t0 = cygtrace_user_clock();
    r = fib(n);
    t1 = cygtrace_user_clock();
    fib_report(n, r, t1 - t0);
    return 0;
}
