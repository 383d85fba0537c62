/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fnstat.c - per-function statistics: a row per function found through an address hash, and
 * per context the levels of its stack and the time counted per function (for recursion). */
#include "model/fnstat.h"

#include <stdlib.h>
#include <string.h>

#include "model/calltime.h"
#include "model/ctxtab.h"
#include "util/oaindex.h"
#include "util/vec.h"

/* One level of a context's stack (calltime.h), and what it counts into. */
struct level {
    struct calltime_level ct;
    uint32_t row;  /* the function's row, while open */
    uint64_t snap; /* its function's counted time in this context at its entry */
};

/* A function's time counted in one context so far, and what it was when the last loss (or
 * the trace) began: gen says whether at_base is that of the current loss. */
struct counted {
    uint32_t row;
    uint32_t gen;
    uint64_t sum;
    uint64_t at_base;
};

struct fs_ctx {
    struct fnstat *s;
    uint32_t id;
    struct calltime stack; /* struct level */
    struct counted *cnt;   /* in the order first touched in this tree */
    size_t ncnt, cnt_cap;
    struct oaindex cnt_ix; /* row -> position in cnt */
    uint32_t gen;          /* bumps at each loss */
};

struct fnstat {
    const struct sym_table *sym;
    uint64_t bias;
    struct fnstat_row *rows;
    size_t nrows, rows_cap;
    struct oaindex rows_ix; /* address -> position in rows */
    struct fnstat_row *sorted;
    size_t sorted_cap;
    struct ctxtab ctx;    /* struct fs_ctx */
    uint64_t dropped;
};

static uint64_t row_hash(const void *arg, size_t pos)
{
    return oaindex_hash_u64(((const struct fnstat *)arg)->rows[pos].addr);
}

static int row_match(const void *arg, size_t pos, const void *key)
{
    return ((const struct fnstat *)arg)->rows[pos].addr == *(const uint64_t *)key;
}

/* The row of a function, made on first sight; -1 when out of memory. */
static long row_of(struct fnstat *s, uint64_t addr)
{
    uint64_t h = oaindex_hash_u64(addr);
    size_t pos = oaindex_find(&s->rows_ix, h, row_match, s, &addr), *slot;
    const struct sym_info *si;
    struct fnstat_row *r;

    if (pos != SIZE_MAX)
        return (long)pos;
    if (vec_grow(&s->rows, &s->rows_cap, s->nrows, sizeof *s->rows, 256) < 0 ||
        oaindex_reserve(&s->rows_ix, 512, row_hash, s) < 0)
        return -1;
    slot = oaindex_slot(&s->rows_ix, h, row_match, s, &addr);
    r = &s->rows[s->nrows];
    si = s->sym ? sym_lookup(s->sym, addr - s->bias) : NULL;
    *r = (struct fnstat_row){.addr = addr};
    r->name = si && si->start == addr - s->bias ? si->name : NULL;
    oaindex_put(&s->rows_ix, slot, s->nrows);
    return (long)s->nrows++;
}

static uint64_t cnt_hash(const void *arg, size_t pos)
{
    return oaindex_hash_u64(((const struct fs_ctx *)arg)->cnt[pos].row);
}

static int cnt_match(const void *arg, size_t pos, const void *key)
{
    return ((const struct fs_ctx *)arg)->cnt[pos].row == *(const uint32_t *)key;
}

/* The counted time of a row in this context, its at_base brought up to the current loss;
 * NULL when out of memory. Valid until the next call. */
static struct counted *counted_of(struct fs_ctx *c, uint32_t row)
{
    uint64_t h = oaindex_hash_u64(row);
    size_t pos = oaindex_find(&c->cnt_ix, h, cnt_match, c, &row), *slot;
    struct counted *k;

    if (pos == SIZE_MAX) {
        if (vec_grow(&c->cnt, &c->cnt_cap, c->ncnt, sizeof *c->cnt, 8) < 0 ||
            oaindex_reserve(&c->cnt_ix, 16, cnt_hash, c) < 0)
            return NULL;
        slot = oaindex_slot(&c->cnt_ix, h, cnt_match, c, &row);
        c->cnt[c->ncnt] = (struct counted){.row = row, .gen = c->gen};
        oaindex_put(&c->cnt_ix, slot, c->ncnt);
        pos = c->ncnt++;
    }
    k = &c->cnt[pos];
    /* Nothing was added since the loss before it was last touched: its sum then is now's. */
    if (k->gen != c->gen) {
        k->gen = c->gen;
        k->at_base = k->sum;
    }
    return k;
}

/* Accounts one call of row; snap: its function's counted time in this context when the call
 * began. */
static void account(struct fs_ctx *c, uint32_t row, const struct calltime_call *call,
                    struct counted *k, uint64_t snap)
{
    struct fnstat_row *r = &c->s->rows[row];
    uint64_t inner = k->sum - snap; /* what calls of row nested in this one added */
    uint64_t add = call->dur > inner ? call->dur - inner : 0;

    k->sum += add;
    r->calls++;
    r->partial += call->how != CALLTIME_RETURNED;
    r->total += add;
    r->self += call->dur > call->kids ? call->dur - call->kids : 0;
    if (call->dur > r->max)
        r->max = call->dur;
}

