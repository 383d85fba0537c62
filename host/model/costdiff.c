/* SPDX-License-Identifier: GPL-3.0-or-later */
/* costdiff.c - two runs' costs joined by key (costdiff.h). */
#include "model/costdiff.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/oaindex.h"

static int cmp_row(const void *pa, const void *pb)
{
    const struct costdiff_row *a = pa, *b = pb;
    uint64_t da = a->delta < 0 ? -(uint64_t)a->delta : (uint64_t)a->delta;
    uint64_t db = b->delta < 0 ? -(uint64_t)b->delta : (uint64_t)b->delta;

    if (da != db)
        return da > db ? -1 : 1;
    if (a->key && b->key)
        return strcmp(a->key, b->key);
    if (a->node[0] != b->node[0])
        return a->node[0] < b->node[0] ? -1 : 1;
    return a->node[1] < b->node[1] ? -1 : a->node[1] > b->node[1];
}

static uint64_t row_hash(const void *arg, size_t pos)
{
    const struct costdiff_row *r = arg;

    return oaindex_hash_str(r[pos].key);
}

static int row_match(const void *arg, size_t pos, const void *key)
{
    const struct costdiff_row *r = arg;

    return !strcmp(r[pos].key, key);
}

/* Takes a run's row into r; a key that run already gave (two static functions of one name)
 * adds up, with the larger spread. */
static void take(struct costdiff_row *r, int side, const struct costdiff_in *in)
{
    r->calls[side] += in->calls;
    r->total[side] += in->total;
    r->self[side] += in->self;
    if (in->sd > r->sd[side])
        r->sd[side] = in->sd;
    if (side)
        r->in_b = 1;
    else
        r->in_a = 1;
}

int costdiff_join(const struct costdiff_in *a, size_t na, const struct costdiff_in *b,
                  size_t nb, struct costdiff_row **out, size_t *n)
{
    struct costdiff_row *r = calloc(na + nb ? na + nb : 1, sizeof *r);
    struct oaindex ix = {0};
    size_t k = 0;

    if (!r)
        return -1;
    for (size_t i = 0; i < na + nb; i++) {
        const struct costdiff_in *in = i < na ? &a[i] : &b[i - na];
        uint64_t h = oaindex_hash_str(in->key);
        size_t pos = oaindex_find(&ix, h, row_match, r, in->key), *slot;

        if (pos == SIZE_MAX) {
            if (oaindex_reserve(&ix, 256, row_hash, r) < 0) {
                free(r);
                oaindex_free(&ix);
                return -1;
            }
            pos = k++;
            r[pos] = (struct costdiff_row){.key = in->key, .sd = {-1, -1},
                                           .node = {GRAPH_NONE, GRAPH_NONE}};
            slot = oaindex_slot(&ix, h, row_match, r, in->key);
            oaindex_put(&ix, slot, pos);
        }
        take(&r[pos], i >= na, in);
    }
    oaindex_free(&ix);
    costdiff_finish(r, k);
    *out = r;
    *n = k;
    return 0;
}

void costdiff_finish(struct costdiff_row *r, size_t k)
{
    for (size_t i = 0; i < k; i++) {
        uint64_t ta = r[i].total[0], tb = r[i].total[1];

        if (tb >= ta)
            r[i].delta = tb - ta > INT64_MAX ? INT64_MAX : (int64_t)(tb - ta);
        else
            r[i].delta = ta - tb > INT64_MAX ? -INT64_MAX : -(int64_t)(ta - tb);
        r[i].ratio = ta ? (double)tb / (double)ta : 0;
        r[i].noise = costdiff_spread(&r[i]) >= 0 &&
                     fabs((double)r[i].delta) <= costdiff_spread(&r[i]);
    }
    qsort(r, k, sizeof *r, cmp_row);
}

/* A node of one side's sibling list, by name. */
struct sib {
    char *name;
    uint32_t id;
};

static int cmp_sib(const void *pa, const void *pb)
{
    const struct sib *a = pa, *b = pb;

    return strcmp(a->name, b->name);
}

struct rows {
    struct costdiff_row *r;
    size_t n, cap;
};

