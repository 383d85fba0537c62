/* SPDX-License-Identifier: GPL-3.0-or-later */
/* modmap.c - a process's map of loaded objects: parsed once, each object's ELF opened on the
 * first address that falls in it, so a trace that never enters a library never reads it. */
#include "symbols/modmap.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cyg_format.h"
#include "source/src.h"
#include "util/oaindex.h"
#include "util/vec.h"

struct obj {
    struct modmap_object pub;
    struct sym_table *sym; /* once opened */
    int state;             /* 0 not tried, 1 open, -1 unusable (unreadable, other build-id) */
};

/* A library's function as the program's table would hold it: renamed and moved. Keyed by the
 * library table's own entry, which stays put while the table lives. */
struct conv {
    const struct sym_info *orig;
    struct sym_info *info; /* its own allocation, with the name after it: a caller may keep
                              the pointer while the table grows */
};

struct modmap {
    struct obj *objs;
    size_t n, cap;
    struct modmap_process proc;
    struct modmap_process *kids;
    size_t nkids, capkids;
    uint32_t *tids;    /* thread lines: the OS id of thread index i, 0 unknown; NULL: none */
    uint8_t *vfork;    /* ... and whether it is a vfork child */
    struct names *names; /* ctxname and objname lines; NULL: none */
    struct conv *conv; /* indexed by orig in convix */
    size_t nconv, capconv;
    struct oaindex convix;
    uint64_t main_bias;
    uint64_t clock_ticks[2]; /* the first and the last clock line */
    int64_t clock_ns[2];
    unsigned nclock;         /* 0, 1 or 2 */
};

static const char *const empty = "";

/* Splits off the next space-separated field of *s (NUL-terminating it); NULL at the end. */
static char *field(char **s)
{
    char *f = *s, *sp;

    if (!f || !*f)
        return NULL;
    if ((sp = strchr(f, ' '))) {
        *sp = 0;
        *s = sp + 1;
    } else {
        *s = NULL;
    }
    return f;
}

static int hex64(const char *s, uint64_t *v)
{
    char *end;

    if (!s || !*s)
        return -1;
    errno = 0;
    *v = strtoull(s, &end, 16);
    return *end || errno ? -1 : 0;
}

static int dec32(const char *s, uint32_t *v)
{
    char *end;
    unsigned long x;

    if (!s || !*s)
        return -1;
    errno = 0;
    x = strtoul(s, &end, 10);
    if (*end || errno || x > UINT32_MAX)
        return -1;
    *v = (uint32_t)x;
    return 0;
}

/* "clock TICKS NS" (decimal): the ring's clock and CLOCK_MONOTONIC read together; the first
 * and the last are kept. */
static int add_clock(struct modmap *m, char *rest)
{
    char *t = field(&rest), *n = field(&rest), *end;
    unsigned long long ticks, ns;

    if (!t || !n || !isdigit((unsigned char)*t) || !isdigit((unsigned char)*n))
        return -1;
    errno = 0;
    ticks = strtoull(t, &end, 10);
    if (*end || errno)
        return -1;
    ns = strtoull(n, &end, 10);
    if (*end || errno || ns > INT64_MAX)
        return -1;
    m->clock_ticks[m->nclock ? 1 : 0] = ticks;
    m->clock_ns[m->nclock ? 1 : 0] = (int64_t)ns;
    m->nclock = m->nclock ? 2 : 1;
    return 0;
}

/* Undoes the \xNN escapes of a path (an object's, a ring's) in place. Unlike a name's, a
 * backslash that starts no escape stands for itself, as maps of runtimes before the escapes
 * wrote it; \x00 too (no path holds a NUL). */
static void unescape_path(char *s)
{
    char *o = s;

    for (char *p = s; *p; p++) {
        unsigned v;

        if (p[0] == '\\' && p[1] == 'x' && isxdigit((unsigned char)p[2]) &&
            isxdigit((unsigned char)p[3]) && sscanf(p + 2, "%2x", &v) == 1 && v != 0) {
            *o++ = (char)v;
            p += 3;
        } else {
            *o++ = *p;
        }
    }
    *o = 0;
}

/* A process or child line's fields after the kind. */
static int parse_proc(char *rest, struct modmap_process *p)
{
    char *pid = field(&rest), *ppid = field(&rest), *how = field(&rest);

    if (dec32(pid, &p->pid) < 0 || dec32(ppid, &p->ppid) < 0 || !how || !rest || !*rest)
        return -1;
    unescape_path(rest);
    if (!(p->how = strdup(how)) || !(p->ring = strdup(strcmp(rest, "-") ? rest : ""))) {
        free((char *)p->how);
        p->how = NULL;
        return -1;
    }
    return 0;
}

