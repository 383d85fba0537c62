/* SPDX-License-Identifier: GPL-3.0-or-later */
/* export.c - chrome, folded and callgrind writers over the time of each call per context
 * (calltime.h: as fnstat counts it). */
#include "output/export.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "model/calltime.h"
#include "model/ctxtab.h"
#include "util/oaindex.h"
#include "util/vec.h"
#include "cyg_format.h"
#include "decode/dec.h"
#include "util/numfmt.h"
#include "output/fmt.h"
#include "output/perfetto.h"
#include "symbols/wsig.h"

/* One level of a context's stack (calltime.h). */
struct level {
    struct calltime_level ct;
    uint32_t node; /* folded: the stack's node */
};

struct xctx {
    struct export *x;
    uint32_t id;
    struct calltime stack; /* struct level, and the sink */
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
    size_t ctx_cap;
    struct node *nodes;
    size_t nn, ncap;
    struct oaindex nodes_ix; /* (a, b) -> node */
    char **files; /* callgrind: the source files named so far */
    size_t nfiles, files_cap;
    int first; /* chrome: no event written yet */
    uint64_t failed; /* events not accounted for (out of memory) */
    const struct names *nm;    /* the contexts' and objects' names, or NULL */
    struct ctxtab tracks;      /* chrome: the contexts whose track has its name */
    int cpu_track;             /* chrome: the CPU track has its name */
    struct perfetto *pf;       /* perfetto: the writer that does it all (perfetto.h) */
};

static uint64_t pair_hash(uint64_t a, uint64_t b)
{
    return oaindex_hash_u64(a * UINT64_C(0x9e3779b97f4a7c15) ^ b);
}

static uint64_t node_hash(const void *arg, size_t pos)
{
    const struct node *n = &((const struct export *)arg)->nodes[pos];

    return pair_hash(n->a, n->b);
}

static int node_match(const void *arg, size_t pos, const void *key)
{
    const struct node *n = &((const struct export *)arg)->nodes[pos];
    const uint64_t *k = key;

    return n->a == k[0] && n->b == k[1];
}

