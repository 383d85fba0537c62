/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dwdie.h - libdwarf's DIEs, read quietly: the attributes, names and children that every
 * reader of DWARF in the host asks for (dwarf.c's lines and functions, dwdecl.c's declarators,
 * cygtrace wrap's signatures in wrapdw.c), in libdwarf's own types. Each returns "absent"
 * (0, NULL) where libdwarf says no entry or an error: a DWARF the user did not write may hold
 * anything, and what cannot be read is not there. */
#ifndef DWDIE_H
#define DWDIE_H

#include <libdwarf/libdwarf.h>

/* The error handler to give libdwarf: without one it aborts on an error we did not ask about;
 * with this one it returns DW_DLV_ERROR and prints nothing. */
void dwdie_quiet(Dwarf_Error err, Dwarf_Ptr arg);

/* An unsigned attribute of die (DW_AT_byte_size, DW_AT_decl_line, ...); 0 when absent. */
Dwarf_Unsigned dwdie_u(Dwarf_Die die, Dwarf_Half at);

/* A flag attribute of die (DW_AT_external, DW_AT_prototyped, ...); 0 when absent. */
int dwdie_flag(Dwarf_Die die, Dwarf_Half at);

/* Whether die has attribute at at all. */
int dwdie_has(Dwarf_Die die, Dwarf_Half at);

/* The DIE a reference attribute of die points at (DW_AT_type, DW_AT_specification, ...), or
 * NULL; the caller deallocates it. */
Dwarf_Die dwdie_ref(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half at);

/* The name of die (NULL is fine), or NULL; libdwarf's, not to free. */
const char *dwdie_name(Dwarf_Die die);

/* The tag of die, 0 when it cannot be read. */
Dwarf_Half dwdie_tag(Dwarf_Die die);

/* The first child of die, or NULL; the caller deallocates it (or hands it to dwdie_next). */
Dwarf_Die dwdie_child(Dwarf_Die die);

/* The sibling after die, or NULL (at the end, or where a damaged DWARF names one that does not
 * lie after die: a walk never goes round); die itself is deallocated. A walk over a DIE's children:
 * for (c = dwdie_child(p); c; c = dwdie_next(dbg, c)), deallocating c when it stops early. */
Dwarf_Die dwdie_next(Dwarf_Debug dbg, Dwarf_Die die);

#endif
