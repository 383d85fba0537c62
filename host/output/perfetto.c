/* SPDX-License-Identifier: GPL-3.0-or-later */
/* perfetto.c - TracePackets of TrackEvents from the call trees (perfetto.h), through pbenc.
 * Field numbers are perfetto_trace.proto's. */
#include "output/perfetto.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cyg_format.h"
#include "model/calltime.h"
#include "model/ctxtab.h"
#include "output/fmt.h"
#include "output/pbenc.h"
#include "symbols/wsig.h"
#include "util/oaindex.h"
#include "util/vec.h"

enum { /* Trace */
    TRACE_PACKET = 1,
};
enum { /* TracePacket */
    TP_CLOCK_SNAPSHOT = 6,
    TP_TIMESTAMP = 8,
    TP_SEQ_ID = 10, /* trusted_packet_sequence_id */
    TP_TRACK_EVENT = 11,
    TP_INTERNED = 12,
    TP_FLAGS = 13, /* sequence_flags */
    TP_CLOCK_ID = 58,
    TP_DEFAULTS = 59,
    TP_TRACK_DESC = 60,
};
enum { SEQ_CLEARED = 1, SEQ_NEEDS = 2 };
enum { /* TracePacketDefaults, TrackEventDefaults */
    DEF_CLOCK_ID = 58,
    DEF_TRACK_EVENT = 11,
    TED_TRACK = 11,
};
enum { /* ClockSnapshot, its Clock */
    CS_CLOCK = 1,
    CLK_ID = 1,
    CLK_TIMESTAMP = 2,
    CLK_INCREMENTAL = 3,
    CLOCK_BOOTTIME = 6,
    CLOCK_SEQ = 64, /* the first sequence-scoped clock id: each sequence's own */
};
enum { /* TrackEvent */
    TE_DEBUG = 4,
    TE_TYPE = 9,
    TE_NAME_IID = 10,
    TE_TRACK = 11,
    TE_NAME = 23,
    TE_SRCLOC_IID = 34,
    TYPE_BEGIN = 1,
    TYPE_END = 2,
    TYPE_INSTANT = 3,
};
enum { /* DebugAnnotation */
    DA_NAME_IID = 1,
    DA_STRING = 6,
    DA_NAME = 10,
};
enum { /* InternedData; EventName, DebugAnnotationName and SourceLocation */
    ID_EVENT_NAMES = 2,
    ID_DEBUG_NAMES = 3,
    ID_SOURCE_LOCATIONS = 4,
    IN_IID = 1,
    IN_NAME = 2,
    SL_FILE = 2,
    SL_FUNCTION = 3,
    SL_LINE = 4,
};
enum { /* TrackDescriptor; ProcessDescriptor; ThreadDescriptor */
    TD_UUID = 1,
    TD_NAME = 2,
    TD_PROCESS = 3,
    TD_THREAD = 4,
    TD_PARENT = 5,
    PD_PID = 1,
    PD_NAME = 6,
    THD_PID = 1,
    THD_TID = 2,
    THD_NAME = 5,
};

#define PROCESS_UUID 1u /* the first input's process */
#define WRITER_SEQ 1u     /* the writer's own sequence: descriptors, absolute times */
#define FLUSH_BYTES 65536 /* the packets written out when the buffer holds this much */
#define BEFORE_MAX 256u   /* calls entered before the trace held until they are written */

/* What an interned entry is of: a function's name (and source location), a parameter's name
 * (SUB_ARG + its index), or a fixed name (addr 0). */
enum { SUB_FN = 0, SUB_RET = 1, SUB_WOKEN = 2, SUB_TASK = 3, SUB_ARG = 16 };

struct entry {
    uint64_t addr;
    uint32_t sub;
    uint32_t iid;
    int src; /* a function's: its source location was found (interned with the same iid) */
};

