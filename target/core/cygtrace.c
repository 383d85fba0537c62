/* cygtrace.c - the portable core: the hooks, the ring and the control API.
 *
 * No #ifdef on the architecture here: the word size is a compile-time constant the compiler
 * folds, and everything that differs between platforms comes from the port's cygtrace_port.h.
 * Built with -fno-instrument-functions; every function is also marked, in case it is not.
 */
/* The port first: it may set defaults of its own before cygtrace_config.h fills in the rest. */
#include "cygtrace_port.h"
#include "crc32.h"
#include "cygtrace_internal.h"

#define NOINSTR __attribute__((no_instrument_function))
#define HOT __attribute__((no_instrument_function, always_inline)) static inline
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

/* The format version this runtime writes: 3 with the control area; without it, 2 with chunks,
 * else 1 (what 2 adds is all about chunks), which older hosts read too. */
#if CYGTRACE_CONTROL
#define CYG_RING_VERSION CYG_VERSION
#define CYG_RING_TAIL CYG_CTRL_BYTES /* the control area, after the records */
#elif defined(CYG_PORT_CHUNK_LOG2)
#define CYG_RING_VERSION 2u
#define CYG_RING_TAIL 0u
#else
#define CYG_RING_VERSION 1u
#define CYG_RING_TAIL 0u
#endif

