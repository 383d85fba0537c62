/* cygtrace_port.h (cortex-m) - the port contract of cygtrace_internal.h for Cortex-M cores.
 *
 * Reservation: LDREX/STREX on ARMv7-M and ARMv8-M (lock-free: an interrupt that reserves in
 * between makes our STREX fail and we retry); ARMv6-M has no exclusives, so a three-instruction
 * PRIMASK section. Timestamp: CYGTRACE_CM_CLOCK picks DWT CYCCNT (1), SysTick (2), a user
 * function cygtrace_user_clock() (3) or none (0).
 */
#ifndef CYGTRACE_PORT_H
#define CYGTRACE_PORT_H

#include <stdint.h>

#include "cygtrace_internal.h"

#define CYG_PORT_MACHINE 40u /* EM_ARM */

#ifndef CYGTRACE_CM_CLOCK
#if defined(__ARM_ARCH_6M__) || defined(__ARM_ARCH_8M_BASE__)
#define CYGTRACE_CM_CLOCK 2 /* no DWT cycle counter on baseline cores: SysTick */
#else
#define CYGTRACE_CM_CLOCK 1 /* DWT CYCCNT */
#endif
#endif
#if CYGTRACE_CM_CLOCK < 0 || CYGTRACE_CM_CLOCK > 3
#error "CYGTRACE_CM_CLOCK must be 0 (none), 1 (DWT), 2 (SysTick) or 3 (user)"
#endif

#define CYG_CM_DWT_CYCCNT (*(volatile uint32_t *)0xE0001004u)
#define CYG_CM_SYST_CVR (*(volatile uint32_t *)0xE000E018u)

#if CYGTRACE_CM_CLOCK == 3
uint32_t cygtrace_user_clock(void);
#endif

#define CYG_CM_INLINE __attribute__((no_instrument_function, always_inline)) static inline

CYG_CM_INLINE uintptr_t cyg_port_reserve(volatile uintptr_t *head)
{
#if defined(__ARM_ARCH_6M__) || defined(__ARM_ARCH_8M_BASE__)
    uint32_t primask, old;

    __asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask)::"memory");
    old = *head;
    *head = old + 1u;
    __asm__ volatile("msr primask, %0" ::"r"(primask) : "memory");
    return old;
#else
    uint32_t old, fail;

    do {
        __asm__ volatile("ldrex %0, [%1]" : "=r"(old) : "r"(head) : "memory");
        __asm__ volatile("strex %0, %2, [%1]" : "=&r"(fail) : "r"(head), "r"(old + 1u) : "memory");
    } while (fail);
    return old;
#endif
}

CYG_CM_INLINE uintptr_t cyg_port_now(void)
{
#if CYGTRACE_CM_CLOCK == 1
    return CYG_CM_DWT_CYCCNT;
#elif CYGTRACE_CM_CLOCK == 2
    return ~CYG_CM_SYST_CVR; /* SysTick counts down; the host unwraps the 24-bit reload */
#elif CYGTRACE_CM_CLOCK == 3
    return cygtrace_user_clock();
#else
    return 0;
#endif
}

CYG_CM_INLINE uintptr_t cyg_port_thread(void)
{
    return 0; /* contexts are context-switch records on firmware */
}

CYG_CM_INLINE void cyg_port_release(void)
{
    /* One core, program order: only the compiler could reorder the record's stores. */
    __asm__ volatile("" ::: "memory");
}

CYG_CM_INLINE int cyg_port_wake(void)
{
    return 0;
}

#endif