static int parse_object(struct modmap *m, char *rest)
{
    char *start = field(&rest), *end = field(&rest), *bias = field(&rest), *id = field(&rest);
    struct obj o = {0};
    const char *slash;

    if (hex64(start, &o.pub.start) < 0 || hex64(end, &o.pub.end) < 0 ||
        hex64(bias, &o.pub.bias) < 0 || !id || !rest || !*rest || o.pub.end <= o.pub.start)
        return -1;
    if (strcmp(id, "-")) {
        size_t len = strlen(id);

        if (len % 2 || len / 2 > sizeof o.pub.build_id)
            return -1;
        for (size_t i = 0; i < len / 2; i++) {
            unsigned b;

            if (sscanf(id + 2 * i, "%2x", &b) != 1)
                return -1;
            o.pub.build_id[i] = (uint8_t)b;
        }
        o.pub.build_id_len = len / 2;
    }
    if (vec_grow(&m->objs, &m->cap, m->n, sizeof *m->objs, 16) < 0)
        return -2;
    unescape_path(rest);
    if (!(o.pub.path = strdup(rest)))
        return -2;
    slash = strrchr(o.pub.path, '/');
    o.pub.base = slash ? slash + 1 : o.pub.path;
    m->objs[m->n++] = o;
    return 0;
}

static int add_child(struct modmap *m, char *rest)
{
    struct modmap_process p = {0};

    if (vec_grow(&m->kids, &m->capkids, m->nkids, sizeof *m->kids, 8) < 0)
        return -2;
    if (parse_proc(rest, &p) < 0)
        return -1;
    m->kids[m->nkids++] = p;
    return 0;
}

#define THREADS 65536u /* 16-bit thread indexes */

/* "thread INDEX TID[ vfork]": a later line for the same index wins (indexes are reused after
 * 65535 threads; the ring holds the newest). */
static int add_thread(struct modmap *m, char *rest)
{
    char *index = field(&rest), *tid = field(&rest), *kind = field(&rest);
    uint32_t i, t;

    if (dec32(index, &i) < 0 || i == 0 || i >= THREADS || dec32(tid, &t) < 0 ||
        (kind && strcmp(kind, "vfork")))
        return -1;
    if (!m->tids && (!(m->tids = calloc(THREADS, sizeof *m->tids)) ||
                     !(m->vfork = calloc(THREADS, sizeof *m->vfork))))
        return -2;
    m->tids[i] = t;
    m->vfork[i] = kind != NULL;
    return 0;
}

/* Undoes the \xNN escapes of a name in place; -1 when one is malformed or the name is empty.
 * A NUL (\x00) would end the name early: not a name the writer makes. */
static int unescape(char *s)
{
    char *o = s;

    if (!*s)
        return -1;
    for (char *p = s; *p; p++) {
        unsigned v;

        if (*p != '\\') {
            *o++ = *p;
            continue;
        }
        if (p[1] != 'x' || !isxdigit((unsigned char)p[2]) || !isxdigit((unsigned char)p[3]) ||
            sscanf(p + 2, "%2x", &v) != 1 || v == 0)
            return -1;
        *o++ = (char)v;
        p += 3;
    }
    *o = 0;
    return 0;
}

/* "ctxname ID NAME" and "objname HANDLE TYPE NAME": a later line for the same key wins. */
static int add_name(struct modmap *m, char *rest, int object)
{
    char *key = field(&rest), *type = object ? field(&rest) : NULL;
    uint64_t handle;
    uint32_t id, t = 0;

    if (object ? hex64(key, &handle) < 0 || dec32(type, &t) < 0 || t > CYG_NAME_OBJ_MASK
               : dec32(key, &id) < 0)
        return -1;
    if (!rest || unescape(rest) < 0)
        return -1;
    if (!m->names && !(m->names = names_new()))
        return -2;
    if (object ? names_set_obj(m->names, handle, t, rest) : names_set_ctx(m->names, id, rest))
        return -2;
    return 0;
}

struct modmap *modmap_parse(const char *text, size_t len, char *err, size_t errlen)
{
    struct modmap *m = calloc(1, sizeof *m);
    char *buf = malloc(len + 1), *line, *next;
    unsigned lineno = 0;
    int rc = 0;

