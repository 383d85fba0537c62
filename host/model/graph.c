/* graph.c - the aggregated call graph: nodes (one per distinct call path from the function
 * down) found through a hash on (parent, address), a caller table, and per context the levels
 * of its stack, each knowing the node its call counts into. */
#include "model/graph.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "model/ctxtab.h"
#include "output/render.h"

/* What a level's call counts into when it is no node. */
#define NONE UINT32_MAX        /* not in the graph: no call of the function encloses it */
#define CUT (UINT32_MAX - 1)   /* in the graph, but the node cap was reached: left out */
#define DEEP (UINT32_MAX - 2)  /* in the graph, below max_depth: only in its callers' time */
#define IS_NODE(x) ((x) < DEEP)

/* The caller of the calls made at depth 0, which no one called as far as the trace knows. */
#define CALLER_BOTTOM UINT64_MAX

struct gnode {
    uint64_t addr;
    uint64_t calls, partial, blind;
    uint64_t total, self;
    uint32_t parent, first, next; /* NONE: none; children are linked, newest first */
    uint32_t depth;               /* levels below the function */
};

struct edge {
    uint64_t addr;
    uint32_t parent;
    uint32_t node_plus1; /* 0: empty slot */
};

struct caller {
    uint64_t addr; /* 0: unknown (entered before the trace), CALLER_BOTTOM: none */
    uint64_t calls, total;
    int used;
};

/* One level of a context's stack, indexed by the tree's depth. A level below the first entry
 * (a frame from before the trace) is never entered but still gathers its children's times. */
struct level {
    uint64_t addr;      /* the function entered here; 0 while unknown */
    uint32_t node;      /* what its call counts into: a node, NONE, CUT or DEEP */
    int open;
    uint64_t t_enter;
    uint64_t last;      /* time of the last event inside: its entry, a child's entry or end */
    uint64_t kids;      /* inclusive times of its children */
    uint64_t kids_base; /* ... of those that ended since the trace (or the last loss) began */
    uint64_t acc_calls; /* calls of the function it made: they go to the callers when it ends */
    uint64_t acc_total; /* (and its address is known) */
};

struct g_ctx {
    struct graph *g;
    uint32_t id;
    struct tree_sink sink;
    struct level *lvl;
    unsigned n, cap;  /* levels in use (the deepest touched + 1), allocated */
    int need_base;    /* the next event's time is t_base */
    uint64_t t_base;  /* the first event after the trace (or a loss) began */
};

struct graph {
    const struct sym_table *sym;
    uint64_t bias, func;
    unsigned max_depth;
    size_t max_nodes;
    struct gnode *nodes;
    size_t nnodes, nodes_cap;
    struct edge *map; /* (parent, address) -> node; open addressing, power of two */
    size_t map_cap;
    struct caller *callers; /* address -> caller; open addressing, power of two */
    size_t ncallers, callers_cap;
    struct graph_stat fn; /* a function's graph: every call of it (addr 0 for bottom-level) */
    struct graph_stat *stats;
    size_t stats_cap;
    struct ctxtab ctx;    /* struct g_ctx */
    uint64_t left_out, dropped;
};

static size_t hash64(uint64_t v)
{
    v ^= v >> 33;
    v *= UINT64_C(0xff51afd7ed558ccd);
    v ^= v >> 33;
    return (size_t)v;
}

static size_t edge_hash(uint32_t parent, uint64_t addr)
{
    return hash64(addr ^ ((uint64_t)parent << 40) ^ parent);
}

static int map_grow(struct graph *g)
{
    size_t cap = g->map_cap ? g->map_cap * 2 : 256;
    struct edge *m = calloc(cap, sizeof *m);

    if (!m)
        return -1;
    for (size_t i = 0; i < g->map_cap; i++) {
        size_t j;

        if (!g->map[i].node_plus1)
            continue;
        for (j = edge_hash(g->map[i].parent, g->map[i].addr) & (cap - 1); m[j].node_plus1;
             j = (j + 1) & (cap - 1))
            ;
        m[j] = g->map[i];
    }
    free(g->map);
    g->map = m;
    g->map_cap = cap;
    return 0;
}

