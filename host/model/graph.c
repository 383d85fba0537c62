/* SPDX-License-Identifier: GPL-3.0-or-later */
/* graph.c - the aggregated call graph: nodes (one per distinct call path from the function
 * down) found through a hash on (parent, address), a caller table, and per context the levels
 * of its stack, each knowing the node its call counts into. */
#include "model/graph.h"

#include <stdlib.h>

#include "model/calltime.h"
#include "model/ctxtab.h"
#include "util/oaindex.h"
#include "util/vec.h"

/* What a level's call counts into when it is no node. */
#define NONE GRAPH_NONE        /* not in the graph: no call of the function encloses it */
#define CUT (UINT32_MAX - 1)   /* in the graph, but the node cap was reached: left out */
#define DEEP (UINT32_MAX - 2)  /* in the graph, below max_depth: only in its callers' time */
#define IS_NODE(x) ((x) < DEEP)

/* One level of a context's stack (calltime.h), and what its call counts into. */
struct level {
    struct calltime_level ct;
    uint32_t node;      /* a node, NONE, CUT or DEEP */
    uint64_t acc_calls; /* calls of the function it made: they go to the callers when it ends */
    uint64_t acc_total; /* (and its address is known) */
};

static const struct level blank_level = {.node = NONE};

struct g_ctx {
    struct graph *g;
    uint32_t id;
    struct calltime stack; /* struct level, and the sink */
};

struct graph {
    const struct sym_table *sym;
    uint64_t bias, func;
    unsigned max_depth;
    size_t max_nodes;
    struct graph_node *nodes;
    size_t nnodes, nodes_cap;
    struct oaindex nodes_ix; /* (parent, address) -> node */
    struct graph_caller *callers;
    size_t ncallers, callers_cap;
    struct oaindex callers_ix; /* address -> position in callers */
    struct graph_stat fn; /* a function's graph: every call of it (addr 0 for bottom-level) */
    struct graph_stat *stats;
    size_t stats_cap;
    struct ctxtab ctx;    /* struct g_ctx */
    uint64_t left_out, dropped;
};

/* A node's key: the node it was called from and its address. */
struct edge {
    uint32_t parent;
    uint64_t addr;
};

static uint64_t edge_hash(uint32_t parent, uint64_t addr)
{
    return oaindex_hash_u64(addr ^ ((uint64_t)parent << 40) ^ parent);
}

static uint64_t node_hash(const void *arg, size_t pos)
{
    const struct graph_node *n = &((const struct graph *)arg)->nodes[pos];

    return edge_hash(n->parent, n->addr);
}

static int node_match(const void *arg, size_t pos, const void *key)
{
    const struct graph_node *n = &((const struct graph *)arg)->nodes[pos];
    const struct edge *k = key;

    return n->addr == k->addr && n->parent == k->parent;
}

/* The node of addr called from node parent (NONE: a root), made on first sight; CUT when the
 * cap is reached or out of memory (counted in dropped), DEEP below max_depth. */
static uint32_t node_child(struct graph *g, uint32_t parent, uint64_t addr)
{
    uint32_t depth = parent == NONE ? 0 : g->nodes[parent].depth + 1;
    struct edge key = {parent, addr};
    uint64_t h = edge_hash(parent, addr);
    struct graph_node *n;
    size_t pos, *slot;

    if (g->max_depth && depth > g->max_depth)
        return DEEP;
    if ((pos = oaindex_find(&g->nodes_ix, h, node_match, g, &key)) != SIZE_MAX)
        return (uint32_t)pos;
    if (g->nnodes >= g->max_nodes)
        return CUT;
    if (vec_grow(&g->nodes, &g->nodes_cap, g->nnodes, sizeof *g->nodes, 256) < 0 ||
        oaindex_reserve(&g->nodes_ix, 512, node_hash, g) < 0)
        goto oom;
    slot = oaindex_slot(&g->nodes_ix, h, node_match, g, &key);
    n = &g->nodes[g->nnodes];
    *n = (struct graph_node){.addr = addr, .parent = parent, .first = NONE, .next = NONE,
                        .depth = depth};
    if (parent != NONE) {
        n->next = g->nodes[parent].first;
        g->nodes[parent].first = (uint32_t)g->nnodes;
    }
    oaindex_put(&g->nodes_ix, slot, g->nnodes);
    return (uint32_t)g->nnodes++;
oom:
    g->dropped++;
    return CUT;
}

static uint64_t caller_hash(const void *arg, size_t pos)
{
    return oaindex_hash_u64(((const struct graph *)arg)->callers[pos].addr);
}

static int caller_match(const void *arg, size_t pos, const void *key)
{
    return ((const struct graph *)arg)->callers[pos].addr == *(const uint64_t *)key;
}

static void caller_add(struct graph *g, uint64_t addr, uint64_t calls, uint64_t total)
{
    uint64_t h = oaindex_hash_u64(addr);
    size_t pos = oaindex_find(&g->callers_ix, h, caller_match, g, &addr), *slot;

    if (pos == SIZE_MAX) {
        if (vec_grow(&g->callers, &g->callers_cap, g->ncallers, sizeof *g->callers, 32) < 0 ||
            oaindex_reserve(&g->callers_ix, 64, caller_hash, g) < 0) {
            g->dropped++;
            return;
        }
        slot = oaindex_slot(&g->callers_ix, h, caller_match, g, &addr);
        g->callers[g->ncallers] = (struct graph_caller){.addr = addr};
        oaindex_put(&g->callers_ix, slot, g->ncallers);
        pos = g->ncallers++;
    }
    g->callers[pos].calls += calls;
    g->callers[pos].total += total;
}

