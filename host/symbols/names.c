/* SPDX-License-Identifier: GPL-3.0-or-later */
/* names.c - the names of contexts and kernel objects: two tables indexed by key (util/oaindex.h,
 * bounded by NAMES_CAP keys each), and the NAME words of each writing context being put back
 * together. */
#include "symbols/names.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cyg_format.h"
#include "decode/dec.h"
#include "symbols/sym.h"
#include "util/oaindex.h"
#include "util/vec.h"

#define PENDING 64u /* names in flight at once (writers preempted mid-name), at most */

struct ent {
    uint64_t key;    /* a context id, or an object's handle */
    uint64_t handle; /* a context's (names_set_handle) */
    uint8_t named;
    uint8_t type;    /* an object's CYG_OBJ_* */
    uint8_t sym_tried; /* an object's: its data symbol was looked for (names_set_symbols) */
    char name[NAMES_MAX + 1];
};

struct tab {
    struct ent *v; /* in the order they came */
    size_t n, cap;
    struct oaindex ix;
};

/* A name whose words are coming: the writer's context, and what it has so far. */
struct pend {
    uint32_t writer;
    int object;
    unsigned type;
    unsigned next; /* the part expected */
    uint64_t key;
    size_t len;
    int ended;     /* a NUL came: the bytes after it are padding */
    char buf[NAMES_MAX + 1];
    uint64_t age;  /* when it started: the oldest goes when PENDING are in flight */
};

struct names {
    struct tab ctx, obj;
    struct pend pend[PENDING];
    unsigned npend;
    uint64_t clock;
    const struct sym_table *sym; /* objects' names from data symbols (names_set_symbols) */
    uint64_t bias;
};

struct names *names_new(void)
{
    return calloc(1, sizeof(struct names));
}

void names_free(struct names *n)
{
    if (!n)
        return;
    free(n->ctx.v);
    oaindex_free(&n->ctx.ix);
    free(n->obj.v);
    oaindex_free(&n->obj.ix);
    free(n);
}

static uint64_t ent_hash(const void *arg, size_t pos)
{
    return oaindex_hash_u64(((const struct tab *)arg)->v[pos].key);
}

static int ent_match(const void *arg, size_t pos, const void *key)
{
    return ((const struct tab *)arg)->v[pos].key == *(const uint64_t *)key;
}

static const struct ent *find(const struct tab *t, uint64_t key)
{
    size_t pos = oaindex_find(&t->ix, oaindex_hash_u64(key), ent_match, t, &key);

    return pos != SIZE_MAX ? &t->v[pos] : NULL;
}

/* The entry of key, added when it is new; NULL when out of memory, or when the table already
 * holds NAMES_CAP keys (a trace that names that many is not one the glue wrote: the rest stay
 * unnamed). *full tells the two apart. */
static struct ent *get(struct tab *t, uint64_t key, int *full)
{
    struct ent *e = (struct ent *)find(t, key);
    size_t *slot;

    *full = 0;
    if (e)
        return e;
    if (t->n >= NAMES_CAP) {
        *full = 1;
        return NULL;
    }
    if (oaindex_reserve(&t->ix, 64, ent_hash, t) < 0 ||
        vec_grow(&t->v, &t->cap, t->n, sizeof *t->v, 32) < 0)
        return NULL;
    slot = oaindex_slot(&t->ix, oaindex_hash_u64(key), ent_match, t, &key);
    e = &t->v[t->n];
    memset(e, 0, sizeof *e);
    e->key = key;
    oaindex_put(&t->ix, slot, t->n++);
    return e;
}

/* A name as shown: printable ASCII only, cut to NAMES_MAX bytes. */
static void copy_name(char *dst, const char *src)
{
    size_t i;

    for (i = 0; i < NAMES_MAX && src[i]; i++)
        dst[i] = src[i] >= 0x20 && src[i] < 0x7f ? src[i] : '?';
    dst[i] = 0;
}

int names_set_ctx(struct names *n, uint32_t id, const char *name)
{
    int full;
    struct ent *e = get(&n->ctx, id, &full);

    if (!e)
        return full ? 0 : -1;
    copy_name(e->name, name);
    e->named = 1;
    return 0;
}

int names_set_handle(struct names *n, uint32_t id, uint64_t handle)
{
    int full;
    struct ent *e = get(&n->ctx, id, &full);

    if (!e)
        return full ? 0 : -1;
    e->handle = handle;
    return 0;
}

