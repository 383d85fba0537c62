/* SPDX-License-Identifier: GPL-3.0-or-later */
/* render.h - call tree renderers: the tree builder's calls in, text out.
 *
 * Three styles: "tree" (indented, with durations when the trace has timestamps), "etrace"
 * (etrace's format, repeats collapsed into "NAME (total: N times)") and "braces" (the "Poor
 * Man's Trace" format: "{ SITE->FN  caller:0xOFF->callee"). Each holds back at most one open
 * call and one run of repeated leaf calls: memory stays bounded. What a name, a duration or a
 * record says is fmt.h's, which the other outputs share. */
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
    uint64_t tid;        /* RENDER_TID's column: the context's OS thread id, else its id */
};

#define RENDER_SRCLINE (1u << 0)    /* "decide() [demo.c:42] <- demo.c:60" */
#define RENDER_SIGNATURES (1u << 1) /* "decide(int i)" */
#define RENDER_FULL_PATH (1u << 2)  /* source files as the DWARF names them, not base names */
#define RENDER_COLOR (1u << 3)      /* ANSI colours: names, long durations, faults, notes */
#define RENDER_NO_ARGS (1u << 4)    /* wrapped calls without their arguments and return values */
/* Tree style only, as uftrace replay -f time,tid: before the duration, a column with each
 * line's time on the trace's clock ("12345.000123456" s, or ticks when its rate is unknown;
 * a call's line its entry, a "}" line its exit), and one with the line's thread: "[  7739]"
 * (render_opts.tid). */
#define RENDER_TIME (1u << 5)
#define RENDER_TID (1u << 6)

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
 * held back stay held until the next event decides them. 0, or -1 when the output could not
 * be written (errno says why). */
int render_flush(struct render *r);

/* Frees the renderer. NULL is fine. */
void render_free(struct render *r);

#endif
