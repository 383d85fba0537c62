/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sdec.c - stream decoding: description frames, events frames, sequence continuity.
 *
 * An events frame is parsed whole against a copy of the decoder's state (expected sequence
 * number, running context, clock) into a frame-sized event buffer; only when it parsed to its
 * last byte are the events delivered and the copy kept. So a malformed frame changes nothing.
 *
 * Frames that start before the expected sequence number: a restarted target always says so
 * with a description first (it sends one at start), so only a description can restart the
 * expectation: one whose next_seq is lower than expected, whose lost counter went down, or
 * that names another program (word size, machine, pid, build-id) or another session. The
 * same session going back to a description seen before is the link replaying an old stretch
 * (FORMAT.md 11.2), not a restart. An events frame that starts too early is a duplicate:
 * dropped when all its records were seen, its new tail delivered when it overlaps. The price:
 * events of a restarted target whose description was lost on the link are dropped as
 * duplicates until its next description. */
#include "decode/sdec.h"

#include <stdlib.h>
#include <string.h>

#include "crc32.h"
#include "cyg_format.h"
#include "cyg_stream.h"
#include "decode/hdr.h"

/* A payload of at most CYG_FRAME_PAYLOAD_MAX bytes has a 4-byte header at least and one byte
 * per token: fewer events than this, plus the link loss in front. */
#define EV_MAX (CYG_FRAME_PAYLOAD_MAX + 1u)

#define KNOWN_EF (CYG_EF_TIMESTAMPS | CYG_EF_CALLSITES | CYG_EF_THREADS)

#define SEEN 64u /* descriptions remembered, to recognise one the link replays */
#define RUNS 256u /* deferred runs waited for at once (the drain keeps 32) */
#define FRAME_RUNS 32u /* DEFER tokens in one frame, at most */

/* A run of records that a DEFER token said later frames carry (cyg_stream.h). */
struct run {
    uint64_t seq; /* the next record of it to come */
    uint64_t end;
};

/* What carries over from one events frame to the next. */
struct sdec_state {
    uint64_t expect;    /* the sequence number the next events frame should start at */
    struct run runs[RUNS]; /* deferred runs, oldest first */
    unsigned nruns;
    uint32_t ctx;       /* 32-bit streams: the context id of the last CONTEXT special */
    struct dec_clock clock; /* the last normal event's timestamp, unwrapped across frames */
};

struct sdec {
    sdec_fn fn;
    void *arg;
    sdec_host_fn host_fn;
    void *host_arg;
    int have_desc;
    struct sdec_desc desc;
    struct sdec_state s;
    struct sdec_stats st;
    uint32_t seen[SEEN]; /* CRC-32 of the latest descriptions of this session */
    unsigned n_seen;
    int replayed;        /* a description was taken for a replay since the last one kept */
    struct ev ev[EV_MAX];
};

/* A cursor over a payload. */
struct rd {
    const uint8_t *p, *end;
};

static int rd_u8(struct rd *r, unsigned *v)
{
    if (r->p >= r->end)
        return -1;
    *v = *r->p++;
    return 0;
}

/* Unsigned LEB128, at most 10 bytes, no bits past 64. */
static int rd_varint(struct rd *r, uint64_t *v)
{
    uint64_t x = 0;

    for (unsigned shift = 0; shift < 70; shift += 7) {
        uint8_t b;

        if (r->p >= r->end)
            return -1;
        b = *r->p++;
        if (shift == 63 && b > 1)
            return -1;
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = x;
            return 0;
        }
    }
    return -1;
}

/* A zigzag value as the two's complement difference to add. */
static int rd_zigzag(struct rd *r, uint64_t *v)
{
    uint64_t z;

    if (rd_varint(r, &z) < 0)
        return -1;
    *v = (z >> 1) ^ (0 - (z & 1));
    return 0;
}

static uint64_t ts_mask(unsigned bits)
{
    return bits >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
}


