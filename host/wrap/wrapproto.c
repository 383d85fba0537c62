/* SPDX-License-Identifier: GPL-3.0-or-later */
/* wrapproto.c - C prototypes, a line at a time: a tokenizer and a small recursive descent
 * over the part of C's declarations that a function's signature uses.
 *
 * A type is kept as a base (int, char, a struct...) and a chain of pointers, each level with
 * its qualifiers, since a wrapper needs two things from it: how to pass it (its C type
 * without the library's headers) and how to record it (a string is a pointer to plain char,
 * const or not, any other pointer an address). The table shows it as it was written. */
#include "wrap/wrapproto.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE_TOKENS 256u /* tokens in a line, at most */
#define MAX_PTR 8u       /* pointer levels */
#define MAX_PARSED 64u   /* parameters parsed (more than 15 is then a reason to skip) */
#define SHOWN_MAX 200u   /* a type as written, at most (for the table) */

enum tok_kind { T_WORD, T_NUM, T_PUNCT, T_END };

struct tok {
    enum tok_kind kind;
    const char *s;
    size_t len;
};

enum base {
    B_VOID,
    B_INT, /* c says which; uns whether unsigned */
    B_CHAR,
    B_BOOL,
    B_FLOAT,
    B_DOUBLE,
    B_LDOUBLE,
    B_RECORD, /* struct, union, FILE: by pointer only */
    B_ENUM,
    B_FNPTR, /* a function pointer: its own pointer included */
};

#define Q_CONST 1u
#define Q_VOLATILE 2u

struct ptype {
    enum base base;
    int uns;
    const char *c; /* B_INT: the wrapper's spelling */
    unsigned nptr;
    unsigned char q[MAX_PTR + 1]; /* qualifiers of the base (0) and of pointer level k */
};

struct tdef {
    char *name;
    struct ptype t;
    unsigned line;
};

struct parser {
    struct tok t[LINE_TOKENS + 1];
    unsigned n, i;
    char err[200];
    struct wrapgen_set *set;
    struct tdef *defs;
    size_t ndefs, capdefs;
    unsigned line;
};

/* The typedef names everyone knows, as the wrapper writes them: the <stdint.h> and <stddef.h>
 * names as they are (cygtrace_wrap.h includes both); the POSIX ones as the C type they are on
 * every target cygtrace supports (Linux x86-64 and i386, newlib ARM and RISC-V): ssize_t is a
 * signed word, off_t a long (the symbol without 64: lseek, not lseek64). */
static const struct {
    const char *name, *c;
    int uns;
} builtin_ints[] = {
    {"size_t", "size_t", 1},     {"ssize_t", "intptr_t", 0},    {"ptrdiff_t", "ptrdiff_t", 0},
    {"off_t", "long int", 0},    {"mode_t", "unsigned int", 1}, {"pid_t", "int", 0},
    {"intptr_t", "intptr_t", 0}, {"uintptr_t", "uintptr_t", 1}, {"int8_t", "int8_t", 0},
    {"int16_t", "int16_t", 0},   {"int32_t", "int32_t", 0},     {"int64_t", "int64_t", 0},
    {"uint8_t", "uint8_t", 1},   {"uint16_t", "uint16_t", 1},   {"uint32_t", "uint32_t", 1},
    {"uint64_t", "uint64_t", 1},
};

static void fail(struct parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct parser *ps, const char *fmt, ...)
{
    va_list ap;

    if (ps->err[0])
        return; /* the first problem is the one to tell */
    va_start(ap, fmt);
    vsnprintf(ps->err, sizeof ps->err, fmt, ap);
    va_end(ap);
}

/* ---- tokens ---- */

static int is_word_char(char c, int first)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (!first && c >= '0' && c <= '9');
}

