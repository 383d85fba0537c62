/* le.h - little-endian fields of the format (every supported target is little-endian), read
 * and written byte by byte, whatever the host's own order. */
#ifndef LE_H
#define LE_H

#include <stdint.h>

static inline uint64_t le_get(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;

    while (n--)
        v = v << 8 | p[n];
    return v;
}

static inline void le_put(uint8_t *p, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++, v >>= 8)
        p[i] = (uint8_t)v;
}

#endif