/* The node for (a, b), made when new; -1 when out of memory. */
static long node_of(struct export *x, uint64_t a, uint64_t b)
{
    const uint64_t key[2] = {a, b};
    uint64_t h = pair_hash(a, b);
    size_t pos = oaindex_find(&x->nodes_ix, h, node_match, x, key), *slot;

    if (pos != SIZE_MAX)
        return (long)pos;
    if (vec_grow(&x->nodes, &x->ncap, x->nn, sizeof *x->nodes, 1024) < 0 ||
        oaindex_reserve(&x->nodes_ix, 2048, node_hash, x) < 0)
        return -1;
    slot = oaindex_slot(&x->nodes_ix, h, node_match, x, key);
    x->nodes[x->nn] = (struct node){.a = a, .b = b};
    oaindex_put(&x->nodes_ix, slot, x->nn);
    return (long)x->nn++;
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

/* An absolute time: the trace's own (put_ts), or on the merged inputs' common clock, ns as
 * microseconds with 3 decimals, signed (--offset may shift a trace before 0). */
static size_t put_abs(struct export *x, char *buf, uint64_t ticks)
{
    int64_t ns;
    uint64_t u;
    size_t n = 0;

    if (!x->o.tb)
        return put_ts(x, buf, ticks);
    ns = timebase_ns(x->o.tb, ticks);
    if (ns < 0)
        buf[n++] = '-';
    u = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
    n += numfmt_u64(buf + n, u / 1000, 1);
    buf[n++] = '.';
    numfmt_3(buf + n, (unsigned)(u % 1000));
    return n + 3;
}

static void chrome_ts(struct export *x, uint64_t ticks)
{
    char buf[32];

    fwrite_unlocked(buf, 1, put_ts(x, buf, ticks), x->out);
}

/* The duration of an interval from start: on the common clock, the difference of its ends
 * there (the fitted rate applies to it too). */
static void chrome_dur(struct export *x, uint64_t start, uint64_t dur)
{
    int64_t d;

    if (!x->o.tb) {
        chrome_ts(x, dur);
        return;
    }
    d = timebase_ns(x->o.tb, start + dur) - timebase_ns(x->o.tb, start);
    fprintf(x->out, "%" PRId64 ".%03d", (d < 0 ? 0 : d) / 1000, (int)((d < 0 ? 0 : d) % 1000));
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
    fmt_addr(x->o.sym, x->o.bias, addr, name, sizeof name);
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
    n += put_abs(x, buf + n, t);
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

static struct level *level(struct xctx *c, unsigned d)
{
    return calltime_at(&c->stack, d);
}

/* The level of the caller of a call at depth d, when it is open; else NULL. */
static struct level *caller_of(struct xctx *c, unsigned d)
{
    struct level *p = d ? level(c, d - 1) : NULL;

    return p && p->ct.open ? p : NULL;
}

/* folded: the node of a call of addr at depth d, the child of its caller's (the root's when
 * not known). -1 when out of memory. */
static long folded_node(struct xctx *c, unsigned d, uint64_t addr)
{
    const struct level *p = caller_of(c, d);

    return node_of(c->x, p ? p->node : 0, addr);
}

/* A call at depth d ends: its self time goes to its stack (folded), its function and its
 * caller's call of it (callgrind). */
static void account(struct xctx *c, unsigned d, const struct calltime_call *call)
{
    struct export *x = c->x;
    const struct level *l = level(c, d), *p = caller_of(c, d);
    uint64_t self = call->dur > call->kids ? call->dur - call->kids : 0;
    long k;

    if (x->o.format == EXPORT_FOLDED) {
        k = l->ct.open && l->ct.addr == call->addr ? (long)l->node
                                                   : folded_node(c, d, call->addr);
        if (k < 0)
            x->failed = 1;
        else
            x->nodes[k].self += self;
    } else if (x->o.format == EXPORT_CALLGRIND) {
        if ((k = node_of(x, call->addr, 0)) < 0) {
            x->failed = 1;
            return;
        }
        x->nodes[k].self += self;
        x->nodes[k].calls++;
        if (p) {
            if ((k = node_of(x, p->ct.addr, call->addr)) < 0) {
                x->failed = 1;
                return;
            }
            x->nodes[k].calls++;
            x->nodes[k].incl += call->dur;
        }
    }
}

static int x_open(void *arg, struct calltime *ct, unsigned d, const struct tree_frame *f)
{
    struct xctx *c = arg;
    struct export *x = c->x;
    long node = 0;

    (void)ct;
    if (x->o.format == EXPORT_FOLDED && (node = folded_node(c, d, f->addr)) < 0) {
        x->failed = 1;
        node = 0;
    }
    level(c, d)->node = (uint32_t)node;
    if (x->o.format == EXPORT_CHROME) {
        chrome_begin(x, c, "B", f->t_enter);
        chrome_name(x, f->addr);
        if (f->vals)
            chrome_args(x, f->addr, f->vals, 0);
        fputs_unlocked("}", x->out);
    }
    return 0;
}

/* chrome: a call known from its entry ends with an E event (a wrapped call's with its return
 * value); one entered before the trace is an X event from the context's first event since. */
static int x_close(void *arg, struct calltime *ct, unsigned d, const struct calltime_call *call)
{
    struct xctx *c = arg;
    struct export *x = c->x;

    (void)ct;
    account(c, d, call);
    if (x->o.format != EXPORT_CHROME)
        return 0;
    if (call->how == CALLTIME_BEFORE) {
        chrome_begin(x, c, "X", call->start);
        fputs_unlocked(",\"dur\":", x->out);
        chrome_dur(x, call->start, call->dur);
        chrome_name(x, call->addr);
        fputs_unlocked(",\"args\":{\"entered\":\"before the trace\"}}", x->out);
    } else if (call->vals && wval_ret(call->vals)) {
        chrome_begin(x, c, "E", call->end);
        chrome_name(x, call->addr);
        chrome_args(x, call->addr, call->vals, 1);
        fputs_unlocked("}", x->out);
    } else {
        chrome_end_call(x, c, call->addr, call->end);
    }
    return 0;
}

/* A level open without an exit vanished (made unknown by a loss): chrome still closes it, at
 * the last time known inside it. */
static void x_drop(void *arg, struct calltime *ct, unsigned d)
{
    struct xctx *c = arg;
    const struct level *l = level(c, d);

    (void)ct;
    if (l->ct.open && c->x->o.format == EXPORT_CHROME)
        chrome_end_call(c->x, c, l->ct.addr, l->ct.last);
}

/* chrome: marks, triggers, faults and losses as instant events. */
static void x_special(void *arg, struct calltime *ct, const struct ev *e, unsigned d)
{
    struct xctx *c = arg;
    struct export *x = c->x;
    char buf[512];

    (void)ct, (void)d;
    if (x->o.format != EXPORT_CHROME)
        return;
    if (e->kind == EV_MARK) {
        fmt_mark(e, buf, sizeof buf);
    } else if (e->kind == EV_TRIGGER) {
        struct fmt_namer nm = {x->o.sym, x->o.bias, 0, {0}};

        fmt_trigger(&nm, NULL, e, buf, sizeof buf);
    } else if (e->kind == EV_FAULT)
        fmt_fault(x->o.sym, x->o.bias, 16, e, NULL, buf, sizeof buf);
    else if (e->kind == EV_LOST)
        snprintf(buf, sizeof buf, "%" PRIu64 " events lost", e->addr);
    else
        return;
    chrome_begin(x, c, "i", e->time);
    fputs_unlocked(",\"s\":\"t\",\"name\":", x->out);
    json_str(x->out, buf);
    fputs_unlocked("}", x->out);
}

static const struct calltime_ops x_ops = {x_open, x_close, x_drop, x_special, NULL};

/* ---- the writer */

struct export *export_new(FILE *out, const struct export_opts *o)
{
    struct export *x = calloc(1, sizeof *x);

    if (!x)
        return NULL;
    x->out = out;
    x->o = *o;
    x->first = 1;
    if (o->format == EXPORT_PERFETTO && !(x->pf = perfetto_new(out, o))) {
        free(x);
        return NULL;
    }
    if (o->format == EXPORT_CHROME) {
        fputs_unlocked("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", out);
        if (o->process)
            chrome_meta(x, 0, "process_name", "name", o->process);
    } else if (o->format == EXPORT_FOLDED && node_of(x, 0, 0) < 0) { /* node 0: the root */
        free(x);
        return NULL;
    }
    return x;
}

void export_input(struct export *x, const struct export_opts *o)
{
    enum export_format f = x->o.format;

    x->o = *o;
    x->o.format = f;
    for (unsigned i = 0; i < NAME_CACHE; i++) { /* another ELF: the addresses name others */
        free(x->names[i].json);
        x->names[i].json = NULL;
    }
    ctxtab_free(&x->tracks); /* another process: its tracks get their names anew */
    x->cpu_track = 0;
    x->nm = NULL;
    if (x->pf)
        perfetto_input(x->pf, o);
    if (f == EXPORT_CHROME && o->process)
        chrome_meta(x, 0, "process_name", "name", o->process);
}

int export_parse_format(const char *s, enum export_format *f)
{
    if (!strcmp(s, "chrome"))
        *f = EXPORT_CHROME;
    else if (!strcmp(s, "folded"))
        *f = EXPORT_FOLDED;
    else if (!strcmp(s, "callgrind"))
        *f = EXPORT_CALLGRIND;
    else if (!strcmp(s, "perfetto"))
        *f = EXPORT_PERFETTO;
    else if (!strcmp(s, "sqlite"))
        *f = EXPORT_SQLITE;
    else
        return -1;
    return 0;
}

const struct tree_sink *export_sink(struct export *x, uint32_t ctx, uint64_t os_tid, int vfork)
{
    struct xctx *c;

    if (x->pf)
        return perfetto_sink(x->pf, ctx, os_tid, vfork);
    /* doubled: a crafted trace may have 200 000 contexts */
    if (vec_grow(&x->ctx, &x->ctx_cap, x->nctx, sizeof *x->ctx, 16) < 0 ||
        !(c = calloc(1, sizeof *c)))
        return NULL;
    x->ctx[x->nctx++] = c;
    c->x = x;
    c->id = ctx;
    calltime_init(&c->stack, &x_ops, c, sizeof(struct level), NULL, &x->failed);
    if (x->o.format == EXPORT_CHROME) {
        char name[512];

        if (!ctxtab_find(&x->tracks, ctx) && !ctxtab_add(&x->tracks, ctx, 1))
            return NULL;
        names_ctx_label(x->nm, x->o.sym, x->o.bias, x->o.word_bytes, ctx, os_tid, vfork, name,
                        sizeof name);
        chrome_meta(x, ctx, "thread_name", "name", name);
    }
    return calltime_sink(&c->stack);
}

void export_names(struct export *x, const struct names *n)
{
    x->nm = n;
    if (x->pf)
        perfetto_names(x->pf, n);
}

/* The track of context id gets its name (a context with no calls has none yet). */
static void task_track(struct export *x, uint32_t id)
{
    char name[512];

    if (ctxtab_find(&x->tracks, id))
        return;
    if (!ctxtab_add(&x->tracks, id, 1)) {
        x->failed = 1;
        return;
    }
    names_ctx_label(x->nm, x->o.sym, x->o.bias, x->o.word_bytes, id, 0, 0, name, sizeof name);
    chrome_meta(x, id, "thread_name", "name", name);
}

void export_taskstat_span(void *arg, const struct taskstat_span *sp)
{
    struct export *x = arg;
    char name[NAMES_MAX + 64];

    if (x->pf)
        perfetto_span(x->pf, sp);
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
        names_ctx_text(x->nm, x->o.sym, x->o.bias, sp->id, 0, name, sizeof name);
        chrome_begin_tid(x, EXPORT_CPU_TID, "X", sp->from);
    } else {
        fmt_block(x->nm, sp->objtype, sp->obj, sp->op, FMT_BLOCK_INTERVAL, name, sizeof name);
        chrome_begin_tid(x, sp->id, "X", sp->from);
    }
    fputs_unlocked(",\"dur\":", x->out);
    chrome_dur(x, sp->from, tree_span(sp->from, sp->to));
    fputs_unlocked(",\"name\":", x->out);
    json_str(x->out, name);
    if (sp->kind == TASKSTAT_BLOCKED && sp->have_waker) {
        names_ctx_text(x->nm, x->o.sym, x->o.bias, sp->waker, 0, name, sizeof name);
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
    fmt_addr(x->o.sym, x->o.bias, x->nodes[k].b, name, sizeof name);
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

    fmt_addr(x->o.sym, x->o.bias, addr, name, sizeof name);
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
        if (vec_grow(&x->files, &x->files_cap, x->nfiles, sizeof *x->files, 16) < 0 ||
            !(x->files[i] = strdup(path)))
            return;
        x->nfiles++;
    }
    *file = (uint32_t)i + 1;
    *line = l;
}

/* Every function's source, and each pair's callee's, looked up while the index still finds
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

uint64_t export_early(const struct export *x)
{
    return x->pf ? perfetto_early(x->pf) : 0;
}

int export_end(struct export *x, char *err, size_t errlen)
{
    if (x->pf)
        return perfetto_end(x->pf, err, errlen);
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
    if (fflush(x->out) != 0 || ferror(x->out)) {
        snprintf(err, errlen, "cannot write: %s", errno ? strerror(errno) : "I/O error");
        return -1;
    }
    if (x->failed) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

void export_free(struct export *x)
{
    if (!x)
        return;
    perfetto_free(x->pf);
    for (unsigned i = 0; i < x->nctx; i++) {
        calltime_free(&x->ctx[i]->stack);
        free(x->ctx[i]);
    }
    free(x->ctx);
    ctxtab_free(&x->tracks);
    for (unsigned i = 0; i < NAME_CACHE; i++)
        free(x->names[i].json);
    oaindex_free(&x->nodes_ix);
    free(x->nodes);
    for (size_t i = 0; i < x->nfiles; i++)
        free(x->files[i]);
    free(x->files);
    free(x);
}
