/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rtos.h - the names an RTOS kernel (FreeRTOS, Zephyr) keeps in a target's memory, read
 * through a debugger: for
 * a pulled trace whose ring wrapped past the records that named its tasks at creation.
 *
 * FreeRTOS: the glue (target/rtos/freertos) exports `cygtrace_freertos`, where a task's name
 * and number sit in its TCB; a context's handle (its CONTEXT records) is its TCB. A TCB is
 * trusted only when its number is the context's id: a deleted task's TCB, freed and reused,
 * names nobody. The queue registry (`xQueueRegistry`) names queues, semaphores and mutexes. */
#ifndef RTOS_H
#define RTOS_H

#include <stddef.h>
#include <stdint.h>

#include "symbols/names.h"
#include "symbols/sym.h"

/* Reads len bytes of the target at addr into buf: 0, or -1 (the read failed). */
typedef int (*rtos_read_fn)(void *arg, uint64_t addr, void *buf, size_t len);

/* The glue's table, as the target lays it out (little-endian). */
#define RTOS_FREERTOS_MAGIC 0x46475943u /* "CYGF" */
#define RTOS_FREERTOS_BYTES 16u

/* Zephyr: the module's glue (target/zephyr) exports `cygtrace_zephyr`, where a thread's name
 * sits in its struct k_thread; a context's handle is its k_thread, and its id is the handle's
 * address >> 2, masked to 19 bits (0x7FFFF for 0): a handle that does not give the id is not
 * the thread's. */
#define RTOS_ZEPHYR_MAGIC 0x5a475943u /* "CYGZ" */
#define RTOS_ZEPHYR_BYTES 12u

/* Whether sym's program links the Zephyr glue. */
int rtos_has_zephyr(const struct sym_table *sym);

/* As rtos_freertos_names(), for Zephyr's threads. */
int rtos_zephyr_names(const struct sym_table *sym, rtos_read_fn read, void *arg,
                      const uint32_t *ids, const uint64_t *handles, size_t count,
                      struct names *n, char *why, size_t whylen);

/* Whether sym's program links the FreeRTOS glue (reading is worth a try). */
int rtos_has_freertos(const struct sym_table *sym);

/* Names, in n, the count contexts ids[i] (whose handles are handles[i]) that have no name yet,
 * from their TCBs, and the registry's objects that have none. Returns the names it added, or
 * -1 with a one-line reason in why when the glue's table cannot be read or is not one (a
 * failed read of one TCB or string only leaves that name out). */
int rtos_freertos_names(const struct sym_table *sym, rtos_read_fn read, void *arg,
                        const uint32_t *ids, const uint64_t *handles, size_t count,
                        struct names *n, char *why, size_t whylen);

#endif