struct sdec *sdec_new(sdec_fn fn, void *arg)
{
    struct sdec *d = calloc(1, sizeof *d);

    if (!d)
        return NULL;
    d->fn = fn;
    d->arg = arg;
    return d;
}

/* Parses a description payload into *o; -1 when it is malformed or of another version. The
 * checks are hdr_check's: a description is the ring's control block in other words. */
static int parse_desc(const uint8_t *p, size_t len, struct sdec_desc *o)
{
    struct dec_ring *g = &o->ring;
    struct rd r = {p + 1, p + len};
    unsigned v[10];
    uint64_t pid;

    memset(o, 0, sizeof *o);
    for (unsigned i = 0; i < 10; i++)
        if (rd_u8(&r, &v[i]) < 0)
            return -1;
    o->version = v[0];
    g->word_bytes = v[1];
    g->flags = v[2];
    g->machine = v[3] | v[4] << 8;
    g->ts_bits = v[5];
    g->state = v[6];
    g->resets = v[7];
    g->cap_log2 = v[8];
    g->build_id_len = v[9];
    g->rec_bytes = g->word_bytes * ((g->flags & CYG_F_CALLSITES) ? 4 : 2);
    if (o->version < CYG_STREAM_VERSION_MIN || o->version > CYG_STREAM_VERSION ||
        hdr_check(g, NULL, 0) < 0 || (size_t)(r.end - r.p) < g->build_id_len)
        return -1;
    g->cap = (uint64_t)1 << g->cap_log2;
    memcpy(g->build_id, r.p, g->build_id_len);
    r.p += g->build_id_len;
    if (rd_varint(&r, &g->ts_hz) < 0 || rd_varint(&r, &g->load_bias) < 0 ||
        rd_varint(&r, &pid) < 0 || pid > UINT32_MAX || rd_varint(&r, &o->next_seq) < 0 ||
        rd_varint(&r, &g->lost) < 0)
        return -1;
    if (r.p < r.end) { /* later drains add their session; what does not read as one, none */
        uint64_t s, v;

        if (rd_varint(&r, &s) == 0 && s <= UINT32_MAX && s != 0) {
            o->has_session = 1;
            o->session = (uint32_t)s;
        }
        /* then the ring's version (drains of version 3 rings): their marks carry a class */
        if (o->has_session && rd_varint(&r, &v) == 0 && v <= 0xffff) {
            g->version = (unsigned)v;
            /* then the hooks' cost per event (CYG_HOOK_COST_*): drains before it end here */
            if (rd_varint(&r, &v) == 0 && v <= UINT32_MAX)
                g->hook_cost = (uint32_t)v;
        }
    }
    g->pid = (uint32_t)pid;
    /* bytes after lost: fields of a later version, ignored */
    return 0;
}

/* Whether description n says the target started over since the last one. */
static int restarted(const struct sdec *d, const struct sdec_desc *n)
{
    const struct sdec_desc *o = &d->desc;
    const struct dec_ring *nr = &n->ring, *cr = &o->ring;

    return n->next_seq < d->s.expect || nr->lost < cr->lost ||
           nr->word_bytes != cr->word_bytes || nr->machine != cr->machine || nr->pid != cr->pid ||
           nr->build_id_len != cr->build_id_len ||
           memcmp(nr->build_id, cr->build_id, nr->build_id_len) != 0 ||
           n->has_session != o->has_session || n->session != o->session;
}

/* Whether description n, which goes back, is one of this session's the link brings again: a
 * drain never goes back within a session, and a replay repeats a description byte for byte. A
 * target that restarts into the very description it began with last time (a boot that took
 * exactly as long) is taken for a replay until its next description says otherwise. Drains
 * that say no session keep the old rule: going back is starting over. */
