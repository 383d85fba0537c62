/* export.c - chrome, folded and callgrind writers over one accounting of calls per context
 * (the same as fnstat's: see fnstat.h). */
#include "output/export.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "model/ctxtab.h"
#include "cyg_format.h"
#include "decode/dec.h"
#include "util/numfmt.h"
#include "output/render.h"
#include "symbols/wsig.h"

struct level {
    uint64_t addr;
    uint32_t node; /* folded: the stack's node */
    int open;
    uint64_t t_enter, last, kids, kids_base;
};

struct xctx {
    struct export *x;
    struct tree_sink sink;
    uint32_t id;
    struct level *lvl;
    unsigned n, cap;
    int need_base;
    uint64_t t_base;
};

/* Open addressing from a pair of keys to an index in a value array. */
struct map {
    struct slot {
        uint64_t a, b;
        uint32_t v_plus1;
    } *s;
    size_t cap, used;
};

struct node { /* folded: a distinct stack; callgrind: a function (b = 0) or a call pair */
    uint64_t a, b; /* folded: parent node, addr; callgrind: caller, callee */
    uint64_t self, calls, incl;
    uint32_t file, line; /* callgrind: the source of the function (the callee of a pair), file
                            an index in files plus 1 (0: the DWARF does not say), its line */
};

#define NAME_CACHE 1024u /* direct-mapped: traces call few functions over and over */

struct export {
    FILE *out;
    struct {
        uint64_t addr;
        char *json; /* the name as a JSON string, quotes included; NULL: empty */
    } names[NAME_CACHE];
    struct export_opts o;
    struct xctx **ctx;
    unsigned nctx;
    struct map map;
    struct node *nodes;
    size_t nn, ncap;
    char **files; /* callgrind: the source files named so far */
    size_t nfiles;
    int first; /* chrome: no event written yet */
    int failed;
    const struct names *nm;    /* the contexts' and objects' names, or NULL */
    struct ctxtab tracks;      /* chrome: the contexts whose track has its name */
    int cpu_track;             /* chrome: the CPU track has its name */
};

static size_t hash2(uint64_t a, uint64_t b)
{
    uint64_t v = a * UINT64_C(0x9e3779b97f4a7c15) ^ b;

    v ^= v >> 33;
    v *= UINT64_C(0xff51afd7ed558ccd);
    v ^= v >> 33;
    return (size_t)v;
}

/* The node for (a, b), made when new; -1 when out of memory. */
static long node_of(struct export *x, uint64_t a, uint64_t b)
{
    struct map *m = &x->map;
    size_t i;

    if ((m->used + 1) * 2 > m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 1024;
        struct slot *s = calloc(cap, sizeof *s);

        if (!s)
            return -1;
        for (size_t k = 0; k < m->cap; k++) {
            if (!m->s[k].v_plus1)
                continue;
            for (i = hash2(m->s[k].a, m->s[k].b) & (cap - 1); s[i].v_plus1; i = (i + 1) & (cap - 1))
                ;
            s[i] = m->s[k];
        }
        free(m->s);
        m->s = s;
        m->cap = cap;
    }
    for (i = hash2(a, b) & (m->cap - 1); m->s[i].v_plus1; i = (i + 1) & (m->cap - 1))
        if (m->s[i].a == a && m->s[i].b == b)
            return m->s[i].v_plus1 - 1;
    if (x->nn == x->ncap) {
        size_t cap = x->ncap ? x->ncap * 2 : 1024;
        struct node *p = realloc(x->nodes, cap * sizeof *p);

        if (!p)
            return -1;
        x->nodes = p;
        x->ncap = cap;
    }
    x->nodes[x->nn] = (struct node){.a = a, .b = b};
    m->s[i] = (struct slot){a, b, (uint32_t)(x->nn + 1)};
    m->used++;
    return (long)x->nn++;
}

static uint64_t span(uint64_t from, uint64_t to)
{
    return to > from ? to - from : 0;
}

/* ---- chrome */

