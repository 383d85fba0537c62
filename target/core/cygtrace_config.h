/* SPDX-License-Identifier: MIT */
/* cygtrace_config.h - compile-time settings of the runtime. Override any of them with -D or in
 * a cygtrace_user_config.h found on the include path (define CYGTRACE_USER_CONFIG to use it). */
#ifndef CYGTRACE_CONFIG_H
#define CYGTRACE_CONFIG_H

#ifdef CYGTRACE_USER_CONFIG
#include "cygtrace_user_config.h"
#endif

/* Record the call site with every event (4-word records instead of 2): 0 never, 1 always,
 * 2 chosen at run time by the port (Linux: CYGTRACE_CALLSITES=1). Default: 2; the Cortex-M port
 * sets 0 before this file is read (the run-time choice costs every event a test there). */
#ifndef CYGTRACE_CALLSITES
#define CYGTRACE_CALLSITES 2
#endif

/* Take a timestamp with every event: 1 yes, 0 no (records carry 0). Default: 1. */
#ifndef CYGTRACE_TIMESTAMPS
#define CYGTRACE_TIMESTAMPS 1
#endif

/* Version 4 records (docs/FORMAT.md section 14): one 32-bit word an event instead of two, twice
 * the events in the same ring; 1 instruction an event more in the hook (the clock's epoch test).
 * Cortex-M (the port's own hooks on ARMv7-M/v8-M mainline, the core's C hooks with
 * CYGTRACE_CM_ASM_HOOKS=0 on every core) and RISC-V (the core's C hooks), without call sites
 * and for now without the stream drain (cygtrace_drain() sends nothing). CYGTRACE_REC4_FN_BITS is F, the width of the
 * function field: the instrumented code must lie within 2^F bytes from text_base (the link's
 * __cygtrace_text_base, else the hooks' own address), and the ring hold at most 2^(30 - F)
 * records. Default: 0 (version 1, or 3 with the control area), F 17. */
#ifndef CYGTRACE_REC4
#define CYGTRACE_REC4 0
#endif
#ifndef CYGTRACE_REC4_FN_BITS
#define CYGTRACE_REC4_FN_BITS 17
#endif

/* Start recording as soon as the buffer is set up: 1 yes, 0 wait for cygtrace_start().
 * Default: 1. */
#ifndef CYGTRACE_AUTOSTART
#define CYGTRACE_AUTOSTART 1
#endif

/* Default mode: 1 overwrite (flight recorder), 0 stop when full. Default: 1. */
#ifndef CYGTRACE_OVERWRITE
#define CYGTRACE_OVERWRITE 1
#endif

/* Stop mode: a ring that stops when full (CYGTRACE_OVERWRITE=0, cygtrace_set_mode()) and
 * counts the events it could not record (lost). 0 compiles it out, for the smallest firmware:
 * every ring overwrites, cygtrace_set_mode(CYGTRACE_MODE_STOP) does nothing, and lost stays 0
 * (nothing else loses events there). Default: 1. */
#ifndef CYGTRACE_STOP_MODE
#define CYGTRACE_STOP_MODE 1
#endif

/* Wrapped calls (cygtrace wrap): the bytes of a string argument or return value recorded, at
 * most; a longer string is cut and marked. At most 16 words (64 bytes on a 32-bit target, 128
 * on a 64-bit one). Default: 32. */
#ifndef CYGTRACE_WRAP_STRING
#define CYGTRACE_WRAP_STRING 32
#endif

/* Stream drain: while the target keeps recording, cygtrace_drain() sends no frame for fewer
 * than this many records (they wait for the next call); a target that recorded nothing since
 * the last call gets them at once, so the latency is one idle call. 1: every call sends what
 * there is. Default: 64 (a frame holds about 100 events). */
#ifndef CYGTRACE_DRAIN_BATCH
#define CYGTRACE_DRAIN_BATCH 64
#endif

/* The stream drain (cygtrace_drain()) repeats its description frame after this many bytes of
 * stream, so that a host that joins late, or lost the first one to noise, can start decoding
 * within that many bytes; and, with timestamps and a known clock rate, at least every half
 * second while it is called. Default: 2048 (about 4% of the stream). */
#ifndef CYGTRACE_DRAIN_DESC_BYTES
#define CYGTRACE_DRAIN_DESC_BYTES 2048
#endif