int names_set_obj(struct names *n, uint64_t handle, unsigned objtype, const char *name)
{
    int full;
    struct ent *e = get(&n->obj, handle, &full);

    if (!e)
        return full ? 0 : -1;
    copy_name(e->name, name);
    e->named = 1;
    if (objtype != CYG_OBJ_NONE) /* a name without a type (the queue registry's) keeps it */
        e->type = (uint8_t)(objtype & CYG_NAME_OBJ_MASK);
    return 0;
}

void names_set_symbols(struct names *n, const struct sym_table *sym, uint64_t bias)
{
    if (n) {
        n->sym = sym;
        n->bias = bias;
    }
}

/* A task blocked on the object at handle: its type, for a name that comes without one, and
 * the name of the data symbol there, if it has none. */
static void note_type(struct names *n, const struct ev *e)
{
    unsigned type = e->data >> CYG_SCHED_OBJ_SHIFT & CYG_SCHED_OBJ_MASK;
    const struct ent *known;
    const char *name;
    struct ent *x;
    int full;

    if ((e->data & CYG_SCHED_KIND_MASK) != CYG_SCHED_BLOCK || !e->addr ||
        type < CYG_OBJ_QUEUE || (type > CYG_OBJ_STREAM && type < CYG_OBJ_K_SEM) ||
        ((known = find(&n->obj, e->addr)) && known->type &&
         (known->named || known->sym_tried || !n->sym)))
        return;
    if (!(x = get(&n->obj, e->addr, &full)))
        return;
    if (!x->type)
        x->type = (uint8_t)type;
    if (x->named || !n->sym)
        return;
    x->sym_tried = 1; /* once: the lookup goes through every symbol */
    if (e->addr > n->bias && (name = sym_data_at(n->sym, e->addr - n->bias))) {
        copy_name(x->name, name);
        x->named = 1;
    }
}

const char *names_ctx(const struct names *n, uint32_t id)
{
    const struct ent *e = n ? find(&n->ctx, id) : NULL;

    return e && e->named ? e->name : NULL;
}

uint64_t names_handle(const struct names *n, uint32_t id)
{
    const struct ent *e = n ? find(&n->ctx, id) : NULL;

    return e ? e->handle : 0;
}

const char *names_ctx_called(const struct names *n, const struct sym_table *sym, uint64_t bias,
                             uint32_t id, uint64_t handle, char *buf, size_t len)
{
    const char *name = names_ctx(n, id);
    const struct sym_info *s;

    if (name)
        return name;
    if (names_handle(n, id))
        handle = names_handle(n, id);
    /* An interrupt's handle is its handler: a function. */
    if (!sym || handle <= bias || !(s = sym_func_at(sym, handle - bias)))
        return NULL;
    snprintf(buf, len, "%s", s->name);
    return buf;
}

void names_ctx_text(const struct names *n, const struct sym_table *sym, uint64_t bias,
                    uint32_t id, uint64_t handle, char *buf, size_t len)
{
    char t[256];
    const char *name = names_ctx_called(n, sym, bias, id, handle, t, sizeof t);

    if (name)
        snprintf(buf, len, "%s", name);
    else
        snprintf(buf, len, "context %" PRIu32, id);
}

const char *names_ctx_word(unsigned word_bytes)
{
    return word_bytes == 8 ? "thread" : "context";
}

int names_ctx_label(const struct names *n, const struct sym_table *sym, uint64_t bias,
                    unsigned word_bytes, uint32_t id, uint64_t os_tid, int vfork, char *buf,
                    size_t len)
{
    char t[256];
    const char *name = names_ctx_called(n, sym, bias, id, 0, t, sizeof t);
    size_t k;

    if (!len)
        return name != NULL;
    snprintf(buf, len, "%s %" PRIu32, names_ctx_word(word_bytes), id);
    if (name && (k = strlen(buf)) < len)
        snprintf(buf + k, len - k, " \"%s\"", name);
    if (os_tid && (k = strlen(buf)) < len)
        snprintf(buf + k, len - k, vfork ? " (vfork child, pid %" PRIu64 ")" : " (tid %" PRIu64 ")",
                 os_tid);
    return name != NULL;
}

const char *names_obj(const struct names *n, uint64_t handle, unsigned *objtype)
{
    const struct ent *e = n ? find(&n->obj, handle) : NULL;

    if (!e || !e->named)
        return NULL;
    if (objtype)
        *objtype = e->type;
    return e->name;
}

size_t names_ctx_count(const struct names *n)
{
    size_t k = 0;

    for (size_t i = 0; n && i < n->ctx.n; i++)
        k += n->ctx.v[i].named;
    return k;
}

int names_find_ctx(const struct names *n, const char *name, uint32_t *id)
{
    int found = 0;

    for (size_t i = 0; n && i < n->ctx.n; i++) {
        const struct ent *e = &n->ctx.v[i];

        if (!e->named || strcmp(e->name, name))
            continue;
        if (found && (uint32_t)e->key != *id)
            return -1;
        *id = (uint32_t)e->key;
        found = 1;
    }
    return found;
}

