/* SPDX-License-Identifier: GPL-3.0-or-later */
/* taskstat.c - per-context scheduling accounting over one pass in ring order (taskstat.h). */
#include "model/taskstat.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/ctxtab.h"
#include "model/tree.h"
#include "util/vec.h"
#include "cyg_format.h"

struct waker {
    uint32_t id;
    uint64_t n;
};

struct ent {
    struct taskstat_ctx pub;
    int own; /* an event of its own was seen (it ran in the trace) */
    int is_blocked;
    uint64_t block_since;
    unsigned block_cut; /* TASKSTAT_BLOCKED_START when blocked since before the trace */
    uint64_t obj;
    unsigned objtype, op;
    int wake_seen; /* a WAKE named it since it last blocked or resumed: its RESUME's
                      waker is that WAKE's, not another wake */
    struct waker *wk;
    size_t nwk, capwk;
};

struct taskstat {
    taskstat_span_fn fn;
    void *arg;
    struct ctxtab tab;
    int any;
    uint64_t t_last;
    int cur_known; /* 0 before the first event and in a gap */
    uint32_t cur;
    uint64_t since;   /* when cur became current */
    unsigned cur_cut; /* TASKSTAT_CUT_START: cur was running when the trace or the gap began */
    struct taskstat_info info;
    int have_pending; /* a blocked interval that a switch-in ended: its RESUME, the next
                         record, says who woke it */
    struct taskstat_span pending;
    struct taskstat_ctx *sorted;
};

struct taskstat *taskstat_new(taskstat_span_fn fn, void *arg)
{
    struct taskstat *s = calloc(1, sizeof *s);

    if (s) {
        s->fn = fn;
        s->arg = arg;
    }
    return s;
}

static struct ent *ent_of(struct taskstat *s, uint32_t id)
{
    struct ent *c = ctxtab_find(&s->tab, id);

    if (!c && (c = ctxtab_add(&s->tab, id, sizeof *c)))
        c->pub.id = id;
    return c;
}

/* O(wakers) per wake: a task is woken by few. */
static int tally(struct ent *c, uint32_t waker)
{
    size_t i;

    c->pub.wakes++;
    for (i = 0; i < c->nwk && c->wk[i].id != waker; i++)
        ;
    if (i == c->nwk) {
        if (vec_grow(&c->wk, &c->capwk, c->nwk, sizeof *c->wk, 4) < 0)
            return -1;
        c->wk[c->nwk++] = (struct waker){waker, 0};
    }
    c->wk[i].n++;
    return 0;
}

static void emit(struct taskstat *s, const struct taskstat_span *sp)
{
    if (s->fn)
        s->fn(s->arg, sp);
}

static void flush_pending(struct taskstat *s)
{
    if (s->have_pending) {
        s->have_pending = 0;
        emit(s, &s->pending);
    }
}

/* The current context stops running at t. */
static void stop_running(struct taskstat *s, uint64_t t, unsigned cut)
{
    struct ent *c = ctxtab_find(&s->tab, s->cur);
    struct taskstat_span sp = {
        .kind = TASKSTAT_RUN, .id = s->cur, .from = s->since, .to = t, .cut = s->cur_cut | cut};

    if (!s->cur_known)
        return;
    s->cur_known = 0;
    if (c) {
        c->pub.run += tree_span(s->since, t);
        c->pub.cut |= cut;
    }
    emit(s, &sp);
}

static void start_running(struct taskstat *s, uint32_t id, uint64_t t, unsigned cut)
{
    s->cur_known = 1;
    s->cur = id;
    s->since = t;
    s->cur_cut = cut;
}

/* c's blocked interval ends at t; *sp gets it. */
static void unblock(struct ent *c, uint64_t t, unsigned cut, struct taskstat_span *sp)
{
    c->is_blocked = 0;
    c->pub.blocked += tree_span(c->block_since, t);
    c->pub.cut |= c->block_cut | cut;
    *sp = (struct taskstat_span){.kind = TASKSTAT_BLOCKED,
                                 .id = c->pub.id,
                                 .from = c->block_since,
                                 .to = t,
                                 .cut = c->block_cut | cut,
                                 .obj = c->obj,
                                 .objtype = c->objtype,
                                 .op = c->op};
}

static int on_context(struct taskstat *s, struct ent *c, const struct ev *e)
{
    struct taskstat_span sp;

    s->info.switches++;
    if (s->cur_known && s->cur == c->pub.id)
        return 0; /* said again, no switch */
    stop_running(s, e->time, 0);
    start_running(s, c->pub.id, e->time, 0);
    c->pub.switches++;
    if (c->is_blocked) { /* no WAKE was recorded: blocked until now; RESUME may say by whom */
        unblock(c, e->time, 0, &sp);
        s->pending = sp;
        s->have_pending = 1;
    }
    return 0;
}

