/* SPDX-License-Identifier: GPL-3.0-or-later */
/* taskstat.h - who ran when in a 32-bit RTOS trace: per context (task, interrupt) its running
 * time, its blocked time, how often it was switched in and blocked, and who woke it most,
 * from one pass over every event in ring order (docs/FORMAT.md 7.5).
 *
 * A context runs from the CONTEXT record that makes it current to the next one that makes
 * another current (an RTOS glue writes a TIME record before each, so a switch has its own
 * time). It is blocked from a SCHED BLOCK in it to the SCHED WAKE that names it, or, when no
 * WAKE was recorded, to its next switch-in. What the trace cuts is counted from its first or
 * to its last event, and said (TASKSTAT_CUT_*): the context running when the trace starts (in a
 * wrapped ring its switch-in was overwritten), one woken that never ran nor blocked before
 * (blocked since before the trace), what runs or is blocked at the end, and around a gap
 * (a STOP, a START, a loss). Without timestamps every time is 0 and only the counts hold.
 * Memory: one entry per context, and per context one per context that woke it. */
#ifndef TASKSTAT_H
#define TASKSTAT_H

#include <stddef.h>
#include <stdint.h>

#include "decode/dec.h"
#include "model/filter.h"
#include "source/load.h"
#include "symbols/names.h"
#include "symbols/sym.h"

/* Why a context's time is only partly known (the cut of a taskstat_ctx, a taskstat_span). */
#define TASKSTAT_CUT_START (1u << 0)     /* running when the trace (or a gap) starts */
#define TASKSTAT_CUT_END (1u << 1)       /* running when the trace ends (or a gap starts) */
#define TASKSTAT_BLOCKED_START (1u << 2) /* blocked since before the trace */
#define TASKSTAT_BLOCKED_END (1u << 3)   /* still blocked at the end */

struct taskstat_ctx {
    uint32_t id;
    uint64_t run;      /* ticks running */
    uint64_t blocked;  /* ticks blocked */
    uint64_t switches; /* times a CONTEXT record made it current */
    uint64_t blocks;   /* its SCHED BLOCK records */
    uint64_t wakes;    /* times it was woken (WAKE naming it, or a RESUME no WAKE announced) */
    uint32_t waker;    /* the context that woke it most (the lowest id of a tie) ... */
    uint64_t waker_n;  /* ... and how often; 0: none known */
    unsigned cut;      /* TASKSTAT_CUT_* that happened to it */
};

enum taskstat_span_kind { TASKSTAT_RUN, TASKSTAT_BLOCKED };

/* An interval, as it closes. */
struct taskstat_span {
    unsigned kind;     /* enum taskstat_span_kind */
    uint32_t id;       /* the context */
    uint64_t from, to; /* ticks */
    unsigned cut;      /* TASKSTAT_CUT_* of this interval */
    uint64_t obj;      /* TASKSTAT_BLOCKED: the object's handle (or a delay's ticks, ...) */
    unsigned objtype;  /* ... CYG_OBJ_* */
    unsigned op;       /* ... CYG_OP_* */
    int have_waker;
    uint32_t waker; /* ... who woke it, when have_waker */
};

typedef void (*taskstat_span_fn)(void *arg, const struct taskstat_span *sp);

struct taskstat;

/* An empty accounting; fn (may be NULL) is called with every interval as it closes. NULL
 * when out of memory. */
struct taskstat *taskstat_new(taskstat_span_fn fn, void *arg);

/* Takes the next event of the pass, in ring order; 0, or -1 when out of memory. */
int taskstat_feed(struct taskstat *s, const struct ev *e);

/* Closes what is still running or blocked at the last event. After it, no taskstat_feed. */
void taskstat_end(struct taskstat *s);

/* One pass over the trace l holds (a 32-bit ring or stream), its events in ft's time range,
 * into s, and taskstat_end: 0, or -1 with "INPUT: what is wrong" in err (a read error, out
 * of memory). */
int taskstat_run(struct load *l, struct filter_time ft, struct taskstat *s, char *err,
                 size_t errlen);

/* The contexts, by running time (the longest first; without times by switches; ties by id),
 * in an array s owns, valid until the next call or taskstat_free; *n gets their number. NULL
 * when none, or out of memory (*n = 0). */
const struct taskstat_ctx *taskstat_contexts(struct taskstat *s, unsigned *n);

/* What the pass saw, for the report's header and notes. */
struct taskstat_info {
    uint64_t t_first, t_last; /* the first and the last event's time */
    uint64_t switches;        /* CONTEXT records */
    uint64_t rtos;            /* SCHED and NAME records: an RTOS glue wrote the trace */
    int have_first;
    uint32_t first; /* the context running when the trace starts */
};

void taskstat_get_info(const struct taskstat *s, struct taskstat_info *i);

/* Frees s. NULL is fine. */
void taskstat_free(struct taskstat *s);

#endif
