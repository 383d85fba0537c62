/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sframe.h - the stream deframer: link bytes in, checked frame payloads out.
 *
 * Splits the byte stream at 0x00 delimiters, decodes COBS and checks the CRC-32 (cyg_stream.h).
 * A frame that fails either is dropped whole and counted. Bytes before the first delimiter
 * (a host that joined mid-frame) are counted as skipped unless they make a whole frame whose
 * COBS and CRC check (a stream read from its first byte). Memory: one frame. */
#ifndef SFRAME_H
#define SFRAME_H

#include <stddef.h>
#include <stdint.h>

struct sframe_stats {
    uint64_t bytes;    /* bytes fed */
    uint64_t frames;   /* good frames delivered */
    uint64_t bad;      /* frames dropped: COBS malformed, CRC wrong, too long or too short */
    uint64_t skipped;  /* bytes dropped before the first delimiter */
};

/* Called with each good frame's payload (CRC stripped); len >= 1. */
typedef void (*sframe_fn)(void *arg, const uint8_t *payload, size_t len);

struct sframe;

/* A deframer that calls fn(arg, ...) for each good frame; NULL when out of memory. */
struct sframe *sframe_new(sframe_fn fn, void *arg);

/* Feeds n bytes from the link. */
void sframe_feed(struct sframe *f, const uint8_t *p, size_t n);

/* Returns the counters. */
void sframe_get_stats(const struct sframe *f, struct sframe_stats *st);

/* The longest host time frame on the wire: 1 + 10 varint bytes, the CRC, COBS and 0x00. */
#define SFRAME_HOST_MAX 24u

/* Writes a host time frame (CYG_FR_HOST: ns, the host's CLOCK_MONOTONIC) as it goes into a
 * saved stream, delimiter included; returns its length. */
size_t sframe_host(uint8_t out[SFRAME_HOST_MAX], int64_t ns);

/* Frees the deframer. NULL is fine. */
void sframe_free(struct sframe *f);

#endif
