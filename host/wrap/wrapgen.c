/* SPDX-License-Identifier: GPL-3.0-or-later */
/* wrapgen.c - the wrapped functions' set, and the C, flags and table `cygtrace wrap` writes.
 *
 * A set is an arena (every string and array its functions point at, freed at once: readers
 * that fail halfway leave nothing to undo) and an array of functions with a hash of their
 * names: a shared library can define thousands. */
#include "wrap/wrapgen.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/oaindex.h"
#include "util/vec.h"

#define ARENA_BLOCK 65536u

struct arena_block {
    struct arena_block *next;
    size_t used, cap;
    max_align_t data[]; /* aligned for anything */
};

struct wrapgen_set {
    struct arena_block *blocks;
    struct wrapgen_fn *fns;
    size_t n, cap;
    struct oaindex ix; /* fns by name */
};

struct wrapgen_set *wrapgen_set_new(void)
{
    return calloc(1, sizeof(struct wrapgen_set));
}

void wrapgen_set_free(struct wrapgen_set *s)
{
    if (!s)
        return;
    while (s->blocks) {
        struct arena_block *b = s->blocks;

        s->blocks = b->next;
        free(b);
    }
    free(s->fns);
    oaindex_free(&s->ix);
    free(s);
}

void *wrapgen_alloc(struct wrapgen_set *s, size_t n)
{
    const size_t align = sizeof(max_align_t);
    struct arena_block *b = s->blocks;
    void *p;

    n = (n + align - 1) / align * align;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > ARENA_BLOCK ? n : ARENA_BLOCK;

        if (!(b = malloc(sizeof *b + cap)))
            return NULL;
        b->used = 0;
        b->cap = cap;
        /* A block for one big request goes second: the current one keeps its free space. */
        if (s->blocks && n > ARENA_BLOCK) {
            b->next = s->blocks->next;
            s->blocks->next = b;
        } else {
            b->next = s->blocks;
            s->blocks = b;
        }
    }
    p = (char *)b->data + b->used;
    b->used += n;
    return memset(p, 0, n);
}

char *wrapgen_strndup(struct wrapgen_set *s, const char *str, size_t len)
{
    char *p = wrapgen_alloc(s, len + 1);

    if (p)
        memcpy(p, str, len);
    return p;
}

char *wrapgen_strdup(struct wrapgen_set *s, const char *str)
{
    return wrapgen_strndup(s, str, strlen(str));
}

char *wrapgen_printf(struct wrapgen_set *s, const char *fmt, ...)
{
    va_list ap;
    char small[256], *p;
    int k;

    va_start(ap, fmt);
    k = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (k < 0 || !(p = wrapgen_alloc(s, (size_t)k + 1)))
        return NULL;
    if ((size_t)k < sizeof small)
        return memcpy(p, small, (size_t)k + 1);
    va_start(ap, fmt);
    vsnprintf(p, (size_t)k + 1, fmt, ap);
    va_end(ap);
    return p;
}

static uint64_t fn_hash(const void *arg, size_t pos)
{
    return oaindex_hash_str(((const struct wrapgen_set *)arg)->fns[pos].name);
}

static int fn_match(const void *arg, size_t pos, const void *key)
{
    return !strcmp(((const struct wrapgen_set *)arg)->fns[pos].name, key);
}

int wrapgen_set_add(struct wrapgen_set *s, const struct wrapgen_fn *fn)
{
    uint64_t h = oaindex_hash_str(fn->name);
    size_t *slot;

    if (oaindex_reserve(&s->ix, 256, fn_hash, s) < 0)
        return -1;
    slot = oaindex_slot(&s->ix, h, fn_match, s, fn->name);
    if (*slot)
        return 0;
    if (vec_grow(&s->fns, &s->cap, s->n, sizeof *s->fns, 64) < 0)
        return -1;
    s->fns[s->n] = *fn;
    oaindex_put(&s->ix, slot, s->n++);
    return 1;
}

const struct wrapgen_fn *wrapgen_set_find(const struct wrapgen_set *s, const char *name)
{
    size_t pos = oaindex_find(&s->ix, oaindex_hash_str(name), fn_match, s, name);

    return pos != SIZE_MAX ? &s->fns[pos] : NULL;
}

