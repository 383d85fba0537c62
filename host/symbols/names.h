/* SPDX-License-Identifier: GPL-3.0-or-later */
/* names.h - what the contexts and the kernel objects of a trace are called: a task's name for
 * its context id, a queue's for its handle. Filled from the trace's NAME records (the scan pass
 * reads them all before any tree is printed), from a pulled target's memory (the FreeRTOS
 * kernel's own tables, host/rtos.c), and from a dump's DUMP.maps (ctxname and objname lines,
 * FORMAT.md 12); a later name for the same key wins. A context that has no name is called
 * by its handle's symbol when the handle is a function's address (an interrupt's context:
 * its handler). */
#ifndef NAMES_H
#define NAMES_H

#include <stddef.h>
#include <stdint.h>

struct names;

/* NULL when out of memory. */
struct names *names_new(void);
void names_free(struct names *n);

/* Names context id (a copy of name is kept: printable bytes only, others shown as '?', at
 * most NAMES_MAX bytes). 0, or -1 when out of memory. Each table (contexts, objects) holds
 * NAMES_CAP keys at most: beyond, new keys are left out (0 all the same). */
#define NAMES_MAX 63u
#define NAMES_CAP 65536u
int names_set_ctx(struct names *n, uint32_t id, const char *name);

/* Binds context id to the handle its CONTEXT records give (the latest wins). */
int names_set_handle(struct names *n, uint32_t id, uint64_t handle);

/* Lets an object a context blocks on that no NAME record names go by the data symbol at its
 * handle (minus bias), when there is one: a kernel object defined statically. sym may be NULL;
 * it must outlive n. */
struct sym_table;
void names_set_symbols(struct names *n, const struct sym_table *sym, uint64_t bias);

/* Names the kernel object at handle, of type objtype (CYG_OBJ_*). */
int names_set_obj(struct names *n, uint64_t handle, unsigned objtype, const char *name);

/* The name of context id, or NULL (also when n is NULL, as for the other lookups). */
const char *names_ctx(const struct names *n, uint32_t id);

/* The handle of context id, 0 when none is known. */
uint64_t names_handle(const struct names *n, uint32_t id);

/* The name of the object at handle, or NULL; *objtype (may be NULL) gets its type. */
const char *names_obj(const struct names *n, uint64_t handle, unsigned *objtype);

/* Takes an event of a pass in ring order: NAME words (EV_NAME), put back together per
 * context (a word out of order drops the name it belongs to), and CONTEXT bindings
 * (EV_CONTEXT: id to handle), and the type of an object a task blocked on (EV_SCHED), for a
 * name that comes without one. w is the ring's word size (4 or 8). An EV_LOST drops the
 * names in flight. Other events are ignored. */
struct ev;
void names_feed(struct names *n, const struct ev *e, unsigned w);

/* Calls fn for every named context, in the order of their ids. n may be NULL. */
void names_each_ctx(const struct names *n, void (*fn)(void *arg, uint32_t id, const char *name),
                    void *arg);

/* Calls fn for every named object, in the order of their handles. n may be NULL. */
void names_each_obj(const struct names *n,
                    void (*fn)(void *arg, uint64_t handle, unsigned objtype, const char *name),
                    void *arg);

/* How many contexts have a name. n may be NULL. */
size_t names_ctx_count(const struct names *n);

/* What context id goes by: its name, else the symbol of the function its handle starts (an
 * interrupt's context: its handler; the handle n binds it to, else handle), else NULL. sym
 * may be NULL; bias is the run-time minus link-time address. buf (len bytes) may hold the
 * result. */
struct sym_table;
const char *names_ctx_called(const struct names *n, const struct sym_table *sym, uint64_t bias,
                             uint32_t id, uint64_t handle, char *buf, size_t len);

/* Writes what context id goes by (names_ctx_called) into buf, else "context ID". */
void names_ctx_text(const struct names *n, const struct sym_table *sym, uint64_t bias,
                    uint32_t id, uint64_t handle, char *buf, size_t len);

/* The word a trace's contexts go by: "thread" for a 64-bit (Linux) ring's word_bytes 8, else
 * "context". */
const char *names_ctx_word(unsigned word_bytes);

/* Writes what every output heads context id with (tree, report, graph, the live view, the
 * Chrome export's tracks): the word (names_ctx_word), the id, what it goes by in quotes
 * (names_ctx_called, so an interrupt's handler), then its OS thread when os_tid is not 0:
 *     context 1 "producer"           context 524303 "SysTick_Handler"     context 0
 *     thread 2 (tid 7739)            thread 2 "worker" (tid 7739)
 *     thread 3 (vfork child, pid 812)
 * Returns whether it has a name (the quoted part). A name inside a sentence ("woken by
 * producer") is names_ctx_text's. */
int names_ctx_label(const struct names *n, const struct sym_table *sym, uint64_t bias,
                    unsigned word_bytes, uint32_t id, uint64_t os_tid, int vfork, char *buf,
                    size_t len);

/* The context called name: 1 with *id set, 0 when none is, -1 when several are. */
int names_find_ctx(const struct names *n, const char *name, uint32_t *id);

#endif
