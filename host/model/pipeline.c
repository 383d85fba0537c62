/* SPDX-License-Identifier: GPL-3.0-or-later */
/* pipeline.c - contexts' chains and the passes that feed them.
 *
 * Passes over the trace, all in bounded memory: one that learns the contexts (and how deep
 * each trace starts), then those that build the trees. A dump is re-read rather than held:
 * hundreds of millions of events do not fit, a few passes do. */
#include "model/pipeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/names.h"

uint64_t pipeline_func_of(void *arg, uint64_t addr)
{
    const struct pipeline_resolver *r = arg;
    const struct sym_info *s = r->sym ? sym_lookup(r->sym, addr - r->bias) : NULL;

    return s ? s->start + r->bias : 0;
}

int pipeline_chain_open(struct pipeline_chain *c, const struct tree_sink *sink,
                        const struct filter_opts *fo, unsigned start_depth,
                        tree_func_of func_of, void *arg)
{
    memset(c, 0, sizeof *c);
    if (!(c->filter = filter_new(sink, fo)))
        return -1;
    c->tree = tree_new(filter_active(fo) ? filter_sink(c->filter) : sink, start_depth, func_of,
                       arg);
    if (c->tree) {
        tree_set_hook_cost(c->tree, &fo->hook);
        return 0;
    }
    pipeline_chain_close(c);
    return -1;
}

void pipeline_chain_close(struct pipeline_chain *c)
{
    tree_free(c->tree);
    filter_free(c->filter);
    memset(c, 0, sizeof *c);
}

/* Finishes the chain's tree and adds what it skipped to t. */
static void chain_finish(struct pipeline_chain *c, struct pipeline_tally *t)
{
    tree_finish(c->tree);
    t->unmatched += tree_unmatched(c->tree);
    t->values += tree_stray_values(c->tree);
    t->forced += filter_forced(c->filter);
}

void pipeline_scan_threads(const struct load *l, struct tree_scan *sc)
{
    for (unsigned i = 0; i < sc->n; i++) {
        struct dec_ctx *c = &sc->ctx[i];
        int vfork = 0;
        uint32_t tid;

        if (!c->os_tid && l->ring.word_bytes == 8 &&
            (tid = modmap_thread(l->map, c->id, &vfork)) != 0) {
            c->os_tid = tid;
            c->vfork = vfork;
        }
    }
}

/* Whether the first function entered at run-time address a starts a function of the ELF (none
 * without one). */
static unsigned starts_function(const struct load *l, uint64_t a)
{
    const struct sym_info *s = l->sym ? sym_lookup(l->sym, a - l->ring.load_bias) : NULL;

    return s && s->start == a - l->ring.load_bias;
}

/* A ring, every event counted: dec_count, several times faster than events one by one. 0, -1
 * on a read error or out of memory, or 1 when the pass goes event by event (a stream). */
static int scan_fast(struct load *l, struct tree_scan *sc, unsigned *checked, unsigned *known)
{
    struct dec_counts c = {.want_index = sc->want_index, .names = l->names};
    int rc = source_count(l->source, &c);

    if (rc == 0) { /* the scan takes the contexts (and the index) over */
        tree_scan_free(sc);
        *sc = (struct tree_scan){.ctx = c.ctx, .n = c.n, .cap = c.cap, .ctx_ix = c.ctx_ix,
                                 .want_index = c.want_index, .index = c.index};
        c.ctx = NULL;
        c.ctx_ix = (struct oaindex){0};
        c.index = (struct dec_index){0};
    }
    dec_index_free(&c.index);
    for (unsigned i = 0; rc == 0 && i < c.n_first; i++) {
        (*checked)++;
        *known += starts_function(l, c.first[i]);
    }
    dec_ctx_free(c.ctx, c.n, &c.ctx_ix);
    return rc;
}

/* The names go into l->names: the fast pass hands them the NAME and CONTEXT records it
 * decodes anyway (specials are decoded one by one there), the other pass every event. */
int pipeline_scan(struct load *l, struct filter_time ft, struct tree_scan *sc,
                  struct source_stats *st, unsigned *checked, unsigned *known)
{
    struct ev e;
    int rc = 1;