static int replayed(const struct sdec *d, const struct sdec_desc *n, uint32_t crc)
{
    if (!n->has_session || !d->desc.has_session || n->session != d->desc.session)
        return 0;
    for (unsigned i = 0; i < d->n_seen && i < SEEN; i++)
        if (d->seen[i] == crc)
            return 1;
    return 0;
}

static int on_desc(struct sdec *d, const uint8_t *p, size_t len)
{
    struct sdec_desc n;
    uint32_t crc = crc32_update(0, p, len);

    if (parse_desc(p, len, &n) < 0)
        return -1;
    d->st.desc++;
    if (d->have_desc && restarted(d, &n) && replayed(d, &n, crc)) {
        d->st.replays++;
        d->replayed = 1;
        return 0; /* its events frames are duplicates, dropped as such */
    }
    if (!d->have_desc || restarted(d, &n)) {
        if (d->have_desc)
            d->st.restarts++;
        if (!n.has_session || n.session != d->desc.session)
            d->n_seen = 0; /* another session */
        memset(&d->s, 0, sizeof d->s);
        d->s.expect = n.next_seq;
        /* Taken for a replay before, this session's events up to here were dropped as
         * duplicates: shown as lost, not silently. */
        if (d->have_desc && d->replayed && n.next_seq) {
            struct ev *e = &d->ev[0];

            memset(e, 0, sizeof *e);
            e->kind = EV_LOST;
            e->data = EV_LOST_LINK;
            e->addr = n.next_seq;
            d->st.lost_link += n.next_seq;
            d->fn(d->arg, e);
        }
    }
    d->replayed = 0;
    d->seen[d->n_seen++ % SEEN] = crc;
    /* Otherwise the expectation stays: a next_seq above it means events frames were lost
     * before this description, and the next events frame reports the gap where it starts. */
    d->desc = n;
    d->have_desc = 1;
    d->s.clock.flip = (n.ring.flags & CYG_F_TS_DOWN) ? ts_mask(n.ring.ts_bits) : 0;
    return 0;
}

/* The frame being parsed: its own decoding state (cyg_stream.h) and the events so far. */
struct frame {
    struct rd r;
    unsigned ef;
    uint64_t seq;               /* the next record's sequence number */
    uint64_t raw;               /* the running timestamp, masked */
    uint64_t cache[CYG_CACHE_SLOTS];
    uint64_t cached;            /* bit i: cache[i] holds an address */
    uint64_t lit;
    uint32_t thread;
    unsigned n;
    struct run defer[FRAME_RUNS]; /* the frame's DEFER runs */
    unsigned ndefer;
};

/* Reads the rest of an ENTER or EXIT of function addr into e. */
static int parse_call(struct sdec *d, struct frame *f, struct sdec_state *s, struct ev *e,
                      uint64_t addr)
{
    const int w8 = d->desc.ring.word_bytes == 8;
    uint64_t v;

    e->addr = addr;
    e->ctx = w8 ? f->thread : s->ctx;
    if (f->ef & CYG_EF_CALLSITES) {
        if (rd_zigzag(&f->r, &v) < 0)
            return -1;
        e->site = addr + v;
        if (!w8 && e->site > UINT32_MAX)
            return -1;
    }
    if (f->ef & CYG_EF_TIMESTAMPS) {
        uint64_t mask = ts_mask(d->desc.ring.ts_bits);

        if (rd_varint(&f->r, &v) < 0)
            return -1;
        f->raw = (f->raw + v) & mask;
        e->time = dec_clock_unwrap(&s->clock, f->raw, mask);
    }
    return 0;
}