    if (!m || !buf) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    if (len == 0) {
        snprintf(err, errlen, "empty: not a map of loaded objects");
        goto fail;
    }
    memcpy(buf, text, len);
    buf[len] = 0;
    m->proc.how = m->proc.ring = empty;
    for (line = buf; line && rc == 0; line = next) {
        char *kind;

        if ((next = strchr(line, '\n')))
            *next++ = 0;
        lineno++;
        if (lineno == 1) {
            if (strcmp(line, "cygtrace-maps 1")) {
                snprintf(err, errlen, "not a map of loaded objects (no 'cygtrace-maps 1' line)");
                goto fail;
            }
            continue;
        }
        if (!(kind = field(&line)))
            continue;
        if (!strcmp(kind, "object"))
            rc = parse_object(m, line);
        else if (!strcmp(kind, "child"))
            rc = add_child(m, line);
        else if (!strcmp(kind, "thread"))
            rc = add_thread(m, line);
        else if (!strcmp(kind, "clock"))
            rc = add_clock(m, line);
        else if (!strcmp(kind, "ctxname"))
            rc = add_name(m, line, 0);
        else if (!strcmp(kind, "objname"))
            rc = add_name(m, line, 1);
        else if (!strcmp(kind, "process") && m->proc.how == empty)
            rc = parse_proc(line, &m->proc);
    }
    if (rc < 0) {
        if (rc == -2)
            snprintf(err, errlen, "out of memory");
        else
            snprintf(err, errlen, "line %u: not a valid line of a map of loaded objects", lineno);
        goto fail;
    }
    free(buf);
    return m;
fail:
    free(buf);
    modmap_close(m);
    return NULL;
}

struct modmap *modmap_open(const char *path, char *err, size_t errlen)
{
    struct stat st;
    struct src *src;
    struct modmap *m = NULL;
    char *text = NULL;
    uint64_t size;
    long n;

    err[0] = 0;
    if (stat(path, &st) != 0 && errno == ENOENT)
        return NULL;
    /* Never a pipe or a device (a FIFO would hang us, /dev/zero never ends), never more than
     * any map the runtime writes. */
    if (!(src = src_open_file(path, err, errlen)))
        return NULL;
    size = src_size(src);
    if (size > MODMAP_MAX_BYTES) {
        snprintf(err, errlen, "larger than %u MB (%" PRIu64 " bytes): not a map the runtime wrote",
                 MODMAP_MAX_BYTES >> 20, size);
        goto out;
    }
    if (!(text = malloc(size ? (size_t)size : 1))) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    if ((n = src_read(src, 0, text, (size_t)size)) < 0)
        snprintf(err, errlen, "read error");
    else
        m = modmap_parse(text, (size_t)n, err, errlen);
out:
    free(text);
    src_close(src);
    return m;
}

uint32_t modmap_thread(const struct modmap *m, uint32_t index, int *vfork)
{
    if (!m || !m->tids || index >= THREADS)
        return 0;
    *vfork = m->vfork[index];
    return m->tids[index];
}

void modmap_close(struct modmap *m)
{
    if (!m)
        return;
    free(m->tids);
    free(m->vfork);
    names_free(m->names);
    for (size_t i = 0; i < m->n; i++) {
        sym_close(m->objs[i].sym);
        free((char *)m->objs[i].pub.path);
    }
    for (size_t i = 0; i < m->nkids; i++) {
        free((char *)m->kids[i].how);
        free((char *)m->kids[i].ring);
    }
    if (m->proc.how != empty) {
        free((char *)m->proc.how);
        free((char *)m->proc.ring);
    }
    for (size_t i = 0; i < m->nconv; i++)
        free(m->conv[i].info);
    free(m->conv);
    oaindex_free(&m->convix);
    free(m->kids);
    free(m->objs);
    free(m);
}

struct names *modmap_take_names(struct modmap *m)
{
    struct names *n = m->names;

    m->names = NULL;
    return n;
}

/* Writes name with the escapes of the map's NAME fields. */
static void put_name(FILE *f, const char *name)
{
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        if (*p < 0x20 || *p >= 0x7f || *p == '\\')
            fprintf(f, "\\x%02x", *p);
        else
            fputc(*p, f);
    fputc('\n', f);
}

static void put_ctx(void *arg, uint32_t id, const char *name)
{
    fprintf(arg, "ctxname %" PRIu32 " ", id);
    put_name(arg, name);
}

