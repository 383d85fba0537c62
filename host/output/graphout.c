/* SPDX-License-Identifier: GPL-3.0-or-later */
/* graphout.c - the text of a call graph (graphout.h): the graph is walked through graph.h's
 * nodes, each node's children sorted as they are shown. */
#include "output/graphout.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output/fmt.h"
#include "util/vec.h"

/* Orders by total (largest first), then by name as shown, then by address. */
static int cmp_by_total(const struct graph *g, uint64_t ta, uint64_t aa, uint64_t tb,
                        uint64_t ab)
{
    char na[256], nb[256];
    uint64_t bias;
    const struct sym_table *sym = graph_sym(g, &bias);
    int c;

    if (ta != tb)
        return ta < tb ? 1 : -1;
    fmt_addr(sym, bias, aa, na, sizeof na);
    fmt_addr(sym, bias, ab, nb, sizeof nb);
    if ((c = strcmp(na, nb)) != 0)
        return c;
    return aa < ab ? -1 : aa > ab;
}

static int cmp_stats(const void *pa, const void *pb, void *arg)
{
    const struct graph_stat *a = pa, *b = pb;

    return cmp_by_total(arg, a->total, a->addr, b->total, b->addr);
}

void graphout_sort(const struct graph *g, struct graph_stat *s, size_t n)
{
    if (n)
        qsort_r(s, n, sizeof *s, cmp_stats, (void *)g);
}

static int cmp_callers(const void *pa, const void *pb, void *arg)
{
    const struct graph_caller *a = pa, *b = pb;

    return cmp_by_total(arg, a->total, a->addr, b->total, b->addr);
}

static void caller_name(const struct graph *g, uint64_t addr, char *buf, size_t len)
{
    uint64_t bias;
    const struct sym_table *sym = graph_sym(g, &bias);

    if (addr == GRAPH_CALLER_BOTTOM)
        snprintf(buf, len, "(none: the bottom of the stack)");
    else if (!addr)
        snprintf(buf, len, "(unknown: entered before the trace)");
    else
        fmt_addr(sym, bias, addr, buf, len);
}

static int print_callers(const struct graph *g, FILE *out, uint64_t hz)
{
    size_t k;
    const struct graph_caller *callers = graph_callers(g, &k);
    struct graph_caller *v = NULL;

    if (k && !(v = malloc(k * sizeof *v)))
        return -1;
    fprintf(out, "========== CALLERS ==========\n");
    fprintf(out, "#    CALLS        TOTAL   FUNCTION\n");
    if (!k)
        return 0;
    memcpy(v, callers, k * sizeof *v); /* sorted apart: the graph's index holds the positions */
    qsort_r(v, k, sizeof *v, cmp_callers, (void *)g);
    for (size_t i = 0; i < k; i++) {
        char t[32], name[256];

        fmt_duration(v[i].total, hz, t, sizeof t);
        caller_name(g, v[i].addr, name, sizeof name);
        fprintf(out, "%10" PRIu64 " %12s   %s\n", v[i].calls, t, name);
    }
    free(v);
    return 0;
}

static int cmp_nodes(const void *pa, const void *pb, void *arg)
{
    const struct graph *g = arg;
    const struct graph_node *a = graph_node(g, *(const uint32_t *)pa);
    const struct graph_node *b = graph_node(g, *(const uint32_t *)pb);

    return cmp_by_total(g, a->total, a->addr, b->total, b->addr);
}

/* A node's children in the order they are shown; *n gets their number. NULL when none (or
 * out of memory: *n = SIZE_MAX). */
static uint32_t *children(const struct graph *g, uint32_t node, size_t *n)
{
    uint32_t *v;
    size_t k = 0;

    *n = 0;
    for (uint32_t c = graph_node(g, node)->first; c != GRAPH_NONE; c = graph_node(g, c)->next)
        k++;
    if (!k)
        return NULL;
    if (!(v = malloc(k * sizeof *v))) {
        *n = SIZE_MAX;
        return NULL;
    }
    k = 0;
    for (uint32_t c = graph_node(g, node)->first; c != GRAPH_NONE; c = graph_node(g, c)->next)
        v[k++] = c;
    qsort_r(v, k, sizeof *v, cmp_nodes, (void *)g);
    *n = k;
    return v;
}

static void print_node(const struct graph *g, FILE *out, uint64_t hz, uint32_t node,
                       const char *prefix, size_t plen, const char *mark)
{
    const struct graph_node *n = graph_node(g, node);
    char t[32], s[32], name[256];
    uint64_t bias;
    const struct sym_table *sym = graph_sym(g, &bias);

    fmt_duration(n->total, hz, t, sizeof t);
    fmt_duration(n->self, hz, s, sizeof s);
    fmt_addr(sym, bias, n->addr, name, sizeof name);
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
static int print_callees(const struct graph *g, FILE *out, uint64_t hz, uint32_t root)
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
        if (vec_grow(&st, &cap, top, sizeof *st, 64) < 0) {
            free(kids);
            goto out;
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
            while (pcap < w->plen + 4)
                if (vec_grow(&prefix, &pcap, pcap, 1, 256) < 0)
                    goto out;
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

int graphout_print(const struct graph *g, const struct graph_stat *s, FILE *out, uint64_t hz,
                   unsigned flags)
{
    uint32_t root = graph_root(g, s->addr);

    if ((flags & GRAPHOUT_CALLERS) && graph_func(g)) {
        if (print_callers(g, out, hz) < 0)
            return -1;
        if (flags & GRAPHOUT_CALLEES)
            fprintf(out, "\n");
    }
    if ((flags & GRAPHOUT_CALLEES) && root != GRAPH_NONE)
        return print_callees(g, out, hz, root);
    return 0;
}

char *graphout_pane(struct graph *g, uint64_t hz, unsigned max_nodes)
{
    char *text = NULL;
    size_t len = 0, n = 0;
    FILE *f;
    const struct graph_stat *st;

    if (!(f = open_memstream(&text, &len)))
        return NULL;
    st = graph_stats(g, &n);
    if (n && st)
        graphout_print(g, st, f, hz, GRAPHOUT_CALLERS | GRAPHOUT_CALLEES);
    else
        fprintf(f, "# not called since it was chosen\n");
    if (graph_left_out(g))
        fprintf(f, "# %" PRIu64 " calls past the graph's %u nodes are only in their callers' "
                   "time\n", graph_left_out(g), max_nodes);
    fclose(f);
    return text;
}