/* The calls of the function that level d's call made go to its caller entry. */
static void flush_level(struct g_ctx *c, unsigned d)
{
    struct level *l = calltime_at(&c->stack, d);

    if (l->acc_calls)
        caller_add(c->g, l->ct.addr, l->acc_calls, l->acc_total);
    l->acc_calls = l->acc_total = 0;
}

/* Whether a call of addr at depth d, enclosed by no call in the graph, starts one. */
static int is_root(const struct graph *g, unsigned d, uint64_t addr)
{
    return g->func ? addr == g->func : d == 0;
}

/* What a call of addr at depth d counts into (levels below d are reached). */
static uint32_t place(struct g_ctx *c, unsigned d, uint64_t addr)
{
    uint32_t up = d ? ((struct level *)calltime_at(&c->stack, d - 1))->node : NONE;

    if (up == CUT || up == DEEP)
        return up;
    if (up != NONE)
        return node_child(c->g, up, addr);
    return is_root(c->g, d, addr) ? node_child(c->g, NONE, addr) : NONE;
}

/* Accounts one call at depth d, counted into node. */
static void account(struct g_ctx *c, unsigned d, uint32_t node, const struct calltime_call *call)
{
    struct graph *g = c->g;
    struct level *up = d ? calltime_at(&c->stack, d - 1) : NULL;
    uint64_t self = call->dur > call->kids ? call->dur - call->kids : 0;
    int partial = call->how != CALLTIME_RETURNED, blind = call->how == CALLTIME_BEFORE;

    if (IS_NODE(node)) {
        struct graph_node *n = &g->nodes[node];

        n->calls++;
        n->partial += partial;
        n->blind += blind;
        n->total += call->dur;
        n->self += self;
    } else if (node == CUT) {
        g->left_out++;
    }
    if (!g->func || call->addr != g->func)
        return;
    g->fn.calls++;
    g->fn.partial += partial;
    g->fn.blind += blind;
    g->fn.self += self;
    if (!up || up->node == NONE)
        g->fn.total += call->dur; /* an outermost call: recursion counted once */
    if (!up) {
        caller_add(g, GRAPH_CALLER_BOTTOM, 1, call->dur);
    } else {
        up->acc_calls++;
        up->acc_total += call->dur;
    }
}

static int g_open(void *arg, struct calltime *ct, unsigned d, const struct tree_frame *f)
{
    struct level *l = calltime_at(ct, d);

    l->node = place(arg, d, f->addr);
    return 0;
}

/* A call entered before the trace (or the loss) has its callees so far counted as nobody's in
 * the graph: it is blind. */
static int g_close(void *arg, struct calltime *ct, unsigned d, const struct calltime_call *call)
{
    struct g_ctx *c = arg;
    const struct level *l = calltime_at(ct, d);

    if (call->how == CALLTIME_BEFORE) {
        account(c, d, place(c, d, call->addr), call);
    } else {
        flush_level(c, d);
        account(c, d, l->node, call);
    }
    return 0;
}

/* A level cleared without its call ending: its time is void, but whom it called stays. */
static void g_drop(void *arg, struct calltime *ct, unsigned d)
{
    (void)ct;
    flush_level(arg, d);
}

static const struct calltime_ops g_ops = {g_open, g_close, g_drop, NULL, NULL};

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
        return calltime_sink(&c->stack);
    if (!(c = ctxtab_add(&g->ctx, ctx, sizeof *c)))
        return NULL;
    c->g = g;
    c->id = ctx;
    calltime_init(&c->stack, &g_ops, c, sizeof(struct level), &blank_level, &g->dropped);
    return calltime_sink(&c->stack);
}

struct graph_stat *graph_stats(struct graph *g, size_t *n)
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
        const struct graph_node *r = &g->nodes[i];

        if (r->parent == NONE)
            g->stats[k++] = (struct graph_stat){r->addr, r->calls, r->partial, r->blind,
                                                r->total, r->self};
    }
    *n = k;
    return g->stats;
}

uint32_t graph_root(const struct graph *g, uint64_t addr)
{
    struct edge key = {NONE, addr};
    size_t pos = oaindex_find(&g->nodes_ix, edge_hash(NONE, addr), node_match, g, &key);

    return pos == SIZE_MAX ? NONE : (uint32_t)pos;
}

const struct graph_node *graph_node(const struct graph *g, uint32_t id)
{
    return &g->nodes[id];
}

const struct graph_caller *graph_callers(const struct graph *g, size_t *n)
{
    *n = g->ncallers;
    return g->ncallers ? g->callers : NULL;
}

uint64_t graph_func(const struct graph *g)
{
    return g->func;
}

const struct sym_table *graph_sym(const struct graph *g, uint64_t *bias)
{
    *bias = g->bias;
    return g->sym;
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
        calltime_free(&((struct g_ctx *)g->ctx.v[i])->stack);
    ctxtab_free(&g->ctx);
    free(g->nodes);
    oaindex_free(&g->nodes_ix);
    free(g->callers);
    oaindex_free(&g->callers_ix);
    free(g->stats);
    free(g);
}
