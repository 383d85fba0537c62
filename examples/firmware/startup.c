/* SPDX-License-Identifier: MIT */
/* startup.c - vector table and reset handler of every example, on every board. Built without
 * -finstrument-functions: nothing may record before cygtrace_cm_init(), and until .data is
 * copied the runtime's own state is not even there.
 *
 * The order is what a firmware of yours needs too: .data, .bss (never .noinit: the ring lives
 * there), the clock the trace reads, cygtrace_cm_init(), then main() with recording on, so that
 * main's own entry is in the trace. */
#include <stdint.h>

#include "board.h"
#include "cygtrace_cm.h"

extern uint32_t __data_start[], __data_end[], __data_load[], __bss_start[], __bss_end[];
extern uint32_t __stack_top[];
int main(void);

#define CPACR (*(volatile uint32_t *)0xE000ED88u)

/* Every exception and interrupt without a handler of its own comes here. */
BOARD_NOINSTR void Default_Handler(void)
{
    board_idle();
}

/* A firmware defines the handlers it needs under these names (as with CMSIS): the weak
 * aliases give way. IRQn_Handler is device interrupt n (nRF51 TIMER1 is IRQ9_Handler). */
#define WEAK_HANDLER(name) void name(void) __attribute__((weak, alias("Default_Handler")))
WEAK_HANDLER(NMI_Handler);
WEAK_HANDLER(SVC_Handler);
WEAK_HANDLER(DebugMon_Handler);
WEAK_HANDLER(PendSV_Handler);
WEAK_HANDLER(SysTick_Handler);
WEAK_HANDLER(IRQ0_Handler);
WEAK_HANDLER(IRQ1_Handler);
WEAK_HANDLER(IRQ2_Handler);
WEAK_HANDLER(IRQ3_Handler);
WEAK_HANDLER(IRQ4_Handler);
WEAK_HANDLER(IRQ5_Handler);
WEAK_HANDLER(IRQ6_Handler);
WEAK_HANDLER(IRQ7_Handler);
WEAK_HANDLER(IRQ8_Handler);
WEAK_HANDLER(IRQ9_Handler);
WEAK_HANDLER(IRQ10_Handler);
WEAK_HANDLER(IRQ11_Handler);
WEAK_HANDLER(IRQ12_Handler);
WEAK_HANDLER(IRQ13_Handler);
WEAK_HANDLER(IRQ14_Handler);
WEAK_HANDLER(IRQ15_Handler);

BOARD_NOINSTR void Reset_Handler(void)
{
    const uint32_t *from = __data_load;
    uint32_t *to;

    for (to = __data_start; to < __data_end;)
        *to++ = *from++;
    for (to = __bss_start; to < __bss_end;)
        *to++ = 0;
#ifdef __ARM_FP
    CPACR |= 0xFu << 20; /* CP10 and CP11 (the FPU): code built for it may use it anywhere */
    __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
    board_init();
    cygtrace_cm_init(board_clock_hz());
    main();
    board_idle();
}

/* Faults go to the runtime, which records the fault, freezes the trace and calls
 * cygtrace_cm_fault_hook(), unless STARTUP_FAULT_HANDLER names another handler (the benchmark's
 * footprint of a firmware without the fault records: Default_Handler). The slots of MemManage,
 * BusFault, UsageFault and SecureFault are reserved on ARMv6-M: harmless. */
#ifndef STARTUP_FAULT_HANDLER
#define STARTUP_FAULT_HANDLER cygtrace_fault_handler
#endif
__attribute__((section(".vectors"), used)) static void (*const vectors[16 + 16])(void) = {
    (void (*)(void))(uintptr_t)__stack_top,
    Reset_Handler,
    NMI_Handler,
    STARTUP_FAULT_HANDLER, /* HardFault */
    STARTUP_FAULT_HANDLER, /* MemManage */
    STARTUP_FAULT_HANDLER, /* BusFault */
    STARTUP_FAULT_HANDLER, /* UsageFault */
    STARTUP_FAULT_HANDLER, /* SecureFault */
    0,
    0,
    0,
    SVC_Handler,
    DebugMon_Handler,
    0,
    PendSV_Handler,
    SysTick_Handler,
    IRQ0_Handler,  IRQ1_Handler,  IRQ2_Handler,  IRQ3_Handler,  IRQ4_Handler,  IRQ5_Handler,
    IRQ6_Handler,  IRQ7_Handler,  IRQ8_Handler,  IRQ9_Handler,  IRQ10_Handler, IRQ11_Handler,
    IRQ12_Handler, IRQ13_Handler, IRQ14_Handler, IRQ15_Handler,
};
