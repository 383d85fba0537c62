/* SPDX-License-Identifier: GPL-3.0-or-later */
/* diff.c - shapes interned from the call trees of two traces, and their alignment (diff.h). */
#include "model/diff.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/calltime.h"
#include "util/oaindex.h"
#include "util/vec.h"

/* --- the set -------------------------------------------------------------------------------- */

struct diff_set {
    char **name; /* per function id */
    size_t nname, capname;
    struct oaindex name_ix;
    struct diff_shape *shape;
    size_t nshape, capshape;
    struct oaindex shape_ix;
    struct diff_run *run;
    size_t nrun, caprun;
    size_t max_runs, max_shapes;
    uint64_t cut;
};

/* What a shape is looked up by before it is one. */
struct shape_key {
    uint32_t fn, flags;
    const struct diff_run *runs;
    size_t n;
    uint64_t hash;
};

static uint64_t name_hash(const void *arg, size_t pos)
{
    const struct diff_set *s = arg;

    return oaindex_hash_str(s->name[pos]);
}

static int name_match(const void *arg, size_t pos, const void *key)
{
    const struct diff_set *s = arg;

    return !strcmp(s->name[pos], key);
}

static uint64_t shape_hash(const void *arg, size_t pos)
{
    const struct diff_set *s = arg;

    return s->shape[pos].hash;
}

static int shape_match(const void *arg, size_t pos, const void *key)
{
    const struct diff_set *s = arg;
    const struct diff_shape *h = &s->shape[pos];
    const struct shape_key *k = key;

    return h->hash == k->hash && h->fn == k->fn && h->flags == k->flags && h->nruns == k->n &&
           (!k->n || !memcmp(&s->run[h->off], k->runs, k->n * sizeof *k->runs));
}

struct diff_set *diff_set_new(size_t max_runs)
{
    struct diff_set *s = calloc(1, sizeof *s);

    if (!s)
        return NULL;
    s->max_runs = max_runs ? max_runs : DIFF_MAX_RUNS;
    s->max_shapes = s->max_runs / 4 > 64 ? s->max_runs / 4 : 64;
    if (diff_set_fn(s, "(root)") != DIFF_FN_ROOT || diff_set_fn(s, "?") != DIFF_FN_UNKNOWN) {
        diff_set_free(s);
        return NULL;
    }
    return s;
}

uint32_t diff_set_fn(struct diff_set *s, const char *name)
{
    uint64_t h = oaindex_hash_str(name);
    size_t k = oaindex_find(&s->name_ix, h, name_match, s, name), *slot;

    if (k != SIZE_MAX)
        return (uint32_t)k;
    if (s->nname >= UINT32_MAX - 1 ||
        vec_grow(&s->name, &s->capname, s->nname, sizeof *s->name, 256) < 0 ||
        oaindex_reserve(&s->name_ix, 512, name_hash, s) < 0 || !(s->name[s->nname] = strdup(name)))
        return DIFF_NONE;
    slot = oaindex_slot(&s->name_ix, h, name_match, s, name);
    oaindex_put(&s->name_ix, slot, s->nname);
    return (uint32_t)s->nname++;
}

const char *diff_set_name(const struct diff_set *s, uint32_t fn)
{
    return fn < s->nname ? s->name[fn] : "?";
}

