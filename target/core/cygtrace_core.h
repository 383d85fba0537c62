/* SPDX-License-Identifier: MIT */
/* cygtrace_core.h - what the core's files share among themselves, not with the ports:
 * cygtrace.c (the hooks' fast path, the ring, the control API), cygtrace_ctrl.c (the hooks'
 * slow path and the control area) and cygtrace_mark.c (the records a program writes itself).
 * Included after cygtrace_port.h, as cygtrace_layout.h is: cyg_set_last() calls the port's
 * cyg_port_hooks().
 *
 * What the hooks inline, on their fast path and on the slow path that an armed control area
 * sends every event to, is here: the record writer and the slot as static functions that each
 * file compiles (always inlined, or as the compiler chose when they were in one file), so that
 * the split costs neither path a call. What the files call of each other is hidden.
 */
#ifndef CYGTRACE_CORE_H
#define CYGTRACE_CORE_H

#include <stdint.h>

#include "cygtrace_internal.h"

#define HOT __attribute__((no_instrument_function, always_inline)) static inline
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Whether a ring with these flags stops when full (stop mode; not compiled in with
 * CYGTRACE_STOP_MODE=0, where every ring overwrites). */
#define CYG_STOPS(flags) (CYGTRACE_STOP_MODE && !((flags)&CYG_F_OVERWRITE))

#if CYGTRACE_CONTROL
/* The control area of the ring the hooks write; NULL before init (read only while the ring
 * runs, or by the API, which checks). cygtrace_ctrl.c's. */
extern struct cyg_ctrl *cyg_ctrl CYG_HIDDEN;
extern uint8_t cyg_ctrl_on CYG_HIDDEN; /* the applied request arms something: events go the
                                          slow way */
#define CYG_CTRL_ON() (cyg_ctrl_on || cyg_ctrl->gen != cyg_ctrl->applied)
#else
#define CYG_CTRL_ON() 0
#endif

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
 * every change of state. Static, not inline: each file that changes the state has its own
 * copy, and the compiler inlines it or not as it did in one file (unused: the control area's
 * stubs call none). */
NOINSTR __attribute__((unused)) static void cyg_arm(const struct cyg_ctl *ctl)
{
    uintptr_t last = 0;

    /* Armed triggers and filters, or a request not yet applied: the slow path, every event. */
    if (ctl->state == CYG_S_RUNNING && !CYG_CTRL_ON())
        last = CYG_STOPS(ctl->flags) ? cyg_rt.mask : ~(uintptr_t)0;
    cyg_set_last(last);
}

#if UINTPTR_MAX > 0xffffffffu
#define CYG_STORE_FLIP ((uintptr_t)CYG64_STORE_FLIP)
#else
#define CYG_STORE_FLIP ((uintptr_t)1 << 31)
#endif

/* Stores a record at r: a and c first; b, which carries the lap bit, last and after the barrier,
 * so a reader that sees the lap bit sees the whole record. */