/* A packet sequence: one track's events in time order, with their interned names. */
struct seq {
    uint32_t id;
    uint64_t track;
    uint64_t last; /* ns: the incremental clock's value (the last delta-timed packet's) */
    int live;      /* its state was sent (the clearing packet written) */
    struct entry *e;
    size_t n, cap;
    struct oaindex ix;
    uint32_t sent; /* iids up to it are in the interned data written */
};

struct before { /* a call entered before the trace, held to be written outermost first */
    uint64_t addr, start, end; /* ns */
    size_t order;              /* its place among the held: a caller closes after its callees */
};

struct pctx {
    struct perfetto *p;
    uint32_t id;
    struct seq seq;
    struct calltime stack;
    uint64_t before_track; /* 0 until needed */
    struct before *bf;
    size_t nbf, bf_cap;
    char label[512];
};

struct ptrack { /* a context's tracks, by id (ctxtab) */
    uint64_t uuid;
    struct seq *blocked; /* its "blocked" track's sequence, NULL until needed */
    char label[512];
};

struct perfetto {
    FILE *out;
    struct export_opts o;
    const struct names *nm;
    struct pbenc pb;
    uint32_t next_seq;
    uint64_t next_uuid;
    struct pctx **ctx;
    size_t nctx, ctx_cap;
    struct ctxtab tracks;
    struct seq *cpu; /* the CPU track's, NULL until needed */
    uint64_t process; /* the uuid of the input's process track */
    uint64_t early;   /* times before the common clock's 0, written as 0 */
    uint64_t failed; /* events not written (out of memory) */
    int werr;        /* a write failed */
};

/* ---- time */

/* Ticks as nanoseconds (ticks as they are when the rate is unknown); see put_ts in export.c
 * for why the whole seconds go apart. On the merged inputs' common clock (o.tb), a time before
 * its 0 (--offset) is 0: Perfetto's are unsigned. */
static uint64_t ns_of(struct perfetto *p, uint64_t ticks)
{
    uint64_t hz = p->o.hz, secs;
    int64_t t;

    if (p->o.tb) {
        if ((t = timebase_ns(p->o.tb, ticks)) >= 0)
            return (uint64_t)t;
        p->early++;
        return 0;
    }
    if (!hz || hz == 1000000000u)
        return ticks;
    secs = ticks / hz;
    if (secs >= UINT64_MAX / 1000000000u - 1)
        return (uint64_t)((double)ticks * 1e9 / (double)hz);
    return secs * 1000000000u + (uint64_t)((double)(ticks % hz) * 1e9 / (double)hz + 0.5);
}

/* ---- packets */

static void flush(struct perfetto *p)
{
    if (pbenc_flush(&p->pb, p->out) < 0)
        p->werr = 1;
}

static void packet_end(struct perfetto *p)
{
    pbenc_end(&p->pb);
    if (p->pb.n >= FLUSH_BYTES)
        flush(p);
}

/* Opens a packet of the writer's own sequence (absolute times, no defaults). */
static void writer_packet(struct perfetto *p)
{
    pbenc_begin(&p->pb, TRACE_PACKET);
    pbenc_varint(&p->pb, TP_SEQ_ID, WRITER_SEQ);
}

/* A ClockSnapshot's clock. */
static void clock(struct pbenc *b, unsigned id, uint64_t t, int incremental)
{
    pbenc_begin(b, CS_CLOCK);
    pbenc_varint(b, CLK_ID, id);
    pbenc_varint(b, CLK_TIMESTAMP, t);
    if (incremental)
        pbenc_varint(b, CLK_INCREMENTAL, 1);
    pbenc_end(b);
}

/* Clears s's state at t (ns): its packet sets the defaults (track, clock) and says that its
 * clock is t now in BOOTTIME, the trace's clock; the interning starts over. */
