/* SPDX-License-Identifier: GPL-3.0-or-later */
/* wrapdw.c - function signatures from DWARF for cygtrace wrap.
 *
 * A type is followed through its typedefs and qualifiers to what decides how it is passed: a
 * base type (its encoding and size), a pointer (a string when it points at plain char), an
 * enum (an integer of its size), a struct or union (by value: not wrapped). The table shows
 * the type as the source wrote it (dwdecl.c's declarator text). */
#include "wrap/wrapdw.h"

#include <libdwarf/dwarf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/dwdecl.h"
#include "symbols/dwdie.h"

#define TYPE_DEPTH 16u /* longer chains of typedefs and qualifiers (or a cycle): unknown */
#define SHOWN_MAX 256u /* a type's text for the table, at most */
#define MAX_ENUMERATORS 65536u
#define ENUMERATOR_NAME_MAX 256u /* a longer name (a damaged string offset): the value alone */

#define Q_CONST 1u
#define Q_VOLATILE 2u
#define Q_DEEP 4u

struct ctx {
    Dwarf_Debug dbg;
    struct wrapgen_set *set;
    wrapdw_want_fn want;
    void *arg;
};

/* The linkage name (C++'s mangled one, which is the symbol), or NULL. */
static const char *linkage_name(Dwarf_Die die)
{
    static const Dwarf_Half ats[] = {DW_AT_linkage_name, DW_AT_MIPS_linkage_name};
    char *s = NULL;

    for (size_t i = 0; i < sizeof ats / sizeof *ats && !s; i++) {
        Dwarf_Attribute a;

        if (dwarf_attr(die, ats[i], &a, NULL) != DW_DLV_OK)
            continue;
        if (dwarf_formstring(a, &s, NULL) != DW_DLV_OK)
            s = NULL;
        dwarf_dealloc_attribute(a);
    }
    return s;
}

/* t (owned: given up) without its typedefs and qualifiers: the DIE that decides (owned by the
 * caller), NULL for void. *q collects the qualifiers passed, Q_DEEP when the chain is too long. */
static Dwarf_Die strip(Dwarf_Debug dbg, Dwarf_Die t, unsigned *q)
{
    for (unsigned depth = 0; t; depth++) {
        Dwarf_Half tag = dwdie_tag(t);
        Dwarf_Die next;

        if (depth == TYPE_DEPTH) {
            *q |= Q_DEEP;
            return t;
        }
        if (tag == DW_TAG_const_type)
            *q |= Q_CONST;
        else if (tag == DW_TAG_volatile_type)
            *q |= Q_VOLATILE;
        else if (tag != DW_TAG_typedef && tag != DW_TAG_restrict_type && tag != DW_TAG_atomic_type)
            return t;
        next = dwdie_ref(dbg, t, DW_AT_type);
        dwarf_dealloc_die(t);
        t = next;
    }
    return NULL;
}

/* Whether name is spelled with C's integer keywords only ("long unsigned int"): then the
 * wrapper can use it as it is. */
static int c_int_name(const char *name)
{
    static const char *const words[] = {"signed", "unsigned", "char", "short", "int", "long"};
    const char *p = name;

    while (p && *p) {
        size_t len = strcspn(p, " "), k;

        for (k = 0; k < sizeof words / sizeof *words; k++)
            if (len == strlen(words[k]) && !strncmp(p, words[k], len))
                break;
        if (k == sizeof words / sizeof *words)
            return 0;
        p += len;
        p += *p == ' ';
    }
    return name && *name;
}

