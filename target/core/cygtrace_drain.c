/* SPDX-License-Identifier: MIT */
/* cygtrace_drain.c - the stream drain: the ring's records out as the frames of cyg_stream.h, to
 * a byte sink of the user's (a UART, a socket, a file).
 *
 * The drain reads the ring while the hooks fill it, without a lock. Of each record it copies
 * word b (the lap bit) first, then the other words, then reads head again: the lap bit says the
 * slot holds the record wanted and not an older one, and head says that no writer has reserved
 * the slot again since, so the words copied are that record's. A record that fails either is
 * never sent: the stream says SKIP where records were lost, or the frame ends there and the
 * next call tries again.
 *
 * One frame at a time is built into a static buffer and handed to the sink as far as it takes
 * it; the next is built only once the sink has taken the whole of it. So what the link cannot
 * take yet waits in the ring, not in the drain: a slow link gets full frames, a fast one small
 * and prompt ones.
 *
 * Portable like the core: no #ifdef on the architecture, the word size is a constant the
 * compiler folds. Built with -fno-instrument-functions; every function is also marked. Nothing
 * from the C library. State is static: one ring, one drain.
 */
/* The port first, as in the core: it may set defaults before cygtrace_config.h. */
#include "cygtrace_port.h"

#include "crc32.h"
#include "cyg_stream.h"
#include "cygtrace_internal.h"

/* The most bytes a varint of a word takes (5 or 10). Also a zigzag of the difference of two
 * 32-bit words: 33 bits, 5 bytes. */
#define DRAIN_VW ((CYG_WORD_BITS + 6u) / 7u)
#define DRAIN_SPECIAL (CYG_WORD_BITS == 64 ? (uintptr_t)CYG64_SPECIAL : (uintptr_t)CYG32_SPECIAL)
/* The ring's flags as cygtrace_init() of this very build sets them: constants but for the mode
 * and call sites chosen at run time, so that the tests of the others fold away. Without stop
 * mode (CYGTRACE_STOP_MODE=0) every ring overwrites. */
#define DRAIN_FLAGS(f)                                                                             \
    (((f) & ((CYGTRACE_STOP_MODE ? CYG_F_OVERWRITE : 0u) |                                         \
             (CYGTRACE_CALLSITES == 2 ? CYG_F_CALLSITES : 0u))) |                                  \
     (CYGTRACE_STOP_MODE ? 0u : CYG_F_OVERWRITE) |                                                 \
     (CYGTRACE_CALLSITES == 1 ? CYG_F_CALLSITES : 0u) |                                            \
     (CYGTRACE_TIMESTAMPS ? CYG_F_TIMESTAMPS : 0u) |                                               \
     (CYG_WORD_BITS == 64 ? CYG_F_THREADS | CYG_F_LAPTAG : 0u))
/* log2 of words per record, as the hooks have it. */
#define DRAIN_SHIFT(flags) ((flags)&CYG_F_CALLSITES ? 2u : 1u)
/* ts_bits as cygtrace_init() sets it: the record's field, or the port's narrower clock. */
#define DRAIN_WORD_TS_BITS (CYG_WORD_BITS == 64 ? CYG64_TAGGED_TS_BITS : CYG32_TS_BITS)
#ifdef CYG_PORT_TS_BITS
#define DRAIN_TS_BITS                                                                              \
    (CYG_PORT_TS_BITS < DRAIN_WORD_TS_BITS ? CYG_PORT_TS_BITS : DRAIN_WORD_TS_BITS)
#else
#define DRAIN_TS_BITS DRAIN_WORD_TS_BITS
#endif
#define DRAIN_TS_MASK (((uintptr_t)2 << (DRAIN_TS_BITS - 1u)) - 1u)

_Static_assert(CYG_EF_CALLSITES == CYG_F_CALLSITES, "the call sites flag is passed through");