/* The siblings from node first on, sorted by name (*n of them); NULL with *n 0 when none,
 * NULL with *n 1 when out of memory. */
static struct sib *siblings(const struct costdiff_graph *g, uint32_t first, size_t *n)
{
    struct sib *v = NULL;
    size_t cap = 0;
    char buf[512];

    *n = 0;
    for (uint32_t id = first; id != GRAPH_NONE; id = graph_node(g->g, id)->next) {
        struct sib *t;

        if (*n == cap) {
            cap = cap ? 2 * cap : 8;
            if (!(t = realloc(v, cap * sizeof *v)))
                goto oom;
            v = t;
        }
        if (!(v[*n].name = strdup(g->name(g->arg, graph_node(g->g, id)->addr, buf, sizeof buf))))
            goto oom;
        v[(*n)++].id = id;
    }
    if (*n)
        qsort(v, *n, sizeof *v, cmp_sib);
    return v;
oom:
    for (size_t i = 0; i < *n; i++)
        free(v[i].name);
    free(v);
    *n = 1;
    return NULL;
}

static int add_path(struct rows *rs, const struct costdiff_graph *a, const struct costdiff_graph *b,
                    uint32_t na, uint32_t nb)
{
    struct costdiff_row *r;
    const struct costdiff_graph *g[2] = {a, b};
    uint32_t id[2] = {na, nb};

    if (rs->n == rs->cap) {
        size_t cap = rs->cap ? 2 * rs->cap : 256;
        struct costdiff_row *t = realloc(rs->r, cap * sizeof *t);

        if (!t)
            return -1;
        rs->r = t;
        rs->cap = cap;
    }
    r = &rs->r[rs->n++];
    *r = (struct costdiff_row){.sd = {-1, -1}, .node = {na, nb}};
    for (int k = 0; k < 2; k++) {
        const struct graph_node *nd;

        if (id[k] == GRAPH_NONE)
            continue;
        nd = graph_node(g[k]->g, id[k]);
        r->calls[k] = nd->calls;
        r->total[k] = nd->total;
        r->self[k] = nd->self;
        if (k)
            r->in_b = 1;
        else
            r->in_a = 1;
    }
    return 0;
}

/* The sibling lists from fa (in A) and fb (in B) on, merged by name, and below them. */
static int walk(struct rows *rs, const struct costdiff_graph *a, const struct costdiff_graph *b,
                uint32_t fa, uint32_t fb)
{
    size_t n, m, i = 0, j = 0;
    struct sib *sa = siblings(a, fa, &n), *sb = siblings(b, fb, &m);
    int rc = -1;

    if ((!sa && n) || (!sb && m))
        goto out;
    while (i < n || j < m) {
        int c = i == n ? 1 : j == m ? -1 : strcmp(sa[i].name, sb[j].name);
        uint32_t x = c <= 0 ? sa[i].id : GRAPH_NONE, y = c >= 0 ? sb[j].id : GRAPH_NONE;

        if (add_path(rs, a, b, x, y) < 0 ||
            walk(rs, a, b, x == GRAPH_NONE ? GRAPH_NONE : graph_node(a->g, x)->first,
                 y == GRAPH_NONE ? GRAPH_NONE : graph_node(b->g, y)->first) < 0)
            goto out;
        i += c <= 0;
        j += c >= 0;
    }
    rc = 0;
out:
    for (size_t k = 0; sa && k < n; k++)
        free(sa[k].name);
    for (size_t k = 0; sb && k < m; k++)
        free(sb[k].name);
    free(sa);
    free(sb);
    return rc;
}

/* The roots of a graph of bottom-level calls, linked as siblings are not: a list of them. */
static int roots(const struct costdiff_graph *g, uint32_t **v, size_t *n)
{
    size_t k;
    struct graph_stat *st = graph_stats((struct graph *)g->g, &k);

    *n = 0;
    *v = calloc(k ? k : 1, sizeof **v);
    if (!*v)
        return -1;
    for (size_t i = 0; i < k; i++) {
        uint32_t id = graph_root(g->g, st[i].addr);

        if (id != GRAPH_NONE)
            (*v)[(*n)++] = id;
    }
    return 0;
}