size_t diff_set_fns(const struct diff_set *s)
{
    return s->nname;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + UINT64_C(0x9e3779b97f4a7c15) + (h << 6) + (h >> 2);
    return h * UINT64_C(0xff51afd7ed558ccd);
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a + b < a ? UINT64_MAX : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

static uint32_t intern(struct diff_set *s, const struct shape_key *k)
{
    size_t pos = oaindex_find(&s->shape_ix, k->hash, shape_match, s, k), *slot;
    struct diff_shape *h;
    uint64_t calls = k->fn == DIFF_FN_ROOT ? 0 : 1;

    if (pos != SIZE_MAX)
        return (uint32_t)pos;
    if (s->nshape >= UINT32_MAX - 1 ||
        vec_grow(&s->shape, &s->capshape, s->nshape, sizeof *s->shape, 1024) < 0 ||
        oaindex_reserve(&s->shape_ix, 2048, shape_hash, s) < 0)
        return DIFF_NONE;
    if (k->n && vec_reach(&s->run, &s->caprun, s->nrun + k->n - 1, sizeof *s->run, 4096) < 0)
        return DIFF_NONE;
    for (size_t i = 0; i < k->n; i++)
        calls = sat_add(calls, sat_mul(s->shape[k->runs[i].shape].calls, k->runs[i].count));
    h = &s->shape[s->nshape];
    *h = (struct diff_shape){.fn = k->fn, .flags = k->flags, .nruns = (uint32_t)k->n,
                             .off = (uint32_t)s->nrun, .calls = calls, .hash = k->hash};
    if (k->n)
        memcpy(&s->run[s->nrun], k->runs, k->n * sizeof *k->runs);
    s->nrun += k->n;
    slot = oaindex_slot(&s->shape_ix, k->hash, shape_match, s, k);
    oaindex_put(&s->shape_ix, slot, s->nshape);
    return (uint32_t)s->nshape++;
}

static uint64_t key_hash(uint32_t fn, unsigned flags, const struct diff_run *runs, size_t n)
{
    uint64_t h = mix(mix(UINT64_C(0x243f6a8885a308d3), fn), flags);

    for (size_t i = 0; i < n; i++)
        h = mix(mix(h, runs[i].shape), runs[i].count);
    return h ^ h >> 29;
}

uint32_t diff_set_shape(struct diff_set *s, uint32_t fn, unsigned flags,
                        const struct diff_run *runs, size_t n)
{
    size_t cap = flags & DIFF_KEEP ? 2 : 1, pos;
    struct shape_key k;

    flags &= ~DIFF_KEEP;
    k = (struct shape_key){fn, flags, runs, n, 0};
    k.hash = key_hash(fn, flags, runs, n);
    pos = oaindex_find(&s->shape_ix, k.hash, shape_match, s, &k);
    if (pos != SIZE_MAX)
        return (uint32_t)pos;
    if (s->nrun + n > cap * s->max_runs || s->nshape >= cap * s->max_shapes || n > UINT32_MAX ||
        s->nrun + n > UINT32_MAX) {
        /* Past the cap: the function alone (one such shape per function), its calls cut. */
        s->cut++;
        k = (struct shape_key){fn, flags | DIFF_F_CUT, NULL, 0, key_hash(fn, flags | DIFF_F_CUT,
                                                                           NULL, 0)};
    }
    return intern(s, &k);
}

const struct diff_shape *diff_set_get(const struct diff_set *s, uint32_t id)
{
    return &s->shape[id];
}

const struct diff_run *diff_set_runs(const struct diff_set *s, uint32_t id)
{
    return s->run + s->shape[id].off;
}

size_t diff_set_shapes(const struct diff_set *s)
{
    return s->nshape;
}

size_t diff_set_nruns(const struct diff_set *s)
{
    return s->nrun;
}

uint64_t diff_set_cut(const struct diff_set *s)
{
    return s->cut;
}

void diff_set_free(struct diff_set *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nname; i++)
        free(s->name[i]);
    free(s->name);
    oaindex_free(&s->name_ix);
    free(s->shape);
    oaindex_free(&s->shape_ix);
    free(s->run);
    free(s);
}

/* --- one trace's side ------------------------------------------------------------------------ */

/* A run list that a level (or a context's root) gathers while it is open. */
struct runs {
    struct diff_run *r;
    size_t n, cap;
    int cut; /* children were left out (the cap on open runs) */
};

struct level {
    struct calltime_level base;
    uint32_t fn;
};

struct dt_ctx {
    struct calltime ct;
    struct diff_trace *t;
    struct runs *lv; /* per level, beside calltime's (whose blank would wipe them) */
    size_t caplv;
    struct runs root;
    size_t ix; /* in t->info */
};

/* A function's address and its id in the set. */
struct fn_addr {
    uint64_t addr;
    uint32_t fn;
};

struct diff_trace {
    struct diff_set *set;
    diff_name_fn name;
    void *arg;
    struct fn_addr *fa;
    size_t nfa, capfa;
    struct oaindex fa_ix;
    struct diff_spread *spread; /* per fn id */
    size_t capspread;
    struct dt_ctx **ctx;
    struct diff_ctxinfo *info;
    size_t nctx, capctx, capinfo;
    size_t open_runs; /* runs held by open levels, all contexts */
    uint64_t dropped;
};

static uint64_t fa_hash(const void *arg, size_t pos)
{
    const struct diff_trace *t = arg;

    return oaindex_hash_u64(t->fa[pos].addr);
}

static int fa_match(const void *arg, size_t pos, const void *key)
{
    const struct diff_trace *t = arg;

    return t->fa[pos].addr == *(const uint64_t *)key;
}