static int parse_special(struct sdec *d, struct frame *f, struct sdec_state *s, struct ev *e)
{
    const int w8 = d->desc.ring.word_bytes == 8;
    unsigned type;
    uint64_t data, payload;

    if (rd_u8(&f->r, &type) < 0 || rd_varint(&f->r, &data) < 0 ||
        rd_varint(&f->r, &payload) < 0)
        return -1;
    /* the widths of the ring's fields: 6-bit type, 24 or 40-bit data, a word of payload */
    if (type > 0x3f || data > (w8 ? CYG64_DATA_MASK : CYG32_DATA_MASK) ||
        (!w8 && payload > UINT32_MAX))
        return -1;
    e->addr = payload;
    e->data = (uint32_t)data;
    /* A clock reading (FORMAT.md 7.5): the drain counts the next dt from it, and the specials
     * after it take its time, as in the ring. */
    if (type == CYG_SP_TIME && (f->ef & CYG_EF_TIMESTAMPS)) {
        uint64_t mask = ts_mask(d->desc.ring.ts_bits);

        f->raw = payload & mask;
        dec_clock_unwrap(&s->clock, f->raw, mask);
    }
    e->time = s->clock.last_time;
    if (!w8 && type == CYG_SP_CONTEXT)
        s->ctx = (uint32_t)data;
    e->ctx = w8 ? f->thread : s->ctx;
    e->kind = (uint8_t)dec_special_kind(type);
    if (e->kind == EV_UNKNOWN)
        e->data = type;
    else if (e->kind == EV_MARK) {
        e->cls = (uint8_t)dec_mark_class(d->desc.ring.version, e->data);
        e->data = dec_mark_id(d->desc.ring.version, e->data);
    }
    return 0;
}

/* Parses one token. Returns 1 when it made an event in f's buffer, 0 when it only changed
 * the frame's state (THREAD), -1 when it is malformed. */
static int parse_token(struct sdec *d, struct frame *f, struct sdec_state *s)
{
    const int w8 = d->desc.ring.word_bytes == 8;
    struct ev *e = &d->ev[f->n];
    unsigned tok;
    uint64_t v, addr;

    if (f->n >= EV_MAX || rd_u8(&f->r, &tok) < 0 || f->seq == UINT64_MAX)
        return -1;
    memset(e, 0, sizeof *e);
    e->seq = f->seq;
    if (tok <= CYG_TK_CACHED_MAX) {
        unsigned slot = tok & (CYG_CACHE_SLOTS - 1u);

        if (!(f->cached >> slot & 1))
            return -1;
        e->kind = (tok & CYG_TK_EXIT_BIT) ? EV_EXIT : EV_ENTER;
        if (parse_call(d, f, s, e, f->cache[slot]) < 0)
            return -1;
    } else if (tok == CYG_TK_ENTER_LIT || tok == CYG_TK_EXIT_LIT) {
        if (rd_zigzag(&f->r, &v) < 0)
            return -1;
        addr = f->lit + v;
        if (addr > (w8 ? CYG64_ADDR_MASK : UINT32_MAX))
            return -1;
        f->lit = addr;
        f->cache[cyg_cache_slot((uint32_t)addr)] = addr;
        f->cached |= (uint64_t)1 << cyg_cache_slot((uint32_t)addr);
        e->kind = tok == CYG_TK_EXIT_LIT ? EV_EXIT : EV_ENTER;
        if (parse_call(d, f, s, e, addr) < 0)
            return -1;
    } else if (tok == CYG_TK_SPECIAL) {
        if (parse_special(d, f, s, e) < 0)
            return -1;
        if (e->kind == EV_PAD || e->kind == EV_TIME) { /* a slot with no event in it */
            f->seq++;
            return 0;
        }
    } else if (tok == CYG_TK_SKIP) {
        if (rd_varint(&f->r, &v) < 0 || v == 0 || v > UINT64_MAX - f->seq)
            return -1;
        e->kind = EV_LOST;
        e->data = EV_LOST_TARGET;
        e->addr = v;
        e->time = s->clock.last_time;
        e->ctx = w8 ? f->thread : s->ctx;
        if (!w8) /* a CONTEXT may be among the lost: whose the next events are is not known */
            s->ctx = 0;
        f->seq += v;
        f->n++;
        return 1;
    } else if (tok == CYG_TK_DEFER && d->desc.version >= 2) {
        if (rd_varint(&f->r, &v) < 0 || v == 0 || v > UINT64_MAX - f->seq ||
            f->ndefer == FRAME_RUNS)
            return -1;
        f->defer[f->ndefer].seq = f->seq;
        f->defer[f->ndefer++].end = f->seq + v;
        f->seq += v;
        return 0;
    } else if (tok == CYG_TK_THREAD && w8) {
        if (rd_varint(&f->r, &v) < 0 || v > UINT32_MAX)
            return -1;
        f->thread = (uint32_t)v;
        return 0;
    } else {
        return -1;
    }
    f->seq++;
    f->n++;
    return 1;
}

