/* SPDX-License-Identifier: GPL-3.0-or-later */
/* calltime.h - how long each call of one context took, as fnstat, graph and the exports count
 * it (see fnstat.h): a tree sink (calltime_sink) with a stack of levels that knows when each
 * open call was entered, the last event seen inside it and its children's time, and tells its
 * user (struct calltime_ops) every call that ends with the part of its time that is known:
 *   - a call that returned: from its entry to its exit;
 *   - one that never returned, or is still open at the end: from its entry to the last event
 *     seen inside it (its entry, a child's entry or end);
 *   - one entered before the trace (or a loss): from the context's first event after that to
 *     its exit, its children being those that ended since.
 * The user's own per-level data rides along in the same array: its level struct begins with a
 * struct calltime_level, and calltime_init says how large it is. Memory: one level per stack
 * level, never the length of the trace. */
#ifndef CALLTIME_H
#define CALLTIME_H

#include <stddef.h>
#include <stdint.h>

#include "model/tree.h"

/* The first member of a user's level. A level below the first entry (a frame from before the
 * trace) is never entered but still gathers its children's times. */
struct calltime_level {
    uint64_t addr;      /* the function entered here; 0 while unknown */
    int open;           /* entered here and not yet exited */
    uint64_t t_enter;
    uint64_t last;      /* time of the last event inside: its entry, a child's entry or end */
    uint64_t kids;      /* inclusive times of its children */
    uint64_t kids_base; /* ... of those that ended since the trace (or the last loss) began */
};

enum calltime_how {
    CALLTIME_RETURNED, /* known from its entry to its exit */
    CALLTIME_OPEN,     /* never returned, or open at the end: known up to its last event */
    CALLTIME_BEFORE,   /* entered before the trace or a loss: known from the first event since */
};

/* A call that ends, as the user's close hook sees it. */
struct calltime_call {
    uint64_t addr;               /* the function */
    uint64_t dur;                /* the known part of its time */
    uint64_t kids;               /* its children's time within dur */
    uint64_t start, end;         /* when the known part begins and ends */
    enum calltime_how how;
    const struct wval_set *vals; /* CALLTIME_RETURNED: the tree frame's values, else NULL */
};

struct calltime;

/* What a user of a stack does at each step; arg is calltime_init's. */
struct calltime_ops {
    /* Level d was just entered (its struct calltime_level filled in, the rest as blank):
     * fills in the rest. -1 when it cannot (out of memory): the level is left closed. */
    int (*enter)(void *arg, struct calltime *ct, unsigned d, const struct tree_frame *f);
    /* The call at level d ends (for CALLTIME_BEFORE, the level may hold an older frame, open
     * or not). -1 when it could not be counted: its parent does not gather it. */
    int (*close)(void *arg, struct calltime *ct, unsigned d, const struct calltime_call *c);
    /* Level d is cleared without its call ending: the tree dropped it without an exit (a
     * frame a loss made unknown), or the level is taken by another call. May be NULL. */
    void (*drop)(void *arg, struct calltime *ct, unsigned d);
    /* An event that is no call (the tree's special), after a loss was taken. May be NULL. */
    void (*special)(void *arg, struct calltime *ct, const struct ev *e, unsigned d);
    /* The tree finished and the stack is empty again. May be NULL. */
    void (*finished)(void *arg, struct calltime *ct);
};

struct calltime {
    struct tree_sink sink;
    uint64_t *failed;     /* counts the events not accounted for (out of memory) */
    const struct calltime_ops *ops;
    void *arg;
    void *lvl;            /* cap levels of size bytes each */
    size_t size;
    const void *blank;    /* what a cleared level holds; NULL: zeros */
    unsigned n;           /* levels in use (the deepest touched + 1; from n up all are
                             blank) */
    size_t cap;           /* levels allocated */
    int need_base;        /* the next event's time is t_base */
    uint64_t t_base;      /* the first event after the trace (or a loss) began */
};

/* Sets up an empty stack whose levels are size bytes (a struct calltime_level first); blank
 * (may be NULL: zeros) is what a level holds when nothing is in it. What could not be
 * accounted for (out of memory) is counted in *failed. */
void calltime_init(struct calltime *ct, const struct calltime_ops *ops, void *arg, size_t size,
                   const void *blank, uint64_t *failed);

/* The sink that gives the tree's events to ct (and ct's ops); valid while ct lives. */
const struct tree_sink *calltime_sink(struct calltime *ct);

/* Level d (below cap): the user's struct, its struct calltime_level first. */
static inline void *calltime_at(const struct calltime *ct, unsigned d)
{
    return (char *)ct->lvl + (size_t)d * ct->size;
}

/* Frees the levels. */
void calltime_free(struct calltime *ct);

#endif