/* Writes s as a JSON string (quotes included) into buf (at least 6 * strlen(s) + 3 long). */
static size_t json_put(char *buf, const char *s)
{
    size_t n = 0;

    buf[n++] = '"';
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') {
            buf[n++] = '\\';
            buf[n++] = *s;
        } else if ((unsigned char)*s < 0x20) {
            n += (size_t)sprintf(buf + n, "\\u%04x", *s);
        } else {
            buf[n++] = *s;
        }
    }
    buf[n++] = '"';
    buf[n] = 0;
    return n;
}

static void json_str(FILE *f, const char *s)
{
    char buf[6 * 512 + 3];
    char tmp[512];

    snprintf(tmp, sizeof tmp, "%s", s); /* json_put's buf is sized for 511 characters */
    json_put(buf, tmp);
    fputs_unlocked(buf, f);
}


/* A time in ticks as microseconds with 3 decimals (ticks when the rate is unknown): integers
 * only, this is the writer's hot spot. */
static size_t put_ts(struct export *x, char *buf, uint64_t ticks)
{
    uint64_t hz = x->o.hz, secs, ns;
    size_t n;

    if (!hz)
        return numfmt_u64(buf, ticks, 1);
    /* Whole seconds apart from the nanoseconds within the last one: ticks * 1e9 overflows 64
     * bits for a slow clock (1 Hz: from 18 s on), and a double too large for uint64_t became
     * 0. Microseconds overflow only after 584,000 years: a clock rate that lies. */
    secs = ticks / hz;
    if (secs >= UINT64_MAX / 1000000u - 1)
        return (size_t)snprintf(buf, 32, "%.3f", (double)ticks * 1e6 / (double)hz);
    ns = (uint64_t)((double)(ticks % hz) * 1e9 / (double)hz + 0.5); /* 1e9 at most */
    n = numfmt_u64(buf, secs * 1000000u + ns / 1000, 1);
    buf[n++] = '.';
    numfmt_3(buf + n, (unsigned)(ns % 1000));
    return n + 3;
}

static void chrome_ts(struct export *x, uint64_t ticks)
{
    char buf[32];

    fwrite_unlocked(buf, 1, put_ts(x, buf, ticks), x->out);
}

/* A metadata event of track tid: {"ph":"M",...,"name":WHAT,"args":{KEY:VALUE}}. */
static void chrome_meta(struct export *x, uint32_t tid, const char *what, const char *key,
                        const char *value)
{
    fprintf(x->out, "%s\n{\"ph\":\"M\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32
                    ",\"name\":\"%s\",\"args\":{\"%s\":",
            x->first ? "" : ",", x->o.pid, tid, what, key);
    json_str(x->out, value);
    fputs_unlocked("}}", x->out);
    x->first = 0;
}

/* The function's name for an address as a JSON string, from the cache or looked up. */
static const char *json_name(struct export *x, uint64_t addr, char *buf, size_t len)
{
    unsigned i = (unsigned)(addr ^ addr >> 10) & (NAME_CACHE - 1);
    char name[512];

    if (x->names[i].json && x->names[i].addr == addr)
        return x->names[i].json;
    render_addr(x->o.sym, x->o.bias, addr, name, sizeof name);
    if (len < 6 * sizeof name + 3)
        return "\"?\"";
    json_put(buf, name);
    free(x->names[i].json);
    if ((x->names[i].json = strdup(buf)))
        x->names[i].addr = addr;
    return buf;
}

/* Starts an event: {"ph":PH,"pid":..,"tid":..,"ts":T */
static void chrome_begin_tid(struct export *x, uint32_t tid, const char *ph, uint64_t t)
{
    char buf[160];
    size_t n = 0;

    if (!x->first)
        buf[n++] = ',';
    x->first = 0;
    memcpy(buf + n, "\n{\"ph\":\"", 8);
    n += 8;
    memcpy(buf + n, ph, strlen(ph));
    n += strlen(ph);
    memcpy(buf + n, "\",\"pid\":", 8);
    n += 8;
    n += numfmt_u64(buf + n, x->o.pid, 1);
    memcpy(buf + n, ",\"tid\":", 7);
    n += 7;
    n += numfmt_u64(buf + n, tid, 1);
    memcpy(buf + n, ",\"ts\":", 6);
    n += 6;
    n += put_ts(x, buf + n, t);
    fwrite_unlocked(buf, 1, n, x->out);
}