/* The node of addr called from node parent (NONE: a root), made on first sight; CUT when the
 * cap is reached or out of memory (counted in dropped), DEEP below max_depth. */
static uint32_t node_child(struct graph *g, uint32_t parent, uint64_t addr)
{
    uint32_t depth = parent == NONE ? 0 : g->nodes[parent].depth + 1;
    struct gnode *n;
    size_t j;

    if (g->max_depth && depth > g->max_depth)
        return DEEP;
    if ((g->nnodes + 1) * 2 > g->map_cap && map_grow(g) < 0)
        goto oom;
    for (j = edge_hash(parent, addr) & (g->map_cap - 1); g->map[j].node_plus1;
         j = (j + 1) & (g->map_cap - 1))
        if (g->map[j].addr == addr && g->map[j].parent == parent)
            return g->map[j].node_plus1 - 1;
    if (g->nnodes >= g->max_nodes)
        return CUT;
    if (g->nnodes == g->nodes_cap) {
        size_t cap = g->nodes_cap ? g->nodes_cap * 2 : 256;
        struct gnode *p = realloc(g->nodes, cap * sizeof *p);

        if (!p)
            goto oom;
        g->nodes = p;
        g->nodes_cap = cap;
    }
    n = &g->nodes[g->nnodes];
    *n = (struct gnode){.addr = addr, .parent = parent, .first = NONE, .next = NONE,
                        .depth = depth};
    if (parent != NONE) {
        n->next = g->nodes[parent].first;
        g->nodes[parent].first = (uint32_t)g->nnodes;
    }
    g->map[j] = (struct edge){addr, parent, (uint32_t)++g->nnodes};
    return (uint32_t)g->nnodes - 1;
oom:
    g->dropped++;
    return CUT;
}

static int callers_grow(struct graph *g)
{
    size_t cap = g->callers_cap ? g->callers_cap * 2 : 64;
    struct caller *m = calloc(cap, sizeof *m);

    if (!m)
        return -1;
    for (size_t i = 0; i < g->callers_cap; i++) {
        size_t j;

        if (!g->callers[i].used)
            continue;
        for (j = hash64(g->callers[i].addr) & (cap - 1); m[j].used; j = (j + 1) & (cap - 1))
            ;
        m[j] = g->callers[i];
    }
    free(g->callers);
    g->callers = m;
    g->callers_cap = cap;
    return 0;
}

static void caller_add(struct graph *g, uint64_t addr, uint64_t calls, uint64_t total)
{
    size_t j;

    if ((g->ncallers + 1) * 2 > g->callers_cap && callers_grow(g) < 0) {
        g->dropped++;
        return;
    }
    for (j = hash64(addr) & (g->callers_cap - 1); g->callers[j].used;
         j = (j + 1) & (g->callers_cap - 1))
        if (g->callers[j].addr == addr)
            break;
    if (!g->callers[j].used) {
        g->callers[j] = (struct caller){.addr = addr, .used = 1};
        g->ncallers++;
    }
    g->callers[j].calls += calls;
    g->callers[j].total += total;
}

/* The calls of the function that level d's call made go to its caller entry. */
static void flush_level(struct g_ctx *c, unsigned d)
{
    struct level *l = &c->lvl[d];

    if (l->acc_calls)
        caller_add(c->g, l->addr, l->acc_calls, l->acc_total);
    l->acc_calls = l->acc_total = 0;
}

