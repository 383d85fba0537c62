/* SPDX-License-Identifier: GPL-3.0-or-later */
/* export.h - the trace in other tools' formats, written from the call trees (a struct
 * tree_sink per context, behind the filters):
 *   chrome     Chrome trace event JSON (Perfetto UI, chrome://tracing): B/E events per thread
 *              as they happen, so memory is the stack's depth; a call entered before the trace
 *              is an X event from the context's first event to its exit; calls that never
 *              returned end at the last event seen inside them; marks and faults are instant
 *              events. ts in microseconds (in ticks when the clock rate is unknown). A
 *              context's track is named as the tree heads it (names_ctx_label). The schedule of
 *              an RTOS trace (taskstat.h, export_taskstat_span): every running interval is
 *              an X event named after its context on a "CPU" track of its own (tid
 *              EXPORT_CPU_TID), every blocked one an X event on the context's track.
 *   folded     flamegraph.pl / speedscope lines "main;f;g N", N the stack's self time in
 *              ticks, summed per distinct stack: memory is one node per distinct stack.
 *   callgrind  a callgrind.out file (KCachegrind, callgrind_annotate): "events: Ticks", per
 *              function its source file and line (DWARF) and self cost, per caller and callee
 *              the calls and inclusive cost: memory is one entry per function and per
 *              caller-callee pair.
 *   perfetto  Perfetto's protobuf trace (perfetto.h, which export hands every call to).
 * A call's time is counted as fnstat counts it (see fnstat.h), so a function's folded self
 * times add up to report's self, and a function that does not recurse has report's total as
 * its callgrind inclusive cost. */
#ifndef EXPORT_H
#define EXPORT_H

#include <stdint.h>
#include <stdio.h>

#include "symbols/dwarf.h"
#include "symbols/names.h"
#include "symbols/sym.h"
#include "model/taskstat.h"
#include "model/timebase.h"
#include "model/tree.h"

/* The CPU track's tid: a 32-bit target's context ids are 24 bits wide, a thread index 16. */
#define EXPORT_CPU_TID (1u << 24)

/* EXPORT_SQLITE: an SQLite database, written by sqlout.h (cmd_export_sqlite.c), not here. */
enum export_format { EXPORT_CHROME, EXPORT_FOLDED, EXPORT_CALLGRIND, EXPORT_PERFETTO, EXPORT_SQLITE };

struct export_opts {
    enum export_format format;
    const struct sym_table *sym; /* may be NULL: addresses are written */
    uint64_t bias;               /* run-time minus link-time address */
    uint64_t hz;                 /* timestamp ticks per second; 0: unknown */
    uint32_t pid;                /* chrome's pid */
    unsigned word_bytes;         /* the ring's: chrome's tracks are named as the tree heads
                                    its contexts (names_ctx_label), "thread 2 (tid 77)" */
    struct dwarf_src *dwarf;     /* callgrind's source files and lines; NULL: "???"; perfetto's
                                    source locations (NULL: none) */
    const struct timebase *tb;   /* NULL: times are the trace's own; else chrome's ts and
                                    perfetto's times are timebase_ns's, the common clock of
                                    merged inputs */
    const char *process;         /* chrome, perfetto: the process's name (a merged input's
                                    DUMP; perfetto's single input: its ELF's base name), or
                                    NULL */
};

struct export;

/* A writer of format o->format to out. NULL when out of memory. */
struct export *export_new(FILE *out, const struct export_opts *o);

/* The writer goes on with the next of several inputs (merged into one trace, each a process:
 * chrome, perfetto), as o describes it (its format is the writer's): the contexts' sinks and tracks of
 * the input before stay as they are, none of its names carry over. */
void export_input(struct export *x, const struct export_opts *o);

/* Parses "chrome", "folded", "callgrind", "perfetto", "sqlite"; 0, or -1 when s is none. */
int export_parse_format(const char *s, enum export_format *f);

/* The sink for context ctx (os_tid: its OS thread id, 0 if unknown; vfork: a vfork child's,
 * os_tid its pid); one per context, valid while the writer lives. NULL when out of memory. */
const struct tree_sink *export_sink(struct export *x, uint32_t ctx, uint64_t os_tid, int vfork);

/* Names the contexts' tracks after n (may be NULL), and the objects they block on; before
 * their sinks are asked for. */
void export_names(struct export *x, const struct names *n);

/* Writes a running or blocked interval of a context (chrome; other formats ignore it): a
 * taskstat_span_fn, its arg the writer. */
void export_taskstat_span(void *arg, const struct taskstat_span *sp);

/* The times a format that has no negative ones (perfetto) wrote as 0: before the common
 * clock's 0 (export_opts.tb, --offset). */
uint64_t export_early(const struct export *x);

/* Writes what was gathered (folded, callgrind) or closes the JSON, after every tree finished;
 * 0, or -1 with what is wrong in err ("cannot write: No space left on device", "out of
 * memory"), which the caller prefixes with the output's name. */
int export_end(struct export *x, char *err, size_t errlen);

/* Frees the writer. NULL is fine. */
void export_free(struct export *x);

#endif
