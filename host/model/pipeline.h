/* SPDX-License-Identifier: GPL-3.0-or-later */
/* pipeline.h - the one way events become call trees. Per context a chain: the tree builder,
 * behind the filters when any is set, into the sink its caller gives (a renderer, the
 * statistics, an export, the live view's lines). Over a trace: the scan that learns the
 * contexts, then passes that feed their chains, one context at a time (tree) or all of them
 * at once (report, export, graph). The commands, the live view's model and the fuzzers drive
 * it; only the sinks are theirs. */
#ifndef PIPELINE_H
#define PIPELINE_H

#include <stddef.h>
#include <stdint.h>

#include "model/filter.h"
#include "model/tree.h"
#include "source/load.h"

/* What pipeline_func_of needs: the symbols (may be NULL) and the image's load bias. */
struct pipeline_resolver {
    const struct sym_table *sym;
    uint64_t bias;
};

/* The tree builder's tree_func_of over a struct pipeline_resolver: the run-time start of the
 * function holding a run-time address, 0 when unknown. */
uint64_t pipeline_func_of(void *arg, uint64_t addr);

/* One context's chain: tree -> filter (only when fo sets one) -> sink. */
struct pipeline_chain {
    struct tree *tree;
    struct filter *filter;
};

/* Builds a chain into sink whose tree starts start_depth calls deep and repairs call sites
 * through func_of(arg, ...) (tree_new; NULL: no repair; pipeline_func_of over a struct
 * pipeline_resolver, as a rule). 0, or -1 when out of memory (c then holds nothing). */
int pipeline_chain_open(struct pipeline_chain *c, const struct tree_sink *sink,
                        const struct filter_opts *fo, unsigned start_depth,
                        tree_func_of func_of, void *arg);

/* Frees what the chain holds (not its sink); a zeroed chain is fine. */
void pipeline_chain_close(struct pipeline_chain *c);

/* A context whose THREAD record the ring no longer holds (overwritten) takes its OS id from
 * the map's thread lines (pipeline_scan does this; for scans of one's own). */
void pipeline_scan_threads(const struct load *l, struct tree_scan *sc);

/* One pass over the events in ft's time range: the contexts and how deep each starts (sc),
 * what the pass skipped (st), and how many of the first functions entered the ELF knows
 * (*known of *checked: none means a stripped ELF or the wrong one); the names of the trace's
 * NAME records and its contexts' handles go into l->names (all of them, whatever ft). 0, or
 * -1 on a read error or out of memory. */
int pipeline_scan(struct load *l, struct filter_time ft, struct tree_scan *sc,
                  struct source_stats *st, unsigned *checked, unsigned *known);

/* What the trees skipped, added up over the passes that feed them. */
struct pipeline_tally {
    uint64_t unmatched; /* exits that matched no call */
    uint64_t values;    /* values of wrapped calls that belonged to no call shown */
    uint64_t forced;    /* calls kept because the --min-time hold was full */
};

/* A pass of its own for context c of the scan sc (the others' records passed over, or not
 * even read, through sc's index), its events in ft into a chain to sink. 0, or -1 on a read
 * error or out of memory. */
int pipeline_ctx(struct load *l, const struct tree_scan *sc, const struct dec_ctx *c,
                 const struct tree_sink *sink, const struct filter_opts *fo,
                 struct filter_time ft, struct pipeline_tally *t);

/* Gives the sink that context c's chain feeds; NULL when out of memory. */
typedef const struct tree_sink *(*pipeline_sink_of)(void *arg, const struct dec_ctx *c);

/* One pass feeding the chains of every context of sc that made calls (only context *only
 * when only is not NULL) into the sinks sink_of gives. Returns the contexts fed (0: none of
 * them; the pass is not made), or -1 with "INPUT: out of memory" or "INPUT: read error" in
 * err. */
int pipeline_run(struct load *l, const struct tree_scan *sc, const struct filter_opts *fo,
                 struct filter_time ft, const uint32_t *only, pipeline_sink_of sink_of,
                 void *arg, struct pipeline_tally *t, char *err, size_t errlen);

#endif
