/* SPDX-License-Identifier: GPL-3.0-or-later */
/* wsig.c - the wrappers' signature table (.cygtrace_wrap), parsed. */
#include "symbols/wsig.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/vec.h"

#define WSIG_MAX_FIELDS 6
#define WSIG_LINE_MAX 4096
#define WSIG_MAX_ENUMS 4096 /* enum ids a table may define (a lookup walks them all) */

struct wsig_enum_def {
    char *id;
    struct wsig_enum en;
    size_t cap;
};

struct wsig {
    struct wsig_fn *fns;
    unsigned n;
    size_t cap;
    struct wsig_enum_def *enums; /* every block's, the block's number in front of the id */
    unsigned n_enums;
    size_t cap_enums;
    unsigned bad;
    unsigned block;              /* the "cygtrace-wrap 1" lines seen so far */
};

/* Splits line (NUL-terminated, changed in place) at tabs into at most max fields; the last
 * takes the rest. Returns the count. */
static unsigned split(char *line, char **f, unsigned max)
{
    unsigned n = 0;

    while (n < max) {
        f[n++] = line;
        if (n == max || !(line = strchr(line, '\t')))
            break;
        *line++ = '\0';
    }
    return n;
}

static int kind_of(const char *s, unsigned *kind)
{
    static const char *const names[] = {"int", "uint", "ptr", "f32", "f64", "str", "bool",
                                        "char", "void"};

    for (unsigned k = 0; k < sizeof names / sizeof *names; k++)
        if (!strcmp(s, names[k])) {
            *kind = k;
            return 0;
        }
    return -1;
}

static int number(const char *s, long long lo, long long hi, long long *out)
{
    char *end;

    errno = 0;
    *out = strtoll(s, &end, 10);
    return *s && !*end && !errno && *out >= lo && *out <= hi ? 0 : -1;
}

/* An enum's id within the table: "3:e1" for id e1 of block 3 (ids are a block's own). */
static char *enum_key(const struct wsig *w, const char *id)
{
    size_t len = strlen(id) + 16;
    char *k = malloc(len);

    if (k)
        snprintf(k, len, "%u:%s", w->block, id);
    return k;
}

static struct wsig_enum_def *enum_get(struct wsig *w, const char *id, int add)
{
    char *key = enum_key(w, id);
    struct wsig_enum_def *d;

    if (!key)
        return NULL;
    for (unsigned i = 0; i < w->n_enums; i++)
        if (!strcmp(w->enums[i].id, key)) {
            free(key);
            return &w->enums[i];
        }
    if (!add || w->n_enums >= WSIG_MAX_ENUMS ||
        vec_grow(&w->enums, &w->cap_enums, w->n_enums, sizeof *w->enums, 16) < 0) {
        free(key);
        return NULL;
    }
    d = &w->enums[w->n_enums++];
    memset(d, 0, sizeof *d);
    d->id = key;
    return d;
}

/* An E line: enum id, value, name. */
static int add_enumerator(struct wsig *w, char **f, unsigned n)
{
    struct wsig_enum_def *d;
    long long v;

    if (n != 4 || number(f[2], INT64_MIN, INT64_MAX, &v) < 0 || !*f[3])
        return -1;
    if (!(d = enum_get(w, f[1], 1)))
        return w->n_enums >= WSIG_MAX_ENUMS ? -1 : -2;
    if (d->en.n == d->cap) { /* values and names, always of one capacity */
        size_t cap = d->cap;

        if (vec_grow(&d->en.values, &cap, d->en.n, sizeof *d->en.values, 8) < 0 ||
            vec_grow(&d->en.names, &d->cap, d->en.n, sizeof *d->en.names, 8) < 0)
            return -2;
    }
    if (!(d->en.names[d->en.n] = strdup(f[3])))
        return -2;
    d->en.values[d->en.n++] = v;
    return 0;
}

/* The kind, enum and type fields of an F or P line into v (its name set by the caller). Enums
 * are looked up at the end, when every E line has come: only their ids are kept now. */
static int fill_value(struct wsig_value *v, const char *kind, const char *en, const char *type)
{
    unsigned k;

    if (kind_of(kind, &k) < 0 || !*en)
        return -1;
    if (strcmp(en, "-") != 0 && !(v->en_id = strdup(en)))
        return -2;
    return (v->type = strdup(type)) ? 0 : -2;
}

/* An F line: name, parameters, then the return value's kind, enum and type. */
static int add_function(struct wsig *w, char **f, unsigned n)
{
    struct wsig_fn *fn;
    long long np;
    unsigned kind;

    if (n != 6 || !*f[1] || number(f[2], 0, CYG_VAL_MAX_ARGS, &np) < 0 ||
        kind_of(f[3], &kind) < 0 || !*f[4])
        return -1;
    if (vec_grow(&w->fns, &w->cap, w->n, sizeof *w->fns, 16) < 0)
        return -2;
    fn = &w->fns[w->n++]; /* counted at once: wsig_free frees what it holds */
    memset(fn, 0, sizeof *fn);
    fn->n = (unsigned)np;
    if (!(fn->name = strdup(f[1])))
        return -2;
    return fill_value(&fn->ret, f[3], f[4], f[5]);
}