/* Delivers e, the part of it from sequence number from on (a SKIP run may straddle it). */
static void deliver(struct sdec *d, struct ev *e, uint64_t from)
{
    if (e->kind == EV_LOST) {
        uint64_t end = e->seq + e->addr;

        if (end <= from)
            return;
        if (e->seq < from) {
            e->addr = end - from;
            e->seq = from;
        }
        if (e->data == EV_LOST_TARGET)
            d->st.lost_target += e->addr;
        else
            d->st.lost_link += e->addr;
    } else if (e->seq < from) {
        return;
    } else {
        d->st.events++;
        if (e->kind == EV_ENTER || e->kind == EV_EXIT)
            dec_times_add(&d->st.calls, e->time);
    }
    d->fn(d->arg, e);
}

/* Waits for run r, dropping the oldest when there are too many: what of it never came is
 * counted, as no event (the drain keeps fewer). */
static void add_run(struct sdec_state *s, const struct run *r)
{
    if (s->nruns == RUNS) {
        memmove(&s->runs[0], &s->runs[1], (RUNS - 1) * sizeof s->runs[0]);
        s->nruns--;
    }
    s->runs[s->nruns++] = *r;
}

/* Takes frame f (parsed into d->ev, its state in s), which carries records of deferred run i
 * from start on: a frame for the run lost on the link before it is said, its events go out,
 * and the run waits on from where the frame stopped (its own DEFER of the rest, or its end). */
static int on_run(struct sdec *d, struct frame *f, struct sdec_state *s, unsigned i,
                  uint64_t start)
{
    struct run *r = &s->runs[i];
    uint64_t from = r->seq;

    if (f->ndefer > 1 || (f->ndefer && f->defer[0].end != r->end))
        return -1; /* a run's frame defers at most its own rest */
    if (start > r->seq) {
        struct ev *e = &d->ev[0];

        memset(e, 0, sizeof *e);
        e->kind = EV_LOST;
        e->data = EV_LOST_LINK;
        e->seq = r->seq;
        e->addr = start - r->seq;
        e->time = s->clock.last_time;
        deliver(d, e, from);
    }
    for (unsigned k = 1; k < f->n; k++)
        deliver(d, &d->ev[k], from);
    r->seq = f->ndefer ? f->defer[0].seq : f->seq;
    if (r->seq >= r->end) {
        memmove(r, r + 1, (s->nruns - i - 1) * sizeof *r);
        s->nruns--;
    }
    /* The stream's own place and clock go on from its last frame, not this one's. */
    s->expect = d->s.expect;
    d->s = *s;
    return 0;
}