/* Splits one line into tokens; a trailing // comment and C comments are dropped. */
static int tokenize(struct parser *ps, const char *s, size_t len)
{
    size_t i = 0;

    ps->n = ps->i = 0;
    while (i < len) {
        struct tok *t = &ps->t[ps->n];
        char c = s[i];

        if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            i++;
            continue;
        }
        if (c == '/' && i + 1 < len && s[i + 1] == '/')
            break;
        if (c == '/' && i + 1 < len && s[i + 1] == '*') {
            const char *end = NULL;

            for (size_t k = i + 2; k + 1 < len && !end; k++)
                if (s[k] == '*' && s[k + 1] == '/')
                    end = s + k;
            if (!end) {
                fail(ps, "a comment that does not end on its line");
                return -1;
            }
            i = (size_t)(end - s) + 2;
            continue;
        }
        if (ps->n == LINE_TOKENS) {
            fail(ps, "too long (more than %u tokens)", LINE_TOKENS);
            return -1;
        }
        t->s = s + i;
        if (is_word_char(c, 1) || (c >= '0' && c <= '9')) {
            t->kind = is_word_char(c, 1) ? T_WORD : T_NUM;
            while (i < len && is_word_char(s[i], 0))
                i++;
        } else if (c == '.' && i + 2 < len && s[i + 1] == '.' && s[i + 2] == '.') {
            t->kind = T_PUNCT;
            i += 3;
        } else if (strchr("*(),;[]", c)) {
            t->kind = T_PUNCT;
            i++;
        } else {
            if ((unsigned char)c >= 0x20 && (unsigned char)c < 0x7f)
                fail(ps, "unexpected '%c'", c);
            else
                fail(ps, "unexpected byte 0x%02x", (unsigned char)c);
            return -1;
        }
        t->len = (size_t)(s + i - t->s);
        ps->n++;
    }
    ps->t[ps->n] = (struct tok){T_END, s + len, 0};
    return 0;
}

static const struct tok *peek(const struct parser *ps)
{
    return &ps->t[ps->i];
}

static int is(const struct tok *t, const char *s)
{
    return t->kind != T_END && t->len == strlen(s) && !memcmp(t->s, s, t->len);
}

static int accept(struct parser *ps, const char *s)
{
    if (!is(peek(ps), s))
        return 0;
    ps->i++;
    return 1;
}

/* What a token is, for messages: "'foo'", or "the end of the line". */
static const char *what(const struct tok *t, char *buf, size_t len)
{
    if (t->kind == T_END)
        return "the end of the line";
    snprintf(buf, len, "'%.*s'", (int)(t->len < 40 ? t->len : 40), t->s);
    return buf;
}

static int expect(struct parser *ps, const char *s)
{
    char buf[64];

    if (accept(ps, s))
        return 0;
    fail(ps, "expected '%s', not %s", s, what(peek(ps), buf, sizeof buf));
    return -1;
}

/* The text of tokens [from, to) but the token at skip (a declarator's name), spaced the way C
 * is usually written: "const char *", "char *const", "int (*)(int)". */
static void shown_of(const struct parser *ps, unsigned from, unsigned to, unsigned skip, char *out,
                     size_t len)
{
    size_t n = 0;
    const struct tok *prev = NULL;

    out[0] = 0;
    for (unsigned k = from; k < to; k++) {
        const struct tok *t = &ps->t[k];
        int word = t->kind != T_PUNCT, pword = prev && prev->kind != T_PUNCT;
        const char *sp = "";

        if (k == skip || is(t, "extern"))
            continue;
        if (prev && ((word && (pword || is(prev, ",") || is(prev, ")") || is(prev, "]"))) ||
                     (!word && pword && (is(t, "*") || is(t, "(") || is(t, "["))) ||
                     (is(t, "...") && is(prev, ","))))
            sp = " ";
        if (n < len)
            n += (size_t)snprintf(out + n, len - n, "%s%.*s", sp, (int)t->len, t->s);
        prev = t;
    }
}

/* ---- types ---- */