size_t wrapgen_set_count(const struct wrapgen_set *s)
{
    return s->n;
}

const struct wrapgen_fn *wrapgen_set_at(const struct wrapgen_set *s, size_t i)
{
    return i < s->n ? &s->fns[i] : NULL;
}

const char *wrapgen_kind_name(enum wrapgen_kind k)
{
    static const char *const names[] = {"int", "uint", "ptr",  "f32", "f64",
                                        "str", "bool", "char", "void"};

    return (unsigned)k < sizeof names / sizeof *names ? names[k] : "?";
}

const char *wrapgen_int_type(unsigned bytes, int is_signed)
{
    switch (bytes) {
    case 1:
        return is_signed ? "signed char" : "unsigned char";
    case 2:
        return is_signed ? "short int" : "short unsigned int";
    case 4:
        return is_signed ? "int" : "unsigned int";
    case 8:
        return is_signed ? "long long int" : "long long unsigned int";
    default:
        return NULL;
    }
}

/* ---- parameter names ---- */

static int is_keyword(const char *s)
{
    static const char *const kw[] = {
        "auto",          "break",        "case",           "char",
        "const",         "continue",     "default",        "do",
        "double",        "else",         "enum",           "extern",
        "float",         "for",          "goto",           "if",
        "inline",        "int",          "long",           "register",
        "restrict",      "return",       "short",          "signed",
        "sizeof",        "static",       "struct",         "switch",
        "typedef",       "union",        "unsigned",       "void",
        "volatile",      "while",        "_Alignas",       "_Alignof",
        "_Atomic",       "_Bool",        "_Complex",       "_Generic",
        "_Imaginary",    "_Noreturn",    "_Static_assert", "_Thread_local",
        "asm",           "typeof",       "bool",           "true",
        "false",         "alignas",      "alignof",        "nullptr",
        "static_assert", "thread_local",
    };

    for (size_t i = 0; i < sizeof kw / sizeof *kw; i++)
        if (!strcmp(s, kw[i]))
            return 1;
    return 0;
}

/* The names cygtrace_wrap.h's macros expand to: a parameter called uintptr_t would turn their
 * casts into something else. */
static int is_used_by_macros(const char *s)
{
    static const char *const used[] = {"uintptr_t", "intptr_t", "uint64_t",
                                       "int64_t",   "uint32_t", "NULL"};

    if (!strncmp(s, "cyg", 3) || !strncmp(s, "CYG", 3) || !strncmp(s, "__", 2))
        return 1;
    for (size_t i = 0; i < sizeof used / sizeof *used; i++)
        if (!strcmp(s, used[i]))
            return 1;
    return 0;
}

static int is_identifier(const char *s)
{
    if (!s || !(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
        return 0;
    for (s++; *s; s++)
        if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
              (*s >= '0' && *s <= '9')))
            return 0;
    return 1;
}

int wrapgen_name_ok(const char *name)
{
    return is_identifier(name) && strlen(name) < 128 && !is_keyword(name) &&
           !is_used_by_macros(name);
}

const char *wrapgen_refused(const char *name)
{
    if (!strncmp(name, "cygtrace_", 9) || !strncmp(name, "__cyg_", 6) || !strncmp(name, "cyg_", 4))
        return "a function of cygtrace's runtime, which its wrapper would call";
    if (!strncmp(name, "__wrap_", 7) || !strncmp(name, "__real_", 7))
        return "a wrapper's name already";
    if (strlen(name) > WRAPGEN_NAME_MAX)
        return "a name longer than 512 characters";
    return NULL;
}

static int name_taken(const struct wrapgen_fn *fn, unsigned upto, const char *name)
{
    for (unsigned k = 0; k < upto; k++)
        if (fn->p[k].name && !strcmp(fn->p[k].name, name))
            return 1;
    return 0;
}

