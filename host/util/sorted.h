/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sorted.h - the search every address table does: in an array sorted by a 64-bit key (a start
 * address), the last element at or below a key. */
#ifndef SORTED_H
#define SORTED_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* How many leading elements of the array (n elements of size bytes, sorted by the uint64_t
 * at byte key_off of each) have a key at most k: the element at or before k is the one before
 * that position, and there is none when it is 0. O(log n). */
static inline size_t sorted_upto(const void *base, size_t n, size_t size, size_t key_off,
                                 uint64_t k)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t v;

        memcpy(&v, (const char *)base + mid * size + key_off, sizeof v);
        if (v <= k)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

#endif