/* A base type: NULL, or why it cannot be passed on. */
static const char *base_type(struct ctx *c, Dwarf_Die t, struct wrapgen_type *w)
{
    Dwarf_Unsigned enc = dwdie_u(t, DW_AT_encoding);
    Dwarf_Unsigned size = dwdie_u(t, DW_AT_byte_size);
    const char *name = dwdie_name(t);
    int sgn = enc == DW_ATE_signed || enc == DW_ATE_signed_char;

    if (name && strstr(name, "long double"))
        return "long double";
    if (enc == DW_ATE_boolean && size == 1) {
        w->kind = WRAPGEN_BOOL;
        w->c = "_Bool";
    } else if (enc == DW_ATE_float && (size == 4 || size == 8)) {
        w->kind = size == 4 ? WRAPGEN_F32 : WRAPGEN_F64;
        w->c = size == 4 ? "float" : "double";
    } else if ((enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char) && size == 1 && name &&
               !strcmp(name, "char")) {
        w->kind = WRAPGEN_CHAR; /* plain char; signed char is a number */
        w->c = "char";
    } else if ((enc == DW_ATE_signed || enc == DW_ATE_unsigned || enc == DW_ATE_signed_char ||
                enc == DW_ATE_unsigned_char || enc == DW_ATE_UTF) &&
               wrapgen_int_type((unsigned)size, sgn)) {
        w->kind = sgn ? WRAPGEN_INT : WRAPGEN_UINT;
        w->c = c_int_name(name) && enc != DW_ATE_UTF ? wrapgen_strdup(c->set, name)
                                                     : wrapgen_int_type((unsigned)size, sgn);
    } else {
        return "unknown";
    }
    return NULL;
}

/* A pointer: a string when it points at plain char that is not volatile. */
static void pointer_type(struct ctx *c, Dwarf_Die t, struct wrapgen_type *w)
{
    unsigned q = 0;
    Dwarf_Die p = strip(c->dbg, dwdie_ref(c->dbg, t, DW_AT_type), &q);
    const char *name = p && dwdie_tag(p) == DW_TAG_base_type ? dwdie_name(p) : NULL;
    Dwarf_Unsigned enc = p ? dwdie_u(p, DW_AT_encoding) : 0;

    if (name && !strcmp(name, "char") && dwdie_u(p, DW_AT_byte_size) == 1 &&
        (enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char) && !(q & Q_VOLATILE)) {
        w->kind = WRAPGEN_STR;
        w->c = q & Q_CONST ? "const char *" : "char *";
    } else {
        w->kind = WRAPGEN_PTR;
        w->c = q & Q_CONST ? "const void *" : "void *";
    }
    if (p)
        dwarf_dealloc_die(p);
}

/* v, an enumerator's bits, sign-extended from the enum's size: how the wrapper records it. */
static int64_t sign_extend(uint64_t v, unsigned bytes)
{
    uint64_t m;

    if (bytes >= 8)
        return (int64_t)v;
    m = 1ull << (bytes * 8 - 1);
    v &= (m << 1) - 1;
    return (int64_t)((v ^ m) - m);
}

/* An enumerator's value: signed enums' constants are signed whatever their form. */
static int enumerator_value(Dwarf_Die e, int sgn, uint64_t *v)
{
    Dwarf_Attribute a;
    Dwarf_Half form = 0;
    Dwarf_Signed s = 0;
    Dwarf_Unsigned u = 0;
    int rc = -1;

    if (dwarf_attr(e, DW_AT_const_value, &a, NULL) != DW_DLV_OK)
        return -1;
    dwarf_whatform(a, &form, NULL);
    if (sgn || form == DW_FORM_sdata || form == DW_FORM_implicit_const) {
        if (dwarf_formsdata(a, &s, NULL) == DW_DLV_OK) {
            *v = (uint64_t)s;
            rc = 0;
        }
    } else if (dwarf_formudata(a, &u, NULL) == DW_DLV_OK) {
        *v = u;
        rc = 0;
    }
    dwarf_dealloc_attribute(a);
    return rc;
}

/* Whether an enum is signed: as its underlying type says, else (DWARF 2) as GCC decides, by
 * a negative enumerator. */
