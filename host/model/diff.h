/* SPDX-License-Identifier: GPL-3.0-or-later */
/* diff.h - two traces' call trees aligned, for `cygtrace diff`.
 *
 * Shapes. Each call, once it ends, becomes a shape: its function (by name, so two builds with
 * other addresses match), how it ended (whole, or only partly in the trace) and the runs of its
 * children, a run being one child shape and how many times it came in a row. Identical shapes
 * are interned once in a set both traces share, so a loop of a thousand identical iterations
 * is one run, a subtree repeated anywhere (fib(20) under fib(21) and fib(22)) is stored once,
 * and two subtrees are equal when their ids are: the alignment never walks what did not
 * change. A context's whole tree is the shape of its root (function DIFF_FN_ROOT).
 *
 * Memory is the distinct shapes, not the trace: max_runs runs and max_runs / 4 shapes are kept
 * in the set; beyond that, a call is kept as a cut shape (its function only, flag DIFF_F_CUT:
 * what it called is not compared) and counted, except the calls of the DIFF_KEEP_DEPTH levels
 * at the bottom of each stack (main, a thread's start, what they call), which go on being
 * kept whole up to twice the cap: past the cap, the top of the tree stays exact and the deep
 * details go. Open calls hold their children's runs until they end (at most max_runs / 4 of
 * them at once, the rest counted as cut). So the set's memory is bounded by max_runs, whatever
 * the trace's length (`cygtrace diff` of two traces past the cap: 179 MB in all, PERFORMANCE.md).
 *
 * Alignment. Per pair of shapes of the same function, the children's runs are matched by
 * shape (Myers' O(ND) diff, bounded: past DIFF_MAX_D edits, or (n + m) * D past
 * DIFF_MAX_WORK, a greedy alignment with a look-ahead window); what is left between matched
 * runs is matched by function, and pairs of the same function are aligned in turn. What stays
 * unmatched is a hunk: calls only in A, only in B, or in place of each other. Children lists
 * of up to DIFF_EXPAND calls are aligned call by call (a run of n is n calls), so that one more
 * iteration of a loop is one call inserted, and a different call in the middle of a loop is one
 * call replaced, not a shift; longer ones run by run, where a run repeated another number of
 * times is one hunk (DIFF_COUNT). */
#ifndef DIFF_H
#define DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "model/tree.h"

#define DIFF_NONE UINT32_MAX
#define DIFF_FN_ROOT 0u    /* a context's root: its bottom-level calls are its children */
#define DIFF_FN_UNKNOWN 1u /* a frame entered before the trace whose function is not known */

#define DIFF_F_PARTIAL (1u << 0) /* only partly in the trace: entered before it, or never
                                    returned */
#define DIFF_F_CUT (1u << 1)     /* its children were not kept (the set's cap) */
#define DIFF_KEEP (1u << 8)      /* diff_set_shape: kept whole up to twice the cap */
#define DIFF_KEEP_DEPTH 3u       /* levels whose calls the trees keep whole past the cap */

#define DIFF_MAX_RUNS (1u << 22) /* the set's default cap on runs */
#define DIFF_MAX_D 1024u         /* edits past which Myers' diff gives way to the greedy one */
#define DIFF_MAX_WORK 50000000u  /* (n + m) * D past which it does too */
#define DIFF_MAX_DEPTH 4096u     /* levels the alignment descends; below: one DIFF_DEEP hunk */

struct diff_run {
    uint32_t shape;
    uint32_t count; /* times in a row (a longer run is split) */
};

struct diff_shape {
    uint32_t fn;      /* the function's id in the set */
    uint32_t flags;   /* DIFF_F_* */
    uint32_t nruns;   /* its children's runs */
    uint32_t off;     /* ... where they start in the set */
    uint64_t calls;   /* the calls of the subtree, itself included (not the root), saturated */
    uint64_t hash;
};

struct diff_set;

/* A new, empty set keeping at most max_runs runs (0: DIFF_MAX_RUNS); NULL when out of
 * memory. */
struct diff_set *diff_set_new(size_t max_runs);

/* The id of the function called name (added when new), DIFF_NONE when out of memory. Ids 0
 * and 1 are DIFF_FN_ROOT ("(root)") and DIFF_FN_UNKNOWN ("?"). */
uint32_t diff_set_fn(struct diff_set *s, const char *name);

/* The name of function fn. */
const char *diff_set_name(const struct diff_set *s, uint32_t fn);

/* The number of functions. */
size_t diff_set_fns(const struct diff_set *s);

/* The id of the shape (fn, flags, runs): an existing one when equal, a new one, or past the
 * cap (twice the cap with DIFF_KEEP in flags) a cut one; DIFF_NONE when out of memory. */
uint32_t diff_set_shape(struct diff_set *s, uint32_t fn, unsigned flags,
                        const struct diff_run *runs, size_t n);

/* Shape id, and its children's runs. */
const struct diff_shape *diff_set_get(const struct diff_set *s, uint32_t id);
const struct diff_run *diff_set_runs(const struct diff_set *s, uint32_t id);

