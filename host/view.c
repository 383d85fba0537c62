/* view.c - the ncurses live view: a model (lines of the call trees, the function table) fed
 * by events, and a screen drawn from it.
 *
 * Lines live in a ring of VIEW_LINES; a line refers to its enclosing call's line by id (ids
 * only grow), so a dropped line is simply one whose id is older than the oldest kept. Whether
 * a line is shown (not folded away, inside the filter) depends on its ancestors only; it is
 * worked out once per line and kept until a fold or the filter changes (a generation number),
 * so scrolling through 200000 lines stays cheap.
 *
 * Addresses are made link-time (the bias taken off) before they reach the trees: names, the
 * call-site repair and the table then do not care about where the program was loaded. */
#include "view.h"

#ifdef VIEW_CURSES

#include <curses.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "cyg_format.h"
#include "fnstat.h"
#include "render.h"
#include "tree.h"

#define VIEW_CTX_MAX 1024u  /* contexts shown; events of more are counted, not shown */
#define VIEW_PROMPT 128u
#define VIEW_SAMPLES 32u    /* status samples for the rates (10 a second: 3 s) */
#define NO_CTX UINT32_MAX   /* a line of no context (a loss, a note) */
#define NOT_KEPT UINT64_MAX /* a line reference: made while paused with no room left */

enum line_kind { LN_CALL, LN_CLOSE, LN_TEXT };

#define LF_KIDS (1u << 0)    /* a call line with calls under it */
#define LF_DONE (1u << 1)    /* the call ended (returned, or never will): dur is final */
#define LF_NORET (1u << 2)   /* it never returned (longjmp, unwound) */
#define LF_LOSTEND (1u << 3) /* its end is not known: lost, or the trace started over */
#define LF_FOLD (1u << 4)    /* folded by the user: the lines under it are hidden */
#define LF_ALERT (1u << 5)   /* a fault or a loss: always shown, in bold */
#define LF_BEFORE (1u << 6)  /* a closing line of a call entered before the trace (or a loss) */

#define MEMO_HIDDEN 1u /* inside a folded call */
#define MEMO_MATCH 2u  /* inside a call the filter names (or no filter) */

struct vline {
    uint64_t addr;     /* function (link-time) */
    uint64_t dur;      /* ticks, once LF_DONE */
    uint64_t parent;   /* the enclosing call's line id + 1; 0: none */
    uint64_t done_at;  /* the line count when it ended: a paused screen shows it running */
    char *text;        /* LN_TEXT */
    uint32_t ctx;
    uint32_t depth;
    uint32_t memo_gen; /* memo is valid when it equals the view's gen */
    uint8_t kind, flags, memo;
};

struct vlevel {
    uint64_t line; /* id + 1 of the call line at this depth; 0: none */
};

struct vctx {
    struct view *v;
    uint32_t id;
    struct tree *tree;
    struct tree_sink sink;
    const struct tree_sink *fs; /* the table's sink for this context */
    struct vlevel *stk;
    unsigned n, cap;
    int stopped; /* a STOP came: say so when recording starts again */
};

struct sample {
    double t;
    uint64_t events, bytes;
};

enum focus { FOCUS_TREE, FOCUS_TABLE };

struct view {
    SCREEN *scr;
    int color;
    /* what the trace is */
    int configured;
    const struct sym_table *sym;
    uint64_t bias, ts_hz;
    int has_time;
    unsigned addr_width;
    /* the model */
    struct vline *lines;
    uint64_t first, next; /* ids kept: first .. next - 1 */
    struct vctx **ctx;
    unsigned nctx, ctx_cap;
    struct vctx *last_ctx;
    int ctx_overflow;
    struct fnstat *fs;
    uint64_t fault_line;  /* id + 1 of a fault line waiting for its LR record */
    uint64_t not_kept;    /* lines not kept while paused (full), not said yet */
    struct ev fault;
    uint32_t gen;         /* bumps when a fold or the filter changes */
    uint64_t *chain;      /* scratch for the memo walk */
    size_t chain_cap;
    /* the screen */
    int follow;           /* the tree pane shows the newest lines */
    uint64_t top, cur;    /* tree pane: first line shown, cursor line (ids) */
    unsigned tree_rows;   /* rows of the tree pane at the last layout */
    enum focus focus;
    enum fnstat_key sort;
    size_t tab_top, tab_cur;
    unsigned tab_rows;
    int paused;
    uint64_t pause_next;  /* the line count at the pause: newer lines wait */
    struct fnstat_row *snap; /* the table at the pause */
    size_t nsnap;
    int help;
    int prompt;           /* '/' or 'f' while a prompt is open, else 0 */
    char input[VIEW_PROMPT];
    size_t input_len;
    char search[VIEW_PROMPT];
    char filter[VIEW_PROMPT];
    char msg[160];
    double msg_until;
    /* the status line */
    struct sample samples[VIEW_SAMPLES];
    unsigned nsamples, sample_pos;
    struct view_status st;
    char st_link[128], st_err[160];
    int have_st;
};

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t span(uint64_t from, uint64_t to)
{
    return to > from ? to - from : 0;
}

/* ---------------------------------------------------------------------------------------- */
/* lines */

static struct vline *line_at(struct view *v, uint64_t id)
{
    return &v->lines[id % VIEW_LINES];
}

/* The line id + 1 (as stored in parent and levels), or NULL when it was dropped. */
static struct vline *line_ref(struct view *v, uint64_t ref)
{
    return ref && ref - 1 >= v->first && ref - 1 < v->next ? line_at(v, ref - 1) : NULL;
}

/* Adds a line; returns its reference (id + 1), or NOT_KEPT when the lines are full and paused:
 * the lines a paused screen shows are not dropped, the new ones wait for no one. */
static uint64_t add_line(struct view *v, const struct vline *src)
{
    uint64_t id = v->next;
    struct vline *l;

    if (v->next - v->first == VIEW_LINES) {
        if (v->paused) {
            free(src->text);
            v->not_kept++;
            return NOT_KEPT;
        }
        free(line_at(v, v->first)->text);
        if (line_at(v, v->first)->flags & LF_FOLD)
            v->gen++; /* the lines it hid are shown again */
        v->first++;
    }
    l = line_at(v, id);
    *l = *src;
    l->memo_gen = 0; /* gen starts at 1: not worked out yet */
    v->next++;
    return id + 1;
}

