/* SPDX-License-Identifier: MIT */
/* board_print.h - board_puts, board_putu and board_putx (board_base.h), on the board's
 * board_putc: the same on every board, Cortex-M or RISC-V, so each architecture's
 * board_common.c includes this once and builds it with its own flags (as the programs include
 * demo_work.h). */
#ifndef BOARD_PRINT_H
#define BOARD_PRINT_H

#include "board_base.h"

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

#endif
