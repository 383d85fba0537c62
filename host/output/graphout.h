/* SPDX-License-Identifier: GPL-3.0-or-later */
/* graphout.h - the text of a call graph (model/graph.h) as `cygtrace graph` and the live view's
 * graph pane show it: its callers, and the tree of its callees like uftrace's. */
#ifndef GRAPHOUT_H
#define GRAPHOUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/graph.h"

#define GRAPHOUT_CALLERS (1u << 0) /* graphout_print: the callers table */
#define GRAPHOUT_CALLEES (1u << 1) /* graphout_print: the tree of callees */

/* Orders graphs (graph_stats) as they are shown: the largest total first, then by name as
 * shown, then by address. */
void graphout_sort(const struct graph *g, struct graph_stat *s, size_t n);

/* Writes graph s of g (what flags say: GRAPHOUT_CALLERS, GRAPHOUT_CALLEES) to out, times with
 * fmt_duration at hz (0: ticks). The callers: one line per distinct caller, its calls and
 * their total, the largest first; a bottom-level graph has none. The callees, like uftrace's:
 * "TOTAL SELF : (CALLS) NAME", children by total (largest first, then by name), a node with
 * several children marking each with "+-". 0, or -1 when out of memory. */
int graphout_print(const struct graph *g, const struct graph_stat *s, FILE *out, uint64_t hz,
                   unsigned flags);

/* The live view's graph pane: graph g of one function, its callers and callees as
 * graphout_print writes them (or a line saying it was not called since it was chosen), and a
 * line when calls past its max_nodes nodes were left out. malloc'd (free it); NULL when out of
 * memory. */
char *graphout_pane(struct graph *g, uint64_t hz, unsigned max_nodes);

#endif
