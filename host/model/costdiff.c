/* SPDX-License-Identifier: GPL-3.0-or-later */
/* costdiff.c - two runs' costs joined by key (costdiff.h). */
#include "model/costdiff.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/oaindex.h"

static int cmp_row(const void *pa, const void *pb)
{
    const struct costdiff_row *a = pa, *b = pb;
    uint64_t da = a->delta < 0 ? -(uint64_t)a->delta : (uint64_t)a->delta;
    uint64_t db = b->delta < 0 ? -(uint64_t)b->delta : (uint64_t)b->delta;

    if (da != db)
        return da > db ? -1 : 1;
    return strcmp(a->key, b->key);
}

static uint64_t row_hash(const void *arg, size_t pos)
{
    const struct costdiff_row *r = arg;

    return oaindex_hash_str(r[pos].key);
}

static int row_match(const void *arg, size_t pos, const void *key)
{
    const struct costdiff_row *r = arg;

    return !strcmp(r[pos].key, key);
}

static void take(struct costdiff_row *r, int side, const struct costdiff_in *in)
{
    r->calls[side] = in->calls;
    r->total[side] = in->total;
    r->self[side] = in->self;
    r->sd[side] = in->sd;
    if (side)
        r->in_b = 1;
    else
        r->in_a = 1;
}

int costdiff_join(const struct costdiff_in *a, size_t na, const struct costdiff_in *b,
                  size_t nb, struct costdiff_row **out, size_t *n)
{
    struct costdiff_row *r = calloc(na + nb ? na + nb : 1, sizeof *r);
    struct oaindex ix = {0};
    size_t k = 0;

    if (!r)
        return -1;
    for (size_t i = 0; i < na + nb; i++) {
        const struct costdiff_in *in = i < na ? &a[i] : &b[i - na];
        uint64_t h = oaindex_hash_str(in->key);
        size_t pos = oaindex_find(&ix, h, row_match, r, in->key), *slot;

        if (pos == SIZE_MAX) {
            if (oaindex_reserve(&ix, 256, row_hash, r) < 0) {
                free(r);
                oaindex_free(&ix);
                return -1;
            }
            pos = k++;
            r[pos] = (struct costdiff_row){.key = in->key, .sd = {-1, -1}};
            slot = oaindex_slot(&ix, h, row_match, r, in->key);
            oaindex_put(&ix, slot, pos);
        }
        take(&r[pos], i >= na, in);
    }
    oaindex_free(&ix);
    for (size_t i = 0; i < k; i++) {
        uint64_t ta = r[i].total[0], tb = r[i].total[1];

        if (tb >= ta)
            r[i].delta = tb - ta > INT64_MAX ? INT64_MAX : (int64_t)(tb - ta);
        else
            r[i].delta = ta - tb > INT64_MAX ? -INT64_MAX : -(int64_t)(ta - tb);
        r[i].ratio = ta ? (double)tb / (double)ta : 0;
        r[i].noise = costdiff_spread(&r[i]) >= 0 &&
                     fabs((double)r[i].delta) <= costdiff_spread(&r[i]);
    }
    qsort(r, k, sizeof *r, cmp_row);
    *out = r;
    *n = k;
    return 0;
}

double costdiff_spread(const struct costdiff_row *r)
{
    double s = r->sd[0] > r->sd[1] ? r->sd[0] : r->sd[1];
    uint64_t c = r->calls[0] > r->calls[1] ? r->calls[0] : r->calls[1];

    if (r->calls[0] < 2 || r->calls[1] < 2 || r->sd[0] < 0 || r->sd[1] < 0)
        return -1;
    return s * sqrt((double)c);
}

int costdiff_offends(const struct costdiff_row *r, const struct costdiff_limit *lim)
{
    double d = (double)r->delta;

    if (r->delta <= 0 || r->noise || (uint64_t)r->delta < lim->floor)
        return 0;
    if (!lim->pct)
        return d > lim->value;
    return !r->total[0] || d * 100.0 > lim->value * (double)r->total[0];
}
