/* SPDX-License-Identifier: MIT */
/* fault_hook.c - a crash in the middle of a hook. The main loop makes the deterministic calls of
 * stress_work.h into an overwriting ring of 512 records while a timer interrupt, which records
 * nothing, looks at the PC it interrupted. Once the ring has lapped a few times, the first
 * interrupt that lands inside __cyg_profile_func_enter or __cyg_profile_func_exit makes the
 * interrupted code fault right there: it sends the return from the interrupt to an undefined
 * instruction, with the hook's registers and stack as they were, so that the HardFault goes
 * through the runtime's cygtrace_fault_handler as a real crash in the hook would (UDF is a
 * UsageFault, disabled at reset: it escalates to HardFault on every core).
 *
 * Where it lands varies with the trial's seed, which the test writes to fault_hook_seed before
 * the run (QEMU -device loader): the timer's period, and the delay between starting the timer
 * and starting the loop, come from it. The fault hook below prints
 *
 *     fault_hook: seed=<seed> period=<ticks> delay=<loops> hit_pc=<PC in the hook> \
 *                 head=<head when the interrupt came>
 *     fault_hook: frozen
 *
 * or, when no interrupt landed in a hook in FAULT_MAX_STEPS steps, "fault_hook: no hit" before
 * the "frozen" line. tests/e2e/fw_fault_in_hook.sh then checks that the ring holds exactly the
 * newest events of the deterministic sequence, the one being written when the fault came
 * either whole or absent, then the fault. */
#include "board.h"
#include "cyg_format.h"
#include "cygtrace_cm.h"
#include "stress_hook.h"
#include "stress_timer.h"
#include "stress_work.h"

#define NOINSTR BOARD_NOINSTR
#define FAULT_ARM_STEPS 300u  /* ~3300 events before: the ring laps some 6 times */
#define FAULT_MAX_STEPS 3000u /* then the trial gives up */
#ifdef BOARD_NRF51
#define FAULT_TICKS_MIN 3u /* 3..10 ticks of 62.5 ns: 187..625 instructions */
#define FAULT_TICKS_SPREAD 8u
#else
#define FAULT_TICKS_MIN 5u /* 5..16 ticks of 40 ns (AN505: 50 ns): 200..640 (800) instructions */
#define FAULT_TICKS_SPREAD 12u
#endif
#define FAULT_DELAY_SPREAD 1024u /* loops of a few instructions each */

/* Written by the test before the run, never by the startup code (.noinit): 0 when not given,
 * as QEMU's RAM starts. */
__attribute__((section(".noinit.fault_hook"), used)) volatile uint32_t fault_hook_seed;

static uint32_t period, delay;
/* Interrupt only, read by the fault hook once the trace is frozen. */
static volatile uint32_t armed, hit_pc, hit_head;

/* Where the interrupted hook resumes: an undefined instruction, so the fault is the hook's. */
NOINSTR __attribute__((naked, noreturn)) void fault_inject(void)
{
    __asm__ volatile("udf #0");
}

/* Records nothing, and returns at once unless it interrupted a hook after main armed it. */
NOINSTR __attribute__((used)) void fault_tick(uint32_t *frame)
{
    const struct cyg_ctl *ctl = cygtrace_control_block();
    uint32_t pc = frame[STRESS_FRAME_PC];

    stress_timer_next(period);
    if (!armed || !stress_hook_has(pc))
        return;
    hit_pc = pc;
    hit_head = (uint32_t)ctl->head.v;
    stress_timer_stop();
    frame[STRESS_FRAME_PC] = (uint32_t)(uintptr_t)fault_inject & ~1u;
    frame[STRESS_FRAME_XPSR] &= ~STRESS_XPSR_IT_ICI;
}
STRESS_FRAME_HANDLER(fault_tick_entry, fault_tick)
STRESS_TIMER_HANDLER(fault_tick_entry);

NOINSTR static void print_count(const char *name, uint32_t v)
{
    board_puts(name);
    board_putu(v);
}

NOINSTR static void print_trial(void)
{
    print_count("fault_hook: seed=", fault_hook_seed);
    print_count(" period=", period);
    print_count(" delay=", delay);
}

/* Called by cygtrace_fault_handler once the trace is frozen. */
NOINSTR void cygtrace_cm_fault_hook(void)
{
    print_trial();
    print_count(" hit_pc=", hit_pc);
    print_count(" head=", hit_head);
    board_puts("\nfault_hook: frozen\n");
    board_idle();
}

/* Not instrumented: the events are those of work_step() alone. */
NOINSTR int main(void)
{
    uint32_t seed = fault_hook_seed;

    cygtrace_set_mode(CYGTRACE_MODE_OVERWRITE);
    period = FAULT_TICKS_MIN + seed % FAULT_TICKS_SPREAD;
    delay = seed / FAULT_TICKS_SPREAD % FAULT_DELAY_SPREAD;
    stress_timer_start(period);
    /* Shifts the loop against the timer by a few instructions per loop. */
    for (volatile uint32_t n = delay; n != 0; n--)
        ;
    for (uint32_t i = 0; i < FAULT_MAX_STEPS; i++) {
        if (i == FAULT_ARM_STEPS)
            armed = 1;
        work_step(i);
    }
    stress_timer_stop();
    __asm__ volatile("cpsid i" ::: "memory");
    cygtrace_freeze();
    print_trial();
    board_puts("\nfault_hook: no hit\nfault_hook: frozen\n");
    board_idle();
}
