/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dec.c - ring decoding: the records in reservation order (the control block: hdr.c). */
#include "decode/dec.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/names.h"
#include "cyg_format.h"
#include "util/le.h"
#include "util/vec.h"

#define WINDOW_RECS 4096u /* records read per pread: 64 KB of 16-byte records */

struct dec {
    struct src *src;
    struct dec_ring r;
    uint8_t *buf;          /* the window: records [win_seq, win_seq + win_n) */
    uint64_t win_seq;
    unsigned win_n;        /* records in the window that the dump holds in full */
    uint64_t win_want;     /* records the window should have held (or skips: load_window) */
    uint64_t seq;          /* next to decode */
    uint64_t lap_mask;     /* a call record of the window's lap has lap_want under lap_mask */
    uint64_t lap_want;
    uint64_t end;
    struct dec_state ds;
    struct dec_stats st;
    int only;                   /* dec_only: the events of context only_id alone */
    uint32_t only_id;
    const struct dec_index *ix; /* dec_only's index, and the context's segments in it */
    const uint64_t *segs;
    int raw;                    /* dec_raw: PAD and TIME records are returned too */
};

/* A 32-bit target's counter wraps every 2^32 reservations. Then head is small again, but the
 * slot it points at still holds a record from before the wrap: the first lap never leaves one
 * there. The capacity divides 2^32, so adding 2^32 keeps every slot and lap bit in place. */
static int counter_wrapped(struct src *s, const struct dec_ring *r)
{
    uint8_t rec[32] = {0};
    static const uint8_t zero[32];

    if (r->word_bytes != 4 || r->head >= r->cap)
        return 0;
    if (src_read(s, r->off + CYG_HDR_BYTES + r->head * r->rec_bytes, rec, r->rec_bytes) !=
        (long)r->rec_bytes)
        return 0;
    return memcmp(rec, zero, r->rec_bytes) != 0;
}

struct dec *dec_open(struct src *s, const struct dec_ring *r)
{
    struct dec *d = calloc(1, sizeof *d);

    if (!d || !(d->buf = malloc((size_t)WINDOW_RECS * r->rec_bytes))) {
        free(d);
        return NULL;
    }
    d->src = s;
    d->r = *r;
    dec_state_init(&d->ds, r);
    if (r->flags & CYG_F_OVERWRITE) {
        d->end = r->head + (counter_wrapped(s, r) ? (uint64_t)1 << 32 : 0);
        d->seq = d->end > r->cap ? d->end - r->cap : 0;
        d->st.overwritten = d->seq;
    } else {
        d->end = r->head < r->cap ? r->head : r->cap;
        d->seq = 0;
    }
    d->st.first_seq = d->seq;
    d->st.end_seq = d->end;
    return d;
}

/* Loads the window that starts at d->seq: contiguous slots up to the end of the ring. */
static int load_window(struct dec *d)
{
    uint64_t slot = d->seq & (d->r.cap - 1);
    uint64_t n = d->end - d->seq;
    long got;

    if (n > WINDOW_RECS)
        n = WINDOW_RECS;
    if (n > d->r.cap - slot)
        n = d->r.cap - slot;
    got = src_read(d->src, d->r.off + CYG_HDR_BYTES + slot * d->r.rec_bytes, d->buf,
                   (size_t)n * d->r.rec_bytes);
    if (got < 0)
        return -1;
    d->win_seq = d->seq;
    d->win_n = (unsigned)((uint64_t)got / d->r.rec_bytes);
    /* A window never crosses the ring's end: one lap, one set of lap bits for all of it. */
    if (d->r.word_bytes == 8 && (d->r.flags & CYG_F_LAPTAG)) {
        d->lap_mask = CYG64_LAP | CYG64_SPECIAL | CYG64_TAG_MASK;
        d->lap_want = cyg64_lap_tag(d->seq, d->r.cap_log2);
    } else {
        d->lap_mask = d->r.word_bytes == 8 ? CYG64_LAP | CYG64_SPECIAL
                                           : CYG32_LAP | CYG32_SPECIAL;
        d->lap_want = (uint64_t)cyg_lap(d->seq, d->r.cap_log2) << (d->r.word_bytes * 8 - 1);
    }
    /* A short read: the dump ends in this run of slots, so it holds none of the slots after
     * it up to the ring's end either. The window spans them all and the loops skip them in
     * one step: a header that claims 2^40 records over a short file must not take 2^40
     * steps (found by tests/fuzz). */
    if (d->win_n < n)
        n = d->end - d->seq < d->r.cap - slot ? d->end - d->seq : d->r.cap - slot;
    d->win_want = n;
    return 0;
}

void dec_state_init(struct dec_state *s, const struct dec_ring *r)
{
    memset(s, 0, sizeof *s);
    s->version = r->version;
    s->word_bytes = r->word_bytes;
    s->rec_bytes = r->rec_bytes;
    s->cap_log2 = r->cap_log2;
    s->chunk_log2 = r->chunk_log2;
    s->flags = r->flags;
    s->ts_mask = r->ts_bits >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << r->ts_bits) - 1;
    s->clock.flip = (r->flags & CYG_F_TS_DOWN) ? s->ts_mask : 0;
}