/* Makes level d usable; new levels are empty (not open, nothing gathered, no node). */
static int reach(struct g_ctx *c, unsigned d)
{
    if (d >= c->cap) {
        unsigned cap = c->cap ? c->cap : 64;
        struct level *l;

        while (cap <= d)
            cap *= 2;
        l = realloc(c->lvl, cap * sizeof *l);
        if (!l)
            return -1;
        for (unsigned k = c->cap; k < cap; k++)
            l[k] = (struct level){.node = NONE};
        c->lvl = l;
        c->cap = cap;
    }
    /* Levels above d that are still open vanished: the tree dropped them without an exit
     * (frames made unknown by a loss); their time is void, but whom they called stays. */
    for (unsigned k = d + 1; k < c->n; k++) {
        flush_level(c, k);
        c->lvl[k] = (struct level){.node = NONE};
    }
    if (c->n < d + 1)
        c->n = d + 1;
    return 0;
}

static uint64_t span(uint64_t from, uint64_t to)
{
    return to > from ? to - from : 0;
}

static void base_at(struct g_ctx *c, uint64_t t)
{
    if (c->need_base) {
        c->need_base = 0;
        c->t_base = t;
    }
}

/* Whether a call of addr at depth d, enclosed by no call in the graph, starts one. */
static int is_root(const struct graph *g, unsigned d, uint64_t addr)
{
    return g->func ? addr == g->func : d == 0;
}

/* What a call of addr at depth d counts into (levels below d are reached). */
static uint32_t place(struct g_ctx *c, unsigned d, uint64_t addr)
{
    uint32_t up = d ? c->lvl[d - 1].node : NONE;

    if (up == CUT || up == DEEP)
        return up;
    if (up != NONE)
        return node_child(c->g, up, addr);
    return is_root(c->g, d, addr) ? node_child(c->g, NONE, addr) : NONE;
}

/* Accounts one call of addr at depth d, counted into node, that took dur (children: kids). */
static void account(struct g_ctx *c, unsigned d, uint32_t node, uint64_t addr, uint64_t dur,
                    uint64_t kids, int partial, int blind)
{
    struct graph *g = c->g;
    uint64_t self = dur > kids ? dur - kids : 0;

    if (IS_NODE(node)) {
        struct gnode *n = &g->nodes[node];

        n->calls++;
        n->partial += !!partial;
        n->blind += !!blind;
        n->total += dur;
        n->self += self;
    } else if (node == CUT) {
        g->left_out++;
    }
    if (!g->func || addr != g->func)
        return;
    g->fn.calls++;
    g->fn.partial += !!partial;
    g->fn.blind += !!blind;
    g->fn.self += self;
    if (!d || c->lvl[d - 1].node == NONE)
        g->fn.total += dur; /* an outermost call: recursion counted once */
    if (!d) {
        caller_add(g, CALLER_BOTTOM, 1, dur);
    } else {
        c->lvl[d - 1].acc_calls++;
        c->lvl[d - 1].acc_total += dur;
    }
}

/* A frame at depth d ends at `end` after taking dur: its parent gathers it. */
static void to_parent(struct g_ctx *c, unsigned d, uint64_t dur, uint64_t end)
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
static void close_known(struct g_ctx *c, unsigned d, uint64_t end, int partial)
{
    struct level *l = &c->lvl[d];
    uint64_t dur = span(l->t_enter, end);

    flush_level(c, d);
    account(c, d, l->node, l->addr, dur, l->kids, partial, 0);
    to_parent(c, d, dur, end);
}

static void g_enter(void *arg, const struct tree_frame *f, unsigned depth)
{
    struct g_ctx *c = arg;

    base_at(c, f->t_enter);
    if (reach(c, depth) < 0) {
        c->g->dropped++;
        return;
    }
    flush_level(c, depth);
    c->lvl[depth] = (struct level){.addr = f->addr, .node = place(c, depth, f->addr),
                                   .open = 1, .t_enter = f->t_enter, .last = f->t_enter};
    c->n = depth + 1;
    if (depth && c->lvl[depth - 1].last < f->t_enter)
        c->lvl[depth - 1].last = f->t_enter;
}

static void g_exit(void *arg, const struct tree_frame *f, unsigned depth, uint64_t t_exit,
                   enum tree_exit_how how)
{
    struct g_ctx *c = arg;
    struct level *l;

