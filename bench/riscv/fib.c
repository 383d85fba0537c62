/* fib.c - the hook-cost workload on a RISC-V firmware (examples/riscv's start code and boards):
 * a recursive fib(n), every call instrumented, timed with mcycle. Under qemu-system-riscv32
 * -icount shift=0 QEMU's mcycle is its instruction counter, so ticks are instructions (run.sh).
 * Prints "fib(N)=R events=E rec=C ticks=T" and sleeps; rec is what the hooks say they recorded
 * (bench_recorded(): the ring's head, or 0 for empty hooks). Built with -DBENCH_PLAIN without
 * -finstrument-functions. */
#include "board.h"

uint32_t bench_recorded(void); /* hooks_empty.c, recorded_rt.c */

/* noinline: the compiler may not fold recursion levels into one, which would drop events. */
__attribute__((noinline)) int fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

BOARD_NOINSTR static uint32_t mcycle(void)
{
    uint32_t v;

    __asm__ volatile(".insn i 0x73, 2, %0, x0, -1280" : "=r"(v)); /* csrr mcycle (0xB00) */
    return v;
}

/* 2 events (entry, exit) per call, and fib(n) makes 2 F(n+1) - 1 calls. */
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

    t0 = mcycle();
    r = fib(n);
    t1 = mcycle();
    board_puts("fib(");
    board_putu((uint32_t)n);
    board_puts(")=");
    board_putu((uint32_t)r);
    board_puts(" events=");
    board_putu(fib_events(n));
    board_puts(" rec=");
    board_putu(bench_recorded());
    board_puts(" ticks=");
    board_putu(t1 - t0);
    board_puts("\n");
    return 0;
}
