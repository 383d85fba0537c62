/* SPDX-License-Identifier: MIT */
/* cygtrace.h - the runtime's public API. Include it to control recording from your program; the
 * hooks themselves need nothing: build with -finstrument-functions and link the runtime. */
#ifndef CYGTRACE_H
#define CYGTRACE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CYGTRACE_NOINSTR __attribute__((no_instrument_function))
/* The runtime builds with hidden visibility; only this API (and the hooks) is exported. */
#define CYGTRACE_API __attribute__((visibility("default")))

/* Modes for cygtrace_set_mode(). */
#define CYGTRACE_MODE_OVERWRITE 1 /* flight recorder: keep the newest events (default) */
#define CYGTRACE_MODE_STOP 0      /* keep the oldest events; count the rest as lost (not
                                     with CYGTRACE_STOP_MODE=0: cygtrace_config.h) */

/* Flags for cygtrace_init(): CYG_F_OVERWRITE and CYG_F_CALLSITES of cyg_format.h, and: */
#define CYGTRACE_INIT_ZEROED (1u << 7) /* mem is known to be all zero: do not clear it */

/* Sets up a ring in mem (bytes long, suitably aligned for a pointer) and returns the number of
 * records it holds, or a negative number when mem is too small for the control block and two
 * records. Ports call it; a firmware without a port calls it once at boot. The bare-metal
 * ports (Cortex-M, RISC-V) have their one ring in a static buffer instead, set up by
 * cygtrace_cm_init() or cygtrace_rv_init(): there it returns -1. */
CYGTRACE_API long cygtrace_init(void *mem, size_t bytes, unsigned flags);

/* Starts (or resumes) recording. Does nothing once frozen. */
CYGTRACE_API void cygtrace_start(void);

/* Stops recording; cygtrace_start() resumes. */
CYGTRACE_API void cygtrace_stop(void);

/* Stops recording for good: what the buffer holds now is what a debugger will read. */
CYGTRACE_API void cygtrace_freeze(void);

/* Chooses overwrite or stop-when-full (CYGTRACE_MODE_*); takes effect at once. */
CYGTRACE_API void cygtrace_set_mode(int mode);

/* Records a user mark: an id and a value, shown in the tree where they happened. */
CYGTRACE_API void cygtrace_mark(uint32_t id, uintptr_t value);

/* Records a setjmp (jump 0) or a longjmp (jump 1) of the buffer env, so that the host closes
 * the calls a longjmp skips at the depth of its buffer's setjmp (docs/FORMAT.md 7.6). Called
 * before the real setjmp or longjmp by the wrappers of the Linux runtime, or of a firmware
 * (GNU ld --wrap=setjmp --wrap=longjmp). Does nothing unless recording. */
CYGTRACE_API void cygtrace_jump(int jump, const void *env);

/* Records that execution context id (an RTOS task, an interrupt) runs from now on. */
CYGTRACE_API void cygtrace_context(uint32_t id, uintptr_t handle);

/* For an RTOS glue (target/rtos/): the records of docs/FORMAT.md 7.5. Each does nothing unless
 * recording, and may be called with interrupts on. */

/* Records a context switch to id: the clock (a TIME record, when the ring has timestamps),
 * then the CONTEXT, so that the switch has a time of its own. */
CYGTRACE_API void cygtrace_switch(uint32_t id, uintptr_t handle);

/* Records what the scheduler did (CYG_SCHED_* of cyg_format.h): kind in data's bits 3..0,
 * the rest of data packed by the caller as the kind says; a as the kind says. */
CYGTRACE_API void cygtrace_sched(unsigned kind, uint32_t data, uintptr_t a);

/* Names a context (what = 0, key its id) or an object (what = CYG_NAME_OBJECT | type <<
 * CYG_NAME_OBJ_SHIFT, key its handle): the key, then the name's bytes up to its NUL, max bytes
 * or 60 (120 on 64-bit targets), a word a record. */
CYGTRACE_API void cygtrace_name(unsigned what, uintptr_t key, const char *name, size_t max);

/* Records a fault (kind: CYG_FAULT_* of cyg_format.h) at pc with lr, then freezes. */
CYGTRACE_API void cygtrace_fault(unsigned kind, uintptr_t pc, uintptr_t lr);

/* Sets the build-id recorded in the control block (up to 32 bytes). */
CYGTRACE_API void cygtrace_set_build_id(const void *id, size_t len);

/* Records what one event's hooks cost the program (cost: bits 30..0 in 1/256 of a timestamp
 * tick; bit 31, CYG_HOOK_COST_GIVEN: a figure given, not measured) and, where the ring's memory
 * faults its pages in as the first lap writes them, what such a record costs more (page_cost
 * ticks, pages of 2^page_log2 bytes; 0: none), for the host to take out of the durations it
 * shows (docs/FORMAT.md 2.8). The Linux runtime measures and sets them at set-up. */
CYGTRACE_API void cygtrace_set_hook_cost(uint32_t cost, uint32_t page_cost, unsigned page_log2);

/* Returns the control block, or NULL before cygtrace_init(). */
CYGTRACE_API void *cygtrace_control_block(void);

/* Marks of a class (0..31): recorded only while the class is enabled (all are by default;
 * cygtrace_set_events(), `cygtrace arm --events`, CYGTRACE_EVENTS). The id keeps 19 bits. */
CYGTRACE_API void cygtrace_mark_class(unsigned cls, uint32_t id, uintptr_t value);

/* The enabled classes, as the runtime last applied them: cygtrace_event() tests it inline. */
CYGTRACE_API extern volatile uint32_t cygtrace_event_mask;