static void seq_clear(struct perfetto *p, struct seq *s, uint64_t t)
{
    struct pbenc *b = &p->pb;

    pbenc_begin(b, TRACE_PACKET);
    pbenc_varint(b, TP_TIMESTAMP, t);
    pbenc_varint(b, TP_CLOCK_ID, CLOCK_BOOTTIME);
    pbenc_varint(b, TP_SEQ_ID, s->id);
    pbenc_varint(b, TP_FLAGS, SEQ_CLEARED);
    pbenc_begin(b, TP_DEFAULTS);
    pbenc_varint(b, DEF_CLOCK_ID, CLOCK_SEQ);
    pbenc_begin(b, DEF_TRACK_EVENT);
    pbenc_varint(b, TED_TRACK, s->track);
    pbenc_end(b);
    pbenc_end(b);
    pbenc_begin(b, TP_CLOCK_SNAPSHOT);
    clock(b, CLOCK_BOOTTIME, t, 0);
    clock(b, CLOCK_SEQ, t, 1);
    pbenc_end(b);
    packet_end(p);
    s->last = t;
    s->live = 1;
    s->n = 0;
    s->sent = 0;
    oaindex_free(&s->ix);
}

/* Opens a packet of s at t (ns) that needs its state: a delta on its clock, or an absolute
 * time when t is before the clock (a call that never returned ends at its last event, which
 * may come before what was written since). */
static void seq_packet(struct perfetto *p, struct seq *s, uint64_t t)
{
    struct pbenc *b = &p->pb;

    if (!s->live)
        seq_clear(p, s, t);
    pbenc_begin(b, TRACE_PACKET);
    if (t >= s->last) {
        pbenc_varint(b, TP_TIMESTAMP, t - s->last);
        s->last = t;
    } else {
        pbenc_varint(b, TP_TIMESTAMP, t);
        pbenc_varint(b, TP_CLOCK_ID, CLOCK_BOOTTIME);
    }
    pbenc_varint(b, TP_SEQ_ID, s->id);
    pbenc_varint(b, TP_FLAGS, SEQ_NEEDS);
}

static void seq_init(struct perfetto *p, struct seq *s, uint64_t track)
{
    memset(s, 0, sizeof *s);
    s->id = ++p->next_seq;
    s->track = track;
}

static void seq_free(struct seq *s)
{
    if (!s)
        return;
    free(s->e);
    oaindex_free(&s->ix);
}

/* ---- interning */

static uint64_t entry_hash_of(uint64_t addr, uint32_t sub)
{
    return oaindex_hash_u64(addr ^ (uint64_t)sub << 56 ^ sub);
}

static uint64_t entry_hash(const void *arg, size_t pos)
{
    const struct entry *e = &((const struct seq *)arg)->e[pos];

    return entry_hash_of(e->addr, e->sub);
}

static int entry_match(const void *arg, size_t pos, const void *key)
{
    const struct entry *e = &((const struct seq *)arg)->e[pos], *k = key;

    return e->addr == k->addr && e->sub == k->sub;
}

/* The entry of (addr, sub) in s, made with the next iid when new (written into the interned
 * data of the packet that uses it: seq_interned). NULL when out of memory. */
static struct entry *intern(struct perfetto *p, struct seq *s, uint64_t addr, uint32_t sub)
{
    struct entry key = {.addr = addr, .sub = sub};
    uint64_t h = entry_hash_of(addr, sub);
    size_t pos = oaindex_find(&s->ix, h, entry_match, s, &key), *slot;
    char file[1024];
    unsigned line;

    if (pos != SIZE_MAX)
        return &s->e[pos];
    if (vec_grow(&s->e, &s->cap, s->n, sizeof *s->e, 16) < 0 ||
        oaindex_reserve(&s->ix, 32, entry_hash, s) < 0) {
        p->failed++;
        return NULL;
    }
    slot = oaindex_slot(&s->ix, h, entry_match, s, &key);
    key.iid = (uint32_t)s->n + 1;
    key.src = sub == SUB_FN && addr && p->o.dwarf &&
              dwarf_src_func(p->o.dwarf, addr - p->o.bias, file, sizeof file, &line, NULL, 0) == 0;
    s->e[s->n] = key;
    oaindex_put(&s->ix, slot, s->n);
    return &s->e[s->n++];
}

