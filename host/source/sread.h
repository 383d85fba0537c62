/* sread.h - a saved stream (the bytes "cygtrace live --save" kept) read back as events, one
 * pass after another, in bounded memory: the deframer and the stream decoder over a source. */
#ifndef SREAD_H
#define SREAD_H

#include "decode/dec.h"
#include "decode/sdec.h"
#include "decode/sframe.h"
#include "source/src.h"

struct sread;

/* Looks for a stream in the first bytes of s (up to 64 KB): 0 and *d filled from its first
 * description frame, or -1 with *why set to a static one-line reason ("no stream frame", "no
 * description frame"). */
int sread_probe(struct src *s, struct sdec_desc *d, const char **why);

/* Starts a pass over the whole stream of s (which stays the caller's); NULL when out of
 * memory. */
struct sread *sread_open(struct src *s);

/* Gets the next event: 1, or 0 at the end of the stream, or -1 on a read error. */
int sread_next(struct sread *r, struct ev *e);

/* Returns the deframer's and the decoder's counters so far. */
void sread_get_stats(const struct sread *r, struct sframe_stats *fs, struct sdec_stats *ds);

/* Ends the pass. NULL is fine. */
void sread_close(struct sread *r);

#endif
