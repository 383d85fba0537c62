/* SPDX-License-Identifier: GPL-3.0-or-later */
/* filter.c - the selection (only, hide, depth) on the tree's depths, then the hold that leaves
 * out short calls, then the sink. */
#include "model/filter.h"

#include <stdlib.h>
#include <string.h>

#include "util/vec.h"

enum { IT_ENTER, IT_EXIT, IT_SPECIAL };

/* An event held until the calls around it are known to be long enough. */
struct item {
    uint8_t kind;
    uint8_t keep; /* an enter: its call is known to be long enough */
    uint8_t how;
    unsigned depth;
    uint64_t t_exit;
    union {
        struct tree_frame f;
        struct ev e;
    } u;
};

/* An open call the hold saw entered (downstream depths). */
struct open {
    uint64_t pos; /* its enter's place in the hold */
    uint64_t t_enter;
    unsigned depth;
};

struct filter {
    struct tree_sink sink, out;
    struct filter_opts o;
    long hide_at, only_at; /* depth of the hidden call / the kept call; -1: none open */
    unsigned top;          /* frames open after the last event */
    struct item *ring;     /* FILTER_HOLD items; head..tail held */
    uint64_t head, tail;
    struct open *os;
    unsigned n, lo;        /* os[lo..n) are undecided */
    size_t cap;
    uint64_t forced;
    int failed;
};

static void deliver(struct filter *f, const struct item *it)
{
    if (it->kind == IT_ENTER)
        f->out.enter(f->out.arg, &it->u.f, it->depth);
    else if (it->kind == IT_EXIT)
        f->out.exit(f->out.arg, &it->u.f, it->depth, it->t_exit, (enum tree_exit_how)it->how);
    else
        f->out.special(f->out.arg, &it->u.e, it->depth);
}

/* Passes on the held events up to the first enter of an undecided call. */
static void emit_ready(struct filter *f)
{
    while (f->head < f->tail) {
        struct item *it = &f->ring[f->head % FILTER_HOLD];

        if (it->kind == IT_ENTER && !it->keep)
            break;
        deliver(f, it);
        f->head++;
    }
}

static void keep_lo(struct filter *f)
{
    f->ring[f->os[f->lo].pos % FILTER_HOLD].keep = 1;
    f->lo++;
}

/* At time t, the undecided calls entered min ticks or more before are long enough; the
 * outermost entered first, so they are decided bottom up. */
static void mark(struct filter *f, uint64_t t)
{
    while (f->lo < f->n && tree_span(f->os[f->lo].t_enter, t) >= f->o.min)
        keep_lo(f);
}

/* Calls the tree dropped without an exit (made unknown by a loss) at depth d and above: not
 * known to be short, so kept. */
static void vanish(struct filter *f, unsigned d)
{
    while (f->n && f->os[f->n - 1].depth >= d) {
        if (f->lo >= f->n) {
            f->n--;
            f->lo = f->n;
            continue;
        }
        while (f->lo < f->n)
            keep_lo(f);
        f->n--;
        f->lo = f->n;
    }
}

static void hold(struct filter *f, const struct item *it)
{
    if (f->tail - f->head == FILTER_HOLD) {
        /* Full: the front is the outermost undecided call's enter. */
        if (f->lo < f->n) {
            keep_lo(f);
            f->forced++;
        }
        emit_ready(f);
        if (f->tail - f->head == FILTER_HOLD) { /* cannot happen: the front was decided */
            f->failed = 1;
            return;
        }
    }
    f->ring[f->tail++ % FILTER_HOLD] = *it;
}

static void min_enter(struct filter *f, const struct tree_frame *fr, unsigned d)
{
    struct item it = {.kind = IT_ENTER, .depth = d};

    if (!f->o.min) {
        f->out.enter(f->out.arg, fr, d);
        return;
    }
    vanish(f, d);
    mark(f, fr->t_enter);
    emit_ready(f);
    if (vec_grow(&f->os, &f->cap, f->n, sizeof *f->os, 64) < 0) {
        /* cannot hold it: pass it on as if long enough */
        f->failed = 1;
        f->out.enter(f->out.arg, fr, d);
        return;
    }
    it.u.f = *fr;
    hold(f, &it);
    f->os[f->n++] = (struct open){f->tail - 1, fr->t_enter, d};
}

