/* SPDX-License-Identifier: MIT */
/* cmsdk.c - the MPS2 boards (mps2-an385, -an386, -an505): the CMSDK APB UART and APB timer of
 * ARM's Cortex-M System Design Kit. Their addresses and the clock come from the build: the AN505
 * runs secure and reaches them through the secure aliases (0x5xxxxxxx). */
#include "board.h"

#ifndef CMSDK_UART
#define CMSDK_UART 0x40004000u /* UART0 of the AN385/AN386 */
#endif
#ifndef CMSDK_UART1
#define CMSDK_UART1 0x40005000u /* UART1 of the AN385/AN386 */
#endif
#ifndef CMSDK_TIMER
#define CMSDK_TIMER 0x40000000u /* TIMER0 */
#endif
#ifndef CMSDK_CLOCK_HZ
#define CMSDK_CLOCK_HZ 25000000u /* the AN385/AN386 peripheral clock */
#endif

#define REG(base, off) (*(volatile uint32_t *)((base) + (off)))
#define UART_DATA REG(CMSDK_UART, 0x00)
#define UART_STATE REG(CMSDK_UART, 0x04) /* bit 0: transmit buffer full */
#define UART_CTRL REG(CMSDK_UART, 0x08)  /* bit 0: transmit enable */
#define UART_BAUDDIV REG(CMSDK_UART, 0x10)
#define UART1_DATA REG(CMSDK_UART1, 0x00)
#define UART1_STATE REG(CMSDK_UART1, 0x04) /* bit 0: transmit full, bit 1: receive full */
#define UART1_CTRL REG(CMSDK_UART1, 0x08)  /* bit 0: transmit, bit 1: receive enable */
#define UART1_BAUDDIV REG(CMSDK_UART1, 0x10)
#define TIMER_CTRL REG(CMSDK_TIMER, 0x00) /* bit 0: enable */
#define TIMER_VALUE REG(CMSDK_TIMER, 0x04)
#define TIMER_RELOAD REG(CMSDK_TIMER, 0x08)

BOARD_NOINSTR void board_init(void)
{
    UART_BAUDDIV = 16; /* the smallest divider the UART accepts */
    UART_CTRL = 1;
    /* A 32-bit down counter reloading at 0xFFFFFFFF: free-running, wraps every 2^32 ticks. */
    TIMER_RELOAD = 0xFFFFFFFFu;
    TIMER_VALUE = 0xFFFFFFFFu;
    TIMER_CTRL = 1;
}

BOARD_NOINSTR uint32_t board_clock_hz(void)
{
    return CMSDK_CLOCK_HZ;
}

/* The trace's clock (CYGTRACE_CM_CLOCK=3): the timer counts down, the trace wants time going up. */
BOARD_NOINSTR uint32_t cygtrace_user_clock(void)
{
    return ~TIMER_VALUE;
}

BOARD_NOINSTR void board_putc(char c)
{
    while (UART_STATE & 1u)
        ;
    UART_DATA = (uint8_t)c;
}

BOARD_NOINSTR size_t board_uart_try_write(const void *buf, size_t len)
{
    const uint8_t *p = buf;
    size_t n = 0;

    while (n < len && !(UART_STATE & 1u))
        UART_DATA = p[n++];
    return n;
}

BOARD_NOINSTR int board_uart1_try_read(uint8_t *c)
{
    if ((UART1_CTRL & 3u) != 3u) { /* first use: the other programs leave UART1 alone */
        UART1_BAUDDIV = 16;
        UART1_CTRL = 3u;
    }
    if (!(UART1_STATE & 2u))
        return 0;
    *c = (uint8_t)UART1_DATA;
    return 1;
}

BOARD_NOINSTR void board_uart1_putc(uint8_t c)
{
    while (UART1_STATE & 1u)
        ;
    UART1_DATA = c;
}
