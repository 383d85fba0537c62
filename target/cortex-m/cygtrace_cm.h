/* SPDX-License-Identifier: MIT */
/* cygtrace_cm.h - the Cortex-M runtime: the ring in a static buffer that survives warm resets,
 * set up at boot, and a fault handler that freezes it. Include it (it includes cygtrace.h) in
 * your startup code; link target/core/cygtrace.c, target/core/cygtrace_static.c,
 * target/cortex-m/cygtrace_cm.c and common/crc32.c (and, to stream,
 * target/core/cygtrace_drain.c), built with -Itarget/cortex-m (tools/cygtrace.mk and
 * tools/cygtrace.cmake do).
 *
 * Warm resets (watchdog, NVIC_SystemReset, a debugger's reset): the buffer lives in the
 * .noinit.cygtrace section, which the startup code must not zero and a loader must not write
 * (NOLOAD). At boot cygtrace_cm_init() looks at what the buffer holds:
 *   - a sealed ring made by this runtime for this buffer (magic, version, layout, CRC, counters
 *     and state all sane), by this very image (the same GNU build-id, or none in both), holding
 *     at least one record: it is KEPT as the evidence of what happened before the reset. Its
 *     state becomes FROZEN, its reset count (control block byte 85) goes up by one (it stops at
 *     255), nothing else changes and nothing records over it. A debugger reads it at leisure;
 *     then the firmware calls cygtrace_cm_discard() to record again. A firmware that would
 *     rather lose the old trace than stop recording calls cygtrace_cm_discard() right away.
 *   - anything else (power-on RAM, an empty ring, another build's ring): a fresh ring, which
 *     starts recording at once (CYGTRACE_AUTOSTART).
 * Built with -DCYGTRACE_CM_KEEP=0, it always makes a fresh ring.
 *
 * The hooks run from the first instrumented function on: build the startup code up to
 * cygtrace_cm_init() without -finstrument-functions (before .data is copied, the runtime's own
 * state is not there yet).
 */
#ifndef CYGTRACE_CM_H
#define CYGTRACE_CM_H

#include <stdint.h>

#include "cygtrace.h"

/* A bare-metal port: cygtrace_config.h's firmware defaults (no control area unless asked). */
#define CYGTRACE_BARE_METAL 1
#include "cygtrace_config.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of the static ring buffer: CYGTRACE_RING_OVERHEAD (the 128-byte control block, and the
 * 256-byte control area with CYGTRACE_CONTROL=1) and a power of two of 8-byte records (16
 * with call sites). Default: 4096 + CYGTRACE_RING_OVERHEAD, 512 records. */
#ifndef CYGTRACE_CM_BUFFER_BYTES
#define CYGTRACE_CM_BUFFER_BYTES (4096 + CYGTRACE_RING_OVERHEAD)
#endif

/* Keep the trace of a warm reset (1, see above), or always start a fresh ring at boot (0: the
 * firmware is smaller by the comparison with the old ring: 176 bytes on the M3, PERFORMANCE.md).
 * Default: 1. */
#ifndef CYGTRACE_CM_KEEP
#define CYGTRACE_CM_KEEP 1
#endif
#if CYGTRACE_CM_KEEP != 0 && CYGTRACE_CM_KEEP != 1
#error "CYGTRACE_CM_KEEP must be 0 or 1"
#endif

/* The ring buffer, in .noinit.cygtrace. A debugger dumps it whole:
 *   dump binary memory ring.bin cygtrace_buffer cygtrace_buffer+sizeof(cygtrace_buffer) */
extern uint8_t cygtrace_buffer[CYGTRACE_CM_BUFFER_BYTES];

/* Sets the runtime up at boot, after .data and .bss are initialised: keeps the trace of a warm
 * reset or makes a fresh ring (see above), starts the clock CYGTRACE_CM_CLOCK names (the DWT
 * cycle counter, or SysTick when it is not running yet; a cycle counter that does not count
 * gives way to SysTick, CYGTRACE_CM_CLOCK_FALLBACK) and records clock_hz, its rate (the core
 * clock's, for either), and the image's GNU build-id. Returns the resets the kept trace has
 * survived (1..255), or 0 for a fresh ring. */
CYGTRACE_API int cygtrace_cm_init(uint32_t clock_hz);

/* Throws the kept trace away and records a fresh one. */
CYGTRACE_API void cygtrace_cm_discard(void);

/* Returns the warm resets the trace in the buffer has survived: 0 when it was recorded since
 * this boot. */
CYGTRACE_API unsigned cygtrace_cm_resets(void);

/* A fault handler: use it as HardFault_Handler (and MemManage, BusFault, UsageFault,
 * SecureFault). It records the faulting PC and LR from the stacked frame (of the stack that was
 * in use, in its own security state) and the exception number as the fault kind, freezes the
 * ring, then calls cygtrace_cm_fault_hook(). Naked, Thumb-1 only: fine on ARMv6-M. A firmware
 * that does not name it in its vector table links neither it nor the fault's records (260
 * bytes on the M3: the minimal configuration of docs/PERFORMANCE.md). */
CYGTRACE_API void cygtrace_fault_handler(void);

/* Called by cygtrace_fault_handler() once the ring is frozen; must not return. The default (a
 * weak symbol) loops for ever so that a debugger finds the core there; define your own to
 * report the fault or to reset. */
CYGTRACE_API void cygtrace_cm_fault_hook(void) __attribute__((noreturn));

/* Your clock, when the runtime is built with CYGTRACE_CM_CLOCK=3: a counter that goes up,
 * CYGTRACE_CM_USER_CLOCK_BITS wide. The hooks call it on every event: keep it short, and build
 * it without -finstrument-functions. A timer whose count register can be read as it is (a
 * CMSDK timer's VALUE, an STM32 TIMx->CNT) is cheaper as CYGTRACE_CM_CLOCK=4 with
 * CYGTRACE_CM_CLOCK_ADDR (and CYGTRACE_CM_CLOCK_DOWN=1 if it counts down): the hooks read it
 * without a call. */
uint32_t cygtrace_user_clock(void);

#ifdef __cplusplus
}
#endif

#endif