unsigned dec_special_kind(unsigned type)
{
    switch (type) {
    case CYG_SP_THREAD: return EV_THREAD;
    case CYG_SP_CONTEXT: return EV_CONTEXT;
    case CYG_SP_MARK: return EV_MARK;
    case CYG_SP_FAULT: return EV_FAULT;
    case CYG_SP_FAULT_LR: return EV_FAULT_LR;
    case CYG_SP_START: return EV_START;
    case CYG_SP_STOP: return EV_STOP;
    case CYG_SP_PAD: return EV_PAD;
    case CYG_SP_VALUE: return EV_VALUE;
    case CYG_SP_TRIGGER: return EV_TRIGGER;
    case CYG_SP_TIME: return EV_TIME;
    case CYG_SP_SCHED: return EV_SCHED;
    case CYG_SP_NAME: return EV_NAME;
    case CYG_SP_SETJMP: return EV_SETJMP;
    case CYG_SP_LONGJMP: return EV_LONGJMP;
    default: return EV_UNKNOWN;
    }
}

static void decode_special(struct dec_state *s, struct ev *e, uint64_t a, uint64_t b)
{
    unsigned type;

    if (s->word_bytes == 8) {
        type = (unsigned)(b >> CYG64_TYPE_SHIFT) & 0x3fu;
        e->ctx = (uint32_t)(b >> CYG64_STHREAD_SHIFT) & 0xffffu;
        e->data = (uint32_t)b; /* 40 bits wide without the lap tag, but never more than 32 used */
    } else {
        type = (unsigned)(b >> CYG32_TYPE_SHIFT) & 0x3fu;
        e->data = (uint32_t)(b & CYG32_DATA_MASK);
        if (type == CYG_SP_CONTEXT)
            s->ctx = e->data;
        e->ctx = s->ctx;
    }
    e->addr = a;
    e->kind = (uint8_t)dec_special_kind(type);
    /* A clock reading: the specials after it (a context switch) take its time, and the next
     * call record unwraps from it, as from a call record's timestamp. */
    if (e->kind == EV_TIME && (s->flags & CYG_F_TIMESTAMPS))
        dec_clock_unwrap(&s->clock, a & s->ts_mask, s->ts_mask);
    e->time = s->clock.last_time;
    if (e->kind == EV_UNKNOWN)
        e->data = type;
    else if (e->kind == EV_MARK && s->version >= 3) {
        e->cls = (uint8_t)dec_mark_class(s->version, e->data);
        e->data = dec_mark_id(s->version, e->data);
    }
}

/* A 64-bit record whose lap tag is not its slot's: written laps late (CYG_F_LAPTAG). */
static inline __attribute__((always_inline)) int stale(const struct dec_state *s, uint64_t seq,
                                                       uint64_t b, unsigned w)
{
    if (w != 8 || !(s->flags & CYG_F_LAPTAG))
        return 0;
    if (b & CYG64_SPECIAL)
        return ((b ^ cyg64_special_tag(seq, s->cap_log2)) & CYG64_STAG_MASK) != 0;
    return ((b ^ cyg64_lap_tag(seq, s->cap_log2)) & CYG64_TAG_MASK) != 0;
}

/* A call record's event from its words a and b (e zeroed but for seq and site). */
static inline __attribute__((always_inline)) void call_w(struct dec_state *s, uint64_t a,
                                                         uint64_t b, struct ev *e, unsigned w)
{
    if (w == 8) {
        e->kind = (b & CYG64_EXIT) ? EV_EXIT : EV_ENTER;
        e->addr = a & CYG64_ADDR_MASK;
        e->ctx = (uint32_t)(a >> CYG64_THREAD_SHIFT);
        e->time = (s->flags & CYG_F_TIMESTAMPS)
                      ? dec_clock_unwrap(&s->clock, b & s->ts_mask, s->ts_mask)
                      : 0;
    } else {
        e->kind = (a & CYG32_EXIT) ? EV_EXIT : EV_ENTER;
        e->addr = a & ~(uint64_t)1;
        e->ctx = s->ctx;
        e->time = (s->flags & CYG_F_TIMESTAMPS)
                      ? dec_clock_unwrap(&s->clock, b & CYG32_TS_MASK, s->ts_mask)
                      : 0;
    }
}

/* Whether words a and b are record seq's: its lap bit, not all zero, not stale. An all-zero
 * slot was never written in any lap: in an even lap its lap bit would pass. No real record is
 * all zero (a thread index or a special bit is always set; a 32-bit entry of a function at
 * address 0 at time 0 is the one exception). */
static inline __attribute__((always_inline)) int holds(const struct dec_state *s, uint64_t seq,
                                                       uint64_t a, uint64_t b, unsigned w)
{
    return ((unsigned)(b >> (w * 8 - 1)) & 1u) == cyg_lap(seq, s->cap_log2) && (a | b) &&
           !stale(s, seq, b, w);
}