/* How many shapes and runs the set holds, and how many calls were kept cut. */
size_t diff_set_shapes(const struct diff_set *s);
size_t diff_set_nruns(const struct diff_set *s);
uint64_t diff_set_cut(const struct diff_set *s);

/* Frees the set. NULL is fine. */
void diff_set_free(struct diff_set *s);

/* --- one trace's side: its contexts' trees into the set ---------------------------------- */

/* The name a function at run-time address addr goes by (the key that matches functions across
 * builds): a pointer into buf (len bytes) or one the callee keeps. */
typedef const char *(*diff_name_fn)(void *arg, uint64_t addr, char *buf, size_t len);

/* The call times of a function in one trace (as calltime counts them), for their spread. */
struct diff_spread {
    uint64_t n;
    double sum, sumsq; /* of the durations, in ticks */
};

struct diff_ctxinfo {
    uint32_t id;   /* the context */
    uint32_t root; /* its tree's shape, DIFF_NONE before its tree finished */
};

struct diff_trace;

/* A trace's side, interning into s and naming functions through name(arg, ...); NULL when
 * out of memory. */
struct diff_trace *diff_trace_new(struct diff_set *s, diff_name_fn name, void *arg);

/* The sink of context ctx's tree (asking again gives the same sink); NULL when out of memory.
 * Valid while the trace lives. */
const struct tree_sink *diff_trace_sink(struct diff_trace *t, uint32_t ctx);

/* Its contexts, in the order their sinks were asked for (*n of them). */
const struct diff_ctxinfo *diff_trace_ctxs(const struct diff_trace *t, size_t *n);

/* The spread of function fn's call times, or NULL when it was not called. */
const struct diff_spread *diff_trace_spread(const struct diff_trace *t, uint32_t fn);

/* The standard deviation of fn's call times in ticks, -1 with fewer than two calls. */
double diff_trace_stddev(const struct diff_trace *t, uint32_t fn);

/* Events that could not be accounted for (out of memory): 0 when exact. */
uint64_t diff_trace_dropped(const struct diff_trace *t);

/* Frees the side (not its set). NULL is fine. */
void diff_trace_free(struct diff_trace *t);

/* --- the alignment ---------------------------------------------------------------------- */

enum diff_kind {
    DIFF_INSERTED, /* runs only in B */
    DIFF_DELETED,  /* runs only in A */
    DIFF_REPLACED, /* runs of A in place of other functions' runs of B */
    DIFF_COUNT,    /* the same run, repeated another number of times */
    DIFF_ENDED,    /* the same call, ended another way (returned in one, not in the other) */
    DIFF_DEEP,     /* the calls differ below DIFF_MAX_DEPTH levels: not aligned further */
};

/* One divergence: under the calls path (fn ids from the bottom up to the parent, the root
 * left out), runs A[] of A stand where runs B[] of B stand (their own copies, equal neighbours
 * merged), followed in each by the runs after_a[] and after_b[] (up to DIFF_AFTER calls' runs,
 * for the continuations shown); pa and pb are the calls they belong to (for DIFF_ENDED and
 * DIFF_DEEP: the calls that differ). */
struct diff_hunk {
    enum diff_kind kind;
    uint32_t pa, pb;
    uint32_t path_off, path_len;    /* in diff_result.path */
    uint32_t a_off, a_n, b_off, b_n; /* in diff_result.runs */
    uint32_t after_a_off, after_a_n, after_b_off, after_b_n;
    uint64_t calls_a, calls_b;      /* the calls the hunk's runs of A and of B make */
};

#define DIFF_AFTER 6
#define DIFF_EXPAND 65536/* children lists up to this many calls are aligned call by call */

struct diff_result {
    struct diff_hunk *hunk; /* in the order of the trees (preorder) */
    size_t n, cap;
    uint64_t more;      /* hunks past max_hunks: counted, not kept */
    uint32_t *path;     /* the hunks' paths */
    uint64_t *path_nth; /* ... and for each call of them, which call of its function its caller
                           made in A (1: the first), 0 for a root */
    size_t npath, cappath, cappath_nth;
    struct diff_run *runs; /* the hunks' runs */
    size_t nruns, capruns;
    uint64_t greedy;    /* alignments that fell back to the greedy one */
    /* the walk's own */
    uint32_t *stack;
    uint64_t *stack_nth;
    size_t nstack, capstack, capstack_nth;
};

/* Aligns shapes a and b of s, keeping at most max_hunks hunks in r (zeroed before the first
 * call; several calls add up). 0, or -1 when out of memory. */
int diff_align(const struct diff_set *s, uint32_t a, uint32_t b, size_t max_hunks,
               struct diff_result *r);

/* Frees what r holds. */
void diff_result_free(struct diff_result *r);

/* Pairs the contexts of A (na names, NULL where unnamed) with those of B: by equal name first,
 * then the rest in order. pair[i] gets the index in B of A's context i, or SIZE_MAX. */
void diff_pair_ctx(const char *const *na, size_t n, const char *const *nb, size_t m,
                   size_t *pair);

#endif