/* The control area (docs/FORMAT.md 2.7): triggers that start, stop and freeze the recording at
 * a function or a mark, record-time filters (exclude, hide, depth) and classes of marks, armed
 * by the host through a debugger (`cygtrace arm`), by the Linux runtime from its environment or
 * by the program (cygtrace_trigger_*): 1 yes (a version 3 ring, 256 bytes longer), 0 no (a
 * version 1 or 2 ring; the API returns -1, marks still filter by class). The hooks' fast path is
 * the same either way: armed triggers and filters send every event to the slow path. Default: 1
 * on Linux; 0 on the bare-metal ports (Cortex-M, RISC-V: CYGTRACE_BARE_METAL, set by their
 * headers), where it would be most of the runtime's flash (about 1 KB of 1.5 on a Cortex-M3). */
#ifndef CYGTRACE_CONTROL
#ifdef CYGTRACE_BARE_METAL
#define CYGTRACE_CONTROL 0
#else
#define CYGTRACE_CONTROL 1
#endif
#endif

/* Bytes of a ring that are not records: the 128-byte control block, and the control area. */
#define CYGTRACE_RING_OVERHEAD (128 + (CYGTRACE_CONTROL ? 256 : 0))

/* Linux: trace set-user-ID and set-group-ID programs, with the default settings (their
 * environment, which whoever runs them controls, is not read): 1 yes, 0 no. Default: 0. */
#ifndef CYGTRACE_PRIVILEGED
#define CYGTRACE_PRIVILEGED 0
#endif

/* Bare-metal ports: what one event's hooks cost the program, in ticks of the trace's clock
 * (cycles with DWT), written into the control block at init (hook_cost, docs/FORMAT.md 2.8) so
 * that the host takes it out of durations; measure it once for your part and build (the
 * cycles of bench/cortex-m/run.sh's hooks, docs/firmware.md). Default: 0, none given (no code: the flash stays as it was; the
 * host's --hook-cost= gives a figure then). The Linux runtime measures its own at set-up. */
#ifndef CYGTRACE_HOOK_COST
#define CYGTRACE_HOOK_COST 0
#endif

#if CYGTRACE_HOOK_COST < 0 || CYGTRACE_HOOK_COST > 0x7fffff
#error "CYGTRACE_HOOK_COST must be 0 (none) or a number of clock ticks below 2^23"
#endif
#if CYGTRACE_CONTROL != 0 && CYGTRACE_CONTROL != 1
#error "CYGTRACE_CONTROL must be 0 or 1"
#endif
#if CYGTRACE_CALLSITES < 0 || CYGTRACE_CALLSITES > 2
#error "CYGTRACE_CALLSITES must be 0, 1 or 2"
#endif
#if CYGTRACE_REC4 != 0 && CYGTRACE_REC4 != 1
#error "CYGTRACE_REC4 must be 0 or 1"
#endif
#if CYGTRACE_REC4 && (CYGTRACE_REC4_FN_BITS < 12 || CYGTRACE_REC4_FN_BITS > 22)
#error "CYGTRACE_REC4_FN_BITS must be 12..22"
#endif
#if CYGTRACE_TIMESTAMPS != 0 && CYGTRACE_TIMESTAMPS != 1
#error "CYGTRACE_TIMESTAMPS must be 0 or 1"
#endif
#if CYGTRACE_OVERWRITE != 0 && CYGTRACE_OVERWRITE != 1
#error "CYGTRACE_OVERWRITE must be 0 or 1"
#endif
#if CYGTRACE_STOP_MODE != 0 && CYGTRACE_STOP_MODE != 1
#error "CYGTRACE_STOP_MODE must be 0 or 1"
#endif
#if !CYGTRACE_STOP_MODE && !CYGTRACE_OVERWRITE
#error "CYGTRACE_STOP_MODE=0 (no stop mode) needs CYGTRACE_OVERWRITE=1"
#endif
#if CYGTRACE_DRAIN_BATCH < 1
#error "CYGTRACE_DRAIN_BATCH must be 1 or more"
#endif
#if CYGTRACE_DRAIN_DESC_BYTES < 256
#error "CYGTRACE_DRAIN_DESC_BYTES must be 256 (one frame) or more"
#endif

#endif