/* dec_record's body, inlined into dec_next's loop: the bulk decoder is benchmarked, and a
 * call per record would show there. w, the word size, is a constant in each copy, so every
 * test on it folds away. */
static inline __attribute__((always_inline)) int record_w(struct dec_state *s, const uint8_t *p,
                                                          uint64_t seq, struct ev *e, unsigned w)
{
    uint64_t a = le_get(p, w), b = le_get(p + w, w);

    if (!holds(s, seq, a, b, w))
        return 0;
    memset(e, 0, sizeof *e);
    e->seq = seq;
    if (s->flags & CYG_F_CALLSITES)
        e->site = le_get(p + 2 * w, w);
    if (w == 8 && (b & CYG64_SPECIAL)) {
        decode_special(s, e, a, b);
    } else if (w == 4 && (b & CYG32_SPECIAL)) {
        decode_special(s, e, a, b);
    } else {
        call_w(s, a, b, e, w);
    }
    return 1;
}

/* Whether the slot of seq, at p, holds that record (record_w's test, without decoding). */
static int slot_written(const struct dec_state *s, const uint8_t *p, uint64_t seq, unsigned w)
{
    return holds(s, seq, le_get(p, w), le_get(p + w, w), w);
}

/* The thread index of the 64-bit record at p (a chunk's owner: the thread whose records fill
 * it); 0 on a 32-bit ring, whose slots are no thread's alone. */
static uint32_t slot_thread(const uint8_t *p, unsigned w)
{
    uint64_t a = le_get(p, w), b = le_get(p + w, w);

    if (w != 8)
        return 0;
    return (uint32_t)((b & CYG64_SPECIAL) ? b >> CYG64_STHREAD_SHIFT : a >> CYG64_THREAD_SHIFT) &
           0xffffu;
}

/* Whether the slot of seq, at p, holds a record stored laps late over it: the lap bit its seq
 * expects, but another lap's tag. What its own writer stored there, if it did, is lost. */
static int late_store(const struct dec_state *s, const uint8_t *p, uint64_t seq, unsigned w)
{
    uint64_t a = le_get(p, w), b = le_get(p + w, w);

    return (a | b) && ((unsigned)(b >> (w * 8 - 1)) & 1u) == cyg_lap(seq, s->cap_log2) &&
           stale(s, seq, b, w);
}

/* dec_hole, w a constant; *owner, for a hole, the written slot of its chunk that tells whose
 * record is missing (NULL without chunks: nothing says). A chunk's end unused for laps holds
 * older laps' records too, every other lap with the lap bit its slots expect: a run of them,
 * the first after a written slot, is that end, not a hole (a late store is one slot: seen in
 * the kill -9 trials under load, the chunk's last record under another thread's record of an
 * earlier lap). Without chunks every unwritten slot is a hole. */
static int hole_w(const struct dec_state *s, const uint8_t *win, uint64_t win_seq, uint64_t n,
                  uint64_t seq, unsigned w, const uint8_t **owner)
{
    /* the chunk's last slot, not the one after it: that is 0 for the chunk that ends at 2^64 */
    uint64_t i = seq - win_seq, last = seq | ((UINT64_C(1) << s->chunk_log2) - 1);
    const uint8_t *p = win + i * s->rec_bytes;

    *owner = NULL;
    if (s->chunk_log2 == 0)
        return 1;
    if (seq == last && i > 0 && slot_written(s, p - s->rec_bytes, seq - 1, w) &&
        late_store(s, p, seq, w)) {
        *owner = p - s->rec_bytes;
        return 1;
    }
    for (seq++, i++; seq <= last && i < n; seq++, i++)
        if (slot_written(s, win + i * s->rec_bytes, seq, w)) {
            *owner = win + i * s->rec_bytes;
            return 1;
        }
    return 0;
}

int dec_hole(const struct dec_state *s, const uint8_t *win, uint64_t win_seq, uint64_t n,
             uint64_t seq)
{
    const uint8_t *owner;

    return s->word_bytes == 8 ? hole_w(s, win, win_seq, n, seq, 8, &owner)
                              : hole_w(s, win, win_seq, n, seq, 4, &owner);
}

/* An unwritten slot, at window index i: counted, and as a hole when it is one (dec_hole).
 * Returns the thread whose record the hole lost, when its chunk tells (64-bit rings), else 0. */
static __attribute__((noinline)) uint32_t unwritten(struct dec *d, uint64_t i, unsigned w)
{
    const uint8_t *owner;

    d->st.unwritten++;
    if (!hole_w(&d->ds, d->buf, d->win_seq, d->win_n, d->win_seq + i, w, &owner))
        return 0;
    d->st.holes++;
    return owner ? slot_thread(owner, w) : 0;
}

int dec_record(struct dec_state *s, const uint8_t *rec, uint64_t seq, struct ev *e)
{
    return s->word_bytes == 8 ? record_w(s, rec, seq, e, 8) : record_w(s, rec, seq, e, 4);
}