int costdiff_paths(const struct costdiff_graph *a, const struct costdiff_graph *b,
                   struct costdiff_row **out, size_t *n)
{
    struct rows rs = {0};
    uint32_t *ra = NULL, *rb = NULL;
    size_t na, nb;
    int rc = -1;

    if (roots(a, &ra, &na) < 0 || roots(b, &rb, &nb) < 0)
        goto out;
    /* Each root is a list of its own (a root's next is not another root): pair them by name
     * as one list would be, through one walk per root of A, then B's left over. */
    {
        char buf[512], buf2[512];
        char *used = calloc(nb + 1, 1);

        if (!used)
            goto out;
        for (size_t i = 0; i < na; i++) {
            const char *name = a->name(a->arg, graph_node(a->g, ra[i])->addr, buf, sizeof buf);
            uint32_t y = GRAPH_NONE;

            for (size_t j = 0; j < nb && y == GRAPH_NONE; j++)
                if (!used[j] &&
                    !strcmp(name, b->name(b->arg, graph_node(b->g, rb[j])->addr, buf2,
                                          sizeof buf2))) {
                    used[j] = 1;
                    y = rb[j];
                }
            if (add_path(&rs, a, b, ra[i], y) < 0 ||
                walk(&rs, a, b, graph_node(a->g, ra[i])->first,
                     y == GRAPH_NONE ? GRAPH_NONE : graph_node(b->g, y)->first) < 0) {
                free(used);
                goto out;
            }
        }
        for (size_t j = 0; j < nb; j++)
            if (!used[j] && (add_path(&rs, a, b, GRAPH_NONE, rb[j]) < 0 ||
                             walk(&rs, a, b, GRAPH_NONE, graph_node(b->g, rb[j])->first) < 0)) {
                free(used);
                goto out;
            }
        free(used);
    }
    rc = 0;
out:
    free(ra);
    free(rb);
    if (rc < 0) {
        free(rs.r);
        rs.r = NULL;
        rs.n = 0;
    }
    *out = rs.r;
    *n = rs.n;
    return rc;
}

void costdiff_path_key(const struct costdiff_graph *a, const struct costdiff_graph *b,
                       const struct costdiff_row *r, char *buf, size_t len)
{
    const struct costdiff_graph *g = r->node[0] != GRAPH_NONE ? a : b;
    uint32_t id = r->node[0] != GRAPH_NONE ? r->node[0] : r->node[1], chain[64];
    unsigned n = 0, skipped = 0;
    size_t k = 0;
    char name[512];

    for (; id != GRAPH_NONE; id = graph_node(g->g, id)->parent)
        if (n < 64)
            chain[n++] = id;
        else
            skipped++;
    buf[0] = 0;
    if (skipped)
        k += (size_t)snprintf(buf, len, "... (%u more) > ", skipped);
    /* chain holds the innermost 64 from the node up: the bottom ones are what was skipped */
    for (unsigned i = n; i-- > 0 && k < len;)
        k += (size_t)snprintf(buf + k, len - k, "%s%s", i + 1 < n ? " > " : "",
                              g->name(g->arg, graph_node(g->g, chain[i])->addr, name, sizeof name));
}

double costdiff_spread(const struct costdiff_row *r)
{
    double s = r->sd[0] > r->sd[1] ? r->sd[0] : r->sd[1];
    uint64_t c = r->calls[0] > r->calls[1] ? r->calls[0] : r->calls[1];

    if (r->calls[0] < 2 || r->calls[1] < 2 || r->sd[0] < 0 || r->sd[1] < 0)
        return -1;
    return s * sqrt((double)c);
}

int costdiff_offends(const struct costdiff_row *r, const struct costdiff_limit *lim)
{
    double d = (double)r->delta;

    if (r->delta <= 0 || r->noise || (uint64_t)r->delta < lim->floor)
        return 0;
    if (!lim->pct)
        return d > lim->value;
    return !r->total[0] || d * 100.0 > lim->value * (double)r->total[0];
}
