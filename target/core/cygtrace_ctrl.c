/* SPDX-License-Identifier: MIT */
/* cygtrace_ctrl.c - the hooks' slow path and the control area of a ring (docs/FORMAT.md 2.7).
 * The slow path takes the events that the ring does not take the fast way: not running (full,
 * or not set up yet: the port's lazy set-up), or running with the control area armed. The
 * control area holds the triggers that start, stop and freeze the recording at a function or a
 * mark, and the record-time filters (excluded and hidden functions, a depth limit, classes of
 * marks), as the host (`cygtrace arm`), the Linux runtime (from its environment) or the program
 * (cygtrace_trigger_*) writes them. Built without it (CYGTRACE_CONTROL=0), the API returns -1
 * and marks still filter by class. One file for both: an armed event goes through the slow
 * path, the filters and the record writer without a call between them.
 */
/* The port first: it may set defaults of its own before cygtrace_config.h fills in the rest. */
#include "cygtrace_port.h"
#include "cygtrace_core.h"

/* The enabled classes of marks, as last applied (cygtrace.h's cygtrace_event() reads it). */
CYGTRACE_API volatile uint32_t cygtrace_event_mask = ~(uint32_t)0;

#if CYGTRACE_CONTROL
/* cygtrace_core.h's cyg_ctrl and cyg_ctrl_on, and what only this file reads. */
struct cyg_ctrl *cyg_ctrl;
uint8_t cyg_ctrl_on;
static uint8_t cyg_win_on;        /* a freeze trigger fired: the window is counting */
static uint32_t cyg_win_after;    /* its length in events */
static volatile uintptr_t cyg_win_seen; /* events recorded in it (the port's atomic increment) */
static uint32_t cyg_epoch;        /* requests applied: a thread state of an earlier one is stale */
static uint8_t cyg_start_armed;   /* the applied request has a start trigger */

#ifndef CYG_PORT_TSTATE
/* One state for the whole target: interrupts nest and return, so its depth stays right. */
static uint32_t cyg_tstate_one[CYG_TSTATE_WORDS];

HOT uint32_t *cyg_port_tstate(void)
{
    return cyg_tstate_one;
}
#endif

/* The control area (FORMAT.md 2.7). While it arms anything, cyg_rt.last stays 0 and every
 * event comes here: the request is applied when it changed, the event is matched against the
 * triggers and the filters, and recorded through cyg_ctrl_put when they let it through. */

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

/* Records an event the filters let through, unless the ring froze or stopped since the state
 * sent the event here. A signal handler (an interrupt) that came in between recorded before the
 * slot this event takes, and the freeze that kept the handler's last events out came while it
 * ran (its thread descheduled in it; a trigger it fired): stored, this record would follow
 * them in the ring as if the thread had made the call inside the handler, which never
 * returns there (stress_linux.sh, armed: thread 2's fb_leaf2 after its handler's exit of h1).
 * So the state is read again after the take. A handler between the take and the check of the
 * slot is the same case when the slot is too old by its end: it is turned down and another
 * taken, after the handler's. Left unwritten, the slot is an event after the freeze, as the
 * handler's were; a handler that comes after this check records after the slot. */
NOINSTR static void cyg_ctrl_put(uintptr_t fn, uintptr_t site, unsigned exit)
{
    uintptr_t tid, seq;

#ifdef CYG_PORT_V4L
    if (cyg_rt.shift == 0) {
        cyg_v4l_put(fn, exit); /* the same, for a version 4 ring */
        return;
    }
#endif
    tid = cyg_port_thread();
    seq = cyg_slot(tid);
    __atomic_signal_fence(__ATOMIC_SEQ_CST); /* the state as of after the take */
    if (seq != CYG_NO_SLOT && CYG_TAKES_RECORDS(cyg_rt.ctl->state))
        cyg_put(seq, fn, site, exit, tid, cyg_rt.recs, cyg_rt.mask, cyg_rt.cap_log2, CYG_SHIFT());
}

/* An event of a running ring while the control area arms something (or holds a request not yet
 * applied): the request is applied, the event matched against the triggers and the filters,
 * and recorded when they let it through. */
NOINSTR static void cyg_ctrl_event(uintptr_t fn, uintptr_t site, unsigned exit)
{
    struct cyg_ctrl *c = cyg_ctrl;
    uint32_t *t, d;
    unsigned i, freeze = 0;
    int keep;

    if (c->gen != c->applied) {
        cyg_ctrl_apply(c);
        if (cyg_rt.last != 0) { /* nothing armed: the fast path, from this event on */
            cyg_again(fn, site, exit);
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
NOINSTR int cyg_ctrl_mark(uintptr_t data, uintptr_t value)
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

NOINSTR int cyg_ctrl_gate(void)
{
    struct cyg_ctrl *c = cyg_ctrl;

    if (c->gen != c->applied)
        cyg_ctrl_apply(c);
    return !cyg_ctrl_on || c->gate;
}

/* Whether a wrapped call's values are recorded while the control area arms something: as its
 * entry was (the calls it made have returned, so the thread is back at its depth). */
NOINSTR int cyg_ctrl_values(void *fn)
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
NOINSTR void cyg_ctrl_init(struct cyg_ctrl *c)
{
    c->magic = CYG_CTRL_MAGIC;
    c->events = ~(uint32_t)0;
    c->gate = 1;
}

NOINSTR void cyg_ctrl_attach(struct cyg_ctrl *c)
{
    cyg_ctrl = c;
    cyg_ctrl_on = 0;
    cyg_win_on = 0;
    cyg_start_armed = 0;
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

/* The ring runs, and its events go through the control area (read in this order: the area is
 * there once the ring runs). */
#define CYG_CTRL_RUNNING() (cyg_rt.ctl->state == CYG_S_RUNNING && CYG_CTRL_ON())

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
    if (CYGTRACE_STOP_MODE && cyg_rt.ctl->state == CYG_S_FULL) {
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
        cyg_again(fn, site, exit);
}

#ifdef CYG_PORT_HOOKS
/* The port contract's name (cygtrace_internal.h), here with the slow path it enters (which the
 * compiler may then specialise for it: a static function with one caller). Called from the
 * port's assembly only: used, so that link-time optimisation keeps it. */
NOINSTR __attribute__((used)) void cyg_core_slow(uintptr_t a, uintptr_t site)
{
    cyg_not_running(a, site, (unsigned)(a & 1u));
}
#elif UINTPTR_MAX > 0xffffffffu
/* For the C hooks in cygtrace.c (cygtrace_core.h says with which arguments): the same function
 * under a name they can call, so that they reach it in one jump. */
void cyg_ctrl_slow(uintptr_t fn, uintptr_t site, unsigned exit)
    __attribute__((alias("cyg_not_running")));
#elif CYGTRACE_CALLSITES
NOINSTR void cyg_ctrl_slow(uintptr_t a, uintptr_t site)
{
    cyg_not_running(a, site, 0);
}
#else
NOINSTR void cyg_ctrl_slow(uintptr_t a)
{
    cyg_not_running(a, 0, 0);
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