/* The set's id of the function at addr (0: unknown); DIFF_NONE when out of memory. */
static uint32_t fn_of(struct diff_trace *t, uint64_t addr)
{
    uint64_t h = oaindex_hash_u64(addr);
    size_t k, *slot;
    char buf[512];
    const char *name;
    uint32_t fn;

    if (!addr)
        return DIFF_FN_UNKNOWN;
    if ((k = oaindex_find(&t->fa_ix, h, fa_match, t, &addr)) != SIZE_MAX)
        return t->fa[k].fn;
    name = t->name(t->arg, addr, buf, sizeof buf);
    if ((fn = diff_set_fn(t->set, name)) == DIFF_NONE ||
        vec_grow(&t->fa, &t->capfa, t->nfa, sizeof *t->fa, 256) < 0 ||
        oaindex_reserve(&t->fa_ix, 512, fa_hash, t) < 0)
        return DIFF_NONE;
    t->fa[t->nfa] = (struct fn_addr){addr, fn};
    slot = oaindex_slot(&t->fa_ix, h, fa_match, t, &addr);
    oaindex_put(&t->fa_ix, slot, t->nfa);
    t->nfa++;
    return fn;
}

/* Appends one call of shape to a run list: the last run grows when it is of the same shape. */
static int runs_add(struct diff_trace *t, struct runs *r, uint32_t shape)
{
    if (r->n && r->r[r->n - 1].shape == shape && r->r[r->n - 1].count < UINT32_MAX) {
        r->r[r->n - 1].count++;
        return 0;
    }
    if (t->open_runs >= t->set->max_runs / 4) {
        r->cut = 1;
        t->set->cut++;
        return 0;
    }
    if (vec_grow(&r->r, &r->cap, r->n, sizeof *r->r, 8) < 0)
        return -1;
    r->r[r->n++] = (struct diff_run){shape, 1};
    t->open_runs++;
    return 0;
}

static void runs_clear(struct diff_trace *t, struct runs *r)
{
    t->open_runs -= r->n;
    r->n = 0;
    r->cut = 0;
}

static struct runs *runs_at(struct dt_ctx *c, unsigned d)
{
    if (vec_reach(&c->lv, &c->caplv, d, sizeof *c->lv, 16) < 0)
        return NULL;
    return &c->lv[d];
}

/* The list a call ending at level d goes into: its parent's, or the root's. */
static struct runs *parent_runs(struct dt_ctx *c, unsigned d)
{
    return d ? runs_at(c, d - 1) : &c->root;
}

/* Level d's gathered runs become a call of fn (ended as flags say) in its parent's list. */
static int close_level(struct dt_ctx *c, unsigned d, uint32_t fn, unsigned flags)
{
    struct runs *r = runs_at(c, d), *p;
    uint32_t id;

    if (!r || !(p = parent_runs(c, d)))
        return -1;
    id = diff_set_shape(c->t->set, fn,
                        flags | (r->cut ? DIFF_F_CUT : 0) | (d < DIFF_KEEP_DEPTH ? DIFF_KEEP : 0),
                        r->r, r->n);
    runs_clear(c->t, r);
    if (id == DIFF_NONE)
        return -1;
    return runs_add(c->t, p, id);
}

static int dt_enter(void *arg, struct calltime *ct, unsigned d, const struct tree_frame *f)
{
    struct dt_ctx *c = arg;
    struct level *l = calltime_at(ct, d);
    struct runs *r = runs_at(c, d);

    if (!r || (l->fn = fn_of(c->t, f->addr)) == DIFF_NONE)
        return -1;
    if (r->n) /* a frame from before the trace that gathered calls: it never ended */
        close_level(c, d, DIFF_FN_UNKNOWN, DIFF_F_PARTIAL);
    runs_clear(c->t, r);
    return 0;
}

static int dt_close(void *arg, struct calltime *ct, unsigned d, const struct calltime_call *call)
{
    struct dt_ctx *c = arg;
    const struct level *l = calltime_at(ct, d);
    uint32_t fn = call->how == CALLTIME_BEFORE ? fn_of(c->t, call->addr) : l->fn;
    struct diff_spread *sp;

    if (fn == DIFF_NONE ||
        vec_reach(&c->t->spread, &c->t->capspread, fn, sizeof *c->t->spread, 256) < 0 ||
        close_level(c, d, fn, call->how == CALLTIME_RETURNED ? 0 : DIFF_F_PARTIAL) < 0) {
        c->t->dropped++;
        return -1;
    }
    sp = &c->t->spread[fn];
    sp->n++;
    sp->sum += (double)call->dur;
    sp->sumsq += (double)call->dur * (double)call->dur;
    return 0;
}

static void dt_drop(void *arg, struct calltime *ct, unsigned d)
{
    struct dt_ctx *c = arg;
    const struct level *l = calltime_at(ct, d);

    /* An open call dropped without an end: what it called goes with it. A level that was
     * never entered (a frame from before the trace) keeps its calls for its end. */
    if (l->base.open && d < c->caplv)
        runs_clear(c->t, &c->lv[d]);
}

