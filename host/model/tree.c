/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tree.c - one context's call stack, repaired as the events come. */
#include "model/tree.h"

#include "cyg_format.h"

#include <stdlib.h>
#include <string.h>

/* A setjmp of the context: where a longjmp to its buffer comes back to. */
struct tree_jmp {
    uint64_t env;     /* the jmp_buf's address */
    unsigned depth;   /* frames open at the setjmp: the calls above them are its callees' */
    uint64_t addr;    /* the function that called setjmp (the frame at depth - 1), 0: unknown */
    uint64_t t_enter; /* ... and its entry time, so that a later call of it is not taken for it */
};

/* Setjmps kept at most: they are pruned to the stack's depth as frames close, so only a
 * program that sets many buffers in one frame comes near it (the oldest goes first). */
#define TREE_JMPS_MAX 1024u

struct tree {
    struct tree_sink sink;
    tree_func_of func_of;
    void *func_arg;
    struct tree_frame *stack;
    unsigned n, cap;
    unsigned unknown;  /* frames at the bottom still waiting for the exit that names them */
    unsigned kept;     /* frames at the bottom open across the latest loss (unknown ones too) */
    unsigned holed;    /* frames at the bottom open at the latest hole (EV_HOLE): one that closes
                          without its exit may have lost it there */
    uint64_t unmatched;
    int pending;       /* the top frame's enter is not told yet: its values may follow */
    struct wval_set **vals; /* a wrapped call's values at each depth, allocated when first used */
    unsigned n_vals;
    uint64_t stray_values;
    uint64_t value_bias; /* tree_set_value_bias */
    struct tree_jmp *jmps; /* the setjmps whose frame may still be open, oldest first */
    unsigned n_jmps, cap_jmps;
    uint64_t jumps_unresolved;
    struct tree_hook hook; /* tree_set_hook_cost; cost 0: none */
    int hook_started;      /* an event came: the fields below hold the latest's */
    uint64_t hook_raw;     /* its time as recorded */
    uint64_t hook_out;     /* ... and as given out */
    uint64_t hook_seq;     /* its record's seq */
    uint64_t hook_owed;    /* the cost not taken out yet, in 1/256 tick */
    unsigned hook_frac;    /* the 1/256 ticks of hook_out */
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

static __attribute__((noinline)) int grow(struct tree *t)
{
    unsigned cap = t->cap * 2;
    struct tree_frame *s = realloc(t->stack, cap * sizeof *s);

    if (!s)
        return -1;
    t->stack = s;
    t->cap = cap;
    return 0;
}

/* Pops frames until n remain; they never returned. A frame open across a loss goes without
 * a word: its exit may be what was lost. */
static void abandon_to(struct tree *t, unsigned n, uint64_t when)
{
    while (t->n > n) {
        t->n--;
        if (t->n < t->kept) {
            t->kept = t->n;
        } else if (t->n < t->holed) {
            t->holed = t->n;
            t->sink.exit(t->sink.arg, &t->stack[t->n], t->n, when, TREE_HOLE);
        } else {
            t->sink.exit(t->sink.arg, &t->stack[t->n], t->n, when, TREE_ABANDONED);
        }
    }
}

/* A frame closes (n frames are left): it is no longer one that was open at a hole. */
static void closed_to(struct tree *t)
{
    if (t->kept > t->n)
        t->kept = t->n;
    if (t->holed > t->n)
        t->holed = t->n;
}

/* Whether frame k runs in the code of the frame below it: the hooks of a function inlined
 * into another get the call site of the function they were inlined into, the site of the
 * frame below. (A recursive call from the place its caller was called from has it too: the
 * same function, so a call from its code is a call from the frame below's all the same.) */
static int same_code(const struct tree *t, unsigned k)
{
    return k > t->unknown && t->stack[k].site && t->stack[k].site == t->stack[k - 1].site;
}

/* With call sites, a call made from a function further down the stack proves that the frames
 * above that function are gone: a longjmp skipped their exits. A call site outside every
 * frame is left alone: it is a call from code that is not instrumented (a library callback).
 *
 * A call with the top frame's own site, not made from the top frame's function, is inlined
 * into it: marked, since the site is not its own. A call from a function that frames above
 * it run inlined in proves nothing either. A call whose site is the one of a frame above its
 * caller's may be inlined into that frame or be a new call from the same place after a
 * longjmp: taken as inlined, as the tree without call sites would nest it, it proves only the
 * frames above that one gone. Returns 1 when the call is taken as inlined. */
static int repair_by_site(struct tree *t, const struct ev *e)
{
    uint64_t caller;
    unsigned k = t->n - 1, keep;
    int inlined = 0;

    if (!e->site || !t->func_of || t->n <= t->unknown)
        return 0;
    /* The site is a return address: after a call that never returns it is the first byte of
     * the next function, so look one byte back, inside the call instruction. */
    caller = t->func_of(t->func_arg, e->site - 1);
    if (caller && caller == t->stack[k].addr)
        return 0;
    if (e->site == t->stack[k].site)
        return 1;
    if (!caller)
        return 0;
    for (; same_code(t, k); k--)
        if (t->stack[k - 1].addr == caller)
            return 0;
    while (k-- > t->unknown) {
        if (t->stack[k].addr != caller)
            continue;
        for (keep = k + 1; keep < t->n && same_code(t, keep); keep++)
            ;
        if (keep < t->n && t->stack[keep].site == e->site) {
            inlined = 1;
            for (keep++; keep < t->n && same_code(t, keep); keep++)
                ;
        }
        abandon_to(t, keep, e->time);
        return inlined;
    }
    return 0;
}

static int on_call(struct tree *t, const struct ev *e)
{
    int inlined = repair_by_site(t, e);
    uint64_t addr = e->addr, site = e->site;
    struct tree_frame *f;

    /* The decoder has just stored the event field by field. gcc would copy addr and site with
     * one 16-byte load, which cannot take its bytes from two narrower stores still in flight
     * and waits for them to reach the cache: on real traces that stall cost more than the rest
     * of the call. The empty asm keeps the two loads apart. */
    __asm__("" : "+r"(site));
    if (t->n == t->cap && grow(t) < 0)
        return -1;
    f = &t->stack[t->n++];
    f->addr = addr;
    f->site = site;
    f->t_enter = e->time;
    f->before_trace = 0;
    f->entry_lost = 0;
    f->inlined = (uint8_t)inlined;
    f->vals = NULL;
    t->pending = 1;
    return 0;
}

/* Tells the sink of the call entered last, now that its values (if any) are in. */
static void tell_enter(struct tree *t)
{
    t->pending = 0;
    t->sink.enter(t->sink.arg, &t->stack[t->n - 1], t->n - 1);
}

/* The values' storage of depth d, made when first needed; NULL when out of memory. */
static struct wval_set *vals_at(struct tree *t, unsigned d)
{
    if (d >= t->n_vals) {
        unsigned n = d + 16;
        struct wval_set **v = realloc(t->vals, n * sizeof *v);

        if (!v)
            return NULL;
        memset(v + t->n_vals, 0, (n - t->n_vals) * sizeof *v);
        t->vals = v;
        t->n_vals = n;
    }
    if (!t->vals[d])
        t->vals[d] = malloc(sizeof *t->vals[d]);
    return t->vals[d];
}

/* A word of a wrapped call's argument or return value: the innermost open call's, when its
 * check bits and its order say so (a call whose entry the ring lost leaves its values to
 * nobody, not to its caller). */
static int on_value(struct tree *t, const struct ev *e)
{
    struct tree_frame *f;
    struct wval_set *v;

    if (t->n <= t->unknown) {
        t->stray_values++;
        return 0;
    }
    f = &t->stack[t->n - 1];
    if (!(v = vals_at(t, t->n - 1)))
        return -1;
    if (!f->vals)
        wval_reset(v); /* the first for this call: the storage is the last call's at depth */
    if (wval_add(v, f->addr + t->value_bias, e->data, e->addr) < 0) {
        t->stray_values++;
        return 0;
    }
    f->vals = v;
    if (!t->pending && t->sink.values)
        t->sink.values(t->sink.arg, f, t->n - 1);
    return 0;
}

void tree_sync(struct tree *t)
{
    if (t->pending)
        tell_enter(t);
}

void tree_set_value_bias(struct tree *t, uint64_t bias)
{
    t->value_bias = bias;
}

/* Forgets the setjmps made in frames that are gone (deeper than the stack is now): a longjmp
 * to one of them would be undefined, and its buffer is most likely reused. */
static void jmps_prune(struct tree *t)
{
    unsigned k = 0;

    for (unsigned i = 0; i < t->n_jmps; i++)
        if (t->jmps[i].depth <= t->n)
            t->jmps[k++] = t->jmps[i];
    t->n_jmps = k;
}

/* The frame at depth d - 1 as a setjmp made at depth d remembers it. */
static void jmp_frame(const struct tree *t, unsigned d, uint64_t *addr, uint64_t *t_enter)
{
    *addr = d > t->unknown ? t->stack[d - 1].addr : 0;
    *t_enter = d > t->unknown ? t->stack[d - 1].t_enter : 0;
}

static int on_setjmp(struct tree *t, const struct ev *e)
{
    struct tree_jmp *j = NULL;

    jmps_prune(t);
    for (unsigned i = 0; i < t->n_jmps && !j; i++)
        if (t->jmps[i].env == e->addr)
            j = &t->jmps[i];
    if (!j) {
        if (t->n_jmps == TREE_JMPS_MAX) {
            memmove(t->jmps, t->jmps + 1, (TREE_JMPS_MAX - 1) * sizeof *t->jmps);
            t->n_jmps--;
        }
        if (t->n_jmps == t->cap_jmps) {
            unsigned cap = t->cap_jmps ? t->cap_jmps * 2 : 16;
            struct tree_jmp *v = realloc(t->jmps, cap * sizeof *v);

            if (!v)
                return -1;
            t->jmps = v;
            t->cap_jmps = cap;
        }
        j = &t->jmps[t->n_jmps++];
        j->env = e->addr;
    }
    j->depth = t->n;
    jmp_frame(t, t->n, &j->addr, &j->t_enter);
    return 0;
}

/* A longjmp: back to the depth of its buffer's setjmp, when the frame that called setjmp is
 * still the one open there; the calls above it never return (a frame open across a loss goes
 * without a word, as abandon_to says). Returns 0 when it could not be resolved (the setjmp is
 * not in the trace, or its frame is gone). */
static int on_longjmp(struct tree *t, const struct ev *e)
{
    const struct tree_jmp *j = NULL;
    uint64_t addr, t_enter;
    unsigned d;

    jmps_prune(t);
    for (unsigned i = 0; i < t->n_jmps && !j; i++)
        if (t->jmps[i].env == e->addr)
            j = &t->jmps[i];
    if (!j)
        return 0;
    d = j->depth;
    jmp_frame(t, d, &addr, &t_enter);
    if ((j->addr && addr != j->addr) || t_enter != j->t_enter)
        return 0;
    /* d is at least the unnamed frames' count: it was when the setjmp came, and names only
     * ever come for them by popping them. */
    while (t->n > d) {
        t->n--;
        if (t->n < t->kept) {
            t->kept = t->n;
        } else if (t->n < t->holed) { /* its exit may have come before, into the hole */
            t->holed = t->n;
            t->sink.exit(t->sink.arg, &t->stack[t->n], t->n, e->time, TREE_HOLE);
        } else {
            t->sink.exit(t->sink.arg, &t->stack[t->n], t->n, e->time, TREE_JUMPED);
        }
    }
    return 1;
}

/* A call made in a loss returns: shown on top of the frames open across the loss, which stay
 * as they are; the frames called after the loss were called from inside it, and are gone. */
static void leave_lost_call(struct tree *t, const struct ev *e)
{
    struct tree_frame f = {.addr = e->addr, .site = e->site, .before_trace = 1, .entry_lost = 1};

    abandon_to(t, t->kept, e->time);
    t->sink.exit(t->sink.arg, &f, t->n, e->time, TREE_BEFORE_TRACE);
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
        closed_to(t);
        t->sink.exit(t->sink.arg, &t->stack[t->n], t->n, e->time, TREE_RETURNED);
        return;
    }
    if (t->kept > t->unknown) {
        leave_lost_call(t, e);
        return;
    }
    if (t->unknown == 0) {
        t->unmatched++;
        return;
    }
    /* An exit from a frame entered before the trace: it names the topmost unnamed frame, and
     * whatever was called above that frame is gone. */
    abandon_to(t, t->unknown, e->time);
    t->unknown--;
    t->n--;
    closed_to(t);
    f = &t->stack[t->n];
    f->addr = e->addr;
    f->site = e->site;
    f->t_enter = 0;
    f->before_trace = 1;
    f->vals = NULL;
    t->sink.exit(t->sink.arg, f, t->n, e->time, TREE_BEFORE_TRACE);
}

