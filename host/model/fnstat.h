/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fnstat.h - per-function statistics of call trees: calls, inclusive and self time, the
 * longest call. It sits behind the tree builder (a struct tree_sink per context), so it sees
 * well-nested calls, whatever the trace's repairs were. It backs the live view's table and
 * `cygtrace report`; it knows nothing of curses or text.
 *
 * What is counted, per function address (times in timestamp ticks; all 0 without them):
 *   calls    every frame the tree reports: returned, never returned (TREE_ABANDONED), entered
 *            before the trace or before a loss (TREE_BEFORE_TRACE), and still open when the
 *            tree finishes. The last three are also counted in `partial`: only part of their
 *            time is known, and that part is what counts:
 *              - never returned, or open at the end: from its entry to the last event seen
 *                inside it (its entry, a child's entry or end); whatever ran after that is
 *                not known to be its own;
 *              - entered before the trace (or a loss): from the context's first event after
 *                the trace began (or after the loss) to its exit: every event of the context
 *                in between happened inside it.
 *   total    inclusive time, each instant counted once per function and context: a call of f
 *            running inside another call of f in the same context (recursion, direct or
 *            through other functions) adds nothing the outer call does not add. It is done
 *            without looking up the stack: each context keeps, per function, the total time
 *            counted so far; a call adds its duration minus what calls of f nested inside it
 *            added meanwhile (the difference of that sum between its entry and its exit), so
 *            the outermost activation ends up adding exactly its own duration.
 *   self     the call's time minus its children's times, summed over every call (recursive
 *            ones too: the self times of a context add up to the time of its outermost calls).
 *   max      the longest single call (inclusive; a partial call's known part).
 * A row appears at its function's first entry: calls is 0 while that first call runs.
 * Calls of different contexts (threads, firmware contexts) run at the same time: their times
 * are all added up. Memory: one row per function, and per context one slot per stack level
 * and one per function it called. */
#ifndef FNSTAT_H
#define FNSTAT_H

#include <stddef.h>
#include <stdint.h>

#include "symbols/sym.h"
#include "model/tree.h"

struct fnstat_row {
    uint64_t addr;    /* the function's address as the tree saw it */
    const char *name; /* its symbol's name when the table has one starting there, else NULL */
    uint64_t calls;
    uint64_t partial; /* calls whose time is only partly known (see above) */
    uint64_t total;   /* inclusive ticks, recursion counted once */
    uint64_t self;    /* exclusive ticks */
    uint64_t max;     /* longest call, inclusive ticks */
};

enum fnstat_key {
    FNSTAT_BY_CALLS,
    FNSTAT_BY_TOTAL,
    FNSTAT_BY_SELF,
    FNSTAT_BY_MAX,
    FNSTAT_BY_NAME,
    FNSTAT_KEYS /* how many keys there are */
};

struct fnstat;

/* A new, empty table. sym (may be NULL) names the rows; bias is the run-time minus link-time
 * address of the addresses the trees will give. NULL when out of memory. */
struct fnstat *fnstat_new(const struct sym_table *sym, uint64_t bias);

/* The sink for context ctx's tree: each context has its own stack, so several trees (one per
 * context) may feed one table. Asking again for a context gives the same sink; after the tree
 * finished, a new tree of that context may use it. Valid while the table lives; NULL when out
 * of memory. */
const struct tree_sink *fnstat_sink(struct fnstat *s, uint32_t ctx);

/* Returns the rows sorted by key (the largest first; by name: A to Z, unnamed ones after, by
 * address; ties by address), in an array the table owns that stays valid until the next call
 * of fnstat_rows or fnstat_free. *n gets the number of rows. NULL (and *n = 0) when out of
 * memory or empty. */
const struct fnstat_row *fnstat_rows(struct fnstat *s, enum fnstat_key key, size_t *n);

/* Sorts n rows (a copy of what fnstat_rows gave: a table frozen on screen) as fnstat_rows
 * does. */
void fnstat_sort(struct fnstat_row *rows, size_t n, enum fnstat_key key);

/* Returns the number of functions seen. */
size_t fnstat_count(const struct fnstat *s);

/* Returns how many events a sink could not account for (out of memory): 0 when every number
 * is exact. */
uint64_t fnstat_dropped(const struct fnstat *s);

/* Returns the key's short name: "calls", "total", "self", "max", "name". */
const char *fnstat_key_name(enum fnstat_key key);

/* Frees the table and its sinks. NULL is fine. */
void fnstat_free(struct fnstat *s);

#endif
