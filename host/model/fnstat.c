/* fnstat.c - per-function statistics: a row per function found through an address hash, and
 * per context the levels of its stack and the time counted per function (for recursion). */
#include "model/fnstat.h"

#include <stdlib.h>
#include <string.h>

#include "model/ctxtab.h"

/* One level of a context's stack, indexed by the tree's depth. A level below the first entry
 * (a frame from before the trace) is never entered but still gathers its children's times. */
struct level {
    uint32_t row;       /* the function's row, while open */
    int open;           /* entered here and not yet exited */
    uint64_t t_enter;
    uint64_t last;      /* time of the last event inside: its entry, a child's entry or end */
    uint64_t kids;      /* inclusive times of its children */
    uint64_t kids_base; /* ... of those that ended since the trace (or the last loss) began */
    uint64_t snap;      /* its function's counted time in this context at its entry */
};

/* A function's time counted in one context so far, and what it was when the last loss (or
 * the trace) began: gen says whether at_base is that of the current loss. */
struct counted {
    uint32_t row_plus1; /* 0: empty slot */
    uint32_t gen;
    uint64_t sum;
    uint64_t at_base;
};

struct fs_ctx {
    struct fnstat *s;
    uint32_t id;
    struct tree_sink sink;
    struct level *lvl;
    unsigned n, cap;      /* levels in use (the deepest touched + 1), allocated */
    struct counted *cnt;  /* open addressing, power of two */
    unsigned cnt_used, cnt_cap;
    uint32_t gen;         /* bumps at each loss */
    int need_base;        /* the next event's time is t_base */
    uint64_t t_base;      /* the first event after the trace (or a loss) began */
};

struct slot {
    uint64_t addr;
    uint32_t row_plus1; /* 0: empty */
};

struct fnstat {
    const struct sym_table *sym;
    uint64_t bias;
    struct fnstat_row *rows;
    size_t nrows, rows_cap;
    struct slot *map; /* address -> row; open addressing, power of two */
    size_t map_cap;
    struct fnstat_row *sorted;
    size_t sorted_cap;
    struct ctxtab ctx;    /* struct fs_ctx */
    uint64_t dropped;
};

static size_t hash64(uint64_t v)
{
    v ^= v >> 33;
    v *= UINT64_C(0xff51afd7ed558ccd);
    v ^= v >> 33;
    return (size_t)v;
}

static int map_grow(struct fnstat *s)
{
    size_t cap = s->map_cap ? s->map_cap * 2 : 256;
    struct slot *m = calloc(cap, sizeof *m);

    if (!m)
        return -1;
    for (size_t i = 0; i < s->map_cap; i++) {
        size_t j;

        if (!s->map[i].row_plus1)
            continue;
        for (j = hash64(s->map[i].addr) & (cap - 1); m[j].row_plus1; j = (j + 1) & (cap - 1))
            ;
        m[j] = s->map[i];
    }
    free(s->map);
    s->map = m;
    s->map_cap = cap;
    return 0;
}

/* The row of a function, made on first sight; -1 when out of memory. */
static long row_of(struct fnstat *s, uint64_t addr)
{
    size_t j;

    if ((s->nrows + 1) * 2 > s->map_cap && map_grow(s) < 0)
        return -1;
    for (j = hash64(addr) & (s->map_cap - 1); s->map[j].row_plus1; j = (j + 1) & (s->map_cap - 1))
        if (s->map[j].addr == addr)
            return (long)s->map[j].row_plus1 - 1;
    if (s->nrows == s->rows_cap) {
        size_t cap = s->rows_cap ? s->rows_cap * 2 : 256;
        struct fnstat_row *r = realloc(s->rows, cap * sizeof *r);

        if (!r)
            return -1;
        s->rows = r;
        s->rows_cap = cap;
    }
    {
        struct fnstat_row *r = &s->rows[s->nrows];
        const struct sym_info *si = s->sym ? sym_lookup(s->sym, addr - s->bias) : NULL;

        memset(r, 0, sizeof *r);
        r->addr = addr;
        r->name = si && si->start == addr - s->bias ? si->name : NULL;
    }
    s->map[j].addr = addr;
    s->map[j].row_plus1 = (uint32_t)++s->nrows;
    return (long)s->nrows - 1;
}