static void min_exit(struct filter *f, const struct tree_frame *fr, unsigned d, uint64_t t,
                     enum tree_exit_how how)
{
    struct item it = {.kind = IT_EXIT, .depth = d, .t_exit = t, .how = (uint8_t)how};

    if (!f->o.min) {
        f->out.exit(f->out.arg, fr, d, t, how);
        return;
    }
    vanish(f, d + 1);
    if (f->n && f->os[f->n - 1].depth == d) {
        struct open *o = &f->os[f->n - 1];

        /* Short: the call and its subtree are the last events held. */
        if (f->lo < f->n && tree_span(o->t_enter, t) < f->o.min && o->pos >= f->head) {
            f->tail = o->pos;
            f->n--;
            if (f->lo > f->n)
                f->lo = f->n;
            return;
        }
        f->n--;
        if (f->lo > f->n)
            f->lo = f->n;
        if (o->pos >= f->head)
            f->ring[o->pos % FILTER_HOLD].keep = 1;
    }
    mark(f, t);
    it.u.f = *fr;
    hold(f, &it);
    emit_ready(f);
}

static void min_special(struct filter *f, const struct ev *e, unsigned d)
{
    struct item it = {.kind = IT_SPECIAL, .depth = d};

    if (!f->o.min) {
        f->out.special(f->out.arg, e, d);
        return;
    }
    mark(f, e->time);
    it.u.e = *e;
    hold(f, &it);
    emit_ready(f);
}

static void min_finish(struct filter *f, const struct tree_frame *stack, unsigned n)
{
    while (f->lo < f->n)
        keep_lo(f);
    emit_ready(f);
    f->head = f->tail = 0;
    f->n = f->lo = 0;
    f->out.finish(f->out.arg, stack, n);
}

static void sel_enter(void *arg, const struct tree_frame *fr, unsigned d)
{
    struct filter *f = arg;
    long base = 0;

    f->top = d + 1;
    if (f->hide_at >= (long)d)
        f->hide_at = -1;
    if (f->only_at >= (long)d)
        f->only_at = -1;
    if (f->hide_at >= 0)
        return;
    if (f->o.have_hide && fr->addr == f->o.hide) {
        f->hide_at = d;
        return;
    }
    if (f->o.have_only) {
        if (f->only_at < 0) {
            if (fr->addr != f->o.only)
                return;
            f->only_at = d;
        }
        base = f->only_at;
    }
    if (f->o.max_depth && d - base >= f->o.max_depth)
        return;
    min_enter(f, fr, (unsigned)(d - base));
}

static void sel_exit(void *arg, const struct tree_frame *fr, unsigned d, uint64_t t,
                     enum tree_exit_how how)
{
    struct filter *f = arg;
    long base = 0;

    f->top = d;
    if (f->hide_at > (long)d)
        f->hide_at = -1;
    if (f->hide_at >= 0) {
        if (f->hide_at == (long)d)
            f->hide_at = -1;
        return;
    }
    if (f->o.have_only) {
        if (f->only_at > (long)d)
            f->only_at = -1;
        if (f->only_at < 0)
            return;
        base = f->only_at;
        if (f->only_at == (long)d)
            f->only_at = -1;
    }
    if (f->o.max_depth && d - base >= f->o.max_depth)
        return;
    min_exit(f, fr, (unsigned)(d - base), t, how);
}

static void sel_special(void *arg, const struct ev *e, unsigned d)
{
    struct filter *f = arg;
    long base = f->o.have_only ? f->only_at : 0;

    f->top = d;
    if (f->hide_at >= (long)d)
        f->hide_at = -1;
    if (f->only_at >= (long)d)
        f->only_at = -1;
    if (e->kind == EV_LOST) { /* the sinks' accounting must know of every loss */
        min_special(f, e, base > 0 && d > base ? (unsigned)(d - base) : (base > 0 ? 0 : d));
        return;
    }
    if (f->hide_at >= 0 || (f->o.have_only && f->only_at < 0))
        return;
    base = f->o.have_only ? f->only_at : 0;
    if (f->o.max_depth && d - base > f->o.max_depth)
        return;
    min_special(f, e, (unsigned)(d - base));
}