    if (source_rewind(l->source) < 0)
        return -1;
    if (!ft.on) /* every event counts */
        rc = scan_fast(l, sc, checked, known);
    while (rc > 0 && (rc = source_next(l->source, &e, NULL, 0)) > 0) {
        /* a name given before the time range still names what is in it */
        if (e.kind == EV_NAME || e.kind == EV_CONTEXT || e.kind == EV_SCHED || e.kind == EV_LOST)
            names_feed(l->names, &e, l->ring.word_bytes);
        if (!filter_time_keep(&ft, &e))
            continue;
        if (e.kind == EV_ENTER && *checked < DEC_COUNT_FIRST) {
            (*checked)++;
            *known += starts_function(l, e.addr);
        }
        if (tree_scan_add(sc, &e) < 0)
            rc = -1;
    }
    source_stats(l->source, st);
    pipeline_scan_threads(l, sc);
    return rc;
}

int pipeline_ctx(struct load *l, const struct tree_scan *sc, const struct dec_ctx *c,
                 const struct tree_sink *sink, const struct filter_opts *fo,
                 struct filter_time ft, struct pipeline_tally *t)
{
    struct pipeline_resolver res = {l->sym, l->ring.load_bias};
    struct pipeline_chain ch = {0};
    struct ev e;
    int rc = -1;

    if (source_rewind(l->source) < 0 ||
        pipeline_chain_open(&ch, sink, fo, (unsigned)-c->min_depth, pipeline_func_of, &res) < 0)
        goto out;
    if (sc->n > 1) /* the other contexts' records: passed over, or not even read */
        source_only(l->source, c->id, &sc->index, c->segs);
    while ((rc = source_next(l->source, &e, NULL, 0)) > 0)
        if (e.ctx == c->id && filter_time_keep(&ft, &e) && tree_feed(ch.tree, &e) < 0) {
            rc = -1;
            break;
        }
    if (rc == 0)
        chain_finish(&ch, t);
out:
    pipeline_chain_close(&ch);
    return rc;
}

/* The pass that feeds every chain: ch[i] is the chain of sc's context i (none: no tree).
 * -1 on a read error or out of memory. */
static int feed(struct load *l, const struct tree_scan *sc, struct filter_time ft,
                struct pipeline_chain *ch)
{
    struct tree *t = NULL; /* the chain of context id, NULL: none */
    struct ev e;
    uint64_t id = UINT64_MAX; /* no context yet */
    int rc;

    if (source_rewind(l->source) < 0)
        return -1;
    while ((rc = source_next(l->source, &e, NULL, 0)) > 0) {
        if (!filter_time_keep(&ft, &e))
            continue;
        /* a context's events come in runs: look it up where it changes (a crafted dump may
         * have hundreds of thousands of contexts, which a search through them made quadratic) */
        if (e.ctx != id) {
            size_t pos = dec_ctx_find(sc->ctx, &sc->ctx_ix, e.ctx);

            t = pos == SIZE_MAX ? NULL : ch[pos].tree;
            id = e.ctx;
        }
        if (!t)
            continue; /* not a context asked for */
        if (tree_feed(t, &e) < 0) {
            rc = -1;
            break;
        }
    }
    return rc;
}

int pipeline_run(struct load *l, const struct tree_scan *sc, const struct filter_opts *fo,
                 struct filter_time ft, const uint32_t *only, pipeline_sink_of sink_of,
                 void *arg, struct pipeline_tally *t, char *err, size_t errlen)
{
    struct pipeline_resolver res = {l->sym, l->ring.load_bias};
    struct pipeline_chain *ch = calloc(sc->n + 1, sizeof *ch);
    const char *name = source_name(l->source);
    unsigned n = 0;
    int rc = -1;

    if (!ch)
        goto oom;
    for (unsigned i = 0; i < sc->n; i++) {
        const struct dec_ctx *c = &sc->ctx[i];
        const struct tree_sink *s;

        if (!c->events || (only && c->id != *only))
            continue;
        if (!(s = sink_of(arg, c)) ||
            pipeline_chain_open(&ch[i], s, fo, (unsigned)-c->min_depth, pipeline_func_of,
                                &res) < 0)
            goto oom;
        n++;
    }
    if (n && feed(l, sc, ft, ch) < 0) {
        snprintf(err, errlen, "%s: read error", name);
        goto out;
    }
    for (unsigned i = 0; i < sc->n; i++)
        if (ch[i].tree)
            chain_finish(&ch[i], t);
    rc = (int)n;
    goto out;
oom:
    snprintf(err, errlen, "%s: out of memory", name);
out:
    for (unsigned i = 0; ch && i < sc->n; i++)
        pipeline_chain_close(&ch[i]);
    free(ch);
    return rc;
}
