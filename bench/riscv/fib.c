/* SPDX-License-Identifier: MIT */
/* fib.c - the hook-cost workload (bench/fib_work.h) on a RISC-V firmware (examples/riscv's
 * start code and boards), timed with mcycle. Under qemu-system-riscv32 -icount shift=0 QEMU's
 * mcycle is its instruction counter, so ticks are instructions (run.sh). Prints fib_fw.h's line
 * and sleeps. Built without -finstrument-functions too, for the cost of the call alone. */
#include "../fib_fw.h"

BOARD_NOINSTR static uint32_t mcycle(void)
{
    uint32_t v;

    __asm__ volatile(".insn i 0x73, 2, %0, x0, -1280" : "=r"(v)); /* csrr mcycle (0xB00) */
    return v;
}

BOARD_NOINSTR int main(void)
{
    volatile int n = 20; /* volatile: no constant folding */
    uint32_t t0, t1;
    long r;

    t0 = mcycle();
    r = fib(n);
    t1 = mcycle();
    fib_report(n, r, t1 - t0);
    return 0;
}