static void chrome_begin(struct export *x, struct xctx *c, const char *ph, uint64_t t)
{
    chrome_begin_tid(x, c->id, ph, t);
}

static void chrome_name(struct export *x, uint64_t addr)
{
    char buf[6 * 512 + 3];

    fputs_unlocked(",\"name\":", x->out);
    fputs_unlocked(json_name(x, addr, buf, sizeof buf), x->out);
}

/* A wrapped call's values as the event's args: {"a":"2","b":"\"two\""} at its begin, and
 * {"return":"5"} at its end (the viewers merge the two), the values written as C. */
static void chrome_args(struct export *x, uint64_t addr, const struct wval_set *vals, int ret)
{
    const struct wsig_fn *sig = sym_wrapped_sig(x->o.sym, addr - x->o.bias);
    char text[512], key[32]; /* json_str takes 511 characters */
    int first = 1;

    fputs_unlocked(",\"args\":{", x->out);
    for (unsigned i = 0; i < vals->n; i++) {
        const struct wval *v = &vals->v[i];
        const struct wsig_value *p = v->idx == CYG_VAL_RET ? (sig ? &sig->ret : NULL)
                                     : sig && v->idx < sig->n ? &sig->p[v->idx] : NULL;

        if ((v->idx == CYG_VAL_RET) != ret)
            continue;
        if (!first)
            fputs_unlocked(",", x->out);
        first = 0;
        if (ret)
            snprintf(key, sizeof key, "return");
        else if (!p || !p->name)
            snprintf(key, sizeof key, "arg%u", v->idx);
        json_str(x->out, ret || !p || !p->name ? key : p->name);
        fputs_unlocked(":", x->out);
        wval_text(v, p, text, sizeof text);
        json_str(x->out, text);
    }
    fputs_unlocked("}", x->out);
}

static void chrome_end_call(struct export *x, struct xctx *c, uint64_t addr, uint64_t t)
{
    chrome_begin(x, c, "E", t);
    chrome_name(x, addr);
    fputs_unlocked("}", x->out);
}

/* ---- the accounting */

/* A call ends: dur its time, kids its children's; caller is its caller's address (0: not
 * known). */
static void account(struct xctx *c, unsigned d, uint64_t addr, uint64_t dur, uint64_t kids)
{
    struct export *x = c->x;
    uint64_t self = dur > kids ? dur - kids : 0;
    uint64_t caller = d && c->lvl[d - 1].open ? c->lvl[d - 1].addr : 0;
    long k;

    if (x->o.format == EXPORT_FOLDED) {
        uint32_t parent = d && c->lvl[d - 1].open ? c->lvl[d - 1].node : 0;

        if (d < c->n && c->lvl[d].open && c->lvl[d].addr == addr)
            k = c->lvl[d].node;
        else
            k = node_of(x, parent, addr);
        if (k < 0)
            x->failed = 1;
        else
            x->nodes[k].self += self;
    } else if (x->o.format == EXPORT_CALLGRIND) {
        if ((k = node_of(x, addr, 0)) < 0) {
            x->failed = 1;
            return;
        }
        x->nodes[k].self += self;
        x->nodes[k].calls++;
        if (caller) {
            if ((k = node_of(x, caller, addr)) < 0) {
                x->failed = 1;
                return;
            }
            x->nodes[k].calls++;
            x->nodes[k].incl += dur;
        }
    }
}

static void to_parent(struct xctx *c, unsigned d, uint64_t dur, uint64_t end)
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

/* Levels above d that are open vanished without an exit (made unknown by a loss): chrome
 * still closes them, at the last time known inside them. */
