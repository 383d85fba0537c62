/* board_common.c - the parts of board.h that are the same on every Cortex-M board. */
#include "board.h"

#define SCB_AIRCR (*(volatile uint32_t *)0xE000ED0Cu)
#define AIRCR_SYSRESETREQ (0x05FAu << 16 | 1u << 2) /* VECTKEY, SYSRESETREQ */

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

BOARD_NOINSTR void board_reset(void)
{
    __asm__ volatile("dsb" ::: "memory"); /* let pending writes finish first */
    SCB_AIRCR = AIRCR_SYSRESETREQ;
    __asm__ volatile("dsb" ::: "memory");
    for (;;)
        ;
}

BOARD_NOINSTR void board_idle(void)
{
    for (;;)
        __asm__ volatile("wfi");
}
