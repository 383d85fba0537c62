/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sread.h - stream bytes read as events, in bounded memory: the deframer and the stream
 * decoder over a saved stream (the bytes "cygtrace live --save" kept: pass after pass) or
 * over what a live link gives. */
#ifndef SREAD_H
#define SREAD_H

#include "decode/dec.h"
#include "decode/sdec.h"
#include "decode/sframe.h"
#include "source/src.h"

struct sread;

/* sread_probe's failure when the bytes hold no stream frame at all: not a stream (the caller
 * may know better what they are). */
#define SREAD_ENOFRAME (-2)

/* Looks for a stream in the first bytes of s (up to 64 KB): 0 and *d filled from its first
 * description frame; SREAD_ENOFRAME, or -1, with "NAME: what is wrong" in err ("no stream
 * frame", "no description frame", "read error"). */
int sread_probe(struct src *s, struct sdec_desc *d, char *err, size_t errlen);

/* Gives up to len bytes of the stream into buf: how many (> 0); 0 at the end (err may say
 * how it ended); SREAD_AGAIN when none came in the time a live link waits; -1 with
 * "INPUT: what is wrong" in err. */
typedef long (*sread_fill)(void *arg, uint8_t *buf, size_t len, char *err, size_t errlen);

#define SREAD_AGAIN (-2)

/* Starts reading the stream that fill(arg, ...) gives; NULL when out of memory. */
struct sread *sread_open_fill(sread_fill fill, void *arg);

/* Starts a pass over the whole stream of s (which stays the caller's); NULL when out of
 * memory. */
struct sread *sread_open(struct src *s);

/* Gets the next event: 1; or what the fill gave when the bytes it gave before hold no more
 * events: 0 at the end, SREAD_AGAIN, -1 with err set. */
int sread_next(struct sread *r, struct ev *e, char *err, size_t errlen);

/* The stream's last description so far, or NULL before the first. */
const struct sdec_desc *sread_desc(const struct sread *r);

/* Returns the deframer's and the decoder's counters so far. */
void sread_get_stats(const struct sread *r, struct sframe_stats *fs, struct sdec_stats *ds);

/* Gives the host time frames of a saved stream to fn(arg, ...) as the pass meets them
 * (sdec_on_host). */
void sread_on_host(struct sread *r, sdec_host_fn fn, void *arg);

/* Ends the pass. NULL is fine. */
void sread_close(struct sread *r);

#endif