static int enum_signed(struct ctx *c, Dwarf_Die t)
{
    unsigned q = 0;
    Dwarf_Die u = strip(c->dbg, dwdie_ref(c->dbg, t, DW_AT_type), &q);
    Dwarf_Die e;
    int sgn = 0;

    if (u) {
        Dwarf_Unsigned enc = dwdie_u(u, DW_AT_encoding);

        dwarf_dealloc_die(u);
        return enc == DW_ATE_signed || enc == DW_ATE_signed_char;
    }
    for (e = dwdie_child(t); e; e = dwdie_next(c->dbg, e)) {
        Dwarf_Attribute a;
        Dwarf_Signed s;

        if (dwarf_attr(e, DW_AT_const_value, &a, NULL) == DW_DLV_OK) {
            Dwarf_Half form = 0;

            dwarf_whatform(a, &form, NULL);
            sgn |= form == DW_FORM_sdata && dwarf_formsdata(a, &s, NULL) == DW_DLV_OK && s < 0;
            dwarf_dealloc_attribute(a);
        }
    }
    return sgn;
}

/* The enumerators of enum t (bytes wide); -1 out of memory. */
static int enumerators(struct ctx *c, Dwarf_Die t, unsigned bytes, int sgn, struct wrapgen_enum *en)
{
    struct wrapgen_enumerator *items = NULL;
    unsigned cap = 0;
    Dwarf_Die e;
    int rc = 0;

    for (e = dwdie_child(t); e && !rc; e = dwdie_next(c->dbg, e)) {
        const char *name = dwdie_name(e);
        uint64_t v;

        /* An empty name would be a table line the host refuses (wsig.c), a very long one a
         * line longer than it reads: such an enumerator (a damaged DWARF) is left out, and
         * its value is shown as a number. */
        if (dwdie_tag(e) == DW_TAG_enumerator && name && *name &&
            strlen(name) < ENUMERATOR_NAME_MAX && en->n < MAX_ENUMERATORS &&
            enumerator_value(e, sgn, &v) == 0) {
            if (en->n == cap) {
                struct wrapgen_enumerator *n;

                cap = cap ? cap * 2 : 16;
                if (!(n = wrapgen_alloc(c->set, cap * sizeof *n))) {
                    rc = -1;
                } else {
                    if (en->n)
                        memcpy(n, items, en->n * sizeof *n);
                    items = n; /* the old array stays in the arena: enums are small */
                }
            }
            if (!rc && !(items[en->n].name = wrapgen_strdup(c->set, name)))
                rc = -1;
            if (!rc)
                items[en->n++].value = sign_extend(v, bytes);
        }
    }
    if (e)
        dwarf_dealloc_die(e);
    en->items = items;
    return rc;
}

/* An enum: the integer of its size and signedness, recorded as a signed one. NULL, "unknown"
 * (a declaration without its enumerators, or an odd size), or NULL with w->c NULL out of
 * memory. */
static const char *enum_type(struct ctx *c, Dwarf_Die t, struct wrapgen_type *w, int *oom)
{
    unsigned bytes = (unsigned)dwdie_u(t, DW_AT_byte_size);
    struct wrapgen_enum *en;
    int sgn;

    if (dwdie_flag(t, DW_AT_declaration) || !wrapgen_int_type(bytes, 1))
        return "unknown";
    sgn = enum_signed(c, t);
    if (!(en = wrapgen_alloc(c->set, sizeof *en)) || enumerators(c, t, bytes, sgn, en) < 0) {
        *oom = 1;
        return NULL;
    }
    w->kind = WRAPGEN_INT;
    w->c = wrapgen_int_type(bytes, sgn);
    w->cast = sgn ? NULL : wrapgen_int_type(bytes, 1);
    w->en = en;
    return NULL;
}

/* The type of holder (a parameter or a function: its DW_AT_type) into w: 0, -1 out of memory.
 * *why is set when it cannot be passed on ("long double", "struct s by value"). */
