/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tree.h - the call tree builder: one context's events in, a consistent nesting out.
 *
 * It owns the repairs: a trace that starts deep in the stack (the writer lapped the oldest
 * entries), exits whose entry is gone, frames that never exit (longjmp, exit(), a crash), a
 * gap in a live stream, and, with call sites, calls made after a longjmp. Renderers only see
 * well-nested calls. Memory is the depth of the stack, never the length of the trace.
 * The runtime records setjmp and longjmp (EV_SETJMP, EV_LONGJMP): a longjmp to a buffer whose
 * setjmp the trace holds closes exactly the calls it skipped, with or without call sites. */
#ifndef TREE_H
#define TREE_H

#include <stdint.h>

#include "decode/dec.h"
#include "decode/wval.h"

struct tree_frame {
    uint64_t addr;        /* function's run-time address; 0 while unknown (entered before
                             the trace) */
    uint64_t site;        /* call site, 0 if not recorded */
    uint64_t t_enter;     /* timestamp ticks at entry (0 if unknown) */
    uint8_t before_trace; /* entered before the oldest event the trace holds, or in a loss */
    uint8_t entry_lost;   /* entered while events were lost (a gap in a live stream) */
    uint8_t inlined;      /* inlined into the frame below: site is that frame's, not its own */
    const struct wval_set *vals; /* a wrapped call's arguments (and, at its exit, return value),
                                    or NULL: valid until a call is entered at this depth again */
};

enum tree_exit_how {
    TREE_RETURNED,     /* its exit was recorded */
    TREE_ABANDONED,    /* it never returned: a caller's exit, or a call made from further down
                          the stack, proved it gone (longjmp, an exception) */
    TREE_BEFORE_TRACE, /* returned; its entry came before the trace begins (entry_lost: in a
                          loss) */
    TREE_JUMPED,       /* it never returned: a longjmp to a setjmp made below it (EV_LONGJMP,
                          resolved by the EV_SETJMP of its buffer) */
    TREE_HOLE,         /* its exit is not in the trace, as TREE_ABANDONED, but it was open at a
                          hole of its context (EV_HOLE): the exit may be what the hole lost */
};

/* Whether a frame that ends so has no exit in the trace. */
static inline int tree_never_returned(enum tree_exit_how how)
{
    return how == TREE_ABANDONED || how == TREE_JUMPED || how == TREE_HOLE;
}

/* What a renderer implements. depth is the frame's distance from the bottom of the stack. A
 * call's enter comes once the events after its entry are known not to be its arguments (the
 * next event of its context, or the end), so that f->vals holds them. */
struct tree_sink {
    void *arg;
    void (*enter)(void *arg, const struct tree_frame *f, unsigned depth);
    void (*exit)(void *arg, const struct tree_frame *f, unsigned depth, uint64_t t_exit,
                 enum tree_exit_how how);
    void (*special)(void *arg, const struct ev *e, unsigned depth);
    /* At the end of the trace: the frames still open, bottom first (after a crash: the
     * backtrace). n may be 0. */
    void (*finish)(void *arg, const struct tree_frame *stack, unsigned n);
    /* Optional (NULL: not wanted): a value came for the open call f after its enter was told
     * (tree_sync), as a live view wants it. */
    void (*values)(void *arg, const struct tree_frame *f, unsigned depth);
};

/* The ticks from one timestamp to a later one; 0 when to is not later (a clock that wrapped,
 * a reordered stream, or no timestamps at all). */
static inline uint64_t tree_span(uint64_t from, uint64_t to)
{
    return to > from ? to - from : 0;
}

/* Maps an address to the run-time start of the function holding it, 0 when unknown. */
typedef uint64_t (*tree_func_of)(void *arg, uint64_t addr);

struct tree;

/* Starts a tree whose first events sit start_depth calls deep (see tree_scan). func_of may be
 * NULL; with it, call sites repair the nesting after a longjmp. NULL when out of memory. */
struct tree *tree_new(const struct tree_sink *sink, unsigned start_depth, tree_func_of func_of,
                      void *func_arg);

