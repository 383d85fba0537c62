/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dwdie.c - DIE attributes, names and children, read quietly. */
#include "symbols/dwdie.h"

#include <stddef.h>

void dwdie_quiet(Dwarf_Error err, Dwarf_Ptr arg)
{
    (void)err;
    (void)arg;
}

Dwarf_Unsigned dwdie_u(Dwarf_Die die, Dwarf_Half at)
{
    Dwarf_Attribute a;
    Dwarf_Unsigned v = 0;

    if (dwarf_attr(die, at, &a, NULL) != DW_DLV_OK)
        return 0;
    if (dwarf_formudata(a, &v, NULL) != DW_DLV_OK) {
        Dwarf_Signed sv = 0; /* DW_FORM_implicit_const (DWARF 5) only reads as signed */

        v = dwarf_formsdata(a, &sv, NULL) == DW_DLV_OK && sv > 0 ? (Dwarf_Unsigned)sv : 0;
    }
    dwarf_dealloc_attribute(a);
    return v;
}

int dwdie_flag(Dwarf_Die die, Dwarf_Half at)
{
    Dwarf_Attribute a;
    Dwarf_Bool v = 0;

    if (dwarf_attr(die, at, &a, NULL) != DW_DLV_OK)
        return 0;
    if (dwarf_formflag(a, &v, NULL) != DW_DLV_OK)
        v = 0;
    dwarf_dealloc_attribute(a);
    return !!v;
}

int dwdie_has(Dwarf_Die die, Dwarf_Half at)
{
    Dwarf_Bool b = 0;

    return dwarf_hasattr(die, at, &b, NULL) == DW_DLV_OK && b;
}

Dwarf_Die dwdie_ref(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half at)
{
    Dwarf_Attribute a;
    Dwarf_Off off;
    Dwarf_Die t = NULL;

    if (dwarf_attr(die, at, &a, NULL) != DW_DLV_OK)
        return NULL;
    if (dwarf_global_formref(a, &off, NULL) == DW_DLV_OK &&
        dwarf_offdie_b(dbg, off, 1, &t, NULL) != DW_DLV_OK)
        t = NULL;
    dwarf_dealloc_attribute(a);
    return t;
}

const char *dwdie_name(Dwarf_Die die)
{
    char *n = NULL;

    return die && dwarf_diename(die, &n, NULL) == DW_DLV_OK ? n : NULL;
}

Dwarf_Half dwdie_tag(Dwarf_Die die)
{
    Dwarf_Half tag = 0;

    if (dwarf_tag(die, &tag, NULL) != DW_DLV_OK)
        tag = 0;
    return tag;
}

Dwarf_Die dwdie_child(Dwarf_Die die)
{
    Dwarf_Die c = NULL;

    return dwarf_child(die, &c, NULL) == DW_DLV_OK ? c : NULL;
}

Dwarf_Die dwdie_next(Dwarf_Debug dbg, Dwarf_Die die)
{
    Dwarf_Die next = NULL;
    Dwarf_Off at = 0, to = 0;

    if (dwarf_siblingof_b(dbg, die, 1, &next, NULL) != DW_DLV_OK)
        next = NULL;
    /* A sibling lies after the DIE: one that does not (a DW_AT_sibling that points back, in a
     * damaged DWARF) would make every walk over the siblings go round for ever (found by
     * tests/fuzz/fuzz_wrap). */
    if (next && (dwarf_dieoffset(die, &at, NULL) != DW_DLV_OK ||
                 dwarf_dieoffset(next, &to, NULL) != DW_DLV_OK || to <= at)) {
        dwarf_dealloc_die(next);
        next = NULL;
    }
    dwarf_dealloc_die(die);
    return next;
}
