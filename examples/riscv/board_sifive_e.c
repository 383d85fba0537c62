/* SPDX-License-Identifier: MIT */
/* board_sifive_e.c - QEMU's sifive_e (the HiFive1's FE310): UART0 at 0x10013000. */
#include "board.h"

#define UART0 0x10013000u
#define UART_TXDATA (*(volatile uint32_t *)(UART0 + 0x00u)) /* bit 31: FIFO full */
#define UART_TXCTRL (*(volatile uint32_t *)(UART0 + 0x08u)) /* bit 0: txen */

BOARD_NOINSTR void board_init(void)
{
    UART_TXCTRL = 1u;
}

BOARD_NOINSTR void board_putc(char c)
{
    while (UART_TXDATA & (1u << 31))
        ;
    UART_TXDATA = (uint8_t)c;
}
