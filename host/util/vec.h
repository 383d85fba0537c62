/* SPDX-License-Identifier: GPL-3.0-or-later */
/* vec.h - arrays that grow by doubling: the one way every module makes room for one more, or
 * for a level of a stack reached at any depth. */
#ifndef VEC_H
#define VEC_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Reallocates the array *pp (a pointer to the array's pointer) to c elements of size bytes:
 * 0, or -1 when out of memory, the array unchanged. */
static inline int vec_resize(void *pp, size_t c, size_t size)
{
    void *p, *q;

    if (c > SIZE_MAX / size)
        return -1;
    memcpy(&p, pp, sizeof p); /* pp is a T **: no cast to void ** (aliasing) */
    if (!(q = realloc(p, c * size)))
        return -1;
    memcpy(pp, &q, sizeof q);
    return 0;
}

/* Makes room for one more element in the array *pp (n used, *cap allocated, size bytes each):
 * it doubles, starting at first elements. 0, or -1 when out of memory, the array unchanged. */
static inline int vec_grow(void *pp, size_t *cap, size_t n, size_t size, size_t first)
{
    size_t c = *cap ? *cap * 2 : first;

    if (n < *cap)
        return 0;
    if (vec_resize(pp, c, size) < 0)
        return -1;
    *cap = c;
    return 0;
}

/* Makes room for element i in the array *pp (*cap allocated, size bytes each): it doubles,
 * starting at first elements, until i fits; the new elements are zeroed. 0, or -1 when out of
 * memory, the array unchanged. */
static inline int vec_reach(void *pp, size_t *cap, size_t i, size_t size, size_t first)
{
    size_t c = *cap ? *cap : first;
    char *p;

    if (i < *cap)
        return 0;
    while (c <= i) {
        if (c > SIZE_MAX / 2)
            return -1;
        c *= 2;
    }
    if (vec_resize(pp, c, size) < 0)
        return -1;
    memcpy(&p, pp, sizeof p);
    memset(p + *cap * size, 0, (c - *cap) * size);
    *cap = c;
    return 0;
}

#endif
