/* render.h - call tree renderers: the tree builder's calls in, text out.
 *
 * Three styles: "tree" (indented, with durations when the trace has timestamps), "etrace"
 * (etrace's format, repeats collapsed into "NAME (total: N times)") and "braces" (the "Poor
 * Man's Trace" format: "{ SITE->FN  caller:0xOFF->callee"). Each holds back at most one open
 * call and one run of repeated leaf calls: memory stays bounded. */
#ifndef RENDER_H
#define RENDER_H

#include <stdint.h>
#include <stdio.h>

#include "decode/ctrl.h"
#include "symbols/dwarf.h"
#include "symbols/names.h"
#include "symbols/sym.h"
#include "model/tree.h"

enum render_style { RENDER_TREE, RENDER_ETRACE, RENDER_BRACES };

struct render_opts {
    enum render_style style;
    unsigned max_depth;  /* show calls this many levels deep; 0: all */
    int collapse;        /* fold consecutive identical leaf calls */
    uint64_t ts_hz;      /* timestamp ticks per second; 0: unknown */
    int has_time;        /* the trace carries timestamps */
    unsigned addr_width; /* hex digits for addresses: 8 or 16 */
    unsigned show;       /* RENDER_SRCLINE, ...: tree and etrace styles only */
    struct dwarf_src *dwarf; /* for RENDER_SRCLINE and RENDER_SIGNATURES; NULL: not shown */
    const struct ctrl *ctrl; /* the ring's control area, to name the triggers that fired;
                                NULL: none (a version 1 or 2 ring, a stream) */
    const struct names *names; /* what contexts and kernel objects are called (the scheduler's
                                  lines, CONTEXT lines); NULL: none known */
};

#define RENDER_SRCLINE (1u << 0)    /* "decide() [demo.c:42] <- demo.c:60" */
#define RENDER_SIGNATURES (1u << 1) /* "decide(int i)" */
#define RENDER_FULL_PATH (1u << 2)  /* source files as the DWARF names them, not base names */
#define RENDER_COLOR (1u << 3)      /* ANSI colours: names, long durations, faults, notes */
#define RENDER_NO_ARGS (1u << 4)    /* wrapped calls without their arguments and return values */

struct render;

/* A renderer writing to out. sym may be NULL (addresses are printed); bias is the run-time
 * minus link-time address of the image. NULL when out of memory. */
struct render *render_new(FILE *out, const struct render_opts *o, const struct sym_table *sym,
                          uint64_t bias);

/* The sink to give the tree builder; valid while the renderer lives. */
const struct tree_sink *render_sink(struct render *r);

/* Prints the column header of the style, if it has one. */
void render_header(struct render *r);

/* Writes out the lines built so far (a live view's tail); the call and the run of leaf calls
 * held back stay held until the next event decides them. */
void render_flush(struct render *r);

/* Frees the renderer. NULL is fine. */
void render_free(struct render *r);

/* Writes "name+0xoff" (or "name", or "0xaddr" when unknown) for a run-time address. */
void render_addr(const struct sym_table *sym, uint64_t bias, uint64_t addr, char *buf,
                 size_t len);

/* Writes the line a fault record (and its LR record, or NULL) shows as: "*** HardFault at
 * fn+0x14, called from main+0x8", "*** signal 11 (SIGSEGV) at fn+0x4, address 0x0". */
void render_fault_text(const struct sym_table *sym, uint64_t bias, unsigned addr_width,
                       const struct ev *fault, const struct ev *lr, char *buf, size_t len);

/* What render_ctrl_name names functions with. */
struct render_namer {
    const struct sym_table *sym; /* may be NULL */
    uint64_t bias;
    uint64_t thumb;              /* 1 on a 32-bit target: bit 0 of an address is ARM's Thumb
                                    bit, which the control area may keep */
    char buf[256];
};

/* A ctrl_name_fn over a struct render_namer: "name" or "name+0x4" for a run-time address,
 * NULL when the ELF does not know it (ctrl.c then shows it in hex). */
const char *render_ctrl_name(void *arg, uint64_t addr);

/* Writes what a trigger record (EV_TRIGGER) says, from c (the ring's control area, may be
 * NULL) when it names the trigger: "trigger freeze@boom+10 fired" (and the mark's value for a
 * freeze at a mark), else "trigger 2 (freeze) fired at boom". */
void render_trigger_text(const struct render_namer *nm, const struct ctrl *c,
                         const struct ev *e, char *buf, size_t len);

/* Prints what the control area of ring r says was in force (the triggers, the filters, which
 * trigger fired: ctrl_describe), each line starting with prefix; nothing when r has none or
 * nothing was armed. Returns the lines printed. */
unsigned render_ctrl_notes(FILE *f, const char *prefix, const struct dec_ring *r,
                           const struct sym_table *sym);

/* Writes a mark's line without its "# ": "mark 7 = 0x2a", "mark 7 class 3 = 0x2a". */
void render_mark_text(const struct ev *e, char *buf, size_t len);

/* The name context id goes by: its own (names), else the function its handle starts, when it
 * is one (an interrupt's context: its handler; the handle names gives, else handle), else
 * NULL. buf (len bytes) may hold the result. */
const char *render_ctx_name(const struct names *n, const struct sym_table *sym, uint64_t bias,
                            uint32_t id, uint64_t handle, char *buf, size_t len);

/* Writes what a scheduler record (EV_SCHED) says, without a prefix: "blocked on queue "jobs"
 * (receive)", "delay 10 ticks", "blocked on a notification", "suspended", "wakes consumer",
 * "woken by TIMER0_IRQHandler" (n, sym may be NULL: "context 3", "semaphore 0x20001234"). */
void render_sched_text(const struct names *n, const struct sym_table *sym, uint64_t bias,
                       const struct ev *e, char *buf, size_t len);

/* Writes a duration in ticks as "12.345 us" (ms, s) when hz is known, else "N ticks"; len
 * must be 32 or more. */
void render_duration(uint64_t ticks, uint64_t hz, char *buf, size_t len);

#endif