/* A P line: a parameter of the latest F line. */
static int add_param(struct wsig *w, char **f, unsigned n)
{
    struct wsig_fn *fn = w->n ? &w->fns[w->n - 1] : NULL;
    struct wsig_value *v;
    long long idx;
    unsigned kind;

    if (n != 6 || !fn || number(f[1], 0, CYG_VAL_MAX_ARGS - 1, &idx) < 0 || idx >= fn->n ||
        !*f[2] || kind_of(f[3], &kind) < 0 || kind == 8 /* void */ || !*f[4])
        return -1;
    v = &fn->p[idx];
    if (v->name) /* twice */
        return -1;
    if (!(v->name = strdup(f[2])))
        return -2;
    return fill_value(v, f[3], f[4], f[5]);
}

static int parse_line(struct wsig *w, char *line)
{
    char *f[WSIG_MAX_FIELDS];
    unsigned n;

    if (!strcmp(line, "cygtrace-wrap 1")) {
        w->block++;
        return 0;
    }
    if (!w->block) /* before any block's first line: not ours */
        return -1;
    n = split(line, f, WSIG_MAX_FIELDS);
    if (!strcmp(f[0], "F"))
        return add_function(w, f, n);
    if (!strcmp(f[0], "P"))
        return add_param(w, f, n);
    if (!strcmp(f[0], "E"))
        return add_enumerator(w, f, n);
    return -1;
}

/* Turns the enum ids kept on the values into their tables; an id without E lines has none.
 * Ids are looked up in the block of their function: blocks[i] of function i. */
static void resolve(struct wsig *w, const unsigned *blocks)
{
    for (unsigned i = 0; i < w->n; i++) {
        struct wsig_fn *fn = &w->fns[i];

        w->block = blocks[i];
        for (unsigned k = 0; k <= fn->n; k++) {
            struct wsig_value *v = k < fn->n ? &fn->p[k] : &fn->ret;
            const struct wsig_enum_def *d = v->en_id ? enum_get(w, v->en_id, 0) : NULL;

            v->en = d ? &d->en : NULL;
        }
    }
}

/* By name, and in table order among functions of one name (qsort is not stable). */
static int by_name(const void *a, const void *b)
{
    const struct wsig_fn *x = a, *y = b;
    int c = strcmp(x->name, y->name);

    return c ? c : (x->order > y->order) - (x->order < y->order);
}

struct wsig *wsig_parse(const char *text, size_t len)
{
    struct wsig *w = calloc(1, sizeof *w);
    unsigned *blocks = NULL;
    size_t cap_blocks = 0;
    char line[WSIG_LINE_MAX];
    size_t at = 0;
    int oom = 0;

    if (!w)
        return NULL;
    while (at < len && !oom) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t l = (nl ? (size_t)(nl - text) : len) - at;
        unsigned before = w->n;
        int rc;

        if (l == 0 || l >= sizeof line || memchr(text + at, '\0', l)) {
            w->bad += l != 0;
            at += l + 1;
            continue;
        }
        memcpy(line, text + at, l);
        line[l] = '\0';
        at += l + 1;
        rc = parse_line(w, line);
        if (w->n != before) {
            if (vec_grow(&blocks, &cap_blocks, w->n - 1, sizeof *blocks, 16) < 0) {
                oom = 1;
                break;
            }
            blocks[w->n - 1] = w->block;
        }
        if (rc == -2)
            oom = 1;
        else if (rc < 0)
            w->bad++;
    }
    if (!oom) {
        resolve(w, blocks);
        for (unsigned i = 0; i < w->n; i++)
            w->fns[i].order = i;
        if (w->n) /* qsort(NULL, 0) is undefined */
            qsort(w->fns, w->n, sizeof *w->fns, by_name);
    }
    free(blocks);
    if (oom) {
        wsig_free(w);
        return NULL;
    }
    return w;
}

unsigned wsig_bad_lines(const struct wsig *w)
{
    return w ? w->bad : 0;
}

unsigned wsig_count(const struct wsig *w)
{
    return w ? w->n : 0;
}

const struct wsig_fn *wsig_find(const struct wsig *w, const char *name)
{
    unsigned lo = 0, hi = w && name ? w->n : 0;

    /* the last of the name: a later block (the table of a second wrap run) overrides */
    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2;

        if (strcmp(w->fns[mid].name, name) <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && !strcmp(w->fns[lo - 1].name, name) ? &w->fns[lo - 1] : NULL;
}

const char *wsig_wrapped_name(const char *name)
{
    size_t n = sizeof WSIG_PREFIX - 1;

    return name && !strncmp(name, WSIG_PREFIX, n) && name[n] ? name + n : NULL;
}

static void value_free(struct wsig_value *v)
{
    free(v->name);
    free(v->type);
    free(v->en_id);
}

void wsig_free(struct wsig *w)
{
    if (!w)
        return;
    for (unsigned i = 0; i < w->n; i++) {
        free(w->fns[i].name);
        for (unsigned k = 0; k < CYG_VAL_MAX_ARGS; k++)
            value_free(&w->fns[i].p[k]);
        value_free(&w->fns[i].ret);
    }
    free(w->fns);
    for (unsigned i = 0; i < w->n_enums; i++) {
        free(w->enums[i].id);
        for (unsigned k = 0; k < w->enums[i].en.n; k++)
            free(w->enums[i].en.names[k]);
        free(w->enums[i].en.values);
        free(w->enums[i].en.names);
    }
    free(w->enums);
    free(w);
}