static int on_sched(struct taskstat *s, struct ent *c, const struct ev *e)
{
    uint32_t other = e->data >> CYG_SCHED_ID_SHIFT & CYG_SCHED_ID_MASK;
    struct taskstat_span sp;
    struct ent *w;

    s->info.rtos++;
    switch (e->data & CYG_SCHED_KIND_MASK) {
    case CYG_SCHED_BLOCK:
        if (c->is_blocked) { /* blocked again, never woken: the first ends here */
            unblock(c, e->time, 0, &sp);
            emit(s, &sp);
        }
        c->pub.blocks++;
        c->is_blocked = 1;
        c->block_since = e->time;
        c->block_cut = 0;
        c->obj = e->addr;
        c->objtype = e->data >> CYG_SCHED_OBJ_SHIFT & CYG_SCHED_OBJ_MASK;
        c->op = e->data >> CYG_SCHED_OP_SHIFT & CYG_SCHED_OP_MASK;
        c->wake_seen = 0;
        return 0;
    case CYG_SCHED_WAKE:
        if (!(w = ent_of(s, other)))
            return -1;
        if (!w->own && !w->pub.wakes && !w->is_blocked && s->any) {
            /* never ran nor was woken in the trace: blocked since before it */
            w->is_blocked = 1;
            w->block_since = s->info.t_first;
            w->block_cut = TASKSTAT_BLOCKED_START;
            w->objtype = CYG_OBJ_NONE;
            w->obj = 0;
            w->op = 0;
        }
        if (tally(w, c->pub.id) < 0)
            return -1;
        w->wake_seen = 1;
        if (w->is_blocked) {
            unblock(w, e->time, 0, &sp);
            sp.have_waker = 1;
            sp.waker = c->pub.id;
            emit(s, &sp);
        }
        return 0;
    case CYG_SCHED_RESUME:
        if (s->have_pending && s->pending.id == c->pub.id) {
            s->pending.have_waker = 1;
            s->pending.waker = other;
        }
        if (!c->wake_seen && tally(c, other) < 0)
            return -1;
        c->wake_seen = 0;
        return 0;
    default:
        return 0;
    }
}

int taskstat_feed(struct taskstat *s, const struct ev *e)
{
    struct ent *c;

    /* no events: the clock is in e->time */
    if (e->kind == EV_PAD || e->kind == EV_TIME || e->kind == EV_HOLE)
        return 0;
    if (e->kind == EV_NAME) {
        /* says nothing of who runs: a glue may name tasks before the scheduler starts, and
         * before any clock reading (time 0) */
        s->info.rtos++;
        return 0;
    }
    if (!(e->kind == EV_SCHED && (e->data & CYG_SCHED_KIND_MASK) == CYG_SCHED_RESUME))
        flush_pending(s);
    if (!s->any) {
        s->any = 1;
        s->info.t_first = e->time;
    }
    s->t_last = e->time;
    if (e->kind == EV_LOST || e->kind == EV_STOP || e->kind == EV_START) {
        /* a gap: who ran in it is unknown */
        stop_running(s, e->time, TASKSTAT_CUT_END);
        return 0;
    }
    if (!(c = ent_of(s, e->ctx)))
        return -1;
    if (e->kind == EV_CONTEXT) {
        c->own = 1;
        return on_context(s, c, e);
    }
    if (!s->cur_known) { /* running already when the trace (or the gap) began */
        if (!s->info.have_first) {
            s->info.have_first = 1;
            s->info.first = c->pub.id;
        }
        start_running(s, c->pub.id, e->time, TASKSTAT_CUT_START);
        c->pub.cut |= TASKSTAT_CUT_START;
    }
    c->own = 1;
    if (e->kind == EV_SCHED)
        return on_sched(s, c, e);
    return 0;
}

void taskstat_end(struct taskstat *s)
{
    struct taskstat_span sp;

    flush_pending(s);
    stop_running(s, s->t_last, TASKSTAT_CUT_END);
    for (unsigned i = 0; i < s->tab.n; i++) {
        struct ent *c = s->tab.v[i];

        if (c->is_blocked) {
            unblock(c, s->t_last, TASKSTAT_BLOCKED_END, &sp);
            emit(s, &sp);
        }
    }
    s->info.t_last = s->t_last;
}

int taskstat_run(struct load *l, struct filter_time ft, struct taskstat *s, char *err,
                 size_t errlen)
{
    struct ev e;
    int rc;

    if (source_rewind(l->source) < 0) {
        snprintf(err, errlen, "%s: cannot read the trace again (out of memory)",
                 source_name(l->source));
        return -1;
    }
    while ((rc = source_next(l->source, &e, err, errlen)) > 0)
        if (filter_time_keep(&ft, &e) && taskstat_feed(s, &e) < 0) {
            snprintf(err, errlen, "%s: out of memory", source_name(l->source));
            rc = -1;
            break;
        }
    taskstat_end(s);
    return rc < 0 ? -1 : 0;
}

static int cmp_ctx(const void *pa, const void *pb)
{
    const struct taskstat_ctx *a = pa, *b = pb;

    if (a->run != b->run)
        return a->run < b->run ? 1 : -1;
    if (a->switches != b->switches)
        return a->switches < b->switches ? 1 : -1;
    return a->id < b->id ? -1 : a->id > b->id;
}

const struct taskstat_ctx *taskstat_contexts(struct taskstat *s, unsigned *n)
{
    struct taskstat_ctx *v;

    *n = 0;
    if (!s->tab.n || !(v = realloc(s->sorted, s->tab.n * sizeof *v)))
        return NULL;
    s->sorted = v;
    for (unsigned i = 0; i < s->tab.n; i++) {
        const struct ent *c = s->tab.v[i];

        v[i] = c->pub;
        v[i].waker_n = 0;
        for (unsigned k = 0; k < c->nwk; k++)
            if (c->wk[k].n > v[i].waker_n ||
                (c->wk[k].n == v[i].waker_n && c->wk[k].id < v[i].waker)) {
                v[i].waker = c->wk[k].id;
                v[i].waker_n = c->wk[k].n;
            }
    }
    qsort(v, s->tab.n, sizeof *v, cmp_ctx);
    *n = s->tab.n;
    return v;
}

void taskstat_get_info(const struct taskstat *s, struct taskstat_info *i)
{
    *i = s->info;
}

void taskstat_free(struct taskstat *s)
{
    if (!s)
        return;
    for (unsigned i = 0; i < s->tab.n; i++)
        free(((struct ent *)s->tab.v[i])->wk);
    ctxtab_free(&s->tab);
    free(s->sorted);
    free(s);
}
