/* SPDX-License-Identifier: MIT */
/* stress.c - interrupts that record in the middle of a record. The main loop calls a chain of
 * instrumented functions of varying depth (stress_work.h) while a fast timer interrupt
 * (stress_timer.h: SysTick on the MPS2 boards, TIMER1 on the nRF51) calls an instrumented chain
 * of its own, so that interrupts land inside the hooks thousands of times, between a
 * reservation and its commit included. Two builds:
 *
 *   stress.elf     the ring stops when full (cygtrace_set_mode): nothing is overwritten and
 *                  every event is either in it or counted as lost. A large ring: over a
 *                  thousand interrupts between a reservation and its commit within the 32768
 *                  records of the MPS2 boards' ring, some sixty within the micro:bit's 1024.
 *   stress_ow.elf  -DSTRESS_OVERWRITE: the default ring of 512 records overwrites, and the run
 *                  is long enough to lap it a few hundred times; the interrupts land inside the
 *                  hooks all along, and the ring must hold the newest 512 events, whole.
 *   stress_armed.elf  stress_ow with STRESS_ARMED: a start trigger on work_step and a depth
 *                  limit armed, so that every event goes through the control area's slow path
 *                  (one TRIGGER record more, where the first work_step starts the recording).
 *
 * At the end the firmware prints what it knows:
 *
 *     stress: main=<calls> isr=<calls> isr_fit=<ISR chains whose first entry fit> \
 *             window=<interrupts between a reservation and its commit> \
 *             hook_pcs=<distinct hook instructions interrupted> steps=<work_step calls> \
 *             seed=<stress_seed, 0 for the built-in one>
 *     stress: done
 *
 * tests/e2e/fw_stress.sh and tests/e2e/fw_overwrite.sh check the pulled trace against them. */
#include "board.h"
#include "cyg_format.h"
#include "cygtrace_cm.h"
#include "stress_hook.h"
#include "stress_timer.h"
#include "stress_work.h"

#define NOINSTR BOARD_NOINSTR
#ifdef STRESS_OVERWRITE
#define STRESS_STEPS 12000u /* ~130000 events: the 512-record ring laps some 250 times */
#else
#define STRESS_STEPS 6000u /* main-loop steps: work_step() calls */
#endif

#if defined(BOARD_NRF51) && defined(STRESS_OVERWRITE)
/* 5..12 ticks of 62.5 ns: 312..750 instructions. The interrupt's four records take some 250
 * on the M0 and, unlike in stop mode, are never cut short by a full ring: shorter periods
 * would leave the main loop little time between two interrupts. */
#define STRESS_TICKS_MIN 5u
#define STRESS_TICKS_SPREAD 8u
#elif defined(BOARD_NRF51)
/* 3..10 ticks of 62.5 ns: with -icount shift=0 (1 ns per instruction) 187..625 instructions. */
#define STRESS_TICKS_MIN 3u
#define STRESS_TICKS_SPREAD 8u
#else
/* 5..16 ticks of 40 ns (AN505: 50 ns): with -icount shift=0 (1 ns per instruction) 200..640
 * instructions (AN505: 250..800). */
#define STRESS_TICKS_MIN 5u
#define STRESS_TICKS_SPREAD 12u
#endif

#ifdef STRESS_ARMED
/* The slow path takes some four times the fast path's instructions an event: the interrupt's
 * chain too, which at these periods would leave the main loop no time at all. */
#undef STRESS_TICKS_MIN
#define STRESS_TICKS_MIN 20u
#undef STRESS_TICKS_SPREAD
#define STRESS_TICKS_SPREAD 40u
#endif

/* Interrupt only; main reads them once the timer is stopped and interrupts are masked. */
static volatile uint32_t isr_calls, isr_fit, isr_window;
static uint32_t rng = 0x2545F491u;
/* Written by the test before the run, never by the startup code (.noinit): when not 0, the
 * periods' seed, so that runs differ in where the interrupts land (QEMU's RAM starts at 0). */
__attribute__((section(".noinit.stress"), used)) volatile uint32_t stress_seed;

/* ---- instrumented: what the trace must show, besides stress_work.h ------------------------- */

void tick_work(void)
{
    isr_calls++;
    sink ^= rng;
}

void tick_handler(void)
{
    isr_calls++;
    tick_work();
}

/* ---- not instrumented: the interrupt's frame, main ----------------------------------------- */

/* The next period, pseudo-random (xorshift32), so that the interrupts land everywhere in the
 * main loop's code, not at one point of a cycle. */
NOINSTR static uint32_t next_ticks(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return STRESS_TICKS_MIN + rng % STRESS_TICKS_SPREAD;
}

/* Before the instrumented chain records anything, the ring says how this interrupt fits:
 *   - head < capacity: tick_handler's entry will be written (nothing else runs until it has
 *     reserved: main is preempted, and there is one interrupt only): in stop mode the decoded
 *     trace must hold exactly isr_fit entries of tick_handler;
 *   - the last reserved record, head - 1, not written yet (its lap bit is not the one its
 *     sequence number gives it: zeroed memory on the first lap, the previous lap's after):
 *     main was interrupted between a hook's reservation and its commit, the window where a
 *     nested writer could corrupt it. */
NOINSTR __attribute__((used)) void stress_tick(uint32_t *frame)
{
    const struct cyg_ctl *ctl = cygtrace_control_block();
    const uint32_t *recs = (const uint32_t *)(const void *)((const uint8_t *)ctl + CYG_HDR_BYTES);
    uint32_t head = (uint32_t)ctl->head.v, cap = 1u << ctl->cap_log2;

    stress_timer_next(next_ticks());
    stress_hook_note(frame[STRESS_FRAME_PC]);
    if (head < cap)
        isr_fit++;
    /* In stop mode a sequence number from the capacity on was refused, not reserved. */
    if (head > 0 && (head <= cap || (ctl->flags & CYG_F_OVERWRITE))) {
        uint32_t seq = head - 1u, b = recs[(seq & (cap - 1u)) * (ctl->rec_bytes / 4u) + 1u];

        if ((b >> 31) != (((seq >> ctl->cap_log2) & 1u) ^ 1u))
            isr_window++;
    }
    tick_handler();
}
STRESS_FRAME_HANDLER(stress_tick_entry, stress_tick)
STRESS_TIMER_HANDLER(stress_tick_entry);

NOINSTR static void print_count(const char *name, uint32_t v)
{
    board_puts(name);
    board_putu(v);
}

/* Not instrumented: nothing records before the mode is set, and the loop's own frame adds no
 * event that the counts would have to name. */
NOINSTR int main(void)
{
#ifdef STRESS_OVERWRITE
    cygtrace_set_mode(CYGTRACE_MODE_OVERWRITE);
#else
    cygtrace_set_mode(CYGTRACE_MODE_STOP);
#endif
#ifdef STRESS_ARMED
    cygtrace_trigger_start((void *)work_step);
    cygtrace_set_depth(64);
#endif
    if (stress_seed != 0)
        rng = stress_seed;
    stress_timer_start(next_ticks());
    for (uint32_t i = 0; i < STRESS_STEPS; i++)
        work_step(i);
    stress_timer_stop();
    __asm__ volatile("cpsid i" ::: "memory");
    cygtrace_freeze();
    print_count("stress: main=", main_calls);
    print_count(" isr=", isr_calls);
    print_count(" isr_fit=", isr_fit);
    print_count(" window=", isr_window);
    print_count(" hook_pcs=", stress_hook_pcs());
    print_count(" steps=", STRESS_STEPS);
    print_count(" seed=", stress_seed);
    board_puts("\nstress: done\n");
    return 0;
}