/* dec_only with an index: from d->seq, which starts a window, on to the start of the next
 * segment that holds a record of the context (or the end), with the clock as it stands there.
 * Returns whether it moved. */
static __attribute__((noinline)) int skip_segments(struct dec *d)
{
    const struct dec_index *x = d->ix;
    uint64_t k = (d->seq - x->first) >> x->seg_log2, to = k;

    while (to < x->n && !(d->segs[to / 64] >> (to % 64) & 1))
        to++;
    if (to == k)
        return 0;
    if (to == x->n) {
        d->seq = d->end;
        return 1;
    }
    d->seq = x->first + (to << x->seg_log2);
    d->ds.clock = x->clock[to];
    return 1;
}

/* The unwritten slot at window index i (its seq just passed): when it is a hole amid a
 * thread's chunk, of the context the pass reads, the EV_HOLE that says a record of that
 * thread's is missing there, in *e; returns whether it is one. */
static __attribute__((noinline)) int hole_event(struct dec *d, uint64_t i, unsigned w,
                                                struct ev *e, int only)
{
    uint32_t owner = unwritten(d, i, w);

    if (!owner || (only && owner != d->only_id))
        return 0;
    memset(e, 0, sizeof *e);
    e->kind = EV_HOLE;
    e->seq = d->seq - 1;
    e->ctx = owner;
    e->time = d->ds.clock.last_time;
    return 1;
}

/* only: a constant in each copy, as w is; a pass of every context pays nothing for dec_only. */
static inline __attribute__((always_inline)) int next_w(struct dec *d, struct ev *e, unsigned w,
                                                        int only)
{
    while (d->seq < d->end) {
        uint64_t i, a, b;
        const uint8_t *p;

        if (d->seq >= d->win_seq + d->win_want) {
            if (only && d->segs && skip_segments(d) && d->seq >= d->end)
                break;
            if (load_window(d) < 0)
                return -1;
        }
        i = d->seq - d->win_seq;
        if (i >= d->win_n) { /* past the end of the dump, and so is the rest of the window */
            d->st.truncated += d->win_seq + d->win_want - d->seq;
            d->seq = d->win_seq + d->win_want;
            continue;
        }
        p = d->buf + i * d->r.rec_bytes;
        a = le_get(p, w);
        b = le_get(p + w, w);
        if ((b & d->lap_mask) == d->lap_want && (a | b)) { /* a call record of this lap */
            if (w == 8 && only && (uint32_t)(a >> CYG64_THREAD_SHIFT) != d->only_id) {
                /* another thread's: only its timestamp counts, for the clock */
                if (d->ds.flags & CYG_F_TIMESTAMPS)
                    dec_clock_unwrap(&d->ds.clock, b & d->ds.ts_mask, d->ds.ts_mask);
                d->seq++;
                continue;
            }
            memset(e, 0, sizeof *e);
            e->seq = d->seq++;
            if (d->ds.flags & CYG_F_CALLSITES)
                e->site = le_get(p + 2 * w, w);
            call_w(&d->ds, a, b, e, w);
            dec_times_add(&d->st.calls, b); /* as dec_count sums them up */
        } else if (!record_w(&d->ds, p, d->seq++, e, w)) { /* a special, or nothing */
            if (hole_event(d, i, w, e, only))
                return 1;
            continue;
        } else if (e->kind == EV_PAD) {
            d->st.padding++;
            if (!d->raw)
                continue;
        } else if (e->kind == EV_TIME) { /* its work is done: the clock */
            d->st.times++;
            if (!d->raw)
                continue;
        }
        if (only && e->ctx != d->only_id)
            continue;
        d->st.decoded++;
        return 1;
    }
    return 0;
}

int dec_next(struct dec *d, struct ev *e)
{
    if (d->only)
        return d->r.word_bytes == 8 ? next_w(d, e, 8, 1) : next_w(d, e, 4, 1);
    return d->r.word_bytes == 8 ? next_w(d, e, 8, 0) : next_w(d, e, 4, 0);
}

static uint64_t ctx_hash(const void *arg, size_t pos)
{
    return oaindex_hash_u64(((const struct dec_ctx *)arg)[pos].id);
}

static int ctx_match(const void *arg, size_t pos, const void *key)
{
    return ((const struct dec_ctx *)arg)[pos].id == *(const uint32_t *)key;
}

size_t dec_ctx_find(const struct dec_ctx *v, const struct oaindex *ix, uint32_t id)
{
    return oaindex_find(ix, oaindex_hash_u64(id), ctx_match, v, &id);
}

struct dec_ctx *dec_ctx_get(struct dec_ctx **v, unsigned *n, unsigned *cap, struct oaindex *ix,
                            uint32_t id)
{
    size_t pos = dec_ctx_find(*v, ix, id), room = *cap, *slot;

    if (pos != SIZE_MAX)
        return &(*v)[pos];
    /* the array first: the index hashes its elements as it grows */
    if (vec_grow(v, &room, *n, sizeof **v, 8) < 0 || room > UINT_MAX)
        return NULL;
    *cap = (unsigned)room;
    if (oaindex_reserve(ix, 16, ctx_hash, *v) < 0)
        return NULL;
    slot = oaindex_slot(ix, oaindex_hash_u64(id), ctx_match, *v, &id);
    oaindex_put(ix, slot, *n);
    (*v)[*n] = (struct dec_ctx){.id = id};
    return &(*v)[(*n)++];
}