/* A mark of class cls: costs a load and a branch when the class is disabled. */
__attribute__((no_instrument_function, always_inline)) static inline void
cygtrace_event(unsigned cls, uint32_t id, uintptr_t value)
{
    if (cygtrace_event_mask >> (cls & 31u) & 1u)
        cygtrace_mark_class(cls, id, value);
}

/* Triggers and record-time filters (the ring's control area, docs/FORMAT.md 2.7): what the
 * host arms with `cygtrace arm` or the Linux runtime with CYGTRACE_TRIGGER, from the program.
 * A function is given by its address ((void *)name). Each returns the trigger's or entry's
 * index, or -1 when the control area has no room left (CYG_CTRL_TRIGS triggers,
 * CYG_CTRL_EXCLS excluded functions) or the runtime is built without it
 * (CYGTRACE_CONTROL=0, the default on Cortex-M and RISC-V firmware). While anything is armed,
 * every event takes the hooks' slow path. Call them from one thread (or context) at a time. */

/* Recording starts at fn's entry (and again at each entry after a stop); nothing is recorded
 * before. */
CYGTRACE_API int cygtrace_trigger_start(void *fn);

/* Recording stops after fn's exit (until a start trigger fires again). */
CYGTRACE_API int cygtrace_trigger_stop(void *fn);

/* The ring freezes after fn's entry and `after` more events: the post-trigger window (0:
 * at once). */
CYGTRACE_API int cygtrace_trigger_freeze(void *fn, uint32_t after);

/* The same at a mark with this id (of any class). */
CYGTRACE_API int cygtrace_trigger_freeze_mark(uint32_t id, uint32_t after);

/* fn's own events are not recorded; with callees != 0, neither are those of every call it
 * makes. */
CYGTRACE_API int cygtrace_exclude(void *fn, int callees);

/* Records calls down to depth levels per thread or context only (1: the outermost calls);
 * 0: every depth. */
CYGTRACE_API void cygtrace_set_depth(unsigned depth);

/* Enables the classes of marks whose bit is set (bit c for class c). */
CYGTRACE_API void cygtrace_set_events(uint32_t mask);

/* Disarms every trigger and filter, and enables every class. */
CYGTRACE_API void cygtrace_trigger_clear(void);

/* The live stream (common/cyg_stream.h): the drain turns the records of the ring into framed
 * bytes for a link of yours (a UART, a socket, a file). One ring, one drain; the ring buffers
 * what the link cannot take yet, and a writer that laps the drain costs records, counted in
 * the stream, never a torn one. */

/* A byte sink: takes up to len bytes of buf without blocking; returns how many it took (0 when
 * it is full). Build it without -finstrument-functions. */
typedef size_t (*cygtrace_sink_t)(void *arg, const void *buf, size_t len);

/* Starts streaming to sink(arg, ...) with the oldest record the ring still holds. */
CYGTRACE_API void cygtrace_drain_init(cygtrace_sink_t sink, void *arg);

/* Hands the records written since the last call to the sink, as far as it takes them; returns
 * the bytes it took. Never blocks. Call it from the idle loop or from one timer interrupt,
 * not both. Does nothing before cygtrace_init() and cygtrace_drain_init(). */
CYGTRACE_API size_t cygtrace_drain(void);

/* Drains until everything recorded so far is sent, spinning while the sink is full: for a
 * fault hook (the records of the fault included) or the end of a program. */
CYGTRACE_API void cygtrace_drain_flush(void);

/* Wrapped calls: the wrappers that `cygtrace wrap` writes call these, between the entry and
 * the exit they record with the hooks below. info is CYGTRACE_VALUE(index, kind): the argument
 * (0..14, or CYG_VAL_RET for the return value) and how to show it (CYG_VK_* of cyg_format.h).
 * fn is the wrapper's own address, as given to the hooks. Each does nothing unless recording. */
#define CYGTRACE_VALUE(idx, kind) ((unsigned)(idx) | (unsigned)(kind) << 4)

/* Records the entry of a wrapped call (the hooks' own record). Returns 1, or 0 when the call
 * must not be recorded at all, its values and exit neither: the runtime itself made it (the
 * Linux runtime's own calls of a wrapped C library function). */
CYGTRACE_API int cygtrace_wrap_enter(void *fn, void *site);

/* Records the exit of a wrapped call whose cygtrace_wrap_enter() returned 1. */
CYGTRACE_API void cygtrace_wrap_exit(void *fn, void *site);

/* Records a value of one word: an integer or an enum cast to uintptr_t (sign-extended when it
 * is signed), a pointer, a float's bits. */
CYGTRACE_API void cygtrace_wrap_value(void *fn, unsigned info, uintptr_t v);

/* Records a 64-bit value (a long long, a double's bits): one word on 64-bit targets, two on
 * 32-bit ones. */
CYGTRACE_API void cygtrace_wrap_value64(void *fn, unsigned info, uint64_t v);

/* Records the C string s (NULL is fine): its first CYGTRACE_WRAP_STRING bytes (default 32),
 * marked when it is longer. info's kind is CYG_VK_STR whatever it says. */
CYGTRACE_API void cygtrace_wrap_string(void *fn, unsigned info, const char *s);

/* The hooks that -finstrument-functions calls; wrappers call them too. */
CYGTRACE_API void __cyg_profile_func_enter(void *this_fn, void *call_site);
CYGTRACE_API void __cyg_profile_func_exit(void *this_fn, void *call_site);

#ifdef __cplusplus
}
#endif

#endif
