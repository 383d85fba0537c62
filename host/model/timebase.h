/* SPDX-License-Identifier: GPL-3.0-or-later */
/* timebase.h - several traces on one clock. Each input's ticks become nanoseconds on a
 * common clock (the host's CLOCK_MONOTONIC) through one line, y = y0 + slope * (x - x0), x the
 * input's own time in ns (ticks / hz), and a manual shift (export --offset). The line comes
 * from what the input recorded:
 *   a Linux ring: the (ring clock, CLOCK_MONOTONIC) pairs of its map (FORMAT.md section 12),
 *                 a line through the first and the last;
 *   a saved stream: the host time each frame arrived at (FORMAT.md section 11.6) against the
 *                 target's time of the frame's last record, fitted by timebase_fit.
 * Every export format asks timebase_ns for an absolute time, and nothing else maps. */
#ifndef TIMEBASE_H
#define TIMEBASE_H

#include <stddef.h>
#include <stdint.h>

/* A point of a fit: the input's time x and the common clock's y, both ns. */
struct timebase_pt {
    int64_t x, y;
};

/* A fitted line, and how far the points lie above it (ns). */
struct timebase_fit {
    double slope;       /* common ns per input ns */
    int64_t x0, y0;     /* a point of the line */
    size_t n;           /* points used */
    double median, max; /* of y - line(x), never negative: the latency above the fastest */
};

/* Fits the lower envelope of the points (sorted in place): the line under all of them that
 * lies closest to them on average (the edge of their lower convex hull over their mean x).
 * The link's latency is never negative, so a late point lifts no part of it: jitter and
 * outliers cost nothing, only the fastest frames count. One point: slope 1 through it; two:
 * the line through both. 0, or -1 with no points. */
int timebase_fit(struct timebase_pt *p, size_t n, struct timebase_fit *f);

/* An input's map onto the common clock. */
struct timebase {
    uint64_t hz;       /* the input's ticks per second; 0: unknown (ticks taken as ns) */
    int mapped;        /* slope, x0 and y0 hold a line; else y = x */
    double slope;
    int64_t x0, y0;
    int64_t offset_ns; /* added after the line (--offset) */
};

/* Ticks as ns of the input's own clock (ticks when hz is 0), without overflow. */
int64_t timebase_own_ns(uint64_t hz, uint64_t ticks);

/* Sets tb's line to fit f. */
void timebase_set_fit(struct timebase *tb, const struct timebase_fit *f);

/* Sets tb's line through two (ticks, common ns) pairs, or one (t1 == t0 or n == 1: slope 1).
 * 0, or -1 when the pairs do not make a line (the later pair earlier on either clock). */
int timebase_set_pairs(struct timebase *tb, const uint64_t ticks[2], const int64_t ns[2],
                       unsigned n);

/* An input's ticks on the common clock, ns. */
int64_t timebase_ns(const struct timebase *tb, uint64_t ticks);

/* Parses "--offset"'s TIME: a signed number with a unit (ns, us, ms, s), "-1.5ms". 0, or -1. */
int timebase_parse_offset(const char *s, int64_t *ns);

#endif
