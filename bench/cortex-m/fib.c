/* fib.c - the hook-cost workload on a Cortex-M firmware: a recursive fib(n), every call
 * instrumented, timed with the board's timer (cygtrace_user_clock() of boards/cmsdk.c or
 * boards/nrf51.c). Under qemu-system-arm -icount shift=0 each guest instruction takes exactly
 * 1 ns of virtual time and the timers count that time (25 MHz on the AN385 and AN386, 20 MHz on
 * the AN505, 16 MHz on the micro:bit), so ticks * 1e9 / hz is an instruction count (run.sh).
 * Prints "fib(N)=R events=E hz=H rec=C ticks=T" and sleeps; rec is what the hooks say they
 * recorded (bench_recorded(): the ring's head, or 0 for empty hooks). */
#include "board.h"

uint32_t cygtrace_user_clock(void); /* the board's timer, counting up */
uint32_t bench_recorded(void);      /* hooks_empty.c, hooks_pmt.c, recorded_rt.c */

/* noinline: the compiler may not fold recursion levels into one, which would drop events. */
__attribute__((noinline)) int fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

/* 2 events (entry, exit) per call, and fib(n) makes 2 F(n+1) - 1 calls: computed, not counted,
 * so that counting costs nothing. */
BOARD_NOINSTR static uint32_t fib_events(int n)
{
    uint32_t a = 0, b = 1;

    for (int i = 0; i < n + 1; i++) {
        uint32_t t = a + b;
        a = b;
        b = t;
    }
    return 2 * (2 * a - 1);
}

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
    int r;

#ifdef BENCH_ARMED
    bench_arm();
#endif

    t0 = cygtrace_user_clock();
    r = fib(n);
    t1 = cygtrace_user_clock();
    board_puts("fib(");
    board_putu((uint32_t)n);
    board_puts(")=");
    board_putu((uint32_t)r);
    board_puts(" events=");
    board_putu(fib_events(n));
    board_puts(" hz=");
    board_putu(board_clock_hz());
    board_puts(" rec=");
    board_putu(bench_recorded());
    board_puts(" ticks=");
    board_putu(t1 - t0);
    board_puts("\n");
    return 0;
}
