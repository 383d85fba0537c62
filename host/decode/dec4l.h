/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dec4l.h - version 4 rings of 64-bit Linux (docs/FORMAT.md section 15): one 8-byte word a
 * record, read through a view of the source as the version 3 ring they stand for. */
#ifndef DEC4L_H
#define DEC4L_H

#include <stddef.h>
#include <stdint.h>

#include "source/src.h"

/* Whether the len bytes at p start a version 4 control block of a 64-bit target. */
int dec4l_is(const uint8_t *p, size_t len);

/* When the source starts with a version 4 ring of 64-bit Linux: puts the view in front of it
 * and returns 1 (the source then reads as a version 3 ring); 0 when it does not; -1 with why
 * when the block is one, but not one this host reads. */
int dec4l_attach(struct src *s, char *why, size_t whylen);

/* The n words of one chunk (w, as numbers), the first of sequence number seq0, as n version 3
 * records of 16 bytes into out; regions: the ring's region table. */
void dec4l_chunk(const uint64_t *w, unsigned n, uint64_t seq0, unsigned cap_log2,
                 const uint64_t *regions, uint8_t *out);

/* The 128 bytes of a version 4 block at raw as the version 3 block they stand for (sealed
 * again) into out, which may be raw. */
void dec4l_block(const uint8_t *raw, uint8_t *out);

/* Records [seq, seq + n) of a version 4 ring whose words are at recs and region table at table
 * (a live mapping: each word read once, whole, the chunks read whole) as version 3 records of
 * 16 bytes into out. */
void dec4l_copy(const uint8_t *recs, const uint8_t *table, unsigned cap_log2,
                unsigned chunk_log2, uint64_t seq, size_t n, uint8_t *out);

#endif