/* Makes room in s for k new entries before a packet's lookups: a full table is cleared with
 * the sequence's state, at t (ns). */
static void intern_room(struct perfetto *p, struct seq *s, uint64_t t, size_t k)
{
    if (!s->live || s->n + k > PERFETTO_INTERN_MAX)
        seq_clear(p, s, t > s->last || !s->live ? t : s->last);
}

/* A parameter's name as the Chrome export words it: its name, "return", else "argN". */
static const char *param_name(const struct perfetto *p, uint64_t fn, uint32_t sub, char *buf,
                              size_t len)
{
    const struct wsig_fn *sig;
    unsigned idx = sub - SUB_ARG;

    if (sub == SUB_RET)
        return "return";
    if (sub == SUB_WOKEN)
        return "woken by";
    sig = sym_wrapped_sig(p->o.sym, fn - p->o.bias);
    if (sig && idx < sig->n && sig->p[idx].name)
        return sig->p[idx].name;
    snprintf(buf, len, "arg%u", idx);
    return buf;
}

/* Writes the interned data of the entries of s made since the last packet's (none: nothing),
 * inside the open packet. */
static void seq_interned(struct perfetto *p, struct seq *s)
{
    struct pbenc *b = &p->pb;
    char name[512], file[1024];
    unsigned line;

    if (s->sent == s->n)
        return;
    pbenc_begin(b, TP_INTERNED);
    for (size_t i = s->sent; i < s->n; i++) {
        const struct entry *e = &s->e[i];

        if (e->sub == SUB_FN || e->sub == SUB_TASK) {
            if (e->sub == SUB_FN)
                fmt_addr(p->o.sym, p->o.bias, e->addr, name, sizeof name);
            else
                names_ctx_text(p->nm, p->o.sym, p->o.bias, (uint32_t)e->addr, 0, name,
                               sizeof name);
            pbenc_begin(b, ID_EVENT_NAMES);
            pbenc_varint(b, IN_IID, e->iid);
            pbenc_string(b, IN_NAME, name);
            pbenc_end(b);
            if (e->src &&
                dwarf_src_func(p->o.dwarf, e->addr - p->o.bias, file, sizeof file, &line, NULL,
                               0) == 0) {
                pbenc_begin(b, ID_SOURCE_LOCATIONS);
                pbenc_varint(b, IN_IID, e->iid);
                pbenc_string(b, SL_FILE, file);
                pbenc_string(b, SL_FUNCTION, name);
                pbenc_varint(b, SL_LINE, line);
                pbenc_end(b);
            }
        } else {
            pbenc_begin(b, ID_DEBUG_NAMES);
            pbenc_varint(b, IN_IID, e->iid);
            pbenc_string(b, IN_NAME, param_name(p, e->addr, e->sub, name, sizeof name));
            pbenc_end(b);
        }
    }
    pbenc_end(b);
    s->sent = (uint32_t)s->n;
}

/* ---- tracks */

/* Writes a track's descriptor: a thread's (tid not 0), else a named track under the
 * process. */
static void track_desc(struct perfetto *p, uint64_t uuid, const char *name, uint32_t pid,
                       uint64_t tid)
{
    struct pbenc *b = &p->pb;

    writer_packet(p);
    pbenc_begin(b, TP_TRACK_DESC);
    pbenc_varint(b, TD_UUID, uuid);
    if (tid) {
        pbenc_begin(b, TD_THREAD);
        pbenc_varint(b, THD_PID, pid);
        pbenc_varint(b, THD_TID, tid);
        pbenc_string(b, THD_NAME, name);
        pbenc_end(b);
    } else {
        pbenc_varint(b, TD_PARENT, p->process);
        pbenc_string(b, TD_NAME, name);
    }
    pbenc_end(b);
    packet_end(p);
}

/* The track of context id, its descriptor written when new (a task with no calls has none
 * yet); NULL when out of memory. */