static int type_of(struct ctx *c, Dwarf_Die holder, struct wrapgen_type *w, const char **why)
{
    Dwarf_Die t = dwdie_ref(c->dbg, holder, DW_AT_type);
    char shown[SHOWN_MAX];
    const char *bad = NULL;
    unsigned q = 0;
    int oom = 0;
    Dwarf_Half tag;

    memset(w, 0, sizeof *w);
    *why = NULL;
    dwdecl_type(c->dbg, t, "", shown, sizeof shown);
    if (!(w->shown = wrapgen_strdup(c->set, shown))) {
        if (t)
            dwarf_dealloc_die(t);
        return -1;
    }
    t = strip(c->dbg, t, &q);
    tag = t ? dwdie_tag(t) : 0;
    if (!t) {
        w->kind = WRAPGEN_VOID;
        w->c = "void";
    } else if (q & Q_DEEP) {
        bad = "unknown";
    } else if (tag == DW_TAG_base_type) {
        bad = base_type(c, t, w);
    } else if (tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type ||
               tag == DW_TAG_rvalue_reference_type) {
        pointer_type(c, t, w);
    } else if (tag == DW_TAG_enumeration_type) {
        bad = enum_type(c, t, w, &oom);
    } else if (tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
               tag == DW_TAG_class_type) {
        bad = "by value";
    } else {
        bad = "unknown";
    }
    if (t)
        dwarf_dealloc_die(t);
    if (bad && !strcmp(bad, "by value"))
        *why = wrapgen_printf(c->set, "%s by value", shown);
    else if (bad && !strcmp(bad, "unknown"))
        *why = wrapgen_printf(c->set, "'%s', a type cygtrace wrap does not know", shown);
    else
        *why = bad;
    return oom || (bad && !*why) || (!bad && !w->c) ? -1 : 0;
}

/* The parameters of fn's DIE into fn (fn->skip when variadic, too many, or one of a type that
 * cannot be passed on). 0, -1 out of memory. */
static int params(struct ctx *c, Dwarf_Die die, struct wrapgen_fn *fn)
{
    Dwarf_Die p;
    const char *why = NULL;
    unsigned n = 0;
    int variadic = 0, rc = 0;

    for (p = dwdie_child(die); p && !rc; p = dwdie_next(c->dbg, p)) {
        Dwarf_Half tag = dwdie_tag(p);

        if (tag == DW_TAG_unspecified_parameters)
            variadic = 1;
        if (tag == DW_TAG_formal_parameter && n++ < WRAPGEN_MAX_PARAMS) {
            struct wrapgen_param *pp = &fn->p[n - 1];
            const char *name = dwdie_name(p), *bad = NULL;

            if (name && !(pp->name = wrapgen_strdup(c->set, name)))
                rc = -1;
            else if (type_of(c, p, &pp->t, &bad) < 0)
                rc = -1;
            /* No type, or one that does not resolve (a reference to no DIE: a damaged or
             * truncated DWARF) reads as void, which no parameter is and no value kind says */
            else if (!bad && pp->t.kind == WRAPGEN_VOID &&
                     !(bad = wrapgen_printf(c->set, "'%s', not a type a parameter can have (the "
                                            "DWARF gives none, or one it does not hold)",
                                            pp->t.shown)))
                rc = -1;
            if (!rc && bad && !why &&
                !(why = wrapgen_printf(c->set, "parameter %u (%s): %s", n - 1,
                                       name ? name : "unnamed", bad)))
                rc = -1;
        }
    }
    if (p)
        dwarf_dealloc_die(p);
    fn->n = n < WRAPGEN_MAX_PARAMS ? n : WRAPGEN_MAX_PARAMS;
    if (variadic)
        why = "variadic";
    else if (n > WRAPGEN_MAX_PARAMS)
        why = wrapgen_printf(c->set, "%u parameters, more than %u", n, WRAPGEN_MAX_PARAMS);
    if (why)
        fn->skip = why;
    return rc || (n > WRAPGEN_MAX_PARAMS && !why) ? -1 : 0;
}