#ifdef CYG_PORT_CHUNK_LOG2
/* Chunked rings (FORMAT.md section 4): a thread that idles leaves the rest of its chunk
 * unwritten for as long as it idles. The drain does not wait there: it says DEFER for the rest
 * of the chunk and goes on, and sends what the thread writes there later in a frame of its own
 * (cyg_stream.h). A thread's records stay in its order: the drain stops at a record of a thread
 * that owns a deferred chunk (or at any record while the owner of one is not known) until that
 * chunk is sent. A deferred chunk that the writers lap is dropped: if its thread had gone on to
 * a later chunk, what is left in it is lost (SKIP), else it idled there (no event). */
#define DRAIN_PENDING 32u
#define DRAIN_CHUNKED 1
#else
#define DRAIN_CHUNKED 0
#endif
#ifdef CYG_PORT_CHUNK_LOG2

struct drain_pend {
    uintptr_t seq;   /* its next slot to send */
    uintptr_t end;   /* one past its last slot */
    uintptr_t ts;    /* the timestamp of the record before seq: the next frame's t0 */
    uintptr_t owner; /* the thread of its records; 0 while none was sent */
    int moved;       /* its thread has a record in a later chunk */
};
#endif

static struct {
    cygtrace_sink_t sink;
    void *arg;
    const struct cyg_ctl *ctl; /* the ring streamed; another one restarts the stream */
    uintptr_t seq;             /* the next record to send */
    uintptr_t last_head;       /* head at the last call: has the target recorded since? */
    uint32_t wraps;            /* 32-bit targets: times seq wrapped; the stream's are 64-bit */
    uintptr_t ts;              /* the last event sent's timestamp, masked to ts_bits */
    uint32_t since_desc;       /* bytes of stream since the last description */
    uint32_t session;          /* this stream's, new at each start-over: a host tells a target
                                  that started over from a link replaying old bytes */
    uintptr_t desc_ts;         /* the clock when the last description went */
    uint32_t len;              /* the frame in buf, delimiter included; 0: none */
    uint32_t sent;             /* how much of it the sink took */
    uint8_t buf[CYG_FRAME_WIRE_MAX];  /* the COBS code byte, the payload, its CRC, the 0x00 */
    uintptr_t cache[CYG_CACHE_SLOTS]; /* the frame's function addresses (cyg_stream.h) */
#ifdef CYG_PORT_CHUNK_LOG2
    struct drain_pend pend[DRAIN_PENDING]; /* chunks deferred, oldest first */
    unsigned npend;
    uintptr_t owner, owner_chunk; /* the thread of the last record sent from d.seq's chunk */
#endif
} d;

NOINSTR static uint8_t *put_w(uint8_t *p, uintptr_t v)
{
    for (; v > 0x7fu; v >>= 7)
        *p++ = (uint8_t)(v | 0x80u);
    *p++ = (uint8_t)v;
    return p;
}

/* put_w for a value that is mostly below 128 (dt): that byte without a call. */
#define PUT_SMALL(p, v) ((v) < 0x80u ? (*(p) = (uint8_t)(v), (p) + 1) : put_w((p), (v)))

/* A 64-bit varint: on a 32-bit target a byte at a time while the rest is wider than a word. */
NOINSTR static uint8_t *put_64(uint8_t *p, uint64_t v)
{
    while (sizeof(uintptr_t) < sizeof v && (v >> 32) != 0) {
        *p++ = (uint8_t)(v | 0x80u);
        v >>= 7;
    }
    return put_w(p, (uintptr_t)v);
}

/* zigzag(x - y): exact for any two words (the difference of two 32-bit words has 33 bits). */
NOINSTR static uint8_t *put_diff(uint8_t *p, uintptr_t x, uintptr_t y)
{
    int64_t s = (int64_t)((uint64_t)x - (uint64_t)y);

    return put_64(p, (uint64_t)s << 1 ^ (uint64_t)(s >> 63));
}

/* The stream's sequence number of record seq: on a 32-bit target head wraps at 2^32 (about
 * 72 minutes at a million events a second), the stream's never does. */
NOINSTR static uint8_t *put_seq(uint8_t *p, uintptr_t seq)
{
    return put_64(p, sizeof seq < 8 ? (uint64_t)d.wraps << 32 | seq : (uint64_t)seq);
}

