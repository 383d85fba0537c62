/* SPDX-License-Identifier: MIT */
/* crash.c - a bad pointer read a few calls deep: main -> app_run -> parse_packet -> read_field
 * (crash_work.h, shared with examples/riscv), which loads through a corrupt payload pointer.
 * The bus fault lands in HardFault (the configurable faults are off), in
 * cygtrace_fault_handler: the ring gets the faulting PC and LR and freezes, then the hook below
 * reports on the UART and the core waits for a debugger.
 *     cygtrace tree build/firmware/mps2-an385/crash.elf ring.bin
 * ends with the fault, where it happened and the calls that led there. */
#include "board.h"

/* Nothing answers in the external device region on any of the four boards: the load is a bus
 * error, a precise one, so the stacked PC is the load itself. (Not 0xFFFFFFF0: the nRF51 model
 * answers everything from 0xF0000000 up, reading 0.) */
#define BAD_POINTER 0xBFFFFFF0u

#include "crash_work.h"

int main(void)
{
    app_run();
    return 0;
}

/* Called by cygtrace_fault_handler once the trace is frozen. */
BOARD_NOINSTR void cygtrace_cm_fault_hook(void)
{
    static const char *const names[] = {"fault", "fault", "fault", "HardFault", "MemManage",
                                        "BusFault", "UsageFault", "SecureFault"};
    uint32_t ipsr;

    __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
    board_puts("crash: ");
    board_puts(names[ipsr < 8 ? ipsr : 0]);
    board_puts(", trace frozen\n");
    board_idle();
}
