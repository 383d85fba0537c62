/* SPDX-License-Identifier: GPL-3.0-or-later */
/* render.c - the text styles of the call tree. */
#include "output/render.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cyg_format.h"
#include "output/fmt.h"
#include "output/srcline.h"
#include "symbols/wsig.h"
#include "util/numfmt.h"

/* A call entered but not yet shown: whether it is a leaf is known only at the next event. */
struct open_call {
    int active;
    uint64_t addr;
    uint64_t t_enter; /* its entry's time, 0 if unknown (RENDER_TIME) */
    uint64_t site; /* the site its line shows (own_site) */
    unsigned depth;
    const struct wval_set *vals; /* a wrapped call's arguments, or NULL */
};

/* A run of consecutive identical leaf calls, shown as one line when it ends. */
struct leaf_run {
    int active;
    uint64_t addr;
    uint64_t t_first; /* the first call's entry time, 0 if unknown (RENDER_TIME) */
    uint64_t site; /* the first call's */
    unsigned depth;
    uint64_t count;
    uint64_t ticks;
    const struct wval_set *vals; /* a wrapped call's values (never folded), or NULL */
};

#define OUT_BYTES (1u << 16)
#define INDENT_LEVELS 64u
#define NAME_CACHE 1024u /* direct-mapped: traces call few functions over and over */
/* Bytes after a cached name that may be read: line_start copies names 16 bytes at a time. */
#define NAME_PAD 16u

struct name_slot {
    uint64_t addr;
    char *name; /* NULL: empty slot; else a copy (demangled) with NAME_PAD bytes after it */
    size_t len;
    unsigned exc; /* Cortex-M: the exception it handles (sym_exception), 0: none */
};

#define VALUE_TEXT 600 /* one value as C: a string of 128 bytes, each maybe 4 */
#define ARGS_TEXT 2048 /* a call's arguments */
#define WRAP_CACHE 64u

struct wrap_slot {
    int valid;
    uint64_t addr; /* a wrapper's */
    uint64_t real; /* the function it wraps, 0 when not in the image */
};

#define BRACES_DEPTH 256 /* depths whose function the braces style keeps */
#define DUR_TABLE 4096u  /* durations of fewer ticks than this come from a table */

struct render {
    FILE *out;
    char buf[OUT_BYTES]; /* lines are built here and written out in large blocks */
    size_t n;
    char indent[INDENT_LEVELS * 4]; /* the style's indent unit, repeated */
    size_t unit;
    struct name_slot names[NAME_CACHE];
    struct srcline *src;     /* when o.show asks for the DWARF's lines or signatures */
    struct wrap_slot wraps[WRAP_CACHE];
    uint32_t *dur_ns;        /* the ns of 0 .. DUR_TABLE - 1 ticks, or NULL (no clock rate,
                                or a rate so slow that they do not fit) */
    struct render_opts o;
    const struct sym_table *sym;
    uint64_t bias;
    int fast; /* tree style, names only, no colour: lines may use line_start */
    struct tree_sink sink;
    struct open_call open;
    struct leaf_run run;
    uint64_t braces_fn[BRACES_DEPTH]; /* braces: the function entered at each depth, for an
                                         inlined call's line (its site is not its own) */
    int stopped;         /* a STOP record was seen: show the next START */
    int fault_pending;   /* a fault record waits for its LR record */
    struct ev fault;
};

/* Output goes through our own buffer: stdio's per-call cost was the decoder's hot spot. */
static void out_flush(struct render *r)
{
    fwrite(r->buf, 1, r->n, r->out);
    r->n = 0;
}

/* Rare: the buffer is full, or len alone is larger than it. */
static void __attribute__((noinline)) out_big(struct render *r, const char *p, size_t len)
{
    out_flush(r);
    if (len > sizeof r->buf) {
        fwrite(p, 1, len, r->out);
        return;
    }
    memcpy(r->buf, p, len);
    r->n = len;
}

/* Inlined: most pieces of a line are a few bytes, often a constant string whose length the
 * compiler knows. */
static inline __attribute__((always_inline)) void out_mem(struct render *r, const char *p,
                                                          size_t len)
{
    if (__builtin_expect(r->n + len > sizeof r->buf, 0)) {
        out_big(r, p, len);
        return;
    }
    memcpy(r->buf + r->n, p, len);
    r->n += len;
}