/* Whether a later parameter keeps its own name and it is name: p1 must not take it. */
static int name_kept_later(const struct wrapgen_fn *fn, unsigned from, const char *name)
{
    for (unsigned k = from; k < fn->n; k++)
        if (fn->p[k].name && wrapgen_name_ok(fn->p[k].name) && !strcmp(fn->p[k].name, name))
            return 1;
    return 0;
}

int wrapgen_fix_names(struct wrapgen_set *s, struct wrapgen_fn *fn)
{
    for (unsigned i = 0; i < fn->n; i++) {
        struct wrapgen_param *p = &fn->p[i];
        char name[32];
        size_t len;

        if (p->name && wrapgen_name_ok(p->name) && !name_taken(fn, i, p->name))
            continue;
        len = (size_t)snprintf(name, sizeof name, "p%u", i);
        while ((name_taken(fn, i, name) || name_kept_later(fn, i + 1, name)) &&
               len + 1 < sizeof name) {
            name[len++] = '_';
            name[len] = 0;
        }
        if (!(p->name = wrapgen_strdup(s, name)))
            return -1;
    }
    return 0;
}

/* ---- the table ---- */

/* A growing text. */
struct text {
    char *p;
    size_t len, cap;
    int oom;
};

static void text_add(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void text_add(struct text *t, const char *fmt, ...)
{
    va_list ap;
    int k;

    if (t->oom)
        return;
    for (;;) {
        size_t room = t->cap - t->len;

        va_start(ap, fmt);
        k = vsnprintf(t->p ? t->p + t->len : NULL, room, fmt, ap);
        va_end(ap);
        if (k < 0) {
            t->oom = 1;
            return;
        }
        if ((size_t)k < room) {
            t->len += (size_t)k;
            return;
        }
        size_t cap = (t->cap ? t->cap * 2 : 4096) + (size_t)k;
        char *n = realloc(t->p, cap);

        if (!n) {
            t->oom = 1;
            return;
        }
        t->p = n;
        t->cap = cap;
    }
}

/* The enums of the table, numbered in the order they are first used; two enums with the same
 * enumerators (one type seen by several units) share an id. */
struct enum_ids {
    const struct wrapgen_enum **en;
    size_t n, cap;
};

static int enum_same(const struct wrapgen_enum *a, const struct wrapgen_enum *b)
{
    if (a == b)
        return 1;
    if (a->n != b->n)
        return 0;
    for (unsigned i = 0; i < a->n; i++)
        if (a->items[i].value != b->items[i].value || strcmp(a->items[i].name, b->items[i].name))
            return 0;
    return 1;
}

/* The id (1...) of en, added when new; 0 when out of memory. */
static size_t enum_id(struct enum_ids *ids, const struct wrapgen_enum *en)
{
    for (size_t i = 0; i < ids->n; i++)
        if (enum_same(ids->en[i], en))
            return i + 1;
    if (vec_grow(&ids->en, &ids->cap, ids->n, sizeof *ids->en, 16) < 0)
        return 0;
    ids->en[ids->n++] = en;
    return ids->n;
}

/* The last field of a line, as it is but for a tab or a line break (a DWARF the user did not
 * write may hold anything), which would end it. */
static void table_text(struct text *t, const char *s)
{
    for (; *s; s++)
        text_add(t, "%c", (unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s);
    text_add(t, "\n");
}

/* The kind, enum and type fields of an F or P line. */
static void table_value(struct text *t, struct enum_ids *ids, const struct wrapgen_type *ty)
{
    size_t id = ty->en ? enum_id(ids, ty->en) : 0;

    if (ty->en && !id)
        t->oom = 1;
    if (id)
        text_add(t, "%s\te%zu\t", wrapgen_kind_name(ty->kind), id);
    else
        text_add(t, "%s\t-\t", wrapgen_kind_name(ty->kind));
    table_text(t, ty->shown);
}

char *wrapgen_table(const struct wrapgen_fn *const *fns, size_t n, size_t *len)
{
    struct text t = {0};
    struct enum_ids ids = {0};

    text_add(&t, "cygtrace-wrap 1\n");
    for (size_t i = 0; i < n; i++) {
        const struct wrapgen_fn *fn = fns[i];

        text_add(&t, "F\t%s\t%u\t", fn->name, fn->n);
        table_value(&t, &ids, &fn->ret);
        for (unsigned k = 0; k < fn->n; k++) {
            text_add(&t, "P\t%u\t%s\t", k, fn->p[k].name);
            table_value(&t, &ids, &fn->p[k].t);
        }
    }
    for (size_t i = 0; i < ids.n; i++)
        for (unsigned k = 0; k < ids.en[i]->n; k++) {
            text_add(&t, "E\te%zu\t%lld\t", i + 1, (long long)ids.en[i]->items[k].value);
            table_text(&t, ids.en[i]->items[k].name);
        }
    free(ids.en);
    if (t.oom) {
        free(t.p);
        return NULL;
    }
    *len = t.len;
    return t.p;
}

/* ---- the C file ---- */

/* "type prefixname", or "type *prefixname" when the type ends in a '*'. The name is written as
 * it is, whatever its length: a copy cut to a buffer's size would declare another function
 * than the one the call sites name. */
static void put_decl_as(struct text *t, const char *type, const char *prefix, const char *name)
{
    size_t l = strlen(type);

    text_add(t, "%s%s%s%s", type, l && type[l - 1] == '*' ? "" : " ", prefix, name);
}

static void put_decl(struct text *t, const char *type, const char *name)
{
    put_decl_as(t, type, "", name);
}

/* "(int a, const char *s)", or "(void)". */
static void put_params(struct text *t, const struct wrapgen_fn *fn)
{
    text_add(t, "(");
    for (unsigned k = 0; k < fn->n; k++) {
        text_add(t, "%s", k ? ", " : "");
        put_decl(t, fn->p[k].t.c, fn->p[k].name);
    }
    text_add(t, "%s)", fn->n ? "" : "void");
}

/* "__wrap_f(int a, char c)" declared with its return type. */
static void put_head(struct text *t, const struct wrapgen_fn *fn, const char *prefix)
{
    put_decl_as(t, fn->ret.c, prefix, fn->name);
    put_params(t, fn);
}

static const char *const macro_of[] = {
    "CYGTRACE_WRAP_INT", "CYGTRACE_WRAP_UINT", "CYGTRACE_WRAP_PTR",  "CYGTRACE_WRAP_F32",
    "CYGTRACE_WRAP_F64", "CYGTRACE_WRAP_STR",  "CYGTRACE_WRAP_BOOL", "CYGTRACE_WRAP_CHAR",
};

static void put_record(struct text *t, const struct wrapgen_type *ty, const char *idx,
                       const char *value)
{
    if (ty->cast)
        text_add(t, "    %s(cyg_fn, %s, (%s)%s);\n", macro_of[ty->kind], idx, ty->cast, value);
    else
        text_add(t, "    %s(cyg_fn, %s, %s);\n", macro_of[ty->kind], idx, value);
}

/* "__real_f(a, b)". */
static void put_call(struct text *t, const struct wrapgen_fn *fn)
{
    text_add(t, "__real_%s(", fn->name);
    for (unsigned k = 0; k < fn->n; k++)
        text_add(t, "%s%s", k ? ", " : "", fn->p[k].name);
    text_add(t, ")");
}

/* The wrapper: entry, the arguments in order, the call, the return value, exit; a call the
 * runtime itself makes (cygtrace_wrap_enter says 0) goes straight through. */
static void put_wrapper(struct text *t, const struct wrapgen_fn *fn)
{
    int ret = fn->ret.kind != WRAPGEN_VOID;
    char idx[16];

    text_add(t, "extern ");
    put_head(t, fn, "__real_");
    text_add(t, ";\n");
    put_head(t, fn, "__wrap_");
    text_add(t, ";\nCYGTRACE_NOINSTR ");
    put_head(t, fn, "__wrap_");
    text_add(t, "\n{\n    void *const cyg_fn = (void *)__wrap_%s;\n", fn->name);
    text_add(t, "    void *const cyg_site = __builtin_return_address(0);\n");
    if (ret) {
        text_add(t, "    ");
        put_decl(t, fn->ret.c, "cyg_r");
        text_add(t, ";\n");
    }
    text_add(t, "\n    if (!cygtrace_wrap_enter(cyg_fn, cyg_site))%s",
             ret ? "\n        return " : " {\n        ");
    put_call(t, fn);
    text_add(t, ret ? ";\n" : ";\n        return;\n    }\n");
    for (unsigned k = 0; k < fn->n; k++) {
        snprintf(idx, sizeof idx, "%u", k);
        put_record(t, &fn->p[k].t, idx, fn->p[k].name);
    }
    text_add(t, "    %s", ret ? "cyg_r = " : "");
    put_call(t, fn);
    text_add(t, ";\n");
    if (ret)
        put_record(t, &fn->ret, "CYGTRACE_RET", "cyg_r");
    text_add(t, "    cygtrace_wrap_exit(cyg_fn, cyg_site);\n");
    text_add(t, "%s}\n\n", ret ? "    return cyg_r;\n" : "");
}

/* One line of the table as an assembler string inside a C string: the assembler's escapes
 * (\t, \n, \", \\, octal) written as C escapes of their own. */
static void put_asm_line(struct text *t, const char *s, size_t len)
{
    text_add(t, "        \"\\t.ascii \\\"");
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];

        if (c == '\t')
            text_add(t, "\\\\t");
        else if (c == '\n')
            text_add(t, "\\\\n");
        else if (c == '"' || c == '\\')
            text_add(t, "\\\\\\%c", c);
        else if (c < 0x20 || c >= 0x7f)
            text_add(t, "\\\\%03o", c);
        else
            text_add(t, "%c", c);
    }
    text_add(t, "\\\"\\n\"\n");
}