/* Where the description's bytes 2..9 are in the control block (machine: both bytes, little
 * endian as every field there). */
static const uint8_t drain_desc_off[8] = {
    CYG_OFF_WORD,    CYG_OFF_FLAGS, CYG_OFF_MACHINE, CYG_OFF_MACHINE + 1,
    CYG_OFF_TS_BITS, CYG_OFF_STATE, CYG_OFF_RESETS,  CYG_OFF_CAP_LOG2,
};

/* The description frame's payload, at buf + 1; returns its length. */
NOINSTR static size_t drain_desc(const struct cyg_ctl *ctl)
{
    uint8_t *p = d.buf + 1;
    unsigned n = ctl->build_id_len < CYG_BUILD_ID_MAX ? ctl->build_id_len : CYG_BUILD_ID_MAX;

    p[0] = CYG_FR_DESC;
    p[1] = DRAIN_CHUNKED ? CYG_STREAM_VERSION : 1u; /* DEFER is for chunked rings only: the
                                                       others stay readable by older hosts */
    for (unsigned i = 0; i < sizeof drain_desc_off; i++)
        p[2 + i] = ((const volatile uint8_t *)ctl)[drain_desc_off[i]];
    p[10] = (uint8_t)n;
    for (unsigned i = 0; i < n; i++) /* no memcpy: see cyg_zero() in cygtrace.c */
        p[11 + i] = ctl->build_id[i];
    p = put_64(p + 11 + n, ctl->ts_hz);
    p = put_64(p, ctl->load_bias);
    p = put_w(p, ctl->pid);
    p = put_seq(p, d.seq);
    p = put_w(p, ctl->lost.v);
    p = put_w(p, d.session);
    p = put_w(p, ctl->version); /* the ring's: from 3 on, a mark's data carries its class */
    p = put_w(p, ctl->hook_cost); /* the hooks' cost per event (FORMAT.md 2.8), 0: none */
    return (size_t)(p - (d.buf + 1));
}

#ifdef CYG_PORT_CHUNK_LOG2
/* Whether a slot after seq, in its chunk and below head h, holds its record: seq is then a hole
 * (its writer died or is late in the middle of the record), not the unused end of a chunk. */
NOINSTR static int drain_later(uintptr_t seq, uintptr_t h, unsigned shift, unsigned lap)
{
    uintptr_t end = (seq | (cyg_rt.chunk - 1u)) + 1u;

    for (seq++; seq < end && seq < h; seq++) {
        uintptr_t b = cyg_rt.recs[((seq & cyg_rt.mask) << shift) + 1];

        if ((intptr_t)(b ^ (seq << lap)) < 0)
            return 1;
    }
    return 0;
}

/* Whether a record of thread t must wait for a deferred chunk; marks t's as left behind. */
NOINSTR static int drain_blocks(uintptr_t t)
{
    int block = 0;

    for (unsigned i = 0; i < d.npend; i++)
        if (d.pend[i].owner == 0 || d.pend[i].owner == t) {
            d.pend[i].moved |= d.pend[i].owner == t;
            block = 1;
        }
    return block;
}

NOINSTR static void drain_pend_drop(unsigned i)
{
    for (d.npend--; i < d.npend; i++)
        d.pend[i] = d.pend[i + 1];
}
#endif

/* The events frame from record d.seq on (pi >= 0: deferred chunk pi's next slot on, to its
 * end), at buf + 1, up to record end, the first record that cannot be sent yet, or the first
 * token that might not fit; returns its payload length, 0 when it would carry nothing. force: a
 * slot reserved but not written is skipped at once (nobody is going to write it: the ring is
 * not running, or the program ends). */
