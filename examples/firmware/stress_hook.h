/* SPDX-License-Identifier: MIT */
/* stress_hook.h - where a timer interrupt of the stress programs landed: its handler gets the
 * stacked exception frame (the interrupted PC among it) and asks whether that PC lies inside
 * the runtime's hooks, __cyg_profile_func_enter and __cyg_profile_func_exit, or the board clock
 * they call (cygtrace_user_clock), which sections.ld places together between
 * __cygtrace_hooks_start and __cygtrace_hooks_end. It also notes every distinct
 * hook instruction an interrupt landed on, so that a run can say how much of the hooks it
 * covered. Included once per program; nothing here is instrumented. */
#ifndef STRESS_HOOK_H
#define STRESS_HOOK_H

#include <stdint.h>

#include "board.h"

/* The exception frame: r0 r1 r2 r3 r12 lr pc xpsr (then the FPU's, with a float context). */
#define STRESS_FRAME_LR 5
#define STRESS_FRAME_PC 6
#define STRESS_FRAME_XPSR 7
/* xPSR's IT/ICI bits: a PC moved elsewhere must not resume inside an IT block. */
#define STRESS_XPSR_IT_ICI 0x0600FC00u

/* STRESS_FRAME_HANDLER(name, fn): an exception handler name that calls
 * void fn(uint32_t *frame) with the frame the exception stacked; fn must be extern and used.
 * Thread mode runs on MSP in these programs and handlers always do, so the frame is at MSP on
 * entry. A tail call keeps EXC_RETURN in LR: fn's own return ends the exception. Through a
 * register: a 16-bit B (ARMv6-M) reaches 2 KB only, and the linker may place fn anywhere. */
#define STRESS_FRAME_HANDLER(name, fn)                                                             \
    __attribute__((naked, no_instrument_function)) void name(void)                                 \
    {                                                                                              \
        __asm__ volatile("mrs r0, msp\n\tldr r1, =" #fn "\n\tbx r1\n\t.ltorg");                    \
    }

extern const uint8_t __cygtrace_hooks_start[], __cygtrace_hooks_end[];

/* One bit per halfword of the hooks: an instruction starts on one. 512 bytes is several times
 * what the two hooks take on any core; a PC beyond it is noted as not covered. */
#define STRESS_HOOK_MAP_BYTES 512u
static uint32_t stress_hook_map[STRESS_HOOK_MAP_BYTES / 2u / 32u];

/* Returns 1 when pc lies inside the hooks. */
BOARD_NOINSTR static inline int stress_hook_has(uint32_t pc)
{
    return pc >= (uint32_t)(uintptr_t)__cygtrace_hooks_start &&
           pc < (uint32_t)(uintptr_t)__cygtrace_hooks_end;
}

/* Notes pc, when it lies in the hooks; returns 1 if it does. */
BOARD_NOINSTR static inline int stress_hook_note(uint32_t pc)
{
    uint32_t off;

    if (!stress_hook_has(pc))
        return 0;
    off = (pc - (uint32_t)(uintptr_t)__cygtrace_hooks_start) / 2u;
    if (off < STRESS_HOOK_MAP_BYTES / 2u)
        stress_hook_map[off / 32u] |= 1u << (off % 32u);
    return 1;
}

/* Returns how many distinct hook instructions an interrupt landed on. */
BOARD_NOINSTR static inline uint32_t stress_hook_pcs(void)
{
    uint32_t n = 0;

    for (unsigned i = 0; i < sizeof stress_hook_map / sizeof stress_hook_map[0]; i++)
        for (uint32_t w = stress_hook_map[i]; w; w &= w - 1u)
            n++;
    return n;
}

#endif
