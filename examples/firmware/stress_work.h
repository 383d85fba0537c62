/* SPDX-License-Identifier: MIT */
/* stress_work.h - the main loop's instrumented calls in the stress programs (stress.c,
 * fault_hook.c), each program including it once so that it is built, instrumented, with it:
 *
 *     work_step(i) -> work_dive x (1 + i % STRESS_DEPTH) -> work_leaf
 *
 * The sequence of events this makes depends on i alone, so a test computes the event that any
 * sequence number must hold (tests/e2e/fw_seq.awk) and tells a stale or invented record from a
 * real one. The 6 steps of one turn of i % 6 make 66 events. */
#ifndef STRESS_WORK_H
#define STRESS_WORK_H

#include <stdint.h>

#define STRESS_DEPTH 6u /* work_dive() nests 1..STRESS_DEPTH deep */

/* Main context only: an interrupt never writes it, so plain increments are safe. */
static volatile uint32_t main_calls;
static volatile uint32_t sink;

void work_leaf(uint32_t i)
{
    main_calls++;
    sink += i;
}

void work_dive(uint32_t depth, uint32_t i)
{
    main_calls++;
    if (depth > 1u)
        work_dive(depth - 1u, i);
    else
        work_leaf(i);
}

void work_step(uint32_t i)
{
    main_calls++;
    work_dive(1u + i % STRESS_DEPTH, i);
}

#endif
