/* SPDX-License-Identifier: GPL-3.0-or-later */
/* stress_pattern.h - what the stress workload (stress_linux.c) must have done, as data: the
 * checker (stress_check.c) compares every decoded event with it.
 *
 * Each worker thread has a family of 12 functions of its own: top0..3, mid0..3, leaf0..3.
 * It calls top0, top1, top2, top3, top0, ... ; top j calls mid (j + k) % 4 for k = 0..j, and
 * mid m calls leaf (m + i) % 4 for i = 0..m. Its events are therefore one fixed cycle, repeated,
 * in which each top's entry comes once: the checker finds its place in the cycle again at the
 * first top entry after a gap. The signal handler calls h0, which calls h1 then h2: six events,
 * each (function, kind) once, that nest between any two of the worker's events.
 *
 * The program implements the same shape with calls and loops; this file only describes it, so
 * that a mistake in either shows as a mismatch. */
#ifndef STRESS_PATTERN_H
#define STRESS_PATTERN_H

#include <stddef.h>
#include <stdint.h>

/* stress_linux's ring when its options do not say (stress_check passes them to the runtime). */
#define STRESS_DEFAULT_OUT "stress.ring"
#define STRESS_DEFAULT_RING "64K"
#define STRESS_DEFAULT_MODE "overwrite"

#define STRESS_FAMILIES 4u  /* worker families: at most this many worker threads */
#define STRESS_FNS 12u      /* functions per family: index = level * 4 + j */
#define STRESS_FAM_HANDLER STRESS_FAMILIES       /* the handler's h0, h1, h2 */
#define STRESS_FAM_SETUP (STRESS_FAMILIES + 1u)  /* main's stress_setup(), called once */
#define STRESS_FAM_ALL (STRESS_FAMILIES + 2u)
#define STRESS_TOP 0u
#define STRESS_MID 4u
#define STRESS_LEAF 8u
#define STRESS_CYCLE_MAX 128u /* events in a worker cycle: 100 */
#define STRESS_HANDLER_LEN 6u

struct stress_step {
    uint8_t fn;   /* index in the family */
    uint8_t exit; /* 1: exit, 0: entry */
};

/* Appends the events of one call of function fn of a worker family (and its callees). */
static inline __attribute__((no_instrument_function)) size_t
stress_call(struct stress_step *out, size_t n, unsigned fn)
{
    unsigned level = fn / 4u, j = fn % 4u;

    out[n++] = (struct stress_step){(uint8_t)fn, 0};
    if (level < 2)
        for (unsigned k = 0; k <= j; k++)
            n = stress_call(out, n, (level + 1u) * 4u + (j + k) % 4u);
    out[n++] = (struct stress_step){(uint8_t)fn, 1};
    return n;
}

/* Fills out (STRESS_CYCLE_MAX steps) with a worker's cycle; returns its length. */
static inline __attribute__((no_instrument_function)) size_t
stress_cycle(struct stress_step *out)
{
    size_t n = 0;

    for (unsigned j = 0; j < 4; j++)
        n = stress_call(out, n, STRESS_TOP + j);
    return n;
}

/* The handler's six events. */
static const struct stress_step stress_handler[STRESS_HANDLER_LEN] = {
    {0, 0}, {1, 0}, {1, 1}, {2, 0}, {2, 1}, {0, 1},
};

#endif
