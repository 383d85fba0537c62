/* SPDX-License-Identifier: MIT */
/* cobs.h - Consistent Overhead Byte Stuffing: a block with no zero byte, so that 0x00 can
 * delimit frames on a byte stream (Cheshire and Baker, 1999). Freestanding C99. */
#ifndef COBS_H
#define COBS_H

#include <stddef.h>
#include <stdint.h>

/* Encodes the n bytes at buf + 1 (n <= 254) in place into the COBS block buf[0..n]; returns
 * n + 1, the block's length. The caller appends the 0x00 delimiter. */
size_t cobs_encode_short(uint8_t *buf, size_t n);

/* Encodes len bytes of src (any length) into dst, which holds len + len / 254 + 1 bytes;
 * returns the block's length. No delimiter. */
size_t cobs_encode(const uint8_t *src, size_t len, uint8_t *dst);

/* Decodes a COBS block of len bytes (no delimiter) into dst, which holds len bytes; returns
 * the decoded length, or -1 when the block is malformed (a zero byte, or a code that points
 * past its end). */
long cobs_decode(const uint8_t *src, size_t len, uint8_t *dst);

#endif