/* The table in a section of its own that is not allocated (the "" flags): it costs no flash
 * or RAM, --gc-sections keeps it, and every wrapped library's block ends up in one section. */
static void put_table(struct text *t, const char *table, size_t len)
{
    text_add(t, "/* The signature table: what cygtrace shows the values above as. */\n");
    text_add(t, "__asm__(\".pushsection .cygtrace_wrap,\\\"\\\",%%progbits\\n\"\n");
    for (size_t at = 0; at < len;) {
        const char *nl = memchr(table + at, '\n', len - at);
        size_t l = nl ? (size_t)(nl - (table + at)) + 1 : len - at;

        put_asm_line(t, table + at, l);
        at += l;
    }
    text_add(t, "        \"\\t.popsection\");\n");
}

/* A comment holds origin as it is, but for what could end the comment or a line. */
static void put_origin(struct text *t, const char *origin)
{
    for (const char *c = origin; *c; c++)
        text_add(t, "%c",
                 (*c == '*' && c[1] == '/') || (unsigned char)*c < 0x20 || *c == 0x7f ? '?' : *c);
}

int wrapgen_write_c(FILE *f, const struct wrapgen_fn *const *fns, size_t n, const char *origin)
{
    struct text t = {0};
    size_t tlen;
    char *table = wrapgen_table(fns, n, &tlen);
    int rc = -1;

    if (!table)
        return -1;
    text_add(&t, "/* cygtrace_wrap.c - written by 'cygtrace wrap' from ");
    put_origin(&t, origin);
    text_add(&t, "; do not edit, run it again.\n"
                 " * Link this file and the runtime with @cygtrace_wrap.flags: a call to a "
                 "function below then\n"
                 " * reaches __wrap_NAME, which records it with its arguments and return value, "
                 "and calls the\n"
                 " * function itself (__real_NAME). Build it with -I for the runtime's "
                 "target/core and common. */\n"
                 "#include \"cygtrace_wrap.h\"\n\n");
    for (size_t i = 0; i < n; i++)
        put_wrapper(&t, fns[i]);
    put_table(&t, table, tlen);
    if (!t.oom && fwrite(t.p, 1, t.len, f) == t.len)
        rc = 0;
    free(t.p);
    free(table);
    return rc;
}

int wrapgen_write_flags(FILE *f, const struct wrapgen_fn *const *fns, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (fprintf(f, "-Wl,--wrap=%s\n", fns[i]->name) < 0)
            return -1;
    return 0;
}
