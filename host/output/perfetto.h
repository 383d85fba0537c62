/* SPDX-License-Identifier: GPL-3.0-or-later */
/* perfetto.h - the trace as Perfetto's own protobuf format (perfetto_trace.proto: a Trace of
 * TracePackets), written as the call trees come, for export --format=perfetto (export.c
 * hands this writer every call when the format is chosen).
 *
 * Tracks: one process per input (a ProcessDescriptor: export_opts's pid, and its process name
 * when it has one; uuid 1 the first's); a thread track per context with an OS thread
 * (a ThreadDescriptor: tid, name), else a named track under the process (a firmware's tasks
 * and interrupts), named as the tree heads them (names_ctx_label). Each context's events are
 * a packet sequence of their own whose defaults give the track and an incremental clock (each
 * packet's timestamp the nanoseconds since the previous one), the functions' names (and with
 * dwarf their source locations) interned per sequence. Calls are SLICE_BEGIN/END pairs, a
 * wrapped call's arguments and return value debug annotations; marks, triggers, faults and
 * losses instant events. Calls entered before the trace end up on a track of their own ("...:
 * entered before the trace"), written outermost first once they all closed, in absolute time.
 * An RTOS trace's schedule: a "CPU" track whose slices are the running intervals, named after
 * the task, and a "...: blocked" track per task whose slices say what it waited for.
 *
 * Times are ns of the trace's own clock, or with export_opts.tb those of the merged inputs'
 * common clock (timebase.h); each sequence's clock is its own, so inputs do not mix.
 *
 * Memory: per context its stack and its interning table, which is cleared (the sequence's
 * state with it: SEQ_INCREMENTAL_STATE_CLEARED, its defaults and clock sent again) when it
 * holds PERFETTO_INTERN_MAX entries; the packets are written out every 64 KB. */
#ifndef PERFETTO_H
#define PERFETTO_H

#include <stdint.h>
#include <stdio.h>

#include "output/export.h"

#define PERFETTO_INTERN_MAX 4096u /* a sequence's interned entries before it is cleared */

struct perfetto;

/* A writer to out of what o says (its format is not looked at). NULL when out of memory. */
struct perfetto *perfetto_new(FILE *out, const struct export_opts *o);

/* As export_input: the next input is a process of its own (a new uuid, o's pid and name), its
 * contexts' tracks and sequences new; o's times (o->tb) go on in the same trace. */
void perfetto_input(struct perfetto *p, const struct export_opts *o);

/* The times that came before the common clock's 0 (o->tb, --offset) and were written as 0. */
uint64_t perfetto_early(const struct perfetto *p);

/* As export_sink: the sink of context ctx. NULL when out of memory. */
const struct tree_sink *perfetto_sink(struct perfetto *p, uint32_t ctx, uint64_t os_tid,
                                      int vfork);

/* As export_names. */
void perfetto_names(struct perfetto *p, const struct names *n);

/* As export_taskstat_span: a running or blocked interval of a context. */
void perfetto_span(struct perfetto *p, const struct taskstat_span *sp);

/* Writes what is left; 0, or -1 with what is wrong in err. */
int perfetto_end(struct perfetto *p, char *err, size_t errlen);

/* Frees the writer. NULL is fine. */
void perfetto_free(struct perfetto *p);

#endif