static int fs_open(void *arg, struct calltime *ct, unsigned d, const struct tree_frame *f)
{
    struct fs_ctx *c = arg;
    struct level *l = calltime_at(ct, d);
    struct counted *k;
    long row;

    if ((row = row_of(c->s, f->addr)) < 0 || !(k = counted_of(c, (uint32_t)row)))
        return -1;
    l->row = (uint32_t)row;
    l->snap = k->sum;
    return 0;
}

/* A call entered before the trace (or the loss) is counted from its function's sum when the
 * loss began: every call of it nested inside ended since. */
static int fs_close(void *arg, struct calltime *ct, unsigned d, const struct calltime_call *call)
{
    struct fs_ctx *c = arg;
    const struct level *l = calltime_at(ct, d);
    long row = call->how == CALLTIME_BEFORE ? row_of(c->s, call->addr) : (long)l->row;
    struct counted *k = row < 0 ? NULL : counted_of(c, (uint32_t)row);

    if (!k) {
        c->s->dropped++;
        return -1;
    }
    account(c, (uint32_t)row, call, k, call->how == CALLTIME_BEFORE ? k->at_base : l->snap);
    return 0;
}

static void fs_special(void *arg, struct calltime *ct, const struct ev *e, unsigned d)
{
    struct fs_ctx *c = arg;

    (void)ct, (void)d;
    if (e->kind == EV_LOST)
        c->gen++; /* every function's at_base is taken again when next touched */
}

static void fs_finished(void *arg, struct calltime *ct)
{
    struct fs_ctx *c = arg;

    (void)ct;
    c->ncnt = 0; /* a new tree counts from nothing */
    oaindex_free(&c->cnt_ix);
    c->gen = 0;
}

static const struct calltime_ops fs_ops = {fs_open, fs_close, NULL, fs_special, fs_finished};

struct fnstat *fnstat_new(const struct sym_table *sym, uint64_t bias)
{
    struct fnstat *s = calloc(1, sizeof *s);

    if (!s)
        return NULL;
    s->sym = sym;
    s->bias = bias;
    return s;
}

const struct tree_sink *fnstat_sink(struct fnstat *s, uint32_t ctx)
{
    struct fs_ctx *c = ctxtab_find(&s->ctx, ctx);

    if (c)
        return calltime_sink(&c->stack);
    if (!(c = ctxtab_add(&s->ctx, ctx, sizeof *c)))
        return NULL;
    c->s = s;
    c->id = ctx;
    calltime_init(&c->stack, &fs_ops, c, sizeof(struct level), NULL, &s->dropped);
    return calltime_sink(&c->stack);
}

static int cmp_u64_desc(uint64_t a, uint64_t b)
{
    return a < b ? 1 : a > b ? -1 : 0;
}

static int cmp_rows(const void *pa, const void *pb, void *arg)
{
    const struct fnstat_row *a = pa, *b = pb;
    int c = 0;

    switch (*(const enum fnstat_key *)arg) {
    case FNSTAT_BY_CALLS: c = cmp_u64_desc(a->calls, b->calls); break;
    case FNSTAT_BY_TOTAL: c = cmp_u64_desc(a->total, b->total); break;
    case FNSTAT_BY_SELF: c = cmp_u64_desc(a->self, b->self); break;
    case FNSTAT_BY_MAX: c = cmp_u64_desc(a->max, b->max); break;
    default:
        if (a->name && b->name)
            c = strcmp(a->name, b->name);
        else
            c = !a->name - !b->name; /* named first */
        break;
    }
    if (c)
        return c;
    return a->addr < b->addr ? -1 : a->addr > b->addr;
}

const struct fnstat_row *fnstat_rows(struct fnstat *s, enum fnstat_key key, size_t *n)
{
    *n = 0;
    if (!s->nrows)
        return NULL;
    if (s->sorted_cap < s->nrows) {
        struct fnstat_row *p = realloc(s->sorted, s->rows_cap * sizeof *p);

        if (!p)
            return NULL;
        s->sorted = p;
        s->sorted_cap = s->rows_cap;
    }
    memcpy(s->sorted, s->rows, s->nrows * sizeof *s->rows);
    fnstat_sort(s->sorted, s->nrows, key);
    *n = s->nrows;
    return s->sorted;
}

void fnstat_sort(struct fnstat_row *rows, size_t n, enum fnstat_key key)
{
    if (n)
        qsort_r(rows, n, sizeof *rows, cmp_rows, &key);
}

size_t fnstat_count(const struct fnstat *s)
{
    return s->nrows;
}

uint64_t fnstat_dropped(const struct fnstat *s)
{
    return s->dropped;
}

const char *fnstat_key_name(enum fnstat_key key)
{
    static const char *const names[] = {"calls", "total", "self", "max", "name"};

    return (unsigned)key < FNSTAT_KEYS ? names[key] : "?";
}

void fnstat_free(struct fnstat *s)
{
    if (!s)
        return;
    for (unsigned i = 0; i < s->ctx.n; i++) {
        struct fs_ctx *c = s->ctx.v[i];

        calltime_free(&c->stack);
        free(c->cnt);
        oaindex_free(&c->cnt_ix);
    }
    ctxtab_free(&s->ctx);
    free(s->rows);
    oaindex_free(&s->rows_ix);
    free(s->sorted);
    free(s);
}