static struct ptrack *track_of(struct perfetto *p, uint32_t id, uint64_t os_tid, int vfork)
{
    struct ptrack *t = ctxtab_find(&p->tracks, id);

    if (t)
        return t;
    if (!(t = ctxtab_add(&p->tracks, id, sizeof *t))) {
        p->failed++;
        return NULL;
    }
    t->uuid = ++p->next_uuid;
    names_ctx_label(p->nm, p->o.sym, p->o.bias, p->o.word_bytes, id, os_tid, vfork, t->label,
                    sizeof t->label);
    track_desc(p, t->uuid, t->label, vfork ? (uint32_t)os_tid : p->o.pid, os_tid);
    return t;
}

/* A named track under the process, "LABEL: what"; its uuid. */
static uint64_t side_track(struct perfetto *p, const char *label, const char *what)
{
    char name[640];

    snprintf(name, sizeof name, "%s: %s", label, what);
    track_desc(p, ++p->next_uuid, name, 0, 0);
    return p->next_uuid;
}

/* ---- events */

/* Writes a wrapped call's arguments (ret 0) or return value (ret 1) as debug annotations,
 * their names interned in s (intern_room made room). */
static void annotations(struct perfetto *p, struct seq *s, uint64_t addr,
                        const struct wval_set *vals, int ret)
{
    const struct wsig_fn *sig = sym_wrapped_sig(p->o.sym, addr - p->o.bias);
    struct pbenc *b = &p->pb;
    char text[512];

    for (unsigned i = 0; i < vals->n; i++) {
        const struct wval *v = &vals->v[i];
        const struct wsig_value *pv = v->idx == CYG_VAL_RET ? (sig ? &sig->ret : NULL)
                                      : sig && v->idx < sig->n ? &sig->p[v->idx] : NULL;
        const struct entry *e;

        if ((v->idx == CYG_VAL_RET) != ret)
            continue;
        e = ret ? intern(p, s, 0, SUB_RET) : intern(p, s, addr, SUB_ARG + v->idx);
        if (!e)
            continue;
        wval_text(v, pv, text, sizeof text);
        pbenc_begin(b, TE_DEBUG);
        pbenc_varint(b, DA_NAME_IID, e->iid);
        pbenc_string(b, DA_STRING, text);
        pbenc_end(b);
    }
}

/* The interned names a call's event may add: its function and its values'. */
static size_t names_needed(const struct wval_set *vals)
{
    return 1 + (vals ? vals->n : 0);
}

/* A call's begin at t (ns), or (begin 0) its end; with its values when vals. The track
 * event is encoded after the lookups and then the interned data goes in front of it, so the
 * packet holds the entries it made. */
static void slice(struct perfetto *p, struct seq *s, int begin, uint64_t addr, uint64_t t,
                  const struct wval_set *vals)
{
    struct pbenc *b = &p->pb;
    const struct entry *fn = NULL;
    uint32_t iid = 0;
    int src = 0;

    if (vals || begin)
        intern_room(p, s, t, names_needed(vals));
    if (begin) {
        if (!(fn = intern(p, s, addr, SUB_FN)))
            return;
        iid = fn->iid; /* fn moves when the table grows */
        src = fn->src;
    }
    seq_packet(p, s, t);
    if (vals) { /* its names interned before the interned data is written */
        for (unsigned i = 0; i < vals->n; i++)
            if ((vals->v[i].idx == CYG_VAL_RET) != begin)
                intern(p, s, vals->v[i].idx == CYG_VAL_RET ? 0 : addr,
                       vals->v[i].idx == CYG_VAL_RET ? SUB_RET : SUB_ARG + vals->v[i].idx);
    }
    seq_interned(p, s);
    pbenc_begin(b, TP_TRACK_EVENT);
    pbenc_varint(b, TE_TYPE, begin ? TYPE_BEGIN : TYPE_END);
    if (iid) {
        pbenc_varint(b, TE_NAME_IID, iid);
        if (src)
            pbenc_varint(b, TE_SRCLOC_IID, iid);
    }
    if (vals)
        annotations(p, s, addr, vals, !begin);
    pbenc_end(b);
    packet_end(p);
}