#ifndef CYG_PORT_CAS_STATE
/* The compiler's compare-and-swap, for ports where it needs no library. */
HOT int cyg_port_cas_state(volatile uint8_t *state, uint8_t from, uint8_t to)
{
    return __atomic_compare_exchange_n(state, &from, to, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}
#endif

/* Before init the hooks see a stopped ring and call cyg_port_wake(). */
static struct cyg_ctl cyg_idle_ctl;

struct cyg_rt cyg_rt = {
    .ctl = &cyg_idle_ctl,
    .last = 0,
#ifdef CYG_PORT_HOOKS
    .hot = CYG_PORT_HOT_INIT,
#endif
};

#if CYGTRACE_CONTROL
/* The control area of the ring the hooks write; NULL before init (read only while the ring
 * runs, or by the API, which checks). */
static struct cyg_ctrl *cyg_ctrl;
static uint8_t cyg_ctrl_on;       /* the applied request arms something: events go the slow way */
static uint8_t cyg_win_on;        /* a freeze trigger fired: the window is counting */
static uint32_t cyg_win_after;    /* its length in events */
static volatile uintptr_t cyg_win_seen; /* events recorded in it (the port's atomic increment) */
static uint32_t cyg_epoch;        /* requests applied: a thread state of an earlier one is stale */
#define CYG_CTRL_ON() (cyg_ctrl_on || cyg_ctrl->gen != cyg_ctrl->applied)
static uint8_t cyg_start_armed;   /* the applied request has a start trigger */
#else
#define CYG_CTRL_ON() 0
#endif
/* The ring runs, and its events go through the control area (read in this order: the area is
 * there once the ring runs). */
#define CYG_CTRL_RUNNING() (cyg_rt.ctl->state == CYG_S_RUNNING && CYG_CTRL_ON())

/* The enabled classes of marks, as last applied (cygtrace.h's cygtrace_event() reads it). */
CYGTRACE_API volatile uint32_t cygtrace_event_mask = ~(uint32_t)0;

#ifndef CYG_PORT_TSTATE
/* One state for the whole target: interrupts nest and return, so its depth stays right. */
static uint32_t cyg_tstate_one[CYG_TSTATE_WORDS];

HOT uint32_t *cyg_port_tstate(void)
{
    return cyg_tstate_one;
}
#endif

/* Stores a record at r: a and c first; b, which carries the lap bit, last and after the barrier,
 * so a reader that sees the lap bit sees the whole record. */
HOT void cyg_store(uintptr_t *r, uintptr_t a, uintptr_t b, uintptr_t c, unsigned shift)
{
#ifdef CYG_PORT_CHUNK_LOG2
    /* b with the other lap's bit first, a slot no reader takes for a record: a writer late by a
     * lap (preempted between its check of the slot and this store) then never leaves its a
     * under the b of the record it writes over, which a reader copying the slot at that moment
     * would take for a whole record. The reader reads b again after the other words (FORMAT.md
     * 3.3). */
    *(volatile uintptr_t *)&r[1] = b ^ (uintptr_t)1 << (CYG_WORD_BITS - 1u);
    cyg_port_release();
#endif
    if (CYGTRACE_CALLSITES == 1 || (CYGTRACE_CALLSITES == 2 && shift == 2)) {
        r[2] = c;
        r[3] = 0;
    }
#ifdef CYG_PORT_STORE_PAIR
    if (CYGTRACE_CALLSITES == 0) {
        cyg_port_store_pair(r, a, b);
        return;
    }
#endif
    r[0] = a;
    cyg_port_release();
    *(volatile uintptr_t *)&r[1] = b;
}

/* Sets cyg_rt.last, what the hooks go by; a port with hooks of its own (CYG_PORT_HOOKS) sets
 * it together with what they read beside it. */
HOT void cyg_set_last(uintptr_t last)
{
#ifdef CYG_PORT_HOOKS
    cyg_port_hooks(last);
#else
    cyg_rt.last = last;
#endif
}

/* The hooks' view of the ring's state (cyg_rt.last): 0 unless running, so that a hook takes its
 * slow path before it reserves; else the last sequence number they may write. Called after
 * every change of state. */
NOINSTR static void cyg_arm(const struct cyg_ctl *ctl)
{
    uintptr_t last = 0;

    /* Armed triggers and filters, or a request not yet applied: the slow path, every event. */
    if (ctl->state == CYG_S_RUNNING && !CYG_CTRL_ON())
        last = (ctl->flags & CYG_F_OVERWRITE) ? ~(uintptr_t)0 : cyg_rt.mask;
    cyg_set_last(last);
}

/* Stop mode, and a reservation past the end of the ring: the ring is full from now on. */
NOINSTR __attribute__((noinline)) static void cyg_full(struct cyg_ctl *ctl)
{
    /* Compare-and-swap: a freeze or stop that comes in between wins. */
    if (cyg_port_cas_state(&ctl->state, CYG_S_RUNNING, CYG_S_FULL))
        cyg_set_last(0);
    cyg_core_lost();
}

/* The hooks under names of our own, so that calling them again after a set-up binds within
 * this object: through the exported names, a shared runtime would call itself through the
 * PLT, and look like an instrumented object to the Linux port's check. */
#ifdef CYG_PORT_HOOKS
#define cyg_enter_again __cyg_profile_func_enter /* the port's, in the same firmware */
#define cyg_exit_again __cyg_profile_func_exit
#else
void cyg_enter_again(void *fn, void *site) CYG_HIDDEN;
void cyg_exit_again(void *fn, void *site) CYG_HIDDEN;
#endif

/* fn as the hooks take it again from the slow path: on 32-bit targets with the bit 0 that
 * CYG_SLOW_FN cleared set again, as a Thumb function's address has it (a port's hooks may take
 * it as given: cygtrace_internal.h, CYG_PORT_HOOKS); the generic hooks clear it anyway. */
#define CYG_AGAIN_FN(fn) ((void *)(CYG_WORD_BITS == 32 ? (fn) | 1u : (fn)))

#if CYGTRACE_CONTROL
static void cyg_ctrl_event(uintptr_t fn, uintptr_t site, unsigned exit);
#endif

/* fn as cyg_not_running() takes it. */
#define CYG_SLOW_FN(fn, exit) (CYG_WORD_BITS == 32 ? ((fn) & ~(uintptr_t)1) | (exit) : (fn))

/* A hook that found the ring not running: counts the event when the ring is full, or lets the
 * port set the ring up (Linux, on the first event) and records the event after all; or, with
 * triggers or filters armed, takes the event through them. On 32-bit targets fn comes with
 * exit in bit 0, as a record's word a holds them (CYG_SLOW_FN): the fast path then keeps no
 * register for fn apart, which would cost it an instruction. */
NOINSTR __attribute__((noinline)) static void cyg_not_running(uintptr_t fn, uintptr_t site,
                                                             unsigned exit)
{
    if (CYG_WORD_BITS == 32) {
        exit = fn & 1u;
        fn &= ~(uintptr_t)1;
    }
    if (cyg_rt.ctl->state == CYG_S_FULL) {
        cyg_core_lost();
        return;
    }
    /* Not a ring running with triggers or filters armed: the port's lazy set-up (Linux, on
     * the first event), after which the ring may run either way. */
    if (!CYG_CTRL_RUNNING() &&
        (!cyg_port_wake() || (cyg_rt.last == 0 && !CYG_CTRL_RUNNING())))
        return;
#if CYGTRACE_CONTROL
    if (cyg_rt.last == 0)
        cyg_ctrl_event(fn, site, exit);
    else
#endif
    if (exit)
        cyg_exit_again(CYG_AGAIN_FN(fn), (void *)site);
    else
        cyg_enter_again(CYG_AGAIN_FN(fn), (void *)site);
}

#ifdef CYG_PORT_HOOKS
/* Called from the port's assembly only: used, so that link-time optimisation keeps them. */
NOINSTR __attribute__((used)) void cyg_core_slow(uintptr_t a, uintptr_t site)
{
    cyg_not_running(a, site, (unsigned)(a & 1u));
}

NOINSTR __attribute__((used)) void cyg_core_full(void)
{
    cyg_full(cyg_rt.ctl);
}
#endif

#define CYG_NO_SLOT (~(uintptr_t)0)

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

/* Whether a thread may still fill slot seq (in cursor numbers) of its chunk: not from before
 * cyg_rt.low, which trails head by at most half the ring (the next lap reserves a slot once
 * head is capacity - chunk past it; half a ring leaves a writer preempted after this check that
 * much time) and is raised to head by a start. Read-mostly: it moves every eighth of a ring. */
HOT int cyg_slot_ok(uintptr_t seq)
{
    return seq >= cyg_rt.low;
}

/* Takes the calling thread's next slot into *p: 1 when it is the thread's to fill (in its
 * chunk, and not too old), else 0 (*p then is what the cursor held, for cyg_claim). */
HOT int cyg_next(uintptr_t *p)
{
    uintptr_t end;

    *p = cyg_port_cursor_take(&end);
    return *p < end && cyg_slot_ok(*p);
}

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

/* The thread's chunk is used up, or too old to fill (p: its cursor as the failed take read it):
 * takes a new one with one atomic add on head. Returns its first slot, or CYG_NO_SLOT when the
 * ring is full (stop mode). */
NOINSTR __attribute__((noinline)) static uintptr_t cyg_claim(uintptr_t p, uintptr_t tid)
{
    struct cyg_ctl *ctl = cyg_rt.ctl;
    uintptr_t chunk = cyg_rt.chunk, b;

    for (;;) {
        b = cyg_port_claim(cyg_rt.head, chunk);
        if (!(ctl->flags & CYG_F_OVERWRITE) && b > cyg_rt.mask) {
            cyg_full(ctl);
            return CYG_NO_SLOT;
        }
        /* Head passed a step (cyg_rt.step: an eighth of the ring, or a chunk): low follows, half
         * a ring behind the step. */
        if (((b + chunk) & (cyg_rt.step - 1)) == 0 && b + chunk > cyg_rt.lag)
            cyg_raise_low(cyg_rt.base + b + chunk - cyg_rt.lag);
        b += cyg_rt.base;
        /* Ours, unless a signal handler moved the cursor since our take: it recorded into a
         * chunk of its own, later than ours. Ours is then padded, and we go on where it left the
         * cursor, so that our records follow the handler's as they would in one ring. */
        cyg_port_cursor_set_end(0);
        if (cyg_port_cursor_cas(p + 1, b + 1)) {
            cyg_port_cursor_set_end(b + chunk);
            return b;
        }
        cyg_pad(b, chunk, tid);
        if (cyg_next(&p))
            return p;
    }
}

/* The next slot of the calling thread's chunk: one increment of a word of its own, no atomic
 * that another thread shares. */
HOT uintptr_t cyg_take(uintptr_t tid)
{
    uintptr_t p;

    if (UNLIKELY(!cyg_next(&p)))
        return cyg_claim(p, tid);
    return p;
}

NOINSTR void cyg_core_thread_end(uintptr_t tid)
{
    uintptr_t p;

    /* A frozen ring is left as it is, for whoever reads it. */
    if (cyg_rt.ctl == &cyg_idle_ctl || cyg_rt.ctl->state == CYG_S_FROZEN)
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

/* Builds and stores the record of an event in slot seq: the clock first. */
HOT void cyg_put(uintptr_t seq, uintptr_t fn, uintptr_t site, unsigned exit, uintptr_t tid,
                 uintptr_t *recs, uintptr_t mask, unsigned cap_log2, unsigned shift)
{
    uintptr_t ts = CYGTRACE_TIMESTAMPS ? cyg_port_now() : 0, a, b;

    if (CYG_WORD_BITS == 64) {
        /* The lap bit and the tag (cyg64_lap_tag): many writers share the ring, and one that
         * was preempted for laps must not pass for a record of this lap. */
        uint64_t x = ~(uint64_t)seq >> cap_log2;

        a = fn | tid;
        b = (uintptr_t)(x << 63 | (x << (CYG64_TAG_SHIFT - 1u) & CYG64_TAG_MASK) |
                        (exit ? CYG64_EXIT : 0) | (ts & CYG64_TAGGED_TS_MASK));
    } else {
        /* The lap bit of seq is bit cap_log2 of ~seq, moved to the top: no division, no
         * table. */
        b = (~seq >> cap_log2) << (CYG_WORD_BITS - 1u);
        a = (fn & ~(uintptr_t)1) | exit;
        b |= ts & (uintptr_t)CYG32_TS_MASK;
    }
    cyg_store(recs + ((seq & mask) << shift), a, b, site, shift);
}

/* log2 of words per record: a constant unless call sites are chosen at run time (one load and
 * one shift less). */
#define CYG_SHIFT() (CYGTRACE_CALLSITES == 2 ? cyg_rt.shift : CYGTRACE_CALLSITES == 1 ? 2u : 1u)

#ifdef CYG_PORT_CHUNK_LOG2
/* An event whose thread needs a new chunk (p: its cursor as the take read it). Apart from the
 * fast path, so that the fast path calls nothing and saves no registers. */
NOINSTR __attribute__((noinline)) static void cyg_event_claim(uintptr_t fn, uintptr_t site,
                                                              unsigned exit, uintptr_t tid,
                                                              uintptr_t p)
{
    uintptr_t seq = cyg_claim(p, tid);

    if (seq != CYG_NO_SLOT)
        cyg_put(seq, fn, site, exit, tid, cyg_rt.recs, cyg_rt.mask, cyg_rt.cap_log2, CYG_SHIFT());
}

/* The fast path of a chunked port: the slot comes from the thread's own cursor, and the clock
 * is read after it (an interrupt or signal handler that records between the two then sits
 * entirely between our slot and our timestamp: FORMAT.md section 6). cyg_rt is read after
 * cyg_port_thread(), which may call out (a thread's first event). */
HOT void cyg_event(uintptr_t fn, uintptr_t site, unsigned exit)
{
    uintptr_t tid, seq;

    if (UNLIKELY(cyg_rt.last == 0)) {
        cyg_not_running(CYG_SLOW_FN(fn, exit), site, exit);
        return;
    }
    tid = cyg_port_thread();
    if (UNLIKELY(!cyg_next(&seq))) {
        cyg_event_claim(fn, site, exit, tid, seq);
        return;
    }
    cyg_put(seq, fn, site, exit, tid, cyg_rt.recs, cyg_rt.mask, cyg_rt.cap_log2, CYG_SHIFT());
}
#elif !defined(CYG_PORT_HOOKS)
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
        cyg_not_running(slow_fn, CYGTRACE_CALLSITES ? site : 0, exit);
        return;
    }
    tid = cyg_port_thread();
    last = cyg_rt.last; /* again: kept across that call, it would take a saved register */
    head = cyg_rt.head;
    recs = cyg_rt.recs;
    mask = cyg_rt.mask;
    cap_log2 = cyg_rt.cap_log2;
    shift = CYG_SHIFT();
    /* Reserve before reading the clock: an interrupt or signal handler that records between
     * the two then sits entirely between our reservation and our timestamp, so the interrupted
     * code's own records keep their order in time (the handler's step back against ours:
     * FORMAT.md section 6). */
    seq = cyg_port_reserve(head);
    if (UNLIKELY(seq > last)) {
        cyg_full(cyg_rt.ctl);
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

/* A slot for a record outside the fast path (a special; an event the control area let
 * through), or CYG_NO_SLOT when the ring is full (stop mode). Checked against the capacity,
 * not cyg_rt.last: the hooks may be out (START, before the state says running; armed
 * triggers). */
NOINSTR static uintptr_t cyg_slot(uintptr_t tid)
{
#ifdef CYG_PORT_CHUNK_LOG2
    /* Through the thread's chunk, so that the record keeps its place among the thread's
     * calls. */
    return cyg_take(tid);
#else
    struct cyg_ctl *ctl = cyg_rt.ctl;
    uintptr_t seq = cyg_port_reserve(cyg_rt.head);

    (void)tid;
    if (!(ctl->flags & CYG_F_OVERWRITE) && seq > cyg_rt.mask) {
        cyg_full(ctl);
        return CYG_NO_SLOT;
    }
    return seq;
#endif
}

NOINSTR void cyg_core_special(unsigned type, uintptr_t data, uintptr_t payload, uintptr_t tid)
{
    uintptr_t seq;

    if (cyg_rt.ctl == &cyg_idle_ctl || (seq = cyg_slot(tid)) == CYG_NO_SLOT)
        return;
    cyg_special_at(seq, type, data, payload, tid);
}

#if CYGTRACE_CONTROL
/* The control area (FORMAT.md 2.7). While it arms anything, cyg_rt.last stays 0 and every
 * event comes here: the request is applied when it changed, the event is matched against the
 * triggers and the filters, and recorded through cyg_slot when they let it through. */

/* Whether the hooks' fn is the function at a (a Thumb function's bit 0 aside). */
HOT int cyg_same_fn(uintptr_t a, uintptr_t fn)
{
    return ((a ^ fn) & ~(uintptr_t)1) == 0;
}

HOT unsigned cyg_ntrig(const struct cyg_ctrl *c)
{
    return c->ntrig < CYG_CTRL_TRIGS ? c->ntrig : CYG_CTRL_TRIGS;
}

HOT unsigned cyg_nexcl(const struct cyg_ctrl *c)
{
    return c->nexcl < CYG_CTRL_EXCLS ? c->nexcl : CYG_CTRL_EXCLS;
}

/* Applies the request the control area holds (whoever wrote it last: the host, the program):
 * a start trigger closes the gate until it fires, a window still counting is dropped, the
 * classes of marks take effect, and the hooks take the slow path while anything is armed. */
NOINSTR __attribute__((noinline)) static void cyg_ctrl_apply(struct cyg_ctrl *c)
{
    uint32_t gen = c->gen;
    unsigned i, start = 0;

    for (i = 0; i < cyg_ntrig(c); i++)
        start |= c->trig[i].kind == CYG_TRIG_START;
    /* Closed by the first request with a start trigger, open without one; a later request
     * that keeps one leaves the gate as the triggers set it. */
    if (!start || !cyg_start_armed)
        c->gate = (uint8_t)!start;
    cyg_start_armed = (uint8_t)start;
    if (c->fired > cyg_ntrig(c)) /* the trigger that fired is gone with the old request */
        c->fired = 0;
    cyg_win_on = 0;
    cygtrace_event_mask = c->events;
    cyg_ctrl_on = (uint8_t)(c->ntrig != 0 || c->nexcl != 0 || c->depth != 0);
    cyg_epoch++;
    c->applied = gen;
    cyg_arm(cyg_rt.ctl);
}

/* The calling thread's (or context's) depth and hidden-call state, as of this request: words
 * 0, the depth of calls open since the request was applied; 1, the depth of the hidden call
 * it is inside (0: none); 2, the request they count for. */
NOINSTR static uint32_t *cyg_ctrl_tstate(void)
{
    uint32_t *t = cyg_port_tstate();

    if (t[2] != cyg_epoch) {
        t[0] = t[1] = 0;
        t[2] = cyg_epoch;
    }
    return t;
}

/* Whether fn's event at depth d passes the filters: not an excluded function (an excluded
 * entry that hides its callees starts hiding them, when enter is set), not inside a hidden
 * call, not deeper than the limit, and the gate open. */
NOINSTR static int cyg_ctrl_keep(const struct cyg_ctrl *c, uint32_t *t, uintptr_t fn, uint32_t d,
                                 int enter)
{
    if (t[1] != 0)
        return 0;
    for (unsigned i = 0; i < cyg_nexcl(c); i++)
        if (cyg_same_fn(c->excl[i].v, fn)) {
            if (enter && (c->hide >> i & 1u))
                t[1] = d;
            return 0;
        }
    return (c->depth == 0 || d <= c->depth) && c->gate;
}

/* Trigger i fired at what (a function, a mark's value): a TRIGGER record, and the control
 * area says which, when and how many. */
NOINSTR static void cyg_ctrl_fired(struct cyg_ctrl *c, unsigned i, uintptr_t what)
{
    c->fired_head = cyg_rt.ctl->head.v;
    c->fired_ts = CYGTRACE_TIMESTAMPS ? cyg_port_now() : 0;
    c->fired = (uint8_t)(i + 1);
    if (c->nfired != 0xFF)
        c->nfired++;
    c->trig[i].flags |= CYG_TRIGF_FIRED;
    cyg_core_special(CYG_SP_TRIGGER, i | (unsigned)c->trig[i].kind << CYG_TRIGD_KIND_SHIFT, what,
                     cyg_port_thread());
}

/* A freeze trigger fired: the ring freezes once after more events are recorded (0: now). */
NOINSTR static void cyg_ctrl_window(uint32_t after)
{
    cyg_win_seen = 0;
    cyg_win_after = after;
    cyg_win_on = 1;
    if (after == 0)
        cygtrace_freeze();
}

/* One more event recorded: the window closes after its last. */
NOINSTR static void cyg_ctrl_count(void)
{
    if (cyg_win_on && cyg_port_reserve(&cyg_win_seen) + 1u >= cyg_win_after)
        cygtrace_freeze();
}

/* Records an event the filters let through. */
NOINSTR static void cyg_ctrl_put(uintptr_t fn, uintptr_t site, unsigned exit)
{
    uintptr_t tid = cyg_port_thread(), seq = cyg_slot(tid);

    if (seq != CYG_NO_SLOT)
        cyg_put(seq, fn, site, exit, tid, cyg_rt.recs, cyg_rt.mask, cyg_rt.cap_log2, CYG_SHIFT());
}

NOINSTR static void cyg_ctrl_event(uintptr_t fn, uintptr_t site, unsigned exit)
{
    struct cyg_ctrl *c = cyg_ctrl;
    uint32_t *t, d;
    unsigned i, freeze = 0;
    int keep;

    if (c->gen != c->applied) {
        cyg_ctrl_apply(c);
        if (cyg_rt.last != 0) { /* nothing armed: the fast path, from this event on */
            if (exit)
                cyg_exit_again(CYG_AGAIN_FN(fn), (void *)site);
            else
                cyg_enter_again(CYG_AGAIN_FN(fn), (void *)site);
            return;
        }
    }
    t = cyg_ctrl_tstate();
    d = exit ? t[0] : ++t[0];
    if (!exit)
        for (i = 0; i < cyg_ntrig(c); i++) {
            struct cyg_ctrl_trig *tr = &c->trig[i];

            if (!cyg_same_fn(tr->what.v, fn))
                continue;
            if (tr->kind == CYG_TRIG_START && !c->gate) {
                c->gate = 1;
                cyg_ctrl_fired(c, i, fn);
            } else if (tr->kind == CYG_TRIG_FREEZE && !cyg_win_on && !freeze) {
                freeze = i + 1;
                cyg_ctrl_fired(c, i, fn);
            }
        }
    keep = cyg_ctrl_keep(c, t, fn, d, !exit);
    if (exit && t[1] == d) /* the hidden call returns: its exit is the last it hides */
        t[1] = 0;
    if (keep)
        cyg_ctrl_put(fn, site, exit);
    if (freeze) /* the trigger's own entry, recorded or not, is not in the window */
        cyg_ctrl_window(c->trig[freeze - 1].after);
    else if (keep)
        cyg_ctrl_count();
    if (!exit)
        return;
    if (t[0] != 0)
        t[0]--;
    for (i = 0; i < cyg_ntrig(c); i++)
        if (c->trig[i].kind == CYG_TRIG_STOP && c->gate && cyg_same_fn(c->trig[i].what.v, fn)) {
            c->gate = 0;
            cyg_ctrl_fired(c, i, fn);
        }
}

/* A mark of data (class and id) with value, while the ring runs: its class enabled, a freeze
 * on its id fired, the gate open. Returns 1 when it is to be recorded. */
NOINSTR static int cyg_ctrl_mark(uintptr_t data, uintptr_t value)
{
    struct cyg_ctrl *c = cyg_ctrl;
    unsigned i, freeze = 0;

    if (c->gen != c->applied)
        cyg_ctrl_apply(c);
    if (!(cygtrace_event_mask >> (data >> CYG_MARK_CLASS_SHIFT & 31u) & 1u))
        return 0;
    if (!cyg_ctrl_on)
        return 1;
    for (i = 0; i < cyg_ntrig(c) && !freeze; i++)
        if (c->trig[i].kind == CYG_TRIG_FREEZE_MARK && !cyg_win_on &&
            c->trig[i].what.v == (data & CYG_MARK_ID_MASK)) {
            freeze = i + 1;
            cyg_ctrl_fired(c, i, value);
        }
    if (c->gate)
        cyg_core_special(CYG_SP_MARK, data, value, cyg_port_thread());
    if (freeze)
        cyg_ctrl_window(c->trig[freeze - 1].after);
    else if (c->gate)
        cyg_ctrl_count();
    return 0;
}

/* Whether a wrapped call's values are recorded while the control area arms something: as its
 * entry was (the calls it made have returned, so the thread is back at its depth). */
NOINSTR static int cyg_ctrl_values(void *fn)
{
    uint32_t *t;

    if (cyg_rt.ctl->state != CYG_S_RUNNING || !cyg_ctrl_on)
        return 0;
    t = cyg_ctrl_tstate();
    return cyg_ctrl_keep(cyg_ctrl, t, (uintptr_t)fn, t[0], 0);
}

/* A new request: the next event applies it (the hooks take the slow path until then). */
NOINSTR static void cyg_ctrl_changed(struct cyg_ctrl *c)
{
    c->gen++;
    cyg_set_last(0);
}

NOINSTR static int cyg_ctrl_trigger(unsigned kind, uintptr_t what, uint32_t after)
{
    struct cyg_ctrl *c = cyg_ctrl;
    struct cyg_ctrl_trig *t;
    unsigned i;

    if (c == NULL || (i = c->ntrig) >= CYG_CTRL_TRIGS)
        return -1;
    t = &c->trig[i];
    t->what.pad = 0;
    t->what.v = what;
    t->after = after;
    t->kind = (uint8_t)kind;
    t->flags = 0;
    c->ntrig = (uint8_t)(i + 1);
    cyg_ctrl_changed(c);
    return (int)i;
}

NOINSTR int cygtrace_trigger_start(void *fn)
{
    return cyg_ctrl_trigger(CYG_TRIG_START, (uintptr_t)fn, 0);
}

NOINSTR int cygtrace_trigger_stop(void *fn)
{
    return cyg_ctrl_trigger(CYG_TRIG_STOP, (uintptr_t)fn, 0);
}

NOINSTR int cygtrace_trigger_freeze(void *fn, uint32_t after)
{
    return cyg_ctrl_trigger(CYG_TRIG_FREEZE, (uintptr_t)fn, after);
}

NOINSTR int cygtrace_trigger_freeze_mark(uint32_t id, uint32_t after)
{
    return cyg_ctrl_trigger(CYG_TRIG_FREEZE_MARK, id & CYG_MARK_ID_MASK, after);
}

NOINSTR int cygtrace_exclude(void *fn, int callees)
{
    struct cyg_ctrl *c = cyg_ctrl;
    unsigned i;

    if (c == NULL || (i = c->nexcl) >= CYG_CTRL_EXCLS)
        return -1;
    c->excl[i].pad = 0;
    c->excl[i].v = (uintptr_t)fn;
    c->hide = (uint16_t)((c->hide & ~(1u << i)) | (callees ? 1u << i : 0));
    c->nexcl = (uint8_t)(i + 1);
    cyg_ctrl_changed(c);
    return (int)i;
}

NOINSTR void cygtrace_set_depth(unsigned depth)
{
    if (cyg_ctrl == NULL)
        return;
    cyg_ctrl->depth = depth;
    cyg_ctrl_changed(cyg_ctrl);
}

NOINSTR void cygtrace_set_events(uint32_t mask)
{
    if (cyg_ctrl == NULL)
        return;
    cyg_ctrl->events = mask;
    cyg_ctrl_changed(cyg_ctrl);
}

NOINSTR void cygtrace_trigger_clear(void)
{
    struct cyg_ctrl *c = cyg_ctrl;

    if (c == NULL)
        return;
    c->ntrig = 0;
    c->nexcl = 0;
    c->hide = 0;
    c->depth = 0;
    c->events = ~(uint32_t)0;
    cyg_ctrl_changed(c);
}

/* Lays out the control area of a ring just made: nothing armed, every class enabled. */
NOINSTR static void cyg_ctrl_init(struct cyg_ctrl *c)
{
    c->magic = CYG_CTRL_MAGIC;
    c->events = ~(uint32_t)0;
    c->gate = 1;
}
#else
NOINSTR int cygtrace_trigger_start(void *fn)
{
    (void)fn;
    return -1;
}

NOINSTR int cygtrace_trigger_stop(void *fn)
{
    (void)fn;
    return -1;
}

NOINSTR int cygtrace_trigger_freeze(void *fn, uint32_t after)
{
    (void)fn;
    (void)after;
    return -1;
}

NOINSTR int cygtrace_trigger_freeze_mark(uint32_t id, uint32_t after)
{
    (void)id;
    (void)after;
    return -1;
}

NOINSTR int cygtrace_exclude(void *fn, int callees)
{
    (void)fn;
    (void)callees;
    return -1;
}

NOINSTR void cygtrace_set_depth(unsigned depth)
{
    (void)depth;
}

NOINSTR void cygtrace_set_events(uint32_t mask)
{
    cygtrace_event_mask = mask; /* marks still have classes */
}

NOINSTR void cygtrace_trigger_clear(void)
{
    cygtrace_event_mask = ~(uint32_t)0;
}
#endif

/* The debugger's moment (`cygtrace arm` at a reset-halt): a ring was just laid out at ctl, its
 * control area empty, nothing applied and nothing recorded yet. A breakpoint here lets a host
 * write a request that the first event applies. Not inlined, and kept, whatever the
 * optimisation. */
NOINSTR __attribute__((noinline, used)) void cyg_ctrl_ready(struct cyg_ctl *ctl)
{
    __asm__ volatile("" ::"r"(ctl) : "memory");
}

NOINSTR void cyg_core_detach(void)
{
    cyg_set_last(0);
    cyg_rt.ctl = &cyg_idle_ctl;
#if CYGTRACE_CONTROL
    cyg_ctrl = NULL;
    cyg_ctrl_on = 0;
    cyg_win_on = 0;
#endif
}

NOINSTR void cyg_core_lost(void)
{
    cyg_port_reserve(&cyg_rt.ctl->lost.v); /* the port's atomic increment */
}

/* crc32_update(0, CYG_MAGIC, 8), where the seal's CRC goes on from: a constant, so that neither
 * the string nor the time to run over it is in the firmware. */
#define CYG_MAGIC_CRC 0x660d6cdbu

/* The check covers the bytes written once at init; magic is in it although it is stored last. */
NOINSTR static void cyg_seal(struct cyg_ctl *ctl)
{
    const unsigned char *p = (const unsigned char *)ctl;
    volatile uint32_t *magic = (volatile uint32_t *)(void *)ctl->magic;

    ctl->check = crc32_update(CYG_MAGIC_CRC, p + 8, CYG_OFF_CHECK - 8);
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

/* log2 of the chunk in a ring of 2^cap_log2 records: the port's, but at most a quarter of the
 * ring, so that a thread's open chunk leaves the others room; 0 for ports without chunks. */
NOINSTR static unsigned cyg_chunk_log2(unsigned cap_log2)
{
#ifdef CYG_PORT_CHUNK_LOG2
    if (cap_log2 < 2)
        return 0;
    return cap_log2 - 2 < CYG_PORT_CHUNK_LOG2 ? cap_log2 - 2 : CYG_PORT_CHUNK_LOG2;
#else
    (void)cap_log2;
    return 0;
#endif
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
    cyg_rt.head = &ctl->head.v;
    cyg_rt.recs = (uintptr_t *)(void *)((unsigned char *)ctl + CYG_HDR_BYTES);
    cyg_rt.mask = ((uintptr_t)1 << ctl->cap_log2) - 1;
    cyg_rt.cap_log2 = ctl->cap_log2;
    cyg_rt.shift = (ctl->flags & CYG_F_CALLSITES) ? 2 : 1;
#if CYGTRACE_CONTROL
    cyg_ctrl = (struct cyg_ctrl *)(void *)(cyg_rt.recs + ((cyg_rt.mask + 1) << cyg_rt.shift));
    cyg_ctrl_on = 0;
    cyg_win_on = 0;
    cyg_start_armed = 0;
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
    unsigned words = (flags & CYG_F_CALLSITES) ? 4 : 2;
    size_t recs = (size_t)words * sizeof(uintptr_t) << log2;

    cyg_core_detach(); /* hooks stay out while the block is rebuilt */
    /* A fresh file mapping is zero already; clearing it would make every page resident. */
    cyg_zero(ctl, (flags & CYGTRACE_INIT_ZEROED) ? CYG_HDR_BYTES : CYG_HDR_BYTES + recs);
#if CYGTRACE_CONTROL
    cyg_zero((unsigned char *)ctl + CYG_HDR_BYTES + recs, CYG_CTRL_BYTES);
    cyg_ctrl_init((struct cyg_ctrl *)(void *)((unsigned char *)ctl + CYG_HDR_BYTES + recs));
    /* applied 0 and gen 0: the request of a fresh ring, nothing armed, is applied already */
#endif
    ctl->version = CYG_RING_VERSION;
    ctl->word_bytes = (uint8_t)sizeof(uintptr_t);
    ctl->rec_bytes = (uint8_t)(words * sizeof(uintptr_t));
    ctl->cap_log2 = (uint8_t)log2;
    ctl->flags = (uint8_t)((flags & (CYG_F_OVERWRITE | CYG_F_CALLSITES)) |
                           (CYGTRACE_TIMESTAMPS ? CYG_F_TIMESTAMPS : 0) |
                           (CYG_WORD_BITS == 64 ? CYG_F_THREADS | CYG_F_LAPTAG : 0));
    ctl->machine = CYG_PORT_MACHINE;
    ctl->hdr_bytes = CYG_HDR_BYTES;
    ctl->ts_bits = CYG_WORD_BITS == 64 ? CYG64_TAGGED_TS_BITS : CYG32_TS_BITS;
#ifdef CYG_PORT_CHUNK_LOG2
    ctl->chunk_log2 = (uint8_t)cyg_chunk_log2(log2); /* else 0, as cleared above */
#endif
#ifdef CYG_PORT_TS_BITS
    if (CYG_PORT_TS_BITS < ctl->ts_bits) /* a narrower clock (SysTick: 24 bits) */
        ctl->ts_bits = CYG_PORT_TS_BITS;
#endif
    ctl->ctl_addr = (uint64_t)(uintptr_t)ctl;
}

NOINSTR long cyg_core_open(struct cyg_ctl *ctl)
{
    long cap;

    cyg_seal(ctl);
    cap = cyg_attach(ctl);
    cyg_ctrl_ready(ctl);
    if (CYGTRACE_AUTOSTART)
        cygtrace_start();
    return cap;
}

NOINSTR long cygtrace_init(void *mem, size_t bytes, unsigned flags)
{
    unsigned log2;

    if (CYGTRACE_CALLSITES == 1)
        flags |= CYG_F_CALLSITES;
    else if (CYGTRACE_CALLSITES == 0)
        flags &= ~(unsigned)CYG_F_CALLSITES;
    log2 = cyg_cap_log2(bytes, (flags & CYG_F_CALLSITES) ? 4 : 2);
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
        ctl->check != crc32_update(0, ctl, CYG_OFF_CHECK))
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
    cyg_core_detach();
    ctl->state = CYG_S_FROZEN; /* outside the check: the seal stays valid */
    return cyg_attach(ctl);
}

NOINSTR void cygtrace_start(void)
{
    struct cyg_ctl *ctl = cyg_rt.ctl;
    uint8_t st = ctl->state;

    if (ctl == &cyg_idle_ctl || st == CYG_S_FROZEN || st == CYG_S_FULL || st == CYG_S_RUNNING)
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
    if (cyg_rt.ctl != &cyg_idle_ctl)
        cyg_rt.ctl->state = CYG_S_FROZEN;
}

NOINSTR void cygtrace_set_mode(int mode)
{
    struct cyg_ctl *ctl = cyg_rt.ctl;

    if (ctl == &cyg_idle_ctl)
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
    cyg_seal(ctl);
}

/* A mark of data (its class and id, or all id before version 3). */
NOINSTR static void cyg_mark(uintptr_t data, uintptr_t value)
{
    if (cyg_rt.ctl->state != CYG_S_RUNNING)
        return;
#if CYGTRACE_CONTROL
    if (CYG_CTRL_ON() ? !cyg_ctrl_mark(data, value)
                      : !(cygtrace_event_mask >> (data >> CYG_MARK_CLASS_SHIFT & 31u) & 1u))
        return;
#endif
    cyg_core_special(CYG_SP_MARK, data, value, cyg_port_thread());
}

NOINSTR void cygtrace_mark(uint32_t id, uintptr_t value)
{
    cyg_mark(id, value);
}

NOINSTR void cygtrace_mark_class(unsigned cls, uint32_t id, uintptr_t value)
{
    cyg_mark((uintptr_t)(cls & 31u) << CYG_MARK_CLASS_SHIFT | (id & CYG_MARK_ID_MASK), value);
}

NOINSTR void cygtrace_context(uint32_t id, uintptr_t handle)
{
    if (cyg_rt.ctl->state == CYG_S_RUNNING)
        cyg_core_special(CYG_SP_CONTEXT, id, handle, cyg_port_thread());
}

NOINSTR void cygtrace_switch(uint32_t id, uintptr_t handle)
{
    uintptr_t tid;

    if (cyg_rt.ctl->state != CYG_S_RUNNING)
        return;
    tid = cyg_port_thread();
    /* The clock as a call record of this ring carries it (cyg_put), so that the host orders
     * the switch among the calls around it. */
    if (CYGTRACE_TIMESTAMPS)
        cyg_core_special(CYG_SP_TIME, 0,
                         cyg_port_now() & (CYG_WORD_BITS == 64 ? (uintptr_t)CYG64_TAGGED_TS_MASK
                                                               : (uintptr_t)CYG32_TS_MASK),
                         tid);
    cyg_core_special(CYG_SP_CONTEXT, id, handle, tid);
}

NOINSTR void cygtrace_sched(unsigned kind, uint32_t data, uintptr_t a)
{
    if (cyg_rt.ctl->state == CYG_S_RUNNING)
        cyg_core_special(CYG_SP_SCHED, (kind & CYG_SCHED_KIND_MASK) | data, a, cyg_port_thread());
}

/* A word a record: each its own slot, so records of other contexts may come in between (the
 * host puts a name together per context, FORMAT.md 7.5). Read byte by byte: the name may end
 * anywhere, and a word read past its end could fault. */
NOINSTR void cygtrace_name(unsigned what, uintptr_t key, const char *name, size_t max)
{
    const unsigned char *p = (const unsigned char *)name;
    uintptr_t tid, part, bits;

    if (cyg_rt.ctl->state != CYG_S_RUNNING)
        return;
    tid = cyg_port_thread();
    bits = what & (CYG_NAME_OBJECT | CYG_NAME_OBJ_MASK << CYG_NAME_OBJ_SHIFT);
    if (p == NULL)
        max = 0;
    /* Part 0, the key: the last part too when the name has no bytes. */
    cyg_core_special(CYG_SP_NAME, bits | (max == 0 || *p == 0 ? CYG_NAME_LAST : 0), key, tid);
    for (part = 1; part < CYG_NAME_MAX_PARTS && max != 0 && *p != 0; part++) {
        uintptr_t word = 0, n = 0;

        while (n < sizeof word && max != 0 && *p != 0) {
            word |= (uintptr_t)*p++ << (8u * n++);
            max--;
        }
        cyg_core_special(CYG_SP_NAME,
                         bits | part | n << CYG_NAME_LEN_SHIFT |
                             (max == 0 || *p == 0 || part == CYG_NAME_MAX_PARTS - 1u
                                  ? CYG_NAME_LAST
                                  : 0),
                         word, tid);
    }
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

#ifdef CYG_PORT_CHUNK_LOG2
    if ((seq = cyg_take(tid)) == CYG_NO_SLOT)
        return;
#else
    seq = cyg_port_reserve(cyg_rt.head);
    /* Against the capacity in stop mode, as the hooks do (with triggers armed cyg_rt.last is
     * 0: the values of a call the filters keep come here all the same). */
    if (UNLIKELY(!(cyg_rt.ctl->flags & CYG_F_OVERWRITE) && seq > cyg_rt.mask)) {
        cyg_full(cyg_rt.ctl);
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

    if (ctl == &cyg_idle_ctl)
        return;
    if (len > CYG_BUILD_ID_MAX)
        len = CYG_BUILD_ID_MAX;
    for (size_t i = 0; i < sizeof ctl->build_id; i++)
        ctl->build_id[i] = i < len ? ((const uint8_t *)id)[i] : 0;
    ctl->build_id_len = (uint8_t)len;
    cyg_seal(ctl);
}

NOINSTR void cyg_core_set_image(uint64_t load_bias, uint32_t pid, uint64_t ts_hz)
{
    struct cyg_ctl *ctl = cyg_rt.ctl;

    if (ctl == &cyg_idle_ctl)
        return;
    ctl->load_bias = load_bias;
    ctl->pid = pid;
    ctl->ts_hz = ts_hz;
    cyg_seal(ctl);
}

NOINSTR void *cygtrace_control_block(void)
{
    return cyg_rt.ctl == &cyg_idle_ctl ? NULL : cyg_rt.ctl;
}