/* What the lost events did to the stack is unknown. The frames open now stay open until an
 * exit names one of them (the frames above it are gone then: their exits may be what was
 * lost); an exit of a function not open was a call made in the loss. Taking such an exit for
 * one of the open frames instead would take a frame for gone at each of them, down to main. */
void tree_lost(struct tree *t)
{
    tree_sync(t);
    t->kept = t->n;
}

void tree_hole(struct tree *t)
{
    tree_sync(t);
    t->holed = t->n;
}

void tree_set_hook_cost(struct tree *t, const struct tree_hook *h)
{
    t->hook = h && h->cost ? *h : (struct tree_hook){0};
}

/* Records n in [0, a) that start a memory page (the first lap only: n below the capacity). */
static uint64_t page_starts(const struct tree_hook *h, uint64_t a)
{
    uint64_t page = (uint64_t)1 << h->page_log2, per = page / h->rec_bytes, first;

    if (a > (uint64_t)1 << h->cap_log2)
        a = (uint64_t)1 << h->cap_log2;
    /* the records follow the 128-byte control block: the first at a page's start */
    first = ((page - CYG_HDR_BYTES % page) % page) / h->rec_bytes;
    return a > first ? (a - first - 1) / per + 1 : 0;
}

/* The cost in 1/256 tick of the records n in [from, to) (global: of every context). */
static uint64_t records_cost(const struct tree_hook *h, uint64_t from, uint64_t to)
{
    uint64_t c = (to - from) * h->cost;

    if (h->page_cost)
        c += (page_starts(h, to) - page_starts(h, from)) * ((uint64_t)h->page_cost << 8);
    return c;
}