/* An instant event named name on s's track at t (ns). */
static void instant(struct perfetto *p, struct seq *s, uint64_t t, const char *name)
{
    seq_packet(p, s, t);
    pbenc_begin(&p->pb, TP_TRACK_EVENT);
    pbenc_varint(&p->pb, TE_TYPE, TYPE_INSTANT);
    pbenc_string(&p->pb, TE_NAME, name);
    pbenc_end(&p->pb);
    packet_end(p);
}

/* An event of the writer's sequence at absolute time t (ns) on track: a begin named name or
 * an end (name NULL). */
static void writer_slice(struct perfetto *p, uint64_t track, uint64_t t, const char *name)
{
    struct pbenc *b = &p->pb;

    writer_packet(p);
    pbenc_varint(b, TP_TIMESTAMP, t);
    pbenc_begin(b, TP_TRACK_EVENT);
    pbenc_varint(b, TE_TYPE, name ? TYPE_BEGIN : TYPE_END);
    pbenc_varint(b, TE_TRACK, track);
    if (name)
        pbenc_string(b, TE_NAME, name);
    pbenc_end(b);
    packet_end(p);
}

static int cmp_before(const void *pa, const void *pb)
{
    const struct before *a = pa, *b = pb;

    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    if (a->end != b->end) /* the outer one (ending later) first */
        return a->end > b->end ? -1 : 1;
    return a->order > b->order ? -1 : a->order < b->order; /* ... closing later */
}

/* Writes the calls entered before the trace that c holds on its own track, nested: sorted
 * outermost first, those that ended before the next begins ended first, and the next cut to
 * end inside the one it begins in. */
static void before_flush(struct pctx *c)
{
    struct perfetto *p = c->p;
    uint64_t open[BEFORE_MAX];
    unsigned depth = 0;
    char name[512];

    if (!c->nbf)
        return;
    if (!c->before_track)
        c->before_track = side_track(p, c->label, "entered before the trace");
    qsort(c->bf, c->nbf, sizeof *c->bf, cmp_before);
    for (size_t i = 0; i < c->nbf; i++) {
        const struct before *e = &c->bf[i];

        while (depth && open[depth - 1] <= e->start)
            writer_slice(p, c->before_track, open[--depth], NULL);
        if (depth == BEFORE_MAX) /* cannot be: BEFORE_MAX calls at most are held */
            break;
        fmt_addr(p->o.sym, p->o.bias, e->addr, name, sizeof name);
        writer_slice(p, c->before_track, e->start, name);
        open[depth] = depth && open[depth - 1] < e->end ? open[depth - 1] : e->end;
        depth++;
    }
    while (depth)
        writer_slice(p, c->before_track, open[--depth], NULL);
    c->nbf = 0;
}

/* ---- the sink */

static int pf_open(void *arg, struct calltime *ct, unsigned d, const struct tree_frame *f)
{
    struct pctx *c = arg;

    (void)ct, (void)d;
    slice(c->p, &c->seq, 1, f->addr, ns_of(c->p, f->t_enter), f->vals);
    return 0;
}

static int pf_close(void *arg, struct calltime *ct, unsigned d, const struct calltime_call *call)
{
    struct pctx *c = arg;
    struct perfetto *p = c->p;

    (void)ct, (void)d;
    if (call->how == CALLTIME_BEFORE) {
        if (c->nbf == BEFORE_MAX)
            before_flush(c);
        if (vec_grow(&c->bf, &c->bf_cap, c->nbf, sizeof *c->bf, 16) < 0) {
            p->failed++;
            return 0;
        }
        c->bf[c->nbf] = (struct before){call->addr, ns_of(p, call->start),
                                        ns_of(p, call->start + call->dur), c->nbf};
        c->nbf++;
        return 0;
    }
    slice(p, &c->seq, 0, call->addr, ns_of(p, call->end),
          call->vals && wval_ret(call->vals) ? call->vals : NULL);
    return 0;
}

