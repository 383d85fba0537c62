/* SPDX-License-Identifier: MIT */
/* nrf51.c - the micro:bit (nRF51822, Cortex-M0): UART0 and TIMER0 of the nRF51. The M0 here has
 * no SysTick, so the trace's clock is TIMER0 at 16 MHz, read through a capture task. */
#include "board.h"

#define UART 0x40002000u
#define TIMER 0x40008000u

#define REG(base, off) (*(volatile uint32_t *)((base) + (off)))
#define UART_STARTTX REG(UART, 0x008)
#define UART_TXDRDY REG(UART, 0x11C)
#define UART_ENABLE REG(UART, 0x500)
#define UART_TXD REG(UART, 0x51C)
#define TIMER_START REG(TIMER, 0x000)
#define TIMER_CAPTURE0 REG(TIMER, 0x040)
#define TIMER_MODE REG(TIMER, 0x504)
#define TIMER_BITMODE REG(TIMER, 0x508)
#define TIMER_PRESCALER REG(TIMER, 0x510)
#define TIMER_CC0 REG(TIMER, 0x540)

BOARD_NOINSTR void board_init(void)
{
    UART_ENABLE = 4;
    UART_STARTTX = 1;
    TIMER_MODE = 0;      /* timer, not counter */
    TIMER_BITMODE = 3;   /* 32 bits */
    TIMER_PRESCALER = 0; /* 16 MHz */
    TIMER_START = 1;
}

BOARD_NOINSTR uint32_t board_clock_hz(void)
{
    return 16000000u;
}

/* The trace's clock (CYGTRACE_CM_CLOCK=3): capture the counter, then read the capture. */
BOARD_NOINSTR uint32_t cygtrace_user_clock(void)
{
    TIMER_CAPTURE0 = 1;
    return TIMER_CC0;
}

BOARD_NOINSTR void board_putc(char c)
{
    UART_TXDRDY = 0;
    UART_TXD = (uint8_t)c;
    while (!UART_TXDRDY)
        ;
}

/* A byte went to TXD and TXDRDY has not said yet that it is out (board_putc waits for it, and
 * leaves TXDRDY set). */
static uint8_t tx_busy;

BOARD_NOINSTR size_t board_uart_try_write(const void *buf, size_t len)
{
    const uint8_t *p = buf;
    size_t n = 0;

    while (n < len && (!tx_busy || UART_TXDRDY)) {
        UART_TXDRDY = 0;
        UART_TXD = p[n++];
        tx_busy = 1;
    }
    return n;
}

/* The nRF51 has one UART, the stream's: echo.c gets nothing to answer. */
BOARD_NOINSTR int board_uart1_try_read(uint8_t *c)
{
    (void)c;
    return 0;
}

BOARD_NOINSTR void board_uart1_putc(uint8_t c)
{
    (void)c;
}