    base_at(c, t_exit);
    if (reach(c, depth) < 0) {
        c->g->dropped++;
        return;
    }
    l = &c->lvl[depth];
    if (how == TREE_RETURNED && l->open && l->addr == f->addr) {
        close_known(c, depth, t_exit, 0);
    } else if (how == TREE_ABANDONED && l->open) {
        close_known(c, depth, l->last, 1);
    } else {
        /* Entered before the trace (or the loss): known from the first event since, and its
         * callees so far counted as nobody's in the graph. A frame this level held before the
         * loss never returned as far as anyone can tell (fnstat drops it too). */
        uint64_t dur = span(c->t_base, t_exit);

        if (!l->open)
            l->addr = f->addr;
        flush_level(c, depth);
        account(c, depth, place(c, depth, f->addr), f->addr, dur, l->kids_base, 1, 1);
        to_parent(c, depth, dur, t_exit);
    }
    c->lvl[depth] = (struct level){.node = NONE};
    c->n = depth;
}

static void g_special(void *arg, const struct ev *e, unsigned depth)
{
    struct g_ctx *c = arg;

    (void)depth;
    if (e->kind != EV_LOST)
        return;
    c->need_base = 1;
    for (unsigned k = 0; k < c->n; k++)
        c->lvl[k].kids_base = 0;
}

static void g_finish(void *arg, const struct tree_frame *stack, unsigned n)
{
    struct g_ctx *c = arg;

    (void)stack, (void)n;
    /* The frames still open, innermost first, as if they never returned. */
    for (unsigned d = c->n; d-- > 0;) {
        if (c->lvl[d].open)
            close_known(c, d, c->lvl[d].last, 1);
        else
            flush_level(c, d);
        c->lvl[d] = (struct level){.node = NONE};
    }
    c->n = 0;
    c->need_base = 1;
}

struct graph *graph_new(const struct sym_table *sym, uint64_t bias, uint64_t func,
                        unsigned max_depth, size_t max_nodes)
{
    struct graph *g = calloc(1, sizeof *g);

    if (!g)
        return NULL;
    g->sym = sym;
    g->bias = bias;
    g->func = func;
    g->fn.addr = func;
    g->max_depth = max_depth;
    g->max_nodes = max_nodes ? max_nodes : GRAPH_MAX_NODES;
    if (g->max_nodes > DEEP - 1)
        g->max_nodes = DEEP - 1;
    return g;
}

const struct tree_sink *graph_sink(struct graph *g, uint32_t ctx)
{
    struct g_ctx *c = ctxtab_find(&g->ctx, ctx);

    if (c)
        return &c->sink;
    if (!(c = ctxtab_add(&g->ctx, ctx, sizeof *c)))
        return NULL;
    c->g = g;
    c->id = ctx;
    c->need_base = 1;
    c->sink = (struct tree_sink){c, g_enter, g_exit, g_special, g_finish, NULL};
    return &c->sink;
}

/* Orders by total (largest first), then by name as shown, then by address. */
static int cmp_by_total(const struct graph *g, uint64_t ta, uint64_t aa, uint64_t tb,
                        uint64_t ab)
{
    char na[256], nb[256];
    int c;

    if (ta != tb)
        return ta < tb ? 1 : -1;
    render_addr(g->sym, g->bias, aa, na, sizeof na);
    render_addr(g->sym, g->bias, ab, nb, sizeof nb);
    if ((c = strcmp(na, nb)) != 0)
        return c;
    return aa < ab ? -1 : aa > ab;
}

static int cmp_stats(const void *pa, const void *pb, void *arg)
{
    const struct graph_stat *a = pa, *b = pb;

    return cmp_by_total(arg, a->total, a->addr, b->total, b->addr);
}