/* Feeds one event of this tree's context; -1 when out of memory. */
int tree_feed(struct tree *t, const struct ev *e);

/* Says that events of this context may have been lost here (a live stream's EV_LOST, which
 * tree_feed takes too): the open frames stay open; an exit that names none of them closes a
 * call made in the loss. */
void tree_lost(struct tree *t);

/* Says that a record of this context was lost here, in a hole of its chunk (EV_HOLE, which
 * tree_feed takes too): a call open now that later closes without its exit is said to have
 * lost it in the hole (TREE_HOLE), not to have been unwound. */
void tree_hole(struct tree *t);

/* Tells the sink of the call entered last now, without waiting for the next event (a live view
 * shows a call as it is entered); its values come through the sink's values. */
void tree_sync(struct tree *t);

/* Says that the addresses fed to t are link-time ones, bias less than those recorded: a value's
 * check bits are of the recorded address. */
void tree_set_value_bias(struct tree *t, uint64_t bias);

/* What the hooks cost the program, to take out of the times (tree_set_hook_cost). */
struct tree_hook {
    uint32_t cost;       /* 1/256 tick an event (CYG_HOOK_COST_MASK bits); 0: nothing taken */
    int global;          /* 1: every record of the trace costs (one core, whose interrupts and
                            tasks preempt each other); 0: the context's own call events only
                            (threads that run side by side) */
    uint32_t page_cost;  /* ticks more after a record that is the first of its memory page in
                            the ring's first lap (the page faults in); 0: none */
    unsigned page_log2;  /* the page's size */
    unsigned rec_bytes;  /* the ring's record size ... */
    unsigned cap_log2;   /* ... and capacity: the first lap's records, and where pages start */
};

/* Takes the hooks' own cost out of the times the sink sees (docs/tree.md, "Durations you can
 * trust"): each event owes its cost (h->cost, and h->page_cost when its record started a page)
 * to the gap after it, and with h->global the records of other contexts reserved in a gap owe
 * theirs to it; a gap pays what is owed as far as it is long, never going below 0 (a clock that
 * steps back is left as it steps), and the rest stays owed to the next. So a call with k calls
 * nested inside it loses (2k + 1) * cost of its duration, its self time (m + 1) * cost for m
 * direct children, as long as no gap runs dry. h NULL or h->cost 0: times as recorded. */
void tree_set_hook_cost(struct tree *t, const struct tree_hook *h);

/* Ends the trace: reports the frames still open to the sink. */
void tree_finish(struct tree *t);

/* Returns how many exits matched no frame at all (counted, not shown as calls). */
uint64_t tree_unmatched(const struct tree *t);

/* Returns how many longjmps the tree could not resolve: their buffer's setjmp is not in the
 * trace (before it, or lost), so the calls they skipped stay open until an exit or a call
 * site proves them gone. */
uint64_t tree_jumps_unresolved(const struct tree *t);

/* Returns how many value records (EV_VALUE) belonged to no call the trace shows: their call's
 * entry was lost, or words of them were. */
uint64_t tree_stray_values(const struct tree *t);

/* Frees the tree. NULL is fine. */
void tree_free(struct tree *t);

struct tree_scan {
    struct dec_ctx *ctx; /* in order of first appearance */
    unsigned n, cap;
    struct oaindex ctx_ix;  /* ctx by id (dec_ctx_get) */
    unsigned last;          /* the context of the latest event (tree_scan_ctx) */
    int want_index;         /* set before pipeline_scan: index where each context's records lie */
    struct dec_index index; /* the index, for passes over one context (dec_only); n 0: none */
};

/* The scan's context id, added when it is new; NULL when out of memory. */
struct dec_ctx *tree_scan_ctx(struct tree_scan *s, uint32_t id);

/* Accounts one event in the scan; -1 when out of memory. */
int tree_scan_add(struct tree_scan *s, const struct ev *e);

/* Frees the scan's contexts and index. */
void tree_scan_free(struct tree_scan *s);

#endif
