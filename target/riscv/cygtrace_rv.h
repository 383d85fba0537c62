/* SPDX-License-Identifier: MIT */
/* cygtrace_rv.h - the RISC-V (RV32, machine mode) runtime: the ring in a static buffer that
 * survives warm resets, set up at boot, and trap support that records a fault and freezes the
 * ring. Include it (it includes cygtrace.h) in your startup code; link target/core/cygtrace.c,
 * target/core/cygtrace_static.c, target/riscv/cygtrace_rv.c and common/crc32.c (and, to
 * stream, target/core/cygtrace_drain.c), built with -Itarget/riscv -Itarget/core -Icommon and
 * without -finstrument-functions.
 *
 * Warm resets keep the trace exactly as on Cortex-M (cygtrace_cm.h): the buffer lives in
 * .noinit.cygtrace, which the startup code must not zero and which must be in no load segment
 * (examples/riscv/sections.ld); cygtrace_rv_init() keeps a sealed ring of this very image,
 * FROZEN, with its reset count up by one, and makes a fresh ring otherwise. Built with
 * -DCYGTRACE_RV_KEEP=0 it always makes a fresh ring.
 *
 * Faults: RISC-V has one trap vector (mtvec) for exceptions and interrupts alike. Either
 *   - point mtvec at cygtrace_rv_trap_handler (a firmware that takes no interrupts, or only in
 *     a vectored mtvec whose entry 0 it is): every trap is recorded as a fault; or
 *   - from your own trap handler, for the exceptions you do not handle, call
 *     cygtrace_rv_fault(mcause, mepc, ra) with ra as the trapped code left it (read it before
 *     your handler's first call overwrites it).
 * The fault kind in the trace is CYG_FAULT_RISCV + mcause's exception code (+
 * CYG_FAULT_RISCV_IRQ for an interrupt): cygtrace shows "load access fault (mcause 5)".
 */
#ifndef CYGTRACE_RV_H
#define CYGTRACE_RV_H

#include <stdint.h>

#include "cygtrace.h"

/* A bare-metal port: cygtrace_config.h's firmware defaults (no control area unless asked). */
#define CYGTRACE_BARE_METAL 1
#include "cygtrace_config.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of the static ring buffer: CYGTRACE_RING_OVERHEAD and a power of two of 8-byte
 * records (16 with call sites). Default: 4096 + CYGTRACE_RING_OVERHEAD, 512 records. */
#ifndef CYGTRACE_RV_BUFFER_BYTES
#define CYGTRACE_RV_BUFFER_BYTES (4096 + CYGTRACE_RING_OVERHEAD)
#endif

/* Keep the trace of a warm reset (1), or always start a fresh ring at boot (0). Default: 1. */
#ifndef CYGTRACE_RV_KEEP
#define CYGTRACE_RV_KEEP 1
#endif
#if CYGTRACE_RV_KEEP != 0 && CYGTRACE_RV_KEEP != 1
#error "CYGTRACE_RV_KEEP must be 0 or 1"
#endif

/* The ring buffer, in .noinit.cygtrace. */
extern uint8_t cygtrace_buffer[CYGTRACE_RV_BUFFER_BYTES];

/* Sets the runtime up at boot, after .data and .bss are initialised: keeps the trace of a warm
 * reset or makes a fresh ring, and records clock_hz, the rate of the clock CYGTRACE_RV_CLOCK
 * names (mcycle: the core clock), and the image's GNU build-id. Returns the resets the kept
 * trace has survived (1..255), or 0 for a fresh ring. */
CYGTRACE_API int cygtrace_rv_init(uint32_t clock_hz);

/* Throws the kept trace away and records a fresh one. */
CYGTRACE_API void cygtrace_rv_discard(void);

/* Returns the warm resets the trace in the buffer has survived: 0 when recorded since boot. */
CYGTRACE_API unsigned cygtrace_rv_resets(void);

/* Records a trap as a fault (kind from mcause, PC mepc, return address ra), freezes the ring,
 * then calls cygtrace_rv_fault_hook(mcause). Does not return. */
CYGTRACE_API void cygtrace_rv_fault(uint32_t mcause, uint32_t mepc, uint32_t ra)
    __attribute__((noreturn));

/* A trap handler for mtvec (direct mode; 4-byte aligned): passes mcause, mepc and the
 * trapped code's ra to cygtrace_rv_fault(). Saves nothing: it never returns. */
CYGTRACE_API void cygtrace_rv_trap_handler(void) __attribute__((noreturn));

/* Called by cygtrace_rv_fault() once the ring is frozen; must not return. The default (a weak
 * symbol) waits for ever (wfi) so that a debugger finds the hart there; define your own to
 * report the fault or to reset. */
CYGTRACE_API void cygtrace_rv_fault_hook(uint32_t mcause) __attribute__((noreturn));

/* Your clock, when the runtime is built with CYGTRACE_RV_CLOCK=3: a counter that goes up,
 * CYGTRACE_RV_USER_CLOCK_BITS wide, called on every event; build it without
 * -finstrument-functions. */
uint32_t cygtrace_user_clock(void);

#ifdef __cplusplus
}
#endif

#endif