static const struct tdef *tdef_find(const struct parser *ps, const struct tok *t)
{
    for (size_t i = ps->ndefs; i-- > 0;)
        if (strlen(ps->defs[i].name) == t->len && !memcmp(ps->defs[i].name, t->s, t->len))
            return &ps->defs[i];
    return NULL;
}

/* A typedef name's type: the file's own, else a known one; 0, or -1 when t names none. */
static int named_type(const struct parser *ps, const struct tok *t, struct ptype *out)
{
    const struct tdef *d = tdef_find(ps, t);

    memset(out, 0, sizeof *out);
    if (d) {
        *out = d->t;
        return 0;
    }
    for (size_t i = 0; i < sizeof builtin_ints / sizeof *builtin_ints; i++)
        if (is(t, builtin_ints[i].name)) {
            out->base = B_INT;
            out->c = builtin_ints[i].c;
            out->uns = builtin_ints[i].uns;
            return 0;
        }
    if (is(t, "FILE")) {
        out->base = B_RECORD;
        return 0;
    }
    return -1;
}

/* The keywords of a base type, counted. */
struct spec {
    unsigned sign, uns, shorts, longs, chars, ints, floats, doubles, voids, bools;
    unsigned any;   /* a keyword above, or a record, enum or typedef name */
    unsigned named; /* a record, enum or typedef name */
};

static int spec_word(struct spec *sp, const struct tok *t)
{
    static const struct {
        const char *w;
        size_t off;
    } words[] = {
        {"signed", offsetof(struct spec, sign)},  {"unsigned", offsetof(struct spec, uns)},
        {"short", offsetof(struct spec, shorts)}, {"long", offsetof(struct spec, longs)},
        {"char", offsetof(struct spec, chars)},   {"int", offsetof(struct spec, ints)},
        {"float", offsetof(struct spec, floats)}, {"double", offsetof(struct spec, doubles)},
        {"void", offsetof(struct spec, voids)},   {"_Bool", offsetof(struct spec, bools)},
        {"bool", offsetof(struct spec, bools)},
    };

    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (is(t, words[i].w)) {
            (*(unsigned *)((char *)sp + words[i].off))++;
            sp->any++;
            return 1;
        }
    return 0;
}

/* The integer type the keywords name, as GCC's DWARF names it; NULL when they name none. */
static const char *int_spelling(const struct spec *s)
{
    int u = s->uns > 0;

    if (s->floats || s->doubles || s->voids || s->bools || s->chars || s->ints > 1 ||
        (s->shorts && s->longs) || s->shorts > 1 || s->longs > 2 || s->sign + s->uns > 1)
        return NULL;
    if (s->shorts)
        return u ? "short unsigned int" : "short int";
    if (s->longs == 2)
        return u ? "long long unsigned int" : "long long int";
    if (s->longs == 1)
        return u ? "long unsigned int" : "long int";
    return u ? "unsigned int" : "int";
}

/* Turns counted keywords into a base type. */
static int spec_base(struct parser *ps, const struct spec *s, struct ptype *t, const char *text)
{
    unsigned others = s->sign + s->uns + s->shorts + s->longs + s->ints;

    if (s->voids == 1 && s->any == 1)
        t->base = B_VOID;
    else if (s->bools == 1 && s->any == 1)
        t->base = B_BOOL;
    else if (s->floats == 1 && s->any == 1)
        t->base = B_FLOAT;
    else if (s->doubles == 1 && s->any == 1)
        t->base = B_DOUBLE;
    else if (s->doubles == 1 && s->longs == 1 && s->any == 2)
        t->base = B_LDOUBLE;
    else if (s->chars == 1 && s->any == 1)
        t->base = B_CHAR;
    else if (s->chars == 1 && s->sign + s->uns == 1 && s->any == 2) {
        t->base = B_INT;
        t->uns = s->uns > 0;
        t->c = t->uns ? "unsigned char" : "signed char";
    } else if (others == s->any && (t->c = int_spelling(s))) {
        t->base = B_INT;
        t->uns = s->uns > 0;
    } else {
        fail(ps, "not a C type: '%s'", text);
        return -1;
    }
    return 0;
}

