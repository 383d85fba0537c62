/* SPDX-License-Identifier: MIT */
/* cygtrace_cm.c - the Cortex-M runtime around the portable core: the fault handler and where
 * the hooks go on. The hooks themselves (cygtrace_cm_hooks.h), the static ring and its set-up
 * at boot are compiled in target/core/cygtrace_static.c, the clock's start is
 * cygtrace_port.h's. Built with -fno-instrument-functions, like the core.
 */
#include <stdint.h>

#include "cygtrace_port.h"

uint32_t cyg_cm_tstate[2][3]; /* cyg_port_tstate(): thread mode, handler mode */

NOINSTR __attribute__((weak, noreturn)) void cygtrace_cm_fault_hook(void)
{
    for (;;)
        ;
}

/* Bit 2 of EXC_RETURN (in LR on entry) says which stack holds the exception frame: PSP when
 * set. The frame is r0 r1 r2 r3 r12 lr pc xpsr: LR at offset 20, PC at 24. IPSR is the
 * exception number, which is what the CYG_FAULT_* kinds are. Thumb-1 only (no CBZ, no IT), so
 * the same code runs on ARMv6-M; it never returns, so it may clobber what it likes. */
NOINSTR __attribute__((naked)) void cygtrace_fault_handler(void)
{
    __asm__ volatile("movs r0, #4\n\t"
                     "mov r1, lr\n\t"
                     "tst r0, r1\n\t"
                     "beq 1f\n\t"
                     "mrs r3, psp\n\t"
                     "b 2f\n"
                     "1:\n\t"
                     "mrs r3, msp\n"
                     "2:\n\t"
                     "ldr r1, [r3, #24]\n\t"
                     "ldr r2, [r3, #20]\n\t"
                     "mrs r0, ipsr\n\t"
                     "bl cygtrace_fault\n\t"
                     "bl cygtrace_cm_fault_hook\n"
                     "3:\n\t"
                     "b 3b\n");
}

#ifdef CYG_PORT_HOOKS
/* The hooks in assembly are cygtrace_cm_hooks.h's, compiled with the static ring
 * (cygtrace_static.c); this sets where they go on. */

#if CYG_CM_BASELINE
const uintptr_t cyg_cm_no_head = ~(uintptr_t)0;
#endif

NOINSTR void cyg_port_hooks(uintptr_t last)
{
    uint32_t primask;

    /* Masked: a hook in an interrupt sees last and cont (head) from the same call, and an
     * interrupt that changes the state (a full ring, a freeze) is not undone by the rest of
     * this one. The rest of hot is the static ring's, from the start (CYG_PORT_HOT_INIT). */
    __asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask)::"memory");
    cyg_rt.last = last;
#if CYG_CM_BASELINE
    cyg_rt.hot.head = last == 0 ? (volatile uintptr_t *)&cyg_cm_no_head : CYG_CM_HEAD;
#else
    cyg_rt.hot.cont = last == 0                                      ? (uintptr_t)cyg_cm_slow
                      : !CYGTRACE_STOP_MODE || last == ~(uintptr_t)0 ? (uintptr_t)cyg_cm_ovw
                                                                     : (uintptr_t)cyg_cm_stop;
#endif
    __asm__ volatile("msr primask, %0" ::"r"(primask) : "memory");
}
#endif
