/* SPDX-License-Identifier: GPL-3.0-or-later */
/* graph.h - the aggregated call graph of a function: its callers, and the tree of everything
 * it called with each distinct call path merged into one node (calls, total and self time per
 * node), as `uftrace graph` shows it. It sits behind the tree builder (a struct tree_sink per
 * context), so it sees well-nested calls; it backs `cygtrace graph` and the live view's graph
 * pane.
 *
 * What a graph is of: one function (every call of it that no other call of it encloses starts
 * at the graph's root; a recursive call is a node of the tree below), or, without one, each
 * context's bottom-level calls (a graph per function found at depth 0).
 * Times (in timestamp ticks; all 0 without them), as fnstat counts them:
 *   - a call that returned: from its entry to its exit;
 *   - one that never returned, or is still open at the end: from its entry to the last event
 *     seen inside it (counted as partial);
 *   - one entered before the trace (or a loss): from the context's first event after that to
 *     its exit (partial); the calls it made before its exit named it are not in the tree
 *     below it (counted as blind): only its own time is.
 * A node's total is the sum of its calls' durations; self is that minus their children's.
 * Memory: one node per distinct call path below the function, at most max_nodes: calls on
 * paths beyond the cap are counted (graph_left_out) but have no node; their time stays in
 * their callers' totals. Per context: one slot per stack level. */
#ifndef GRAPH_H
#define GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "symbols/sym.h"
#include "model/tree.h"

#define GRAPH_MAX_NODES (1u << 18) /* the default cap on nodes */

/* One graph: the function it is of and its calls. */
struct graph_stat {
    uint64_t addr;    /* the function's run-time address */
    uint64_t calls;   /* its calls (for a function: recursive ones too) */
    uint64_t partial; /* ... whose time is only partly known (see above) */
    uint64_t blind;   /* ... entered before the trace: their callees are not in the tree */
    uint64_t total;   /* inclusive ticks of the calls at the root (recursion counted once) */
    uint64_t self;    /* exclusive ticks of every call */
};

#define GRAPH_NONE UINT32_MAX /* no node */

/* A node of a graph's tree: one distinct call path from the function down. */
struct graph_node {
    uint64_t addr;
    uint64_t calls, partial, blind;
    uint64_t total, self;
    uint32_t parent, first, next; /* GRAPH_NONE: none; children are linked, newest first */
    uint32_t depth;               /* levels below the function */
};

#define GRAPH_CALLER_BOTTOM UINT64_MAX /* the caller of calls at depth 0: nobody */

/* A caller of a function's graph and what its calls of the function took. */
struct graph_caller {
    uint64_t addr; /* 0: unknown (entered before the trace), GRAPH_CALLER_BOTTOM: none */
    uint64_t calls, total;
};

struct graph;

/* A new, empty graph of the function at run-time address func (0: of each context's
 * bottom-level calls). sym (may be NULL) names functions; bias is the run-time minus link-time
 * address; max_depth limits the tree to that many levels below the function (0: all);
 * max_nodes caps the nodes (0: GRAPH_MAX_NODES). NULL when out of memory. */
struct graph *graph_new(const struct sym_table *sym, uint64_t bias, uint64_t func,
                        unsigned max_depth, size_t max_nodes);

/* The sink for context ctx's tree: each context has its own stack, so several trees may feed
 * one graph (their paths merge). Asking again for a context gives the same sink. Valid while
 * the graph lives; NULL when out of memory. */
const struct tree_sink *graph_sink(struct graph *g, uint32_t ctx);

/* Returns the graphs in the order they were made (graphout_sort: in the order shown), in an
 * array the graph owns, which the caller may reorder, valid until the next call or graph_free;
 * *n gets their number: for a function, 1 once it was called, else 0. NULL (and *n = 0) when
 * none or out of memory. */
struct graph_stat *graph_stats(struct graph *g, size_t *n);

/* The walk of a graph, for its printers: */

/* Returns the root node of the graph of the function at addr, GRAPH_NONE when none. */
uint32_t graph_root(const struct graph *g, uint64_t addr);

/* Returns node id (a root, or a node's first or next). */
const struct graph_node *graph_node(const struct graph *g, uint32_t id);

/* Returns the distinct callers of a function's graph, in no order (*n of them; NULL: none). */
const struct graph_caller *graph_callers(const struct graph *g, size_t *n);

/* Returns the function the graph is of (0: each context's bottom-level calls). */
uint64_t graph_func(const struct graph *g);

/* Returns the symbols that name the graph's functions (may be NULL), and in *bias the
 * run-time minus link-time address. */
const struct sym_table *graph_sym(const struct graph *g, uint64_t *bias);

/* Returns how many calls have no node because the cap was reached (0: the graph is whole). */
uint64_t graph_left_out(const struct graph *g);

/* Returns the number of nodes. */
size_t graph_nodes(const struct graph *g);

/* Returns how many events could not be accounted for (out of memory): 0 when exact. */
uint64_t graph_dropped(const struct graph *g);

/* Frees the graph and its sinks. NULL is fine. */
void graph_free(struct graph *g);

#endif
