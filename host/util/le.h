/* SPDX-License-Identifier: GPL-3.0-or-later */
/* le.h - little-endian fields of the format (every supported target is little-endian), read
 * and written byte by byte, whatever the host's own order. The one reader of the host: the
 * decoder's hot path reads its words through it, so the whole words of a little-endian host
 * are one load. */
#ifndef LE_H
#define LE_H

#include <stdint.h>
#include <string.h>

/* The n-byte (n <= 8) little-endian number at p. */
static inline uint64_t le_get(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (n == 8) {
        memcpy(&v, p, 8);
        return v;
    }
    if (n == 4) {
        uint32_t w;

        memcpy(&w, p, 4);
        return w;
    }
#endif
    while (n--)
        v = v << 8 | p[n];
    return v;
}

/* Writes the low n bytes of v at p, little-endian. */
static inline void le_put(uint8_t *p, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++, v >>= 8)
        p[i] = (uint8_t)v;
}

#endif
