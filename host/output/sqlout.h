/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sqlout.h - the trace as tables of an SQLite database (export --format=sqlite), written from
 * the call trees (a struct tree_sink per context, behind the filters) as calls end: memory is
 * the stacks' depth and one entry per function, whatever the trace's size.
 *
 * A database holds any number of traces, each with its id (the column trace of every table):
 *   traces       one row per export: its inputs, build-id, clock rate, time unit, counts
 *   contexts     threads (Linux), or a firmware's tasks, interrupts and other contexts, named
 *   functions    per trace, each function called: name, link-time address, source file, line
 *   calls        one row per call: context, depth, function, start, duration, self time,
 *                parent call, how it ended; times counted as fnstat counts them (fnstat.h), so
 *                a function's self times add up to report's self
 *   call_values  a wrapped call's arguments and return value, written as C
 *   marks        cygtrace_mark() records, with the call open at the time
 *   faults       faults and fired triggers, with their text as the tree shows it
 * Times are nanoseconds when the trace says its clock rate, else clock ticks; traces.time_unit
 * says which ('ns', 'ticks', or NULL without timestamps, the times being NULL then). Traces
 * exported together (several inputs, or --offset) have their times on one clock
 * (sqlout_opts.tb): traces.clock says 'host-monotonic' for a trace mapped onto the host's
 * CLOCK_MONOTONIC, 'own' for one on its own clock; traces.offset the ns --offset added. Plain
 * INTEGER and TEXT columns: the tables read the same in DuckDB or any SQL engine.
 * PRAGMA application_id marks the file as cygtrace's (SQLOUT_APP_ID), user_version is the
 * schema's version (SQLOUT_SCHEMA). */
#ifndef SQLOUT_H
#define SQLOUT_H

#include <stddef.h>
#include <stdint.h>

#include "decode/ctrl.h"
#include "model/timebase.h"
#include "model/tree.h"
#include "symbols/dwarf.h"
#include "symbols/names.h"
#include "symbols/sym.h"

#define SQLOUT_APP_ID 0x43594754 /* "CYGT" */
#define SQLOUT_SCHEMA 2          /* 2: traces.clock and .offset */
#define SQLOUT_BATCH 10000u      /* rows per transaction while a new database is written */

/* What the traces row says, and what names the rows. */
struct sqlout_opts {
    const struct sym_table *sym; /* may be NULL: functions are named by address */
    uint64_t bias;               /* run-time minus link-time address */
    uint64_t hz;                 /* timestamp ticks per second; 0: unknown (times in ticks) */
    int timestamps;              /* the trace has timestamps (else every time is NULL) */
    unsigned word_bytes;         /* the ring's: contexts are named as the tree heads them */
    const struct names *names;   /* may be NULL */
    const struct ctrl *ctrl;     /* the ring's control area (names the triggers), or NULL */
    struct dwarf_src *dwarf;     /* functions' source files and lines; NULL: none */
    const char *elf, *dump;      /* as given (the traces row) */
    const char *build_id;        /* hex, or NULL */
    unsigned machine;            /* ELF e_machine */
    uint32_t pid;
    const char *state;         /* the ring's state ("FROZEN"), or NULL */
    uint64_t lost;             /* events the target dropped */
    const struct timebase *tb; /* NULL: times are the trace's own; else timebase_ns's, the
                                  common clock of several traces (traces.clock, .offset) */
};

struct sqlout;

/* Opens the database at path for a new trace. new_db: path is a fresh (empty) file to create
 * the tables in, written in batches of SQLOUT_BATCH rows with no journal (the caller renames it
 * into place once complete); else path is an existing cygtrace database the trace is added to
 * in one transaction (an error or a kill leaves it as it was). NULL with a one-line reason in
 * err: "not a cygtrace database", "written by a newer cygtrace (schema 2)", SQLite's own. */
struct sqlout *sqlout_open(const char *path, int new_db, const struct sqlout_opts *o, char *err,
                           size_t errlen);

/* Ends the trace written (as sqlout_end, without the commit) and begins the next one, as o
 * says, in the same transaction (a new database: batch): its own id, its rows. 0, or -1
 * with the reason in err. */
int sqlout_next(struct sqlout *s, const struct sqlout_opts *o, char *err, size_t errlen);

/* Whether the file at path is a database of cygtrace's (its application_id): 1 yes, 0 no
 * (another SQLite database, or no database at all), with the reason in err. */
int sqlout_is_ours(const char *path, char *err, size_t errlen);

/* The sink for context ctx (os_tid: its OS thread id, 0 if unknown; vfork: a vfork child's);
 * one per context, valid while the writer lives. NULL when out of memory or the write
 * failed. */
const struct tree_sink *sqlout_sink(struct sqlout *s, uint32_t ctx, uint64_t os_tid, int vfork);

/* The trace's id in the database. */
int64_t sqlout_trace(const struct sqlout *s);

/* The calls written so far. */
uint64_t sqlout_calls(const struct sqlout *s);

/* After every tree finished: the traces row's counts, parents that name no written call set
 * to NULL, the indexes, the last commit. 0, or -1 with the reason in err. */
int sqlout_end(struct sqlout *s, char *err, size_t errlen);

/* Closes the database (what was not ended is rolled back); frees s. NULL is fine. */
void sqlout_free(struct sqlout *s);

#endif