static uint64_t add_text(struct view *v, uint32_t ctx, unsigned depth, uint64_t parent,
                         int alert, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static uint64_t add_text(struct view *v, uint32_t ctx, unsigned depth, uint64_t parent,
                         int alert, const char *fmt, ...)
{
    struct vline l = {.kind = LN_TEXT, .ctx = ctx, .depth = depth, .parent = parent,
                      .flags = (uint8_t)(alert ? LF_ALERT : 0)};
    va_list ap;

    va_start(ap, fmt);
    if (vasprintf(&l.text, fmt, ap) < 0)
        l.text = NULL;
    va_end(ap);
    l.done_at = v->next;
    return add_line(v, &l);
}

/* A call whose end will not be seen: its line stays as it is, marked. */
static void end_unknown(struct view *v, uint64_t ref)
{
    struct vline *l = line_ref(v, ref);

    if (l && !(l->flags & LF_DONE)) {
        l->flags |= LF_DONE | LF_LOSTEND;
        l->done_at = v->next;
    }
}

/* ---------------------------------------------------------------------------------------- */
/* the trees' sink: lines as calls come and go */

static int reach(struct vctx *c, unsigned depth)
{
    if (depth >= c->cap) {
        unsigned cap = c->cap ? c->cap : 64;
        struct vlevel *s;

        while (cap <= depth)
            cap *= 2;
        s = realloc(c->stk, cap * sizeof *s);
        if (!s)
            return -1;
        memset(s + c->cap, 0, (cap - c->cap) * sizeof *s);
        c->stk = s;
        c->cap = cap;
    }
    return 0;
}

/* Levels from depth up that still hold a call vanished from the tree without an exit (a loss
 * made them unknown and a later exit went below them). */
static void drop_levels(struct vctx *c, unsigned depth)
{
    for (unsigned k = depth; k < c->n && k < c->cap; k++) {
        end_unknown(c->v, c->stk[k].line);
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
    struct view *v = c->v;
    struct vline l = {.kind = LN_CALL, .addr = f->addr, .ctx = c->id, .depth = depth};
    struct vline *p;

    if (c->fs)
        c->fs->enter(c->fs->arg, f, depth);
    drop_levels(c, depth);
    if (reach(c, depth) < 0)
        return;
    l.parent = parent_of(c, depth);
    if ((p = line_ref(v, l.parent)))
        p->flags |= LF_KIDS;
    c->stk[depth].line = add_line(v, &l);
    c->n = depth + 1;
}

static void sk_exit(void *arg, const struct tree_frame *f, unsigned depth, uint64_t t_exit,
                    enum tree_exit_how how)
{
    struct vctx *c = arg;
    struct view *v = c->v;
    uint64_t ref = depth < c->n ? c->stk[depth].line : 0;
    struct vline *l = line_ref(v, ref);
    struct vline close = {.kind = LN_CLOSE, .addr = f->addr, .ctx = c->id, .depth = depth,
                          .parent = ref, .done_at = v->next};

    if (c->fs)
        c->fs->exit(c->fs->arg, f, depth, t_exit, how);
    drop_levels(c, depth + 1);
    if (ref == NOT_KEPT) {
        /* made while paused with no room: there is nothing to close */
    } else if (ref && how != TREE_BEFORE_TRACE && (!l || l->addr == f->addr)) {
        /* The call shown at entry ends: its duration on its line; a closing line when calls
         * came under it, or when its line is gone (it carries the duration then). */
        uint8_t fl = LF_DONE | (how == TREE_ABANDONED ? LF_NORET : 0);
        uint64_t dur = how == TREE_RETURNED ? span(f->t_enter, t_exit) : 0;

        if (l) {
            l->flags |= fl;
            l->dur = dur;
            l->done_at = v->next;
        }
        if (!l || (l->flags & LF_KIDS)) {
            close.flags = fl;
            close.dur = dur;
            add_line(v, &close);
        }
    } else {
        /* Entered before the trace or a loss: only its end is seen. A call this level showed
         * before the loss never ended, as far as anyone can tell. */
        end_unknown(v, ref);
        close.parent = parent_of(c, depth);
        close.flags = LF_DONE | LF_BEFORE;
        add_line(v, &close);
    }
    if (depth < c->n)
        c->stk[depth].line = 0;
    c->n = depth < c->n ? depth : c->n;
}

/* The fault line as the text tree shows it. lr may be NULL. */
static void fault_text(const struct view *v, const struct ev *fault, const struct ev *lr,
                       char *buf, size_t len)
{
    render_fault_text(v->sym, v->bias, v->addr_width, fault, lr, buf, len);
}

static void sk_special(void *arg, const struct ev *e, unsigned depth)
{
    struct vctx *c = arg;
    struct view *v = c->v;
    uint64_t parent = parent_of(c, depth);
    char buf[600];

    if (c->fs)
        c->fs->special(c->fs->arg, e, depth);
    switch (e->kind) {
    case EV_FAULT:
        fault_text(v, e, NULL, buf, sizeof buf);
        v->fault_line = add_text(v, c->id, 0, 0, 1, "%s", buf);
        v->fault = *e;
        break;
    case EV_FAULT_LR: {
        struct vline *l = line_ref(v, v->fault_line);

        if (l && l->kind == LN_TEXT) {
            fault_text(v, &v->fault, e, buf, sizeof buf);
            free(l->text);
            l->text = strdup(buf);
        }
        v->fault_line = 0;
        break;
    }
    case EV_MARK:
        add_text(v, c->id, depth, parent, 0, "# mark %u = 0x%" PRIx64, e->data, e->addr);
        break;
    case EV_STOP:
        c->stopped = 1;
        add_text(v, c->id, depth, parent, 0, "# recording stopped");
        break;
    case EV_START:
        if (c->stopped)
            add_text(v, c->id, depth, parent, 0,
                     "# recording started again: calls in between are not in the trace");
        c->stopped = 0;
        break;
    case EV_UNKNOWN:
        add_text(v, c->id, depth, parent, 0, "# special record of unknown type %u", e->data);
        break;
    default: /* EV_CONTEXT, EV_THREAD: the context column says it; EV_LOST: one line for all */
        break;
    }
}

static void sk_finish(void *arg, const struct tree_frame *stack, unsigned n)
{
    struct vctx *c = arg;

    if (c->fs)
        c->fs->finish(c->fs->arg, stack, n);
    drop_levels(c, 0);
}

static uint64_t func_of(void *arg, uint64_t addr)
{
    const struct view *v = arg;
    const struct sym_info *s = v->sym ? sym_lookup(v->sym, addr) : NULL;

    return s ? s->start : 0;
}

static struct vctx *ctx_get(struct view *v, uint32_t id)
{
    struct vctx *c;

    if (v->last_ctx && v->last_ctx->id == id)
        return v->last_ctx;
    for (unsigned i = 0; i < v->nctx; i++)
        if (v->ctx[i]->id == id)
            return v->last_ctx = v->ctx[i];
    if (v->nctx == VIEW_CTX_MAX) {
        if (!v->ctx_overflow)
            add_text(v, NO_CTX, 0, 0, 1, "*** more than %u contexts: the others are not shown",
                     VIEW_CTX_MAX);
        v->ctx_overflow = 1;
        return NULL;
    }
    if (v->nctx == v->ctx_cap) {
        unsigned cap = v->ctx_cap ? v->ctx_cap * 2 : 8;
        struct vctx **p = realloc(v->ctx, cap * sizeof *p);

        if (!p)
            return NULL;
        v->ctx = p;
        v->ctx_cap = cap;
    }
    if (!(c = calloc(1, sizeof *c)))
        return NULL;
    c->v = v;
    c->id = id;
    c->sink = (struct tree_sink){c, sk_enter, sk_exit, sk_special, sk_finish};
    c->fs = v->fs ? fnstat_sink(v->fs, id) : NULL;
    /* Live, the depth the trace starts at is unknown: exits of calls made before it match
     * nothing and are not shown. */
    if (!(c->tree = tree_new(&c->sink, 0, func_of, v))) {
        free(c);
        return NULL;
    }
    v->ctx[v->nctx++] = c;
    return v->last_ctx = c;
}

/* Every context's tree ends here (its open calls stay as they were shown) and starts anew. */
static void restart_trees(struct view *v)
{
    for (unsigned i = 0; i < v->nctx; i++) {
        struct vctx *c = v->ctx[i];

        tree_finish(c->tree);
        tree_free(c->tree);
        c->tree = tree_new(&c->sink, 0, func_of, v);
        c->stopped = 0;
    }
    v->fault_line = 0;
}

/* ---------------------------------------------------------------------------------------- */
/* the model's API */

void view_configure(struct view *v, const struct sym_table *sym, uint64_t bias,
                    uint64_t ts_hz, int has_time, unsigned addr_width)
{
    if (v->configured) {
        restart_trees(v);
        add_text(v, NO_CTX, 0, 0, 0, "# the trace starts over (a new description of the stream)");
    }
    if (!v->fs || sym != v->sym) {
        /* the table's names point into the symbol table: a new one, a new table */
        for (unsigned i = 0; i < v->nctx; i++)
            v->ctx[i]->fs = NULL;
        fnstat_free(v->fs);
        v->fs = fnstat_new(sym, 0);
        for (unsigned i = 0; i < v->nctx && v->fs; i++)
            v->ctx[i]->fs = fnstat_sink(v->fs, v->ctx[i]->id);
        free(v->snap);
        v->snap = NULL;
        v->nsnap = 0;
    }
    v->sym = sym;
    v->bias = bias;
    v->ts_hz = ts_hz;
    if (!v->configured)
        v->sort = has_time ? FNSTAT_BY_TOTAL : FNSTAT_BY_CALLS;
    v->has_time = has_time;
    v->addr_width = addr_width;
    v->configured = 1;
}

void view_event(struct view *v, const struct ev *e)
{
    struct vctx *c;
    struct ev t;

    if (!v->configured)
        return;
    if (e->kind == EV_LOST) {
        /* The records lost may have been any context's: every tree is told. */
        add_text(v, NO_CTX, 0, 0, 1, "*** %" PRIu64 " events lost (%s)", e->addr,
                 e->data == EV_LOST_LINK ? "link" : "target");
        for (unsigned i = 0; i < v->nctx; i++)
            if (v->ctx[i]->tree)
                tree_feed(v->ctx[i]->tree, e);
        return;
    }
    if (!(c = ctx_get(v, e->ctx)) || !c->tree)
        return;
    t = *e;
    if (t.kind == EV_ENTER || t.kind == EV_EXIT) {
        t.addr -= v->bias;
        if (t.site)
            t.site -= v->bias;
    }
    tree_feed(c->tree, &t);
}

/* ---------------------------------------------------------------------------------------- */
/* what is shown: folds and the filter */

static void name_of(const struct view *v, uint64_t addr, char *buf, size_t len)
{
    render_addr(v->sym, 0, addr, buf, len);
}

/* The text a search looks in: the function's name, or the line's text. */
static const char *label(const struct view *v, const struct vline *l, char *buf, size_t len)
{
    if (l->kind == LN_TEXT)
        return l->text ? l->text : "";
    name_of(v, l->addr, buf, len);
    return buf;
}

static unsigned memo_of(struct view *v, uint64_t id)
{
    size_t n = 0;
    uint64_t cur = id;

    /* Walk up to a line already worked out or to the top, then work the chain out downwards:
     * each line from its parent's memo. */
    for (;;) {
        struct vline *l = line_at(v, cur);

        if (l->memo_gen == v->gen)
            break;
        if (n == v->chain_cap) {
            size_t cap = v->chain_cap ? v->chain_cap * 2 : 256;
            uint64_t *ch = realloc(v->chain, cap * sizeof *ch);

            if (!ch)
                return MEMO_MATCH; /* out of memory: shown */
            v->chain = ch;
            v->chain_cap = cap;
        }
        v->chain[n++] = cur;
        if (!line_ref(v, l->parent))
            break;
        cur = l->parent - 1;
    }
    while (n--) {
        struct vline *l = line_at(v, v->chain[n]);
        struct vline *p = line_ref(v, l->parent);
        unsigned m = 0;

        if (p) {
            m |= (p->flags & LF_FOLD) || (p->memo & MEMO_HIDDEN) ? MEMO_HIDDEN : 0;
            m |= p->memo & MEMO_MATCH;
        }
        if (!v->filter[0] || (l->flags & LF_ALERT)) {
            m |= MEMO_MATCH;
        } else if (!(m & MEMO_MATCH) && l->kind == LN_CALL) {
            char nb[256];

            name_of(v, l->addr, nb, sizeof nb);
            if (strstr(nb, v->filter))
                m |= MEMO_MATCH;
        }
        l->memo = (uint8_t)m;
        l->memo_gen = v->gen;
    }
    return line_at(v, id)->memo;
}

/* The newest line the screen may show, + 1: a paused screen waits. */
static uint64_t limit_of(const struct view *v)
{
    return v->paused ? v->pause_next : v->next;
}

static int visible(struct view *v, uint64_t id)
{
    return memo_of(v, id) == MEMO_MATCH;
}

/* The nearest shown line before id (strictly), or UINT64_MAX. */
static uint64_t prev_vis(struct view *v, uint64_t id)
{
    uint64_t lim = limit_of(v);

    if (id > lim)
        id = lim;
    while (id-- > v->first)
        if (visible(v, id))
            return id;
    return UINT64_MAX;
}

/* The nearest shown line after id (strictly; UINT64_MAX: from the oldest), or UINT64_MAX. */
static uint64_t next_vis(struct view *v, uint64_t id)
{
    uint64_t lim = limit_of(v);

    for (id = id == UINT64_MAX || id < v->first ? v->first : id + 1; id < lim; id++)
        if (visible(v, id))
            return id;
    return UINT64_MAX;
}

static int shown(struct view *v, uint64_t id)
{
    return id != UINT64_MAX && id >= v->first && id < limit_of(v) && visible(v, id);
}

/* Puts top and cur on lines that are kept and shown, and cur inside the window of rows. */
static void settle(struct view *v, unsigned rows)
{
    uint64_t id, last = prev_vis(v, UINT64_MAX);
    unsigned k;

    if (rows == 0)
        rows = 1;
    if (last == UINT64_MAX) {
        v->top = v->cur = UINT64_MAX;
        return;
    }
    if (v->follow) {
        v->cur = last;
        for (id = last, k = 1; k < rows; k++) {
            uint64_t p = prev_vis(v, id);

            if (p == UINT64_MAX)
                break;
            id = p;
        }
        v->top = id;
        return;
    }
    if (!shown(v, v->cur)) {
        /* dropped: the oldest line; hidden (a fold, the filter): the nearest shown one */
        int kept = v->cur != UINT64_MAX && v->cur >= v->first;
        uint64_t n = kept ? next_vis(v, v->cur) : next_vis(v, UINT64_MAX);

        if (n == UINT64_MAX && kept)
            n = prev_vis(v, v->cur);
        v->cur = n != UINT64_MAX ? n : last;
    }
    if (!shown(v, v->top) || v->top > v->cur) {
        uint64_t n = v->top != UINT64_MAX && v->top >= v->first && v->top < v->cur
                         ? next_vis(v, v->top) : UINT64_MAX;

        v->top = n != UINT64_MAX && n <= v->cur ? n : v->cur;
    }
    /* cur below the window: the window ends at cur */
    for (id = v->top, k = 1; id != v->cur && id != UINT64_MAX && k < rows; k++)
        id = next_vis(v, id);
    if (id != v->cur) {
        for (id = v->cur, k = 1; k < rows; k++) {
            uint64_t p = prev_vis(v, id);

            if (p == UINT64_MAX)
                break;
            id = p;
        }
        v->top = id;
    }
    /* a window with room left below (a fold hid lines): show older lines above instead */
    for (id = v->top, k = 1; k < rows && (id = next_vis(v, id)) != UINT64_MAX; k++)
        ;
    for (; k < rows; k++) {
        uint64_t p = prev_vis(v, v->top);

        if (p == UINT64_MAX)
            break;
        v->top = p;
    }
}

/* ---------------------------------------------------------------------------------------- */
/* drawing */

static void put(int y, int x, int w, attr_t a, const char *s)
{
    int cols = COLS;

    if (y < 0 || y >= LINES || x >= cols || w <= 0)
        return;
    if (x + w > cols)
        w = cols - x;
    attrset(a);
    mvaddnstr(y, x, s, w);
    attrset(A_NORMAL);
}

/* A count in at most 9 characters. */
static void fmt_count(uint64_t n, char *buf, size_t len)
{
    if (n < 1000000000u)
        snprintf(buf, len, "%" PRIu64, n);
    else if (n < UINT64_C(1000000000000))
        snprintf(buf, len, "%" PRIu64 "M", n / 1000000u);
    else
        snprintf(buf, len, "%" PRIu64 "G", n / 1000000000u);
}

static void fmt_rate(double r, const char *unit, char *buf, size_t len)
{
    if (r < 1000)
        snprintf(buf, len, "%.0f %s", r, unit);
    else if (r < 1e6)
        snprintf(buf, len, "%.1fk %s", r / 1e3, unit);
    else
        snprintf(buf, len, "%.1fM %s", r / 1e6, unit);
}

static const char *state_name(unsigned s)
{
    switch (s) {
    case CYG_S_RUNNING: return "RUNNING";
    case CYG_S_FROZEN: return "FROZEN";
    case CYG_S_FULL: return "FULL";
    case CYG_S_STOPPED: return "STOPPED";
    default: return "STATE?";
    }
}

/* Rates over the last second, from the totals the caller keeps. */
static void rates(struct view *v, const struct view_status *st, double *ev_s, double *by_s)
{
    double now = now_s();
    const struct sample *best = NULL;

    *ev_s = *by_s = 0;
    for (unsigned i = 0; i < v->nsamples; i++) {
        const struct sample *s = &v->samples[i];

        if (now - s->t <= 1.05 && (!best || s->t < best->t) && now - s->t > 0.05)
            best = s;
    }
    if (best && st->events >= best->events && st->bytes >= best->bytes) {
        *ev_s = (double)(st->events - best->events) / (now - best->t);
        *by_s = (double)(st->bytes - best->bytes) / (now - best->t);
    }
    v->samples[v->sample_pos] = (struct sample){now, st->events, st->bytes};
    v->sample_pos = (v->sample_pos + 1) % VIEW_SAMPLES;
    if (v->nsamples < VIEW_SAMPLES)
        v->nsamples++;
}

/* The state and flags first, the link last unless it is down: its name can be a long path, and
 * what matters most must fit in 80 columns. */
static void draw_status(struct view *v, const struct view_status *st, double ev_s, double by_s)
{
    char buf[1024], link[320], a[32], b[32];

    fmt_rate(ev_s, "ev/s", a, sizeof a);
    if (st->bytes) /* a followed ring has no bytes on a link */
        fmt_rate(by_s, "B/s", b, sizeof b);
    else
        b[0] = 0;
    snprintf(link, sizeof link, "%s %s%s%s", st->link ? st->link : "?",
             st->connected ? "up" : "down", !st->connected && st->link_error ? ": " : "",
             !st->connected && st->link_error ? st->link_error : "");
    snprintf(buf, sizeof buf,
             " %s%s%s%s%s | %s%s%s | lost %" PRIu64 " target %" PRIu64 " link | bad frames %" PRIu64
             "%s%s",
             st->have_desc ? state_name(st->state) : "waiting for the stream description",
             st->fault ? "  FAULT" : "", v->paused ? "  PAUSED" : "",
             st->connected ? "" : " | ", st->connected ? "" : link, a, b[0] ? " " : "", b,
             st->lost_target,
             st->lost_link, st->bad_frames, st->connected ? " | " : "", st->connected ? link : "");
    attrset(A_REVERSE);
    mvhline(0, 0, ' ', COLS);
    attrset(A_NORMAL);
    put(0, 0, COLS, A_REVERSE | (st->fault ? A_BOLD : 0), buf);
}

/* One line of the tree pane. */
static void draw_line(struct view *v, int y, uint64_t id, int cursor)
{
    struct vline *l = line_at(v, id);
    int paused_run = v->paused && l->done_at > v->pause_next; /* ended after the pause */
    unsigned flags = paused_run ? l->flags & ~(LF_DONE | LF_NORET | LF_LOSTEND) : l->flags;
    char buf[1024], nb[256], d[32] = "";
    size_t n = 0;
    unsigned depth = l->depth, max_ind;
    attr_t a = A_NORMAL;

    if (v->nctx > 1) {
        if (l->ctx == NO_CTX)
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%5s", "");
        else
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%4u ", l->ctx);
    }
    if (v->has_time) {
        int own = l->kind == LN_CALL || (l->kind == LN_CLOSE && !line_ref(v, l->parent));

        if (own && (flags & LF_DONE) && !(flags & (LF_NORET | LF_LOSTEND | LF_BEFORE)))
            render_duration(l->dur, v->ts_hz, d, sizeof d);
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%11s  ", d);
    }
    max_ind = COLS > (int)n + 24 ? (unsigned)(COLS - (int)n - 24) / 2 : 0;
    if (l->kind == LN_TEXT && (l->flags & LF_ALERT))
        depth = 0;
    if (depth > max_ind) {
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%*s[%u] ",
                              (int)(max_ind > 4 ? (max_ind - 4) * 2 : 0), "", depth);
    } else {
        memset(buf + n, ' ', depth * 2);
        n += depth * 2;
        buf[n] = 0;
    }
    switch (l->kind) {
    case LN_CALL:
        name_of(v, l->addr, nb, sizeof nb);
        if ((flags & LF_KIDS) && (flags & LF_FOLD))
            snprintf(buf + n, sizeof buf - n, "%s() { ... }", nb);
        else if (flags & LF_KIDS)
            snprintf(buf + n, sizeof buf - n, "%s() {", nb);
        else
            snprintf(buf + n, sizeof buf - n, "%s()%s", nb, flags & LF_DONE ? ";" : "");
        break;
    case LN_CLOSE:
        name_of(v, l->addr, nb, sizeof nb);
        snprintf(buf + n, sizeof buf - n, "} /* %s */", nb);
        break;
    default:
        snprintf(buf + n, sizeof buf - n, "%s", l->text ? l->text : "?");
        break;
    }
    n = strlen(buf);
    if (flags & LF_NORET)
        snprintf(buf + n, sizeof buf - n, "  (never returned)");
    else if (flags & LF_BEFORE)
        snprintf(buf + n, sizeof buf - n, "  (entered before the trace)");
    else if (flags & LF_LOSTEND)
        snprintf(buf + n, sizeof buf - n, "  (end not seen)");
    if (l->flags & LF_ALERT)
        a |= A_BOLD | (v->color ? COLOR_PAIR(1) : 0);
    if (cursor)
        a |= A_REVERSE;
    if (cursor) {
        attrset(a);
        mvhline(y, 0, ' ', COLS);
    }
    put(y, 0, COLS, a, buf);
}

static void draw_tree(struct view *v, int y0, unsigned rows)
{
    char hdr[256];
    uint64_t id;
    unsigned k;
    int focused = v->focus == FOCUS_TREE;
    int n;

    n = snprintf(hdr, sizeof hdr, "%s%s%s", focused ? "> " : "  ",
                 v->nctx > 1 ? " CTX " : "", v->has_time ? "   DURATION  " : "");
    snprintf(hdr + n, sizeof hdr - (size_t)n, "FUNCTION%s%s%s%s", v->filter[0] ? "   filter: " : "",
             v->filter, v->paused ? "   [PAUSED]" : "",
             v->follow ? "" : "   [not following: End returns to the newest]");
    attrset(A_BOLD | (focused ? A_REVERSE : 0));
    mvhline(y0, 0, ' ', COLS);
    put(y0, 0, COLS, A_BOLD | (focused ? A_REVERSE : 0), hdr);
    v->tree_rows = rows;
    if (!rows)
        return;
    settle(v, rows);
    if (v->top == UINT64_MAX) {
        put(y0 + 1, 2, COLS - 2, A_DIM,
            !v->configured ? "(waiting for the stream description)"
            : v->filter[0] ? "(no calls match the filter)" : "(no calls yet)");
        return;
    }
    for (id = v->top, k = 0; id != UINT64_MAX && k < rows; k++, id = next_vis(v, id))
        draw_line(v, y0 + 1 + (int)k, id, focused && id == v->cur);
}

static const struct fnstat_row *table_rows(struct view *v, size_t *n)
{
    if (v->paused) {
        *n = v->nsnap;
        return v->snap;
    }
    *n = 0;
    return v->fs ? fnstat_rows(v->fs, v->sort, n) : NULL;
}

static void draw_table(struct view *v, int y0, unsigned rows)
{
    static const char *const keys[] = {"calls", "total", "self", "max", "name"};
    int focused = v->focus == FOCUS_TABLE;
    char buf[512], c[24], t[32], s[32], m[32], nb[256];
    size_t nrows;
    const struct fnstat_row *r = table_rows(v, &nrows);

    if (v->has_time)
        snprintf(buf, sizeof buf, "%s%9s %11s %11s %11s  FUNCTION   (%zu functions, sorted by %s: s)",
                 focused ? "> " : "  ", "CALLS", "TOTAL", "SELF", "MAX", nrows, keys[v->sort]);
    else
        snprintf(buf, sizeof buf, "%s%9s  FUNCTION   (%zu functions, sorted by %s: s)",
                 focused ? "> " : "  ", "CALLS", nrows, keys[v->sort]);
    attrset(A_BOLD | (focused ? A_REVERSE : 0));
    mvhline(y0, 0, ' ', COLS);
    put(y0, 0, COLS, A_BOLD | (focused ? A_REVERSE : 0), buf);
    v->tab_rows = rows;
    if (!rows)
        return;
    if (v->tab_cur >= nrows)
        v->tab_cur = nrows ? nrows - 1 : 0;
    if (v->tab_top > v->tab_cur)
        v->tab_top = v->tab_cur;
    if (v->tab_cur >= v->tab_top + rows)
        v->tab_top = v->tab_cur - rows + 1;
    for (unsigned k = 0; k < rows && v->tab_top + k < nrows; k++) {
        const struct fnstat_row *row = &r[v->tab_top + k];
        int cursor = focused && v->tab_top + k == v->tab_cur;

        fmt_count(row->calls, c, sizeof c);
        if (row->name)
            snprintf(nb, sizeof nb, "%s", row->name);
        else
            name_of(v, row->addr, nb, sizeof nb);
        if (v->has_time) {
            render_duration(row->total, v->ts_hz, t, sizeof t);
            render_duration(row->self, v->ts_hz, s, sizeof s);
            render_duration(row->max, v->ts_hz, m, sizeof m);
            snprintf(buf, sizeof buf, "  %9s %11s %11s %11s  %s", c, t, s, m, nb);
        } else {
            snprintf(buf, sizeof buf, "  %9s  %s", c, nb);
        }
        if (cursor) {
            attrset(A_REVERSE);
            mvhline(y0 + 1 + (int)k, 0, ' ', COLS);
        }
        put(y0 + 1 + (int)k, 0, COLS, cursor ? A_REVERSE : A_NORMAL, buf);
    }
}

static const char *const help_text[] = {
    "cygtrace live: keys",
    "",
    "p, space      pause / resume the display (the counting goes on)",
    "Up Down, k j  move the cursor a line",
    "PgUp PgDn     a page",
    "Home End      the oldest line / follow the newest",
    "Tab           switch pane: call tree or function table",
    "Enter, c      fold / unfold the calls under the cursor line",
    "/             search the focused pane; n: next match",
    "f             filter: only calls inside functions whose name",
    "              contains the text (empty: all)",
    "s             sort the table: calls, total, self, max, name",
    "?, h          this help (any key closes it)",
    "q             quit",
};

static void draw_help(void)
{
    int n = (int)(sizeof help_text / sizeof help_text[0]), w = 0, y0, x0;

    for (int i = 0; i < n; i++)
        if ((int)strlen(help_text[i]) > w)
            w = (int)strlen(help_text[i]);
    w += 4;
    y0 = LINES > n + 2 ? (LINES - n - 2) / 2 : 0;
    x0 = COLS > w ? (COLS - w) / 2 : 0;
    for (int i = -1; i <= n; i++) {
        attrset(A_REVERSE);
        if (y0 + 1 + i >= 0 && y0 + 1 + i < LINES)
            mvhline(y0 + 1 + i, x0, ' ', w < COLS - x0 ? w : COLS - x0);
        if (i >= 0 && i < n)
            put(y0 + 1 + i, x0 + 2, w - 2, A_REVERSE | (i == 0 ? A_BOLD : 0), help_text[i]);
    }
    attrset(A_NORMAL);
}

static void draw_bottom(struct view *v)
{
    char buf[256];
    int y = LINES - 1;

    if (v->prompt) {
        snprintf(buf, sizeof buf, "%s%s", v->prompt == '/' ? "search: " : "filter (empty: all): ",
                 v->input);
        put(y, 0, COLS, A_BOLD, buf);
        return;
    }
    if (v->msg[0] && now_s() < v->msg_until) {
        put(y, 0, COLS, A_BOLD, v->msg);
        return;
    }
    put(y, 0, COLS, A_DIM,
        "q quit  p pause  Tab pane  / search  f filter  Enter fold  s sort  ? help");
}

/* Lays the screen out and draws it from the model and the last status. */
static void redraw(struct view *v)
{
    int rows = LINES, cols = COLS, rest, tab_h;
    double ev_s = 0, by_s = 0;

    erase();
    if (rows < 4 || cols < 16) {
        put(0, 0, cols, A_BOLD, "window too small");
        refresh();
        return;
    }
    if (v->have_st)
        rates(v, &v->st, &ev_s, &by_s);
    draw_status(v, &v->st, ev_s, by_s);
    rest = rows - 2;
    tab_h = rest >= 8 ? rest / 3 : 0;
    if (tab_h) { /* a short table leaves its rows to the tree */
        size_t n = v->paused ? v->nsnap : v->fs ? fnstat_count(v->fs) : 0;

        if ((size_t)tab_h > n + 1)
            tab_h = n + 1 > 2 ? (int)n + 1 : 2;
    }
    draw_tree(v, 1, (unsigned)(rest - tab_h - 1));
    if (tab_h)
        draw_table(v, 1 + rest - tab_h, (unsigned)(tab_h - 1));
    draw_bottom(v);
    if (v->help)
        draw_help();
    refresh();
}

/* A resize that no key reported (nobody read stdin): ask the terminal. */
static void check_size(void)
{
    struct winsize ws;

    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col &&
        (ws.ws_row != LINES || ws.ws_col != COLS)) {
        resizeterm(ws.ws_row, ws.ws_col);
        clearok(curscr, TRUE);
    }
}

