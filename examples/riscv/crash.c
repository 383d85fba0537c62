/* SPDX-License-Identifier: MIT */
/* crash.c - a bad pointer read a few calls deep: main -> app_run -> parse_packet -> read_field
 * (examples/firmware/crash_work.h, as on Cortex-M), which loads through a corrupt payload
 * pointer. Nothing answers at that address on either board: a load access fault (mcause 5),
 * precise, so mepc is the load itself. The trap goes to cygtrace_rv_trap_handler (mtvec,
 * start.c): the ring gets the faulting PC and ra and freezes, then the hook below reports on the
 * UART and the hart waits for a debugger:
 *     cygtrace pull --gdb=127.0.0.1:1234 build/firmware/riscv-virt/crash.elf
 * ends with the fault, where it happened and the calls that led there. */
#include "board.h"

/* Unmapped on sifive_e (nothing above the 16 KB DTIM) and on virt (RAM ends at 0x88000000
 * with the default 128 MB; the PCIe window, which answers all ones without a fault, is
 * 0x30000000-0x7FFFFFFF). */
#define BAD_POINTER 0xF0000000u

#include "../firmware/crash_work.h"

int main(void)
{
    app_run();
    return 0;
}

/* Called by cygtrace_rv_fault once the trace is frozen. */
BOARD_NOINSTR void cygtrace_rv_fault_hook(uint32_t mcause)
{
    uint32_t mtval;

    __asm__ volatile(".insn i 0x73, 2, %0, x0, 0x343" : "=r"(mtval)); /* csrr mtval */
    board_puts("crash: ");
    board_puts(mcause == 5u ? "load access fault" : "trap");
    board_puts(" (mcause ");
    board_putu(mcause);
    board_puts(", mtval ");
    board_putx(mtval);
    board_puts("), trace frozen\n");
    board_idle();
}