/* A level that vanished without an exit ends at the last time known inside it. */
static void pf_drop(void *arg, struct calltime *ct, unsigned d)
{
    struct pctx *c = arg;
    const struct calltime_level *l = calltime_at(&c->stack, d);

    (void)ct;
    if (l->open)
        slice(c->p, &c->seq, 0, l->addr, ns_of(c->p, l->last), NULL);
}

static void pf_special(void *arg, struct calltime *ct, const struct ev *e, unsigned d)
{
    struct pctx *c = arg;
    struct perfetto *p = c->p;
    char buf[512];

    (void)ct, (void)d;
    if (e->kind == EV_MARK) {
        fmt_mark(e, buf, sizeof buf);
    } else if (e->kind == EV_TRIGGER) {
        struct fmt_namer nm = {p->o.sym, p->o.bias, 0, {0}};

        fmt_trigger(&nm, NULL, e, buf, sizeof buf);
    } else if (e->kind == EV_FAULT) {
        fmt_fault(p->o.sym, p->o.bias, 16, e, NULL, buf, sizeof buf);
    } else if (e->kind == EV_LOST) {
        snprintf(buf, sizeof buf, "%" PRIu64 " events lost", e->addr);
    } else {
        return;
    }
    instant(p, &c->seq, ns_of(p, e->time), buf);
}

static void pf_finished(void *arg, struct calltime *ct)
{
    (void)ct;
    before_flush(arg);
}

static const struct calltime_ops pf_ops = {pf_open, pf_close, pf_drop, pf_special, pf_finished};

/* ---- the writer */

/* The input's process: its track (uuid p->process), pid and name (o.process, if any). */
static void process_desc(struct perfetto *p)
{
    writer_packet(p);
    pbenc_begin(&p->pb, TP_TRACK_DESC);
    pbenc_varint(&p->pb, TD_UUID, p->process);
    pbenc_begin(&p->pb, TD_PROCESS);
    pbenc_varint(&p->pb, PD_PID, p->o.pid);
    if (p->o.process)
        pbenc_string(&p->pb, PD_NAME, p->o.process);
    pbenc_end(&p->pb);
    pbenc_end(&p->pb);
    packet_end(p);
}

struct perfetto *perfetto_new(FILE *out, const struct export_opts *o)
{
    struct perfetto *p = calloc(1, sizeof *p);

    if (!p)
        return NULL;
    p->out = out;
    p->o = *o;
    p->next_seq = WRITER_SEQ;
    p->next_uuid = PROCESS_UUID;
    p->process = PROCESS_UUID;
    pbenc_init(&p->pb);
    process_desc(p);
    return p;
}

/* The tracks' own sequences (blocked), which no context of the next input writes to. */
static void tracks_free(struct perfetto *p)
{
    for (unsigned i = 0; i < p->tracks.n; i++) {
        struct ptrack *t = p->tracks.v[i];

        seq_free(t->blocked);
        free(t->blocked);
    }
    ctxtab_free(&p->tracks);
}

void perfetto_input(struct perfetto *p, const struct export_opts *o)
{
    tracks_free(p);
    seq_free(p->cpu);
    free(p->cpu);
    p->cpu = NULL;
    p->nm = NULL;
    p->o = *o;
    p->process = ++p->next_uuid;
    process_desc(p);
}

uint64_t perfetto_early(const struct perfetto *p)
{
    return p->early;
}

const struct tree_sink *perfetto_sink(struct perfetto *p, uint32_t ctx, uint64_t os_tid,
                                      int vfork)
{
    struct ptrack *t;
    struct pctx *c;

    if (!(t = track_of(p, ctx, os_tid, vfork)) ||
        vec_grow(&p->ctx, &p->ctx_cap, p->nctx, sizeof *p->ctx, 16) < 0 ||
        !(c = calloc(1, sizeof *c)))
        return NULL;
    p->ctx[p->nctx++] = c;
    c->p = p;
    c->id = ctx;
    memcpy(c->label, t->label, sizeof c->label);
    seq_init(p, &c->seq, t->uuid);
    calltime_init(&c->stack, &pf_ops, c, sizeof(struct calltime_level), NULL, &p->failed);
    return calltime_sink(&c->stack);
}