HOT void cyg_store(uintptr_t *r, uintptr_t a, uintptr_t b, uintptr_t c, unsigned shift)
{
#ifdef CYG_PORT_CHUNK_LOG2
    /* b with its lap bit and the top of its tag flipped first (CYG64_STORE_FLIP), a slot no
     * reader takes for a record of this lap or the next: a writer late by a lap (preempted
     * between its check of the slot and this store) then never leaves its a under the b of the
     * record it writes over, which a reader copying the slot at that moment would take for a
     * whole record. The reader reads b again after the other words (FORMAT.md 3.3). */
    *(volatile uintptr_t *)&r[1] = b ^ CYG_STORE_FLIP;
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

/* Builds and stores the record of an event in slot seq: the clock first. */
HOT void cyg_put(uintptr_t seq, uintptr_t fn, uintptr_t site, unsigned exit, uintptr_t tid,
                 uintptr_t *recs, uintptr_t mask, unsigned cap_log2, unsigned shift)
{
    uintptr_t ts = CYGTRACE_TIMESTAMPS ? cyg_port_now() : 0, a, b;

#if CYGTRACE_REC4
    /* One word (FORMAT.md 14): a slow-path event, after cyg_slot() tested the epoch. */
    (void)tid;
    (void)shift;
    (void)site;
    *(volatile uintptr_t *)&recs[seq & mask] =
        cyg4_call((uint32_t)((fn & ~(uintptr_t)1) | exit), (uint32_t)ts, seq, cap_log2,
                  CYGTRACE_REC4_FN_BITS);
    return;
#endif
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
#define CYG_SHIFT()                                                                                \
    (CYGTRACE_REC4 ? 0u                                                                            \
     : CYGTRACE_CALLSITES == 2 ? cyg_rt.shift                                                      \
     : CYGTRACE_CALLSITES == 1 ? 2u                                                                \
                               : 1u)

/* The states in which a writer stores into the slot it took: running, and full in stop mode
 * (its slot was taken before the ring filled). They are the odd ones (FORMAT.md 2.4), so that
 * the test after a take outside the fast path is one instruction (cygtrace_ctrl.c says why it
 * is made). */
_Static_assert((CYG_S_RUNNING & CYG_S_FULL & 1u) && !((CYG_S_STOPPED | CYG_S_FROZEN) & 1u),
               "the states that take records are the odd ones");
#define CYG_TAKES_RECORDS(state) ((state)&1u)

/* No slot: the ring is full (stop mode). */
#define CYG_NO_SLOT (~(uintptr_t)0)

/* Stop mode, and a reservation past the end of the ring: the ring is full from now on. */
void cyg_core_set_full(struct cyg_ctl *ctl) CYG_HIDDEN;

#ifdef CYG_PORT_CHUNK_LOG2
/* A thread's chunk of slots: cygtrace.c says how cursors, chunks and cyg_rt.low work. */

/* Whether a thread may still fill slot seq (in cursor numbers) of its chunk: not from before
 * cyg_rt.low, which trails head by at most half the ring (the next lap reserves a slot once
 * head is capacity - chunk past it; half a ring leaves a writer preempted after this check that
 * much time) and is raised to head by a start. Read-mostly: it moves every eighth of a ring. */
HOT int cyg_slot_ok(uintptr_t seq)
{
    return seq >= cyg_rt.low;
}

/* Takes the calling thread's next n slots (1, or 2: a version 4 special's head and extension,
 * in one step, so that a signal handler never comes between them) into *p: 1 when they are the
 * thread's to fill (in its chunk, and not too old), else 0 (*p then is what the cursor held, for
 * cyg_core_claim). */
HOT int cyg_next_n(uintptr_t *p, uintptr_t n)
{
    uintptr_t end;

    *p = cyg_port_cursor_take_n(&end, n);
    return *p + (n - 1) < end && cyg_slot_ok(*p);
}

#define cyg_next(p) cyg_next_n(p, 1)

/* Takes the thread a new chunk (cur: its cursor after the failed take of need slots); returns
 * the first of need slots in it, or CYG_NO_SLOT when the ring is full (stop mode). */
uintptr_t cyg_core_claim(uintptr_t cur, uintptr_t tid, uintptr_t need) CYG_HIDDEN;

/* The next n slots of the calling thread's chunk: one increment of a word of its own, no
 * atomic that another thread shares. */
HOT uintptr_t cyg_take_n(uintptr_t tid, uintptr_t n)
{
    uintptr_t p;

    if (UNLIKELY(!cyg_next_n(&p, n)))
        return cyg_core_claim(p + n, tid, n);
    return p;
}

#define cyg_take(tid) cyg_take_n(tid, 1)

/* Version 4 rings (cyg_rt.shift 0: FORMAT.md 15), cygtrace.c's: records the call of fn in the
 * thread's next slot, with the EPOCH word or region its clock and fn need first. */
void cyg_v4l_put(uintptr_t fn, unsigned exit) CYG_HIDDEN;

#endif

#if CYGTRACE_REC4
#define CYG4_T (30u - CYGTRACE_REC4_FN_BITS) /* a call record's time bits */
#ifdef CYG_PORT_HOOKS
#define CYG4_EPOCH cyg_rt.hot.epoch
#else
#define CYG4_EPOCH cyg_rt.epoch
#endif
/* Version 4: writes a TIME record when the clock has left the epoch of the last one. */
void cyg_core_epoch(void) CYG_HIDDEN;
/* The same for a clock c the caller read: a TIME record of it, and the epoch, which is set
 * whatever happens to the record. */
void cyg_core_time4(uintptr_t c) CYG_HIDDEN;
#endif

/* A slot for a record outside the fast path (a special; an event the control area let
 * through), or CYG_NO_SLOT when the ring is full (stop mode). Checked against the capacity,
 * not cyg_rt.last: the hooks may be out (START, before the state says running; armed
 * triggers). */
NOINSTR __attribute__((unused)) static uintptr_t cyg_slot(uintptr_t tid)
{
#ifdef CYG_PORT_CHUNK_LOG2
    /* Through the thread's chunk, so that the record keeps its place among the thread's
     * calls. */
    return cyg_take_n(tid, 1);
#else
    struct cyg_ctl *ctl = cyg_rt.ctl;
    uintptr_t seq;

#if CYGTRACE_REC4
    cyg_core_epoch(); /* a TIME record first, when the clock left the epoch (FORMAT.md 14.3) */
#endif
    seq = cyg_port_reserve(cyg_rt.head);
    (void)tid;
    if (CYG_STOPS(ctl->flags) && seq > cyg_rt.mask) {
        cyg_core_set_full(ctl);
        return CYG_NO_SLOT;
    }
    return seq;
#endif
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

/* Gives an event that the slow path sent on to the hooks again (fn without the exit bit). */
HOT void cyg_again(uintptr_t fn, uintptr_t site, unsigned exit)
{
    if (exit)
        cyg_exit_again(CYG_AGAIN_FN(fn), (void *)site);
    else
        cyg_enter_again(CYG_AGAIN_FN(fn), (void *)site);
}

#ifndef CYG_PORT_HOOKS
/* The C hooks' slow path (cygtrace_ctrl.c): an event that the ring does not take the fast way
 * (a port's own hooks enter it through cyg_core_slow()), fn as CYG_SLOW_FN (cygtrace.c) makes
 * it. It takes what it uses, no more, so that the hooks set up no more arguments for it than
 * when it was a static function of theirs, which the compiler trimmed: on 32-bit targets fn
 * carries exit in bit 0, and the site is only for records that carry one. */
#if UINTPTR_MAX > 0xffffffffu
void cyg_ctrl_slow(uintptr_t fn, uintptr_t site, unsigned exit) CYG_HIDDEN;
#define CYG_CTRL_SLOW(fn, site, exit) cyg_ctrl_slow(fn, site, exit)
#elif CYGTRACE_CALLSITES
void cyg_ctrl_slow(uintptr_t a, uintptr_t site) CYG_HIDDEN;
#define CYG_CTRL_SLOW(a, site, exit) cyg_ctrl_slow(a, site)
#else
void cyg_ctrl_slow(uintptr_t a) CYG_HIDDEN;
#define CYG_CTRL_SLOW(a, site, exit) cyg_ctrl_slow(a)
#endif
#endif

#if CYGTRACE_CONTROL
/* cygtrace_ctrl.c, for the rest of the core. */

/* Lays out the control area of a ring just made: nothing armed, every class enabled. */
void cyg_ctrl_init(struct cyg_ctrl *c) CYG_HIDDEN;

/* Points the control area's state at c, the area of the ring the hooks now write (NULL: none),
 * with nothing applied from it yet. */
void cyg_ctrl_attach(struct cyg_ctrl *c) CYG_HIDDEN;

/* A mark of data (class and id) with value, while the ring runs: its class enabled, a freeze
 * on its id fired, the gate open. Returns 1 when it is to be recorded. */
int cyg_ctrl_mark(uintptr_t data, uintptr_t value) CYG_HIDDEN;

/* Whether the gate lets records through (a pending request applied first). */
int cyg_ctrl_gate(void) CYG_HIDDEN;

/* Whether a wrapped call's values are recorded while the control area arms something. */
int cyg_ctrl_values(void *fn) CYG_HIDDEN;
#endif

#endif
