/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mono.h - the monotonic clock, for timeouts, rates and how long a message stays: never the
 * wall clock, which may jump. */
#ifndef MONO_H
#define MONO_H

#include <stdint.h>
#include <time.h>

/* Seconds on the monotonic clock, from an arbitrary start. */
static inline double mono_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Milliseconds on the monotonic clock, from an arbitrary start (deadlines). */
static inline int64_t mono_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Nanoseconds on the monotonic clock (the clock that merged traces share, timebase.h). */
static inline int64_t mono_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#endif