const struct graph_stat *graph_stats(struct graph *g, size_t *n)
{
    size_t k = 0, roots = 0;

    *n = 0;
    if (g->func) {
        if (!g->fn.calls)
            return NULL;
        *n = 1;
        return &g->fn;
    }
    for (size_t i = 0; i < g->nnodes; i++)
        roots += g->nodes[i].parent == NONE;
    if (!roots)
        return NULL;
    if (g->stats_cap < roots) {
        struct graph_stat *p = realloc(g->stats, roots * sizeof *p);

        if (!p)
            return NULL;
        g->stats = p;
        g->stats_cap = roots;
    }
    for (size_t i = 0; i < g->nnodes; i++) {
        const struct gnode *r = &g->nodes[i];

        if (r->parent == NONE)
            g->stats[k++] = (struct graph_stat){r->addr, r->calls, r->partial, r->blind,
                                                r->total, r->self};
    }
    qsort_r(g->stats, k, sizeof *g->stats, cmp_stats, g);
    *n = k;
    return g->stats;
}

static int cmp_callers(const void *pa, const void *pb, void *arg)
{
    const struct caller *a = pa, *b = pb;

    return cmp_by_total(arg, a->total, a->addr, b->total, b->addr);
}

static void caller_name(const struct graph *g, uint64_t addr, char *buf, size_t len)
{
    if (addr == CALLER_BOTTOM)
        snprintf(buf, len, "(none: the bottom of the stack)");
    else if (!addr)
        snprintf(buf, len, "(unknown: entered before the trace)");
    else
        render_addr(g->sym, g->bias, addr, buf, len);
}

static int print_callers(struct graph *g, FILE *out, uint64_t hz)
{
    struct caller *v = NULL;
    size_t k = 0;

    if (!g->func)
        return 0;
    if (g->ncallers && !(v = malloc(g->ncallers * sizeof *v)))
        return -1;
    fprintf(out, "========== CALLERS ==========\n");
    fprintf(out, "#    CALLS        TOTAL   FUNCTION\n");
    if (!g->ncallers)
        return 0;
    for (size_t i = 0; i < g->callers_cap; i++)
        if (g->callers[i].used)
            v[k++] = g->callers[i];
    qsort_r(v, k, sizeof *v, cmp_callers, g);
    for (size_t i = 0; i < k; i++) {
        char t[32], name[256];

        render_duration(v[i].total, hz, t, sizeof t);
        caller_name(g, v[i].addr, name, sizeof name);
        fprintf(out, "%10" PRIu64 " %12s   %s\n", v[i].calls, t, name);
    }
    free(v);
    return 0;
}

static int cmp_nodes(const void *pa, const void *pb, void *arg)
{
    const struct graph *g = arg;
    const struct gnode *a = &g->nodes[*(const uint32_t *)pa], *b = &g->nodes[*(const uint32_t *)pb];

    return cmp_by_total(g, a->total, a->addr, b->total, b->addr);
}

/* A node's children in the order they are shown; *n gets their number. NULL when none (or
 * out of memory: *n = SIZE_MAX). */
static uint32_t *children(struct graph *g, uint32_t node, size_t *n)
{
    uint32_t *v;
    size_t k = 0;

    *n = 0;
    for (uint32_t c = g->nodes[node].first; c != NONE; c = g->nodes[c].next)
        k++;
    if (!k)
        return NULL;
    if (!(v = malloc(k * sizeof *v))) {
        *n = SIZE_MAX;
        return NULL;
    }
    k = 0;
    for (uint32_t c = g->nodes[node].first; c != NONE; c = g->nodes[c].next)
        v[k++] = c;
    qsort_r(v, k, sizeof *v, cmp_nodes, g);
    *n = k;
    return v;
}

static void print_node(struct graph *g, FILE *out, uint64_t hz, uint32_t node,
                       const char *prefix, size_t plen, const char *mark)
{
    const struct gnode *n = &g->nodes[node];
    char t[32], s[32], name[256];

    render_duration(n->total, hz, t, sizeof t);
    render_duration(n->self, hz, s, sizeof s);
    render_addr(g->sym, g->bias, n->addr, name, sizeof name);
    fprintf(out, "%12s %12s : %.*s%s(%" PRIu64 ") %s\n", t, s, (int)plen, prefix, mark,
            n->calls, name);
}