/* The signature of the function named name, whose DIE is die: its declaration, where its
 * parameters and return type are, is decl (out-of-line copies of inline functions only point
 * back at theirs). */
static int add_fn(struct ctx *c, const char *name, Dwarf_Die die, Dwarf_Die decl)
{
    Dwarf_Die pdie = decl && dwdie_has(die, DW_AT_abstract_origin) ? decl : die;
    Dwarf_Die rdie = dwdie_has(die, DW_AT_type) || !decl ? die : decl;
    struct wrapgen_fn fn;
    const char *why;

    memset(&fn, 0, sizeof fn);
    if (!(fn.name = wrapgen_strdup(c->set, name)) || type_of(c, rdie, &fn.ret, &why) < 0 ||
        params(c, pdie, &fn) < 0)
        return -1;
    if (why && !fn.skip && !(fn.skip = wrapgen_printf(c->set, "returns %s", why)))
        return -1;
    if (!fn.skip && fn.n && !dwdie_flag(die, DW_AT_prototyped) &&
        !(decl && dwdie_flag(decl, DW_AT_prototyped)))
        fn.skip = "an old-style (K&R) definition: its arguments are promoted";
    if (wrapgen_fix_names(c->set, &fn) < 0)
        return -1;
    return wrapgen_set_add(c->set, &fn) < 0 ? -1 : 0;
}

/* A DW_TAG_subprogram: its signature when it defines an external function that is wanted. */
static int subprogram(struct ctx *c, Dwarf_Die die)
{
    Dwarf_Die decl;
    const char *name;
    int rc = 0;

    if (dwdie_flag(die, DW_AT_declaration))
        return 0;
    decl = dwdie_ref(c->dbg, die, DW_AT_specification);
    if (!decl)
        decl = dwdie_ref(c->dbg, die, DW_AT_abstract_origin);
    name = linkage_name(die);
    if (!name && decl)
        name = linkage_name(decl);
    if (!name)
        name = dwdie_name(die) ? dwdie_name(die) : dwdie_name(decl);
    if (name &&
        (dwdie_flag(die, DW_AT_external) ||
         (decl && dwdie_flag(decl, DW_AT_external))) &&
        !wrapgen_set_find(c->set, name) && c->want(c->arg, name))
        rc = add_fn(c, name, die, decl);
    if (decl)
        dwarf_dealloc_die(decl);
    return rc;
}

/* The functions among the children of parent (a unit; namespaces, for C++ too). */
static int walk(struct ctx *c, Dwarf_Die parent, unsigned depth)
{
    Dwarf_Die die = depth > 8 ? NULL : dwdie_child(parent);
    int rc = 0;

    for (; die && !rc; die = dwdie_next(c->dbg, die)) {
        Dwarf_Half tag = dwdie_tag(die);

        if (tag == DW_TAG_subprogram)
            rc = subprogram(c, die);
        else if (tag == DW_TAG_namespace)
            rc = walk(c, die, depth + 1);
    }
    if (die)
        dwarf_dealloc_die(die);
    return rc;
}

int wrapdw_read(Dwarf_Debug dbg, struct wrapgen_set *set, wrapdw_want_fn want, void *arg)
{
    struct ctx c = {dbg, set, want, arg};
    Dwarf_Unsigned next;
    int rc = 0, units = 0;

    /* Every unit, to the end: libdwarf's walk over the units restarts only past the last. */
    while (dwarf_next_cu_header_d(dbg, 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &next,
                                  NULL, NULL) == DW_DLV_OK) {
        Dwarf_Die cu = NULL;

        if (rc || dwarf_siblingof_b(dbg, NULL, 1, &cu, NULL) != DW_DLV_OK)
            continue;
        units++;
        rc = walk(&c, cu, 0);
        dwarf_dealloc_die(cu);
    }
    return rc < 0 ? -1 : units;
}
