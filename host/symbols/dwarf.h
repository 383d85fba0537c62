/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dwarf.h - source lines and function signatures from an ELF file's DWARF (libdwarf), for the
 * ELF files the symbolizer reads (ARM, RISC-V, x86-64; DWARF 4 and 5).
 *
 * Lazy: opening only keeps the path; the DWARF is read at the first query, and each
 * compilation unit's line table and function list when an address inside it is first asked
 * about. At most DWARF_CU_CACHE units are held; a big ELF costs what a trace touches. */
#ifndef DWARF_H
#define DWARF_H

#include <stddef.h>
#include <stdint.h>

#define DWARF_CU_CACHE 32u

struct dwarf_src;

/* A lazy reader of the ELF at path (nothing is read yet); NULL when out of memory. */
struct dwarf_src *dwarf_src_open(const char *path);

/* Frees the reader. NULL is fine. */
void dwarf_src_close(struct dwarf_src *d);

/* The source file (as the DWARF names it, usually a full path) and line of the code at link-time
 * address addr: 0, or -1 when the DWARF does not say (the ELF has none, or it describes no
 * line there). Not knowing is an answer, not an error: no text comes with it. */
int dwarf_src_line(struct dwarf_src *d, uint64_t addr, char *file, size_t filelen,
                   unsigned *line);

/* The function whose code holds link-time address addr: its declaration's file and line
 * (DW_AT_decl_file/decl_line, else its first line), and into sig (NULL: not wanted) its
 * signature in C, "decide(int i)", "main(void)", "f(const char *fmt, ...)": 0, or -1 when
 * the DWARF does not say (none, or no function of it holds addr). */
int dwarf_src_func(struct dwarf_src *d, uint64_t addr, char *file, size_t filelen,
                   unsigned *line, char *sig, size_t siglen);

#endif