/* Words that change nothing a wrapper needs. */
static int ignored_word(const struct tok *k)
{
    return is(k, "restrict") || is(k, "__restrict") || is(k, "__restrict__") || is(k, "extern");
}

/* One word of the specifiers at the current token, into s, t and *q (the token is taken): 1,
 * 0 when it is none (the declarator begins), -1 when it is wrong. */
static int spec_take(struct parser *ps, struct spec *s, struct ptype *t, unsigned *q)
{
    const struct tok *k = peek(ps);
    char buf[64];

    if (is(k, "const") || is(k, "volatile")) {
        *q |= is(k, "const") ? Q_CONST : Q_VOLATILE;
    } else if (ignored_word(k) || spec_word(s, k)) {
        /* counted */
    } else if ((is(k, "struct") || is(k, "union") || is(k, "enum")) && !s->any) {
        t->base = is(k, "enum") ? B_ENUM : B_RECORD;
        ps->i++;
        if (peek(ps)->kind != T_WORD) {
            fail(ps, "expected a name after '%.*s', not %s", (int)k->len, k->s,
                 what(peek(ps), buf, sizeof buf));
            return -1;
        }
        s->any++;
        s->named = 1;
    } else if (k->kind == T_WORD && !s->any) {
        if (named_type(ps, k, t) < 0) {
            fail(ps, "unknown type '%.*s'; name it first with a line 'typedef <type> %.*s;'",
                 (int)k->len, k->s, (int)k->len, k->s);
            return -1;
        }
        s->any++;
        s->named = 1;
    } else {
        return 0;
    }
    ps->i++;
    return 1;
}

/* The declaration specifiers: qualifiers and one base type (keywords, struct/union/enum X, or
 * a typedef name). Stops at what follows (a '*', the declarator's name, a ')'...). */
static int parse_spec(struct parser *ps, struct ptype *t)
{
    struct spec s = {0};
    unsigned q = 0, from = ps->i;
    char text[SHOWN_MAX], buf[64];
    int rc;

    memset(t, 0, sizeof *t);
    do
        rc = spec_take(ps, &s, t, &q);
    while (rc > 0);
    if (rc < 0)
        return -1;
    shown_of(ps, from, ps->i, ~0u, text, sizeof text);
    if (!s.any) {
        fail(ps, "expected a type, not %s", what(peek(ps), buf, sizeof buf));
        return -1;
    }
    if (s.named && s.any > 1) {
        fail(ps, "not a C type: '%s'", text);
        return -1;
    }
    if (!s.named && spec_base(ps, &s, t, text) < 0)
        return -1;
    t->q[t->nptr] |= (unsigned char)q; /* on a typedef of a pointer: the pointer's own */
    return 0;
}

/* Pointers after the specifiers: '*', each with its qualifiers. */
static int parse_pointers(struct parser *ps, struct ptype *t)
{
    while (accept(ps, "*")) {
        if (t->nptr == MAX_PTR) {
            fail(ps, "more than %u levels of pointers", MAX_PTR);
            return -1;
        }
        t->nptr++;
        for (;;) {
            if (accept(ps, "const"))
                t->q[t->nptr] |= Q_CONST;
            else if (accept(ps, "volatile"))
                t->q[t->nptr] |= Q_VOLATILE;
            else if (ignored_word(peek(ps)))
                ps->i++;
            else
                break;
        }
    }
    return 0;
}

/* Skips a parenthesized group whose '(' is the current token. */
static int skip_group(struct parser *ps)
{
    unsigned depth = 0;

    do {
        if (peek(ps)->kind == T_END) {
            fail(ps, "a '(' without its ')'");
            return -1;
        }
        depth += is(peek(ps), "(");
        depth -= is(peek(ps), ")");
        ps->i++;
    } while (depth);
    return 0;
}

