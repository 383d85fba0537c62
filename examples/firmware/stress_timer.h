/* SPDX-License-Identifier: MIT */
/* stress_timer.h - the fast periodic interrupt of the stress programs (stress.c, fault_hook.c):
 * SysTick on the MPS2 boards, TIMER1 (IRQ 9) on the nRF51, which has no SysTick. Each program
 * includes it once; everything here is static and not instrumented, so the trace shows only
 * what the program's own instrumented code records.
 *
 * Periods are in the timer's ticks. Under QEMU with -icount shift=0 (one instruction per ns) a
 * tick is 40 instructions on the AN385 and AN386 (25 MHz), 50 on the AN505 (20 MHz) and 62.5
 * on the nRF51 (16 MHz): a program that wants the interrupt to land at every instruction of
 * some code varies the period, or the phase at which the timer starts. */
#ifndef STRESS_TIMER_H
#define STRESS_TIMER_H

#include <stdint.h>

#include "board.h"

#define STRESS_REG(a) (*(volatile uint32_t *)(a))
#ifdef BOARD_NRF51
/* nRF51 TIMER1 (IRQ 9): 16 MHz, cleared on COMPARE[0], which interrupts. */
#define STRESS_T1 0x40009000u
#define STRESS_T1_IRQ 9u
#define STRESS_T1_START STRESS_REG(STRESS_T1 + 0x000u)
#define STRESS_T1_STOP STRESS_REG(STRESS_T1 + 0x004u)
#define STRESS_T1_CAPTURE1 STRESS_REG(STRESS_T1 + 0x044u)
#define STRESS_T1_COMPARE0 STRESS_REG(STRESS_T1 + 0x140u)
#define STRESS_T1_SHORTS STRESS_REG(STRESS_T1 + 0x200u) /* bit 0: COMPARE[0] -> CLEAR */
#define STRESS_T1_INTENSET STRESS_REG(STRESS_T1 + 0x304u)
#define STRESS_T1_INTENCLR STRESS_REG(STRESS_T1 + 0x308u)
#define STRESS_T1_MODE STRESS_REG(STRESS_T1 + 0x504u)
#define STRESS_T1_BITMODE STRESS_REG(STRESS_T1 + 0x508u)
#define STRESS_T1_PRESCALER STRESS_REG(STRESS_T1 + 0x510u)
#define STRESS_T1_CC0 STRESS_REG(STRESS_T1 + 0x540u)
#define STRESS_T1_CC1 STRESS_REG(STRESS_T1 + 0x544u)
#define STRESS_NVIC_ISER STRESS_REG(0xE000E100u)
#define STRESS_NVIC_ICER STRESS_REG(0xE000E180u)
#define STRESS_NVIC_ICPR STRESS_REG(0xE000E280u)
/* STRESS_TIMER_HANDLER(fn): makes fn the timer's interrupt handler, under the name startup.c's
 * vector table gives its slot. */
#define STRESS_TIMER_HANDLER(fn) void IRQ9_Handler(void) __attribute__((alias(#fn)))
_Static_assert(STRESS_T1_IRQ == 9u, "IRQ9_Handler is TIMER1's slot");
#else
#define STRESS_SYST_CSR STRESS_REG(0xE000E010u) /* bit 0 enable, 1 interrupt, 2 core clock */
#define STRESS_SYST_RVR STRESS_REG(0xE000E014u)
#define STRESS_SYST_CVR STRESS_REG(0xE000E018u)
#define STRESS_SCB_ICSR STRESS_REG(0xE000ED04u)
#define STRESS_ICSR_PENDSTCLR (1u << 25)
#define STRESS_TIMER_HANDLER(fn) void SysTick_Handler(void) __attribute__((alias(#fn)))
#endif

/* Starts the timer: the first interrupt after ticks ticks, then one every ticks ticks until
 * stress_timer_next() says otherwise. */
BOARD_NOINSTR static inline void stress_timer_start(uint32_t ticks)
{
#ifdef BOARD_NRF51
    STRESS_T1_MODE = 0;      /* timer */
    STRESS_T1_BITMODE = 3;   /* 32 bits */
    STRESS_T1_PRESCALER = 0; /* 16 MHz */
    STRESS_T1_CC0 = ticks;
    STRESS_T1_SHORTS = 1u;
    STRESS_T1_INTENSET = 1u << 16; /* COMPARE[0] */
    STRESS_NVIC_ISER = 1u << STRESS_T1_IRQ;
    STRESS_T1_START = 1;
#else
    STRESS_SYST_RVR = ticks;
    STRESS_SYST_CVR = 0;
    STRESS_SYST_CSR = 7u;
#endif
}

/* In the handler, first: acknowledges this interrupt and sets the period that follows it. */
BOARD_NOINSTR static inline void stress_timer_next(uint32_t ticks)
{
#ifdef BOARD_NRF51
    STRESS_T1_COMPARE0 = 0;
    (void)STRESS_T1_COMPARE0; /* the write reaches the timer before the return re-enables it */
    /* From now, not from the compare that cleared the counter: a handler that started late
     * (after a longer one) must not set a compare the counter has passed already, which would
     * come only when the 32-bit counter wraps, minutes later. */
    STRESS_T1_CAPTURE1 = 1;
    STRESS_T1_CC0 = STRESS_T1_CC1 + ticks;
#else
    STRESS_SYST_RVR = ticks; /* from the next reload on; reading CSR is not needed to ack */
#endif
}

/* Stops the timer for good; an interrupt already pending may still come until interrupts are
 * masked. */
BOARD_NOINSTR static inline void stress_timer_stop(void)
{
#ifdef BOARD_NRF51
    STRESS_T1_STOP = 1;
    STRESS_T1_INTENCLR = 1u << 16;
    STRESS_NVIC_ICER = 1u << STRESS_T1_IRQ;
    STRESS_NVIC_ICPR = 1u << STRESS_T1_IRQ;
#else
    STRESS_SYST_CSR = 0;
    STRESS_SCB_ICSR = STRESS_ICSR_PENDSTCLR;
#endif
    __asm__ volatile("dsb\n\tisb" ::: "memory");
}

#endif