static void sel_finish(void *arg, const struct tree_frame *stack, unsigned n)
{
    struct filter *f = arg;
    long base = (long)f->top - n, lo = 0, hi = n;

    if (base < 0)
        base = 0;
    if (f->hide_at >= 0 && f->hide_at - base < hi)
        hi = f->hide_at - base;
    if (f->o.have_only) {
        if (f->only_at < 0)
            hi = 0;
        else if (f->only_at - base > lo)
            lo = f->only_at - base;
    }
    if (f->o.max_depth && lo + (long)f->o.max_depth < hi)
        hi = lo + f->o.max_depth;
    if (hi < lo)
        hi = lo;
    f->hide_at = f->only_at = -1;
    f->top = 0;
    min_finish(f, stack + lo, (unsigned)(hi - lo));
}

int filter_active(const struct filter_opts *o)
{
    return o->max_depth || o->have_only || o->have_hide || o->min;
}

struct filter *filter_new(const struct tree_sink *out, const struct filter_opts *o)
{
    struct filter *f = calloc(1, sizeof *f);

    if (!f)
        return NULL;
    if (o->min && !(f->ring = malloc(FILTER_HOLD * sizeof *f->ring))) {
        free(f);
        return NULL;
    }
    f->out = *out;
    f->o = *o;
    f->hide_at = f->only_at = -1;
    f->sink = (struct tree_sink){f, sel_enter, sel_exit, sel_special, sel_finish, NULL};
    return f;
}

const struct tree_sink *filter_sink(struct filter *f)
{
    return &f->sink;
}

uint64_t filter_forced(const struct filter *f)
{
    return f->forced;
}

int filter_failed(const struct filter *f)
{
    return f->failed;
}

void filter_free(struct filter *f)
{
    if (!f)
        return;
    free(f->ring);
    free(f->os);
    free(f);
}

int filter_parse_duration(const char *s, struct filter_dur *d)
{
    static const struct {
        const char *name;
        double ns;
    } units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
    char *end;
    double v;

    if (!s || !*s || *s == '-' || *s == '+')
        return -1;
    v = strtod(s, &end);
    if (end == s || v < 0 || v > 1.8e19)
        return -1;
    if (!*end || !strcmp(end, "ticks")) {
        if (v != (double)(uint64_t)v) /* ticks are whole */
            return -1;
        *d = (struct filter_dur){0, (uint64_t)v};
        return 0;
    }
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (!strcmp(end, units[i].name) && v * units[i].ns < 1.8e19) {
            *d = (struct filter_dur){1, (uint64_t)(v * units[i].ns + 0.5)};
            return 0;
        }
    }
    return -1;
}

int filter_parse_range(const char *s, struct filter_time *t, struct filter_dur *from,
                       struct filter_dur *to)
{
    const char *dots = strstr(s, "..");
    char a[64];
    size_t n;

    if (!dots || (n = (size_t)(dots - s)) >= sizeof a)
        return -1;
    memcpy(a, s, n);
    a[n] = 0;
    memset(t, 0, sizeof *t);
    t->on = 1;
    t->have_from = n > 0;
    t->have_to = dots[2] != 0;
    if ((t->have_from && filter_parse_duration(a, from) < 0) ||
        (t->have_to && filter_parse_duration(dots + 2, to) < 0))
        return -1;
    return 0;
}

int filter_ticks(const struct filter_dur *d, uint64_t hz, uint64_t *ticks)
{
    if (!d->unit) {
        *ticks = d->value;
        return 0;
    }
    if (!hz)
        return -1;
    *ticks = (uint64_t)((double)d->value * (double)hz / 1e9 + 0.5);
    return 0;
}

int filter_time_keep(struct filter_time *t, const struct ev *e)
{
    uint64_t rel;

    if (!t->on)
        return 1;
    /* What says who runs is kept whenever it comes; the origin is the first call's time (a
     * thread record before it may carry none). */
    if (e->kind == EV_THREAD || e->kind == EV_CONTEXT || e->kind == EV_START ||
        e->kind == EV_STOP || e->kind == EV_UNKNOWN)
        return 1;
    if (!t->have_t0) {
        /* lost before the first call: its time is no origin */
        if (e->kind == EV_LOST || e->kind == EV_HOLE)
            return 1;
        t->have_t0 = 1;
        t->t0 = e->time;
    }
    rel = tree_span(t->t0, e->time);
    return (!t->have_from || rel >= t->from) && (!t->have_to || rel <= t->to);
}
