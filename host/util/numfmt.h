/* SPDX-License-Identifier: GPL-3.0-or-later */
/* numfmt.h - decimal digits without printf, for the decoders' hot paths (the tree's durations,
 * the exports' timestamps): two digits per division, from a table. */
#ifndef NUMFMT_H
#define NUMFMT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static const char numfmt_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* Writes v with at least min_digits digits (leading zeros) at buf, no terminator; returns the
 * length (at most 20, or min_digits when it is more). */
static inline size_t numfmt_u64(char *buf, uint64_t v, unsigned min_digits)
{
    char tmp[24];
    size_t n = sizeof tmp;

    if (v < 10 && min_digits <= 1) { /* the common short ones, straight */
        buf[0] = (char)('0' + v);
        return 1;
    }
    if (v < 100 && min_digits <= 2 && v >= 10) {
        memcpy(buf, numfmt_pairs + 2 * v, 2);
        return 2;
    }
    while (v >= 100) {
        unsigned d = (unsigned)(v % 100);

        v /= 100;
        n -= 2;
        memcpy(tmp + n, numfmt_pairs + 2 * d, 2);
    }
    if (v >= 10) {
        n -= 2;
        memcpy(tmp + n, numfmt_pairs + 2 * v, 2);
    } else {
        tmp[--n] = (char)('0' + v);
    }
    while (sizeof tmp - n < min_digits && n > 0)
        tmp[--n] = '0';
    memcpy(buf, tmp + n, sizeof tmp - n);
    return sizeof tmp - n;
}

/* Writes v (below 1000) as exactly three digits at buf. */
static inline void numfmt_3(char *buf, unsigned v)
{
    buf[0] = (char)('0' + v / 100);
    memcpy(buf + 1, numfmt_pairs + 2 * (v % 100), 2);
}

#endif