static int reach(struct xctx *c, unsigned d)
{
    if (d >= c->cap) {
        unsigned cap = c->cap ? c->cap : 64;
        struct level *l;

        while (cap <= d)
            cap *= 2;
        if (!(l = realloc(c->lvl, cap * sizeof *l)))
            return -1;
        memset(l + c->cap, 0, (cap - c->cap) * sizeof *l);
        c->lvl = l;
        c->cap = cap;
    }
    for (unsigned k = c->n; k-- > d + 1;) {
        if (c->lvl[k].open && c->x->o.format == EXPORT_CHROME)
            chrome_end_call(c->x, c, c->lvl[k].addr, c->lvl[k].last);
        c->lvl[k] = (struct level){0};
    }
    if (c->n < d + 1)
        c->n = d + 1;
    return 0;
}

static void base_at(struct xctx *c, uint64_t t)
{
    if (c->need_base) {
        c->need_base = 0;
        c->t_base = t;
    }
}

static void x_enter(void *arg, const struct tree_frame *f, unsigned d)
{
    struct xctx *c = arg;
    struct export *x = c->x;
    struct level *l;
    long node = 0;

    base_at(c, f->t_enter);
    if (reach(c, d) < 0) {
        x->failed = 1;
        return;
    }
    l = &c->lvl[d];
    if (l->open && x->o.format == EXPORT_CHROME) /* the level was open at d: it vanished */
        chrome_end_call(x, c, l->addr, l->last);
    if (x->o.format == EXPORT_FOLDED &&
        (node = node_of(x, d && c->lvl[d - 1].open ? c->lvl[d - 1].node : 0, f->addr)) < 0) {
        x->failed = 1;
        node = 0;
    }
    *l = (struct level){.addr = f->addr, .node = (uint32_t)node, .open = 1,
                        .t_enter = f->t_enter, .last = f->t_enter};
    c->n = d + 1;
    if (d && c->lvl[d - 1].last < f->t_enter)
        c->lvl[d - 1].last = f->t_enter;
    if (x->o.format == EXPORT_CHROME) {
        chrome_begin(x, c, "B", f->t_enter);
        chrome_name(x, f->addr);
        if (f->vals)
            chrome_args(x, f->addr, f->vals, 0);
        fputs_unlocked("}", x->out);
    }
}

/* A call open at level d ends at end (known from its entry); vals: a wrapped call's values
 * with its return value, or NULL. */
static void close_known(struct xctx *c, unsigned d, uint64_t end, const struct wval_set *vals)
{
    struct level *l = &c->lvl[d];
    uint64_t dur = span(l->t_enter, end);

    account(c, d, l->addr, dur, l->kids);
    to_parent(c, d, dur, end);
    if (c->x->o.format != EXPORT_CHROME)
        return;
    if (vals && wval_ret(vals)) {
        chrome_begin(c->x, c, "E", end);
        chrome_name(c->x, l->addr);
        chrome_args(c->x, l->addr, vals, 1);
        fputs_unlocked("}", c->x->out);
    } else {
        chrome_end_call(c->x, c, l->addr, end);
    }
}

static void x_exit(void *arg, const struct tree_frame *f, unsigned d, uint64_t t,
                   enum tree_exit_how how)
{
    struct xctx *c = arg;
    struct export *x = c->x;
    struct level *l;

    base_at(c, t);
    if (reach(c, d) < 0) {
        x->failed = 1;
        return;
    }
    l = &c->lvl[d];
    if (how == TREE_RETURNED && l->open && l->addr == f->addr) {
        close_known(c, d, t, f->vals);
    } else if (how == TREE_ABANDONED && l->open) {
        close_known(c, d, l->last, NULL);
    } else {
        /* Entered before the trace (or a loss): known from the context's first event since. */
        uint64_t dur = span(c->t_base, t);

        if (l->open && x->o.format == EXPORT_CHROME)
            chrome_end_call(x, c, l->addr, l->last);
        l->open = 0;
        account(c, d, f->addr, dur, l->kids_base);
        to_parent(c, d, dur, t);
        if (x->o.format == EXPORT_CHROME) {
            chrome_begin(x, c, "X", c->t_base);
            fputs_unlocked(",\"dur\":", x->out);
            chrome_ts(x, dur);
            chrome_name(x, f->addr);
            fputs_unlocked(",\"args\":{\"entered\":\"before the trace\"}}", x->out);
        }
    }
    *l = (struct level){0};
    c->n = d;
}

