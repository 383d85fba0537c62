/* board_common.c - the parts of board.h that are the same on every RISC-V board. */
#include "board.h"

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

BOARD_NOINSTR void board_puts(const char *s)
{
    while (*s)
        board_putc(*s++);
}

BOARD_NOINSTR void board_putu(uint32_t v)
{
    char buf[11], *p = buf + sizeof buf;

    *--p = 0;
    do
        *--p = (char)('0' + v % 10u);
    while ((v /= 10u) != 0);
    board_puts(p);
}

BOARD_NOINSTR void board_putx(uint32_t v)
{
    board_puts("0x");
    for (int i = 28; i >= 0; i -= 4)
        board_putc("0123456789abcdef"[(v >> i) & 0xFu]);
}

BOARD_NOINSTR void board_idle(void)
{
    for (;;)
        __asm__ volatile("wfi");
}
