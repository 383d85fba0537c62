/* SPDX-License-Identifier: GPL-3.0-or-later */
/* follow.h - follows the ring of a Linux program while it runs (the file its runtime maps,
 * CYGTRACE_OUT): each poll decodes the records written since the last one, as the firmware's
 * drain would, from the shared mapping. etrace's two-terminal use, without a FIFO in the way.
 *
 * Records are validated as dec.c validates them (the lap bit); a slot reserved but not yet
 * written stops the poll there until the next one, unless the writer is already half a ring
 * ahead (then it is skipped and counted lost). When the writer laps the reader, the records it
 * overwrote are reported as one EV_LOST (EV_LOST_TARGET) event where they were, and so are
 * the events the runtime counted as dropped (stop mode, a full ring). A program that starts
 * again (a new ring in the file) starts the follow over, with a note. */
#ifndef FOLLOW_H
#define FOLLOW_H

#include <stddef.h>
#include <stdint.h>

#include "decode/dec.h"

struct follow;

/* Called with each event. */
typedef void (*follow_fn)(void *arg, const struct ev *e);

/* Opens the ring file at path; NULL with a one-line reason in err ("no such file", "empty
 * file", "not a cygtrace dump ..."). from_start: begin with the ring's first record (those
 * it no longer holds come as one EV_LOST), else with the records written from now on. The
 * first call installs a SIGBUS handler (it hands on every SIGBUS that is not ours), so that a
 * file cut short under the mapping is a new run, not a crash. */
struct follow *follow_open(const char *path, int from_start, char *err, size_t errlen);

/* Delivers up to max events written since the last poll to fn(arg, e). Returns the events
 * delivered (0: nothing new), or -1 with a reason in err when the file went away or no longer
 * holds a ring (for 3 s: a new run sets its ring up in a millisecond). */
long follow_poll(struct follow *f, follow_fn fn, void *arg, size_t max, char *err,
                 size_t errlen);

/* The control block as last read (state, pid, clock, build-id, lost). */
const struct dec_ring *follow_ring(const struct follow *f);

/* Chunked rings (FORMAT.md section 4): the slots passed over that hold no event: PAD records,
 * the unused ends of chunks their threads left, and the slots of chunks still waited for. With
 * the events read and the records lost they add up to head. */
void follow_slots(const struct follow *f, uint64_t *padding, uint64_t *unfilled,
                  uint64_t *pending);

/* Returns 1 once the ring was started over by a new run of the program since the last call,
 * else 0. The poll that finds a new run delivers nothing, so that a caller who asks this
 * before each poll starts afresh before the new run's first event. */
int follow_restarted(struct follow *f);

/* Unmaps and closes. NULL is fine. */
void follow_close(struct follow *f);

#endif
