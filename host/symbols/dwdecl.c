/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dwdecl.c - C declarators built inside out: a pointer to a function returning int is
 * "int (*)(int)", each type of the chain wrapping the declarator of the one before. */
#include "symbols/dwdecl.h"

#include <libdwarf/dwarf.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "symbols/dwdie.h"

#define TYPE_DEPTH 16 /* deeper type chains (or a cycle) print as "?" */

struct sbuf {
    char *p;
    size_t len, n;
};

static void sb_add(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_add(struct sbuf *b, const char *fmt, ...)
{
    va_list ap;
    int k;

    if (b->n >= b->len)
        return;
    va_start(ap, fmt);
    k = vsnprintf(b->p + b->n, b->len - b->n, fmt, ap);
    va_end(ap);
    if (k > 0)
        b->n = b->n + (size_t)k < b->len ? b->n + (size_t)k : b->len - 1;
}

static void params(Dwarf_Debug dbg, Dwarf_Die fn, int named, unsigned depth, struct sbuf *b);

/* Writes into b the declaration of decl (a name, or "" for a bare type) with type t. */
static void type_decl(Dwarf_Debug dbg, Dwarf_Die t, const char *decl, unsigned depth,
                      struct sbuf *b)
{
    char inner[512];
    Dwarf_Half tag = 0;
    Dwarf_Die sub;
    const char *name, *sp = *decl && decl[0] != '[' ? " " : "";

    if (!t) {
        sb_add(b, "void%s%s", sp, decl);
        return;
    }
    if (depth > TYPE_DEPTH) {
        sb_add(b, "?%s%s", sp, decl);
        return;
    }
    tag = dwdie_tag(t);
    sub = dwdie_ref(dbg, t, DW_AT_type);
    switch (tag) {
    case DW_TAG_pointer_type:
    case DW_TAG_reference_type:
    case DW_TAG_rvalue_reference_type: {
        const char *op = tag == DW_TAG_pointer_type ? "*" : tag == DW_TAG_reference_type ? "&"
                                                                                          : "&&";
        Dwarf_Half st = 0;

        if (sub)
            dwarf_tag(sub, &st, NULL);
        if (st == DW_TAG_subroutine_type || st == DW_TAG_array_type)
            snprintf(inner, sizeof inner, "(%s%s)", op, decl);
        else
            snprintf(inner, sizeof inner, "%s%s", op, decl);
        type_decl(dbg, sub, inner, depth + 1, b);
        break;
    }
    case DW_TAG_const_type:
    case DW_TAG_volatile_type:
    case DW_TAG_restrict_type: {
        /* A chain of qualifiers prints in the usual order: "const volatile int". */
        unsigned q = 0;
        Dwarf_Half st = tag;
        char qs[32];

        for (unsigned k = 0; k < 4; k++) {
            Dwarf_Die n;

            q |= st == DW_TAG_const_type ? 1u : st == DW_TAG_volatile_type ? 2u : 4u;
            st = 0;
            if (!sub || dwarf_tag(sub, &st, NULL) != DW_DLV_OK ||
                (st != DW_TAG_const_type && st != DW_TAG_volatile_type &&
                 st != DW_TAG_restrict_type))
                break;
            n = dwdie_ref(dbg, sub, DW_AT_type);
            dwarf_dealloc_die(sub);
            sub = n;
        }
        snprintf(qs, sizeof qs, "%s%s%s", q & 1u ? "const " : "", q & 2u ? "volatile " : "",
                 q & 4u ? "restrict " : "");
        qs[strlen(qs) - 1] = 0;
        if (st == DW_TAG_pointer_type) { /* "char *const p" */
            snprintf(inner, sizeof inner, "%s%s%s", qs, *decl ? " " : "", decl);
            type_decl(dbg, sub, inner, depth + 1, b);
        } else { /* "const char" */
            sb_add(b, "%s ", qs);
            type_decl(dbg, sub, decl, depth + 1, b);
        }
        break;
    }
    case DW_TAG_array_type: {
        Dwarf_Die r;
        size_t k = (size_t)snprintf(inner, sizeof inner, "%s", decl);

        for (r = dwdie_child(t); r; r = dwdie_next(dbg, r)) {
            Dwarf_Attribute a;
            Dwarf_Unsigned v = 0;

            if (dwarf_attr(r, DW_AT_count, &a, NULL) == DW_DLV_OK) {
                dwarf_formudata(a, &v, NULL);
                dwarf_dealloc_attribute(a);
            } else if (dwarf_attr(r, DW_AT_upper_bound, &a, NULL) == DW_DLV_OK) {
                if (dwarf_formudata(a, &v, NULL) == DW_DLV_OK)
                    v++;
                dwarf_dealloc_attribute(a);
            }
            if (k < sizeof inner)
                k += (size_t)snprintf(inner + k, sizeof inner - k, v ? "[%llu]" : "[]",
                                      (unsigned long long)v);
        }
        type_decl(dbg, sub, inner, depth + 1, b);
        break;
    }
    case DW_TAG_subroutine_type: {
        struct sbuf pb = {inner, sizeof inner, 0};

        sb_add(&pb, "%s(", decl);
        params(dbg, t, 0, depth + 1, &pb);
        sb_add(&pb, ")");
        type_decl(dbg, sub, inner, depth + 1, b);
        break;
    }
    default: {
        const char *kw = tag == DW_TAG_structure_type ? "struct "
                         : tag == DW_TAG_union_type   ? "union "
                         : tag == DW_TAG_enumeration_type ? "enum "
                         : tag == DW_TAG_class_type   ? "class "
                                                      : "";

        name = dwdie_name(t);
        sb_add(b, "%s%s%s%s", kw, name ? name : "<anonymous>", sp, decl);
        break;
    }
    }
    if (sub)
        dwarf_dealloc_die(sub);
}

void dwdecl_type(Dwarf_Debug dbg, Dwarf_Die t, const char *decl, char *buf, size_t len)
{
    struct sbuf b = {buf, len, 0};

    if (!len)
        return;
    buf[0] = 0;
    type_decl(dbg, t, decl, 0, &b);
}

/* "int i, char *s" (named: a function's parameters) or "int, char *" (a function type's);
 * "void" for none when prototyped, "..." for the variable part. */
static void params(Dwarf_Debug dbg, Dwarf_Die fn, int named, unsigned depth, struct sbuf *b)
{
    Dwarf_Die die;
    unsigned n = 0;

    for (die = dwdie_child(fn); die; die = dwdie_next(dbg, die)) {
        Dwarf_Half tag = dwdie_tag(die);

        if (tag == DW_TAG_formal_parameter) {
            const char *name = named ? dwdie_name(die) : NULL;
            Dwarf_Die t = dwdie_ref(dbg, die, DW_AT_type);

            /* C++'s implicit "this" is not written in a declaration */
            if (!dwdie_flag(die, DW_AT_artificial)) {
                sb_add(b, "%s", n++ ? ", " : "");
                type_decl(dbg, t, name ? name : "", depth, b);
            }
            if (t)
                dwarf_dealloc_die(t);
        } else if (tag == DW_TAG_unspecified_parameters) {
            sb_add(b, "%s...", n++ ? ", " : "");
        }
    }
    if (!n && dwdie_flag(fn, DW_AT_prototyped))
        sb_add(b, "void");
}

void dwdecl_func(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Die origin, char *buf, size_t len)
{
    struct sbuf b = {buf, len, 0};
    const char *name = dwdie_name(die);

    if (!len)
        return;
    buf[0] = 0;
    if (!name)
        name = dwdie_name(origin);
    sb_add(&b, "%s(", name ? name : "?");
    /* an out-of-line copy's parameters only point back at the abstract ones */
    params(dbg, origin && dwdie_has(die, DW_AT_abstract_origin) ? origin : die, 1, 0, &b);
    sb_add(&b, ")");
}
