/* SPDX-License-Identifier: GPL-3.0-or-later */
/* filter.h - what tree, report and export leave out: a layer between the tree builder and a
 * sink (a struct tree_sink that filters and forwards), plus a test on events for the time
 * range, applied before the tree builder so that every output (and the scan that finds each
 * context's starting depth) sees the same events.
 *
 * The sink layer, per context:
 *   only     the subtrees of one function: its outermost open call is depth 0 downstream;
 *            a call entered before the trace (named only by its exit) is not matched.
 *   hide     one function and everything it calls are left out.
 *   depth    calls deeper than max_depth levels (after `only`) are left out.
 *   min      calls shorter than min ticks are left out with their subtrees. Whether a call is
 *            short is known at its exit, or as soon as an event inside it comes min ticks after
 *            its entry: until then its events are held. At most FILTER_HOLD events are held;
 *            when that is not enough the outermost undecided call is kept (counted in
 *            filter_forced). A call still open at the end is kept (its length is unknown).
 * Memory: FILTER_HOLD held events and one slot per stack level. */
#ifndef FILTER_H
#define FILTER_H

#include <stdint.h>

#include "decode/dec.h"
#include "model/tree.h"

#define FILTER_HOLD 16384u

struct filter_opts {
    unsigned max_depth; /* 0: all */
    int have_only;
    uint64_t only;      /* run-time address of the function whose subtrees are kept */
    int have_hide;
    uint64_t hide;      /* run-time address of the function left out */
    uint64_t min;       /* ticks; 0: no minimum */
    /* Not a filter, but what every chain's tree takes too: the hooks' cost taken out of the
     * times (tree_set_hook_cost; cost 0: times as recorded). */
    struct tree_hook hook;
};

/* A duration as written: a number of ticks, or of nanoseconds (from a unit). */
struct filter_dur {
    int unit;        /* 0: ticks, 1: ns */
    uint64_t value;
};

/* The time range test: events from..to ticks after the trace's first event (inclusive). */
struct filter_time {
    int on;
    int have_from, have_to;
    uint64_t from, to; /* ticks */
    int have_t0;
    uint64_t t0;       /* the first event's time */
};

struct filter;

/* Returns 1 if any of o's filters is on. */
int filter_active(const struct filter_opts *o);

/* A filter in front of out (copied). NULL when out of memory. */
struct filter *filter_new(const struct tree_sink *out, const struct filter_opts *o);

/* The sink to give the tree builder; valid while the filter lives. */
const struct tree_sink *filter_sink(struct filter *f);

/* Returns how many calls were kept only because FILTER_HOLD events were not enough to tell. */
uint64_t filter_forced(const struct filter *f);

/* Returns 1 if any event was dropped for lack of memory. */
int filter_failed(const struct filter *f);

/* Frees the filter. NULL is fine. */
void filter_free(struct filter *f);

/* Parses "10us", "2ms", "1s", "500ns", "1.5ms" or a plain number of ticks ("1000",
 * "1000ticks"); 0, or -1 when s is not a duration. */
int filter_parse_duration(const char *s, struct filter_dur *d);

/* Parses "A..B" where either side may be empty; 0, or -1 when s is not a range. */
int filter_parse_range(const char *s, struct filter_time *t, struct filter_dur *from,
                       struct filter_dur *to);

/* Converts d to ticks of a hz clock into *ticks; -1 when d has a unit and hz is unknown (0). */
int filter_ticks(const struct filter_dur *d, uint64_t hz, uint64_t *ticks);

/* Returns 1 if event e falls in the range (always when t->on is 0, and for thread, context,
 * start and stop records); the first call or return sets the origin. Events must come in
 * trace order, the same for every pass. */
int filter_time_keep(struct filter_time *t, const struct ev *e);

#endif
