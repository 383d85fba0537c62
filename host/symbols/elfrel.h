/* SPDX-License-Identifier: GPL-3.0-or-later */
/* elfrel.h - the DWARF of a relocatable ELF object (a .o file, or an archive's member) held in
 * memory, for libdwarf; a shared library's too, which has no relocations of its DWARF left.
 *
 * Why not dwarf_init_path: an archive's member is no file, and in a relocatable object the
 * DWARF's references to other sections (names in .debug_str, code addresses) are relocations
 * still to apply. libdwarf 20210528 applies them for a few machines (x86-64, i386, ARM) and
 * gives up on the others (RISC-V's ADD/SUB pairs). Here we apply them ourselves, for x86-64,
 * i386, ARM, AArch64 and RISC-V, each section as if linked at address 0, and serve the
 * sections to libdwarf through its object access interface (dwarf_object_init_b). */
#ifndef ELFREL_H
#define ELFREL_H

#include <libdwarf/libdwarf.h>
#include <stddef.h>

struct elfrel;

/* Takes buf (len bytes from malloc; the elfrel owns it from now on, freed on failure too) and
 * applies the relocations of its DWARF sections. NULL with a one-line reason in err ("not a
 * relocatable ELF object or a shared library", "truncated ELF", "DWARF relocations of machine 8 are not known",
 * "compressed DWARF (-gz)"...) when it cannot. */
struct elfrel *elfrel_open(void *buf, size_t len, char *err, size_t errlen);

/* libdwarf on the object (its errors quiet, dwdie_quiet): 0 and *dbg, or -1 with err "no
 * DWARF" or "its DWARF cannot be read". Its units, DIEs, types, strings and lines; not its
 * range and location lists (.debug_rnglists, .debug_loclists: libdwarf does not see them).
 * The elfrel ends the Dwarf_Debug when closed. */
int elfrel_dwarf(struct elfrel *e, Dwarf_Debug *dbg, char *err, size_t errlen);

/* Finishes its Dwarf_Debug and frees it all. NULL is fine. */
void elfrel_close(struct elfrel *e);

#endif
