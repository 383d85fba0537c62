/* SPDX-License-Identifier: MIT */
/* cygtrace_internal.h - what the core and its ports share; not for users.
 *
 * A port provides "cygtrace_port.h" (found on the include path) with:
 *   CYG_PORT_MACHINE                 ELF e_machine of the images it runs
 *   uintptr_t cyg_port_reserve(volatile uintptr_t *head)
 *                                    atomically take head++ and return the old value; safe
 *                                    against every writer that can preempt or run beside us
 *   uintptr_t cyg_port_now(void)     the timestamp, in ticks of the clock named in ts_hz
 *   uintptr_t cyg_port_thread(void)  bits to OR into word a: thread index << 48 on 64-bit
 *                                    targets that trace threads, else 0
 *   void cyg_port_release(void)      order the record's earlier stores before its last one
 *   void cyg_port_acquire(void)      order the reader's earlier loads before its later ones
 *                                    (the drain: a record's word b, then its other words,
 *                                    then head again)
 *   int cyg_port_wake(void)          called by a hook that finds the ring not running;
 *                                    returns 1 when it may record now (lazy set-up), else 0
 *   int cyg_port_busy(void)          1 while the calling thread runs the runtime's own code
 *                                    that calls functions a program may wrap (the C
 *                                    library): wrapped calls are not recorded then
 * and may define CYG_PORT_STORE_PAIR with
 *   void cyg_port_store_pair(uintptr_t *r, uintptr_t a, uintptr_t b)
 *                                    stores a record of two words in one instruction that no
 *                                    reader can see half done with b but not a (one core)
 * and CYG_PORT_CHUNK_LOG2, when its writers reserve chunks of that many slots (log2) rather
 * than one slot an event (Linux: one chunk a thread, so that threads share no counter on the
 * fast path), with
 *   uintptr_t cyg_port_cursor_take(uintptr_t *end)
 *                                    reads this thread's chunk end (a word of its own, 0 at
 *                                    first) into *end, then increments its cursor (another, 0
 *                                    at first) in one step that a signal handler in the same
 *                                    thread cannot split, and returns the cursor's old value
 *   int cyg_port_cursor_cas(uintptr_t from, uintptr_t to)
 *                                    the same: if the cursor is from, set it to to, return 1
 *   void cyg_port_cursor_set_end(uintptr_t end)
 *                                    sets the chunk end
 *   uintptr_t cyg_port_claim(volatile uintptr_t *head, uintptr_t n)
 *                                    cyg_port_reserve, adding n
 * and CYG_PORT_TSTATE, when the control area's depth and hide filters should count per thread
 * or context rather than once for the whole target, with
 *   uint32_t *cyg_port_tstate(void) CYG_TSTATE_WORDS words of the calling thread's (or
 *                                    context's), zero at first, that only the runtime writes
 * and CYG_PORT_TS_BITS, the width of its clock when narrower than the record's field
 * (the host unwraps timestamps at that width), and CYG_PORT_CAS_STATE with
 *   int cyg_port_cas_state(volatile uint8_t *state, uint8_t from, uint8_t to)
 *                                    atomically: if *state == from, set it to to and return 1,
 *                                    else return 0 (the default uses the compiler's atomics,
 *                                    which on ARMv6-M would call a library that is not there)
 * and CYG_PORT_HOOKS, when the port defines __cyg_profile_func_enter and _exit itself (the
 * fast path in assembly: 32-bit targets without chunks or call sites), with
 *   struct cyg_port_hot             what its hooks read besides cyg_rt.last (cyg_rt.hot, right
 *                                    after last), and CYG_PORT_HOT_INIT, its value before init
 *   void cyg_port_hooks(uintptr_t last)
 *                                    sets cyg_rt.last to last, and cyg_rt.hot for it and for
 *                                    the ring cyg_rt points at, as one step that a hook, or
 *                                    another call, in an interrupt cannot split; the core's
 *                                    only way to change last
 * and CYG_PORT_STATIC, when its one ring lies in a buffer whose place and size are known when
 * linking (the bare-metal ports: cygtrace_static.c): the port then defines cyg_rt, with that
 * ring's records, mask, head, cap_log2 and shift from the start, cygtrace_init() returns -1,
 * and the port sets its ring up with cygtrace_layout.h, cyg_core_open() and cyg_core_keep().
 * Its hooks store records as FORMAT.md 3.1, 3.3 and 4 say, reserve as cyg_port_reserve
 * does, and give every event they do not record to cyg_core_slow() (cyg_rt.last 0, which the
 * host may also write behind the runtime's back) or cyg_core_full() (stop mode, a sequence
 * number past cyg_rt.last), before they reserve. They may take this_fn as a Thumb function's
 * address has it, bit 0 set: the core calls them again so (CYG_AGAIN_FN).
 */
