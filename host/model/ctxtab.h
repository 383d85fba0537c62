/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ctxtab.h - the per-context entries a tree sink keeps (one for each thread or context id of a
 * trace): found by id through a hash index (a crafted trace may hold hundreds of thousands of
 * ids), the last one found first (events come in runs of one context), and added zeroed. */
#ifndef CTXTAB_H
#define CTXTAB_H

#include <stddef.h>
#include <stdint.h>

#include "util/oaindex.h"

struct ctxtab {
    void **v;          /* the entries, in the order they were added */
    uint32_t *id;      /* their ids */
    unsigned n;
    size_t v_cap, id_cap; /* allocated, of v and of id */
    unsigned last;     /* the entry found last */
    struct oaindex index; /* id -> position in v */
};

/* The entry of id, or NULL when the table has none. */
void *ctxtab_find(struct ctxtab *t, uint32_t id);

/* Adds a zeroed entry of size bytes for id (which the table does not have); NULL when out of
 * memory. */
void *ctxtab_add(struct ctxtab *t, uint32_t id, size_t size);

/* Frees the entries and the table (the caller has freed what the entries point to). */
void ctxtab_free(struct ctxtab *t);

#endif