NOINSTR static size_t drain_events(const struct cyg_ctl *ctl, uintptr_t end, int force, int pi)
{
    const unsigned flags = DRAIN_FLAGS(ctl->flags), shift = DRAIN_SHIFT(flags);
    const uintptr_t mask = cyg_rt.mask;
    /* seq << lap has the bit of seq that picks the lap bit at the top, where b has its own. */
    const unsigned lap = CYG_WORD_BITS - 1u - cyg_rt.cap_log2;
    /* How far head may run ahead of a record before its slot is reserved again; in stop mode
     * never (head counts the refused reservations too). */
    const uintptr_t window = (flags & CYG_F_OVERWRITE) ? mask + 1u : ~(uintptr_t)0;
    /* The largest token: THREAD, then SPECIAL or a literal ENTER/EXIT with call site and dt. */
    const size_t worst = (CYG_WORD_BITS == 64 ? 4u : 0u) + 2u + 2u * DRAIN_VW +
                         ((flags & CYG_F_CALLSITES) ? DRAIN_VW : 0u);
    const volatile uintptr_t *recs = cyg_rt.recs, *head = &ctl->head.v;
    uintptr_t *cache = d.cache;
    uintptr_t seq = d.seq, ts = d.ts, lit = 0, thread = 0, h;
    uint8_t *const start = d.buf + 1, *const last = start + CYG_FRAME_PAYLOAD_MAX - worst;
    uint8_t *p, *tokens;
#ifdef CYG_PORT_CHUNK_LOG2
    const uintptr_t chunk = cyg_rt.chunk;
    struct drain_pend *pd = pi >= 0 ? &d.pend[pi] : NULL;

    if (pd) {
        seq = pd->seq;
        ts = pd->ts;
        end = pd->end;
    }
#else
    (void)pi;
#endif

    if (window != mask + 1u && end > mask + 1u)
        end = mask + 1u; /* stop mode: the records past the capacity were refused */
    start[0] = CYG_FR_EVENTS;
    start[1] =
        (uint8_t)(((flags & CYG_F_TIMESTAMPS) ? CYG_EF_TIMESTAMPS : 0u) |
                  (flags & CYG_F_CALLSITES) | ((flags & CYG_F_THREADS) ? CYG_EF_THREADS : 0u));
    tokens = p = put_w(put_seq(start + 2, seq), ts);
    for (unsigned i = 0; i < CYG_CACHE_SLOTS; i++)
        cache[i] = 0;
    h = *head;
    cyg_port_acquire();
    /* The records from seq on are not lapped, and stay so as seq goes up to end (head never
     * goes back): only the first look and a copy that head says is torn check for it. */
    if (h - seq > window)
        goto lapped;
    while ((intptr_t)(end - seq) > 0 && p <= last) {
        const volatile uintptr_t *r = recs + ((seq & mask) << shift);
        uintptr_t a, b, c, to;
        int torn = 0;

        b = r[1];
        cyg_port_acquire(); /* b, which the writer stores last, before the other words */
        a = r[0];
        c = (flags & CYG_F_CALLSITES) ? r[2] : 0;
        cyg_port_acquire(); /* the copy before head */
#ifdef CYG_PORT_CHUNK_LOG2
        /* A writer a lap late flips b's lap bit before it stores a (FORMAT.md 3.3): a b that
         * changed under the copy may have another writer's a with it. Not a record, yet. */
        torn = r[1] != b;
#endif
        h = *head;
        if (h - seq > window) {
        lapped:;
            /* The writer lapped the drain, before this call or while we copied the record
             * (the copy may be torn): what it wrote over is lost. */
            to = h - window;

#ifdef CYG_PORT_CHUNK_LOG2
            if (pd) { /* a deferred chunk: lost if its thread went on, else never written */
                to = (intptr_t)(to - pd->end) > 0 ? pd->end : to;
                if (!pd->moved) {
                    seq = to;
                    continue;
                }
            }
#endif
        skip:
            *p++ = CYG_TK_SKIP;
            p = put_w(p, to - seq);
            seq = to;
            continue;
        }
        /* The lap bit is not cyg_lap(seq), or (64-bit) the lap tag is not seq's. */
        if (torn || (intptr_t)(b ^ (seq << lap)) >= 0 ||
            (CYG_WORD_BITS == 64 &&
             ((b & DRAIN_SPECIAL)
                  ? ((uint64_t)b ^ cyg64_special_tag(seq, cyg_rt.cap_log2)) & CYG64_STAG_MASK
                  : ((uint64_t)b ^ cyg64_lap_tag(seq, cyg_rt.cap_log2)) & CYG64_TAG_MASK))) {
#ifdef CYG_PORT_CHUNK_LOG2
            if (!drain_later(seq, h, shift, lap)) {
                /* The unused end of a chunk: its thread idles, or is gone. */
                uintptr_t cend = (seq | (chunk - 1u)) + 1u;

                if (pd) {
                    if (force)
                        seq = cend; /* never to be written: no event */
                    break;
                }
                if (force || d.npend < DRAIN_PENDING) {
                    if (!force) {
                        struct drain_pend *n = &d.pend[d.npend++];

                        n->seq = seq;
                        n->end = cend;
                        n->ts = ts & DRAIN_TS_MASK;
                        n->owner = d.owner_chunk == seq / chunk ? d.owner : 0;
                        n->moved = 0;
                    }
                    *p++ = CYG_TK_DEFER;
                    p = put_w(p, cend - seq);
                    seq = cend;
                    continue;
                }
            }
#endif
            /* Reserved but not written (yet): a writer that an interrupt preempted, or one
             * that died. Wait for it, unless the writers have gone half a ring further. */
            if (!force && h - seq <= (mask >> 1) + 1u)
                break;
            to = seq + 1u;
            goto skip;
        }
        if (CYG_WORD_BITS == 64 && (flags & CYG_F_THREADS)) {
            uintptr_t t = (uintptr_t)((b & DRAIN_SPECIAL) ? (uint64_t)b >> CYG64_STHREAD_SHIFT
                                                          : (uint64_t)a >> CYG64_THREAD_SHIFT);

            t &= 0xffffu;
#ifdef CYG_PORT_CHUNK_LOG2
            if (pd) {
                if (!pd->owner)
                    pd->owner = t;
            } else if (d.npend && drain_blocks(t)) {
                break; /* an earlier chunk of its thread goes first */
            } else {
                d.owner = t;
                d.owner_chunk = seq / chunk;
            }
#endif
            if (t != thread) {
                *p++ = CYG_TK_THREAD;
                p = put_w(p, t);
                thread = t;
            }
        }
        if (b & DRAIN_SPECIAL) {
            /* Its time is the event's before it: no dt. */
            unsigned type;

            p[0] = CYG_TK_SPECIAL;
            if (CYG_WORD_BITS == 64) {
                type = (unsigned)((uint64_t)b >> CYG64_TYPE_SHIFT & 0x3fu);
                p[1] = (uint8_t)type;
                p = put_w(p + 2, (uintptr_t)((uint64_t)b & CYG64_TAGGED_DATA_MASK));
            } else {
                type = (unsigned)(b >> CYG32_TYPE_SHIFT & 0x3fu);
                p[1] = (uint8_t)type;
                p = put_w(p + 2, b & CYG32_DATA_MASK);
            }
            p = put_w(p, a);
            /* A TIME record is a clock reading (FORMAT.md 7.5): the next dt, and the next
             * frame's t0, count from it, as the host's clock does. */
            if ((flags & CYG_F_TIMESTAMPS) && type == CYG_SP_TIME)
                ts = a;
        } else {
            uintptr_t addr, ex;
            unsigned slot;

            if (CYG_WORD_BITS == 64) {
                addr = (uintptr_t)((uint64_t)a & CYG64_ADDR_MASK);
                ex = (b & (uintptr_t)CYG64_EXIT) ? 1u : 0u;
            } else {
                addr = a & ~(uintptr_t)CYG32_EXIT;
                ex = a & CYG32_EXIT;
            }
            slot = cyg_cache_slot((uint32_t)addr);
            if (cache[slot] == addr && addr != 0) {
                *p++ = (uint8_t)(slot | (ex ? CYG_TK_EXIT_BIT : 0u));
            } else {
                *p++ = (uint8_t)(CYG_TK_ENTER_LIT | ex);
                p = put_diff(p, addr, lit);
                lit = cache[slot] = addr;
            }
            if (flags & CYG_F_CALLSITES)
                p = put_diff(p, c, addr);
            if (flags & CYG_F_TIMESTAMPS) {
                /* Modulo 2^ts_bits, b - ts is the same whatever the bits above the timestamp
                 * field: ts keeps the whole word b, and is masked once, at the end. */
                uintptr_t dt = (b - ts) & DRAIN_TS_MASK;

                p = PUT_SMALL(p, dt);
                ts = b;
            }
        }
        seq++;
    }
#ifdef CYG_PORT_CHUNK_LOG2
    if (pd) {
        pd->seq = seq;
        if (p != tokens)
            pd->ts = ts & DRAIN_TS_MASK;
        if (seq == pd->end)
            drain_pend_drop((unsigned)pi);
        return p == tokens ? 0 : (size_t)(p - start);
    }
#endif
    if (p == tokens)
        return 0;
    if (seq < d.seq)
        d.wraps++;
    d.seq = seq;
    d.ts = ts & DRAIN_TS_MASK;
    return (size_t)(p - start);
}

