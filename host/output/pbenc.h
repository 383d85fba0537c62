/* SPDX-License-Identifier: GPL-3.0-or-later */
/* pbenc.h - a tiny protocol buffers writer: fields appended to a growing byte buffer, nested
 * messages closed by back-patching their length. A nested message starts with one byte
 * reserved for its length; at its end a length of 128 or more moves the message's bytes up to
 * make room for the longer varint (messages are small: the move is cheap, and nothing is
 * counted twice). The caller writes the buffer out between top-level messages (pbenc_flush),
 * so memory is the largest message, never the stream. Out of memory is sticky: the writes
 * that follow do nothing and pbenc_flush fails. Wire types: varint (0) and length-delimited
 * (2); signed fields are written as protobuf's int32/int64 are (two's complement, 10 bytes
 * when negative), not zigzag. */
#ifndef PBENC_H
#define PBENC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PBENC_DEPTH 16 /* nested messages open at once */

struct pbenc {
    uint8_t *buf;
    size_t n, cap;
    size_t open[PBENC_DEPTH]; /* where each open message's length byte is */
    unsigned depth;
    int failed; /* out of memory, or nested deeper than PBENC_DEPTH */
};

/* Writes v as a varint into p (10 bytes at most); returns how many bytes. */
size_t pbenc_put_varint(uint8_t *p, uint64_t v);

/* The bytes of v as a varint (1 to 10). */
unsigned pbenc_varint_size(uint64_t v);

/* An empty buffer (nothing allocated yet). */
void pbenc_init(struct pbenc *b);

/* Appends field's varint v (uint32/64, int32/64, bool, enum). */
void pbenc_varint(struct pbenc *b, unsigned field, uint64_t v);

/* Appends field's n bytes at p (bytes, string, a message already encoded). */
void pbenc_bytes(struct pbenc *b, unsigned field, const void *p, size_t n);

/* Appends field's string s (its strlen). */
void pbenc_string(struct pbenc *b, unsigned field, const char *s);

/* Opens field's nested message; the fields until the matching pbenc_end are its own. */
void pbenc_begin(struct pbenc *b, unsigned field);

/* Closes the message pbenc_begin opened last, its length written. */
void pbenc_end(struct pbenc *b);

/* Writes what the buffer holds to f and empties it (no message may be open); 0, or -1 when a
 * write failed or memory ran out before (what was lost cannot be written). */
int pbenc_flush(struct pbenc *b, FILE *f);

/* Frees the buffer. */
void pbenc_free(struct pbenc *b);

#endif