static void dt_finished(void *arg, struct calltime *ct)
{
    struct dt_ctx *c = arg;
    uint32_t id;

    (void)ct;
    /* Frames from before the trace that never ended: unknown calls around what they held. */
    for (size_t d = c->caplv; d-- > 0;)
        if (c->lv[d].n && close_level(c, (unsigned)d, DIFF_FN_UNKNOWN, DIFF_F_PARTIAL) < 0)
            c->t->dropped++;
    id = diff_set_shape(c->t->set, DIFF_FN_ROOT, (c->root.cut ? DIFF_F_CUT : 0) | DIFF_KEEP,
                        c->root.r, c->root.n);
    runs_clear(c->t, &c->root);
    if (id == DIFF_NONE)
        c->t->dropped++;
    c->t->info[c->ix].root = id;
}

static const struct calltime_ops dt_ops = {dt_enter, dt_close, dt_drop, NULL, dt_finished};

struct diff_trace *diff_trace_new(struct diff_set *s, diff_name_fn name, void *arg)
{
    struct diff_trace *t = calloc(1, sizeof *t);

    if (!t)
        return NULL;
    t->set = s;
    t->name = name;
    t->arg = arg;
    return t;
}

const struct tree_sink *diff_trace_sink(struct diff_trace *t, uint32_t ctx)
{
    struct dt_ctx *c;

    for (size_t i = 0; i < t->nctx; i++)
        if (t->info[i].id == ctx)
            return calltime_sink(&t->ctx[i]->ct);
    if (vec_grow(&t->ctx, &t->capctx, t->nctx, sizeof *t->ctx, 8) < 0 ||
        vec_grow(&t->info, &t->capinfo, t->nctx, sizeof *t->info, 8) < 0 ||
        !(c = calloc(1, sizeof *c)))
        return NULL;
    c->t = t;
    c->ix = t->nctx;
    calltime_init(&c->ct, &dt_ops, c, sizeof(struct level), NULL, &t->dropped);
    t->ctx[t->nctx] = c;
    t->info[t->nctx++] = (struct diff_ctxinfo){ctx, DIFF_NONE};
    return calltime_sink(&c->ct);
}

const struct diff_ctxinfo *diff_trace_ctxs(const struct diff_trace *t, size_t *n)
{
    *n = t->nctx;
    return t->info;
}

const struct diff_spread *diff_trace_spread(const struct diff_trace *t, uint32_t fn)
{
    return fn < t->capspread && t->spread[fn].n ? &t->spread[fn] : NULL;
}

double diff_trace_stddev(const struct diff_trace *t, uint32_t fn)
{
    const struct diff_spread *sp = diff_trace_spread(t, fn);
    double mean, var;

    if (!sp || sp->n < 2)
        return -1;
    mean = sp->sum / (double)sp->n;
    var = (sp->sumsq - mean * sp->sum) / (double)(sp->n - 1);
    return var > 0 ? sqrt(var) : 0;
}

uint64_t diff_trace_dropped(const struct diff_trace *t)
{
    return t->dropped;
}

void diff_trace_free(struct diff_trace *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->nctx; i++) {
        struct dt_ctx *c = t->ctx[i];

        for (size_t d = 0; d < c->caplv; d++)
            free(c->lv[d].r);
        free(c->lv);
        free(c->root.r);
        calltime_free(&c->ct);
        free(c);
    }
    free(t->ctx);
    free(t->info);
    free(t->fa);
    oaindex_free(&t->fa_ix);
    free(t->spread);
    free(t);
}

/* --- the alignment --------------------------------------------------------------------------- */

/* A pair of matched positions. */
struct pair {
    uint32_t a, b;
};

struct pairs {
    struct pair *p;
    size_t n, cap;
};

struct seqs {
    const struct diff_set *s;
    const struct diff_run *a, *b;
    int by_fn; /* equal: of the same function; else of the same shape */
};

static int eq(const struct seqs *q, size_t i, size_t j)
{
    if (q->by_fn)
        return q->s->shape[q->a[i].shape].fn == q->s->shape[q->b[j].shape].fn;
    return q->a[i].shape == q->b[j].shape;
}

static int pairs_add(struct pairs *p, size_t a, size_t b)
{
    if (vec_grow(&p->p, &p->cap, p->n, sizeof *p->p, 16) < 0)
        return -1;
    p->p[p->n++] = (struct pair){(uint32_t)a, (uint32_t)b};
    return 0;
}