/* The next events frame: a deferred chunk's that has something to send, else the frontier's. */
NOINSTR static size_t drain_next(const struct cyg_ctl *ctl, uintptr_t end, int force)
{
#ifdef CYG_PORT_CHUNK_LOG2
    for (unsigned i = 0; i < d.npend;) {
        unsigned before = d.npend;
        size_t n = drain_events(ctl, 0, force, (int)i);

        if (n)
            return n;
        i += d.npend == before;
    }
#endif
    return drain_events(ctl, end, force, -1);
}

/* Frames the n payload bytes at buf + 1: the CRC, COBS in place, the delimiter. One pass, front
 * to back, does both over the payload (a COBS code byte is the distance to the next zero): the
 * bytes are read once. At the payload's end the pass puts the CRC after it and goes on over its
 * bytes for COBS (the CRC register it goes on computing there is no longer used). */
NOINSTR static void drain_seal(size_t n)
{
    uint8_t *p = d.buf + 1, *end = p + n, *code = d.buf;
    uint32_t reg = 0xffffffffu;
    unsigned k = 0;

    for (;;) {
        if (p == end) {
            if (k)
                break;
            for (reg = ~reg; k < CYG_FRAME_CRC_BYTES; k++, reg >>= 8)
                end[k] = (uint8_t)reg; /* little-endian */
            end += CYG_FRAME_CRC_BYTES;
        }
        reg = crc32_step(reg, *p);
        if (*p == 0) {
            *code = (uint8_t)(p - code);
            code = p;
        }
        p++;
    }
    *code = (uint8_t)(p - code);
    *p = 0;
    d.len = (uint32_t)(p + 1 - d.buf);
    d.sent = 0;
    d.since_desc += d.len;
}

