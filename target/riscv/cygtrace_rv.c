/* SPDX-License-Identifier: MIT */
/* cygtrace_rv.c - the RISC-V runtime around the portable core: the trap support that records a
 * fault. The static ring and its set-up at boot, with warm-reset survival (the policy of the
 * Cortex-M port, cygtrace_rv.h), are target/core/cygtrace_static.c's. Built with
 * -fno-instrument-functions, like the core.
 */
#include <stddef.h>
#include <stdint.h>

#include "cygtrace_port.h"

NOINSTR __attribute__((weak, noreturn)) void cygtrace_rv_fault_hook(uint32_t mcause)
{
    (void)mcause;
    for (;;)
        __asm__ volatile("wfi");
}

NOINSTR void cygtrace_rv_fault(uint32_t mcause, uint32_t mepc, uint32_t ra)
{
    /* mcause: the interrupt flag in bit 31, the code below it (exception codes go to 63,
     * custom ones included; more than 127 do not fit the kind and are cut). */
    unsigned kind = CYG_FAULT_RISCV + (mcause & CYG_FAULT_RISCV_CODE) +
                    (mcause >> 31 ? CYG_FAULT_RISCV_IRQ : 0u);

    cygtrace_fault(kind, mepc, ra);
    cygtrace_rv_fault_hook(mcause);
}

/* ra is still the trapped code's here: nothing ran between the trap and this code. It never
 * returns, so it saves nothing and uses the trapped code's stack as it found it (the 16-byte
 * alignment of the psABI holds at any instruction boundary of compiled code). */
NOINSTR __attribute__((naked, aligned(4))) void cygtrace_rv_trap_handler(void)
{
    __asm__ volatile(".insn i 0x73, 2, a0, x0, " CYG_RV_STR(CYG_RV_MCAUSE) "\n\t"
                     ".insn i 0x73, 2, a1, x0, " CYG_RV_STR(CYG_RV_MEPC) "\n\t"
                     "mv a2, ra\n\t"
                     "call cygtrace_rv_fault\n"
                     "1:\n\t"
                     "j 1b\n");
}