#ifndef CYGTRACE_INTERNAL_H
#define CYGTRACE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "cyg_format.h"
#include "cygtrace.h"
#include "cygtrace_config.h"

#define CYG_HIDDEN __attribute__((visibility("hidden")))
/* On every function of the runtime: a hook that called an instrumented function would call
 * the hooks again, whatever flags a build gives the runtime's files. */
#define NOINSTR __attribute__((no_instrument_function))
#define CYG_WORD_BITS (sizeof(uintptr_t) * 8u)

/* What the hooks read on every event, kept apart from the shared control block so that the
 * host-visible layout never constrains the fast path. Written only by the control API. The host
 * finds the ring through the ELF symbol cyg_rt: ctl must stay the first member. */
struct cyg_rt {
    struct cyg_ctl *ctl;       /* the ring's control block; a stopped dummy before init */
    uintptr_t last;            /* 0 unless running: the hooks take their slow path before they
                                  reserve; else the last sequence number they may write: ~0 in
                                  overwrite mode, capacity - 1 in stop mode */
#ifdef CYG_PORT_HOOKS
    struct cyg_port_hot hot;   /* what the port's hooks read besides last, in the same load;
                                  kept by cyg_port_hooks() */
#endif
#if CYGTRACE_REC4 && !defined(CYG_PORT_HOOKS)
    uintptr_t epoch;           /* version 4: the clock's bits from T - 1 up at the last TIME
                                  record (a port's hooks keep it in hot) */
#endif
    uintptr_t *recs;           /* first record */
    uintptr_t mask;            /* capacity - 1 */
    volatile uintptr_t *head;  /* &ctl->head.v: what the hooks reserve on */
    unsigned cap_log2;         /* capacity = 1 << cap_log2: finds a sequence number's lap bit */
    unsigned shift;            /* log2 of words per record: 1, or 2 with call sites */
#ifdef CYG_PORT_CHUNK_LOG2
    uintptr_t chunk;           /* slots a thread reserves at once */
    uintptr_t low;             /* the first slot a thread may still fill, in cursor numbers
                                  (base + seq): half a ring behind head at most, raised at
                                  each step of head, and to head by a start */
    uintptr_t base;            /* this ring's cursor numbers start here: a multiple of 2^48, a
                                  new one for each ring set up */
    uintptr_t step;            /* low moves when head passes a multiple of step (an eighth of
                                  the ring, at least a chunk) */
    uintptr_t lag;             /* how far low trails the step head passed: half the ring less
                                  a step */
    volatile uint64_t *regions; /* version 4 (shift 0): the region table (FORMAT.md 15.4) */
#endif
};
/* The order is for the hooks: last alone, then two pairs (two LDRD on Cortex-M, where another
 * order costs a load more); a port's own hooks read last and hot in one load (cyg_rt.last is the
 * word the host clears to send the hooks to the slow path: FORMAT.md 2.7). */

extern struct cyg_rt cyg_rt CYG_HIDDEN;

/* cygtrace_init()'s flags: lay out a version 4 ring, one word a record (ports with
 * CYG_PORT_V4L: FORMAT.md 15). Never stored. */
#define CYGTRACE_INIT_V4L (1u << 6)