static void put_obj(void *arg, uint64_t handle, unsigned objtype, const char *name)
{
    fprintf(arg, "objname %" PRIx64 " %u ", handle, objtype);
    put_name(arg, name);
}

int modmap_write_names(FILE *f, const struct names *n)
{
    fputs("cygtrace-maps 1\n", f);
    names_each_ctx(n, put_ctx, f);
    names_each_obj(n, put_obj, f);
    return ferror(f) ? -1 : 0;
}

size_t modmap_count(const struct modmap *m)
{
    return m->n;
}

const struct modmap_object *modmap_object(const struct modmap *m, size_t i)
{
    return &m->objs[i].pub;
}

const struct modmap_process *modmap_process(const struct modmap *m)
{
    return &m->proc;
}

size_t modmap_children(const struct modmap *m)
{
    return m->nkids;
}

const struct modmap_process *modmap_child(const struct modmap *m, size_t i)
{
    return &m->kids[i];
}

/* Opens an object's ELF the first time; 0 when it can be used. */
static int obj_ready(struct obj *o)
{
    char why[256];

    if (o->state == 0) {
        o->state = -1;
        if (!(o->sym = sym_open(o->pub.path, why, sizeof why)))
            return -1;
        /* Another build at that path now: its names would be wrong ones. */
        if (sym_build_id_match(o->sym, o->pub.build_id, o->pub.build_id_len) == 0) {
            sym_close(o->sym);
            o->sym = NULL;
            return -1;
        }
        o->state = 1;
    }
    return o->state > 0 ? 0 : -1;
}

static uint64_t conv_hash(const void *arg, size_t pos)
{
    return oaindex_hash_u64((uintptr_t)((const struct modmap *)arg)->conv[pos].orig);
}

static int conv_match(const void *arg, size_t pos, const void *key)
{
    return ((const struct modmap *)arg)->conv[pos].orig == key;
}

/* The library function orig of object o as the program's table would give it. */
static const struct sym_info *convert(struct modmap *m, const struct obj *o,
                                      const struct sym_info *orig, uint64_t main_bias)
{
    uint64_t h = oaindex_hash_u64((uintptr_t)orig);
    size_t pos = oaindex_find(&m->convix, h, conv_match, m, orig), *slot;
    struct sym_info *info;
    size_t len;

    if (pos != SIZE_MAX)
        return m->conv[pos].info;
    if (oaindex_reserve(&m->convix, 256, conv_hash, m) < 0 ||
        vec_grow(&m->conv, &m->capconv, m->nconv, sizeof *m->conv, 128) < 0)
        return NULL;
    len = strlen(o->pub.base) + strlen(orig->name) + 2;
    if (!(info = malloc(sizeof *info + len)))
        return NULL;
    snprintf((char *)(info + 1), len, "%s:%s", o->pub.base, orig->name);
    info->name = (const char *)(info + 1);
    /* Unsigned wrap-around makes this right for a library below the program too. */
    info->start = orig->start + o->pub.bias - main_bias;
    info->size = orig->size;
    slot = oaindex_slot(&m->convix, h, conv_match, m, orig);
    m->conv[m->nconv] = (struct conv){orig, info};
    oaindex_put(&m->convix, slot, m->nconv++);
    return info;
}

const struct sym_info *modmap_lookup(struct modmap *m, uint64_t addr, uint64_t main_bias)
{
    /* The last line first: where ranges overlap the later object is the one loaded now. The
     * program itself (the first object) is its own table's business. */
    for (size_t i = m->n; i-- > 1;) {
        struct obj *o = &m->objs[i];
        const struct sym_info *s;

        if (addr < o->pub.start || addr >= o->pub.end)
            continue;
        if (obj_ready(o) < 0 || !(s = sym_lookup(o->sym, addr - o->pub.bias)))
            return NULL;
        return convert(m, o, s, main_bias);
    }
    return NULL;
}

static const struct sym_info *fallback(void *arg, uint64_t addr)
{
    struct modmap *m = arg;

    return modmap_lookup(m, addr + m->main_bias, m->main_bias);
}

void modmap_attach(struct modmap *m, struct sym_table *main, uint64_t main_bias)
{
    m->main_bias = main_bias;
    sym_set_fallback(main, fallback, m);
}

unsigned modmap_clock(const struct modmap *m, uint64_t ticks[2], int64_t ns[2])
{
    if (!m)
        return 0;
    for (int i = 0; i < 2; i++) {
        ticks[i] = m->clock_ticks[i];
        ns[i] = m->clock_ns[i];
    }
    return m->nclock;
}
