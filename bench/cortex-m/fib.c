/* fib.c - the hook-cost workload on a Cortex-M firmware: a recursive fib(n), every call
 * instrumented, timed with the board timer. Under qemu-system-arm -icount shift=0 each guest
 * instruction takes exactly 1 ns of virtual time and the mps2-an385 timer counts 25 MHz of
 * that time, so one tick is 40 instructions: the ticks are an instruction count (run.sh).
 * Prints "fib(N)=R events=E ticks=T" and sleeps. */
#include "board.h"

#define TIMER_VALUE (*(volatile uint32_t *)0x40000004u) /* CMSDK TIMER0, counting down */

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

BOARD_NOINSTR int main(void)
{
    volatile int n = 20; /* volatile: no constant folding */
    uint32_t t0, t1;
    int r;

    t0 = TIMER_VALUE;
    r = fib(n);
    t1 = TIMER_VALUE;
    board_puts("fib(");
    board_putu((uint32_t)n);
    board_puts(")=");
    board_putu((uint32_t)r);
    board_puts(" events=");
    board_putu(fib_events(n));
    board_puts(" ticks=");
    board_putu(t0 - t1);
    board_puts("\n");
    return 0;
}
