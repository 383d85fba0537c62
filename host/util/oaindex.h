/* SPDX-License-Identifier: GPL-3.0-or-later */
/* oaindex.h - an open-addressing index: finds an element of the caller's array by its key.
 *
 * The index holds positions in that array (pos + 1; 0 is an empty slot) in a table whose size
 * is a power of two, kept at most half full and probed linearly. The caller keeps the elements
 * and their keys and says how to hash and compare them: the index works the same for a context
 * id, a pointer, a name or a pair of addresses. Nothing is ever removed (no user needs it, and
 * without removal a probe ends at the first empty slot). Inline, so that the callbacks of a
 * hot caller inline too. */
#ifndef OAINDEX_H
#define OAINDEX_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

struct oaindex {
    size_t *slot; /* pos + 1 of an element, 0 empty */
    size_t cap;   /* slots: a power of two, 0 before the first oaindex_reserve */
    size_t n;     /* positions held */
};

/* The hash of element pos's key (for the moves of a growing index). */
typedef uint64_t (*oaindex_hash_fn)(const void *arg, size_t pos);

/* Whether element pos has key. */
typedef int (*oaindex_match_fn)(const void *arg, size_t pos, const void *key);

/* A 64-bit key (an id, an address, a pointer) spread over the low bits the table uses. */
static inline uint64_t oaindex_hash_u64(uint64_t k)
{
    uint64_t h = k * UINT64_C(0x9e3779b97f4a7c15);

    return h ^ h >> 32;
}

/* A name's hash: FNV-1a, 64 bits. */
static inline uint64_t oaindex_hash_str(const char *s)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);

    while (*s)
        h = (h ^ (unsigned char)*s++) * UINT64_C(0x100000001b3);
    return h;
}

/* The slot of key (whose hash is h): it holds pos + 1 where an element has that key, 0 where
 * the key would go. NULL while the index has no table (nothing reserved yet). */
static inline size_t *oaindex_slot(const struct oaindex *x, uint64_t h, oaindex_match_fn match,
                                   const void *arg, const void *key)
{
    size_t i;

    if (!x->cap)
        return NULL;
    for (i = (size_t)h & (x->cap - 1); x->slot[i]; i = (i + 1) & (x->cap - 1))
        if (match(arg, x->slot[i] - 1, key))
            break;
    return &x->slot[i];
}

/* The position of the element with key (hash h), or SIZE_MAX when none has it. */
static inline size_t oaindex_find(const struct oaindex *x, uint64_t h, oaindex_match_fn match,
                                  const void *arg, const void *key)
{
    const size_t *s = oaindex_slot(x, h, match, arg, key);

    return s && *s ? *s - 1 : SIZE_MAX;
}

/* Makes room for one more position (the table doubles, from first slots, when it would be more
 * than half full): 0, or -1 when out of memory, the index unchanged. Slots found before are
 * stale after a call: find the slot again. */
static inline int oaindex_reserve(struct oaindex *x, size_t first, oaindex_hash_fn hash,
                                  const void *arg)
{
    size_t cap = x->cap ? 2 * x->cap : first, *slot;

    if (2 * (x->n + 1) <= x->cap)
        return 0;
    if (!(slot = calloc(cap, sizeof *slot)))
        return -1;
    for (size_t i = 0; i < x->cap; i++) {
        size_t k;

        if (!x->slot[i])
            continue;
        for (k = (size_t)hash(arg, x->slot[i] - 1) & (cap - 1); slot[k]; k = (k + 1) & (cap - 1))
            ;
        slot[k] = x->slot[i];
    }
    free(x->slot);
    x->slot = slot;
    x->cap = cap;
    return 0;
}

/* Puts element pos in the empty slot s that oaindex_slot gave after oaindex_reserve. */
static inline void oaindex_put(struct oaindex *x, size_t *s, size_t pos)
{
    *s = pos + 1;
    x->n++;
}

/* Frees the table (not the caller's elements); the index is empty again. */
static inline void oaindex_free(struct oaindex *x)
{
    free(x->slot);
    x->slot = NULL;
    x->cap = x->n = 0;
}

#endif
