/* SPDX-License-Identifier: GPL-3.0-or-later */
/* source.h - where the events come from, behind one interface: what the trace is (its ring's
 * description), its events one after the other, a new pass where the source can give one,
 * and what was skipped and decoded. One implementation per kind:
 *
 *   a dump file or a pull's memory image holding a ring: decoded where it lies, a wrapped
 *     ring from the middle, in bounded memory whatever its size (dec.h);
 *   a saved stream ("cygtrace live --save"): deframed and decoded pass after pass (sread.h);
 *   a live stream over a wire (serial, TCP, a file or pipe, RTT): bytes as they come, each
 *     read waiting at most the time given;
 *   a followed Linux ring (follow.h): the records written since the last look.
 *
 * Every command opens one and runs the pipeline (pipeline.h) over it. */
#ifndef SOURCE_H
#define SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "decode/dec.h"
#include "decode/sdec.h"
#include "decode/sframe.h"
#include "source/src.h"

struct source;
struct wire;
struct follow;

/* Holes in the slots a pass reads beyond this are not a dump's: refused (source_open_src). */
#define SOURCE_HOLES_MAX ((uint64_t)64 << 20)

/* source_next's "nothing more for now": a live source gave the events of one look at its
 * input (one read of the wire, the polls of a followed ring until one finds nothing); the
 * next call looks again, waiting up to source_set_wait's time for more. */
#define SOURCE_AGAIN (-2)

/* source_next's "the trace started over": a followed program ran anew, with a new ring that
 * source_describe says; before its first event. */
#define SOURCE_NEW (-3)

/* What a pass skipped and decoded: dec for a ring, fr and sd for a stream. */
struct source_stats {
    struct dec_stats dec;
    struct sframe_stats fr;
    struct sdec_stats sd;
};

/* Whether the pass st sums up found the trace's clock standing still (dec_times_stood): its
 * call events all at the same time, which *at gets. */
int source_clock_stood(const struct source_stats *st, uint64_t *at);

/* Opens the dump at path: a ring (or a RAM image holding one), else a saved stream. NULL with
 * "PATH: what is wrong" in err: not a regular file, neither a ring nor a stream (the ring's
 * reason when it holds no frame at all), or a ring whose slots are mostly holes (a sparse
 * file: more than SOURCE_HOLES_MAX bytes; reading them would be all the work). */
struct source *source_open_file(const char *path, char *err, size_t errlen);

/* The same over bytes already open (a dump pulled into memory: src_open_mem); takes src, even
 * on failure. */
struct source *source_open_src(struct src *src, char *err, size_t errlen);

/* Called with the bytes of a live stream as they are read, before they are decoded ("cygtrace
 * live --save" keeps them). */
typedef void (*source_tap)(void *arg, const void *buf, size_t len);

/* A live stream over w (taken: source_close closes it, even on failure here), its bytes given
 * to tap(arg, ...) too when tap is not NULL; described once its first description came. NULL
 * with "NAME: out of memory" in err. */
struct source *source_open_wire(struct wire *w, source_tap tap, void *arg, char *err,
                                size_t errlen);

/* The ring follow f follows (taken, even on failure), name (kept) for messages; a round of
 * source_next delivers round_max events at most, so that a caller's display stays live. NULL
 * with "NAME: out of memory" in err. */
struct source *source_open_follow(struct follow *f, const char *name, size_t round_max,
                                  char *err, size_t errlen);

/* How long a live stream's next look waits for bytes (0: not at all, -1: for ever; 0 at
 * open); nothing for the other sources. */
void source_set_wait(struct source *s, int wait_ms);

/* Gets the next event: 1; 0 at the end (a live source: the link ended, err may say how: "the
 * program exited", "the target stopped"); SOURCE_AGAIN, SOURCE_NEW (above); -1 with what is
 * wrong in err: "INPUT: read error" (a file), the link's own words ("device disappeared
 * (EIO)": the caller names the link, as its status line shows the text alone). */
int source_next(struct source *s, struct ev *e, char *err, size_t errlen);

/* What the trace is: the ring's control block, or what a stream's last description said
 * (head unknown: 0); NULL while a live stream has given none. */
const struct dec_ring *source_describe(const struct source *s);

/* Starts a new pass from the first event: 0, or -1 when out of memory or the source cannot
 * (a live one). */
int source_rewind(struct source *s);

/* Runs the rest of a ring's pass through dec_count: 0, or -1 on a read error or out of
 * memory; 1, having counted nothing, for a source that goes event by event (a stream). */
int source_count(struct source *s, struct dec_counts *c);

/* Makes the pass return the events of context id only, and skip what x (a scan's index) and
 * segs (the context's segments in it; both may be NULL) say holds none (dec_only); before
 * the pass's first source_next. A stream's pass returns every event still. */
void source_only(struct source *s, uint32_t id, const struct dec_index *x, const uint64_t *segs);

/* Makes a ring's pass return its PAD and TIME records too (dec_raw); before the pass's first
 * source_next. Nothing for the other sources. */
void source_raw(struct source *s);

/* Returns what the pass skipped and decoded so far. */
void source_stats(const struct source *s, struct source_stats *st);

/* Whether the events come as a stream's (frames: sframe and sdec statistics), not a ring's. */
int source_is_stream(const struct source *s);

/* Whether a dump file (a ring, a saved stream) is still what was opened (src_check): 0, or -1
 * with "PATH: what changed; what to do" in err. Every other source: 0. A command that read a
 * file asks at its end, and after a read error, which a file cut short gives. */
int source_check(struct source *s, char *err, size_t errlen);

/* Returns what was opened, for messages (a path, a pull's name, "/dev/ttyUSB0"). */
const char *source_name(const struct source *s);

/* Closes the source and what it took. NULL is fine. */
void source_close(struct source *s);

#endif
