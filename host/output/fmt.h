/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fmt.h - the text of what a trace holds, as every output writes it: a function's name for an
 * address, a duration, a fault, a trigger, a mark, a scheduler record, a blocked interval, the
 * control area's notes, and the live view's counts and rates. The renderer, the exports, the
 * graph, the live view and the commands all say these the same way. */
#ifndef FMT_H
#define FMT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "decode/ctrl.h"
#include "decode/dec.h"
#include "symbols/names.h"
#include "symbols/sym.h"

/* A C++ symbol's demangled name (malloc'd), or NULL for one that does not demangle. params:
 * with its parameters, "ns::f(int) const" (--signatures), else "ns::f"; without them, a
 * name that does not start "_Z" is not tried. */
char *fmt_demangle(const char *name, int params);

/* Writes "name+0xoff" (or "name", or "0xaddr" when unknown) for a run-time address. */
void fmt_addr(const struct sym_table *sym, uint64_t bias, uint64_t addr, char *buf, size_t len);

/* Writes a duration in ticks as "12.345 us" (ms, s) when hz is known, else "N ticks"; len
 * must be 32 or more. */
void fmt_duration(uint64_t ticks, uint64_t hz, char *buf, size_t len);

/* What fmt_duration writes, with its length and no terminator; buf holds 32 bytes or more.
 * Integers only, no printf: the tree's durations are the decoder's hot spot. */
size_t fmt_duration_text(uint64_t ticks, uint64_t hz, char *buf);

/* ticks in ns, rounded (saturated where a slow clock gives more than 63 bits). */
uint64_t fmt_duration_ns(uint64_t ticks, uint64_t hz);

/* The text of a duration of ns nanoseconds, as fmt_duration_text writes it, with its length. */
size_t fmt_ns_text(uint64_t ns, char *buf);

/* Writes the line a fault record (and its LR record, or NULL) shows as: "*** HardFault at
 * fn+0x14, called from main+0x8" (a caller only when LR names one: not inside fn itself, nor
 * the runtime, nor EXC_RETURN), "*** signal 11 (SIGSEGV) at fn+0x4, address 0x0". */
void fmt_fault(const struct sym_table *sym, uint64_t bias, unsigned addr_width,
               const struct ev *fault, const struct ev *lr, char *buf, size_t len);

/* What fmt_ctrl_name names functions with. */
struct fmt_namer {
    const struct sym_table *sym; /* may be NULL */
    uint64_t bias;
    uint64_t thumb;              /* 1 on a 32-bit target: bit 0 of an address is ARM's Thumb
                                    bit, which the control area may keep */
    char buf[256];
};

/* A ctrl_name_fn over a struct fmt_namer: "name" or "name+0x4" for a run-time address, NULL
 * when the ELF does not know it (ctrl.c then shows it in hex). */
const char *fmt_ctrl_name(void *arg, uint64_t addr);

/* Writes what a trigger record (EV_TRIGGER) says, from c (the ring's control area, may be
 * NULL) when it names the trigger: "trigger freeze@boom+10 fired" (and the mark's value for a
 * freeze at a mark), else "trigger 2 (freeze) fired at boom". */
void fmt_trigger(const struct fmt_namer *nm, const struct ctrl *c, const struct ev *e,
                 char *buf, size_t len);

/* Prints what the control area of ring r says was in force (the triggers, the filters, which
 * trigger fired: ctrl_describe), each line starting with prefix; nothing when r has none or
 * nothing was armed. Returns the lines printed. */
unsigned fmt_ctrl_notes(FILE *f, const char *prefix, const struct dec_ring *r,
                        const struct sym_table *sym);

/* Writes a mark's line without its "# ": "mark 7 = 0x2a", "mark 7 class 3 = 0x2a". */
void fmt_mark(const struct ev *e, char *buf, size_t len);

/* How fmt_block words what a context waits for. */
enum fmt_block_style {
    FMT_BLOCK_RECORD,   /* the record, on the tree's line: "delay 10 ticks", "blocked on a
                           notification", "blocked on queue "jobs" (receive)"; an untyped
                           handle's type from its name */
    FMT_BLOCK_INTERVAL, /* the state a blocked interval is in (the Chrome export): "delayed
                           (10 ticks)", "waiting for a notification", "blocked on queue
                           "jobs"" */
};

/* Writes what a context blocked on (a SCHED BLOCK's object type CYG_OBJ_*, its handle or a
 * delay's ticks, the operation CYG_OP_*) waits for, the object's name from n (may be NULL),
 * else its handle: "suspended", "blocked on semaphore 0x20001234", "blocked". */
void fmt_block(const struct names *n, unsigned objtype, uint64_t obj, unsigned op,
               enum fmt_block_style style, char *buf, size_t len);

/* Writes what a scheduler record (EV_SCHED) says, without a prefix: a block (fmt_block's
 * FMT_BLOCK_RECORD), "wakes consumer", "woken by TIMER0_IRQHandler" (n, sym may be NULL:
 * "context 3"). */
void fmt_sched(const struct names *n, const struct sym_table *sym, uint64_t bias,
               const struct ev *e, char *buf, size_t len);

/* Writes a count in at most 9 characters: "123456789", "1234M", "5G". */
void fmt_count(uint64_t n, char *buf, size_t len);

/* Writes a rate with its unit: "950 ev/s", "12.5k ev/s", "1.2M B/s". */
void fmt_rate(double r, const char *unit, char *buf, size_t len);

/* The name of an event's kind (enum ev_kind): "enter", "exit", "thread", "context", "mark",
 * "fault", "fault-lr", "start", "stop", "unknown", "lost", "pad", "value", "trigger",
 * "sched", "name", "time"; "?" for none. */
const char *fmt_kind(unsigned kind);

/* The name of a ring's state (CYG_S_*): "RUNNING", "FROZEN", "FULL", "STOPPED". */
const char *fmt_state(unsigned s);

#endif