void perfetto_names(struct perfetto *p, const struct names *n)
{
    p->nm = n;
}

/* A new sequence for track, NULL when out of memory. */
static struct seq *seq_new(struct perfetto *p, uint64_t track)
{
    struct seq *s = malloc(sizeof *s);

    if (s)
        seq_init(p, s, track);
    else
        p->failed++;
    return s;
}

void perfetto_span(struct perfetto *p, const struct taskstat_span *sp)
{
    char name[NAMES_MAX + 64];
    struct ptrack *t;
    struct seq *s;
    uint64_t from = ns_of(p, sp->from), to = ns_of(p, sp->to);
    const struct entry *e;

    if (!p->cpu) { /* first: the one row that says who ran when */
        uint64_t uuid = ++p->next_uuid;

        track_desc(p, uuid, "CPU", 0, 0);
        if (!(p->cpu = seq_new(p, uuid)))
            return;
    }
    if (!(t = track_of(p, sp->id, 0, 0)))
        return;
    if (sp->kind == TASKSTAT_RUN) {
        s = p->cpu;
        intern_room(p, s, from, 1);
        if (!(e = intern(p, s, sp->id, SUB_TASK)))
            return;
        seq_packet(p, s, from);
        seq_interned(p, s);
        pbenc_begin(&p->pb, TP_TRACK_EVENT);
        pbenc_varint(&p->pb, TE_TYPE, TYPE_BEGIN);
        pbenc_varint(&p->pb, TE_NAME_IID, e->iid);
        pbenc_end(&p->pb);
        packet_end(p);
    } else {
        if (!t->blocked && !(t->blocked = seq_new(p, side_track(p, t->label, "blocked"))))
            return;
        s = t->blocked;
        intern_room(p, s, from, 1);
        if (!(e = intern(p, s, 0, SUB_WOKEN)))
            return;
        fmt_block(p->nm, sp->objtype, sp->obj, sp->op, FMT_BLOCK_INTERVAL, name, sizeof name);
        seq_packet(p, s, from);
        seq_interned(p, s);
        pbenc_begin(&p->pb, TP_TRACK_EVENT);
        pbenc_varint(&p->pb, TE_TYPE, TYPE_BEGIN);
        pbenc_string(&p->pb, TE_NAME, name);
        if (sp->have_waker) {
            names_ctx_text(p->nm, p->o.sym, p->o.bias, sp->waker, 0, name, sizeof name);
            pbenc_begin(&p->pb, TE_DEBUG);
            pbenc_varint(&p->pb, DA_NAME_IID, e->iid);
            pbenc_string(&p->pb, DA_STRING, name);
            pbenc_end(&p->pb);
        }
        pbenc_end(&p->pb);
        packet_end(p);
    }
    slice(p, s, 0, 0, to > from ? to : from, NULL);
}

int perfetto_end(struct perfetto *p, char *err, size_t errlen)
{
    flush(p);
    if (p->pb.failed || p->failed) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (p->werr || fflush(p->out) != 0 || ferror(p->out)) {
        snprintf(err, errlen, "cannot write: %s", errno ? strerror(errno) : "I/O error");
        return -1;
    }
    return 0;
}

void perfetto_free(struct perfetto *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->nctx; i++) {
        calltime_free(&p->ctx[i]->stack);
        seq_free(&p->ctx[i]->seq);
        free(p->ctx[i]->bf);
        free(p->ctx[i]);
    }
    free(p->ctx);
    tracks_free(p);
    seq_free(p->cpu);
    free(p->cpu);
    pbenc_free(&p->pb);
    free(p);
}