/* An exit that is not the innermost open call's: the tree's rules (tree.c on_leave). It
 * closes the innermost open call of its function, and the calls above it never returned
 * (longjmp): counting entries minus exits would keep them, and take the trace to start that
 * many calls too high. An exit of no open call: after a loss, a call made in the loss, above
 * the calls open across it; else a call the trace starts inside, and no call above it is
 * open any more. */
static __attribute__((noinline)) void ctx_exit_slow(struct dec_ctx *c, uint64_t addr)
{
    unsigned k = c->n_open;

    while (k-- > 0)
        if (c->open[k] == addr) {
            c->n_open = k;
            if (c->kept > k)
                c->kept = k;
            return;
        }
    if (c->kept) {
        c->n_open = c->kept;
        return;
    }
    c->n_open = 0;
    c->min_depth--;
}

static __attribute__((noinline)) int ctx_grow(struct dec_ctx *c)
{
    size_t room = c->cap_open;

    if (vec_grow(&c->open, &room, c->n_open, sizeof *c->open, 64) < 0 || room > UINT_MAX)
        return -1;
    c->cap_open = (unsigned)room;
    return 0;
}

/* dec_ctx_call, inlined into dec_count's loop: a push, or a pop of the innermost call. */
static inline __attribute__((always_inline)) int ctx_call(struct dec_ctx *c, int exit,
                                                          uint64_t addr)
{
    c->events++;
    if (!exit) {
        if (c->n_open == c->cap_open && ctx_grow(c) < 0)
            return -1;
        c->open[c->n_open++] = addr;
        return 0;
    }
    if (c->n_open && c->open[c->n_open - 1] == addr) {
        c->n_open--;
        if (c->kept > c->n_open)
            c->kept = c->n_open;
    } else {
        ctx_exit_slow(c, addr);
    }
    return 0;
}

int dec_ctx_call(struct dec_ctx *c, int exit, uint64_t addr)
{
    return ctx_call(c, exit, addr);
}

void dec_ctx_lost(struct dec_ctx *c)
{
    c->kept = c->n_open;
}

/* The tree's rules (tree.c on_setjmp, on_longjmp) on the open calls: a setjmp made in a call
 * that has closed since is forgotten; a longjmp to a buffer whose call is still the one open
 * there closes the calls above it. Without it, calls a longjmp skipped would stay open here
 * and match the exit of a call the trace starts inside, which would then start too high. */
int dec_ctx_jump(struct dec_ctx *c, int longjmp, uint64_t env)
{
    struct dec_jmp *j = NULL;
    unsigned k = 0;

    for (unsigned i = 0; i < c->n_jmps; i++)
        if (c->jmps[i].n_open <= c->n_open)
            c->jmps[k++] = c->jmps[i];
    c->n_jmps = k;
    for (unsigned i = 0; i < c->n_jmps && !j; i++)
        if (c->jmps[i].env == env)
            j = &c->jmps[i];
    if (longjmp) {
        if (j && (j->n_open == 0 || c->open[j->n_open - 1] == j->fn)) {
            c->n_open = j->n_open;
            if (c->kept > c->n_open)
                c->kept = c->n_open;
        }
        return 0;
    }
    if (!j) {
        if (c->n_jmps == 1024) { /* tree.c's TREE_JMPS_MAX: the oldest goes */
            memmove(c->jmps, c->jmps + 1, 1023 * sizeof *c->jmps);
            c->n_jmps--;
        }
        if (c->n_jmps == c->cap_jmps) {
            size_t room = c->cap_jmps;

            if (vec_grow(&c->jmps, &room, c->n_jmps, sizeof *c->jmps, 16) < 0)
                return -1;
            c->cap_jmps = (unsigned)room;
        }
        j = &c->jmps[c->n_jmps++];
        j->env = env;
    }
    j->n_open = c->n_open;
    j->fn = c->n_open ? c->open[c->n_open - 1] : 0;
    return 0;
}

void dec_ctx_free(struct dec_ctx *v, unsigned n, struct oaindex *ix)
{
    for (unsigned i = 0; v && i < n; i++) {
        free(v[i].jmps);
        free(v[i].open);
        free(v[i].segs);
    }
    free(v);
    if (ix)
        oaindex_free(ix);
}

/* The index dec_count builds (struct dec_index). It starts at the window where a second
 * context first shows (a ring of one context never needs it, and pays nothing for it); the
 * windows before that one are read once more then, usually one or two. From there each window
 * is gone over once more after the counting, by ix_window. */
