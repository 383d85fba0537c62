/* SPDX-License-Identifier: GPL-3.0-or-later */
/* vlines.h - the live view's model: every context's calls as lines, as they happen, and the
 * per-function table behind them. No curses: view.c draws it, the tests drive it directly.
 *
 * One call tree per context (tree.h), each call a line added at its entry so that the tree
 * grows live; its duration is filled in when it returns. A call with callees reads
 * "name() {", its duration on this opening line, down to a closing "}" line that names it
 * again; one without is "name();". Marks, faults, losses, triggers that fired and what the
 * scheduler did ("-- blocked on queue "jobs" (receive)") are lines of their own. Behind the
 * trees, the per-function table (fnstat.h).
 *
 * Lines have ids that only grow; the store keeps the newest ones up to a bound, the oldest go
 * first, except while paused, when the new ones are not kept instead (a line says how many on
 * resume). A line is shown when it is kept, not newer than the pause, not under a folded call,
 * and inside the filter (a call whose function's name holds the filter text, or under one).
 *
 * Addresses are made link-time (the bias taken off) before they reach the trees: names, the
 * call-site repair and the table then do not care about where the program was loaded. */
#ifndef VLINES_H
#define VLINES_H

#include <stddef.h>
#include <stdint.h>

#include "decode/dec.h"
#include "model/fnstat.h"
#include "model/graph.h"
#include "symbols/names.h"
#include "symbols/sym.h"

#define VLINES_NONE UINT64_MAX   /* no line: "from the oldest" as a start, "none" as a result */
#define VLINES_NO_CTX UINT32_MAX /* the context of a line that has none (a loss, a note) */
#define VLINES_FILTER_MAX 128u   /* the filter's text is cut to this, terminator included */
#define VLINES_NOTE_MAX 256u     /* the hook-cost note is cut to this, terminator included */

/* A line's flags (vlines_flags). */
#define VLINES_KIDS (1u << 0)    /* a call line with calls under it */
#define VLINES_DONE (1u << 1)    /* the call ended (returned, or never will) */
#define VLINES_NORET (1u << 2)   /* it never returned (longjmp, unwound) */
#define VLINES_LOSTEND (1u << 3) /* its end is not known: lost, or the trace started over */
#define VLINES_FOLD (1u << 4)    /* folded: the lines under it are hidden */
#define VLINES_ALERT (1u << 5)   /* a fault, a loss or a trigger that fired: always shown (the
                                    screen: in bold) */
#define VLINES_BEFORE (1u << 6)  /* a closing line of a call entered before the trace (a loss) */
#define VLINES_INLOSS (1u << 7)  /* ... with VLINES_BEFORE: entered while events were lost */

/* What the trace is, as vlines_configure last said. */
struct vlines_conf {
    int configured; /* 0 until the first vlines_configure: events are ignored until then */
    const struct sym_table *sym; /* may be NULL */
    uint64_t bias;               /* run-time minus link-time addresses */
    uint64_t ts_hz;
    int has_time;
    unsigned addr_width; /* hex digits of an address (8: a 32-bit target) */
};

struct vlines;
struct tree_hook;

/* An empty model that keeps at most max lines (max > 0). NULL when out of memory. */
struct vlines *vlines_new(uint64_t max);

/* Says what the trace is (see struct vlines_conf). Calling it again starts every context's
 * tree over (a new description, a new run of the program), with a line that says so; the lines
 * and the table stay, unless sym changed: the table's names point into it, so the table starts
 * anew. Returns 1 when it did (rows given earlier are gone), else 0. */
int vlines_configure(struct vlines *m, const struct sym_table *sym, uint64_t bias,
                     uint64_t ts_hz, int has_time, unsigned addr_width);

/* Takes the hooks' own cost out of the durations shown and the table's times, as tree and
 * --plain do (tree_set_hook_cost): every context's tree from now on, those started by a later
 * vlines_configure too. h NULL or h->cost 0: times as recorded (--raw-times), and no note.
 * note: the line that says so (cmd_hook_note's), which vlines_hook_note gives back; the view
 * shows it in the tree pane's header. Call it after vlines_configure, before the events. */
void vlines_set_hook_cost(struct vlines *m, const struct tree_hook *h, const char *note);

/* The note of the hooks' cost taken out (vlines_set_hook_cost), or NULL when nothing is. */
const char *vlines_hook_note(const struct vlines *m);

/* Returns what the trace is; configured is 0 before the first vlines_configure. */
const struct vlines_conf *vlines_conf(const struct vlines *m);

