/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ctxtab.c - per-context entries of the tree sinks (ctxtab.h). */
#include "model/ctxtab.h"

#include <stdlib.h>

#include "util/vec.h"

static uint64_t hash_at(const void *arg, size_t pos)
{
    const struct ctxtab *t = arg;

    return oaindex_hash_u64(t->id[pos]);
}

static int id_at(const void *arg, size_t pos, const void *key)
{
    const struct ctxtab *t = arg;

    return t->id[pos] == *(const uint32_t *)key;
}

void *ctxtab_find(struct ctxtab *t, uint32_t id)
{
    size_t pos;

    if (t->last < t->n && t->id[t->last] == id)
        return t->v[t->last];
    pos = oaindex_find(&t->index, oaindex_hash_u64(id), id_at, t, &id);
    if (pos == SIZE_MAX)
        return NULL;
    t->last = (unsigned)pos;
    return t->v[pos];
}

void *ctxtab_add(struct ctxtab *t, uint32_t id, size_t size)
{
    size_t *slot;
    void *e;

    if (vec_grow(&t->v, &t->v_cap, t->n, sizeof *t->v, 8) < 0 ||
        vec_grow(&t->id, &t->id_cap, t->n, sizeof *t->id, 8) < 0 ||
        oaindex_reserve(&t->index, 16, hash_at, t) < 0 ||
        !(slot = oaindex_slot(&t->index, oaindex_hash_u64(id), id_at, t, &id)) ||
        !(e = calloc(1, size)))
        return NULL;
    t->v[t->n] = e;
    t->id[t->n] = id;
    oaindex_put(&t->index, slot, t->n);
    t->last = t->n++;
    return e;
}

void ctxtab_free(struct ctxtab *t)
{
    for (unsigned i = 0; i < t->n; i++)
        free(t->v[i]);
    free(t->v);
    free(t->id);
    oaindex_free(&t->index);
    *t = (struct ctxtab){0};
}