struct ix_build {
    int on;
    int tried;              /* started, or given up */
    uint64_t seg;           /* the segment of the latest record */
    uint64_t next;          /* where the next segment starts */
    uint64_t marked;        /* the id of the latest context marked in seg, UINT64_MAX: none
                               (an id, not a pointer: the contexts' table moves as it grows) */
    uint64_t seg_bytes;     /* what the contexts' segs take so far */
    struct dec_clock clock; /* the clock, as a pass that reads everything unwraps it */
};

void dec_index_free(struct dec_index *x)
{
    if (!x)
        return;
    free(x->clock);
    memset(x, 0, sizeof *x);
}

/* Out of memory for a context's segments, or too many contexts: no index at all (passes then
 * read everything). */
static void ix_drop(struct dec_counts *c, struct ix_build *ib)
{
    for (unsigned i = 0; i < c->n; i++) {
        free(c->ctx[i].segs);
        c->ctx[i].segs = NULL;
    }
    dec_index_free(&c->index);
    ib->on = 0;
}

/* Where the segment after segment k starts; UINT64_MAX after the last one. Its end can lie
 * past 2^64 (a ring smaller than a segment, whose head is less than a segment short of 2^64:
 * a dump may say so), and wrapped, it was below every record: ix_window took each record for
 * the start of a new segment, and never took it (found with a crafted dump: dec_count hung).
 * No record of the pass is UINT64_MAX: it comes before the end. */
static uint64_t ix_next(const struct dec_index *x, uint64_t k)
{
    return k + 1 < x->n ? x->first + ((k + 1) << x->seg_log2) : UINT64_MAX;
}

/* Record seq starts a new segment (or a later one: the slots between were not in the dump):
 * the clock before it, ck, is the clock at the start of every segment up to its own. */
static __attribute__((noinline)) void ix_segment(struct dec_counts *c, struct ix_build *ib,
                                                 struct dec_clock ck, uint64_t seq)
{
    const struct dec_index *x = &c->index;
    uint64_t k = (seq - x->first) >> x->seg_log2;

    if (!ib->on)
        return;
    if (k >= x->n) /* not a record of the pass */
        k = x->n - 1;
    while (ib->seg < k)
        x->clock[++ib->seg] = ck;
    ib->next = ix_next(x, ib->seg);
    ib->marked = UINT64_MAX;
}

/* Context id has a record in the current segment (an id no context of the count has, from a
 * special the count did not take, marks nothing). */
static __attribute__((noinline)) void ix_mark(struct dec_counts *c, struct ix_build *ib,
                                              uint32_t id)
{
    size_t words = (c->index.n + 63) / 64, pos = dec_ctx_find(c->ctx, &c->ctx_ix, id);
    struct dec_ctx *x = pos == SIZE_MAX ? NULL : &c->ctx[pos];

    ib->marked = id;
    if (!x || !ib->on)
        return;
    if (!x->segs) {
        ib->seg_bytes += words * sizeof *x->segs;
        if (ib->seg_bytes > DEC_INDEX_SEGS_BYTES || !(x->segs = calloc(words, sizeof *x->segs))) {
            ix_drop(c, ib);
            return;
        }
    }
    x->segs[ib->seg / 64] |= (uint64_t)1 << (ib->seg % 64);
}

/* Where ix_window is in a window: ix_scan's state between its stops. */
struct ix_run {
    const uint8_t *p, *end;
    unsigned rec;
    uint64_t seq, next, marked;
    uint64_t lap_mask, lap_want, tmask;
    uint64_t time_mask, time_want; /* a TIME record of this lap: b under time_mask */
    int ts;
    struct dec_clock ck;
};

/* Goes over the records from r->p on, unwrapping the clock (call records and TIME records), up
 * to the end of the window (0), the
 * start of the next segment (1: that record not taken yet), or a record of a context not marked
 * in this segment yet (2, its id in *id: that record taken). A special counts without its own
 * checks: a segment marked for nothing costs a read, never an event. No call in the loop, so
 * that all stays in registers: it goes over every record of a ring of several threads. */
static __attribute__((noinline)) int ix_scan(struct ix_run *r, uint32_t *id)
{
    const uint8_t *p = r->p, *end = r->end;
    const unsigned rec = r->rec;
    const uint64_t lap_mask = r->lap_mask, lap_want = r->lap_want, tmask = r->tmask;
    const uint64_t tsign = (tmask >> 1) + 1, next = r->next, marked = r->marked;
    const uint64_t flip = r->ck.flip;
    uint64_t seq = r->seq, last_raw = r->ck.last_raw, last_time = r->ck.last_time, raw, who;
    int have_time = r->ck.have_time, rc = 0;

    for (; p < end; p += rec, seq++) {
        uint64_t a = le_get(p, 8), b = le_get(p + 8, 8);

        if (seq >= next) {
            rc = 1;
            break;
        }
        if ((b & lap_mask) == lap_want && (a | b)) { /* a call record of this lap */
            if (r->ts) { /* dec_clock_unwrap's steps */
                raw = (b & tmask) ^ flip;
                last_time =
                    have_time ? last_time + ((((raw - last_raw) & tmask) ^ tsign) - tsign) : raw;
                last_raw = raw;
                have_time = 1;
            }
            who = a >> CYG64_THREAD_SHIFT;
        } else if (b & CYG64_SPECIAL) {
            /* A TIME record sets the clock as record_w has it do: checked as it checks it (a
             * stale one would move a clock that dec_only then starts from). */
            if (r->ts && (b & r->time_mask) == r->time_want) {
                raw = (a & tmask) ^ flip;
                last_time =
                    have_time ? last_time + ((((raw - last_raw) & tmask) ^ tsign) - tsign) : raw;
                last_raw = raw;
                have_time = 1;
            }
            who = (b >> CYG64_STHREAD_SHIFT) & 0xffffu;
        } else {
            continue;
        }
        if (who != marked) {
            *id = (uint32_t)who;
            p += rec;
            seq++;
            rc = 2;
            break;
        }
    }
    r->p = p;
    r->seq = seq;
    r->ck = (struct dec_clock){last_raw, last_time, have_time, flip};
    return rc;
}

