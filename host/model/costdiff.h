/* SPDX-License-Identifier: GPL-3.0-or-later */
/* costdiff.h - what two runs cost, side by side: rows of one key (a function's name, or a
 * call path as `graph` merges them) joined across runs A and B, their difference and ratio,
 * sorted by the largest absolute change of total time, and the two rules `cygtrace diff`
 * applies to each row:
 *   - within the spread: the change of total time is no larger than the spread the runs
 *     themselves show, s * sqrt(calls), where s is the larger of the two runs' standard
 *     deviations of that function's call times (the spread of a sum of `calls` such calls);
 *     only said of rows with two calls or more in each run, whose s is known;
 *   - offends a limit (--fail-above): slower (B's total above A's) by more than the limit (a
 *     percentage of A's total, or a time), by at least the floor, and not within the spread.
 * Times are in whatever unit the caller gives (nanoseconds, or ticks of one clock). */
#ifndef COSTDIFF_H
#define COSTDIFF_H

#include <stddef.h>
#include <stdint.h>

#include "model/graph.h"

/* One row of one run. */
struct costdiff_in {
    const char *key;
    uint64_t calls, total, self;
    double sd; /* standard deviation of one call's time, -1 unknown */
};

/* A key in both runs (0s where a run lacks it). */
struct costdiff_row {
    const char *key;
    uint64_t calls[2], total[2], self[2];
    double sd[2];
    int64_t delta;   /* total B - total A (saturated) */
    double ratio;    /* total B / total A; 0 when A's is 0 */
    int in_a, in_b;
    int noise;       /* within the spread (above) */
    uint32_t node[2]; /* costdiff_paths: the path's node in each graph, GRAPH_NONE: none */
};

/* Joins a (na rows; rows of one key add up) and b into *out (malloc'd, *n rows), sorted by |delta|, the
 * largest first, ties by key; the keys point into a's and b's. 0, or -1 out of memory. */
int costdiff_join(const struct costdiff_in *a, size_t na, const struct costdiff_in *b,
                  size_t nb, struct costdiff_row **out, size_t *n);

/* The name a function of a trace goes by (the key across builds): a pointer into buf (len
 * bytes) or one the callee keeps. */
typedef const char *(*costdiff_name_fn)(void *arg, uint64_t addr, char *buf, size_t len);

/* One run's call paths: its graph of the bottom-level calls (graph_new with func 0) and how
 * its functions are named. */
struct costdiff_graph {
    const struct graph *g;
    costdiff_name_fn name;
    void *arg;
};

/* The call paths of two runs joined: walks both graphs at once, a node of A and one of B being
 * the same path when their parents are and their functions have the same name; *out gets a
 * row per path (malloc'd, *n rows) with its nodes, calls, total and self in ticks, no key and
 * no spread: the caller scales them, fills sd in, and calls costdiff_finish. Memory: the
 * rows, and a name per sibling while their level is walked. 0, or -1 out of memory. */
int costdiff_paths(const struct costdiff_graph *a, const struct costdiff_graph *b,
                   struct costdiff_row **out, size_t *n);

/* The path of row r of costdiff_paths, "main > parse > read", into buf (len bytes; cut short
 * when longer). */
void costdiff_path_key(const struct costdiff_graph *a, const struct costdiff_graph *b,
                       const struct costdiff_row *r, char *buf, size_t len);

/* Computes each row's delta, ratio and noise, and sorts them as costdiff_join does (ties by
 * key, or by node where there is none). */
void costdiff_finish(struct costdiff_row *r, size_t n);

/* The spread of a row's total (above), -1 when not known. */
double costdiff_spread(const struct costdiff_row *r);

/* A --fail-above limit. */
struct costdiff_limit {
    int pct;        /* 1: value is a percentage of A's total; 0: a time */
    double value;
    uint64_t floor; /* changes below it never offend */
};

/* Whether row r slowed beyond lim (above). */
int costdiff_offends(const struct costdiff_row *r, const struct costdiff_limit *lim);

#endif
