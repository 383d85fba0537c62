/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dwdecl.h - C declarations printed from DWARF types: "const char *", "int (*)(int)", "enum
 * mode", and a function's signature "decide(int i)". For the source lines' signatures
 * (dwarf.c) and the types the wrappers' table shows (cygtrace wrap, wrapdw.c). */
#ifndef DWDECL_H
#define DWDECL_H

#include <libdwarf/libdwarf.h>
#include <stddef.h>

/* Writes into buf (len bytes, always terminated) type t as C declares decl with it ("" for
 * the bare type): "const char *", "int (*)(int)", "enum mode", "uint64_t"; t NULL is void.
 * Chains deeper than 16 types (or a cycle) print as "?". */
void dwdecl_type(Dwarf_Debug dbg, Dwarf_Die t, const char *decl, char *buf, size_t len);

/* Writes into buf (len bytes, always terminated) the signature of the function whose DIE is
 * die: "decide(int i)", "main(void)", "f(const char *fmt, ...)". origin (NULL: none) is the
 * DIE its DW_AT_specification or DW_AT_abstract_origin points at, which may hold its name and,
 * for an out-of-line copy of an inline function, its parameters. */
void dwdecl_func(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Die origin, char *buf, size_t len);

#endif