/* Myers' diff of a[a0..a0+n) and b[b0..b0+m) with at most maxd edits, its matches appended to
 * out in order: 0, 1 when it needs more edits (out unchanged), -1 out of memory. The V of
 * every step is kept for the way back: (maxd + 1)^2 integers at most. */
static int myers(const struct seqs *q, size_t a0, size_t n, size_t b0, size_t m, size_t maxd,
                 struct pairs *out)
{
    long *v = NULL, x, y, k, d, found = -1;
    size_t cap = 0;

    for (d = 0; d <= (long)maxd; d++) {
        long *cur, *prev;

        if (vec_reach(&v, &cap, (size_t)(d + 1) * (size_t)(d + 1), sizeof *v, 64) < 0) {
            free(v);
            return -1;
        }
        cur = v + d * d;            /* step d: 2d + 1 entries, k = -d..d at [k + d] */
        prev = d ? v + (d - 1) * (d - 1) : NULL;
        for (k = -d; k <= d; k += 2) {
            if (!d)
                x = 0;
            else if (k == -d || (k != d && prev[k - 1 + d - 1] < prev[k + 1 + d - 1]))
                x = prev[k + 1 + d - 1];
            else
                x = prev[k - 1 + d - 1] + 1;
            y = x - k;
            while (x < (long)n && y < (long)m && eq(q, a0 + (size_t)x, b0 + (size_t)y))
                x++, y++;
            cur[k + d] = x;
            if (x >= (long)n && y >= (long)m) {
                found = d;
                break;
            }
        }
        if (found >= 0)
            break;
    }
    if (found < 0) {
        free(v);
        return 1;
    }
    /* Back from (n, m): each step's snake, collected backwards, then reversed. */
    size_t first = out->n;
    x = (long)n, y = (long)m;
    for (d = found; d >= 0; d--) {
        long *prev = d ? v + (d - 1) * (d - 1) : NULL, px, py, sx;

        k = x - y;
        if (!d) {
            px = py = 0;
            sx = 0;
        } else if (k == -d || (k != d && prev[k - 1 + d - 1] < prev[k + 1 + d - 1])) {
            px = prev[k + 1 + d - 1];
            py = px - (k + 1);
            sx = px; /* down: one of b inserted */
        } else {
            px = prev[k - 1 + d - 1];
            py = px - (k - 1);
            sx = px + 1; /* right: one of a deleted */
        }
        while (x > sx) {
            x--, y--;
            if (pairs_add(out, a0 + (size_t)x, b0 + (size_t)y) < 0) {
                free(v);
                return -1;
            }
        }
        x = px, y = py;
    }
    free(v);
    for (size_t i = first, j = out->n; i + 1 < j; i++, j--) {
        struct pair t = out->p[i];

        out->p[i] = out->p[j - 1];
        out->p[j - 1] = t;
    }
    return 0;
}

#define GREEDY_WINDOW 64

/* The greedy alignment: equal heads match; else the nearer of a's head in b or b's head in a
 * (within a window) is taken, the runs before it left unmatched; else both heads are. */
static int greedy(const struct seqs *q, size_t a0, size_t n, size_t b0, size_t m,
                  struct pairs *out)
{
    size_t i = 0, j = 0;

    while (i < n && j < m) {
        size_t da = SIZE_MAX, db = SIZE_MAX;

        if (eq(q, a0 + i, b0 + j)) {
            if (pairs_add(out, a0 + i, b0 + j) < 0)
                return -1;
            i++, j++;
            continue;
        }
        for (size_t w = 1; w < GREEDY_WINDOW && j + w < m; w++)
            if (eq(q, a0 + i, b0 + j + w)) {
                db = w;
                break;
            }
        for (size_t w = 1; w < GREEDY_WINDOW && i + w < n && w < db; w++)
            if (eq(q, a0 + i + w, b0 + j)) {
                da = w;
                break;
            }
        if (da != SIZE_MAX)
            i += da;
        else if (db != SIZE_MAX)
            j += db;
        else
            i++, j++;
    }
    return 0;
}

/* The matches of a[a0..a1) and b[b0..b1): common head and tail, then Myers' between, or the
 * greedy alignment past its bounds. */
static int match(const struct seqs *q, size_t a0, size_t a1, size_t b0, size_t b1,
                 struct pairs *out, struct diff_result *r)
{
    size_t h = 0, t = 0, n, m, maxd;
    int rc;

