/* SPDX-License-Identifier: GPL-3.0-or-later */
/* calltime.c - one context's stack of levels and the time of its calls (calltime.h). */
#include "model/calltime.h"

#include <stdlib.h>
#include <string.h>

#include "util/vec.h"

static struct calltime_level *level(const struct calltime *ct, unsigned d)
{
    return calltime_at(ct, d);
}

static void clear(struct calltime *ct, unsigned d)
{
    if (ct->blank)
        memcpy(calltime_at(ct, d), ct->blank, ct->size);
    else
        memset(calltime_at(ct, d), 0, ct->size);
}

static void drop(struct calltime *ct, unsigned d)
{
    if (ct->ops->drop)
        ct->ops->drop(ct->arg, ct, d);
    clear(ct, d);
}

/* The first event after the trace (or a loss) began is where the open frames' known time
 * starts. */
static void base_at(struct calltime *ct, uint64_t t)
{
    if (ct->need_base) {
        ct->need_base = 0;
        ct->t_base = t;
    }
}

/* Makes level d usable. Levels above d that are still open vanished: the tree dropped them
 * without an exit (frames made unknown by a loss), innermost first. */
static int reach(struct calltime *ct, unsigned d)
{
    size_t old = ct->cap;

    if (vec_reach(&ct->lvl, &ct->cap, d, ct->size, 8) < 0) /* 8: many contexts stay shallow */
        return -1;
    for (size_t k = old; ct->blank && k < ct->cap; k++) /* (vec_reach zeroed them) */
        clear(ct, (unsigned)k);
    for (unsigned k = ct->n; k-- > d + 1;)
        drop(ct, k);
    if (ct->n < d + 1)
        ct->n = d + 1;
    return 0;
}

/* A frame at depth d ends at `end` after taking dur: its parent gathers it. */
static void to_parent(struct calltime *ct, unsigned d, uint64_t dur, uint64_t end)
{
    struct calltime_level *p;

    if (!d)
        return;
    p = level(ct, d - 1);
    p->kids += dur;
    p->kids_base += dur;
    if (p->last < end)
        p->last = end;
}

static void end_call(struct calltime *ct, unsigned d, const struct calltime_call *c)
{
    if (ct->ops->close(ct->arg, ct, d, c) == 0)
        to_parent(ct, d, c->dur, c->end);
}

/* The call open at level d, whose time is known from its entry to `end`, ends. */
static void close_known(struct calltime *ct, unsigned d, uint64_t end, enum calltime_how how,
                        const struct wval_set *vals)
{
    const struct calltime_level *l = level(ct, d);
    struct calltime_call c = {.addr = l->addr, .dur = tree_span(l->t_enter, end),
                              .kids = l->kids, .start = l->t_enter, .end = end, .how = how,
                              .vals = vals};

    end_call(ct, d, &c);
}

static int step_enter(struct calltime *ct, const struct tree_frame *f, unsigned d)
{
    int fresh = d >= ct->n; /* levels from n up are blank: the usual deeper call */
    struct calltime_level *l;

    base_at(ct, f->t_enter);
    if (reach(ct, d) < 0)
        return -1;
    if (!fresh)
        drop(ct, d);
    l = level(ct, d);
    l->addr = f->addr;
    l->open = 1;
    l->t_enter = l->last = f->t_enter;
    if (ct->ops->enter(ct->arg, ct, d, f) < 0) {
        clear(ct, d);
        return -1;
    }
    ct->n = d + 1;
    if (d && level(ct, d - 1)->last < f->t_enter)
        level(ct, d - 1)->last = f->t_enter;
    return 0;
}

static int step_exit(struct calltime *ct, const struct tree_frame *f, unsigned d,
                     uint64_t t_exit, enum tree_exit_how how)
{
    struct calltime_level *l;

    base_at(ct, t_exit);
    if (reach(ct, d) < 0)
        return -1;
    l = level(ct, d);
    if (how == TREE_RETURNED && l->open && l->addr == f->addr) {
        close_known(ct, d, t_exit, CALLTIME_RETURNED, f->vals);
    } else if (tree_never_returned(how) && l->open) {
        close_known(ct, d, l->last, CALLTIME_OPEN, NULL);
    } else {
        /* Entered before the trace (or the loss): known from the first event since. A frame
         * this level held before the loss never returned as far as anyone can tell: it is
         * dropped, and an unknown frame here was this function all along. */
        struct calltime_call c = {.addr = f->addr, .dur = tree_span(ct->t_base, t_exit),
                                  .kids = l->kids_base, .start = ct->t_base, .end = t_exit,
                                  .how = CALLTIME_BEFORE};

        if (!l->open)
            l->addr = f->addr;
        if (ct->ops->drop)
            ct->ops->drop(ct->arg, ct, d);
        l->open = 0;
        end_call(ct, d, &c);
    }
    clear(ct, d);
    ct->n = d;
    return 0;
}

/* Events may have been lost here (EV_LOST): the frames open now are known from the next event
 * on, and only children that end from now on are inside what is known. */
static void step_lost(struct calltime *ct)
{
    ct->need_base = 1;
    for (unsigned k = 0; k < ct->n; k++)
        level(ct, k)->kids_base = 0;
}

/* The end of the tree: the frames still open end, innermost first, as never returned; the
 * stack is then empty, ready for another tree of the context. */
static void step_finish(struct calltime *ct)
{
    for (unsigned d = ct->n; d-- > 0;) {
        const struct calltime_level *l = level(ct, d);

        if (l->open) {
            close_known(ct, d, l->last, CALLTIME_OPEN, NULL);
            clear(ct, d);
        } else {
            drop(ct, d);
        }
    }
    ct->n = 0;
    ct->need_base = 1;
}

static void ct_enter(void *arg, const struct tree_frame *f, unsigned d)
{
    struct calltime *ct = arg;

    if (step_enter(ct, f, d) < 0)
        ++*ct->failed;
}

static void ct_exit(void *arg, const struct tree_frame *f, unsigned d, uint64_t t_exit,
                    enum tree_exit_how how)
{
    struct calltime *ct = arg;

    if (step_exit(ct, f, d, t_exit, how) < 0)
        ++*ct->failed;
}

static void ct_special(void *arg, const struct ev *e, unsigned d)
{
    struct calltime *ct = arg;

    if (e->kind == EV_LOST)
        step_lost(ct);
    if (ct->ops->special)
        ct->ops->special(ct->arg, ct, e, d);
}

static void ct_finish(void *arg, const struct tree_frame *stack, unsigned n)
{
    struct calltime *ct = arg;

    /* The frames still open are in the levels (and the tree's list leaves out the frames a
     * loss made unknown, which are open too). */
    (void)stack, (void)n;
    step_finish(ct);
    if (ct->ops->finished)
        ct->ops->finished(ct->arg, ct);
}

void calltime_init(struct calltime *ct, const struct calltime_ops *ops, void *arg, size_t size,
                   const void *blank, uint64_t *failed)
{
    *ct = (struct calltime){.failed = failed, .ops = ops, .arg = arg, .size = size,
                            .blank = blank, .need_base = 1};
    ct->sink = (struct tree_sink){ct, ct_enter, ct_exit, ct_special, ct_finish, NULL};
}

const struct tree_sink *calltime_sink(struct calltime *ct)
{
    return &ct->sink;
}

void calltime_free(struct calltime *ct)
{
    free(ct->lvl);
    ct->lvl = NULL;
    ct->n = ct->cap = 0;
}