/* One level of the walk: a node's children, the next to show, and the prefix of their lines
 * (the first plen characters of the shared prefix buffer). */
struct walk {
    uint32_t *kids;
    size_t n, i, plen;
};

/* The tree below root, like uftrace's: a node with several children marks each "+-" and
 * separates them by a "|" line; the lines below a child that is not the last carry a "|".
 * Iterative: a path can be as deep as the recursion it records. */
static int print_callees(struct graph *g, FILE *out, uint64_t hz, uint32_t root)
{
    struct walk *st = NULL;
    char *prefix = NULL;
    size_t top = 0, cap = 0, pcap = 0;
    int rc = -1;

    fprintf(out, "========== CALL GRAPH ==========\n");
    fprintf(out, "#      TOTAL         SELF   FUNCTION\n");
    print_node(g, out, hz, root, "", 0, "");
    for (uint32_t node = root, plen = 0;;) {
        struct walk *w;
        size_t n;
        uint32_t *kids = children(g, node, &n);

        if (n == SIZE_MAX)
            goto out;
        if (top == cap) {
            size_t c2 = cap ? cap * 2 : 64;
            struct walk *p = realloc(st, c2 * sizeof *p);

            if (!p) {
                free(kids);
                goto out;
            }
            st = p;
            cap = c2;
        }
        st[top++] = (struct walk){kids, n, 0, plen};
        for (;;) {
            if (!top) {
                rc = 0;
                goto out;
            }
            w = &st[top - 1];
            if (w->i < w->n)
                break;
            free(w->kids);
            top--;
        }
        {
            int multi = w->n > 1, last = w->i + 1 == w->n;

            node = w->kids[w->i++];
            if (pcap < w->plen + 4) {
                size_t c2 = pcap ? pcap * 2 : 256;
                char *p;

                while (c2 < w->plen + 4)
                    c2 *= 2;
                if (!(p = realloc(prefix, c2)))
                    goto out;
                prefix = p;
                pcap = c2;
            }
            if (multi && w->i > 1)
                fprintf(out, "%12s %12s : %.*s |\n", "", "", (int)w->plen, prefix);
            print_node(g, out, hz, node, prefix, w->plen, multi ? " +-" : "");
            plen = (uint32_t)w->plen;
            if (multi) {
                memcpy(prefix + plen, last ? "   " : " | ", 3);
                plen += 3;
            }
        }
    }
out:
    while (top)
        free(st[--top].kids);
    free(st);
    free(prefix);
    return rc;
}

int graph_print(struct graph *g, size_t i, FILE *out, uint64_t hz, unsigned flags)
{
    size_t n;
    const struct graph_stat *s = graph_stats(g, &n);
    uint32_t root = NONE;

    if (!s || i >= n)
        return n ? -1 : 0;
    for (size_t k = 0; k < g->nnodes && root == NONE; k++)
        if (g->nodes[k].parent == NONE && g->nodes[k].addr == s[i].addr)
            root = (uint32_t)k;
    if ((flags & GRAPH_CALLERS) && g->func) {
        if (print_callers(g, out, hz) < 0)
            return -1;
        if (flags & GRAPH_CALLEES)
            fprintf(out, "\n");
    }
    if ((flags & GRAPH_CALLEES) && root != NONE)
        return print_callees(g, out, hz, root);
    return 0;
}

uint64_t graph_left_out(const struct graph *g)
{
    return g->left_out;
}

size_t graph_nodes(const struct graph *g)
{
    return g->nnodes;
}

uint64_t graph_dropped(const struct graph *g)
{
    return g->dropped;
}

void graph_free(struct graph *g)
{
    if (!g)
        return;
    for (unsigned i = 0; i < g->ctx.n; i++)
        free(((struct g_ctx *)g->ctx.v[i])->lvl);
    ctxtab_free(&g->ctx);
    free(g->nodes);
    free(g->map);
    free(g->callers);
    free(g->stats);
    free(g);
}
