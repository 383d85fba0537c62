/* SPDX-License-Identifier: GPL-3.0-or-later */
/* elfsize.h - symbol sizes (st_size) read from an ELF file's own .symtab and .dynsym.
 *
 * Why by hand: libbfd keeps them only in elf_symbol_type, whose header (elf-bfd.h) is not
 * installed, and copying that private struct's layout would break silently with the next
 * binutils. Sizes guessed from the distance to the next symbol are wrong across padding and
 * for the last function. So the symbolizer (sym.c) matches each bfd symbol here by (value,
 * name). */
#ifndef ELFSIZE_H
#define ELFSIZE_H

#include <stdint.h>

#include "symbols/elfhdr.h"

struct elfsize;

/* The sizes of every sized symbol of the open file fd (file_size bytes), whose header is h.
 * Best effort: NULL when it has none, when its section headers cannot be read, or out of
 * memory (its symbols then have size 0). */
struct elfsize *elfsize_load(int fd, uint64_t file_size, const struct elfhdr *h);

/* Returns the st_size of the symbol called name at value, 0 when unknown (s may be NULL). On
 * ARM bit 0 (Thumb) takes no part: bfd may or may not have cleared it in value. */
uint64_t elfsize_of(const struct elfsize *s, uint64_t value, const char *name);

/* Frees them. NULL is fine. */
void elfsize_free(struct elfsize *s);

#endif
