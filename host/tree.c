/* tree.c - one context's call stack, repaired as the events come. */
#include "tree.h"

#include "cyg_format.h"

#include <stdlib.h>
#include <string.h>

struct tree {
    struct tree_sink sink;
    tree_func_of func_of;
    void *func_arg;
    struct tree_frame *stack;
    unsigned n, cap;
    unsigned unknown;  /* frames at the bottom still waiting for the exit that names them */
    uint64_t unmatched;
};

struct tree *tree_new(const struct tree_sink *sink, unsigned start_depth, tree_func_of func_of,
                      void *func_arg)
{
    struct tree *t = calloc(1, sizeof *t);

    if (!t)
        return NULL;
    t->sink = *sink;
    t->func_of = func_of;
    t->func_arg = func_arg;
    t->cap = start_depth + 64;
    t->stack = calloc(t->cap, sizeof *t->stack);
    if (!t->stack) {
        free(t);
        return NULL;
    }
    /* The frames the trace starts inside: their exits will come and name them. */
    for (unsigned i = 0; i < start_depth; i++)
        t->stack[i].before_trace = 1;
    t->n = t->unknown = start_depth;
    return t;
}

static int push(struct tree *t, const struct tree_frame *f)
{
    if (t->n == t->cap) {
        unsigned cap = t->cap * 2;
        struct tree_frame *s = realloc(t->stack, cap * sizeof *s);

        if (!s)
            return -1;
        t->stack = s;
        t->cap = cap;
    }
    t->stack[t->n++] = *f;
    return 0;
}

/* Pops frames until n remain; they never returned. */
static void abandon_to(struct tree *t, unsigned n, uint64_t when)
{
    while (t->n > n) {
        t->n--;
        if (t->n < t->unknown) /* an unnamed frame from before the trace: nothing to show */
            t->unknown = t->n;
        else
            t->sink.exit(t->sink.arg, &t->stack[t->n], t->n, when, TREE_ABANDONED);
    }
}

/* With call sites, a call made from a function further down the stack proves that the frames
 * above that function are gone: a longjmp skipped their exits. A call site outside every
 * frame is left alone: it is a call from code that is not instrumented (a library callback). */
static void repair_by_site(struct tree *t, const struct ev *e)
{
    uint64_t caller;

    if (!e->site || !t->func_of || t->n <= t->unknown)
        return;
    /* The site is a return address: after a call that never returns it is the first byte of
     * the next function, so look one byte back, inside the call instruction. */
    caller = t->func_of(t->func_arg, e->site - 1);
    if (!caller || caller == t->stack[t->n - 1].addr)
        return;
    for (unsigned k = t->n - 1; k-- > t->unknown;) {
        if (t->stack[k].addr == caller) {
            abandon_to(t, k + 1, e->time);
            return;
        }
    }
}

static int on_call(struct tree *t, const struct ev *e)
{
    struct tree_frame f = {.addr = e->addr, .site = e->site, .t_enter = e->time};

    repair_by_site(t, e);
    if (push(t, &f) < 0)
        return -1;
    t->sink.enter(t->sink.arg, &t->stack[t->n - 1], t->n - 1);
    return 0;
}

static void on_leave(struct tree *t, const struct ev *e)
{
    struct tree_frame *f;

    /* The innermost frame of this function returns; anything above it never will. */
    for (unsigned k = t->n; k-- > t->unknown;) {
        if (t->stack[k].addr != e->addr)
            continue;
        abandon_to(t, k + 1, e->time);
        t->n--;
        t->sink.exit(t->sink.arg, &t->stack[t->n], t->n, e->time, TREE_RETURNED);
        return;
    }
    if (t->unknown == 0) {
        t->unmatched++;
        return;
    }
    /* After a loss: a frame shown before it that this exit names returned as it was shown,
     * and the frames above it are gone. */
    for (unsigned k = t->unknown; k-- > 0;) {
        if (t->stack[k].before_trace || t->stack[k].addr != e->addr)
            continue;
        abandon_to(t, k + 1, e->time);
        t->unknown = k;
        t->n = k;
        t->sink.exit(t->sink.arg, &t->stack[k], k, e->time, TREE_RETURNED);
        return;
    }
    /* An exit from a frame entered before the trace (or before a loss, unnamed by it): it
     * names the topmost unnamed frame, and whatever was called above that frame is gone. */
    abandon_to(t, t->unknown, e->time);
    t->unknown--;
    t->n--;
    f = &t->stack[t->n];
    f->addr = e->addr;
    f->site = e->site;
    f->t_enter = 0;
    f->before_trace = 1;
    t->sink.exit(t->sink.arg, f, t->n, e->time, TREE_BEFORE_TRACE);
}

/* What the lost events did to the stack is unknown: the frames open now are named again by
 * the exits that come, as at the start of a trace, so that a lost exit does not leave the rest
 * of the tree one level too deep. */
void tree_lost(struct tree *t)
{
    t->unknown = t->n;
}

int tree_feed(struct tree *t, const struct ev *e)
{
    switch (e->kind) {
    case EV_ENTER:
        return on_call(t, e);
    case EV_EXIT:
        on_leave(t, e);
        return 0;
    case EV_LOST:
        tree_lost(t);
        t->sink.special(t->sink.arg, e, t->n);
        return 0;
    default:
        t->sink.special(t->sink.arg, e, t->n);
        return 0;
    }
}

void tree_finish(struct tree *t)
{
    t->sink.finish(t->sink.arg, t->stack + t->unknown, t->n - t->unknown);
}

uint64_t tree_unmatched(const struct tree *t)
{
    return t->unmatched;
}

void tree_free(struct tree *t)
{
    if (!t)
        return;
    free(t->stack);
    free(t);
}

struct dec_ctx *tree_scan_ctx(struct tree_scan *s, uint32_t id)
{
    return dec_ctx_get(&s->ctx, &s->n, &s->cap, id);
}

int tree_scan_add(struct tree_scan *s, const struct ev *e)
{
    struct dec_ctx *c = tree_scan_ctx(s, e->ctx);

    if (!c)
        return -1;
    switch (e->kind) {
    case EV_ENTER:
        c->events++;
        c->depth++;
        break;
    case EV_EXIT:
        c->events++;
        if (--c->depth < c->min_depth)
            c->min_depth = c->depth;
        break;
    case EV_THREAD:
        c->os_tid = e->addr;
        c->vfork = e->data == CYG_THREAD_VFORK;
        break;
    default:
        break;
    }
    return 0;
}

void tree_scan_free(struct tree_scan *s)
{
    free(s->ctx);
    memset(s, 0, sizeof *s);
}