/* e's time with the hooks' cost taken out (tree_set_hook_cost). */
static uint64_t hook_time(struct tree *t, const struct ev *e)
{
    const struct tree_hook *h = &t->hook;
    int record = e->kind != EV_LOST && e->kind != EV_HOLE;
    uint64_t out;

    if (!t->hook_started) {
        t->hook_started = 1;
        t->hook_out = e->time;
    } else {
        if (h->global && record && e->seq > t->hook_seq + 1) /* other contexts' records */
            t->hook_owed += records_cost(h, t->hook_seq + 1, e->seq);
        if (e->time >= t->hook_raw) {
            uint64_t g = e->time - t->hook_raw, gq, take;

            /* a gap of 2^55 ticks or more pays in whole ticks: no overflow */
            gq = g < ((uint64_t)1 << 55) ? g << 8 : ~(uint64_t)0;
            take = t->hook_owed < gq ? t->hook_owed : gq;
            t->hook_owed -= take;
            gq = gq - take + t->hook_frac;
            t->hook_out += gq >> 8;
            t->hook_frac = gq & 255u;
        } else { /* a step back, as recorded */
            uint64_t back = t->hook_raw - e->time;

            t->hook_out = t->hook_out > back ? t->hook_out - back : 1;
        }
    }
    t->hook_raw = e->time;
    if (record)
        t->hook_seq = e->seq;
    /* what this event owes the gap after it */
    if (record && (h->global || e->kind == EV_ENTER || e->kind == EV_EXIT))
        t->hook_owed += records_cost(h, e->seq, e->seq + 1);
    out = t->hook_out;
    return e->time ? (out ? out : 1) : 0;
}