/* Feeds one event to the trees and the table (also while paused: only what is shown waits). */
void vlines_event(struct vlines *m, const struct ev *e);

/* Returns the number of contexts seen (the screen shows a context column beyond one). */
unsigned vlines_contexts(const struct vlines *m);

/* The name context id goes by (names_ctx_called: its NAME records, else its handle's function),
 * or NULL; buf (len bytes) may hold it. */
const char *vlines_ctx_name(const struct vlines *m, uint32_t id, char *buf, size_t len);

/* What the NAME and CONTEXT records fed so far say (NULL when out of memory). */
const struct names *vlines_names(const struct vlines *m);

/* Returns the id of the oldest line kept; ids only grow. */
uint64_t vlines_first(const struct vlines *m);

/* Returns the id the next line will get: the lines kept are first .. end - 1. */
uint64_t vlines_end(const struct vlines *m);

/* Returns the context of kept line id, or VLINES_NO_CTX. */
uint32_t vlines_ctx(const struct vlines *m, uint64_t id);

/* Returns the depth kept line id is indented to: its call's depth, 0 for an alert. */
unsigned vlines_depth(const struct vlines *m, uint64_t id);

/* Returns kept line id's VLINES_* flags as shown: while paused, a call that ended after the
 * pause is shown still running. */
unsigned vlines_flags(const struct vlines *m, uint64_t id);

/* Returns 1 and the duration in ticks when kept line id shows one (a call that returned, on
 * its own line, or on its closing line when the call's line is gone), else 0. */
int vlines_dur(const struct vlines *m, uint64_t id, uint64_t *ticks);

/* Writes kept line id's text, indentation not included: "name() {", "name();", a closing "}"
 * that names its call, a note; then what is known of its end ("  (never returned)"). */
void vlines_text(const struct vlines *m, uint64_t id, char *buf, size_t len);

/* Folds or unfolds the call at *id (a closing line: its call, and *id moves there). Returns 0,
 * or -1 when there are no calls under it to fold. */
int vlines_fold(struct vlines *m, uint64_t *id);

/* Shows only the calls whose function's name holds text, and what is under them ("" or NULL:
 * all); alerts are always shown. */
void vlines_set_filter(struct vlines *m, const char *text);

/* Returns the filter's text, "" when there is none. */
const char *vlines_filter(const struct vlines *m);

/* Returns 1 when line id is shown, else 0 (VLINES_NONE: 0). */
int vlines_shown(struct vlines *m, uint64_t id);

/* Returns the nearest shown line after id (VLINES_NONE: the oldest shown), or VLINES_NONE. */
uint64_t vlines_next(struct vlines *m, uint64_t id);

/* Returns the nearest shown line before id (VLINES_NONE: the newest shown), or VLINES_NONE. */
uint64_t vlines_prev(struct vlines *m, uint64_t id);

/* Returns the next shown line after from whose name (a call) or text (a note) holds text,
 * going around from the oldest up to from itself; closing lines never match, their call's line
 * does. VLINES_NONE as from: all shown lines, oldest first. VLINES_NONE when none matches. */
uint64_t vlines_find(struct vlines *m, uint64_t from, const char *text);

/* Pauses (on = 1) or resumes what is shown: while paused the lines and the table shown stay as
 * they were, newer lines are kept but not shown, and when the store is full new lines are not
 * kept (counted; a line says how many on resume). The model goes on counting. */
void vlines_pause(struct vlines *m, int on);

/* Returns 1 while paused, else 0. */
int vlines_paused(const struct vlines *m);

/* Returns the table's rows sorted by key (see fnstat_rows; while paused: the rows at the
 * pause), valid until the next call, vlines_configure, vlines_pause or vlines_free. NULL and
 * *n = 0 when there are none. */
const struct fnstat_row *vlines_rows(struct vlines *m, enum fnstat_key key, size_t *n);

/* Returns the number of rows vlines_rows would give, without sorting them. */
size_t vlines_nrows(const struct vlines *m);

/* Frees the model. NULL is fine. */
void vlines_free(struct vlines *m);

/* The live view's graph pane: the call graph of the function at link-time address func
 * (cygtrace graph's, from the events that come from now on; 0: none), which the events feed
 * from now on beside the table. Returns 0, or -1 when out of memory. */
#define VLINES_GRAPH_NODES 4096u
int vlines_graph(struct vlines *m, uint64_t func);

/* Returns the graph vlines_graph chose, or NULL when there is none (graphout_pane shows it). */
struct graph *vlines_graph_get(struct vlines *m);

#endif
