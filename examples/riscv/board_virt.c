/* SPDX-License-Identifier: MIT */
/* board_virt.c - QEMU's virt board: an NS16550A UART at 0x10000000. */
#include "board.h"

#define UART0 0x10000000u
#define UART_THR (*(volatile uint8_t *)(UART0 + 0u))
#define UART_LSR (*(volatile uint8_t *)(UART0 + 5u)) /* bit 5: THR empty */

BOARD_NOINSTR void board_init(void)
{
}

BOARD_NOINSTR void board_putc(char c)
{
    while (!(UART_LSR & (1u << 5)))
        ;
    UART_THR = (uint8_t)c;
}
