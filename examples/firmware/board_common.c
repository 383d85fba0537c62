/* SPDX-License-Identifier: MIT */
/* board_common.c - the parts of board.h that are the same on every Cortex-M board: those of
 * every board, Cortex-M or RISC-V (board_print.h), and the reset, idle loop and exit. */
#include "board.h"
#include "board_print.h"

#define SCB_AIRCR (*(volatile uint32_t *)0xE000ED0Cu)
#define AIRCR_SYSRESETREQ (0x05FAu << 16 | 1u << 2) /* VECTKEY, SYSRESETREQ */

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

BOARD_NOINSTR void board_exit(int status)
{
    /* SYS_EXIT_EXTENDED takes a block: the reason (ADP_Stopped_ApplicationExit) and the
     * status; plain SYS_EXIT on 32-bit ARM could only say 0 or 1. */
    uint32_t block[2] = {0x20026u, (uint32_t)status};
    register uint32_t r0 __asm__("r0") = 0x20u;
    register uint32_t *r1 __asm__("r1") = block;

    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    board_idle();
}