/* Array suffixes ("[]", "[16]"): as a parameter, an array is a pointer to its first element. */
static int parse_arrays(struct parser *ps, struct ptype *t, int allowed)
{
    int first = 1;

    while (is(peek(ps), "[")) {
        if (!allowed) {
            fail(ps, "an array here is not supported");
            return -1;
        }
        ps->i++;
        if (peek(ps)->kind == T_NUM || peek(ps)->kind == T_WORD)
            ps->i++;
        if (expect(ps, "]") < 0)
            return -1;
        /* int m[][4]: a pointer to arrays, which is a pointer all the same */
        if (first && t->nptr < MAX_PTR) {
            t->nptr++;
            t->q[t->nptr] = 0;
        }
        first = 0;
    }
    return 0;
}

/* A declarator after the specifiers: pointers, then a name (required when name_req), or
 * "(*name)(params)", then arrays when allowed. *name_at is the name's token index, or ~0u. */
static int parse_declarator(struct parser *ps, struct ptype *t, int name_req, int arrays,
                            unsigned *name_at)
{
    char buf[64];

    *name_at = ~0u;
    if (parse_pointers(ps, t) < 0)
        return -1;
    if (is(peek(ps), "(") && is(&ps->t[ps->i + 1], "*")) {
        ps->i += 2;
        if (peek(ps)->kind == T_WORD)
            *name_at = ps->i++;
        if (expect(ps, ")") < 0)
            return -1;
        if (!is(peek(ps), "(")) {
            fail(ps, "expected a parameter list after '(*...)', not %s",
                 what(peek(ps), buf, sizeof buf));
            return -1;
        }
        if (skip_group(ps) < 0)
            return -1;
        memset(t, 0, sizeof *t);
        t->base = B_FNPTR;
    } else if (peek(ps)->kind == T_WORD) {
        *name_at = ps->i++;
    }
    if (name_req && *name_at == ~0u) {
        fail(ps, "expected a name, not %s", what(peek(ps), buf, sizeof buf));
        return -1;
    }
    return parse_arrays(ps, t, arrays);
}

/* ---- from a parsed type to what the wrapper does with it ---- */

/* t as the wrapper passes and records it; NULL, or why it cannot be wrapped. */
static const char *wrap_type(const struct ptype *t, const char *shown, struct wrapgen_type *w)
{
    static const struct {
        enum wrapgen_kind kind;
        const char *c;
    } plain[] = {
        [B_CHAR] = {WRAPGEN_CHAR, "char"},  [B_BOOL] = {WRAPGEN_BOOL, "_Bool"},
        [B_FLOAT] = {WRAPGEN_F32, "float"}, [B_DOUBLE] = {WRAPGEN_F64, "double"},
        [B_ENUM] = {WRAPGEN_INT, "int"}, /* enumerators unknown: the int it is passed as */
        [B_VOID] = {WRAPGEN_VOID, "void"},
    };

    memset(w, 0, sizeof *w);
    w->shown = shown;
    if (t->base == B_FNPTR ||
        (t->nptr && !(t->nptr == 1 && t->base == B_CHAR && !(t->q[0] & Q_VOLATILE)))) {
        w->kind = WRAPGEN_PTR;
        w->c = t->nptr && (t->q[t->nptr - 1] & Q_CONST) ? "const void *" : "void *";
        return NULL;
    }
    if (t->nptr) {
        w->kind = WRAPGEN_STR;
        w->c = t->q[0] & Q_CONST ? "const char *" : "char *";
        return NULL;
    }
    switch (t->base) {
    case B_INT:
        w->kind = t->uns ? WRAPGEN_UINT : WRAPGEN_INT;
        w->c = t->c;
        return NULL;
    case B_LDOUBLE:
        return "long double";
    case B_RECORD:
        return "by value";
    default:
        w->kind = plain[t->base].kind;
        w->c = plain[t->base].c;
        return NULL;
    }
}

