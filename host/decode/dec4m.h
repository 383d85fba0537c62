/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dec4m.h - version 4 rings of 32-bit targets (docs/FORMAT.md section 14): one 32-bit word an
 * event. Their control block is parsed and checked here (hdr.c calls in), and the ring is read
 * by rewriting it, slot for slot, into version 1/3 records of 8 bytes in memory, which the rest
 * of the decoder reads as it reads any other ring: a call record with its whole address and its
 * time unwrapped, a special's header as that special and its more words as PAD records, a slot
 * that holds no record of its lap (and a more word no header took) as a slot never written. */
#ifndef DEC4M_H
#define DEC4M_H

#include <stddef.h>
#include <stdint.h>

#include "decode/dec.h"
#include "source/src.h"

/* Whether the control block at p, of version version, is one this file reads (version 4 with
 * 4-byte words). */
int dec4m_version(const uint8_t *p, unsigned version);

/* Takes the version 4 fields (rec4, text_base) of the block at p into r, when it is one. */
void dec4m_parse(const uint8_t *p, struct dec_ring *r);

/* Whether r is a version 4 ring of 4-byte words, not yet rewritten. */
int dec4m_ring(const struct dec_ring *r);

/* What is wrong with r's fields, or NULL. */
const char *dec4m_check(const struct dec_ring *r);

/* Whether a ring of version 3 or later has a control area after its records: a version 4 one
 * only with CYG4_AREA. */
int dec4m_has_area(const struct dec_ring *r);

/* Rewrites ring r of source s (dec4m_ring) into a source in memory that holds an equivalent
 * ring of 8-byte records, and fills *out with its description (version 4, expanded 4, its
 * counters as r's). NULL with "NAME: why" in err on a read error or no memory. */
struct src *dec4m_expand(struct src *s, const struct dec_ring *r, struct dec_ring *out, char *err,
                         size_t errlen);

#endif
