/* SPDX-License-Identifier: MIT */
/* fib_fw.h - fib_work.h on a firmware (bench/cortex-m/fib.c, bench/riscv/fib.c, each including
 * it once, with its board's board.h on the include path): the line that run.sh reads. */
#ifndef FIB_FW_H
#define FIB_FW_H

#include "board.h"
#include "fib_work.h"

uint32_t bench_recorded(void); /* hooks_empty.c, hooks_pmt.c, recorded_rt.c */

/* Prints "fib(N)=R events=E hz=H rec=C ticks=T": ticks is the clock's count around fib(N), hz
 * its rate (board_clock_hz()), rec what the hooks say they recorded (bench_recorded(): the
 * ring's head, or 0 for empty hooks). */
BOARD_NOINSTR static void fib_report(int n, long r, uint32_t ticks)
{
    board_puts("fib(");
    board_putu((uint32_t)n);
    board_puts(")=");
    board_putu((uint32_t)r);
    board_puts(" events=");
    board_putu((uint32_t)(2 * fib_calls(n)));
    board_puts(" hz=");
    board_putu(board_clock_hz());
    board_puts(" rec=");
    board_putu(bench_recorded());
    board_puts(" ticks=");
    board_putu(ticks);
    board_puts("\n");
}

#endif