/* ---- lines ---- */

/* One parameter, into p (its type's text from the set's arena). */
static int parse_param(struct parser *ps, struct wrapgen_fn *fn, unsigned idx, const char **why)
{
    struct ptype t;
    unsigned from = ps->i, name_at;
    char shown[SHOWN_MAX];
    struct wrapgen_type w;
    const char *bad;

    if (parse_spec(ps, &t) < 0 || parse_declarator(ps, &t, 0, 1, &name_at) < 0)
        return -1;
    if (t.base == B_VOID && !t.nptr) {
        fail(ps, "a parameter of type void (only '(void)' alone means no parameters)");
        return -1;
    }
    shown_of(ps, from, ps->i, name_at, shown, sizeof shown);
    if (!(w.shown = wrapgen_strdup(ps->set, shown)))
        return -2;
    bad = wrap_type(&t, w.shown, &w);
    if (idx >= WRAPGEN_MAX_PARAMS)
        return 0;
    fn->p[idx].t = w;
    if (name_at != ~0u &&
        !(fn->p[idx].name = wrapgen_strndup(ps->set, ps->t[name_at].s, ps->t[name_at].len)))
        return -2;
    if (bad && !*why &&
        !(*why = wrapgen_printf(ps->set, "parameter %u (%s): %s%s%s", idx,
                                fn->p[idx].name ? fn->p[idx].name : "unnamed", w.shown,
                                bad[0] == 'b' ? " " : "", bad[0] == 'b' ? bad : "")))
        return -2;
    return 0;
}

/* The parameter list after the '(': sets fn->n, and fn->skip for a variadic function, too
 * many parameters, or a parameter that cannot be passed on. */
static int parse_params(struct parser *ps, struct wrapgen_fn *fn)
{
    const char *why = NULL;
    unsigned n = 0;
    int variadic = 0, rc;

    if (is(peek(ps), "void") && is(&ps->t[ps->i + 1], ")"))
        ps->i++;
    else if (!is(peek(ps), ")")) {
        do {
            if (accept(ps, "...")) {
                variadic = 1;
                break;
            }
            if (n == MAX_PARSED) {
                fail(ps, "more than %u parameters", MAX_PARSED);
                return -1;
            }
            if ((rc = parse_param(ps, fn, n++, &why)) < 0)
                return rc;
        } while (accept(ps, ","));
    }
    if (expect(ps, ")") < 0)
        return -1;
    fn->n = n < WRAPGEN_MAX_PARAMS ? n : WRAPGEN_MAX_PARAMS;
    fn->skip = why;
    if (variadic)
        fn->skip = "variadic";
    else if (n > WRAPGEN_MAX_PARAMS &&
             !(fn->skip =
                   wrapgen_printf(ps->set, "%u parameters, more than %u", n, WRAPGEN_MAX_PARAMS)))
        return -2;
    return 0;
}

static int end_of_line(struct parser *ps)
{
    char buf[64];

    accept(ps, ";");
    if (peek(ps)->kind == T_END)
        return 0;
    fail(ps, "unexpected %s after the declaration", what(peek(ps), buf, sizeof buf));
    return -1;
}

/* "typedef TYPE NAME;": a name for the lines that follow. */
static int parse_typedef(struct parser *ps)
{
    struct ptype t;
    unsigned name_at;
    const struct tok *nt;
    struct tdef *d;

    ps->i++;
    if (parse_spec(ps, &t) < 0 || parse_declarator(ps, &t, 1, 0, &name_at) < 0 ||
        end_of_line(ps) < 0)
        return -1;
    nt = &ps->t[name_at];
    if (tdef_find(ps, nt)) {
        fail(ps, "typedef %.*s: named already on line %u", (int)nt->len, nt->s,
             tdef_find(ps, nt)->line);
        return -1;
    }
    if (ps->ndefs == ps->capdefs) {
        size_t cap = ps->capdefs ? ps->capdefs * 2 : 16;

        if (!(d = realloc(ps->defs, cap * sizeof *d)))
            return -2;
        ps->defs = d;
        ps->capdefs = cap;
    }
    d = &ps->defs[ps->ndefs];
    if (!(d->name = wrapgen_strndup(ps->set, nt->s, nt->len)))
        return -2;
    d->t = t;
    d->line = ps->line;
    ps->ndefs++;
    return 0;
}

