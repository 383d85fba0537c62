/* SPDX-License-Identifier: MIT */
/* board_common.c - the parts of board.h that are the same on every RISC-V board: those of
 * every board, RISC-V or Cortex-M (examples/firmware/board_print.h), the clock rate and the
 * idle loop. */
#include "board.h"
#include "../firmware/board_print.h"

/* mcycle under qemu-system-riscv32 -icount shift=0, as the examples run: one instruction a
 * nanosecond of virtual time, so durations in the trace are instruction counts in ns. A real
 * part would give its core clock here (an FE310 at 16 MHz from HFROSC, say). */
#ifndef BOARD_CLOCK_HZ
#define BOARD_CLOCK_HZ 1000000000u
#endif

BOARD_NOINSTR uint32_t board_clock_hz(void)
{
    return BOARD_CLOCK_HZ;
}

BOARD_NOINSTR void board_idle(void)
{
    for (;;)
        __asm__ volatile("wfi");
}