static void pend_drop(struct names *n, struct pend *p)
{
    *p = n->pend[--n->npend];
}

/* The name p has put together is whole: it names its key. */
static void pend_commit(struct names *n, struct pend *p)
{
    p->buf[p->len] = 0;
    if (p->len) { /* an empty name says nothing */
        if (p->object)
            names_set_obj(n, p->key, p->type, p->buf);
        else
            names_set_ctx(n, (uint32_t)p->key, p->buf);
    }
    pend_drop(n, p);
}

static struct pend *pend_start(struct names *n, uint32_t writer)
{
    struct pend *p;

    if (n->npend == PENDING) { /* the oldest goes: its writer never finished it */
        unsigned old = 0;

        for (unsigned i = 1; i < n->npend; i++)
            if (n->pend[i].age < n->pend[old].age)
                old = i;
        pend_drop(n, &n->pend[old]);
    }
    p = &n->pend[n->npend++];
    memset(p, 0, sizeof *p);
    p->writer = writer;
    p->age = n->clock++;
    return p;
}

static void feed_name(struct names *n, const struct ev *e, unsigned w)
{
    unsigned part = e->data & CYG_NAME_PART_MASK;
    unsigned len = e->data >> CYG_NAME_LEN_SHIFT & CYG_NAME_LEN_MASK;
    struct pend *p = NULL;

    for (unsigned i = 0; i < n->npend && !p; i++)
        if (n->pend[i].writer == e->ctx)
            p = &n->pend[i];
    if (part == 0) { /* a key: a new name starts, and one its writer left unfinished goes */
        if (!p)
            p = pend_start(n, e->ctx);
        p->len = 0;
        p->ended = 0;
        p->key = e->addr;
        p->object = (e->data & CYG_NAME_OBJECT) != 0;
        p->type = e->data >> CYG_NAME_OBJ_SHIFT & CYG_NAME_OBJ_MASK;
        p->next = 1;
    } else {
        /* A word of no name begun (its key was overwritten), or out of order (words lost in
         * between): that name is not known whole, and is not guessed. */
        if (!p)
            return;
        if (part != p->next || len > w) {
            pend_drop(n, p);
            return;
        }
        for (unsigned i = 0; i < len && !p->ended; i++) {
            char c = (char)(e->addr >> (8 * i) & 0xffu);

            if (!c)
                p->ended = 1;
            else if (p->len < NAMES_MAX)
                p->buf[p->len++] = c;
        }
        p->next++;
    }
    if (e->data & CYG_NAME_LAST)
        pend_commit(n, p);
}

void names_feed(struct names *n, const struct ev *e, unsigned w)
{
    switch (e->kind) {
    case EV_NAME:
        feed_name(n, e, w);
        break;
    case EV_CONTEXT:
        names_set_handle(n, e->data, e->addr);
        break;
    case EV_SCHED:
        note_type(n, e);
        break;
    case EV_LOST: /* the words of any name in flight may be among those lost */
        n->npend = 0;
        break;
    default:
        break;
    }
}

static int cmp_ent(const void *a, const void *b)
{
    const struct ent *x = *(const struct ent *const *)a, *y = *(const struct ent *const *)b;

    return x->key < y->key ? -1 : x->key > y->key;
}

/* The named entries of t, by key: an array to free, NULL when none (or out of memory). */
static const struct ent **sorted(const struct tab *t, size_t *k)
{
    const struct ent **v;

    *k = 0;
    if (!t->n || !(v = malloc(t->n * sizeof *v)))
        return NULL;
    for (size_t i = 0; i < t->n; i++)
        if (t->v[i].named)
            v[(*k)++] = &t->v[i];
    qsort(v, *k, sizeof *v, cmp_ent);
    return v;
}

void names_each_ctx(const struct names *n, void (*fn)(void *arg, uint32_t id, const char *name),
                    void *arg)
{
    size_t k;
    const struct ent **v = n ? sorted(&n->ctx, &k) : NULL;

    for (size_t i = 0; v && i < k; i++)
        fn(arg, (uint32_t)v[i]->key, v[i]->name);
    free(v);
}

void names_each_obj(const struct names *n,
                    void (*fn)(void *arg, uint64_t handle, unsigned objtype, const char *name),
                    void *arg)
{
    size_t k;
    const struct ent **v = n ? sorted(&n->obj, &k) : NULL;

    for (size_t i = 0; v && i < k; i++)
        fn(arg, v[i]->key, v[i]->type, v[i]->name);
    free(v);
}