    while (a0 + h < a1 && b0 + h < b1 && eq(q, a0 + h, b0 + h))
        if (pairs_add(out, a0 + h, b0 + h) < 0)
            return -1;
        else
            h++;
    while (a1 - t > a0 + h && b1 - t > b0 + h && eq(q, a1 - t - 1, b1 - t - 1))
        t++;
    n = a1 - t - (a0 + h);
    m = b1 - t - (b0 + h);
    if (n && m) {
        maxd = DIFF_MAX_WORK / (n + m);
        if (maxd > DIFF_MAX_D)
            maxd = DIFF_MAX_D;
        if (maxd > n + m)
            maxd = n + m;
        rc = myers(q, a0 + h, n, b0 + h, m, maxd, out);
        if (rc < 0)
            return -1;
        if (rc > 0) {
            r->greedy++;
            if (greedy(q, a0 + h, n, b0 + h, m, out) < 0)
                return -1;
        }
    }
    for (size_t i = t; i > 0; i--)
        if (pairs_add(out, a1 - i, b1 - i) < 0)
            return -1;
    return 0;
}

static uint64_t calls_of(const struct diff_set *s, const struct diff_run *r, size_t i0,
                         size_t i1)
{
    uint64_t c = 0;

    for (size_t i = i0; i < i1; i++)
        c = sat_add(c, sat_mul(s->shape[r[i].shape].calls, r[i].count));
    return c;
}

/* Copies r[i0..i1) into the result's runs, equal neighbours merged; *off and *n say where. */
static int keep_runs(struct diff_result *res, const struct diff_run *r, size_t i0, size_t i1,
                     uint32_t *off, uint32_t *n)
{
    *off = (uint32_t)res->nruns;
    *n = 0;
    for (size_t i = i0; i < i1; i++) {
        struct diff_run *last = *n ? &res->runs[res->nruns - 1] : NULL;

        if (last && last->shape == r[i].shape && (uint64_t)last->count + r[i].count <= UINT32_MAX) {
            last->count += r[i].count;
            continue;
        }
        if (vec_grow(&res->runs, &res->capruns, res->nruns, sizeof *res->runs, 64) < 0)
            return -1;
        res->runs[res->nruns++] = r[i];
        ++*n;
    }
    return 0;
}

/* The end of the continuation after position i of a list of n: DIFF_AFTER calls' runs. */
static size_t after_end(size_t i, size_t n)
{
    return n - i < DIFF_AFTER ? n : i + DIFF_AFTER;
}

/* A sequence being aligned: a call's children, call by call when short (struct seqs). */
struct side_seq {
    const struct diff_run *r;
    size_t n;
};

static int hunk(const struct diff_set *s, struct diff_result *r, enum diff_kind kind,
                uint32_t pa, uint32_t pb, const struct seqs *q, size_t na, size_t nb, size_t a0,
                size_t a1, size_t b0, size_t b1, size_t max_hunks)
{
    struct diff_hunk *h;

    if (r->n >= max_hunks) {
        r->more++;
        return 0;
    }
    if (vec_grow(&r->hunk, &r->cap, r->n, sizeof *r->hunk, 16) < 0 ||
        (r->nstack &&
         (vec_reach(&r->path, &r->cappath, r->npath + r->nstack - 1, sizeof *r->path, 64) < 0 ||
          vec_reach(&r->path_nth, &r->cappath_nth, r->npath + r->nstack - 1,
                    sizeof *r->path_nth, 64) < 0)))
        return -1;
    h = &r->hunk[r->n];
    *h = (struct diff_hunk){.kind = kind, .pa = pa, .pb = pb, .path_off = (uint32_t)r->npath,
                            .path_len = (uint32_t)r->nstack};
    if (q) {
        h->calls_a = calls_of(s, q->a, a0, a1);
        h->calls_b = calls_of(s, q->b, b0, b1);
        if (keep_runs(r, q->a, a0, a1, &h->a_off, &h->a_n) < 0 ||
            keep_runs(r, q->b, b0, b1, &h->b_off, &h->b_n) < 0 ||
            keep_runs(r, q->a, a1, after_end(a1, na), &h->after_a_off, &h->after_a_n) < 0 ||
            keep_runs(r, q->b, b1, after_end(b1, nb), &h->after_b_off, &h->after_b_n) < 0)
            return -1;
    }
    if (r->nstack) {
        memcpy(&r->path[r->npath], r->stack, r->nstack * sizeof *r->stack);
        memcpy(&r->path_nth[r->npath], r->stack_nth, r->nstack * sizeof *r->stack_nth);
    }
    r->npath += r->nstack;
    r->n++;
    return 0;
}

static int align(const struct diff_set *s, uint32_t a, uint32_t b, size_t max_hunks,
                 struct diff_result *r, unsigned depth, uint64_t nth);