/* The ring to stream, or NULL (no ring, no sink). A ring the drain has not streamed yet, or
 * one made anew in the same place (head went back), starts over: a delimiter, the description,
 * then the oldest record it holds. */
NOINSTR static const struct cyg_ctl *drain_ring(void)
{
    /* cygtrace_control_block(), read here: a firmware links it for the drain alone. */
    const struct cyg_ctl *ctl = cyg_rt.ctl;
    uintptr_t h, cap = cyg_rt.mask + 1u;

    if (ctl == &cyg_core_idle || d.sink == NULL)
        return NULL;
    h = ctl->head.v;
    if (ctl != d.ctl || (intptr_t)(h - d.seq) < 0) {
        d.ctl = ctl;
        /* From the ring as it is now (where, how far, how many warm resets): a start-over of
         * the drain on a running ring, or a warm reset, gets another one. A boot exactly like
         * the last can only make the same one: a host then goes by the bytes it saw (sdec.c). */
        d.session = (uint32_t)(((uintptr_t)ctl ^ h * 2654435761u ^ (uintptr_t)ctl->resets << 24) |
                               1u);
        d.seq = (DRAIN_FLAGS(ctl->flags) & CYG_F_OVERWRITE) && h > cap ? h - cap : 0;
        d.wraps = 0;
#ifdef CYG_PORT_CHUNK_LOG2
        d.npend = 0;
        d.owner = d.owner_chunk = 0;
#endif
        d.ts = 0;
        d.since_desc = CYGTRACE_DRAIN_DESC_BYTES;
        /* A lone delimiter first: a host drops what comes before its first 0x00 (the tail of
         * a frame it joined in the middle of), which would be our description. */
        d.buf[0] = 0;
        d.len = 1;
        d.sent = 0;
    }
    return ctl;
}

