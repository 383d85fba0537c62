/* SPDX-License-Identifier: GPL-3.0-or-later */
/* vlines.c - the live view's model: lines of the call trees, fed by tree sinks, and the
 * function table behind them.
 *
 * Lines live in a ring of max; a line refers to its enclosing call's line by id (ids only
 * grow), so a dropped line is simply one whose id is older than the oldest kept. Whether a line
 * is shown (not folded away, inside the filter) depends on its ancestors only; it is worked out
 * once per line and kept until a fold or the filter changes (a generation number), so scrolling
 * through 200000 lines stays cheap. */
#include "model/vlines.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/graph.h"
#include "model/pipeline.h"
#include "output/fmt.h"
#include "model/tee.h"
#include "model/tree.h"
#include "symbols/wsig.h"
#include "util/vec.h"

#define VLINES_CTX_MAX 1024u /* contexts shown; events of more are counted, not shown */
#define NOT_KEPT UINT64_MAX  /* a line reference: made while paused with no room left */

enum line_kind { LN_CALL, LN_CLOSE, LN_TEXT };

#define MEMO_HIDDEN 1u /* inside a folded call */
#define MEMO_MATCH 2u  /* inside a call the filter names (or no filter) */

struct vline {
    uint64_t addr;     /* function (link-time) */
    uint64_t dur;      /* ticks, once VLINES_DONE */
    uint64_t parent;   /* the enclosing call's line id + 1; 0: none */
    uint64_t done_at;  /* the line count when it ended: a paused screen shows it running */
    char *text;        /* LN_TEXT */
    uint32_t ctx;
    uint32_t depth;
    uint32_t memo_gen; /* memo is valid when it equals the model's gen */
    uint8_t kind, flags, memo;
};

struct vlevel {
    uint64_t line; /* id + 1 of the call line at this depth; 0: none */
};

struct vctx {
    struct vlines *m;
    uint32_t id;
    struct pipeline_chain ch; /* its tree (no filter: the view filters what it shows) */
    struct tee tee;           /* what the tree feeds: table, graph, then sink (wire_sinks) */
    struct tree_sink sink;    /* the lines */
    const struct tree_sink *table, *graph; /* this context's sinks of the table and of the
                                              graph (vlines_graph); NULL: none */
    struct vlevel *stk;
    unsigned n;
    size_t cap;
    int stopped; /* a STOP came: say so when recording starts again */
};

struct vlines {
    struct vlines_conf conf;
    struct pipeline_resolver res; /* the trees' call-site repair: conf.sym, link-time */
    struct vline *lines;
    uint64_t max;         /* lines kept at most */
    uint64_t first, next; /* ids kept: first .. next - 1 */
    struct vctx **ctx;
    unsigned nctx;
    size_t ctx_cap;
    struct vctx *last_ctx;
    int ctx_overflow;
    struct fnstat *fs;
    struct graph *g;     /* the graph of one function, from its choice on (vlines_graph) */
    uint64_t fault_line; /* id + 1 of a fault line waiting for its LR record */
    struct ev fault;
    int paused;
    uint64_t pause_next;     /* the line count at the pause: newer lines wait */
    uint64_t not_kept;       /* lines not kept while paused (full), not said yet */
    struct fnstat_row *snap; /* the table at the pause */
    size_t nsnap;
    enum fnstat_key snap_key, rows_key; /* how snap is sorted; the key last asked for */
    char filter[VLINES_FILTER_MAX];
    uint32_t gen;    /* bumps when a fold or the filter changes */
    uint64_t *chain; /* scratch for the memo walk */
    size_t chain_cap;
    struct names *names; /* what the NAME and CONTEXT records said so far; NULL: no memory */
    struct tree_hook hook; /* taken out of every tree's times (vlines_set_hook_cost) */
    char hook_note[VLINES_NOTE_MAX]; /* the line that says so; "": none */
};

/* ---------------------------------------------------------------------------------------- */
/* the store */