/* Which call of its function the call at a[x] is (1: the first) among a[0..x]'s calls. */
static uint64_t nth_of(const struct diff_set *s, const struct diff_run *a, size_t x)
{
    uint32_t fn = s->shape[a[x].shape].fn;
    uint64_t n = 1;

    for (size_t i = 0; i < x; i++)
        if (s->shape[a[i].shape].fn == fn)
            n += a[i].count;
    return n;
}

/* The context of an alignment of two children lists. */
struct walk {
    const struct diff_set *s;
    uint32_t pa, pb;
    struct seqs q;
    size_t na, nb;
    size_t max_hunks;
    struct diff_result *r;
    unsigned depth;
};

static int whunk(const struct walk *w, enum diff_kind kind, size_t a0, size_t a1, size_t b0,
                 size_t b1)
{
    return hunk(w->s, w->r, kind, w->pa, w->pb, &w->q, w->na, w->nb, a0, a1, b0, b1,
                w->max_hunks);
}

/* A stretch that matched no shape: pairs of the same function are aligned in turn, the rest
 * are hunks. */
static int gap(const struct walk *w, size_t a0, size_t a1, size_t b0, size_t b1)
{
    struct seqs q = w->q;
    struct pairs p = {0};
    size_t i = a0, j = b0;
    int rc = -1;

    if (a0 == a1 && b0 == b1)
        return 0;
    if (a0 == a1 || b0 == b1)
        return whunk(w, a0 == a1 ? DIFF_INSERTED : DIFF_DELETED, a0, a1, b0, b1);
    q.by_fn = 1;
    if (match(&q, a0, a1, b0, b1, &p, w->r) < 0)
        goto out;
    for (size_t k = 0; k <= p.n; k++) {
        size_t x = k < p.n ? p.p[k].a : a1, y = k < p.n ? p.p[k].b : b1;

        if ((i < x || j < y) &&
            whunk(w, i == x ? DIFF_INSERTED : j == y ? DIFF_DELETED : DIFF_REPLACED, i, x, j,
                  y) < 0)
            goto out;
        if (k == p.n)
            break;
        if (q.a[x].count != q.b[y].count && whunk(w, DIFF_COUNT, x, x + 1, y, y + 1) < 0)
            goto out;
        if (align(w->s, q.a[x].shape, q.b[y].shape, w->max_hunks, w->r, w->depth + 1,
                  nth_of(w->s, q.a, x)) < 0)
            goto out;
        i = x + 1, j = y + 1;
    }
    rc = 0;
out:
    free(p.p);
    return rc;
}

/* A call's children as the alignment takes them: call by call (a run of n as n runs of 1)
 * when both lists are short, else as they are. *owned is what to free. */
static int seq_of(const struct diff_set *s, uint32_t id, int expand, struct side_seq *q,
                  struct diff_run **owned)
{
    const struct diff_shape *h = &s->shape[id];
    const struct diff_run *r = diff_set_runs(s, id);
    size_t n = 0;

    *owned = NULL;
    q->r = r;
    q->n = h->nruns;
    if (!expand)
        return 0;
    for (uint32_t i = 0; i < h->nruns; i++)
        n += r[i].count;
    if (n == h->nruns)
        return 0;
    if (!(*owned = malloc(n * sizeof **owned)))
        return -1;
    n = 0;
    for (uint32_t i = 0; i < h->nruns; i++)
        for (uint32_t k = 0; k < r[i].count; k++)
            (*owned)[n++] = (struct diff_run){r[i].shape, 1};
    q->r = *owned;
    q->n = n;
    return 0;
}

/* Among the alignments of equal length, prefers the one that puts what was inserted in B and
 * what was deleted from A side by side: [X X] against [X' X] matches A's second X, not its
 * first, so that X and X' (the same function) are aligned with each other, not reported as
 * one X deleted and one X' inserted. */
static void slide(const struct seqs *q, struct pairs *p, size_t n, size_t m)
{
    for (size_t k = 0; k < p->n; k++) {
        size_t i = k ? p->p[k - 1].a + 1 : 0, j = k ? p->p[k - 1].b + 1 : 0;
        size_t na = k + 1 < p->n ? p->p[k + 1].a : n, nb = k + 1 < p->n ? p->p[k + 1].b : m;
        size_t x = p->p[k].a, y = p->p[k].b;

        if (i == x && j < y && x + 1 < na && y + 1 == nb && eq(q, x + 1, y))
            p->p[k].a = (uint32_t)(x + 1); /* B's before, A's after: A's after moves up */
        else if (i < x && j == y && x + 1 == na && y + 1 < nb && eq(q, x, y + 1))
            p->p[k].b = (uint32_t)(y + 1);
    }
}