static void x_special(void *arg, const struct ev *e, unsigned d)
{
    struct xctx *c = arg;
    struct export *x = c->x;
    char buf[512];

    (void)d;
    if (e->kind == EV_LOST) {
        c->need_base = 1;
        for (unsigned k = 0; k < c->n; k++)
            c->lvl[k].kids_base = 0;
    }
    if (x->o.format != EXPORT_CHROME)
        return;
    if (e->kind == EV_MARK) {
        render_mark_text(e, buf, sizeof buf);
    } else if (e->kind == EV_TRIGGER) {
        struct render_namer nm = {x->o.sym, x->o.bias, 0, {0}};

        render_trigger_text(&nm, NULL, e, buf, sizeof buf);
    } else if (e->kind == EV_FAULT)
        render_fault_text(x->o.sym, x->o.bias, 16, e, NULL, buf, sizeof buf);
    else if (e->kind == EV_LOST)
        snprintf(buf, sizeof buf, "%" PRIu64 " events lost", e->addr);
    else
        return;
    chrome_begin(x, c, "i", e->time);
    fputs_unlocked(",\"s\":\"t\",\"name\":", x->out);
    json_str(x->out, buf);
    fputs_unlocked("}", x->out);
}

static void x_finish(void *arg, const struct tree_frame *stack, unsigned n)
{
    struct xctx *c = arg;

    (void)stack, (void)n;
    for (unsigned d = c->n; d-- > 0;)
        if (c->lvl[d].open)
            close_known(c, d, c->lvl[d].last, NULL);
    if (c->lvl) /* none yet when no call came (a filter left them all out): memset(NULL) is UB */
        memset(c->lvl, 0, c->cap * sizeof *c->lvl);
    c->n = 0;
    c->need_base = 1;
}

/* ---- the writer */

struct export *export_new(FILE *out, const struct export_opts *o)
{
    struct export *x = calloc(1, sizeof *x);

    if (!x)
        return NULL;
    x->out = out;
    x->o = *o;
    x->first = 1;
    if (o->format == EXPORT_CHROME)
        fputs_unlocked("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", out);
    else if (o->format == EXPORT_FOLDED && node_of(x, 0, 0) < 0) { /* node 0: the root */
        free(x);
        return NULL;
    }
    return x;
}

int export_parse_format(const char *s, enum export_format *f)
{
    if (!strcmp(s, "chrome"))
        *f = EXPORT_CHROME;
    else if (!strcmp(s, "folded"))
        *f = EXPORT_FOLDED;
    else if (!strcmp(s, "callgrind"))
        *f = EXPORT_CALLGRIND;
    else
        return -1;
    return 0;
}

const struct tree_sink *export_sink(struct export *x, uint32_t ctx, uint64_t os_tid)
{
    struct xctx *c, **p = realloc(x->ctx, (x->nctx + 1) * sizeof *p);

    if (!p)
        return NULL;
    x->ctx = p;
    if (!(c = calloc(1, sizeof *c)))
        return NULL;
    x->ctx[x->nctx++] = c;
    c->x = x;
    c->id = ctx;
    c->need_base = 1;
    c->sink = (struct tree_sink){c, x_enter, x_exit, x_special, x_finish, NULL};
    if (x->o.format == EXPORT_CHROME) {
        const char *task = x->nm ? names_ctx(x->nm, ctx) : NULL;
        char name[NAMES_MAX + 64];

        if (!ctxtab_find(&x->tracks, ctx) && !ctxtab_add(&x->tracks, ctx, 1))
            return NULL;
        if (task)
            snprintf(name, sizeof name, "%s", task);
        else if (os_tid)
            snprintf(name, sizeof name, "%s %" PRIu32 " (tid %" PRIu64 ")", x->o.ctx_word, ctx,
                     os_tid);
        else
            snprintf(name, sizeof name, "%s %" PRIu32, x->o.ctx_word, ctx);
        chrome_meta(x, ctx, "thread_name", "name", name);
    }
    return &c->sink;
}