/* Whether the description is due: after CYGTRACE_DRAIN_DESC_BYTES of stream, or half a second
 * of the trace's clock, so that a host joining a slow stream does not wait long (and a target
 * with nothing to say still says that it is there). Half a second is a shift, not a division;
 * a narrow clock (SysTick's 24 bits) is held to half its wrap. */
NOINSTR static int drain_desc_due(const struct cyg_ctl *ctl)
{
    uintptr_t now, half;

    if (!CYGTRACE_TIMESTAMPS || ctl->ts_hz == 0)
        return d.since_desc >= CYGTRACE_DRAIN_DESC_BYTES;
    now = cyg_port_now();
#ifdef CYG_PORT_STATIC
    if (cyg_port_clock_down()) /* counting down (CYG_F_TS_DOWN): inverted, it goes up */
        now = ~now;
#endif
    half = (uintptr_t)(ctl->ts_hz >> 1);
    if (half > (DRAIN_TS_MASK >> 1) || half == 0)
        half = DRAIN_TS_MASK >> 1;
    if (d.since_desc < CYGTRACE_DRAIN_DESC_BYTES && ((now - d.desc_ts) & DRAIN_TS_MASK) < half)
        return 0;
    d.desc_ts = now;
    return 1;
}

/* Hands frames to the sink until it is full, or until nothing is left before record end.
 * Returns the bytes it took. */
NOINSTR static size_t drain_run(const struct cyg_ctl *ctl, uintptr_t end, int force)
{
    size_t took = 0, n;

    /* A ring that is not running has no writer left to finish a record. */
    force |= ctl->state != CYG_S_RUNNING;
    for (;;) {
        if (d.sent == d.len) {
            if (drain_desc_due(ctl)) {
                n = drain_desc(ctl);
                d.since_desc = 0;
            } else if ((n = drain_next(ctl, end, force)) == 0) {
                return took;
            }
            drain_seal(n);
        }
        n = d.sink(d.arg, d.buf + d.sent, (size_t)(d.len - d.sent));
        d.sent += (uint32_t)n;
        took += n;
        if (d.sent < d.len)
            return took;
    }
}

NOINSTR void cygtrace_drain_init(cygtrace_sink_t sink, void *arg)
{
    d.sink = sink;
    d.arg = arg;
    d.ctl = NULL; /* starts over */
    drain_ring();
}

NOINSTR size_t cygtrace_drain(void)
{
    const struct cyg_ctl *ctl = CYGTRACE_REC4 ? NULL : drain_ring(); /* not yet: version 4 */
    uintptr_t h;

    if (ctl == NULL)
        return 0;
    h = ctl->head.v;
    /* While the target records (head moved since the last call), a few records wait for more:
     * a frame's header, CRC and first literals cost as much for 10 records as for 100. Once
     * it idles (head stood still), they go at once. A chunked ring's head says neither: it
     * moves a chunk at a time, not a record; its records go at once. */
    if (!DRAIN_CHUNKED && h - d.seq < CYGTRACE_DRAIN_BATCH && h != d.last_head &&
        d.sent == d.len && ctl->state == CYG_S_RUNNING) {
        d.last_head = h;
        return 0;
    }
    d.last_head = h;
    /* Up to head as it is now: a writer faster than the sink cannot keep the call going. */
    return drain_run(ctl, h, 0);
}

NOINSTR void cygtrace_drain_flush(void)
{
    const struct cyg_ctl *ctl = CYGTRACE_REC4 ? NULL : drain_ring();
    uintptr_t end;

    if (ctl == NULL)
        return;
    end = ctl->head.v;
    do
        drain_run(ctl, end, 1);
    while (d.sent < d.len);
}