/* "TYPE NAME(PARAMS);": a function. */
static int parse_proto(struct parser *ps)
{
    struct wrapgen_fn fn;
    struct ptype t;
    unsigned from = ps->i, name_at;
    char shown[SHOWN_MAX];
    const struct wrapgen_fn *had;
    const char *bad;
    int rc;

    memset(&fn, 0, sizeof fn);
    if (parse_spec(ps, &t) < 0 || parse_pointers(ps, &t) < 0)
        return -1;
    shown_of(ps, from, ps->i, ~0u, shown, sizeof shown);
    if (peek(ps)->kind != T_WORD || !is(&ps->t[ps->i + 1], "(")) {
        fail(ps, "not a prototype: expected TYPE NAME(PARAMETERS);");
        return -1;
    }
    name_at = ps->i;
    ps->i += 2;
    if ((rc = parse_params(ps, &fn)) < 0 || (rc = end_of_line(ps)) < 0)
        return rc;
    if (!(fn.name = wrapgen_strndup(ps->set, ps->t[name_at].s, ps->t[name_at].len)) ||
        !(fn.ret.shown = wrapgen_strdup(ps->set, shown)))
        return -2;
    if ((had = wrapgen_set_find(ps->set, fn.name))) {
        fail(ps, "%s: a second prototype (the first one stays)", fn.name);
        return -1;
    }
    if ((bad = wrap_type(&t, fn.ret.shown, &fn.ret)) && !fn.skip &&
        !(fn.skip = wrapgen_printf(ps->set, "returns %s%s%s", fn.ret.shown,
                                   bad[0] == 'b' ? " " : "", bad[0] == 'b' ? bad : "")))
        return -2;
    if (wrapgen_fix_names(ps->set, &fn) < 0 || wrapgen_set_add(ps->set, &fn) < 0)
        return -2;
    return 0;
}

/* One line: 0 done (or nothing on it), -1 bad (ps->err says why), -2 out of memory. */
static int parse_line(struct parser *ps, const char *s, size_t len)
{
    size_t k = 0;

    while (k < len && (s[k] == ' ' || s[k] == '\t' || s[k] == '\r'))
        k++;
    if (k == len || s[k] == '#' || (s[k] == '/' && k + 1 < len && s[k + 1] == '/'))
        return 0;
    if (tokenize(ps, s, len) < 0)
        return -1;
    if (ps->n == 0)
        return 0;
    if (is(peek(ps), "typedef"))
        return parse_typedef(ps);
    return parse_proto(ps);
}

int wrapproto_parse(const char *text, size_t len, struct wrapgen_set *set, wrapproto_bad_fn bad,
                    void *arg)
{
    struct parser *ps = calloc(1, sizeof *ps);
    size_t at = 0;
    int nbad = 0;

    if (!ps)
        return -1;
    ps->set = set;
    while (at < len) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t l = (nl ? (size_t)(nl - text) : len) - at;
        int rc;

        ps->line++;
        ps->err[0] = 0;
        if (memchr(text + at, '\0', l)) {
            rc = -1;
            fail(ps, "a NUL byte (not a text file?)");
        } else
            rc = parse_line(ps, text + at, l);
        if (rc == -2) {
            nbad = -1;
            break;
        }
        if (rc < 0) {
            bad(arg, ps->line, ps->err[0] ? ps->err : "not understood");
            nbad++;
        }
        at += l + 1;
    }
    free(ps->defs);
    free(ps);
    return nbad;
}