int tree_feed(struct tree *t, const struct ev *e)
{
    struct ev c;

    if (t->hook.cost) {
        c = *e;
        c.time = hook_time(t, e);
        e = &c;
    }
    if (e->kind == EV_VALUE)
        return on_value(t, e);
    tree_sync(t);
    switch (e->kind) {
    case EV_ENTER:
        return on_call(t, e);
    case EV_EXIT:
        on_leave(t, e);
        return 0;
    case EV_SETJMP:
        return on_setjmp(t, e);
    case EV_LONGJMP:
        /* One that closed what it skipped needs no line: the frames say it. */
        if (!on_longjmp(t, e)) {
            t->jumps_unresolved++;
            t->sink.special(t->sink.arg, e, t->n);
        }
        return 0;
    case EV_HOLE:
        tree_hole(t);
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
    tree_sync(t);
    t->sink.finish(t->sink.arg, t->stack + t->unknown, t->n - t->unknown);
}

uint64_t tree_unmatched(const struct tree *t)
{
    return t->unmatched;
}

uint64_t tree_jumps_unresolved(const struct tree *t)
{
    return t->jumps_unresolved;
}

uint64_t tree_stray_values(const struct tree *t)
{
    return t->stray_values;
}

void tree_free(struct tree *t)
{
    if (!t)
        return;
    for (unsigned d = 0; d < t->n_vals; d++)
        free(t->vals[d]);
    free(t->vals);
    free(t->jmps);
    free(t->stack);
    free(t);
}

struct dec_ctx *tree_scan_ctx(struct tree_scan *s, uint32_t id)
{
    struct dec_ctx *c;

    /* a context's events come in runs: the index only where the context changes */
    if (s->last < s->n && s->ctx[s->last].id == id)
        return &s->ctx[s->last];
    if ((c = dec_ctx_get(&s->ctx, &s->n, &s->cap, &s->ctx_ix, id)))
        s->last = (unsigned)(c - s->ctx);
    return c;
}

int tree_scan_add(struct tree_scan *s, const struct ev *e)
{
    struct dec_ctx *c = tree_scan_ctx(s, e->ctx);

    if (!c)
        return -1;
    switch (e->kind) {
    case EV_ENTER:
    case EV_EXIT:
        return dec_ctx_call(c, e->kind == EV_EXIT, e->addr);
    case EV_LOST:
        dec_ctx_lost(c);
        break;
    case EV_THREAD:
        c->os_tid = e->addr;
        c->vfork = e->data == CYG_THREAD_VFORK;
        break;
    case EV_SETJMP:
    case EV_LONGJMP:
        return dec_ctx_jump(c, e->kind == EV_LONGJMP, e->addr);
    default:
        break;
    }
    return 0;
}

void tree_scan_free(struct tree_scan *s)
{
    dec_ctx_free(s->ctx, s->n, &s->ctx_ix);
    dec_index_free(&s->index);
    memset(s, 0, sizeof *s);
}