void export_names(struct export *x, const struct names *n)
{
    x->nm = n;
}

/* The track of context id gets its name (a context with no calls has none yet). */
static void task_track(struct export *x, uint32_t id)
{
    char name[NAMES_MAX + 64];

    if (ctxtab_find(&x->tracks, id))
        return;
    if (!ctxtab_add(&x->tracks, id, 1)) {
        x->failed = 1;
        return;
    }
    taskstat_name(x->nm, x->o.sym, x->o.bias, id, name, sizeof name);
    chrome_meta(x, id, "thread_name", "name", name);
}

void export_taskstat_span(void *arg, const struct taskstat_span *sp)
{
    struct export *x = arg;
    char name[NAMES_MAX + 64];

    if (x->o.format != EXPORT_CHROME)
        return;
    if (!x->cpu_track) { /* first on the screen: the one row that says who ran when */
        x->cpu_track = 1;
        chrome_meta(x, EXPORT_CPU_TID, "thread_name", "name", "CPU");
        fprintf(x->out, ",\n{\"ph\":\"M\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32
                        ",\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":-1}}",
                x->o.pid, EXPORT_CPU_TID);
    }
    task_track(x, sp->id);
    if (sp->kind == TASKSTAT_RUN) {
        taskstat_name(x->nm, x->o.sym, x->o.bias, sp->id, name, sizeof name);
        chrome_begin_tid(x, EXPORT_CPU_TID, "X", sp->from);
    } else {
        taskstat_block_text(x->nm, sp, name, sizeof name);
        chrome_begin_tid(x, sp->id, "X", sp->from);
    }
    fputs_unlocked(",\"dur\":", x->out);
    chrome_ts(x, span(sp->from, sp->to));
    fputs_unlocked(",\"name\":", x->out);
    json_str(x->out, name);
    if (sp->kind == TASKSTAT_BLOCKED && sp->have_waker) {
        taskstat_name(x->nm, x->o.sym, x->o.bias, sp->waker, name, sizeof name);
        fputs_unlocked(",\"args\":{\"woken by\":", x->out);
        json_str(x->out, name);
        fputs_unlocked("}", x->out);
    }
    fputs_unlocked("}", x->out);
}

/* Writes the folded stack of node k (root first, ';' between). */
static void folded_path(struct export *x, size_t k, unsigned depth)
{
    char name[512];

    if (!k)
        return;
    if (depth < 100000)
        folded_path(x, x->nodes[k].a, depth + 1);
    render_addr(x->o.sym, x->o.bias, x->nodes[k].b, name, sizeof name);
    for (char *p = name; *p; p++) /* the format's separators */
        if (*p == ';' || *p == ' ')
            *p = '_';
    if (x->nodes[k].a)
        putc_unlocked(';', x->out);
    fputs_unlocked(name, x->out);
}

static int cmp_pair(const void *pa, const void *pb)
{
    const struct node *a = pa, *b = pb;

    if (a->a != b->a)
        return a->a < b->a ? -1 : 1;
    if (a->b != b->b) /* the function's own entry (b = 0) first, then its callees */
        return a->b < b->b ? -1 : 1;
    return 0;
}

static void cg_name(struct export *x, const char *key, uint64_t addr)
{
    char name[512];

    render_addr(x->o.sym, x->o.bias, addr, name, sizeof name);
    fprintf(x->out, "%s=%s\n", key, name);
}

/* The source file (x->files index plus 1, 0 when the DWARF does not say) and first line of
 * the function at run-time address addr. O(files) per function: a trace calls few. */