static int cnt_grow(struct fs_ctx *c)
{
    unsigned cap = c->cnt_cap ? c->cnt_cap * 2 : 64;
    struct counted *m = calloc(cap, sizeof *m);

    if (!m)
        return -1;
    for (unsigned i = 0; i < c->cnt_cap; i++) {
        unsigned j;

        if (!c->cnt[i].row_plus1)
            continue;
        for (j = (unsigned)hash64(c->cnt[i].row_plus1) & (cap - 1); m[j].row_plus1;
             j = (j + 1) & (cap - 1))
            ;
        m[j] = c->cnt[i];
    }
    free(c->cnt);
    c->cnt = m;
    c->cnt_cap = cap;
    return 0;
}

/* The counted time of a row in this context, its at_base brought up to the current loss. */
static struct counted *counted_of(struct fs_ctx *c, uint32_t row)
{
    unsigned j;

    if ((c->cnt_used + 1) * 2 > c->cnt_cap && cnt_grow(c) < 0)
        return NULL;
    for (j = (unsigned)hash64(row + 1) & (c->cnt_cap - 1); c->cnt[j].row_plus1;
         j = (j + 1) & (c->cnt_cap - 1))
        if (c->cnt[j].row_plus1 == row + 1)
            break;
    if (!c->cnt[j].row_plus1) {
        c->cnt[j] = (struct counted){.row_plus1 = row + 1, .gen = c->gen};
        c->cnt_used++;
    }
    /* Nothing was added since the loss before it was last touched: its sum then is now's. */
    if (c->cnt[j].gen != c->gen) {
        c->cnt[j].gen = c->gen;
        c->cnt[j].at_base = c->cnt[j].sum;
    }
    return &c->cnt[j];
}

/* Makes level d usable; new levels are zero (not open, nothing gathered). */
static int reach(struct fs_ctx *c, unsigned d)
{
    if (d >= c->cap) {
        unsigned cap = c->cap ? c->cap : 64;
        struct level *l;

        while (cap <= d)
            cap *= 2;
        l = realloc(c->lvl, cap * sizeof *l);
        if (!l)
            return -1;
        memset(l + c->cap, 0, (cap - c->cap) * sizeof *l);
        c->lvl = l;
        c->cap = cap;
    }
    /* Levels above d that are still open vanished: the tree dropped them without an exit
     * (frames made unknown by a loss); what they had gathered is void. */
    for (unsigned k = d + 1; k < c->n; k++)
        c->lvl[k] = (struct level){0};
    if (c->n < d + 1)
        c->n = d + 1;
    return 0;
}

static uint64_t span(uint64_t from, uint64_t to)
{
    return to > from ? to - from : 0;
}

static void base_at(struct fs_ctx *c, uint64_t t)
{
    if (c->need_base) {
        c->need_base = 0;
        c->t_base = t;
    }
}

static void fs_enter(void *arg, const struct tree_frame *f, unsigned depth)
{
    struct fs_ctx *c = arg;
    struct counted *k;
    long row;

    base_at(c, f->t_enter);
    if (reach(c, depth) < 0 || (row = row_of(c->s, f->addr)) < 0 ||
        !(k = counted_of(c, (uint32_t)row))) {
        c->s->dropped++;
        return;
    }
    c->lvl[depth] = (struct level){.row = (uint32_t)row, .open = 1, .t_enter = f->t_enter,
                                   .last = f->t_enter, .snap = k->sum};
    c->n = depth + 1;
    if (depth && c->lvl[depth - 1].last < f->t_enter)
        c->lvl[depth - 1].last = f->t_enter;
}

/* Accounts one call of row that took dur (its children: kids), nested snap..now. */
static void account(struct fs_ctx *c, uint32_t row, uint64_t dur, uint64_t kids,
                    struct counted *k, uint64_t snap, int partial)
{
    struct fnstat_row *r = &c->s->rows[row];
    uint64_t inner = k->sum - snap; /* what calls of row nested in this one added */
    uint64_t add = dur > inner ? dur - inner : 0;

