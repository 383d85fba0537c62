/* SPDX-License-Identifier: MIT */
/* cygtrace_static.h - what the bare-metal ports (target/cortex-m, target/riscv) share: the
 * single-core part of the port contract (cygtrace_internal.h), and the contract of
 * cygtrace_static.c, the ring in a static buffer that survives warm resets (the policy is
 * cygtrace_cm.h's). Not for users: a port's cygtrace_port.h includes it last, once it has
 * included its public header (cygtrace_cm.h, cygtrace_rv.h, which declare the API and
 * cygtrace_buffer) and defined:
 *   CYG_STATIC_API(name)     the public name of the API function name (init, discard,
 *                            resets): cygtrace_cm_init, ... (so one source, no wrappers)
 *   CYG_STATIC_BYTES         the buffer's size (CYGTRACE_CM_BUFFER_BYTES)
 *   CYG_STATIC_KEEP          1 to keep a warm reset's trace (CYGTRACE_CM_KEEP)
 *   void cyg_port_clock_start(void)
 *                            starts the clock cyg_port_now() reads, at init
 *   unsigned cyg_port_clock_down(void)
 *                            0, or the width in bits of a clock counting down that the start
 *                            fell back to (the ring then says CYG_F_TS_DOWN and that ts_bits)
 */
#ifndef CYGTRACE_STATIC_H
#define CYGTRACE_STATIC_H

#include <stdint.h>

#define CYG_STATIC_INLINE __attribute__((no_instrument_function, always_inline)) static inline

/* The ring's place and size, known to cygtrace_static.c alone, which defines cyg_rt with them
 * (cygtrace_internal.h, CYG_PORT_STATIC) and the port's hot words (CYG_PORT_HOT_INIT): a
 * firmware may give the buffer's size to that file only. The capacity is a power of two of
 * records (cygtrace_static.c checks CYG_STATIC_BYTES). */
#define CYG_PORT_STATIC 1
#define CYG_PORT_STATIC_MEM cygtrace_buffer
#define CYG_PORT_STATIC_SHIFT (CYGTRACE_REC4 ? 0u : CYGTRACE_CALLSITES ? 2u : 1u)
#define CYG_STATIC_REC_BYTES ((uint32_t)sizeof(uintptr_t) << CYG_PORT_STATIC_SHIFT)
#define CYG_STATIC_RING_BYTES ((uint32_t)CYG_STATIC_BYTES - CYGTRACE_RING_OVERHEAD)
#define CYG_PORT_STATIC_LOG2                                                                      \
    ((unsigned)__builtin_ctz(CYG_STATIC_RING_BYTES / CYG_STATIC_REC_BYTES))
#define CYG_PORT_STATIC_MASK (CYG_STATIC_RING_BYTES / CYG_STATIC_REC_BYTES - 1u)

CYG_STATIC_INLINE uintptr_t cyg_port_thread(void)
{
    return 0; /* contexts are context-switch records on firmware */
}

CYG_STATIC_INLINE void cyg_port_release(void)
{
    /* One core (hart), program order: only the compiler could reorder the record's stores. (A
     * weakly ordered multi-core part would need a store barrier here.) */
    __asm__ volatile("" ::: "memory");
}

CYG_STATIC_INLINE void cyg_port_acquire(void)
{
    /* One core: the drain reads what this core wrote, in program order. */
    __asm__ volatile("" ::: "memory");
}

CYG_STATIC_INLINE int cyg_port_wake(void)
{
    return 0; /* the firmware sets the ring up at boot: CYG_STATIC_API(init) */
}

CYG_STATIC_INLINE int cyg_port_busy(void)
{
    return 0; /* the runtime calls no function a firmware could wrap */
}

#endif
