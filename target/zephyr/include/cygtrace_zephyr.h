/* SPDX-License-Identifier: MIT */
/* cygtrace_zephyr.h - the Zephyr glue (cygtrace_zephyr.c): Zephyr's tracing hooks record
 * context switches, interrupts, blocking on kernel objects and waking, and thread names into
 * the ring (docs/FORMAT.md 7.5), as the FreeRTOS glue does; the fatal error path records the
 * fault and freezes the ring. The module (target/zephyr/zephyr) builds it with
 * CONFIG_CYGTRACE; docs/zephyr.md.
 *
 * Contexts: a thread is context (its struct k_thread's address >> 2) & 0x7FFFF (0x7FFFF for 0),
 * its handle that address; an interrupt is 0x80000 | its exception number, its handle its
 * handler (the ISR of _sw_isr_table for an IRQ, the vector table's entry for an exception:
 * SysTick's sys_clock_isr), the Thumb bit cleared, as call records carry functions.
 *
 * The host's contract: the glue exports, in RAM,
 *   struct cygtrace_zephyr_info cygtrace_zephyr;   (symbol name exactly this)
 *   offset 0  u32 magic     0x5a475943 ("CYGZ")
 *   offset 4  u16 version   1
 *   offset 6  u16 name_off  offset of name[] in struct k_thread
 *   offset 8  u16 name_len  CONFIG_THREAD_MAX_NAME_LEN
 * so that a host whose ring wrapped past a thread's NAME records reads the name from the
 * thread at the context's handle + name_off. */
#ifndef CYGTRACE_ZEPHYR_H
#define CYGTRACE_ZEPHYR_H

#include <stdint.h>

#include "cyg_format.h"

#define CYGTRACE_ZEPHYR_MAGIC 0x5a475943u /* "CYGZ" as a little-endian word */
#define CYGTRACE_ZEPHYR_VERSION 1u
#define CYGTRACE_ZEPHYR_ISR_ID 0x80000u

struct cygtrace_zephyr_info {
    uint32_t magic;
    uint16_t version;
    uint16_t name_off;
    uint16_t name_len;
    uint16_t pad;
};

extern struct cygtrace_zephyr_info cygtrace_zephyr;

/* The current thread blocks on the object at obj, of type type (CYG_OBJ_K_*, CYG_OBJ_EVENTS,
 * or CYG_OBJ_DELAY with obj the ticks asked for, 0 for ever), for op (CYG_OP_*). */
void cygtrace_zephyr_block(unsigned type, unsigned op, uintptr_t obj);

/* k_sleep() and the like: a delay of timeout's ticks (K_FOREVER: 0, unknown). */
void cygtrace_zephyr_sleep(int64_t ticks);

/* Names the kernel object at obj, of type type (CYG_OBJ_K_SEM, CYG_OBJ_K_MSGQ, ...): a NAME
 * record, for an object that no symbol names (one initialized at run time, in a struct or on
 * the heap); a statically defined one goes by its symbol without it. At most 60 bytes. */
void cygtrace_zephyr_name(const void *obj, unsigned type, const char *name);

/* For an application that defines k_sys_fatal_error_handler() itself
 * (CONFIG_CYGTRACE_FATAL_HANDLER=n): records the fault in the current thread's tree and freezes
 * the ring. esf is the handler's, as const struct arch_esf * (NULL is fine). */
void cygtrace_zephyr_fatal(unsigned int reason, const void *esf);

#endif
