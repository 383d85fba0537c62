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

BOARD_NOINSTR static void unexpected(void)
{
    board_idle();
}

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

/* Faults go to the runtime, which freezes the trace and calls cygtrace_cm_fault_hook(). The
 * slots of MemManage, BusFault, UsageFault and SecureFault are reserved on ARMv6-M: harmless. */
__attribute__((section(".vectors"), used)) static void (*const vectors[16])(void) = {
    (void (*)(void))(uintptr_t)__stack_top,
    Reset_Handler,
    unexpected,             /* NMI */
    cygtrace_fault_handler, /* HardFault */
    cygtrace_fault_handler, /* MemManage */
    cygtrace_fault_handler, /* BusFault */
    cygtrace_fault_handler, /* UsageFault */
    cygtrace_fault_handler, /* SecureFault */
    0,
    0,
    0,
    unexpected, /* SVCall */
    unexpected, /* DebugMonitor */
    0,
    unexpected, /* PendSV */
    unexpected, /* SysTick */
};