static inline __attribute__((always_inline)) void out_str(struct render *r, const char *s)
{
    out_mem(r, s, strlen(s));
}

static inline __attribute__((always_inline)) void out_chr(struct render *r, char c)
{
    if (__builtin_expect(r->n + 1 > sizeof r->buf, 0))
        out_flush(r);
    r->buf[r->n++] = c;
}

static void out_fmt(struct render *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out_fmt(struct render *r, const char *fmt, ...)
{
    char tmp[640];
    va_list ap;
    int len;

    va_start(ap, fmt);
    len = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (len > 0)
        out_mem(r, tmp, (size_t)len < sizeof tmp ? (size_t)len : sizeof tmp - 1);
}

/* The function's name for an entry address: from the cache, else looked up, and kept when it is
 * a symbol's name (addresses formatted into buf are not). */
static const char *name_of(struct render *r, uint64_t addr, char *buf, size_t len)
{
    struct name_slot *slot = &r->names[(addr ^ addr >> 10) & (NAME_CACHE - 1)];
    const struct sym_info *s;

    if (slot->name && slot->addr == addr)
        return slot->name;
    s = r->sym ? sym_lookup(r->sym, addr - r->bias) : NULL;
    if (s && s->start == addr - r->bias) {
        char *dm = fmt_demangle(s->name, 0);
        const char *wrapped = wsig_wrapped_name(s->name);
        const char *name = dm ? dm : wrapped ? wrapped : s->name;
        size_t n = strlen(name);
        char *copy = calloc(1, n + 1 + NAME_PAD);

        if (copy) {
            memcpy(copy, name, n);
            free(slot->name);
            *slot = (struct name_slot){addr, copy, n, sym_exception(r->sym, s->start)};
        }
        free(dm);
        if (copy)
            return slot->name;
    }
    fmt_addr(r->sym, r->bias, addr, buf, len);
    return buf;
}

/* Writes the function's name (or address) for an entry address. */
static void put_name(struct render *r, uint64_t addr)
{
    struct name_slot *slot = &r->names[(addr ^ addr >> 10) & (NAME_CACHE - 1)];
    char nb[256];

    if (slot->name && slot->addr == addr)
        out_mem(r, slot->name, slot->len);
    else
        out_str(r, name_of(r, addr, nb, sizeof nb));
}

/* srcline's names: the same as the tree's. */
static const char *name_for_srcline(void *arg, uint64_t addr, char *buf, size_t len)
{
    return name_of(arg, addr, buf, len);
}

/* ANSI colours, written only with RENDER_COLOR. */
#define COL_NAME "\033[1m"
#define COL_SLOW "\033[33m"    /* a call of 1 ms or more */
#define COL_SLOWER "\033[1;31m" /* 1 s or more */
#define COL_FAULT "\033[1;31m"
#define COL_TRIGGER "\033[1;33m"
#define COL_NOTE "\033[2m"
#define COL_OFF "\033[0m"

static void col(struct render *r, const char *code)
{
    if (r->o.show & RENDER_COLOR)
        out_str(r, code);
}

/* The call site a frame's line shows: none for an inlined call, whose hooks were given the
 * call site of the function it was inlined into, not a line of its own. */
static uint64_t own_site(const struct tree_frame *f)
{
    return f->inlined ? 0 : f->site;
}

/* Cortex-M: after a function the ELF's vector table names, what it handles ("[interrupt 9]",
 * "[exception 15]": SysTick), from the name cache. */
static void put_handler(struct render *r, uint64_t addr)
{
    const struct name_slot *slot = &r->names[(addr ^ addr >> 10) & (NAME_CACHE - 1)];
    char nb[256];

    if (!(slot->name && slot->addr == addr))
        name_of(r, addr, nb, sizeof nb); /* fills the slot for a function's start */
    if (slot->name && slot->addr == addr && slot->exc)
        out_fmt(r, slot->exc >= 16 ? " [interrupt %u]" : " [exception %u]",
                slot->exc >= 16 ? slot->exc - 16 : slot->exc);
}

static void put_wrapped(struct render *r, uint64_t addr, uint64_t site, const struct wval_set *v,
                        int ret);

/* A call in the tree style: "name()", or with --signatures and --srcline
 * "decide(int i) [demo.c:42] <- demo.c:60". */
static void put_call(struct render *r, uint64_t addr, uint64_t site)
{
    const struct sym_info *s;
    size_t call_len;
    const char *t;

    /* a wrapper: the wrapped function's source, not the generated code's */
    if (r->src && (s = sym_lookup(r->sym, addr - r->bias)) && s->start == addr - r->bias &&
        wsig_wrapped_name(s->name)) {
        put_wrapped(r, addr, site, NULL, 0);
        return;
    }

    if (!r->src) {
        col(r, COL_NAME);
        put_name(r, addr);
        col(r, COL_OFF);
        out_mem(r, "()", 2);
        put_handler(r, addr);
        return;
    }
    t = srcline_fn(r->src, addr, &call_len);
    col(r, COL_NAME);
    out_mem(r, t, call_len);
    col(r, COL_OFF);
    put_handler(r, addr);
    out_str(r, t + call_len);
    if (r->o.show & RENDER_SRCLINE && site && r->o.dwarf)
        out_str(r, srcline_site(r->src, site));
}

/* Whether a frame's line shows its values: a wrapped call's, unless --no-args. */
static const struct wval_set *shown_vals(const struct render *r, const struct tree_frame *f)
{
    return r->o.show & RENDER_NO_ARGS ? NULL : f->vals;
}

/* The signature of the wrapped function whose wrapper starts at addr (run-time), or NULL. */
static const struct wsig_fn *wrapped_sig(struct render *r, uint64_t addr)
{
    return sym_wrapped_sig(r->sym, addr - r->bias);
}

/* The run-time address of the function the wrapper at addr wraps, when the image has it (a
 * static library's) and not only a reference to it (a shared library's); 0 otherwise. Cached:
 * the symbol is looked up by name, one symbol after the other. */
static uint64_t real_function(struct render *r, uint64_t addr, const char *name)
{
    struct wrap_slot *slot = &r->wraps[(addr ^ addr >> 10) & (WRAP_CACHE - 1)];
    uint64_t real;

    if (!slot->valid || slot->addr != addr) {
        slot->valid = 1;
        slot->addr = addr;
        slot->real = sym_find(r->sym, name, &real, NULL) == 0 && real ? real + r->bias : 0;
    }
    return slot->real;
}

/* " = 5" for a call's return value, if it has one. */
static void put_ret(struct render *r, const struct wval_set *vals, const struct wsig_fn *sig)
{
    const struct wval *ret = vals ? wval_ret(vals) : NULL;
    char buf[VALUE_TEXT];

    if (!ret)
        return;
    out_mem(r, " = ", 3);
    out_mem(r, buf, wval_text(ret, sig ? &sig->ret : NULL, buf, sizeof buf));
}

/* A wrapped call: "vend_add(a=2, b=3)", then " = 5" when ret, with the wrapped function's
 * source line under --srcline (the wrapper's own is generated code); v NULL: "vend_add()". */
static void put_wrapped(struct render *r, uint64_t addr, uint64_t site, const struct wval_set *v,
                        int ret)
{
    const struct wsig_fn *sig = wrapped_sig(r, addr);
    const struct sym_info *s = r->sym ? sym_lookup(r->sym, addr - r->bias) : NULL;
    const char *name = s ? wsig_wrapped_name(s->name) : NULL;
    char buf[ARGS_TEXT];
    uint64_t real;
    size_t call_len;

    real = r->src && name ? real_function(r, addr, name) : 0;
    col(r, COL_NAME);
    if (!v && real && r->o.show & RENDER_SIGNATURES) {
        /* no values (or --no-args): the wrapped function's parameters, as --signatures says */
        const char *t = srcline_fn(r->src, real, &call_len);

        out_mem(r, t, call_len);
        col(r, COL_OFF);
    } else {
        put_name(r, addr);
        col(r, COL_OFF);
        out_chr(r, '(');
        if (v) /* NULL: no values, or --no-args */
            out_mem(r, buf, wval_args_text(v, sig, buf, sizeof buf));
        out_chr(r, ')');
    }
    if (ret && v)
        put_ret(r, v, sig);
    put_handler(r, addr);
    if (real)
        out_str(r, srcline_fn(r->src, real, &call_len) + call_len);
    if (r->o.show & RENDER_SRCLINE && site && r->o.dwarf)
        out_str(r, srcline_site(r->src, site));
}

/* The etrace style's name, with " [demo.c:42]" under --srcline. */
static void put_etrace_name(struct render *r, uint64_t addr)
{
    size_t call_len;

    col(r, COL_NAME);
    put_name(r, addr);
    col(r, COL_OFF);
    if (r->src)
        out_str(r, srcline_fn(r->src, addr, &call_len) + call_len);
}

/* The tree's durations: most calls are short, and their ns come from a table filled once
 * with duration_ns (the same doubles: the same rounding), not from a division each. */
static size_t render_duration_text(const struct render *r, uint64_t ticks, char *buf)
{
    if (ticks < DUR_TABLE && r->dur_ns)
        return fmt_ns_text(r->dur_ns[ticks], buf);
    return fmt_duration_text(ticks, r->o.ts_hz, buf);
}

static void indent(struct render *r, unsigned depth)
{
    while (depth) {
        unsigned k = depth < INDENT_LEVELS ? depth : INDENT_LEVELS;

        out_mem(r, r->indent, k * r->unit);
        depth -= k;
    }
}

/* RENDER_TIME's and RENDER_TID's columns, for a line whose time is at (0: unknown, blank):
 * 18 wide, then 8 ("[  7739]"), each right-aligned and followed by two spaces. */
static void lead_cols(struct render *r, uint64_t at)
{
    if (r->o.show & RENDER_TIME && r->o.has_time) {
        if (!at)
            out_fmt(r, "%18s  ", "");
        else if (r->o.ts_hz) {
            uint64_t ns = fmt_duration_ns(at, r->o.ts_hz);

            out_fmt(r, "%8" PRIu64 ".%09" PRIu64 "  ", ns / 1000000000u, ns % 1000000000u);
        } else
            out_fmt(r, "%18" PRIu64 "  ", at);
    }
    if (r->o.show & RENDER_TID)
        out_fmt(r, "[%6" PRIu64 "]  ", r->o.tid);
}

/* The columns before the indent of a tree style line: lead_cols (at: the line's time), then
 * the duration, 12 wide and right-aligned; blank when there is nothing to say. */
static void time_col(struct render *r, int known, uint64_t ticks, uint64_t at)
{
    char d[32];
    size_t n = 0;

    lead_cols(r, at);
    if (!r->o.has_time)
        return;
    if (known)
        n = render_duration_text(r, ticks, d);
    if (n < 12)
        out_mem(r, "            ", 12 - n);
    if (r->o.show & RENDER_COLOR && known && r->o.ts_hz && ticks >= r->o.ts_hz / 1000) {
        col(r, ticks >= r->o.ts_hz ? COL_SLOWER : COL_SLOW);
        out_mem(r, d, n);
        col(r, COL_OFF);
    } else
        out_mem(r, d, n);
    out_mem(r, "  ", 2);
}


/* The tree style's common lines are written straight into the buffer, with stores of a fixed
 * size that may run past the line's end into the room reserved for it (the next line overwrites
 * them): the piecewise writers cost a call and a length check per piece, and lines are short
 * and many. */
#define LINE_SLACK 96u /* room reserved past the name: the longest tail and the overrun */

static const char spaces32[32] = "                                ";

/* The start of a tree-style line: the duration column (blank unless known), the indent, prefix
 * and the name of the function at addr. Returns where the line goes on, with LINE_SLACK bytes
 * of room after it, or NULL when the line is for the piecewise writers: an address that starts
 * no symbol, a Cortex-M handler (its note follows the parentheses), a line longer than the
 * buffer. */
static inline __attribute__((always_inline)) char *line_start(struct render *r, int known,
                                                              uint64_t ticks, unsigned depth,
                                                              const char *prefix, size_t plen,
                                                              uint64_t addr)
{
    const struct name_slot *s = &r->names[(addr ^ addr >> 10) & (NAME_CACHE - 1)];
    size_t ind = (size_t)depth * 2, need;
    char nb[256], *p;

    if (!(s->name && s->addr == addr)) {
        name_of(r, addr, nb, sizeof nb); /* fills the slot for a symbol's start */
        if (!(s->name && s->addr == addr))
            return NULL;
    }
    if (s->exc)
        return NULL;
    /* the column with its 32-byte store, the indent with its 32-byte stores, the rest */
    need = 48 + ind + 32 + plen + s->len + LINE_SLACK;
    if (r->n + need > sizeof r->buf) {
        if (need > sizeof r->buf)
            return NULL;
        out_flush(r);
    }
    p = r->buf + r->n;
    if (r->o.has_time) { /* right-aligned in 12 columns, then two spaces */
        memcpy(p, spaces32, 16);
        if (known) {
            char d[32] = {0};
            size_t n = render_duration_text(r, ticks, d);

            p += n < 12 ? 12 - n : 0;
            memcpy(p, d, 32);
            p += n;
        } else {
            p += 12;
        }
        memcpy(p, "  ", 2);
        p += 2;
    }
    for (size_t i = 0; i < ind; i += 32)
        memcpy(p + i, spaces32, 32);
    p += ind;
    memcpy(p, prefix, plen);
    p += plen;
    for (size_t i = 0; i < s->len; i += 16)
        memcpy(p + i, s->name + i, 16);
    return p + s->len;
}

/* Ends a line line_start began. */
static inline void line_end(struct render *r, const char *p)
{
    r->n = (size_t)(p - r->buf);
}

static void flush_run(struct render *r)
{
    char *p;

    if (!r->run.active)
        return;
    r->run.active = 0;
    if (r->o.style == RENDER_ETRACE) {
        indent(r, r->run.depth);
        put_etrace_name(r, r->run.addr);
        out_chr(r, '\n');
        if (r->run.count > 1) {
            indent(r, r->run.depth);
            put_name(r, r->run.addr);
            out_fmt(r, " (total: %" PRIu64 " times)\n", r->run.count);
        }
        return;
    }
    if (r->run.vals) {
        time_col(r, 1, r->run.ticks, r->run.t_first);
        indent(r, r->run.depth);
        put_wrapped(r, r->run.addr, r->run.site, r->run.vals, 1);
        out_mem(r, ";\n", 2);
        return;
    }
    if (r->fast && (p = line_start(r, 1, r->run.ticks, r->run.depth, "", 0, r->run.addr))) {
        if (r->run.count > 1) {
            memcpy(p, "(); x", 5);
            p += 5;
            p += numfmt_u64(p, r->run.count, 1);
            *p++ = '\n';
        } else {
            memcpy(p, "();\n", 4);
            p += 4;
        }
        line_end(r, p);
        return;
    }
    time_col(r, 1, r->run.ticks, r->run.t_first);
    indent(r, r->run.depth);
    put_call(r, r->run.addr, r->run.site);
    if (r->run.count > 1) {
        char num[24];

        out_mem(r, "; x", 3);
        out_mem(r, num, numfmt_u64(num, r->run.count, 1));
        out_chr(r, '\n');
    } else {
        out_mem(r, ";\n", 2);
    }
}

/* Shows the held-back call as a caller: "name() {". */
static void flush_open(struct render *r)
{
    char *p;

    if (!r->open.active)
        return;
    r->open.active = 0;
    if (r->o.style == RENDER_ETRACE) {
        indent(r, r->open.depth);
        put_etrace_name(r, r->open.addr);
        out_chr(r, '\n');
        return;
    }
    if (!r->open.vals && r->fast &&
        (p = line_start(r, 0, 0, r->open.depth, "", 0, r->open.addr))) {
        memcpy(p, "() {\n", 5);
        line_end(r, p + 5);
        return;
    }
    time_col(r, 0, 0, r->open.t_enter);
    indent(r, r->open.depth);
    if (r->open.vals)
        put_wrapped(r, r->open.addr, r->open.site, r->open.vals, 0);
    else
        put_call(r, r->open.addr, r->open.site);
    out_str(r, " {\n");
}

static void flush_all(struct render *r)
{
    flush_run(r);
    flush_open(r);
}

static int hidden(const struct render *r, unsigned depth)
{
    return r->o.max_depth && depth >= r->o.max_depth;
}

/* braces: "{ 00000D0E->00000C60  decide:0x0026->calcValue". An inlined call's hooks carry
 * the site of the call the function it is inlined into came from: its caller is that
 * enclosing function, "mid:inlined->helper", and the site column shows the recorded value. */
static void braces_line(struct render *r, const struct tree_frame *f, unsigned depth, int enter)
{
    /* site is a return address: its caller holds the byte before it */
    const struct sym_info *caller = r->sym ? sym_lookup(r->sym, f->site - 1 - r->bias) : NULL;
    char nb[256];
    const char *callee = name_of(r, f->addr, nb, sizeof nb);
    int w = (int)r->o.addr_width;

    /* A call site outside the image (main called from libc) is shown as it is at run time:
     * the image's load bias means nothing there. */
    uint64_t site = caller ? f->site - r->bias : f->site;

    if (enter && depth < BRACES_DEPTH)
        r->braces_fn[depth] = f->addr;
    indent(r, depth);
    out_fmt(r, "%c %0*" PRIX64 "%s%0*" PRIX64, enter ? '{' : '}', w, site,
            enter ? "->" : "<-", w, f->addr - r->bias);
    if (f->inlined && depth > 0 && depth <= BRACES_DEPTH) {
        char tb[256], eb[256];

        /* A copy: the next name_of may take the same cache slot. */
        snprintf(eb, sizeof eb, "%s", name_of(r, r->braces_fn[depth - 1], tb, sizeof tb));
        out_fmt(r, "  %s:inlined%s%s\n", eb, enter ? "->" : "<-",
                name_of(r, f->addr, nb, sizeof nb));
    } else if (caller)
        out_fmt(r, "  %s:0x%04" PRIX64 "%s%s\n", caller->name,
                f->site - r->bias - caller->start, enter ? "->" : "<-", callee);
    else
        out_fmt(r, " ???%s%s\n", enter ? "->" : "<-", callee);
}

static void on_call(void *arg, const struct tree_frame *f, unsigned depth)
{
    struct render *r = arg;

    if (hidden(r, depth))
        return;
    if (r->o.style == RENDER_BRACES) {
        braces_line(r, f, depth, 1);
        return;
    }
    flush_open(r); /* it has a callee: not a leaf */
    if (r->run.active && (r->run.depth != depth || r->run.addr != f->addr))
        flush_run(r);
    r->open.active = 1;
    r->open.addr = f->addr;
    r->open.t_enter = f->t_enter;
    r->open.site = own_site(f);
    r->open.depth = depth;
    r->open.vals = shown_vals(r, f);
}

static const char *how_note(const struct tree_frame *f, enum tree_exit_how how)
{
    switch (how) {
    case TREE_ABANDONED: return "  (never returned: longjmp or unwound)";
    case TREE_JUMPED: return "  (never returned: longjmp)";
    case TREE_HOLE: return "  (exit lost in a hole)";
    case TREE_BEFORE_TRACE:
        return f->entry_lost ? "  (entered while events were lost)"
                             : "  (entered before the trace begins)";
    default: return "";
    }
}

/* A call that returned with nothing shown inside it: folded into the run of identical leaf
 * calls when it can be; one that never returned (tree style) gets a line of its own with the
 * reason; any other starts a new run, shown at once unless runs are folded. */
static void on_leaf(struct render *r, const struct tree_frame *f, unsigned depth, uint64_t ticks,
                    enum tree_exit_how how)
{
    const struct wval_set *vals = shown_vals(r, f);

    if (how == TREE_RETURNED && r->o.collapse && r->run.active && r->run.depth == depth &&
        r->run.addr == f->addr && !vals && !r->run.vals) {
        r->run.count++;
        r->run.ticks += ticks;
        return;
    }
    flush_run(r);
    if (how != TREE_RETURNED && r->o.style == RENDER_TREE) {
        time_col(r, 0, 0, f->t_enter);
        indent(r, depth);
        if (vals)
            put_wrapped(r, f->addr, own_site(f), vals, 0);
        else
            put_call(r, f->addr, own_site(f));
        out_str(r, ";");
        out_str(r, how_note(f, how));
        out_chr(r, '\n');
        return;
    }
    r->run = (struct leaf_run){1, f->addr, f->t_enter, own_site(f), depth, 1, ticks,
                               r->o.style == RENDER_TREE ? vals : NULL};
    /* values change from call to call: such a call is never folded, nor held (the next call at
     * this depth takes over its storage) */
    if (how != TREE_RETURNED || !r->o.collapse || r->run.vals)
        flush_run(r);
}

static void on_leave(void *arg, const struct tree_frame *f, unsigned depth, uint64_t t_exit,
                    enum tree_exit_how how)
{
    struct render *r = arg;
    int timed = r->o.has_time && f->t_enter && how == TREE_RETURNED;
    char *p;

    if (hidden(r, depth))
        return;
    if (r->o.style == RENDER_BRACES) {
        braces_line(r, f, depth, 0);
        return;
    }
    if (r->open.active && r->open.depth == depth) {
        /* The held-back call returns with nothing shown inside: a leaf. */
        r->open.active = 0;
        on_leaf(r, f, depth, timed ? tree_span(f->t_enter, t_exit) : 0, how);
        return;
    }
    flush_all(r);
    if (r->o.style == RENDER_ETRACE)
        return;
    if (shown_vals(r, f) && wval_ret(f->vals)) {
        /* "} = 5; ", then the name in a comment, as uftrace shows a return value */
        time_col(r, timed, timed ? tree_span(f->t_enter, t_exit) : 0, t_exit);
        indent(r, depth);
        out_chr(r, '}');
        put_ret(r, f->vals, wrapped_sig(r, f->addr));
        out_str(r, "; /* ");
        put_name(r, f->addr);
        out_str(r, " */");
        out_str(r, how_note(f, how));
        out_chr(r, '\n');
        return;
    }
    if (r->fast && how == TREE_RETURNED &&
        (p = line_start(r, timed, timed ? tree_span(f->t_enter, t_exit) : 0, depth, "} /* ", 5,
                        f->addr))) {
        memcpy(p, " */\n", 4);
        line_end(r, p + 4);
        return;
    }
    time_col(r, timed, timed ? tree_span(f->t_enter, t_exit) : 0, t_exit);
    indent(r, depth);
    out_str(r, "} /* ");
    put_name(r, f->addr);
    out_str(r, " */");
    out_str(r, how_note(f, how));
    out_chr(r, '\n');
}

static void fault_line(struct render *r, const struct ev *fault, const struct ev *lr)
{
    char buf[600];

    fmt_fault(r->sym, r->bias, r->o.addr_width, fault, lr, buf, sizeof buf);
    col(r, COL_FAULT);
    out_str(r, buf);
    col(r, COL_OFF);
    out_chr(r, '\n');
}

static void on_special(void *arg, const struct ev *e, unsigned depth)
{
    struct render *r = arg;
    char text[512];

    if (e->kind == EV_FAULT) {
        flush_all(r);
        r->fault = *e;
        r->fault_pending = 1;
        return;
    }
    if (e->kind == EV_FAULT_LR && r->fault_pending) {
        r->fault_pending = 0;
        fault_line(r, &r->fault, e);
        return;
    }
    if (r->o.style == RENDER_TREE && e->kind == EV_LOST) {
        /* Where it happened and at every depth: what follows may not nest as shown. */
        flush_all(r);
        out_fmt(r, "*** %" PRIu64 " event%s lost %s\n", e->addr, e->addr == 1 ? "" : "s",
                e->data == EV_LOST_LINK ? "on the link (noise or a gap in the stream)"
                                        : "on the target (the drain fell behind)");
        return;
    }
    if (r->o.style != RENDER_TREE || hidden(r, depth))
        return;
    switch (e->kind) {
    case EV_MARK:
        flush_all(r);
        time_col(r, 0, 0, e->time);
        indent(r, depth);
        fmt_mark(e, text, sizeof text);
        out_fmt(r, "# %s\n", text);
        break;
    case EV_TRIGGER: {
        struct fmt_namer nm = {r->sym, r->bias, r->o.addr_width == 8, {0}};

        flush_all(r);
        time_col(r, 0, 0, e->time);
        indent(r, depth);
        fmt_trigger(&nm, r->o.ctrl, e, text, sizeof text);
        col(r, COL_TRIGGER);
        out_fmt(r, "# %s", text);
        col(r, COL_OFF);
        out_chr(r, '\n');
        break;
    }
    case EV_STOP:
        flush_all(r);
        r->stopped = 1;
        out_fmt(r, "# recording stopped\n");
        break;
    case EV_START:
        if (r->stopped) {
            flush_all(r);
            out_fmt(r, "# recording started again: calls in between are not in the trace\n");
        }
        break;
    case EV_SCHED:
        flush_all(r);
        time_col(r, 0, 0, e->time);
        indent(r, depth);
        fmt_sched(r->o.names, r->sym, r->bias, e, text, sizeof text);
        out_fmt(r, "-- %s\n", text);
        break;
    case EV_CONTEXT:
        /* A tree is one context's: a switch to it is where the context resumes, as it was,
         * which needs no line (its header names it; a wake says who woke it). */
        break;
    case EV_LONGJMP:
        /* The tree sends only a longjmp it could not resolve. */
        flush_all(r);
        time_col(r, 0, 0, e->time);
        indent(r, depth);
        out_str(r, "# longjmp to a setjmp before the trace: the calls it skipped stay open\n");
        break;
    case EV_UNKNOWN:
        flush_all(r);
        out_fmt(r, "# special record of unknown type %u\n", e->data);
        break;
    default:
        break;
    }
}

static void on_finish(void *arg, const struct tree_frame *stack, unsigned n)
{
    struct render *r = arg;
    char nb[256];

    flush_all(r);
    if (r->fault_pending) {
        r->fault_pending = 0;
        fault_line(r, &r->fault, NULL);
    }
    if (!n)
        return;
    out_fmt(r, "# call stack at the end of the trace (innermost first):\n");
    for (unsigned i = n; i-- > 0;) {
        fmt_addr(r->sym, r->bias, stack[i].addr, nb, sizeof nb);
        out_fmt(r, "#   %-3u %s\n", n - 1 - i, nb);
    }
}

struct render *render_new(FILE *out, const struct render_opts *o, const struct sym_table *sym,
                          uint64_t bias)
{
    struct render *r = calloc(1, sizeof *r);

    if (!r)
        return NULL;
    r->out = out;
    r->o = *o;
    if (r->o.style == RENDER_BRACES) /* every call has its own pair of lines */
        r->o.collapse = 0;
    if (r->o.style != RENDER_TREE) {
        r->o.has_time = 0;
        r->o.show &= ~(RENDER_TIME | RENDER_TID);
    }
    {
        const char *u = o->style == RENDER_ETRACE ? "|   " : o->style == RENDER_BRACES ? " " : "  ";

        r->unit = strlen(u);
        for (unsigned i = 0; i < INDENT_LEVELS; i++)
            memcpy(r->indent + i * r->unit, u, r->unit);
    }
    r->sym = sym;
    r->bias = bias;
    r->fast = r->o.style == RENDER_TREE &&
              !(r->o.show & (RENDER_SRCLINE | RENDER_SIGNATURES | RENDER_COLOR | RENDER_TIME |
                             RENDER_TID));
    if (r->o.style == RENDER_BRACES) /* its format is exact */
        r->o.show &= ~(RENDER_SRCLINE | RENDER_SIGNATURES);
    if (r->o.show & (RENDER_SRCLINE | RENDER_SIGNATURES)) {
        struct srcline_opts so = {o->dwarf, sym, bias, o->addr_width == 8,
                                  (r->o.show & RENDER_SRCLINE) != 0,
                                  (r->o.show & RENDER_SIGNATURES) != 0,
                                  (r->o.show & RENDER_FULL_PATH) != 0, name_for_srcline, r};

        if (!(r->src = srcline_new(&so))) {
            render_free(r);
            return NULL;
        }
    }
    if (r->o.has_time && r->o.ts_hz && fmt_duration_ns(DUR_TABLE - 1, r->o.ts_hz) <= UINT32_MAX &&
        (r->dur_ns = malloc(DUR_TABLE * sizeof *r->dur_ns)))
        for (unsigned i = 0; i < DUR_TABLE; i++)
            r->dur_ns[i] = (uint32_t)fmt_duration_ns(i, r->o.ts_hz);
    r->sink = (struct tree_sink){r, on_call, on_leave, on_special, on_finish, NULL};
    return r;
}

const struct tree_sink *render_sink(struct render *r)
{
    return &r->sink;
}

void render_header(struct render *r)
{
    if (r->o.style != RENDER_TREE)
        return;
    if (r->o.show & RENDER_TIME && r->o.has_time)
        out_fmt(r, "%18s  ", "TIME");
    if (r->o.show & RENDER_TID)
        out_fmt(r, "%8s  ", "TID");
    if (r->o.has_time)
        out_fmt(r, "%12s  %s\n", "DURATION", "FUNCTION");
    else if (r->o.show & RENDER_TID)
        out_fmt(r, "%s\n", "FUNCTION");
}

int render_flush(struct render *r)
{
    out_flush(r);
    return fflush(r->out) == 0 && !ferror(r->out) ? 0 : -1;
}

void render_free(struct render *r)
{
    if (!r)
        return;
    out_flush(r);
    for (unsigned i = 0; i < NAME_CACHE; i++)
        free(r->names[i].name);
    srcline_free(r->src);
    free(r->dur_ns);
    free(r);
}
