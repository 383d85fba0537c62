/* ctxtab.c - per-context entries of the tree sinks (ctxtab.h). */
#include "model/ctxtab.h"

#include <stdlib.h>

void *ctxtab_find(struct ctxtab *t, uint32_t id)
{
    if (t->last < t->n && t->id[t->last] == id)
        return t->v[t->last];
    for (unsigned i = 0; i < t->n; i++)
        if (t->id[i] == id)
            return t->v[t->last = i];
    return NULL;
}

void *ctxtab_add(struct ctxtab *t, uint32_t id, size_t size)
{
    void *e;

    if (t->n == t->cap) {
        unsigned cap = t->cap ? t->cap * 2 : 8;
        void **v = realloc(t->v, cap * sizeof *v);
        uint32_t *ids;

        if (!v)
            return NULL;
        t->v = v;
        if (!(ids = realloc(t->id, cap * sizeof *ids)))
            return NULL;
        t->id = ids;
        t->cap = cap;
    }
    if (!(e = calloc(1, size)))
        return NULL;
    t->v[t->n] = e;
    t->id[t->n] = id;
    t->last = t->n++;
    return e;
}

void ctxtab_free(struct ctxtab *t)
{
    for (unsigned i = 0; i < t->n; i++)
        free(t->v[i]);
    free(t->v);
    free(t->id);
    *t = (struct ctxtab){0};
}