static void cg_source(struct export *x, uint64_t addr, uint32_t *file, uint32_t *line)
{
    char path[1024];
    unsigned l;
    size_t i;

    *file = *line = 0;
    if (!x->o.dwarf ||
        dwarf_src_func(x->o.dwarf, addr - x->o.bias, path, sizeof path, &l, NULL, 0) != 0)
        return;
    for (i = 0; i < x->nfiles && strcmp(x->files[i], path); i++)
        ;
    if (i == x->nfiles) {
        char **f = realloc(x->files, (x->nfiles + 1) * sizeof *f);

        if (!f)
            return;
        x->files = f;
        if (!(f[i] = strdup(path)))
            return;
        x->nfiles++;
    }
    *file = (uint32_t)i + 1;
    *line = l;
}

/* Every function's source, and each pair's callee's, looked up while the map still finds
 * the function of a callee (the sort moves the nodes). */
static void cg_sources(struct export *x)
{
    for (size_t i = 0; i < x->nn; i++)
        if (!x->nodes[i].b)
            cg_source(x, x->nodes[i].a, &x->nodes[i].file, &x->nodes[i].line);
    for (size_t i = 0; i < x->nn; i++) {
        long k;

        if (x->nodes[i].b && (k = node_of(x, x->nodes[i].b, 0)) >= 0) {
            x->nodes[i].file = x->nodes[k].file;
            x->nodes[i].line = x->nodes[k].line;
        }
    }
}

static const char *cg_file(const struct export *x, uint32_t file)
{
    return file ? x->files[file - 1] : "???";
}

static void callgrind(struct export *x)
{
    const struct node *fn = NULL;
    uint64_t total = 0;

    cg_sources(x);
    if (x->nn) /* qsort(NULL, 0) is undefined */
        qsort(x->nodes, x->nn, sizeof *x->nodes, cmp_pair);
    for (size_t i = 0; i < x->nn; i++)
        if (!x->nodes[i].b)
            total += x->nodes[i].self;
    fprintf(x->out, "# callgrind format\nversion: 1\ncreator: cygtrace\npositions: line\n"
                    "events: Ticks\nsummary: %" PRIu64 "\n",
            total);
    /* A function: its file, name, and self cost at its first line. A call pair after its
     * caller: the callee's file when it is another, name, and the inclusive cost, charged to
     * the caller's first line (the line of the call is not recorded). */
    for (size_t i = 0; i < x->nn; i++) {
        const struct node *n = &x->nodes[i];

        if (!n->b) {
            fn = n;
            fprintf(x->out, "\nfl=%s\n", cg_file(x, n->file));
            cg_name(x, "fn", n->a);
            fprintf(x->out, "%" PRIu32 " %" PRIu64 "\n", n->line, n->self);
        } else {
            if (fn && n->file != fn->file)
                fprintf(x->out, "cfl=%s\n", cg_file(x, n->file));
            cg_name(x, "cfn", n->b);
            fprintf(x->out, "calls=%" PRIu64 " %" PRIu32 "\n%" PRIu32 " %" PRIu64 "\n", n->calls,
                    n->line, fn ? fn->line : 0, n->incl);
        }
    }
}

int export_end(struct export *x)
{
    if (x->o.format == EXPORT_CHROME) {
        fputs_unlocked("\n]}\n", x->out);
    } else if (x->o.format == EXPORT_FOLDED) {
        for (size_t k = 1; k < x->nn; k++) {
            if (!x->nodes[k].self)
                continue;
            folded_path(x, k, 0);
            fprintf(x->out, " %" PRIu64 "\n", x->nodes[k].self);
        }
    } else {
        callgrind(x);
    }
    if (fflush(x->out) != 0 || ferror(x->out))
        return -1;
    return x->failed ? -1 : 0;
}

void export_free(struct export *x)
{
    if (!x)
        return;
    for (unsigned i = 0; i < x->nctx; i++) {
        free(x->ctx[i]->lvl);
        free(x->ctx[i]);
    }
    free(x->ctx);
    ctxtab_free(&x->tracks);
    for (unsigned i = 0; i < NAME_CACHE; i++)
        free(x->names[i].json);
    free(x->map.s);
    free(x->nodes);
    for (size_t i = 0; i < x->nfiles; i++)
        free(x->files[i]);
    free(x->files);
    free(x);
}