static int on_events(struct sdec *d, const uint8_t *p, size_t len)
{
    struct sdec_state s = d->s;
    struct frame f;
    uint64_t start, t0;

    memset(&f, 0, sizeof f);
    f.r.p = p + 1;
    f.r.end = p + len;
    if (rd_u8(&f.r, &f.ef) < 0 || (f.ef & ~KNOWN_EF) ||
        ((f.ef & CYG_EF_THREADS) && d->desc.ring.word_bytes != 8) ||
        rd_varint(&f.r, &start) < 0 || rd_varint(&f.r, &t0) < 0 ||
        t0 > ts_mask(d->desc.ring.ts_bits))
        return -1;
    f.seq = start;
    f.raw = t0;
    /* Frames lost on the link may have held a CONTEXT: the events of this one belong to a
     * context not known (0, as at the start) until the next CONTEXT. */
    if (start > d->s.expect && d->desc.ring.word_bytes != 8)
        s.ctx = 0;
    /* t0 is the time of the event before the frame: after frames lost on the link, the
     * specials that open this one take it, not the time of the last event seen. Not for the
     * first time base: a drain that has sent no event yet says 0. */
    if ((f.ef & CYG_EF_TIMESTAMPS) && s.clock.have_time)
        dec_clock_unwrap(&s.clock, t0, ts_mask(d->desc.ring.ts_bits));
    /* Slot 0 of the buffer is kept for the link loss in front of the frame. */
    f.n = 1;
    while (f.r.p < f.r.end)
        if (parse_token(d, &f, &s) < 0)
            return -1;

    if (start < d->s.expect) {
        /* A frame of a deferred run, or one the link replays. */
        for (unsigned i = 0; i < s.nruns; i++)
            if (start >= s.runs[i].seq && start < s.runs[i].end && f.seq <= s.runs[i].end)
                return on_run(d, &f, &s, i, start);
        if (f.seq <= d->s.expect) {
            d->st.dup++;
            return 0;
        }
    }
    if (start > d->s.expect) {
        struct ev *e = &d->ev[0];

        memset(e, 0, sizeof *e);
        e->kind = EV_LOST;
        e->data = EV_LOST_LINK;
        e->seq = d->s.expect;
        e->addr = start - d->s.expect;
        e->time = d->s.clock.last_time;
        e->ctx = d->desc.ring.word_bytes == 8 ? 0 : d->s.ctx;
        deliver(d, e, d->s.expect);
    }
    for (unsigned i = 1; i < f.n; i++)
        deliver(d, &d->ev[i], d->s.expect);
    for (unsigned i = 0; i < f.ndefer; i++)
        if (f.defer[i].seq >= d->s.expect)
            add_run(&s, &f.defer[i]);
    s.expect = f.seq;
    d->s = s;
    return 0;
}

void sdec_on_host(struct sdec *d, sdec_host_fn fn, void *arg)
{
    d->host_fn = fn;
    d->host_arg = arg;
}

/* A host time frame: 0, or -1 when malformed. */
static int on_host(struct sdec *d, const uint8_t *payload, size_t len)
{
    struct rd r = {payload + 1, payload + len};
    uint64_t ns;

    if (rd_varint(&r, &ns) < 0 || ns > INT64_MAX)
        return -1;
    d->st.host++;
    if (d->host_fn && d->have_desc && d->s.clock.have_time)
        d->host_fn(d->host_arg, (int64_t)ns, d->s.clock.last_time, d->st.restarts);
    return 0;
}

int sdec_frame(struct sdec *d, const uint8_t *payload, size_t len)
{
    int rc;

    d->st.frames++;
    if (len < 1 || len > CYG_FRAME_PAYLOAD_MAX) {
        rc = -1;
    } else if (payload[0] == CYG_FR_DESC) {
        rc = on_desc(d, payload, len);
    } else if (payload[0] == CYG_FR_HOST) {
        rc = on_host(d, payload, len);
    } else if (payload[0] == CYG_FR_EVENTS) {
        if (!d->have_desc) {
            d->st.early++;
            return 0;
        }
        rc = on_events(d, payload, len);
    } else {
        rc = -1;
    }
    if (rc < 0)
        d->st.malformed++;
    return rc;
}

const struct sdec_desc *sdec_desc(const struct sdec *d)
{
    return d->have_desc ? &d->desc : NULL;
}

void sdec_get_stats(const struct sdec *d, struct sdec_stats *st)
{
    *st = d->st;
}

void sdec_free(struct sdec *d)
{
    free(d);
}