static struct vline *line_at(const struct vlines *m, uint64_t id)
{
    return &m->lines[id % m->max];
}

/* The line id + 1 (as stored in parent and levels), or NULL when it was dropped. */
static struct vline *line_ref(const struct vlines *m, uint64_t ref)
{
    return ref && ref - 1 >= m->first && ref - 1 < m->next ? line_at(m, ref - 1) : NULL;
}

/* Adds a line; returns its reference (id + 1), or NOT_KEPT when the lines are full and paused:
 * the lines a paused screen shows are not dropped, the new ones wait for no one. */
static uint64_t add_line(struct vlines *m, const struct vline *src)
{
    uint64_t id = m->next;
    struct vline *l;

    if (m->next - m->first == m->max) {
        if (m->paused) {
            free(src->text);
            m->not_kept++;
            return NOT_KEPT;
        }
        free(line_at(m, m->first)->text);
        if (line_at(m, m->first)->flags & VLINES_FOLD)
            m->gen++; /* the lines it hid are shown again */
        m->first++;
    }
    l = line_at(m, id);
    *l = *src;
    l->memo_gen = 0; /* gen starts at 1: not worked out yet */
    m->next++;
    return id + 1;
}

static uint64_t add_text(struct vlines *m, uint32_t ctx, unsigned depth, uint64_t parent,
                         int alert, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static uint64_t add_text(struct vlines *m, uint32_t ctx, unsigned depth, uint64_t parent,
                         int alert, const char *fmt, ...)
{
    struct vline l = {.kind = LN_TEXT, .ctx = ctx, .depth = depth, .parent = parent,
                      .flags = (uint8_t)(alert ? VLINES_ALERT : 0)};
    va_list ap;

    va_start(ap, fmt);
    if (vasprintf(&l.text, fmt, ap) < 0)
        l.text = NULL;
    va_end(ap);
    l.done_at = m->next;
    return add_line(m, &l);
}

/* A call whose end will not be seen: its line stays as it is, marked. */
static void end_unknown(struct vlines *m, uint64_t ref)
{
    struct vline *l = line_ref(m, ref);

    if (l && !(l->flags & VLINES_DONE)) {
        l->flags |= VLINES_DONE | VLINES_LOSTEND;
        l->done_at = m->next;
    }
}

/* ---------------------------------------------------------------------------------------- */
/* the trees' sink: lines as calls come and go */

/* Levels from depth up that still hold a call vanished from the tree without an exit (a loss
 * made them unknown and a later exit went below them). */
static void drop_levels(struct vctx *c, unsigned depth)
{
    for (unsigned k = depth; k < c->n && k < c->cap; k++) {
        end_unknown(c->m, c->stk[k].line);
        c->stk[k].line = 0;
    }
    if (c->n > depth)
        c->n = depth;
}

static uint64_t parent_of(struct vctx *c, unsigned depth)
{
    return depth && depth - 1 < c->n ? c->stk[depth - 1].line : 0;
}

static void sk_enter(void *arg, const struct tree_frame *f, unsigned depth)
{
    struct vctx *c = arg;
    struct vlines *m = c->m;
    struct vline l = {.kind = LN_CALL, .addr = f->addr, .ctx = c->id, .depth = depth};
    struct vline *p;

    drop_levels(c, depth);
    if (vec_reach(&c->stk, &c->cap, depth, sizeof *c->stk, 64) < 0)
        return;
    l.parent = parent_of(c, depth);
    if ((p = line_ref(m, l.parent)))
        p->flags |= VLINES_KIDS;
    c->stk[depth].line = add_line(m, &l);
    c->n = depth + 1;
}

static void sk_exit(void *arg, const struct tree_frame *f, unsigned depth, uint64_t t_exit,
                    enum tree_exit_how how)
{
    struct vctx *c = arg;
    struct vlines *m = c->m;
    uint64_t ref = depth < c->n ? c->stk[depth].line : 0;
    struct vline *l = line_ref(m, ref);
    struct vline close = {.kind = LN_CLOSE, .addr = f->addr, .ctx = c->id, .depth = depth,
                          .parent = ref, .done_at = m->next};

    drop_levels(c, depth + 1);
    if (ref == NOT_KEPT) {
        /* made while paused with no room: there is nothing to close */
    } else if (ref && how != TREE_BEFORE_TRACE && (!l || l->addr == f->addr)) {
        /* The call shown at entry ends: its duration on its line; a closing line when calls
         * came under it, or when its line is gone (it carries the duration then). */
        uint8_t fl = VLINES_DONE | (tree_never_returned(how) ? VLINES_NORET : 0);
        uint64_t dur = how == TREE_RETURNED ? tree_span(f->t_enter, t_exit) : 0;

        if (l) {
            l->flags |= fl;
            l->dur = dur;
            l->done_at = m->next;
        }
        if (!l || (l->flags & VLINES_KIDS)) {
            close.flags = fl;
            close.dur = dur;
            add_line(m, &close);
        }
    } else {
        /* Entered before the trace or a loss: only its end is seen. A call this level showed
         * before the loss never ended, as far as anyone can tell. */
        struct vline *p;

        end_unknown(m, ref);
        close.parent = parent_of(c, depth);
        close.flags = VLINES_DONE | VLINES_BEFORE | (f->entry_lost ? VLINES_INLOSS : 0);
        if ((p = line_ref(m, close.parent)))
            p->flags |= VLINES_KIDS; /* the closing line sits under it */
        add_line(m, &close);
    }
    if (depth < c->n)
        c->stk[depth].line = 0;
    c->n = depth < c->n ? depth : c->n;
}

/* A wrapped call's values came: its line's text becomes "(a=2, b=3)", then a newline and the
 * return value's text when it has come ("(a=2, b=3)\n5"): vlines_text puts them together. */
static void sk_values(void *arg, const struct tree_frame *f, unsigned depth)
{
    struct vctx *c = arg;
    const struct wsig_fn *sig = sym_wrapped_sig(c->m->conf.sym, f->addr);
    const struct wval *ret = wval_ret(f->vals);
    struct vline *l = line_ref(c->m, depth < c->n ? c->stk[depth].line : 0);
    char args[1024], rt[600];

    if (!l || l->kind != LN_CALL || l->addr != f->addr)
        return;
    wval_args_text(f->vals, sig, args, sizeof args);
    rt[0] = '\0';
    if (ret)
        wval_text(ret, sig ? &sig->ret : NULL, rt, sizeof rt);
    free(l->text);
    if (asprintf(&l->text, "(%s)%s%s", args, ret ? "\n" : "", rt) < 0)
        l->text = NULL;
}

static void sk_special(void *arg, const struct ev *e, unsigned depth)
{
    struct vctx *c = arg;
    struct vlines *m = c->m;
    uint64_t parent = parent_of(c, depth);
    char buf[600];

    switch (e->kind) {
    case EV_FAULT:
        fmt_fault(m->conf.sym, m->conf.bias, m->conf.addr_width, e, NULL, buf, sizeof buf);
        m->fault_line = add_text(m, c->id, 0, 0, 1, "%s", buf);
        m->fault = *e;
        break;
    case EV_FAULT_LR: {
        struct vline *l = line_ref(m, m->fault_line);

        if (l && l->kind == LN_TEXT) {
            /* the fault line as the text tree shows it */
            fmt_fault(m->conf.sym, m->conf.bias, m->conf.addr_width, &m->fault, e, buf, sizeof buf);
            free(l->text);
            l->text = strdup(buf);
        }
        m->fault_line = 0;
        break;
    }
    case EV_MARK:
        fmt_mark(e, buf, sizeof buf);
        add_text(m, c->id, depth, parent, 0, "# %s", buf);
        break;
    case EV_TRIGGER: {
        /* An alert: where the recording was started, stopped or frozen is always shown. The
         * live view has no control area to name it by: the record's index, kind and place. */
        struct fmt_namer nm = {m->conf.sym, m->conf.bias, m->conf.addr_width == 8, {0}};

        fmt_trigger(&nm, NULL, e, buf, sizeof buf);
        add_text(m, c->id, 0, 0, 1, "*** %s", buf);
        break;
    }
    case EV_STOP:
        c->stopped = 1;
        add_text(m, c->id, depth, parent, 0, "# recording stopped");
        break;
    case EV_START:
        if (c->stopped)
            add_text(m, c->id, depth, parent, 0,
                     "# recording started again: calls in between are not in the trace");
        c->stopped = 0;
        break;
    case EV_SCHED:
        fmt_sched(m->names, m->conf.sym, m->conf.bias, e, buf, sizeof buf);
        add_text(m, c->id, depth, parent, 0, "-- %s", buf);
        break;
    case EV_UNKNOWN:
        add_text(m, c->id, depth, parent, 0, "# special record of unknown type %u", e->data);
        break;
    default: /* EV_CONTEXT, EV_THREAD: the context column says it; EV_LOST: one line for all */
        break;
    }
}

static void sk_finish(void *arg, const struct tree_frame *stack, unsigned n)
{
    struct vctx *c = arg;

    (void)stack, (void)n;
    drop_levels(c, 0);
}

/* What c's tree feeds, in this order: the table, the graph, the lines. */
static void wire_sinks(struct vctx *c)
{
    tee_init(&c->tee);
    if (c->table)
        tee_add(&c->tee, c->table);
    if (c->graph)
        tee_add(&c->tee, c->graph);
    tee_add(&c->tee, &c->sink);
}

/* Starts c's tree. Live, the depth the trace starts at is unknown: exits of calls made before
 * it match nothing and are not shown. */
static int start_tree(struct vctx *c)
{
    struct filter_opts none = {.hook = c->m->hook}; /* no filter; the hooks' cost, if any */

    if (pipeline_chain_open(&c->ch, &c->tee.sink, &none, 0, pipeline_func_of, &c->m->res) < 0)
        return -1;
    tree_set_value_bias(c->ch.tree, c->m->conf.bias);
    return 0;
}

static struct vctx *ctx_get(struct vlines *m, uint32_t id)
{
    struct vctx *c;

    if (m->last_ctx && m->last_ctx->id == id)
        return m->last_ctx;
    for (unsigned i = 0; i < m->nctx; i++)
        if (m->ctx[i]->id == id)
            return m->last_ctx = m->ctx[i];
    if (m->nctx == VLINES_CTX_MAX) {
        if (!m->ctx_overflow)
            add_text(m, VLINES_NO_CTX, 0, 0, 1,
                     "*** more than %u contexts: the others are not shown", VLINES_CTX_MAX);
        m->ctx_overflow = 1;
        return NULL;
    }
    if (vec_grow(&m->ctx, &m->ctx_cap, m->nctx, sizeof *m->ctx, 8) < 0 ||
        !(c = calloc(1, sizeof *c)))
        return NULL;
    c->m = m;
    c->id = id;
    c->sink = (struct tree_sink){c, sk_enter, sk_exit, sk_special, sk_finish, sk_values};
    c->table = m->fs ? fnstat_sink(m->fs, id) : NULL;
    c->graph = m->g ? graph_sink(m->g, id) : NULL;
    wire_sinks(c);
    if (start_tree(c) < 0) {
        free(c);
        return NULL;
    }
    m->ctx[m->nctx++] = c;
    return m->last_ctx = c;
}

/* Every context's tree ends here (its open calls stay as they were shown). */
static void end_trees(struct vlines *m)
{
    for (unsigned i = 0; i < m->nctx; i++) {
        struct vctx *c = m->ctx[i];

        tree_finish(c->ch.tree);
        pipeline_chain_close(&c->ch);
        c->stopped = 0;
    }
    m->fault_line = 0;
}

static void drop_snap(struct vlines *m)
{
    free(m->snap);
    m->snap = NULL;
    m->nsnap = 0;
}

/* ---------------------------------------------------------------------------------------- */
/* events in */

struct vlines *vlines_new(uint64_t max)
{
    struct vlines *m = calloc(1, sizeof *m);

    if (!m || !max || !(m->lines = calloc(max, sizeof *m->lines))) {
        free(m);
        return NULL;
    }
    m->max = max;
    m->gen = 1;
    m->names = names_new(); /* without, contexts go by their numbers */
    return m;
}

int vlines_configure(struct vlines *m, const struct sym_table *sym, uint64_t bias,
                     uint64_t ts_hz, int has_time, unsigned addr_width)
{
    int anew = 0;

    names_set_symbols(m->names, sym, bias);
    if (m->conf.configured) {
        end_trees(m);
        add_text(m, VLINES_NO_CTX, 0, 0, 0,
                 "# the trace starts over (a new description of the stream)");
    }
    if (!m->fs || sym != m->conf.sym) {
        /* the table's names point into the symbol table: a new one, a new table */
        fnstat_free(m->fs);
        m->fs = fnstat_new(sym, 0);
        for (unsigned i = 0; i < m->nctx; i++)
            m->ctx[i]->table = m->fs ? fnstat_sink(m->fs, m->ctx[i]->id) : NULL;
        drop_snap(m);
        vlines_graph(m, 0); /* its names point into the symbol table too; wires the sinks */
        anew = 1;
    }
    m->conf = (struct vlines_conf){.configured = 1, .sym = sym, .bias = bias, .ts_hz = ts_hz,
                                   .has_time = has_time, .addr_width = addr_width};
    m->res.sym = sym; /* link-time addresses: the bias stays 0 */
    /* the trees start anew once the new configuration is stored: their value bias is its */
    for (unsigned i = 0; i < m->nctx; i++)
        start_tree(m->ctx[i]); /* out of memory: the context shows nothing more */
    return anew;
}

void vlines_set_hook_cost(struct vlines *m, const struct tree_hook *h, const char *note)
{
    m->hook = h && h->cost ? *h : (struct tree_hook){0};
    snprintf(m->hook_note, sizeof m->hook_note, "%s", m->hook.cost && note ? note : "");
    for (unsigned i = 0; i < m->nctx; i++)
        if (m->ctx[i]->ch.tree)
            tree_set_hook_cost(m->ctx[i]->ch.tree, &m->hook);
}

const char *vlines_hook_note(const struct vlines *m)
{
    return m->hook_note[0] ? m->hook_note : NULL;
}

const struct vlines_conf *vlines_conf(const struct vlines *m)
{
    return &m->conf;
}

void vlines_event(struct vlines *m, const struct ev *e)
{
    struct vctx *c;
    struct ev t;

    if (!m->conf.configured)
        return;
    if (m->names)
        names_feed(m->names, e, m->conf.addr_width == 8 ? 4 : 8);
    if (e->kind == EV_LOST) {
        /* The records lost may have been any context's: every tree is told. */
        add_text(m, VLINES_NO_CTX, 0, 0, 1, "*** %" PRIu64 " events lost (%s)", e->addr,
                 e->data == EV_LOST_LINK ? "link" : "target");
        for (unsigned i = 0; i < m->nctx; i++)
            if (m->ctx[i]->ch.tree)
                tree_feed(m->ctx[i]->ch.tree, e);
        return;
    }
    if (!(c = ctx_get(m, e->ctx)) || !c->ch.tree)
        return;
    t = *e;
    if (t.kind == EV_ENTER || t.kind == EV_EXIT) {
        t.addr -= m->conf.bias;
        if (t.site)
            t.site -= m->conf.bias;
    }
    tree_feed(c->ch.tree, &t);
    tree_sync(c->ch.tree); /* a call shows as it is entered; its values follow (sk_values) */
}

unsigned vlines_contexts(const struct vlines *m)
{
    return m->nctx;
}

const char *vlines_ctx_name(const struct vlines *m, uint32_t id, char *buf, size_t len)
{
    if (id == VLINES_NO_CTX || !m->names)
        return NULL;
    return names_ctx_called(m->names, m->conf.sym, m->conf.bias, id, 0, buf, len);
}

const struct names *vlines_names(const struct vlines *m)
{
    return m->names;
}

/* ---------------------------------------------------------------------------------------- */
/* a line */

uint64_t vlines_first(const struct vlines *m)
{
    return m->first;
}

uint64_t vlines_end(const struct vlines *m)
{
    return m->next;
}

uint32_t vlines_ctx(const struct vlines *m, uint64_t id)
{
    return line_at(m, id)->ctx;
}

unsigned vlines_depth(const struct vlines *m, uint64_t id)
{
    const struct vline *l = line_at(m, id);

    return l->kind == LN_TEXT && (l->flags & VLINES_ALERT) ? 0 : l->depth;
}

unsigned vlines_flags(const struct vlines *m, uint64_t id)
{
    const struct vline *l = line_at(m, id);
    int paused_run = m->paused && l->done_at > m->pause_next; /* ended after the pause */

    return paused_run ? l->flags & ~(VLINES_DONE | VLINES_NORET | VLINES_LOSTEND) : l->flags;
}

int vlines_dur(const struct vlines *m, uint64_t id, uint64_t *ticks)
{
    const struct vline *l = line_at(m, id);
    unsigned flags = vlines_flags(m, id);
    int own = l->kind == LN_CALL || (l->kind == LN_CLOSE && !line_ref(m, l->parent));

    if (!own || !(flags & VLINES_DONE) ||
        (flags & (VLINES_NORET | VLINES_LOSTEND | VLINES_BEFORE)))
        return 0;
    *ticks = l->dur;
    return 1;
}

static void name_of(const struct vlines *m, uint64_t addr, char *buf, size_t len)
{
    fmt_addr(m->conf.sym, 0, addr, buf, len);
}

void vlines_text(const struct vlines *m, uint64_t id, char *buf, size_t len)
{
    const struct vline *l = line_at(m, id);
    unsigned flags = vlines_flags(m, id);
    char nb[256];
    size_t n;

    switch (l->kind) {
    case LN_CALL: {
        /* a wrapped call's "(a=2)", and its return value after a newline (sk_values) */
        const char *args = l->text ? l->text : "()", *nl = strchr(args, '\n');
        int alen = nl ? (int)(nl - args) : (int)strlen(args);
        const char *ret = nl && !(flags & VLINES_KIDS) ? nl + 1 : NULL;

        name_of(m, l->addr, nb, sizeof nb);
        if ((flags & VLINES_KIDS) && (flags & VLINES_FOLD))
            snprintf(buf, len, "%s%.*s { ... }", nb, alen, args);
        else if (flags & VLINES_KIDS)
            snprintf(buf, len, "%s%.*s {", nb, alen, args);
        else
            snprintf(buf, len, "%s%.*s%s%s%s", nb, alen, args, ret ? " = " : "", ret ? ret : "",
                     flags & VLINES_DONE ? ";" : "");
        break;
    }
    case LN_CLOSE: {
        const struct vline *p = line_ref(m, l->parent);
        const char *nl = p && p->kind == LN_CALL && p->text ? strchr(p->text, '\n') : NULL;

        name_of(m, l->addr, nb, sizeof nb);
        if (nl)
            snprintf(buf, len, "} = %s; /* %s */", nl + 1, nb);
        else
            snprintf(buf, len, "} /* %s */", nb);
        break;
    }
    default:
        snprintf(buf, len, "%s", l->text ? l->text : "?");
        break;
    }
    n = strlen(buf);
    if (flags & VLINES_NORET)
        snprintf(buf + n, len - n, "  (never returned)");
    else if (flags & VLINES_INLOSS)
        snprintf(buf + n, len - n, "  (entered while events were lost)");
    else if (flags & VLINES_BEFORE)
        snprintf(buf + n, len - n, "  (entered before the trace)");
    else if (flags & VLINES_LOSTEND)
        snprintf(buf + n, len - n, "  (end not seen)");
}

/* ---------------------------------------------------------------------------------------- */
/* what is shown: folds, the filter, the pause */

int vlines_fold(struct vlines *m, uint64_t *id)
{
    struct vline *l, *p;

    if (*id < m->first || *id >= m->next)
        return -1;
    l = line_at(m, *id);
    if (l->kind == LN_CLOSE && (p = line_ref(m, l->parent)) && p->kind == LN_CALL) {
        *id = l->parent - 1;
        l = p;
    }
    if (l->kind != LN_CALL || !(l->flags & VLINES_KIDS))
        return -1;
    l->flags ^= VLINES_FOLD;
    m->gen++;
    return 0;
}

void vlines_set_filter(struct vlines *m, const char *text)
{
    if (!text)
        text = "";
    if (strncmp(m->filter, text, sizeof m->filter - 1)) {
        snprintf(m->filter, sizeof m->filter, "%s", text);
        m->gen++;
    }
}

const char *vlines_filter(const struct vlines *m)
{
    return m->filter;
}

static unsigned memo_of(struct vlines *m, uint64_t id)
{
    size_t n = 0;
    uint64_t cur = id;

    /* Walk up to a line already worked out or to the top, then work the chain out downwards:
     * each line from its parent's memo. */
    for (;;) {
        struct vline *l = line_at(m, cur);

        if (l->memo_gen == m->gen)
            break;
        if (vec_grow(&m->chain, &m->chain_cap, n, sizeof *m->chain, 256) < 0)
            return MEMO_MATCH; /* out of memory: shown */
        m->chain[n++] = cur;
        if (!line_ref(m, l->parent))
            break;
        cur = l->parent - 1;
    }
    while (n--) {
        struct vline *l = line_at(m, m->chain[n]);
        struct vline *p = line_ref(m, l->parent);
        unsigned memo = 0;

        if (p) {
            memo |= (p->flags & VLINES_FOLD) || (p->memo & MEMO_HIDDEN) ? MEMO_HIDDEN : 0;
            memo |= p->memo & MEMO_MATCH;
        }
        if (!m->filter[0] || (l->flags & VLINES_ALERT)) {
            memo |= MEMO_MATCH;
        } else if (!(memo & MEMO_MATCH) && l->kind == LN_CALL) {
            char nb[256];

            name_of(m, l->addr, nb, sizeof nb);
            if (strstr(nb, m->filter))
                memo |= MEMO_MATCH;
        }
        l->memo = (uint8_t)memo;
        l->memo_gen = m->gen;
    }
    return line_at(m, id)->memo;
}

/* The newest line the screen may show, + 1: a paused screen waits. */
static uint64_t limit_of(const struct vlines *m)
{
    return m->paused ? m->pause_next : m->next;
}

static int visible(struct vlines *m, uint64_t id)
{
    return memo_of(m, id) == MEMO_MATCH;
}

int vlines_shown(struct vlines *m, uint64_t id)
{
    return id != VLINES_NONE && id >= m->first && id < limit_of(m) && visible(m, id);
}

uint64_t vlines_next(struct vlines *m, uint64_t id)
{
    uint64_t lim = limit_of(m);

    for (id = id == VLINES_NONE || id < m->first ? m->first : id + 1; id < lim; id++)
        if (visible(m, id))
            return id;
    return VLINES_NONE;
}

uint64_t vlines_prev(struct vlines *m, uint64_t id)
{
    uint64_t lim = limit_of(m);

    if (id > lim)
        id = lim;
    while (id-- > m->first)
        if (visible(m, id))
            return id;
    return VLINES_NONE;
}

/* Whether shown line id is a match of a search for text. */
static int matches(struct vlines *m, uint64_t id, const char *text)
{
    const struct vline *l = line_at(m, id);
    char nb[256];

    /* a closing line repeats its call's name: the call line is the match */
    if (l->kind == LN_CLOSE)
        return 0;
    if (l->kind == LN_TEXT)
        return strstr(l->text ? l->text : "", text) != NULL;
    name_of(m, l->addr, nb, sizeof nb);
    return strstr(nb, text) != NULL;
}

uint64_t vlines_find(struct vlines *m, uint64_t from, const char *text)
{
    uint64_t id;

    /* forward from the line after from, then around from the oldest line up to from */
    for (id = vlines_next(m, from); id != VLINES_NONE; id = vlines_next(m, id))
        if (matches(m, id, text))
            return id;
    if (from == VLINES_NONE)
        return VLINES_NONE;
    for (id = vlines_next(m, VLINES_NONE); id != VLINES_NONE && id <= from;
         id = vlines_next(m, id))
        if (matches(m, id, text))
            return id;
    return VLINES_NONE;
}

void vlines_pause(struct vlines *m, int on)
{
    if (!on == !m->paused)
        return;
    m->paused = !!on;
    drop_snap(m);
    if (!m->paused) {
        if (m->not_kept)
            add_text(m, VLINES_NO_CTX, 0, 0, 1,
                     "*** %" PRIu64 " lines were not kept while paused "
                     "(the table counted their calls)", m->not_kept);
        m->not_kept = 0;
        return;
    }
    m->pause_next = m->next;
    if (m->fs) {
        size_t n;
        const struct fnstat_row *r = fnstat_rows(m->fs, m->rows_key, &n);

        if (n && (m->snap = malloc(n * sizeof *r))) {
            memcpy(m->snap, r, n * sizeof *r);
            m->nsnap = n;
            m->snap_key = m->rows_key;
        }
    }
}

int vlines_paused(const struct vlines *m)
{
    return m->paused;
}

/* ---------------------------------------------------------------------------------------- */
/* the table */

const struct fnstat_row *vlines_rows(struct vlines *m, enum fnstat_key key, size_t *n)
{
    m->rows_key = key;
    *n = 0;
    if (m->paused) {
        /* a paused table sorts what it froze */
        if (m->snap_key != key)
            fnstat_sort(m->snap, m->nsnap, key);
        m->snap_key = key;
        *n = m->nsnap;
        return m->snap;
    }
    return m->fs ? fnstat_rows(m->fs, key, n) : NULL;
}

size_t vlines_nrows(const struct vlines *m)
{
    return m->paused ? m->nsnap : m->fs ? fnstat_count(m->fs) : 0;
}

void vlines_free(struct vlines *m)
{
    if (!m)
        return;
    for (unsigned i = 0; i < m->nctx; i++) {
        pipeline_chain_close(&m->ctx[i]->ch);
        free(m->ctx[i]->stk);
        free(m->ctx[i]);
    }
    free(m->ctx);
    for (uint64_t id = m->first; id < m->next; id++)
        free(line_at(m, id)->text);
    free(m->lines);
    fnstat_free(m->fs);
    graph_free(m->g);
    names_free(m->names);
    free(m->snap);
    free(m->chain);
    free(m);
}

int vlines_graph(struct vlines *m, uint64_t func)
{
    graph_free(m->g);
    m->g = func ? graph_new(m->conf.sym, 0, func, 0, VLINES_GRAPH_NODES) : NULL;
    for (unsigned i = 0; i < m->nctx; i++) {
        m->ctx[i]->graph = m->g ? graph_sink(m->g, m->ctx[i]->id) : NULL;
        wire_sinks(m->ctx[i]);
    }
    return func && !m->g ? -1 : 0;
}

struct graph *vlines_graph_get(struct vlines *m)
{
    return m->g;
}