void view_draw(struct view *v, const struct view_status *st)
{
    v->st = *st;
    snprintf(v->st_link, sizeof v->st_link, "%s", st->link ? st->link : "?");
    snprintf(v->st_err, sizeof v->st_err, "%s", st->link_error ? st->link_error : "");
    v->st.link = v->st_link;
    v->st.link_error = st->link_error ? v->st_err : NULL;
    v->have_st = 1;
    check_size();
    redraw(v);
}

/* ---------------------------------------------------------------------------------------- */
/* keys */

static void message(struct view *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void message(struct view *v, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(v->msg, sizeof v->msg, fmt, ap);
    va_end(ap);
    v->msg_until = now_s() + 3;
}

static void toggle_pause(struct view *v)
{
    v->paused = !v->paused;
    free(v->snap);
    v->snap = NULL;
    v->nsnap = 0;
    if (!v->paused) {
        if (v->not_kept)
            add_text(v, NO_CTX, 0, 0, 1, "*** %" PRIu64 " lines were not kept while paused "
                     "(the table counted their calls)", v->not_kept);
        v->not_kept = 0;
        return;
    }
    v->pause_next = v->next;
    if (v->fs) {
        size_t n;
        const struct fnstat_row *r = fnstat_rows(v->fs, v->sort, &n);

        if (n && (v->snap = malloc(n * sizeof *r))) {
            memcpy(v->snap, r, n * sizeof *r);
            v->nsnap = n;
        }
    }
}


static void tree_move(struct view *v, int delta)
{
    unsigned rows = v->tree_rows ? v->tree_rows : 1;

    settle(v, rows);
    if (v->cur == UINT64_MAX)
        return;
    if (delta < 0) {
        v->follow = 0;
        for (; delta < 0; delta++) {
            uint64_t p = prev_vis(v, v->cur);

            if (p == UINT64_MAX)
                break;
            v->cur = p;
            if (v->cur < v->top)
                v->top = v->cur;
        }
    } else {
        for (; delta > 0 && !v->follow; delta--) {
            uint64_t n = next_vis(v, v->cur);

            if (n == UINT64_MAX) {
                v->follow = 1; /* at the newest line: follow it again */
                break;
            }
            v->cur = n;
        }
    }
    settle(v, rows);
}

static void table_move(struct view *v, long delta)
{
    size_t n;

    table_rows(v, &n);
    if (!n)
        return;
    if (delta < 0)
        v->tab_cur = (size_t)-delta > v->tab_cur ? 0 : v->tab_cur - (size_t)-delta;
    else
        v->tab_cur = v->tab_cur + (size_t)delta >= n ? n - 1 : v->tab_cur + (size_t)delta;
}

static void fold(struct view *v)
{
    struct vline *l, *p;

    settle(v, v->tree_rows ? v->tree_rows : 1);
    if (v->cur == UINT64_MAX)
        return;
    l = line_at(v, v->cur);
    if (l->kind == LN_CLOSE && (p = line_ref(v, l->parent)) && p->kind == LN_CALL) {
        v->cur = l->parent - 1;
        l = p;
    }
    if (l->kind != LN_CALL || !(l->flags & LF_KIDS)) {
        message(v, "no calls under this line to fold");
        return;
    }
    if (v->follow) /* the fold stays where it is, not at the tail */
        v->follow = 0;
    l->flags ^= LF_FOLD;
    v->gen++;
}

static void search(struct view *v)
{
    char nb[256];

    if (!v->search[0]) {
        message(v, "no search yet: press /");
        return;
    }
    if (v->focus == FOCUS_TABLE) {
        size_t n;
        const struct fnstat_row *r = table_rows(v, &n);

        for (size_t k = 1; k <= n; k++) {
            const struct fnstat_row *row = &r[(v->tab_cur + k) % n];

            if (row->name)
                snprintf(nb, sizeof nb, "%s", row->name);
            else
                name_of(v, row->addr, nb, sizeof nb);
            if (strstr(nb, v->search)) {
                v->tab_cur = (v->tab_cur + k) % n;
                return;
            }
        }
        message(v, "not found: %s", v->search);
        return;
    }
    settle(v, v->tree_rows ? v->tree_rows : 1);
    {
        uint64_t start = v->cur, id = v->cur;

        if (start == UINT64_MAX) {
            message(v, "not found: %s", v->search);
            return;
        }
        /* forward from the cursor, then around from the oldest line */
        for (;;) {
            id = next_vis(v, id);
            if (id == UINT64_MAX)
                id = next_vis(v, UINT64_MAX);
            if (id == UINT64_MAX)
                break;
            /* a closing line repeats its call's name: the call line is the match */
            if (line_at(v, id)->kind != LN_CLOSE &&
                strstr(label(v, line_at(v, id), nb, sizeof nb), v->search)) {
                unsigned k;

                v->follow = 0;
                v->cur = id;
                /* the match a third of the way down the pane */
                for (v->top = id, k = 0; k < v->tree_rows / 3; k++) {
                    uint64_t p = prev_vis(v, v->top);

                    if (p == UINT64_MAX)
                        break;
                    v->top = p;
                }
                return;
            }
            if (id == start)
                break;
        }
    }
    message(v, "not found: %s", v->search);
}

static void prompt_done(struct view *v)
{
    if (v->prompt == '/') {
        snprintf(v->search, sizeof v->search, "%s", v->input);
        v->prompt = 0;
        search(v);
        return;
    }
    v->prompt = 0;
    if (strcmp(v->filter, v->input)) {
        snprintf(v->filter, sizeof v->filter, "%s", v->input);
        v->gen++;
    }
}

/* A key while a prompt is open. */
static void prompt_key(struct view *v, int ch)
{
    switch (ch) {
    case 27: /* Esc */
        v->prompt = 0;
        break;
    case '\n':
    case '\r':
    case KEY_ENTER:
        prompt_done(v);
        break;
    case KEY_BACKSPACE:
    case 127:
    case 8:
        if (v->input_len)
            v->input[--v->input_len] = 0;
        break;
    default:
        if (ch >= 32 && ch < 127 && v->input_len + 1 < sizeof v->input) {
            v->input[v->input_len++] = (char)ch;
            v->input[v->input_len] = 0;
        }
        break;
    }
}

static void open_prompt(struct view *v, int kind)
{
    v->prompt = kind;
    snprintf(v->input, sizeof v->input, "%s", kind == 'f' ? v->filter : "");
    v->input_len = strlen(v->input);
}

/* One key; 1 when it quits. */
static int key(struct view *v, int ch)
{
    int page = (int)(v->focus == FOCUS_TREE ? v->tree_rows : v->tab_rows);

    if (page > 1)
        page--;
    if (ch == KEY_RESIZE) {
        clearok(curscr, TRUE);
        return 0;
    }
    if (v->prompt) {
        prompt_key(v, ch);
        return 0;
    }
    if (v->help) { /* any key closes the help, q quits as well */
        v->help = 0;
        return ch == 'q' || ch == 'Q';
    }
    switch (ch) {
    case 'q':
    case 'Q':
        return 1;
    case 'p':
    case ' ':
        toggle_pause(v);
        break;
    case '?':
    case 'h':
        v->help = 1;
        break;
    case '\t':
        v->focus = v->focus == FOCUS_TREE ? FOCUS_TABLE : FOCUS_TREE;
        break;
    case 's':
        do
            v->sort = (enum fnstat_key)((v->sort + 1) % FNSTAT_KEYS);
        while (!v->has_time && v->sort != FNSTAT_BY_CALLS && v->sort != FNSTAT_BY_NAME);
        fnstat_sort(v->snap, v->nsnap, v->sort); /* a paused table sorts what it froze */
        break;
    case '/':
        open_prompt(v, '/');
        break;
    case 'n':
        search(v);
        break;
    case 'f':
        open_prompt(v, 'f');
        break;
    case '\n':
    case '\r':
    case KEY_ENTER:
    case 'c':
        if (v->focus == FOCUS_TREE)
            fold(v);
        break;
    case KEY_UP:
    case 'k':
        v->focus == FOCUS_TREE ? tree_move(v, -1) : table_move(v, -1);
        break;
    case KEY_DOWN:
    case 'j':
        v->focus == FOCUS_TREE ? tree_move(v, 1) : table_move(v, 1);
        break;
    case KEY_PPAGE:
        v->focus == FOCUS_TREE ? tree_move(v, -page) : table_move(v, -page);
        break;
    case KEY_NPAGE:
        v->focus == FOCUS_TREE ? tree_move(v, page) : table_move(v, page);
        break;
    case KEY_HOME:
    case 'g':
        if (v->focus == FOCUS_TREE) {
            v->follow = 0;
            v->top = v->cur = next_vis(v, UINT64_MAX);
        } else {
            v->tab_cur = 0;
        }
        break;
    case KEY_END:
    case 'G':
        if (v->focus == FOCUS_TREE)
            v->follow = 1;
        else
            table_move(v, LONG_MAX / 2);
        break;
    default:
        break;
    }
    return 0;
}

int view_input(struct view *v)
{
    int ch, any = 0, quit = 0;

    while (!quit && (ch = getch()) != ERR) {
        any = 1;
        quit = key(v, ch);
    }
    if (any && !quit)
        redraw(v);
    return quit;
}

/* ---------------------------------------------------------------------------------------- */

struct view *view_open(char *err, size_t errlen)
{
    struct view *v;
    const char *term = getenv("TERM");

    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        snprintf(err, errlen, "not a terminal; use --plain for text output");
        return NULL;
    }
    if (!(v = calloc(1, sizeof *v)) || !(v->lines = calloc(VIEW_LINES, sizeof *v->lines))) {
        free(v);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    fflush(stdout);
    if (!(v->scr = newterm(NULL, stdout, stdin))) {
        free(v->lines);
        free(v);
        snprintf(err, errlen, "TERM=%s: not a terminal type this system knows; use --plain for "
                 "text output", term ? term : "");
        return NULL;
    }
    set_term(v->scr);
    cbreak();
    noecho();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    intrflush(stdscr, FALSE);
    set_escdelay(25);
    curs_set(0);
    if (has_colors() && start_color() == OK) {
        use_default_colors();
        init_pair(1, COLOR_RED, -1);
        v->color = 1;
    }
    v->gen = 1;
    v->follow = 1;
    v->top = v->cur = UINT64_MAX;
    v->sort = FNSTAT_BY_TOTAL;
    v->st.link = "";
    redraw(v);
    return v;
}

void view_close(struct view *v)
{
    if (!v)
        return;
    endwin();
    delscreen(v->scr);
    fflush(stdout);
    for (unsigned i = 0; i < v->nctx; i++) {
        tree_free(v->ctx[i]->tree);
        free(v->ctx[i]->stk);
        free(v->ctx[i]);
    }
    free(v->ctx);
    for (uint64_t id = v->first; id < v->next; id++)
        free(line_at(v, id)->text);
    free(v->lines);
    fnstat_free(v->fs);
    free(v->snap);
    free(v->chain);
    free(v);
}

#else /* no ncurses: a stub that says so */

#include <stdio.h>

struct view *view_open(char *err, size_t errlen)
{
    snprintf(err, errlen, "built without ncurses; use --plain");
    return NULL;
}

void view_configure(struct view *v, const struct sym_table *sym, uint64_t bias,
                    uint64_t ts_hz, int has_time, unsigned addr_width)
{
    (void)v, (void)sym, (void)bias, (void)ts_hz, (void)has_time, (void)addr_width;
}

void view_event(struct view *v, const struct ev *e)
{
    (void)v, (void)e;
}

int view_input(struct view *v)
{
    (void)v;
    return 1;
}

void view_draw(struct view *v, const struct view_status *st)
{
    (void)v, (void)st;
}

void view_close(struct view *v)
{
    (void)v;
}

#endif