/* The stopped stand-in block cyg_rt.ctl points at before set-up (and after a detach). */
extern struct cyg_ctl cyg_core_idle CYG_HIDDEN;

/* cyg_rt's first members before set-up, for whichever file defines it (cygtrace.c, or a
 * CYG_PORT_STATIC port's): that block, the hooks out, and the port's hot words. */
#ifdef CYG_PORT_HOOKS
#define CYG_RT_IDLE .ctl = &cyg_core_idle, .last = 0, .hot = CYG_PORT_HOT_INIT
#else
#define CYG_RT_IDLE .ctl = &cyg_core_idle, .last = 0
#endif

/* Words of per-thread state the control area's filters keep (cyg_port_tstate). */
#define CYG_TSTATE_WORDS 3

/* Writes one special record (CYG_SP_*) for thread bits tid (as cyg_port_thread() returns). */
void cyg_core_special(unsigned type, uintptr_t data, uintptr_t payload, uintptr_t tid) CYG_HIDDEN;

/* Sets the image's load bias, process id and timestamp clock; reseals the control block. */
void cyg_core_set_image(uint64_t load_bias, uint32_t pid, uint64_t ts_hz) CYG_HIDDEN;

/* Takes over the ring that mem already holds, as cygtrace_init() made it for this very buffer
 * (of 2^log2 records) before a warm reset, without clearing it: validates the block, points the
 * hooks at it and sets its state FROZEN, so that nothing records over it. Returns its capacity,
 * or -1 when mem holds no such ring. */
long cyg_core_adopt(void *mem, unsigned log2) CYG_HIDDEN;

/* cygtrace_init() in two steps, for a set-up that knows its capacity at compile time (a static
 * buffer): cyg_core_fresh() takes the hooks out and lays a ring of 2^log2 records out at mem
 * (flags: CYG_F_OVERWRITE, CYG_F_CALLSITES, CYGTRACE_INIT_ZEROED), unsealed, so that the caller
 * may fill in ts_hz and the build-id before cyg_core_open() lays out its control area
 * (CYGTRACE_CONTROL), seals it, points the hooks at it and starts it (CYGTRACE_AUTOSTART).
 * cyg_core_open() returns the capacity. */
void cyg_core_fresh(void *mem, unsigned log2, unsigned flags) CYG_HIDDEN;
long cyg_core_open(struct cyg_ctl *ctl) CYG_HIDDEN;

/* Seals the block at ctl: its check over bytes 0..79, then the magic, back to front. */
void cyg_core_seal(struct cyg_ctl *ctl) CYG_HIDDEN;

/* Takes over the ring at ctl, found valid, as cyg_core_adopt() does once it has checked it:
 * FROZEN, the hooks pointed at it. Returns its capacity. */
long cyg_core_keep(struct cyg_ctl *ctl) CYG_HIDDEN;

/* Called by cygtrace_init() once a ring is laid out, before it records: a debugger's breakpoint
 * (`cygtrace arm` at a reset-halt) writes a request into the control area there. */
void cyg_ctrl_ready(struct cyg_ctl *ctl) CYG_HIDDEN;

/* Stops this process from writing to the ring without touching it (a forked child). */
void cyg_core_detach(void) CYG_HIDDEN;

/* Counts one event the hooks could not record (stop-when-full, not set up). */
void cyg_core_lost(void) CYG_HIDDEN;

/* CYG_PORT_HOOKS: an event the ring does not take the fast way (not running, armed control
 * area), a = its record's word a ((fn & ~1) | exit), site its call site or 0. */
void cyg_core_slow(uintptr_t a, uintptr_t site) CYG_HIDDEN;

/* CYG_PORT_HOOKS: an event that found the ring full in stop mode (not reserved). */
void cyg_core_full(void) CYG_HIDDEN;

/* Chunked ports: fills the rest of the calling thread's chunk with PAD records, so that a
 * reader waits for none of its slots (the thread ends); tid as cyg_port_thread() returns it. */
void cyg_core_thread_end(uintptr_t tid) CYG_HIDDEN;

#endif