    k->sum += add;
    r->calls++;
    r->partial += !!partial;
    r->total += add;
    r->self += dur > kids ? dur - kids : 0;
    if (dur > r->max)
        r->max = dur;
}

/* A frame at depth d ends at `end` after taking dur: its parent gathers it. */
static void to_parent(struct fs_ctx *c, unsigned d, uint64_t dur, uint64_t end)
{
    struct level *p;

    if (!d)
        return;
    p = &c->lvl[d - 1];
    p->kids += dur;
    p->kids_base += dur;
    if (p->last < end)
        p->last = end;
}

/* A frame that stops at depth d and whose time is known from its entry to `end`. */
static void close_known(struct fs_ctx *c, unsigned d, uint64_t end, int partial)
{
    struct level *l = &c->lvl[d];
    struct counted *k = counted_of(c, l->row);
    uint64_t dur = span(l->t_enter, end);

    if (!k) {
        c->s->dropped++;
        return;
    }
    account(c, l->row, dur, l->kids, k, l->snap, partial);
    to_parent(c, d, dur, end);
}

static void fs_exit(void *arg, const struct tree_frame *f, unsigned depth, uint64_t t_exit,
                    enum tree_exit_how how)
{
    struct fs_ctx *c = arg;
    struct level *l;

    base_at(c, t_exit);
    if (reach(c, depth) < 0) {
        c->s->dropped++;
        return;
    }
    l = &c->lvl[depth];
    if (how == TREE_RETURNED && l->open && c->s->rows[l->row].addr == f->addr) {
        close_known(c, depth, t_exit, 0);
    } else if (how == TREE_ABANDONED && l->open) {
        close_known(c, depth, l->last, 1);
    } else {
        /* Entered before the trace (or the loss): known from the first event since. A frame
         * this level held before the loss never returned as far as anyone can tell. */
        long row = row_of(c->s, f->addr);
        struct counted *k = row < 0 ? NULL : counted_of(c, (uint32_t)row);
        uint64_t dur = span(c->t_base, t_exit);

        if (!k) {
            c->s->dropped++;
        } else {
            account(c, (uint32_t)row, dur, l->kids_base, k, k->at_base, 1);
            to_parent(c, depth, dur, t_exit);
        }
    }
    *l = (struct level){0};
    c->n = depth;
}

static void fs_special(void *arg, const struct ev *e, unsigned depth)
{
    struct fs_ctx *c = arg;

    (void)depth;
    if (e->kind != EV_LOST)
        return;
    /* The frames open now may be named again by exits that come: their known time starts at
     * the next event, and only children that end from now on are inside what is known. */
    c->gen++;
    c->need_base = 1;
    for (unsigned k = 0; k < c->n; k++)
        c->lvl[k].kids_base = 0;
}

static void fs_finish(void *arg, const struct tree_frame *stack, unsigned n)
{
    struct fs_ctx *c = arg;

    (void)stack, (void)n;
    /* The frames still open, innermost first, as if they never returned; the levels know them
     * (and the tree's list leaves out the frames a loss made unknown, which are open too). */
    for (unsigned d = c->n; d-- > 0;)
        if (c->lvl[d].open)
            close_known(c, d, c->lvl[d].last, 1);
    if (c->lvl) /* none yet when no call came (a filter left them all out): memset(NULL) is UB */
        memset(c->lvl, 0, c->cap * sizeof *c->lvl);
    c->n = 0;
    if (c->cnt)
        memset(c->cnt, 0, c->cnt_cap * sizeof *c->cnt);
    c->cnt_used = 0;
    c->gen = 0;
    c->need_base = 1;
}

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
        return &c->sink;
    if (!(c = ctxtab_add(&s->ctx, ctx, sizeof *c)))
        return NULL;
    c->s = s;
    c->id = ctx;
    c->need_base = 1;
    c->sink = (struct tree_sink){c, fs_enter, fs_exit, fs_special, fs_finish, NULL};
    return &c->sink;
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

        free(c->lvl);
        free(c->cnt);
    }
    ctxtab_free(&s->ctx);
    free(s->rows);
    free(s->map);
    free(s->sorted);
    free(s);
}