static uint64_t list_calls(const struct diff_set *s, uint32_t id)
{
    const struct diff_run *r = diff_set_runs(s, id);
    uint64_t n = 0;

    for (uint32_t i = 0; i < s->shape[id].nruns; i++)
        n += r[i].count;
    return n;
}

static int align(const struct diff_set *s, uint32_t a, uint32_t b, size_t max_hunks,
                 struct diff_result *r, unsigned depth, uint64_t nth)
{
    const struct diff_shape *sa = &s->shape[a], *sb = &s->shape[b];
    struct side_seq xa, xb;
    struct diff_run *oa = NULL, *ob = NULL;
    struct walk w = {s, a, b, {s, NULL, NULL, 0}, 0, 0, max_hunks, r, depth};
    struct pairs p = {0};
    size_t i = 0, j = 0;
    int pushed = sa->fn != DIFF_FN_ROOT, rc = -1, expand;

    if (a == b)
        return 0;
    if (pushed) {
        if (vec_grow(&r->stack, &r->capstack, r->nstack, sizeof *r->stack, 64) < 0 ||
            vec_reach(&r->stack_nth, &r->capstack_nth, r->nstack, sizeof *r->stack_nth, 64) < 0)
            return -1;
        r->stack_nth[r->nstack] = nth;
        r->stack[r->nstack++] = sa->fn;
    }
    if ((((sa->flags ^ sb->flags) & DIFF_F_PARTIAL) || sa->fn != sb->fn) &&
        hunk(s, r, DIFF_ENDED, a, b, NULL, 0, 0, 0, 0, 0, 0, max_hunks) < 0)
        goto out;
    if ((sa->flags | sb->flags) & DIFF_F_CUT) { /* what one called was not kept: no telling */
        rc = 0;
        goto out;
    }
    if (depth >= DIFF_MAX_DEPTH) {
        rc = hunk(s, r, DIFF_DEEP, a, b, NULL, 0, 0, 0, 0, 0, 0, max_hunks);
        goto out;
    }
    expand = list_calls(s, a) <= DIFF_EXPAND && list_calls(s, b) <= DIFF_EXPAND;
    if (seq_of(s, a, expand, &xa, &oa) < 0 || seq_of(s, b, expand, &xb, &ob) < 0)
        goto out;
    w.q.a = xa.r;
    w.q.b = xb.r;
    w.na = xa.n;
    w.nb = xb.n;
    if (match(&w.q, 0, xa.n, 0, xb.n, &p, r) < 0)
        goto out;
    slide(&w.q, &p, xa.n, xb.n);
    for (size_t k = 0; k <= p.n; k++) {
        size_t x = k < p.n ? p.p[k].a : xa.n, y = k < p.n ? p.p[k].b : xb.n;

        if (gap(&w, i, x, j, y) < 0)
            goto out;
        if (k == p.n)
            break;
        if (xa.r[x].count != xb.r[y].count && whunk(&w, DIFF_COUNT, x, x + 1, y, y + 1) < 0)
            goto out;
        i = x + 1, j = y + 1;
    }
    rc = 0;
out:
    if (pushed)
        r->nstack--;
    free(p.p);
    free(oa);
    free(ob);
    return rc;
}

int diff_align(const struct diff_set *s, uint32_t a, uint32_t b, size_t max_hunks,
               struct diff_result *r)
{
    return align(s, a, b, max_hunks, r, 0, 0);
}

void diff_result_free(struct diff_result *r)
{
    free(r->hunk);
    free(r->path);
    free(r->runs);
    free(r->stack);
    free(r->stack_nth);
    free(r->path_nth);
    memset(r, 0, sizeof *r);
}

void diff_pair_ctx(const char *const *na, size_t n, const char *const *nb, size_t m,
                   size_t *pair)
{
    char *taken = calloc(m ? m : 1, 1);
    size_t next = 0;

    for (size_t i = 0; i < n; i++) {
        pair[i] = SIZE_MAX;
        for (size_t j = 0; na[i] && j < m && taken; j++)
            if (!taken[j] && nb[j] && !strcmp(na[i], nb[j])) {
                pair[i] = j;
                taken[j] = 1;
                break;
            }
    }
    /* The rest in order: an unnamed context of A with the next one of B nobody took. */
    for (size_t i = 0; i < n && taken; i++) {
        if (pair[i] != SIZE_MAX)
            continue;
        while (next < m && taken[next])
            next++;
        if (next == m)
            break;
        pair[i] = next;
        taken[next++] = 1;
    }
    free(taken);
}
