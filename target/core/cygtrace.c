/* SPDX-License-Identifier: MIT */
/* cygtrace.c - the portable core: the hooks' fast path, the ring and the control API. The
 * hooks' slow path and the control area's triggers and filters are cygtrace_ctrl.c's, the
 * program's own records (marks, contexts, names) cygtrace_mark.c's; what they share with this
 * file, cygtrace_core.h.
 *
 * No #ifdef on the architecture here: the word size is a compile-time constant the compiler
 * folds, and everything that differs between platforms comes from the port's cygtrace_port.h.
 * Built with -fno-instrument-functions; every function is also marked, in case it is not.
 */
/* The port first: it may set defaults of its own before cygtrace_config.h fills in the rest. */
#include "cygtrace_port.h"
#include "crc32.h"
#include "cygtrace_core.h"
#include "cygtrace_layout.h"
#include "cyg_v4l.h"

#ifndef CYG_PORT_CAS_STATE
/* The compiler's compare-and-swap, for ports where it needs no library. */
HOT int cyg_port_cas_state(volatile uint8_t *state, uint8_t from, uint8_t to)
{
    return __atomic_compare_exchange_n(state, &from, to, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}
#endif

/* Before init the hooks see a stopped ring and call cyg_port_wake(). */
struct cyg_ctl cyg_core_idle;

#ifndef CYG_PORT_STATIC /* else the port's, with its ring's place (cygtrace_static.c) */
struct cyg_rt cyg_rt = {CYG_RT_IDLE};
#endif

NOINSTR __attribute__((noinline)) void cyg_core_set_full(struct cyg_ctl *ctl)
{
    /* Compare-and-swap: a freeze or stop that comes in between wins. */
    if (cyg_port_cas_state(&ctl->state, CYG_S_RUNNING, CYG_S_FULL))
        cyg_set_last(0);
    cyg_core_lost();
}

/* fn as the slow path takes it (CYG_CTRL_SLOW). */
#define CYG_SLOW_FN(fn, exit) (CYG_WORD_BITS == 32 ? ((fn) & ~(uintptr_t)1) | (exit) : (fn))

#ifdef CYG_PORT_HOOKS
/* Called from the port's assembly only: used, so that link-time optimisation keeps it. */
NOINSTR __attribute__((used)) void cyg_core_full(void)
{
    cyg_core_set_full(cyg_rt.ctl);
}
#endif

#ifdef CYG_PORT_CHUNK_LOG2

/* A thread's cursor is the next slot of its chunk, its end one past the chunk's last slot: the
 * slot an increment of the cursor returns is the thread's while it is below the end. Past it,
 * the thread takes a new chunk: the end goes to 0 first, the cursor to the new chunk's second
 * slot by a compare-and-swap (which fails when a signal handler took a slot in between), then
 * the end to the new chunk's. A handler that comes in between finds every slot past the end,
 * and takes a chunk of its own.
 *
 * Cursors count in this ring's own numbers: its sequence numbers plus cyg_rt.base, a new
 * multiple of 2^48 for every ring the process sets up (slots and lap tags are the same for
 * both: base has no bit below 48). So a cursor left from another ring (a forked child's, one
 * made again by cygtrace_init) is below the new ring's low and never passes for one of its
 * slots. */

/* Raises cyg_rt.low to v (a claim that passed a step, or a start); never lowers it, whoever
 * comes last. */
NOINSTR static void cyg_raise_low(uintptr_t v)
{
    uintptr_t old = __atomic_load_n(&cyg_rt.low, __ATOMIC_RELAXED);

    while (old < v &&
           !__atomic_compare_exchange_n(&cyg_rt.low, &old, v, 1, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED))
        ;
}

/* The special record of type at slot seq (the slot is the caller's). */
NOINSTR static void cyg_special_at(uintptr_t seq, unsigned type, uintptr_t data, uintptr_t payload,
                                   uintptr_t tid);

/* Fills slots [seq, seq + n) with PAD records: no reader waits for them. Each slot checked
 * as an event's is: a thread preempted in the middle must not write a whole chunk of PADs a lap
 * late, over another thread's records (a reader would take them for an unused chunk). */
NOINSTR static void cyg_pad(uintptr_t seq, uintptr_t n, uintptr_t tid)
{
    for (; n != 0 && cyg_slot_ok(seq); n--)
        cyg_special_at(seq++, CYG_SP_PAD, 0, 0, tid);
}

#ifdef CYG_PORT_V4L
/* A version 4 word of a special that takes one slot (PAD, EPOCH, CHUNK) in slot seq. */
NOINSTR static void cyg_v4l_word(uintptr_t seq, unsigned type, uint64_t data)
{
    *(volatile uint64_t *)(cyg_rt.recs + (seq & cyg_rt.mask)) =
        cyg_v4l_laps(seq, cyg_rt.cap_log2) | cyg_v4l_head(type, data, 0);
}

/* The CHUNK word of the chunk at b (FORMAT.md 15.3), which names the thread of every record in
 * it: not stored over a word of a later lap. A claimer preempted between its claim and this
 * store for a lap (the kill -9 and stress trials, 4 threads on 2 cores) would otherwise give
 * the newer chunk's records to no thread; a compare-and-swap, once a chunk. */
NOINSTR static void cyg_v4l_chunk_word(uintptr_t b, uint64_t data)
{
    volatile uint64_t *slot = (volatile uint64_t *)(cyg_rt.recs + (b & cyg_rt.mask));
    uint64_t want = cyg_v4l_laps(b, cyg_rt.cap_log2) | cyg_v4l_head(CYG_V4L_SP_CHUNK, data, 0),
             old = *slot, xb = (~(uint64_t)b >> cyg_rt.cap_log2) & 1023u,
             xo = (old >> 63) | ((old >> 52) & 0x1ffu) << 1;

    if (!cyg_slot_ok(b) || (old != 0 && ((xb - xo) & 1023u) - 1u < 511u))
        return; /* a later lap's already, or about to be */
    __atomic_compare_exchange_n(slot, &old, want, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

/* The epoch of clock reading ts, and the thread's limit for it (FORMAT.md 15.3). */
NOINSTR static uint64_t cyg_v4l_epoch(uintptr_t ts)
{
    uintptr_t b = ts >> CYG_V4L_EPOCH_SHIFT << CYG_V4L_EPOCH_SHIFT;

    cyg_port_v4l()->limit = b + ((uintptr_t)1 << (CYG_V4L_TS_BITS - 1u));
    return (uint64_t)(ts >> CYG_V4L_EPOCH_SHIFT) & CYG_V4L_EPOCH_MASK;
}
#endif

/* The thread's chunk is used up, or too old to fill (cur: its cursor after the failed take of
 * need slots): takes a new one with one atomic add on head. Returns the first of need slots in
 * it, or CYG_NO_SLOT when the ring is full (stop mode). A version 4 chunk starts with its CHUNK
 * word: the thread and the epoch, written before the thread takes any other slot of it. */
NOINSTR __attribute__((noinline)) uintptr_t cyg_core_claim(uintptr_t cur, uintptr_t tid,
                                                          uintptr_t need)
{
    struct cyg_ctl *ctl = cyg_rt.ctl;
    uintptr_t chunk = cyg_rt.chunk, b, first, p;

    for (;;) {
        /* Not once the ring froze or stopped since the hook found it running (a signal handler
         * that froze it, another thread): a chunk claimed then moves head past a chunk of the
         * frozen ring's oldest records, which no reader sees again, and pads or leaves it
         * unwritten. One test a claim, every 64 events. */
        if (!CYG_TAKES_RECORDS(ctl->state))
            return CYG_NO_SLOT;
        b = cyg_port_claim(cyg_rt.head, chunk);
        if (CYG_STOPS(ctl->flags) && b > cyg_rt.mask) {
            cyg_core_set_full(ctl);
            return CYG_NO_SLOT;
        }
        /* Head passed a step (cyg_rt.step: an eighth of the ring, or a chunk): low follows, half
         * a ring behind the step. */
        if (((b + chunk) & (cyg_rt.step - 1)) == 0 && b + chunk > cyg_rt.lag)
            cyg_raise_low(cyg_rt.base + b + chunk - cyg_rt.lag);
        b += cyg_rt.base;
        first = b;
#ifdef CYG_PORT_V4L
        if (cyg_rt.shift == 0) {
            uint64_t e = cyg_v4l_epoch(CYGTRACE_TIMESTAMPS ? cyg_port_now() : 0);

            cyg_v4l_chunk_word(b, (uint64_t)(tid >> CYG64_THREAD_SHIFT) << CYG_V4L_THREAD_SHIFT |
                                      e);
            first = b + 1;
        }
#endif
        /* Ours, unless a signal handler moved the cursor since our take: it recorded into a
         * chunk of its own, later than ours. Ours is then padded, and we go on where it left the
         * cursor, so that our records follow the handler's as they would in one ring. */
        cyg_port_cursor_set_end(0);
        if (cyg_port_cursor_cas(cur, first + need)) {
#ifdef CYG_PORT_V4L
            /* a vfork child's chunk: its parent, resumed, must not go on in it */
            if (cyg_rt.shift == 0 && !cyg_port_settled())
                return first;
#endif
            cyg_port_cursor_set_end(b + chunk);
            return first;
        }
        cyg_pad(first, chunk - (first - b), tid);
        if (cyg_next_n(&p, need))
            return p;
        /* (one slot left where two are needed: it stays the chunk's unused end) */
        cur = p + need;
    }
}

NOINSTR void cyg_core_thread_end(uintptr_t tid)
{
    uintptr_t p;

    /* A frozen ring is left as it is, for whoever reads it. */
    if (cyg_rt.ctl == &cyg_core_idle || cyg_rt.ctl->state == CYG_S_FROZEN)
        return;
    while (cyg_next(&p))
        cyg_special_at(p, CYG_SP_PAD, 0, 0, tid);
}
#else
NOINSTR void cyg_core_thread_end(uintptr_t tid)
{
    (void)tid; /* a slot an event: nothing is left open */
}
#endif

#ifdef CYG_PORT_CHUNK_LOG2
/* An event whose thread needs a new chunk (p: its cursor as the take read it). Apart from the
 * fast path, so that the fast path calls nothing and saves no registers. Not stored if the ring
 * froze or stopped since the fast path found it running: a signal handler that came in between
 * (while the take's slot turned too old) recorded before the new chunk, and a freeze that kept
 * its last events out would leave this record after them, as if made inside the handler
 * (cyg_ctrl_put() is the same for armed events). Once a claim, every chunk's worth of events. */
NOINSTR __attribute__((noinline)) static void cyg_event_claim(uintptr_t fn, uintptr_t site,
                                                              unsigned exit, uintptr_t tid,
                                                              uintptr_t p)
{
    uintptr_t seq = cyg_core_claim(p + 1, tid, 1);

    __atomic_signal_fence(__ATOMIC_SEQ_CST); /* the state as of after the claim */
    if (seq != CYG_NO_SLOT && CYG_TAKES_RECORDS(cyg_rt.ctl->state))
        cyg_put(seq, fn, site, exit, tid, cyg_rt.recs, cyg_rt.mask, cyg_rt.cap_log2, CYG_SHIFT());
}

#ifdef CYG_PORT_V4L
/* The region of fn in the table (FORMAT.md 15.4), made when fn lies in none: its index, or -1
 * when the table is full. Entries are made by compare-and-swap from 0 and never change. */
/* The regions, process-wide: every ring the process sets up gets a copy (cyg_attach), so that
 * a thread's region, which it keeps from ring to ring, means the same in each. */
static uint64_t cyg_v4l_regs[CYG_V4L_REGIONS];

NOINSTR static int cyg_v4l_region(uintptr_t fn)
{
    uintptr_t half = (uintptr_t)1 << (CYG_V4L_REGION_BITS - 1u);

    for (unsigned i = 0; i < CYG_V4L_REGIONS; i++) {
        uint64_t lo = __atomic_load_n(&cyg_v4l_regs[i], __ATOMIC_ACQUIRE);

        if (lo == 0) {
            uint64_t want = fn >= half + 4096u ? (fn - half) & ~(uint64_t)4095 : 4096u;

            if (__atomic_compare_exchange_n(&cyg_v4l_regs[i], &lo, want, 0, __ATOMIC_RELEASE,
                                            __ATOMIC_ACQUIRE))
                lo = want;
        }
        if (fn - lo <= CYG_V4L_OFF_MASK) {
            /* in the ring's table before any record that names it */
            if (cyg_rt.regions[i] != lo)
                __atomic_store_n(&cyg_rt.regions[i], lo, __ATOMIC_RELEASE);
            return (int)i;
        }
    }
    return -1;
}

/* Slot seq, the thread's, for the call of fn at clock ts (limit: the thread's epoch limit as it
 * was before seq was taken: FORMAT.md 15.3). Writes an EPOCH word there instead when the clock passed it,
 * and the call in the next slot; a CALL64 pair when fn is in no region and the table is full. */
NOINSTR __attribute__((noinline)) static void cyg_v4l_put_at(uintptr_t seq, uintptr_t fn,
                                                            unsigned exit, uintptr_t limit,
                                                            uintptr_t ts)
{
    struct cyg_v4l_tls *t = cyg_port_v4l();
    uintptr_t off, x, rb;
    int r;

    for (int tries = 0; ts >= limit && tries < 4; tries++) {
        cyg_v4l_word(seq, CYG_V4L_SP_EPOCH, cyg_v4l_epoch(ts));
        limit = *(volatile uintptr_t *)&t->limit;
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        if ((seq = cyg_take(cyg_port_thread())) == CYG_NO_SLOT)
            return;
        ts = CYGTRACE_TIMESTAMPS ? cyg_port_now() : 0;
    }
    off = fn - t->rlo;
    rb = t->rbits;
    if (off > CYG_V4L_OFF_MASK) {
        off = fn - t->rlo2;
        rb = t->rbits2;
    }
    if (off > CYG_V4L_OFF_MASK) {
        if ((r = cyg_v4l_region(fn)) < 0) {
            /* the table is full: the address whole, in a pair of slots */
            cyg_v4l_word(seq, CYG_SP_PAD, 0);
            if ((seq = cyg_take_n(cyg_port_thread(), 2)) != CYG_NO_SLOT)
                cyg_special_at(seq, CYG_V4L_SP_CALL64,
                               (exit ? 1u << 31 : 0) | (ts & CYG_V4L_TS_MASK), fn, 0);
            return;
        }
        /* the last region becomes the one before */
        t->rlo2 = t->rlo;
        t->rbits2 = t->rbits;
        t->rlo = (uintptr_t)cyg_v4l_regs[r];
        t->rbits = rb = (uintptr_t)r << CYG_V4L_REG_SHIFT;
        off = fn - t->rlo;
    }
    x = ~seq >> cyg_rt.cap_log2;
    *(volatile uintptr_t *)(cyg_rt.recs + (seq & cyg_rt.mask)) =
        x << 63 | (x << 51 & CYG_V4L_TAG_MASK) | (exit ? CYG_V4L_EXIT : 0) | rb |
        off << CYG_V4L_OFF_SHIFT | (ts & CYG_V4L_TS_MASK);
}

/* A version 4 event outside the fast path: a slot of the thread's (a claim when its chunk is
 * used up: its thread's first event too), then the state read again, as cyg_event_claim. */
NOINSTR __attribute__((noinline)) void cyg_v4l_put(uintptr_t fn, unsigned exit)
{
    uintptr_t tid = cyg_port_thread(), limit, seq;

    limit = *(volatile uintptr_t *)&cyg_port_v4l()->limit;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    seq = cyg_take(tid);
    __atomic_signal_fence(__ATOMIC_SEQ_CST); /* the state as of after the take */
    if (seq != CYG_NO_SLOT && CYG_TAKES_RECORDS(cyg_rt.ctl->state))
        cyg_v4l_put_at(seq, fn, exit, limit, CYGTRACE_TIMESTAMPS ? cyg_port_now() : 0);
}

/* The version 4 fast path (FORMAT.md 15): the epoch's limit read before the slot is taken, the
 * slot from the thread's cursor, the clock, the thread's region; one word stored. No thread
 * index: the chunk's first word has it (a thread's first event has no chunk yet: the claim). */
HOT void cyg_event4(uintptr_t fn, unsigned exit)
{
    struct cyg_v4l_tls *t = cyg_port_v4l();
    uintptr_t limit = *(volatile uintptr_t *)&t->limit, seq, ts, off, x;

    if (UNLIKELY(!cyg_next(&seq))) {
        cyg_v4l_put(fn, exit);
        return;
    }
    ts = CYGTRACE_TIMESTAMPS ? cyg_port_now() : 0;
    off = fn - t->rlo;
    if (UNLIKELY((ts >= limit) | (off > CYG_V4L_OFF_MASK))) {
        cyg_v4l_put_at(seq, fn, exit, limit, ts);
        return;
    }
    x = ~seq >> cyg_rt.cap_log2;
    *(volatile uintptr_t *)(cyg_rt.recs + (seq & cyg_rt.mask)) =
        x << 63 | (x << 51 & CYG_V4L_TAG_MASK) | (exit ? CYG_V4L_EXIT : 0) | t->rbits |
        off << CYG_V4L_OFF_SHIFT | (ts & CYG_V4L_TS_MASK);
}
#endif

/* The version 3 fast path of a chunked port; tid: the thread's index (cyg_port_thread()). */
HOT void cyg_event3_as(uintptr_t fn, uintptr_t site, unsigned exit, uintptr_t tid)
{
    uintptr_t seq;

    if (UNLIKELY(!cyg_next(&seq))) {
        cyg_event_claim(fn, site, exit, tid, seq);
        return;
    }
    cyg_put(seq, fn, site, exit, tid, cyg_rt.recs, cyg_rt.mask, cyg_rt.cap_log2, CYG_SHIFT());
}

#ifdef CYG_PORT_V4L
/* A thread's first event in a version 3 ring: its index first (a call out), apart from the
 * hook, so that the hook calls nothing and saves no register for either version. */
NOINSTR __attribute__((noinline)) static void cyg_event3_first(uintptr_t fn, uintptr_t site,
                                                               unsigned exit)
{
    cyg_event3_as(fn, site, exit, cyg_port_thread());
}
#endif

HOT void cyg_event3(uintptr_t fn, uintptr_t site, unsigned exit)
{
#ifdef CYG_PORT_V4L
    uintptr_t tid = cyg_port_thread_peek();

    if (UNLIKELY(tid == 0)) {
        cyg_event3_first(fn, site, exit);
        return;
    }
    cyg_event3_as(fn, site, exit, tid);
#else
    cyg_event3_as(fn, site, exit, cyg_port_thread());
#endif
}

/* The fast path of a chunked port: the slot comes from the thread's own cursor, and the clock
 * is read after it (an interrupt or signal handler that records between the two then sits
 * entirely between our slot and our timestamp: FORMAT.md section 6). cyg_rt is read after
 * cyg_port_thread(), which may call out (a thread's first event). */
HOT void cyg_event(uintptr_t fn, uintptr_t site, unsigned exit)
{
    if (UNLIKELY(cyg_rt.last == 0)) {
        CYG_CTRL_SLOW(CYG_SLOW_FN(fn, exit), site, exit);
        return;
    }
#ifdef CYG_PORT_V4L
    if (cyg_rt.shift == 0) {
        cyg_event4(fn, exit);
        return;
    }
#endif
    cyg_event3(fn, site, exit);
}
#elif !defined(CYG_PORT_HOOKS)
#if CYGTRACE_REC4
/* Version 4: an event that found the clock out of the epoch (a = its word a: fn, exit in bit 0):
 * the TIME record, then the event again. Apart from the fast path, so that the fast path calls
 * nothing and saves no registers. */
NOINSTR __attribute__((noinline)) static void cyg4_event_time(uintptr_t a, uintptr_t c)
{
    cyg_core_time4(c);
    cyg_again(a & ~(uintptr_t)1, 0, (unsigned)(a & 1u));
}
#endif

/* The fast path. cyg_rt is read once, before the reservation (in pairs of loads on Cortex-M),
 * and after cyg_port_thread(), which may call out. A stale copy (the state changed under us in
 * an interrupt or another thread) costs at most one record just after a stop or freeze, as a
 * read of the state would. */
HOT void cyg_event(uintptr_t fn, uintptr_t site, unsigned exit)
{
    uintptr_t last, tid, seq, mask, *recs;
    volatile uintptr_t *head;
    unsigned cap_log2, shift;

    /* The record's word a on 32-bit targets: computed before the test, so that both paths
     * share it and the fast path keeps no register for fn apart (bench/cortex-m counts it). */
    uintptr_t slow_fn = CYG_SLOW_FN(fn, exit);

    if (UNLIKELY(cyg_rt.last == 0)) {
        /* No site where records carry none: one register less the fast path keeps for it. */
        CYG_CTRL_SLOW(slow_fn, CYGTRACE_CALLSITES ? site : 0, exit);
        return;
    }
    tid = cyg_port_thread();
    last = cyg_rt.last; /* again: kept across that call, it would take a saved register */
    head = cyg_rt.head;
    recs = cyg_rt.recs;
    mask = cyg_rt.mask;
    cap_log2 = cyg_rt.cap_log2;
    shift = CYG_SHIFT();
#if CYGTRACE_REC4
    {
        /* Version 4 (FORMAT.md 14.3): the clock first, and a TIME record when it left the
         * epoch, then the reservation and one word. An interrupt between the clock read and
         * the reservation records before us with later times: ours steps back by its length,
         * which the host's signed step takes. */
        uintptr_t c = CYGTRACE_TIMESTAMPS ? cyg_port_now() : 0;

        (void)tid;
        (void)shift;
        if (CYGTRACE_TIMESTAMPS && UNLIKELY(c >> (CYG4_T - 1u) != CYG4_EPOCH)) {
            cyg4_event_time(slow_fn, c);
            return;
        }
        seq = cyg_port_reserve(head);
        if (CYGTRACE_STOP_MODE && UNLIKELY(seq > last)) {
            cyg_core_set_full(cyg_rt.ctl);
            return;
        }
        *(volatile uintptr_t *)&recs[seq & mask] =
            cyg4_call((uint32_t)slow_fn, (uint32_t)c, seq, cap_log2, CYGTRACE_REC4_FN_BITS);
        return;
    }
#endif
    /* Reserve before reading the clock: an interrupt or signal handler that records between
     * the two then sits entirely between our reservation and our timestamp, so the interrupted
     * code's own records keep their order in time (the handler's step back against ours:
     * FORMAT.md section 6). */
    seq = cyg_port_reserve(head);
    if (CYGTRACE_STOP_MODE && UNLIKELY(seq > last)) {
        cyg_core_set_full(cyg_rt.ctl);
        return;
    }
    cyg_put(seq, fn, site, exit, tid, recs, mask, cap_log2, shift);
}
#endif

#ifndef CYG_PORT_HOOKS
CYGTRACE_API NOINSTR void __cyg_profile_func_enter(void *this_fn, void *call_site)
{
    cyg_event((uintptr_t)this_fn, (uintptr_t)call_site, 0);
}

CYGTRACE_API NOINSTR void __cyg_profile_func_exit(void *this_fn, void *call_site)
{
    cyg_event((uintptr_t)this_fn, (uintptr_t)call_site, 1);
}

void cyg_enter_again(void *fn, void *site) __attribute__((alias("__cyg_profile_func_enter")));
void cyg_exit_again(void *fn, void *site) __attribute__((alias("__cyg_profile_func_exit")));
#endif

NOINSTR static void cyg_special_at(uintptr_t seq, unsigned type, uintptr_t data, uintptr_t payload,
                                   uintptr_t tid)
{
    uintptr_t b;

#ifdef CYG_PORT_V4L
    if (cyg_rt.shift == 0) {
        /* One word, or the head in seq and the extension in seq + 1, which the caller took
         * with it: the extension first, so that a reader that sees the head sees both. */
        volatile uint64_t *r = (volatile uint64_t *)cyg_rt.recs;

        if (!cyg_v4l_one_word(type)) {
            r[(seq + 1) & cyg_rt.mask] =
                cyg_v4l_laps(seq + 1, cyg_rt.cap_log2) | cyg_v4l_ext(payload);
            cyg_port_release();
        }
        r[seq & cyg_rt.mask] = cyg_v4l_laps(seq, cyg_rt.cap_log2) | cyg_v4l_head(type, data, payload);
        (void)tid;
        return;
    }
#endif
    if (CYG_WORD_BITS == 64) {
        uint64_t thread = (uint64_t)tid >> CYG64_THREAD_SHIFT;

        /* With the lap tag, as call records have theirs: data is 32 bits (a mark's id). */
        b = (uintptr_t)(CYG64_SPECIAL | (uint64_t)type << CYG64_TYPE_SHIFT |
                        thread << CYG64_STHREAD_SHIFT |
                        ((uint64_t)data & CYG64_TAGGED_DATA_MASK) |
                        cyg64_special_tag(seq, cyg_rt.cap_log2));
    } else {
        b = (uintptr_t)(CYG32_SPECIAL | (uint32_t)type << CYG32_TYPE_SHIFT |
                        ((uint32_t)data & CYG32_DATA_MASK)) |
            (~seq >> cyg_rt.cap_log2) << (CYG_WORD_BITS - 1u);
    }
    cyg_store(cyg_rt.recs + ((seq & cyg_rt.mask) << cyg_rt.shift), payload, b, 0, cyg_rt.shift);
}

#if CYGTRACE_REC4

/* A special of 1 to 3 words (FORMAT.md 14.1), its slots reserved in one step, its more words
 * stored first and its header last. A TIME record within the epoch goes as a TIMELO word; one
 * outside it moves the epoch. */
NOINSTR static void cyg4_special(unsigned type, uintptr_t data, uintptr_t payload)
{
    unsigned n;
    uintptr_t seq, *recs = cyg_rt.recs, mask = cyg_rt.mask, k = cyg_rt.cap_log2;

    if (type == CYG_SP_TIME) {
        if (payload >> (CYG4_T - 1u) == CYG4_EPOCH) {
            type = CYG4_SP_TIMELO;
            payload &= ((uintptr_t)1 << CYG4_T) - 1u;
        } else {
            CYG4_EPOCH = payload >> (CYG4_T - 1u);
        }
    }
    data &= 0xffffffu;
    n = cyg4_special_words((uint32_t)data, (uint32_t)payload);
    seq = cyg_port_reserve_n(cyg_rt.head, n);
    if (CYG_STOPS(cyg_rt.ctl->flags) && seq + n - 1u > mask) {
        cyg_core_set_full(cyg_rt.ctl);
        return;
    }
    /* The words as cyg4_special_word() makes them, the more words first. */
    if (n > 2)
        recs[(seq + 2) & mask] = CYG4_S | ((seq + 2) >> k & 1u) << 30 | data >> 18;
    if (n > 1)
        recs[(seq + 1) & mask] = CYG4_S | ((seq + 1) >> k & 1u) << 30 |
                                 (((payload >> CYG4_HDR_BITS) | data << 11) & 0x1fffffffu);
    cyg_port_release();
    *(volatile uintptr_t *)&recs[seq & mask] =
        CYG4_S | (seq >> k & 1u) << 30 | CYG4_H | type << CYG4_TYPE_SHIFT |
        (n - 1u) << CYG4_N_SHIFT | (payload & 0x1fffffu);
}

NOINSTR void cyg_core_epoch(void)
{
    uintptr_t c = cyg_port_now();

    if (CYGTRACE_TIMESTAMPS && c >> (CYG4_T - 1u) != CYG4_EPOCH)
        cyg4_special(CYG_SP_TIME, 0, c);
}

/* The hooks found the clock c out of the epoch: a TIME record, and the epoch, which is set
 * whatever happens to the record (the hooks try again, and must not find it unchanged). */
NOINSTR __attribute__((used, noinline)) void cyg_core_time4(uintptr_t c)
{
    if (cyg_rt.ctl != &cyg_core_idle)
        cyg4_special(CYG_SP_TIME, 0, c);
    CYG4_EPOCH = c >> (CYG4_T - 1u);
}
#endif

NOINSTR void cyg_core_special(unsigned type, uintptr_t data, uintptr_t payload, uintptr_t tid)
{
    uintptr_t seq;

    if (cyg_rt.ctl == &cyg_core_idle)
        return;
#if CYGTRACE_REC4
    (void)seq;
    (void)tid;
    cyg4_special(type, data, payload);
    return;
#endif
#ifdef CYG_PORT_V4L
    if (cyg_rt.shift == 0) {
        /* two slots at once for a head and its extension */
        if ((seq = cyg_take_n(tid, cyg_v4l_one_word(type) ? 1 : 2)) != CYG_NO_SLOT)
            cyg_special_at(seq, type, data, payload, tid);
        return;
    }
#endif
    if ((seq = cyg_slot(tid)) == CYG_NO_SLOT)
        return;
    cyg_special_at(seq, type, data, payload, tid);
}

NOINSTR void cyg_core_detach(void)
{
    cyg_set_last(0);
    cyg_rt.ctl = &cyg_core_idle;
#if CYGTRACE_CONTROL
    cyg_ctrl_attach(NULL);
#endif
}

NOINSTR void cyg_core_lost(void)
{
    cyg_port_reserve(&cyg_rt.ctl->lost.v); /* the port's atomic increment */
}

/* crc32_bits(0, CYG_MAGIC, 8), where the seal's CRC goes on from: a constant, so that neither
 * the string nor the time to run over it is in the firmware. */
#define CYG_MAGIC_CRC 0x660d6cdbu

/* The check covers the bytes written once at init; magic is in it although it is stored last. */
NOINSTR void cyg_core_seal(struct cyg_ctl *ctl)
{
    const unsigned char *p = (const unsigned char *)ctl;
    volatile uint32_t *magic = (volatile uint32_t *)(void *)ctl->magic;

    ctl->check = crc32_bits(CYG_MAGIC_CRC, p + 8, CYG_OFF_CHECK - 8);
    /* Back to front: a block with the whole magic is a finished block. The two words are
     * built from numbers, not copied from a string, so no copy of the magic sits in flash. */
    magic[1] = CYG_MAGIC_HI;
    magic[0] = CYG_MAGIC_LO;
}

/* log2 of the capacity of a ring of bytes with records of words words: the largest power of two
 * that fits. Returns 0 when not even two records fit. */
NOINSTR __attribute__((noinline)) static unsigned cyg_cap_log2(size_t bytes, unsigned words)
{
    size_t nrec;
    unsigned log2 = 0;

    if (bytes < CYG_HDR_BYTES + CYG_RING_TAIL)
        return 0;
    nrec = (bytes - CYG_HDR_BYTES - CYG_RING_TAIL) / (words * sizeof(uintptr_t));
    /* Fewer than two records: 0 as well. */
    while (log2 + 1 < CYG_WORD_BITS - 1 && (nrec >> (log2 + 1)) != 0)
        log2++;
    return log2;
}

/* Zeroes bytes at p, a multiple of the word. The runtime takes nothing from the C library: its
 * memset and memcpy, each larger than this file's biggest function, would be most of what the
 * runtime costs a firmware that has no other use for them. */
NOINSTR static void cyg_zero(void *p, size_t bytes)
{
    for (uintptr_t *w = p; bytes != 0; bytes -= sizeof *w)
        *w++ = 0;
}

/* Points the hooks at ctl's records, as its state says (cyg_arm); returns the capacity. */
NOINSTR static long cyg_attach(struct cyg_ctl *ctl)
{
#ifndef CYG_PORT_STATIC /* else the port's ring, as cyg_rt has it from the start */
    cyg_rt.head = &ctl->head.v;
    cyg_rt.recs = (uintptr_t *)(void *)((unsigned char *)ctl + CYG_HDR_BYTES);
    cyg_rt.mask = ((uintptr_t)1 << ctl->cap_log2) - 1;
    cyg_rt.cap_log2 = ctl->cap_log2;
    cyg_rt.shift = (ctl->flags & CYG_F_CALLSITES) ? 2 : 1;
#ifdef CYG_PORT_V4L
    if (ctl->rec_bytes == CYG_V4L_REC_BYTES) { /* version 4: one word a record */
        cyg_rt.shift = 0;
        cyg_rt.regions = (volatile uint64_t *)(void *)((unsigned char *)ctl + CYG_HDR_BYTES +
                                                       ((size_t)8 << ctl->cap_log2) +
                                                       CYG_RING_TAIL);
        for (unsigned i = 0; i < CYG_V4L_REGIONS; i++)
            cyg_rt.regions[i] = __atomic_load_n(&cyg_v4l_regs[i], __ATOMIC_ACQUIRE);
    }
#endif
#endif
#if CYGTRACE_CONTROL
    cyg_ctrl_attach(
        (struct cyg_ctrl *)(void *)(cyg_rt.recs + ((cyg_rt.mask + 1) << cyg_rt.shift)));
#endif
#ifdef CYG_PORT_CHUNK_LOG2
    cyg_rt.chunk = (uintptr_t)1 << ctl->chunk_log2;
    cyg_rt.step = (cyg_rt.mask + 1) >> 3 > cyg_rt.chunk ? (cyg_rt.mask + 1) >> 3 : cyg_rt.chunk;
    cyg_rt.lag = ((cyg_rt.mask + 1) >> 1) - cyg_rt.step;
    cyg_rt.base += (uintptr_t)1 << 48; /* a ring of its own numbers */
    cyg_rt.low = cyg_rt.base + ctl->head.v;
#endif
    cyg_arm(ctl);
    __atomic_store_n(&cyg_rt.ctl, ctl, __ATOMIC_RELEASE);
    return (long)(cyg_rt.mask + 1);
}

NOINSTR void cyg_core_fresh(void *mem, unsigned log2, unsigned flags)
{
    struct cyg_ctl *ctl = mem;
    size_t recs = (size_t)((flags & CYG_F_CALLSITES) ? 4 : 2) * sizeof(uintptr_t) << log2;

#ifdef CYG_PORT_V4L
    if (flags & CYGTRACE_INIT_V4L) {
        recs = (size_t)8 << log2;
        cyg_zero((unsigned char *)ctl + CYG_HDR_BYTES + recs + CYG_RING_TAIL,
                 CYG_V4L_TABLE_BYTES);
    }
#endif

    cyg_core_detach(); /* hooks stay out while the block is rebuilt */
    /* A fresh file mapping is zero already; clearing it would make every page resident. */
    cyg_zero(ctl, (flags & CYGTRACE_INIT_ZEROED) ? CYG_HDR_BYTES : CYG_HDR_BYTES + recs);
#if CYGTRACE_CONTROL
    cyg_zero((unsigned char *)ctl + CYG_HDR_BYTES + recs, CYG_CTRL_BYTES);
#endif
    cyg_layout(ctl, (uintptr_t)ctl, log2, flags);
}

NOINSTR long cyg_core_open(struct cyg_ctl *ctl)
{
    long cap;

#if CYGTRACE_CONTROL
    /* applied 0 and gen 0: the request of a fresh ring, nothing armed, is applied already */
    cyg_ctrl_init((struct cyg_ctrl *)(void *)((unsigned char *)ctl + CYG_HDR_BYTES +
                                             ((size_t)ctl->rec_bytes << ctl->cap_log2)));
#endif
    cyg_core_seal(ctl);
    cap = cyg_attach(ctl);
    cyg_ctrl_ready(ctl);
    if (CYGTRACE_AUTOSTART)
        cygtrace_start();
    return cap;
}

NOINSTR long cygtrace_init(void *mem, size_t bytes, unsigned flags)
{
    unsigned log2;

#ifdef CYG_PORT_STATIC
    /* One ring, the port's own, whose place cyg_rt knows from the start (its set-up at boot). */
    (void)mem;
    (void)bytes;
    (void)flags;
    (void)log2;
    return -1;
#endif
    if (CYGTRACE_CALLSITES == 1)
        flags |= CYG_F_CALLSITES;
    else if (CYGTRACE_CALLSITES == 0)
        flags &= ~(unsigned)CYG_F_CALLSITES;
#ifdef CYG_PORT_V4L
    /* Version 4 (FORMAT.md 15): one word a record, and the region table after the control
     * area; not with call sites, whose records keep version 3's four words. */
    if (flags & CYG_F_CALLSITES)
        flags &= ~(unsigned)CYGTRACE_INIT_V4L;
    if ((flags & CYGTRACE_INIT_V4L) && bytes > CYG_V4L_TABLE_BYTES)
        log2 = cyg_cap_log2(bytes - CYG_V4L_TABLE_BYTES, 1);
    else
#endif
    {
        flags &= ~(unsigned)CYGTRACE_INIT_V4L;
        log2 = cyg_cap_log2(bytes, (flags & CYG_F_CALLSITES) ? 4 : 2);
    }
    if (mem == NULL || log2 == 0)
        return -1;
    cyg_core_fresh(mem, log2, flags);
    return cyg_core_open(mem);
}

/* A ring that this very build made in this very buffer: the seal holds (so bytes 0..79 are as
 * some runtime wrote them), and the layout it fixes, the capacity (2^log2, what the buffer's
 * bytes make) and the block's own address are ours. What changes at run time must be in
 * range. */
NOINSTR static int cyg_valid(const struct cyg_ctl *ctl, unsigned log2)
{
    const uint32_t *magic = (const uint32_t *)(const void *)ctl->magic;
    unsigned words = (ctl->flags & CYG_F_CALLSITES) ? 4 : 2;

    if (magic[0] != CYG_MAGIC_LO || magic[1] != CYG_MAGIC_HI ||
        ctl->check != crc32_bits(0, ctl, CYG_OFF_CHECK))
        return 0;
    if (ctl->version != CYG_RING_VERSION || ctl->word_bytes != sizeof(uintptr_t) ||
        ctl->rec_bytes != words * sizeof(uintptr_t) ||
        ctl->cap_log2 != log2 || ctl->cap_log2 == 0 ||
        ctl->ctl_addr != (uint64_t)(uintptr_t)ctl || ctl->state > CYG_S_FULL ||
        ctl->chunk_log2 != cyg_chunk_log2(ctl->cap_log2))
        return 0;
    /* 32-bit targets count in the low halves only (FORMAT.md 2.1). */
    return CYG_WORD_BITS == 64 || ((ctl->head.pad | ctl->lost.pad) >> 32) == 0;
}

NOINSTR long cyg_core_adopt(void *mem, unsigned log2)
{
    struct cyg_ctl *ctl = mem;

    if (mem == NULL || !cyg_valid(ctl, log2))
        return -1;
    return cyg_core_keep(ctl);
}

NOINSTR long cyg_core_keep(struct cyg_ctl *ctl)
{
    cyg_core_detach();
    ctl->state = CYG_S_FROZEN; /* outside the check: the seal stays valid */
    return cyg_attach(ctl);
}

NOINSTR void cygtrace_start(void)
{
    struct cyg_ctl *ctl = cyg_rt.ctl;

    /* Not frozen, full or running already (a ring's state is one of the four). */
    if (ctl == &cyg_core_idle || ctl->state != CYG_S_STOPPED)
        return;
    ctl->state = CYG_S_RUNNING;
#ifdef CYG_PORT_CHUNK_LOG2
    /* No thread goes on filling a chunk it took before the stop: its records would come before
     * START. */
    cyg_raise_low(cyg_rt.base + ctl->head.v);
#endif
    cyg_core_special(CYG_SP_START, 0, 0, cyg_port_thread());
    cyg_arm(ctl); /* the hooks come in after START */
}

NOINSTR void cygtrace_stop(void)
{
    struct cyg_ctl *ctl = cyg_rt.ctl;

    if (ctl->state != CYG_S_RUNNING)
        return;
    cyg_set_last(0); /* the hooks go out before STOP */
    cyg_core_special(CYG_SP_STOP, 0, 0, cyg_port_thread());
    ctl->state = CYG_S_STOPPED;
}

NOINSTR void cygtrace_freeze(void)
{
    cyg_set_last(0);
    if (cyg_rt.ctl != &cyg_core_idle)
        cyg_rt.ctl->state = CYG_S_FROZEN;
}

NOINSTR void cygtrace_set_mode(int mode)
{
    struct cyg_ctl *ctl = cyg_rt.ctl;

    if (ctl == &cyg_core_idle || (!CYGTRACE_STOP_MODE && mode != CYGTRACE_MODE_OVERWRITE))
        return;
    if (mode == CYGTRACE_MODE_OVERWRITE) {
        ctl->flags |= CYG_F_OVERWRITE;
    } else if (ctl->head.v > cyg_rt.mask) {
        /* Stop mode keeps the oldest records; once the writer has lapped them, the best left
         * to keep is what the ring holds now, read as the flight recorder it was. */
        ctl->state = CYG_S_FULL;
        cyg_set_last(0);
        return;
    } else {
        ctl->flags &= (uint8_t)~CYG_F_OVERWRITE;
    }
    cyg_arm(ctl);
    cyg_core_seal(ctl);
}

/* Wrapped calls: a VALUE special a word of the value, in the order the host puts them back
 * together (FORMAT.md 7.3). The slot comes from the thread's chunk (so the value stays among
 * its thread's records) or from head, as a hook's does: checked against cyg_rt.last, which the
 * caller found running. The check bits name the call's function, so that a value whose call's
 * entry the ring lost is not taken for one of the call below it. */
HOT uintptr_t cyg_value_data(void *fn, unsigned info)
{
    /* in the word's width: cyg_val_check()'s 64-bit shifts cost a 32-bit core a call */
    uintptr_t f = (uintptr_t)fn, check = CYG_VAL_CHECK_OF(f);

    return (uintptr_t)(info & (CYG_VAL_IDX_MASK | CYG_VAL_KIND_MASK << CYG_VAL_KIND_SHIFT)) |
           check << CYG_VAL_CHECK_SHIFT;
}

HOT void cyg_value_put(uintptr_t data, uintptr_t word)
{
    uintptr_t tid = cyg_port_thread(), seq;

#if CYGTRACE_REC4
    (void)seq;
    cyg_core_special(CYG_SP_VALUE, data, word, tid);
    return;
#endif
#ifdef CYG_PORT_CHUNK_LOG2
    if ((seq = cyg_take_n(tid, cyg_rt.shift == 0 ? 2 : 1)) == CYG_NO_SLOT)
        return;
#else
    seq = cyg_port_reserve(cyg_rt.head);
    /* Against the capacity in stop mode, as the hooks do (with triggers armed cyg_rt.last is
     * 0: the values of a call the filters keep come here all the same). */
    if (UNLIKELY(CYG_STOPS(cyg_rt.ctl->flags) && seq > cyg_rt.mask)) {
        cyg_core_set_full(cyg_rt.ctl);
        return;
    }
#endif
    cyg_special_at(seq, CYG_SP_VALUE, data, word, tid);
}

/* The same, out of line: for the values of several words (64 bits on a 32-bit target,
 * strings), which would otherwise hold a copy of it a word. */
NOINSTR __attribute__((noinline)) static void cyg_value_put_out(uintptr_t data, uintptr_t word)
{
    cyg_value_put(data, word);
}

/* Whether a wrapper's value is recorded now: the ring runs (or the control area's filters keep
 * the call), and the runtime did not make the call itself. */
HOT int cyg_value_on(void *fn)
{
#if CYGTRACE_CONTROL
    if (UNLIKELY(cyg_rt.last == 0))
        return cyg_ctrl_values(fn) && !cyg_port_busy();
#else
    (void)fn;
#endif
    return cyg_rt.last != 0 && !cyg_port_busy();
}

NOINSTR int cygtrace_wrap_enter(void *fn, void *site)
{
    if (cyg_port_busy())
        return 0;
    cyg_enter_again(fn, site);
    return 1;
}

NOINSTR void cygtrace_wrap_exit(void *fn, void *site)
{
    cyg_exit_again(fn, site);
}

NOINSTR void cygtrace_wrap_value(void *fn, unsigned info, uintptr_t v)
{
    if (cyg_value_on(fn))
        cyg_value_put(cyg_value_data(fn, info) | CYG_VAL_LAST |
                          (uintptr_t)sizeof v << CYG_VAL_LEN_SHIFT,
                      v);
}

NOINSTR void cygtrace_wrap_value64(void *fn, unsigned info, uint64_t v)
{
    uintptr_t d;

    if (!cyg_value_on(fn))
        return;
    d = cyg_value_data(fn, info);
    if (CYG_WORD_BITS == 64) {
        cyg_value_put_out(d | CYG_VAL_LAST | 8u << CYG_VAL_LEN_SHIFT, (uintptr_t)v);
        return;
    }
    /* the low word first */
    cyg_value_put_out(d | 4u << CYG_VAL_LEN_SHIFT, (uintptr_t)v);
    cyg_value_put_out(d | CYG_VAL_LAST | 1u << CYG_VAL_PART_SHIFT | 4u << CYG_VAL_LEN_SHIFT,
                      (uintptr_t)(v >> 32));
}

/* The string's bytes, a word at a time in memory order (the first byte in the word's low
 * byte: every target is little-endian), up to CYGTRACE_WRAP_STRING of them and 16 words. Read
 * byte by byte: the string may end anywhere, and a word read past its end could fault. */
#define CYG_WRAP_STRING_MAX (CYGTRACE_WRAP_STRING < (int)(CYG_VAL_MAX_PARTS * sizeof(uintptr_t)) \
                                 ? CYGTRACE_WRAP_STRING                                        \
                                 : (int)(CYG_VAL_MAX_PARTS * sizeof(uintptr_t)))

NOINSTR void cygtrace_wrap_string(void *fn, unsigned info, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    uintptr_t d, part = 0, left = CYG_WRAP_STRING_MAX;

    if (!cyg_value_on(fn))
        return;
    d = cyg_value_data(fn, (info & CYG_VAL_IDX_MASK) | CYG_VK_STR << CYG_VAL_KIND_SHIFT);
    if (p == NULL) {
        cyg_value_put_out(d | CYG_VAL_LAST | CYG_VAL_NULL, 0);
        return;
    }
    for (;;) {
        uintptr_t word = 0, n = 0;
        unsigned c;

        while (n < sizeof word && left != 0 && (c = *p) != 0) {
            word |= (uintptr_t)c << (8u * n++);
            p++;
            left--;
        }
        d = (d & ~((uintptr_t)CYG_VAL_PART_MASK << CYG_VAL_PART_SHIFT |
                   (uintptr_t)CYG_VAL_LEN_MASK << CYG_VAL_LEN_SHIFT)) |
            part << CYG_VAL_PART_SHIFT | n << CYG_VAL_LEN_SHIFT;
        /* The end: the string's, or the limit's (marked when the string goes on). A word that
         * is full and ends exactly at the string's end is followed by one of no bytes. */
        if (n < sizeof word || left == 0) {
            if (left == 0 && *p != 0)
                d |= CYG_VAL_TRUNC;
            cyg_value_put_out(d | CYG_VAL_LAST, word);
            return;
        }
        cyg_value_put_out(d, word);
        part++;
    }
}

NOINSTR void cygtrace_fault(unsigned kind, uintptr_t pc, uintptr_t lr)
{
    struct cyg_ctl *ctl = cyg_rt.ctl;

    if (ctl->state == CYG_S_RUNNING) {
        uintptr_t tid = cyg_port_thread();

        cyg_core_special(CYG_SP_FAULT, kind, pc, tid);
        cyg_core_special(CYG_SP_FAULT_LR, kind, lr, tid);
    }
    cygtrace_freeze();
}

NOINSTR void cygtrace_set_build_id(const void *id, size_t len)
{
    struct cyg_ctl *ctl = cyg_rt.ctl;

    if (ctl == &cyg_core_idle)
        return;
    if (len > CYG_BUILD_ID_MAX)
        len = CYG_BUILD_ID_MAX;
    for (size_t i = 0; i < sizeof ctl->build_id; i++)
        ctl->build_id[i] = i < len ? ((const uint8_t *)id)[i] : 0;
    ctl->build_id_len = (uint8_t)len;
    cyg_core_seal(ctl);
}

NOINSTR void cygtrace_set_hook_cost(uint32_t cost, uint32_t page_cost, unsigned page_log2)
{
    struct cyg_ctl *ctl = cyg_rt.ctl;

    if (ctl == &cyg_core_idle)
        return;
    ctl->hook_cost = cost;
    ctl->page_cost = page_log2 ? page_cost : 0;
    ctl->page_log2 = (uint8_t)(page_cost ? page_log2 : 0);
    cyg_core_seal(ctl);
}

NOINSTR void cyg_core_set_image(uint64_t load_bias, uint32_t pid, uint64_t ts_hz)
{
    struct cyg_ctl *ctl = cyg_rt.ctl;

    if (ctl == &cyg_core_idle)
        return;
    ctl->load_bias = load_bias;
    ctl->pid = pid;
    ctl->ts_hz = ts_hz;
    cyg_core_seal(ctl);
}

NOINSTR void *cygtrace_control_block(void)
{
    return cyg_rt.ctl == &cyg_core_idle ? NULL : cyg_rt.ctl;
}
