/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hdr.h - what a ring is (struct dec_ring, dec.h): its control block parsed and checked, and
 * found in a RAM image; its control area taken. One validator holds the format's limits, for
 * a ring's control block and for a stream's description (sdec.c) alike: a description is the
 * control block in other words. */
#ifndef HDR_H
#define HDR_H

#include <stddef.h>
#include <stdint.h>

#include "decode/dec.h"
#include "source/src.h"

/* Checks the fields of r against the format's limits (word and record size, capacity, clock
 * width, build-id, state, chunk size): 0, or -1 with what is wrong in err ("control block:
 * capacity out of range"). */
int hdr_check(const struct dec_ring *r, char *err, size_t errlen);

/* Parses the control block in the len bytes at p: 0, or -1 with what is wrong in err, for the
 * caller to prefix with where the bytes lie ("not a cygtrace dump (no CYGTRACE control
 * block)"). */
int hdr_parse(const uint8_t *p, size_t len, struct dec_ring *r, char *err, size_t errlen);

/* Finds the first valid control block in a source (a dump starts with one; a RAM image holds
 * one somewhere, 4-byte aligned). Returns 0 and fills r, its control area too (hdr_ctrl_read),
 * or -1 with "NAME: what is wrong" in err (the first lookalike block's reason, which says more
 * than "no magic"). */
int hdr_locate(struct src *s, struct dec_ring *r, char *err, size_t errlen);

/* Takes the control area of ring r (version 3) from the have bytes at p, those of the source
 * from dec_ctrl_off(r) on (end: the source's size, for the message when they are too few):
 * sets r->ctrl_state and what goes with it. Nothing for versions 1 and 2. */
void hdr_ctrl_parse(struct dec_ring *r, const uint8_t *p, size_t have, uint64_t end);

/* Reads and takes the control area of ring r (version 3) from source s; -1 on a read error. */
int hdr_ctrl_read(struct src *s, struct dec_ring *r);

#endif
