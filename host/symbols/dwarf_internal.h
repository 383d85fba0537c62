/* dwarf_internal.h - what dwarf.c shares with the other readers of DWARF in the host (the
 * signatures of cygtrace wrap, wrapdw.c), in libdwarf's own types. */
#ifndef DWARF_INTERNAL_H
#define DWARF_INTERNAL_H

#include <libdwarf/libdwarf.h>
#include <stddef.h>

/* Writes into buf (len bytes, always terminated) type t as C declares decl with it ("" for the
 * bare type): "const char *", "int (*)(int)", "enum mode", "uint64_t"; t NULL is void. */
void dwarf_src_type_text(Dwarf_Debug dbg, Dwarf_Die t, const char *decl, char *buf, size_t len);

/* An unsigned attribute of die (DW_AT_byte_size, ...); 0 when absent. */
Dwarf_Unsigned dwarf_src_attr_u(Dwarf_Die die, Dwarf_Half at);

/* A flag attribute of die (DW_AT_external, ...); 0 when absent. */
int dwarf_src_attr_flag(Dwarf_Die die, Dwarf_Half at);

/* The DIE a reference attribute of die points at (DW_AT_type, ...), or NULL; the caller
 * deallocates it. */
Dwarf_Die dwarf_src_attr_die(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half at);

#endif