/* The index's share of d's window, from its first record, sequence number seq: the clock at
 * each segment's start, and which contexts have a record in which segment. A loop of its own,
 * after dec_count's over the same records, which are in the cache then: in one loop with the
 * counting, the two ran out of registers and cost twice as much. */
static __attribute__((noinline)) void ix_window(struct dec *d, struct dec_counts *c,
                                                struct ix_build *ib, uint64_t seq)
{
    struct ix_run r = {.p = d->buf + (seq - d->win_seq) * d->r.rec_bytes,
                       .end = d->buf + (size_t)d->win_n * d->r.rec_bytes,
                       .rec = d->r.rec_bytes,
                       .seq = seq,
                       .next = ib->next,
                       .marked = ib->marked,
                       .lap_mask = d->lap_mask,
                       .lap_want = d->lap_want,
                       .tmask = d->ds.ts_mask,
                       .ts = (d->ds.flags & CYG_F_TIMESTAMPS) != 0,
                       .ck = ib->clock};
    /* In a window, one lap: the lap bit, and with CYG_F_LAPTAG the special's tag, are the
     * same for all its records (holds, stale). */
    r.time_mask = CYG64_LAP | CYG64_SPECIAL | (UINT64_C(0x3f) << CYG64_TYPE_SHIFT);
    r.time_want = (d->lap_want & CYG64_LAP) | CYG64_SPECIAL |
                  ((uint64_t)CYG_SP_TIME << CYG64_TYPE_SHIFT);
    if (d->r.flags & CYG_F_LAPTAG) {
        r.time_mask |= CYG64_STAG_MASK;
        r.time_want |= cyg64_special_tag(d->win_seq, d->r.cap_log2) & CYG64_STAG_MASK;
    }
    uint32_t id;
    int rc;

    while (ib->on && (rc = ix_scan(&r, &id)) != 0) {
        if (rc == 1)
            ix_segment(c, ib, r.ck, r.seq);
        else
            ix_mark(c, ib, id);
        r.next = ib->next;
        r.marked = ib->marked;
    }
    ib->clock = r.ck;
}

/* Starts the index of the pass that d counts, at sequence number upto: a second context has
 * just shown in the window that starts there. The windows before it are read once more, by a
 * pass of their own, for their clocks and records. */
static void ix_start(struct dec *d, struct dec_counts *c, struct ix_build *ib, uint64_t upto)
{
    struct dec_index *x = &c->index;
    uint64_t recs = d->end - d->st.first_seq;
    struct dec *t;

    ib->tried = 1;
    x->first = d->st.first_seq;
    x->seg_log2 = DEC_INDEX_MIN_LOG2;
    while ((recs - 1) >> x->seg_log2 >= DEC_INDEX_SEGS)
        x->seg_log2++;
    x->n = ((recs - 1) >> x->seg_log2) + 1;
    if (!(x->clock = malloc(x->n * sizeof *x->clock)) || !(t = dec_open(d->src, &d->r))) {
        dec_index_free(x);
        return;
    }
    x->clock[0] = t->ds.clock;
    ib->on = 1;
    ib->seg = 0;
    ib->next = ix_next(x, 0);
    ib->marked = UINT64_MAX;
    ib->clock = t->ds.clock;
    /* the same windows as d's: from the same start, each where the one before it ends */
    while (ib->on && t->seq < upto) {
        if (load_window(t) < 0) {
            ix_drop(c, ib);
            break;
        }
        ix_window(t, c, ib, t->seq);
        t->seq = t->win_seq + t->win_want;
    }
    dec_close(t);
}

/* Context id of the count: x when it is that one (a context's records come in runs, and the
 * index is looked up when the context changes). NULL when out of memory. */
static inline __attribute__((always_inline)) struct dec_ctx *count_ctx(struct dec_counts *c,
                                                                      struct dec_ctx *x,
                                                                      uint32_t id)
{
    return x && x->id == id ? x : dec_ctx_get(&c->ctx, &c->n, &c->cap, &c->ctx_ix, id);
}

/* dec_count's loop, w a constant. A call record is counted from its two words alone; a
 * special one goes through record_w, which keeps the decoder's state (the firmware's current
 * context) as dec_next would. With index (64-bit rings only), once a second context shows,
 * each window is gone over once more for the index. */
static inline __attribute__((always_inline)) int count_w(struct dec *d, struct dec_counts *c,
                                                         unsigned w, int index)
{
    const uint64_t special = w == 8 ? CYG64_SPECIAL : CYG32_SPECIAL;
    struct dec_ctx *x = NULL;
    struct ix_build ib = {0};

    while (d->seq < d->end) {
        uint64_t i, seq = d->seq;

        if (seq >= d->win_seq + d->win_want && load_window(d) < 0)
            return -1;
        i = seq - d->win_seq;
        if (i >= d->win_n) { /* past the end of the dump, and so is the rest of the window */
            d->st.truncated += d->win_seq + d->win_want - seq;
            d->seq = d->win_seq + d->win_want;
            continue;
        }
        for (; i < d->win_n; i++, seq++) {
            const uint8_t *p = d->buf + i * d->r.rec_bytes;
            uint64_t a = le_get(p, w), b = le_get(p + w, w), fn;
            uint32_t id;
            int exit;
            struct ev e;

            if ((b & d->lap_mask) == d->lap_want && (a | b)) { /* a call record of this lap */
                exit = (w == 8 ? b & CYG64_EXIT : a & CYG32_EXIT) != 0;
                id = w == 8 ? (uint32_t)(a >> CYG64_THREAD_SHIFT) : d->ds.ctx;
                fn = w == 8 ? a & CYG64_ADDR_MASK : a & ~(uint64_t)1;
                if (!exit && c->n_first < DEC_COUNT_FIRST)
                    c->first[c->n_first++] = fn;
                dec_times_add(&d->st.calls, b); /* word b: its timestamp's bits (dec_get_stats) */
                d->st.decoded++;
                if (!(x = count_ctx(c, x, id)) || ctx_call(x, exit, fn) < 0)
                    return -1;
            } else if ((b & special) && record_w(&d->ds, p, seq, &e, w)) {
                /* a special: its own checks, and the context it sets */
                if (e.kind == EV_PAD) {
                    d->st.padding++;
                    continue;
                }
                if (e.kind == EV_TIME) {
                    d->st.times++;
                    continue;
                }
                if (c->names && (e.kind == EV_NAME || e.kind == EV_CONTEXT || e.kind == EV_SCHED))
                    names_feed(c->names, &e, w);
                d->st.decoded++;
                if (!(x = count_ctx(c, x, e.ctx)))
                    return -1;
                if (e.kind == EV_THREAD) {
                    x->os_tid = e.addr;
                    x->vfork = e.data == CYG_THREAD_VFORK;
                } else if ((e.kind == EV_SETJMP || e.kind == EV_LONGJMP) &&
                           dec_ctx_jump(x, e.kind == EV_LONGJMP, e.addr) < 0) {
                    return -1;
                }
            } else {
                unwritten(d, i, w);
            }
        }
        if (index && !ib.tried && c->n > 1)
            ix_start(d, c, &ib, d->seq);
        if (index && ib.on)
            ix_window(d, c, &ib, d->seq);
        d->seq = seq;
    }
    if (index && ib.on && ib.seg + 1 < c->index.n) /* segments with no record: the end's clock */
        ix_segment(c, &ib, ib.clock, c->index.first + ((c->index.n - 1) << c->index.seg_log2));
    return 0;
}

int dec_count(struct dec *d, struct dec_counts *c)
{
    /* An index only of a 64-bit ring; its work in a copy of the loop of its own. */
    if (c->want_index && d->r.word_bytes == 8)
        return count_w(d, c, 8, 1);
    return d->r.word_bytes == 8 ? count_w(d, c, 8, 0) : count_w(d, c, 4, 0);
}

void dec_only(struct dec *d, uint32_t id, const struct dec_index *x, const uint64_t *segs)
{
    d->only = 1;
    d->only_id = id;
    if (x && x->n && segs && d->r.word_bytes == 8 && x->first == d->seq) {
        d->ix = x;
        d->segs = segs;
    }
}

void dec_raw(struct dec *d)
{
    d->raw = 1;
}

void dec_get_stats(const struct dec *d, struct dec_stats *st)
{
    *st = d->st;
    /* calls summed up the call records' words b: their timestamps are the bits under ts_mask,
     * as recorded (which says as well as unwrapped times whether they all are the same) */
    st->calls.ones &= d->ds.ts_mask;
    st->calls.zeros &= d->ds.ts_mask;
}

void dec_close(struct dec *d)
{
    if (!d)
        return;
    free(d->buf);
    free(d);
}

const char *dec_machine_name(unsigned machine)
{
    switch (machine) {
    case 3: return "i386";
    case 40: return "ARM";
    case 62: return "x86-64";
    case 183: return "AArch64";
    case 243: return "RISC-V";
    default: return "unknown machine";
    }
}
